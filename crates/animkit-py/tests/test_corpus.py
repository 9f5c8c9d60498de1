"""Every corpus file through the Python package agrees with the CLI and with its own bytes."""

import json
import warnings

import numpy as np
import pytest

import animkit
from conftest import cli_info, run_cli


def test_model_counts_match_cli_info(corpus_file):
    info = cli_info(corpus_file)
    if info is None:
        with pytest.raises(animkit.Error):
            animkit.open(corpus_file).to_model()
        return
    doc = animkit.open(corpus_file)
    assert (doc.format, doc.version) == (info["format"], info["version"])
    package = doc.to_model()
    assert [c.name for c in package.clips] == [c["name"] for c in info["clips"]]
    for clip, expected in zip(package.clips, info["clips"]):
        assert len(clip.tracks) == len(expected["tracks"]), clip.name
        assert [len(t.times) for t in clip.tracks] == [t["keys"] for t in expected["tracks"]], clip.name
        assert [t.channel for t in clip.tracks] == [t["channel"] for t in expected["tracks"]]
    bones = len(package.skeleton) if package.skeleton is not None else None
    assert bones == info.get("skeleton_bones")


def expected_values(values):
    """A model-JSON `values` object as (channel, numpy array in the package's dtype and shape)."""
    ((channel, data),) = values.items()
    if channel == "texture_index":
        return channel, np.array(data["indices"], dtype=np.uint32)
    dtype = bool if channel == "visibility" else np.float32
    return channel, np.array(data, dtype=dtype)


def test_key_arrays_equal_model_json(corpus_file, tmp_path):
    if cli_info(corpus_file) is None:
        pytest.skip("not a file animkit reads")
    out = tmp_path / "model.json"
    code, _, err = run_cli("convert", corpus_file, "-o", out, "--to", "model-json", check=False)
    if code != 0:
        # The CLI refuses what would convert to nothing (an archive without animations); the
        # model itself reads, and holds no key.
        assert "nothing to convert" in err or "no track" in err or "none of the" in err, err
        assert sum(len(t.times) for c in animkit.open(corpus_file).to_model().clips for t in c.tracks) == 0
        return
    merged = "merged" in err  # several characters' skeletons in one file: bones renamed
    expected = json.loads(out.read_text())["package"]
    package = animkit.open(corpus_file).to_model()
    assert sorted(c.name for c in package.clips) == sorted(c["name"] for c in expected["clips"])
    # A merged file lists the clips character by character: match them by name, in order.
    by_name = {}
    for clip in package.clips:
        by_name.setdefault(clip.name, []).append(clip)
    for want in expected["clips"]:
        clip = by_name[want["name"]].pop(0)
        assert len(clip.tracks) == len(want["tracks"])
        for track, want_track in zip(clip.tracks, want["tracks"]):
            channel, values = expected_values(want_track["values"])
            assert track.channel == channel
            assert track.interpolation == want_track["interpolation"]
            assert track.times.dtype == np.float32
            assert np.array_equal(track.times, np.array(want_track["times"], dtype=np.float32))
            assert track.values.dtype == values.dtype
            assert np.array_equal(track.values.reshape(values.shape), values)
            if not merged and "bone" in want_track["target"]:
                bone = want_track["target"]["bone"]
                target = track.target
                assert (target.name, target.id, target.hash, target.index) == (
                    bone.get("name"),
                    bone.get("id"),
                    bone.get("hash"),
                    bone.get("index"),
                )


def readable(path):
    try:
        return animkit.open(path)
    except animkit.Error:
        pytest.skip("not a file animkit reads")


def test_write_gives_the_file_back(corpus_file):
    doc = readable(corpus_file)
    assert doc.write() == corpus_file.read_bytes()
    assert animkit.open(corpus_file.read_bytes()).write() == corpus_file.read_bytes()


def test_dump_then_pack_is_byte_identical(corpus_file):
    doc = readable(corpus_file)
    dump = doc.dump()
    assert dump["format"] == doc.format
    assert animkit.pack(dump).write() == corpus_file.read_bytes()


@pytest.mark.parametrize("to", ["model-json", "glb"])
def test_convert_equals_the_cli(corpus_file, tmp_path, to):
    if cli_info(corpus_file) is None:
        pytest.skip("not a file animkit reads")
    by_cli, by_python = tmp_path / "cli.out", tmp_path / "python.out"
    code, _, err = run_cli("convert", corpus_file, "-o", by_cli, "--to", to, check=False)
    if code != 0:
        with pytest.raises(animkit.Error):
            animkit.convert(corpus_file, by_python, to=to)
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        animkit.convert(corpus_file, by_python, to=to)
    assert by_python.read_bytes() == by_cli.read_bytes()
    prefix = f"{corpus_file}: warning: "
    cli_warnings = [line.removeprefix(prefix) for line in err.splitlines() if line.startswith(prefix)]
    assert [str(w.message) for w in caught] == cli_warnings
    assert all(issubclass(w.category, animkit.ConversionWarning) for w in caught)


