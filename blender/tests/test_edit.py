"""An edit in Blender reaches the game file where it was made and nowhere else: one bone of a San
Andreas clip turned 30° at one key (as a modder does: pose, insert keyframe), exported as IFP."""

import importlib
import math

import bpy
import numpy as np
from mathutils import Quaternion

import measure

CLIP, BONE = "WALK_civi", " R UpperArm"
# ANP3's rotation quantisation (16-bit fixed point, 1/4096), as in cases.py.
QUANTISATION = 0.05


def test_a_30_degree_turn_at_one_key_changes_that_bone_near_that_key_only(extension, corpus, scene, tmp_path):
    animkit = extension
    source = corpus / "ifp" / "sa_ped_anp3.ifp"
    assert bpy.ops.import_scene.animkit(filepath=str(source), clips=CLIP) == {"FINISHED"}
    armature = bpy.context.view_layer.objects.active
    original = animkit.open(source).to_model().clip(CLIP)
    track = next(t for t in original.tracks if t.target.name == BONE and t.channel == "rotation")
    k = len(track.times) // 2
    before, at, after = (float(track.times[i]) for i in (k - 1, k, k + 1))
    frame = round(at * 30)
    assert abs(frame - at * 30) < 1e-3, "the key sits on a frame"

    bpy.context.scene.frame_set(frame)
    pose_bone = armature.pose.bones[BONE]
    pose_bone.rotation_quaternion = pose_bone.rotation_quaternion @ Quaternion((1.0, 0.0, 0.0), math.radians(30))
    assert pose_bone.keyframe_insert("rotation_quaternion", frame=frame)
    out = tmp_path / "edited.ifp"
    action = armature.animation_data.action.name
    assert bpy.ops.export_scene.animkit(filepath=str(out), actions=action) == {"FINISHED"}

    (edited,) = animkit.open(out).to_model().clips
    # Every other track keeps its stored keys exactly (same quantised values, same times).
    for mine, theirs in zip(original.tracks, edited.tracks):
        assert (mine.target.name, mine.target.id, mine.channel) == (
            theirs.target.name,
            theirs.target.id,
            theirs.channel,
        )
        if mine.target.name == BONE and mine.channel == "rotation":
            continue
        assert np.array_equal(mine.times, theirs.times) and np.array_equal(mine.values, theirs.values), (
            mine.target.label
        )

    times = np.arange(0.0, original.duration + 1e-6, 1.0 / 120.0)
    for label, channel, rotation, translation in _per_time(animkit, original, edited, times):
        if label != track.target.label or channel != "rotation":
            assert rotation.max() <= QUANTISATION and translation.max() <= 0.005, (label, channel)
            continue
        at_key = rotation[np.argmin(np.abs(times - at))]
        assert abs(at_key - 30.0) < QUANTISATION, at_key
        outside = (times <= before + 1e-4) | (times >= after - 1e-4)
        assert rotation[outside].max() <= QUANTISATION
        assert rotation[~outside].min() > 0.0


def _per_time(animkit, original, edited, times):
    """(label, channel, rotation degrees per time, translation difference per time)."""
    theirs = {(s.target.label, s.channel): s.value for s in animkit.sample(edited, times.astype(np.float32))}
    for mine in animkit.sample(original, times.astype(np.float32)):
        other = theirs[(mine.target.label, mine.channel)]
        if mine.channel == "rotation":
            yield mine.target.label, mine.channel, measure.angle_degrees(mine.value, other), np.zeros(len(times))
        else:
            diff = np.abs(mine.value.astype(np.float64) - other).max(axis=1)
            yield mine.target.label, mine.channel, np.zeros(len(times)), diff


def test_a_bone_posed_by_euler_angles_exports_its_rotation(extension, corpus, scene, tmp_path):
    animkit = extension
    source = corpus / "ifp" / "sa_ped_anp3.ifp"
    assert bpy.ops.import_scene.animkit(filepath=str(source), clips=CLIP) == {"FINISHED"}
    armature = bpy.context.view_layer.objects.active
    pose_bone = armature.pose.bones[BONE]
    frames = sorted({round(k.co.x, 4) for f in _curves(armature, "rotation_quaternion") for k in f.keyframe_points})
    quaternions = []
    for frame in frames:
        bpy.context.scene.frame_set(int(frame))
        quaternions.append(pose_bone.rotation_quaternion.copy())
    pose_bone.rotation_mode = "ZXY"
    for frame, q in zip(frames, quaternions):
        pose_bone.rotation_euler = q.to_euler("ZXY")
        pose_bone.keyframe_insert("rotation_euler", frame=frame)
    out = tmp_path / "euler.ifp"
    action = armature.animation_data.action.name
    assert bpy.ops.export_scene.animkit(filepath=str(out), actions=action) == {"FINISHED"}
    original = animkit.open(source).to_model().clip(CLIP)
    (back,) = animkit.open(out).to_model().clips
    assert sorted(measure.tracks_of(back)) == sorted(measure.tracks_of(original))
    label = next(t.target.label for t in original.tracks if t.target.name == BONE)
    for bone, channel, rotation, _ in measure.differences_at_keys(animkit, original, back):
        if bone == label and channel == "rotation":
            assert rotation <= QUANTISATION, rotation


def _curves(armature, prop):
    path = f'pose.bones["{BONE}"].{prop}'
    # The installed extension's module (Blender names it after the repository it is in).
    actions = importlib.import_module("bl_ext.user_default.animkit.actions")
    return [f for f in actions.fcurves(armature.animation_data.action, armature) if f.data_path == path]
