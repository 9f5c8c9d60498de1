"""The package's own API: models built from numpy arrays, errors, warnings, archives, formats."""

import json
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest

import animkit
from conftest import REPO, run_cli

KEYS = 11
TIMES = np.arange(KEYS, dtype=np.float32) / 10  # 0 … 1 s in steps of 0.1 s (exact frames at 30 fps)


def quaternions(axis, start, stop):
    """Rotations about a unit axis from `start` to `stop` radians, `x y z w`."""
    angles = np.linspace(start, stop, KEYS)
    xyz = np.outer(np.sin(angles / 2), axis)
    return np.column_stack([xyz, np.cos(angles / 2)])


ROOT_ROTATION = quaternions([1.0, 0.0, 0.0], 0.0, np.pi / 2)
PELVIS_ROTATION = quaternions([0.0, 0.6, 0.8], -0.5, 1.0)
ROOT_TRANSLATION = np.column_stack([np.linspace(0, 1.5, KEYS), np.zeros(KEYS), np.linspace(1.0, 0.9, KEYS)])


def walk_package():
    root, pelvis = animkit.Target("Root", id=0), animkit.Target("Pelvis", id=1)
    tracks = [
        animkit.Track(root, "rotation", TIMES, ROOT_ROTATION),
        animkit.Track(root, "translation", TIMES, ROOT_TRANSLATION),
        animkit.Track(pelvis, "rotation", TIMES, PELVIS_ROTATION),
    ]
    skeleton = animkit.Skeleton(["Root", "Pelvis"], [-1, 0], ids=[0, 1], translations=[[0, 0, 0], [0, 0, 1]])
    return animkit.Package([animkit.Clip("walk", tracks)], name="walk", skeleton=skeleton)


# Largest error per component at a key, from each format's quantisation:
# ANP3 truncates rotations to 1/4096 and translations to 1/1024 (ifp.md §4.3); SKB rounds
# rotations to 1/32767 and translations to max|t|/32767 (evilengine.md §3.2); CryEngine's
# default SmallTree48BitQuat keeps 15 bits per component over ±1/√2 and floats for positions;
# BFRES FSKA stores a curve as s8/s16 keys when the decoded curve stays within two s16 steps of
# its largest coefficient (formats/bfres/encode.rs): the root's x runs 0…1.5 over one linear
# segment once keys the line passes through are left out, so 2 × 1.5 / 32767 for translations.
CASES = [
    ("anp3", "ifp", 1 / 4096 * 2, 1 / 1024),
    ("skb", "skb", 2 / 32767, 1.5 / 32767 * 1.5),
    ("cryengine", "caf", 2 * 0.7072 / 32767, 1e-6),
    ("bfres", "bfres", 1e-5, 2 * 1.5 / 32767),
]


@pytest.mark.parametrize("fmt,ext,rotation_error,translation_error", CASES, ids=[c[0] for c in CASES])
def test_numpy_clip_reads_back_within_quantisation(tmp_path, fmt, ext, rotation_error, translation_error):
    path = tmp_path / f"walk.{ext}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", animkit.ConversionWarning)
        animkit.write(walk_package(), path, fmt)
    clip = animkit.open(path).to_model().clips[0]
    assert clip.duration == pytest.approx(1.0, abs=1 / 30)
    pose = animkit.sample(clip, TIMES)
    skeleton = ["Root", "Pelvis"]

    def rows(bone, channel):
        (entry,) = [
            s for s in pose if s.channel == channel and (s.target.name or skeleton[s.target.index]).strip() == bone
        ]
        return entry.value

    for bone, expected in [("Root", ROOT_ROTATION), ("Pelvis", PELVIS_ROTATION)]:
        got = rows(bone, "rotation")
        sign = np.sign(np.sum(got * expected, axis=1, keepdims=True))  # q and -q are one rotation
        assert np.abs(got * sign - expected).max() <= rotation_error, bone
    assert np.abs(rows("Root", "translation") - ROOT_TRANSLATION).max() <= translation_error


def test_track_arrays_take_the_channel_dtype_and_shape():
    track = animkit.Track("Root", "translation", [0, 1], [[0, 0, 0], [1, 2, 3]])
    assert track.times.dtype == np.float32 and track.values.dtype == np.float32
    assert track.values.shape == (2, 3) and len(track) == 2
    assert track.interpolation == "linear" and track.target == animkit.Target("Root")
    track.values[1, 0] = 5  # edited in place
    assert animkit.sample(animkit.Clip("c", [track]), 1.0)[0].value.tolist() == [5, 2, 3]
    with pytest.raises(ValueError, match=r"shape \(n, 4\)"):
        animkit.Track("Root", "rotation", [0], [[0, 0, 1]])
    with pytest.raises(ValueError, match="unknown channel"):
        animkit.Track("Root", "spin", [0], [0])
    visibility = animkit.Track(animkit.Target(material="m", property="visible"), "visibility", [0, 1], [1, 0])
    assert visibility.values.dtype == bool and visibility.interpolation == "step"


