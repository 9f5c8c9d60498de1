"""Import a clip of every corpus format into Blender and export it back with no edit: the same
clip name, tracks (no new ones), bone tags/ids/hashes and duration, and `animkit.sample` of
the result equals the original's within the format's quantisation at 7 times per clip."""

import bpy
import numpy as np
import pytest

import measure
from cases import CASES, IDS, translation_bound


# Files that do not carry their clip's name: a standalone SKB asset (the HIP's asset table names
# it). animkit reads it as this name. A CAF carries it in its GlobalAnimationHeaderCAF path.
UNNAMED = {".anm": "anim"}


def original_clip(animkit, path, clip_name):
    document = animkit.open(path)
    packages = document.packages() if document.format == "hip" else [document.to_model()]
    for package in packages:
        clip = package.clip(clip_name)
        if clip is not None:
            return clip
    raise AssertionError(f"{clip_name} not in {path}")


def import_and_export(corpus, case, out_dir):
    _, file, clip, suffix, variant, skeleton, _ = case
    result = bpy.ops.import_scene.animkit(
        filepath=str(corpus / file), clips=clip, skeleton=str(corpus / skeleton) if skeleton else ""
    )
    assert result == {"FINISHED"}
    armature = bpy.context.view_layer.objects.active
    action = armature.animation_data.action
    out = out_dir / f"{clip}{suffix}"
    assert bpy.ops.export_scene.animkit(filepath=str(out), actions=action.name, variant=variant) == {"FINISHED"}
    return armature, out


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_export_without_edit_gives_the_clip_back(extension, corpus, scene, tmp_path, case):
    animkit = extension
    label, file, clip_name, _, variant, _, rotation_bound = case
    armature, out = import_and_export(corpus, case, tmp_path)
    assert bpy.context.scene.render.fps == 30
    original = original_clip(animkit, corpus / file, clip_name)
    if out.suffix in UNNAMED:
        (back,) = animkit.open(out).to_model().clips
        assert back.name in (original.name, UNNAMED[out.suffix])
    else:
        back = original_clip(animkit, out, clip_name)
    if out.suffix == ".anm":
        # A standalone SKB asset binds its tracks by bone index only (names come from the HIP's MODL).
        assert [(t.target.index, t.channel) for t in back.tracks] == [
            (t.target.index, t.channel) for t in original.tracks
        ]
    else:
        assert measure.tracks_of(back) == measure.tracks_of(original)
    assert back.duration == pytest.approx(original.duration, abs=1e-6)
    times = np.linspace(0.0, original.duration, 7)
    worst_rotation = worst_translation = 0.0
    for bone, channel, rotation, translation in measure.differences(animkit, original, back, times):
        assert rotation is not None, f"{bone} {channel} missing"
        assert rotation <= rotation_bound, (bone, channel, rotation)
        assert translation <= translation_bound(measure.extent(original, bone, channel)), (bone, channel, translation)
        worst_rotation, worst_translation = max(worst_rotation, rotation), max(worst_translation, translation)
    measure.record("extension", f"{label} ({variant})", worst_rotation, worst_translation)
