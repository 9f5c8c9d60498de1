"""Benchmark (a script, not a test): `open` + `to_model` + touching every key array from Python,
against the Rust `read` + `to_model` of the same file (`crates/animkit/examples/profile_model.rs`),
in the same run.

    python crates/animkit-py/benches/model.py [FILE] [ITERATIONS]

FILE defaults to the corpus's `ifp/sa_ped_anp3.ifp`. Needs the package installed (release build,
as `pip install ./crates/animkit-py` makes it) and cargo, which builds the Rust example in release.
Prints the fastest and the median iteration of each, and their ratio.
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


def python_times(path, iterations):
    """Seconds per iteration of open + to_model + reading every track's times and values."""
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        package = animkit.open(path).to_model()
        for clip in package.clips:
            for track in clip.tracks:
                track.times
                track.values
        times.append(time.perf_counter() - start)
        del package
    return times


def rust_times(path, iterations):
    """(fastest, median) seconds of the Rust example, as it prints them."""
    cargo = ["cargo", "run", "--quiet", "--release", "-p", "animkit", "--example", "profile_model", "--"]
    done = subprocess.run([*cargo, str(path), str(iterations)], cwd=REPO, capture_output=True, text=True, check=True)
    fastest, median = re.findall(r"([0-9.]+) ms", done.stderr)[:2]
    return float(fastest) / 1e3, float(median) / 1e3


def main():
    root = Path(os.environ.get("ANIMKIT_CORPUS", REPO.parent / "shared" / "corpus"))
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "ifp" / "sa_ped_anp3.ifp"
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    package = animkit.open(path).to_model()
    tracks = sum(len(c.tracks) for c in package.clips)
    print(f"{path.name}: {len(package.clips)} clips, {tracks} tracks ({2 * tracks} key arrays)")
    rust_fastest, rust_median = rust_times(path, iterations)
    py = python_times(path, iterations)
    py_fastest, py_median = min(py), statistics.median(py)
    print(f"Rust   read + to_model:                {rust_fastest * 1e3:7.3f} ms fastest, {rust_median * 1e3:7.3f} ms median")
    print(f"Python open + to_model + every array:  {py_fastest * 1e3:7.3f} ms fastest, {py_median * 1e3:7.3f} ms median")
    print(f"ratio: {py_fastest / rust_fastest:.2f}x fastest, {py_median / rust_median:.2f}x median")


if __name__ == "__main__":
    main()