def test_a_broken_track_is_an_invalid_error_naming_it(tmp_path):
    track = animkit.Track("Root", "rotation", [0.0, 1.0], [[0, 0, 0, 1]])
    with pytest.raises(animkit.InvalidError, match=r'clip "c" track Root rotation: 1 values for 2 keys') as e:
        animkit.write(animkit.Package([animkit.Clip("c", [track])]), tmp_path / "x.ifp")
    assert e.value.kind == "invalid" and e.value.offset is None


def test_errors_carry_kind_offset_and_path():
    data = b"ANP3" + (100).to_bytes(4, "little") + b"ped\0" + b"\0" * 20 + (5).to_bytes(4, "little") + b"\0" * 8
    with pytest.raises(animkit.Error) as e:
        animkit.open(data)
    error = e.value
    assert isinstance(error, (animkit.TruncatedError, animkit.InvalidError))
    assert isinstance(error.offset, int) and error.path and error.path[0] == "ANP3"
    assert f"at byte {error.offset} " in str(error) and error.message in str(error)
    with pytest.raises(animkit.UnsupportedError, match="not a format animkit knows"):
        animkit.open(b"\x00\x01\x02\x03 not an animation")
    with pytest.raises(animkit.IoError) as missing:
        animkit.open("/nonexistent/file.ifp")
    assert missing.value.path == ["/nonexistent/file.ifp"]
    with pytest.raises(animkit.UnsupportedError, match="unknown format"):
        animkit.open(b"ANP3", format="nope")


def test_conversion_warnings_go_through_the_warnings_module(tmp_path):
    package = walk_package()
    package.skeleton = None
    with pytest.warns(animkit.ConversionWarning, match="no skeleton"):
        animkit.write(package, tmp_path / "walk.glb")


def test_convert_picks_clips_and_refuses_to_overwrite_its_input(tmp_path):
    source = tmp_path / "walk.ifp"
    package = walk_package()
    package.clips.append(animkit.Clip("run", list(package.clips[0].tracks)))
    animkit.write(package, source)
    animkit.convert(source, tmp_path / "run.json", clips=["RUN"])
    names = [c["name"] for c in json.loads((tmp_path / "run.json").read_text())["package"]["clips"]]
    assert names == ["run"]
    with pytest.raises(animkit.UnsupportedError, match='no clip "jump"'):
        animkit.convert(source, tmp_path / "jump.json", clips=["jump"])
    with pytest.raises(animkit.UnsupportedError, match="refusing to overwrite the input"):
        animkit.convert(source, source)


def test_open_refuses_a_setting_its_format_does_not_read(tmp_path):
    path = tmp_path / "walk.ifp"
    animkit.write(walk_package(), path)
    with pytest.raises(
        animkit.UnsupportedError,
        match=r'unknown option "rotation" for reading ifp: valid keys: .*rotations=stored\|unit',
    ):
        animkit.open(path, rotation="euler")
    with pytest.raises(animkit.UnsupportedError, match='unknown option "fps" for reading ifp'):
        animkit.open(path.read_bytes(), "ifp", fps=30)
    assert animkit.open(path, rotations="unit").format == "ifp"


def test_write_passes_options_to_the_format(tmp_path):
    with pytest.raises(animkit.Error, match="rotation=sideways"):
        animkit.write(walk_package(), tmp_path / "walk.bfres", rotation="sideways")
    animkit.write(walk_package(), tmp_path / "walk.bfres", rotation="euler", fps=60)


def test_entries_and_with_entry_round_trip():
    package = walk_package()
    package.clips.append(animkit.Clip("run", list(package.clips[0].tracks)))
    doc = animkit.open(_ifp_bytes(package))
    entries = doc.entries()
    assert [e.name for e in entries] == ["walk.ifp", "run.ifp"]
    assert doc.with_entry("run.ifp", entries[1].data).write() == doc.write()
    with pytest.raises(animkit.Error):
        doc.with_entry("run.ifp", b"not an animation")


def _ifp_bytes(package):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "p.ifp"
        animkit.write(package, path)
        return path.read_bytes()


