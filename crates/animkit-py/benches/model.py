"""Benchmark (a script, not a test): `open` + `to_model` + touching every key array from Python,
against the Rust `read` + `to_model` of the same file (`crates/animkit/examples/profile_model.rs`),
in the same run. Python reaches the keys two ways: in bulk (`Package.key_arrays()`, a few arrays
per channel) and track by track (`Track.times` and `Track.values`, two arrays per track).

    python crates/animkit-py/benches/model.py [FILE] [ITERATIONS] [ROUNDS]

FILE defaults to the corpus's `ifp/sa_ped_anp3.ifp`. Needs the package installed (release build,
as `pip install ./crates/animkit-py` makes it) and cargo, which builds the Rust example in release.
The two sides take turns, ROUNDS times (default 3) of ITERATIONS each (default 30), so that a busy
machine slows both alike. Prints the fastest iteration and the median of the rounds' medians of
each, and their ratios to Rust. Python's `open` reads the file each time; the Rust example reads it
once, before timing.
"""

import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import animkit

REPO = Path(__file__).resolve().parents[3]


def python_times(path, iterations, touch):
    """Seconds per iteration of open + to_model + `touch` of the package."""
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        package = animkit.open(path).to_model()
        touch(package)
        times.append(time.perf_counter() - start)
        del package
    return times


def touch_in_bulk(package):
    """Every key array in bulk: each channel's times, values and offsets."""
    for group in package.key_arrays().values():
        group.times, group.key_offsets, group.values, group.value_offsets


def touch_per_track(package):
    """Every track's times and values, as numpy arrays of their own."""
    for clip in package.clips:
        for track in clip.tracks:
            track.times, track.values


def rust_times(example, path, iterations):
    """(fastest, median) seconds of the Rust example, as it prints them."""
    done = subprocess.run([example, str(path), str(iterations)], capture_output=True, text=True, check=True)
    fastest, median = re.findall(r"([0-9.]+) ms", done.stderr)[:2]
    return float(fastest) / 1e3, float(median) / 1e3


def build_rust_example():
    """The path of the Rust example, built in release."""
    cargo = ["cargo", "build", "--quiet", "--release", "-p", "animkit", "--example", "profile_model"]
    subprocess.run(cargo, cwd=REPO, check=True)
    return REPO / "target" / "release" / "examples" / "profile_model"


def main():
    root = Path(os.environ.get("ANIMKIT_CORPUS", REPO.parent / "shared" / "corpus"))
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "ifp" / "sa_ped_anp3.ifp"
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    package = animkit.open(path).to_model()
    tracks = sum(len(c.tracks) for c in package.clips)
    print(f"{path.name}: {len(package.clips)} clips, {tracks} tracks ({2 * tracks} key arrays)")
    example = build_rust_example()
    sides = {
        "Rust   read + to_model:                               ": None,
        "Python open + to_model + every array in bulk:         ": touch_in_bulk,
        "Python open + to_model + every array per track:       ": touch_per_track,
    }
    results = {label: [] for label in sides}
    for _ in range(rounds):
        for label, touch in sides.items():
            if touch is None:
                results[label].append(rust_times(example, path, iterations))
            else:
                py = python_times(path, iterations, touch)
                results[label].append((min(py), statistics.median(py)))
    figures = {label: (min(f for f, _ in r), statistics.median(m for _, m in r)) for label, r in results.items()}
    (rust_label, (rust_fastest, rust_median)), *python = figures.items()
    print(f"{rust_label}{rust_fastest * 1e3:7.3f} ms fastest, {rust_median * 1e3:7.3f} ms median")
    for label, (fastest, median) in python:
        print(
            f"{label}{fastest * 1e3:7.3f} ms fastest, {median * 1e3:7.3f} ms median;"
            f" {fastest / rust_fastest:.2f}x Rust fastest, {median / rust_median:.2f}x median"
        )


if __name__ == "__main__":
    main()