def test_truncated_file_raises_an_error_with_an_offset(corpus_file):
    data = corpus_file.read_bytes()
    readable(corpus_file)
    for cut in sorted({len(data) // 2, len(data) * 9 // 10, 40, 8}):
        try:
            doc = animkit.open(data[:cut])
        except animkit.Error as e:
            assert isinstance(e.offset, int) and 0 <= e.offset <= len(data), (cut, e)
            assert isinstance(e.path, list) and e.message in str(e)
            continue
        # Some formats read a prefix as a smaller valid file (a shorter archive): it must then
        # still be internally consistent.
        assert doc.write() == data[:cut], cut


def test_sample_equals_the_cli(corpus_file):
    info = cli_info(corpus_file)
    if info is None or not info["clips"]:
        pytest.skip("no clips")
    clip_info = max(info["clips"], key=lambda c: len(c["tracks"]))
    t = clip_info["duration_s"] * 0.37
    _, out, _ = run_cli("sample", corpus_file, "--clip", clip_info["name"], "--time", repr(t), "--json")
    expected = json.loads(out)["pose"]
    clip = animkit.open(corpus_file).to_model().clip(clip_info["name"])
    pose = animkit.sample(clip, np.float32(t))
    assert [(s.target.label, s.channel) for s in pose] == [(e["target"], e["channel"]) for e in expected]
    for got, want in zip(pose, expected):
        want_value = np.atleast_1d(np.array(want["value"], dtype=got.value.dtype))
        assert np.array_equal(got.value, want_value), got
    many = animkit.sample(clip, np.array([0.0, t, t], dtype=np.float32))
    for one, rows in zip(pose, many):
        assert rows.value.shape == (3, len(one.value))
        assert np.array_equal(rows.value[1], one.value) and np.array_equal(rows.value[2], one.value)


def test_check_equals_the_cli(corpus_file):
    doc = readable(corpus_file)
    code, out, _ = run_cli("check", "--json", corpus_file, check=False)
    expected = json.loads(out)["findings"]
    got = [
        {
            "severity": f.severity,
            "code": f.code,
            "offset": f.offset,
            "path": f.path,
            "message": f.message,
            "fixable": f.fixable,
        }
        for f in doc.check()
    ]
    assert got == [{k: e.get(k) for k in got[0]} for e in expected] if got else expected == []


def test_repair_leaves_nothing_fixable(corpus_file):
    doc = readable(corpus_file)
    fixable = [f for f in doc.check() if f.fixable]
    repaired, changes = doc.repair()
    assert not [f for f in repaired.check() if f.fixable]
    assert all(isinstance(c, str) for c in changes)
    assert changes or not fixable, "fixable findings but no change"


def assert_key_arrays_equal_tracks(package, groups, clips):
    """Every track of `clips` is in exactly one group of `groups`, whose rows equal its arrays."""
    seen = []
    for channel, group in groups.items():
        assert group.channel == channel
        offsets = (group.key_offsets, group.value_offsets)
        assert all(o.dtype == np.int64 and len(o) == len(group) + 1 and o[0] == 0 for o in offsets)
        assert group.key_offsets[-1] == len(group.times) and group.value_offsets[-1] == len(group.values)
        for i, (c, t, interpolation) in enumerate(zip(group.clips, group.tracks, group.interpolations)):
            track = clips[c].tracks[t]
            assert (track.channel, track.interpolation) == (channel, interpolation), (c, t)
            times, values = group.track(i)
            assert times.dtype == track.times.dtype and np.array_equal(times, track.times), (c, t)
            assert values.dtype == track.values.dtype and np.array_equal(values, track.values), (c, t)
            seen.append((int(c), int(t)))
    assert sorted(seen) == [(c, t) for c, clip in enumerate(clips) for t in range(len(clip.tracks))]


def test_key_arrays_equal_the_track_arrays(corpus_file):
    package = readable(corpus_file).to_model()
    # Before Python has asked for any track (the library's tracks), then after (the Track objects).
    before = package.key_arrays()
    assert_key_arrays_equal_tracks(package, before, package.clips)
    after = package.key_arrays()
    assert before.keys() == after.keys()
    for channel, group in before.items():
        for name in ["clips", "tracks", "times", "key_offsets", "values", "value_offsets"]:
            assert np.array_equal(getattr(group, name), getattr(after[channel], name)), (channel, name)
    for clip in package.clips[:3]:
        groups = clip.key_arrays()
        assert all((g.clips == 0).all() for g in groups.values())
        assert_key_arrays_equal_tracks(package, groups, [clip])
