"""The glTF route with Blender's own importer and exporter (default settings, the scene at the
clip's rate): animkit GLB → Blender → GLB → animkit → the clip's game format. Blender samples
every frame, so at the original's keys on frames the result is the original within the format's
quantisation (keys between frames, as ANPK's float times allow, are resampled); it holds no
track the original did not have (Blender keys every joint), an SKB keeps the rig's bone count
(Blender's armature node is not a bone) and BFRES rotation curves are sign-continuous (Blender
writes q and −q)."""

import warnings

import bpy
import numpy as np
import pytest
from mathutils import Matrix, Quaternion

import measure
from cases import translation_bound

# (id, corpus file, clip, output extension, variant, skeleton, rotation bound in degrees: the
# format's quantisation as in cases.py)
ROUTE = [
    ("ifp-anp3", "ifp/sa_ped_anp3.ifp", "WALK_civi", ".ifp", "anp3", None, 0.05),
    # ANPK stores float times; Blender keeps only the keys on frames (compared here), within
    # ANP3's bound: one requantisation step.
    ("ifp-anpk", "ifp/vc_ped_anpk.ifp", "WALK_civi", ".ifp", "anpk", None, 0.05),
    ("skb", "evilengine/bfbb_gc_boot.HIP", "spongebob_idle10", ".anm", "skb-be", None, 0.05),
    (
        "caf",
        "cryengine/ce3_barrel_cutscene_0829.caf",
        "animation",
        ".caf",
        "crytek",
        "cryengine/ce3_skeleton_character.chr",
        0.05,
    ),
    ("i_caf", "cryengine/ly_jack_shoot_0830.i_caf", "animation", ".i_caf", "i_caf", "cryengine/ly_jack_root.chr", 0.05),
    ("dba", "cryengine/ce3_seagull_0905.dba", "seagull_fly", ".dba", "dba", None, 0.05),
    ("bfres", "bfres/Animal_Bass_Animation.bfres", "Move", ".bfres", "bfres", None, 0.05),
    ("bfres-gerudo", "bfres/Npc_Gerudo_Queen_Animation.bfres", "Common_Detect", ".bfres", "bfres", None, 0.05),
]


def source_package(animkit, path, clip_name, skeleton):
    document = animkit.open(path)
    packages = document.packages() if document.format == "hip" else [document.to_model()]
    package = next(p for p in packages if p.clip(clip_name) is not None)
    package.clips = [package.clip(clip_name)]
    if skeleton is not None:
        package.skeleton = animkit.open(skeleton).to_model().skeleton
    return package


def through_blender(animkit, package, rate, folder):
    """animkit's GLB of `package`, imported and exported by Blender's glTF add-on (defaults)."""
    animkit.write(package, folder / "animkit.glb")
    bpy.context.scene.render.fps = round(rate)
    assert bpy.ops.import_scene.gltf(filepath=str(folder / "animkit.glb")) == {"FINISHED"}
    assert bpy.ops.export_scene.gltf(filepath=str(folder / "blender.glb")) == {"FINISHED"}
    return folder / "blender.glb"


def rotation_keys(track):
    values = track.values[1::3] if track.interpolation == "cubic_spline" else track.values
    return values.astype(np.float64)


@pytest.mark.parametrize("case", ROUTE, ids=[c[0] for c in ROUTE])
def test_blender_gltf_round_trip_converts_within_quantisation(extension, corpus, scene, tmp_path, case):
    animkit = extension
    label, file, clip_name, suffix, variant, skeleton, rotation_bound = case
    package = source_package(animkit, corpus / file, clip_name, corpus / skeleton if skeleton else None)
    original = package.clips[0]
    rate = original.frame_rate or 30.0
    glb = through_blender(animkit, package, rate, tmp_path)
    out = tmp_path / f"{clip_name}{suffix}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        animkit.convert(glb, out, to=variant, fps=rate)
    messages = [str(w.message) for w in caught]
    (back,) = animkit.open(out).to_model().clips

    # No new tracks: every written track is one of the original's bones and channels.
    for track in back.tracks:
        assert any(t.channel == track.channel and measure.same_bone(t.target, track.target) for t in original.tracks), (
            track.target.label,
            track.channel,
            messages,
        )
    if suffix == ".anm":
        assert animkit.open(out).dump()["document"]["bone_count"] == len(package.skeleton)
    if suffix == ".bfres":
        for track in back.tracks:
            if track.channel == "rotation" and len(track.times) > 1:
                keys = rotation_keys(track)
                assert (np.sum(keys[1:] * keys[:-1], axis=1) >= 0).all(), track.target.label

    worst = [0.0, 0.0]
    # A constant rest track Blender wrote for every joint is dropped: the bone plays its rest.
    for bone, channel, rotation, translation in measure.differences_at_keys(
        animkit, original, back, package.skeleton, rate
    ):
        assert rotation <= rotation_bound, (bone, channel, rotation)
        assert translation <= translation_bound(measure.extent(original, bone, channel)), (bone, channel)
        worst = [max(worst[0], rotation), max(worst[1], translation)]
    measure.record("glTF", f"{label} ({variant})", *worst)
    # Between keys Blender's curves interpolate quaternion components (nlerp), the games slerp:
    # recorded for the note, not bounded here.
    between = measure.differences(animkit, original, back, np.linspace(0.0, original.duration, 7))
    between = [(r, t) for _, _, r, t in between if r is not None]
    measure.record("glTF 7 t", f"{label} ({variant})", max(r for r, _ in between), max(t for _, t in between))


def test_a_z_up_rig_stands_up_in_blenders_default_gltf_import(extension, corpus, scene, tmp_path):
    """CryEngine is Z-up like Blender: each joint of animkit's GLB, imported with Blender's
    defaults, sits where the skeleton puts it (before the identity node under animkit_z_up,
    Blender applied the Z-up turn twice and the rig lay on its back)."""
    animkit = extension
    skeleton = animkit.open(corpus / "cryengine" / "ce3_skeleton_character.chr").to_model().skeleton
    rest = animkit.Clip("rest", [animkit.Track(skeleton.names[0], "scale", [0.0], [[1.0, 1.0, 1.0]])])
    animkit.write(animkit.Package([rest], skeleton=skeleton, up_axis="z"), tmp_path / "rig.glb")
    assert bpy.ops.import_scene.gltf(filepath=str(tmp_path / "rig.glb")) == {"FINISHED"}
    armature = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    heads = {}
    for i, parent in enumerate(skeleton.parents):
        x, y, z, w = (float(v) for v in skeleton.rotations[i])
        local = Matrix.Translation(skeleton.translations[i].tolist()) @ Quaternion((w, x, y, z)).to_matrix().to_4x4()
        heads[i] = heads[parent] @ local if parent >= 0 else local
    for i, name in enumerate(skeleton.names):
        head = armature.matrix_world @ armature.data.bones[name].head_local
        assert (head - heads[i].translation).length < 1e-4, (name, tuple(head))
    assert heads[skeleton.names.index("Bip01 Pelvis")].translation.z > 0.9