def test_formats_equal_the_cli():
    _, out, _ = run_cli("formats", "--json")
    expected = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert animkit.formats() == expected


def test_skeleton_arrays():
    skeleton = walk_package().skeleton
    assert skeleton.names == ["Root", "Pelvis"] and len(skeleton) == 2
    assert skeleton.parents.tolist() == [-1, 0] and skeleton.ids == [0, 1] == skeleton.tags
    assert skeleton.translations.shape == (2, 3) and skeleton.rotations.tolist() == [[0, 0, 0, 1]] * 2
    assert skeleton.find("pelvis") == 1 and skeleton.find(animkit.Target(id=0)) == 0
    with pytest.raises(animkit.InvalidError, match="not an earlier bone"):
        animkit.Skeleton(["a", "b"], [1, -1])


def test_convert_with_a_skeleton_equals_the_cli(tmp_path):
    examples = REPO / "examples"
    source, rig = examples / "walk_cycle.ifp", examples / "walk_cycle_rig.glb"
    run_cli("convert", source, "--skeleton", rig, "-o", tmp_path / "cli.glb")
    animkit.convert(source, tmp_path / "python.glb", skeleton=rig)
    assert (tmp_path / "python.glb").read_bytes() == (tmp_path / "cli.glb").read_bytes()
    with pytest.raises(animkit.UnsupportedError, match="holds no skeleton"):
        animkit.convert(source, tmp_path / "x.glb", skeleton=source)


def test_key_arrays_of_tracks_built_in_python():
    textures = ["eye_open", "eye_shut"]
    eye = animkit.Target(material="eye", property="texture")
    cubic_values = np.arange(2 * 3 * 3, dtype=np.float32).reshape(6, 3)  # in-tangent, value, out-tangent
    walk = walk_package().clips[0]
    blink = animkit.Clip(
        "blink",
        [
            animkit.Track("Root", "translation", [0, 1], cubic_values, "cubic_spline"),
            animkit.Track(eye, "texture_index", [0, 0.5, 1], [0, 1, 0], textures=textures),
            animkit.Track(animkit.Target(material="eye", property="visible"), "visibility", [0, 1], [True, False]),
        ],
    )
    groups = animkit.Package([walk, blink]).key_arrays()
    assert list(groups) == ["rotation", "translation", "texture_index", "visibility"]
    rotation, translation = groups["rotation"], groups["translation"]
    assert rotation.clips.tolist() == [0, 0] and rotation.tracks.tolist() == [0, 2]
    assert np.array_equal(rotation.values, np.concatenate([ROOT_ROTATION, PELVIS_ROTATION]).astype(np.float32))
    assert rotation.key_offsets.tolist() == rotation.value_offsets.tolist() == [0, KEYS, 2 * KEYS]
    assert translation.clips.tolist() == [0, 1] and translation.interpolations == ["linear", "cubic_spline"]
    # The cubic track: two keys, six rows.
    assert translation.key_offsets.tolist() == [0, KEYS, KEYS + 2]
    assert translation.value_offsets.tolist() == [0, KEYS, KEYS + 6]
    times, values = translation.track(-1)
    assert times.tolist() == [0, 1] and np.array_equal(values, cubic_values)
    assert groups["texture_index"].values.dtype == np.uint32 and groups["texture_index"].values.tolist() == [0, 1, 0]
    assert groups["visibility"].values.tolist() == [True, False] and len(groups["visibility"]) == 1
    with pytest.raises(IndexError, match="track 2 of a group of 2"):
        rotation.track(2)


def test_key_arrays_are_a_copy_taken_when_asked():
    clip = walk_package().clips[0]
    before = clip.key_arrays()["rotation"]
    before.values[0] = [1, 0, 0, 0]
    assert clip.tracks[0].values[0].tolist() == [0, 0, 0, 1]
    clip.tracks[0].values[0] = [0, 1, 0, 0]
    assert before.values[0].tolist() == [1, 0, 0, 0]
    assert clip.key_arrays()["rotation"].values[0].tolist() == [0, 1, 0, 0]


def test_tracks_of_a_model_are_one_list_edited_in_place(tmp_path):
    path = tmp_path / "walk.ifp"
    animkit.write(walk_package(), path)
    clip = animkit.open(path).to_model().clips[0]
    assert repr(clip).endswith(", 3 tracks>")
    assert clip.tracks is clip.tracks
    del clip.tracks[1]
    assert len(clip.tracks) == 2 and list(clip.key_arrays()) == ["rotation"]
    clip.tracks = []
    assert clip.key_arrays() == {}
