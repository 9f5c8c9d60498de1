"""Clips onto an existing armature (bones matched by CRC-32, GTA tag, EvilEngine index), rigs made
from skeleton files, and the pose Blender shows equal to the one animkit samples."""

import bpy
import numpy as np
import pytest
from mathutils import Matrix, Quaternion, Vector

import measure


def import_ok(path, **options):
    assert bpy.ops.import_scene.animkit(filepath=str(path), **options) == {"FINISHED"}
    return bpy.context.view_layer.objects.active


def animkit_pose(animkit, clip, skeleton, t):
    """Armature-space matrices of every bone at `t`: the sampled local keys (rest where a bone
    has no track) composed along the skeleton."""
    local = {}
    for i in range(len(skeleton)):
        x, y, z, w = skeleton.rotations[i]
        local[i] = [Vector(skeleton.translations[i]), Quaternion((w, x, y, z)), Vector(skeleton.scales[i])]
    for sample in animkit.sample(clip, np.float32(t)):
        bone = skeleton.find(sample.target)
        if bone is None:
            continue
        value = sample.value.astype(np.float64)
        if sample.channel == "translation":
            local[bone][0] = Vector(value)
        elif sample.channel == "rotation":
            local[bone][1] = Quaternion((value[3], value[0], value[1], value[2])).normalized()
        elif sample.channel == "scale":
            local[bone][2] = Vector(value)
    out = []
    for i, parent in enumerate(skeleton.parents):
        t_, r, s = local[i]
        m = Matrix.Translation(t_) @ r.to_matrix().to_4x4() @ Matrix.Diagonal(s.to_4d())
        out.append(out[parent] @ m if parent >= 0 else m)
    return out


def test_a_chr_makes_the_rig_and_a_caf_binds_to_it_by_crc32(extension, corpus, scene, tmp_path):
    animkit = extension
    chr_path = corpus / "cryengine" / "ce3_skeleton_character.chr"
    caf_path = corpus / "cryengine" / "ce3_barrel_cutscene_0829.caf"
    armature = import_ok(chr_path)
    skeleton = animkit.open(chr_path).to_model().skeleton
    assert sorted(b.name for b in armature.data.bones) == sorted(skeleton.names)
    assert all(armature.data.bones[name]["animkit_index"] == i for i, name in enumerate(skeleton.names))
    assert import_ok(caf_path) == armature
    original = animkit.open(caf_path).to_model().clips[0]
    tracks = armature.animation_data.action["animkit"]["tracks"]
    assert tracks.count('"channel"') == len(original.tracks), "every controller found its bone"

    # The pose Blender evaluates is the one animkit samples (armature space, every bone).
    for frame in (0, 57, 200):
        bpy.context.scene.frame_set(frame)
        expected = animkit_pose(animkit, original, skeleton, frame / 30.0)
        for i, name in enumerate(skeleton.names):
            got = armature.pose.bones[name].matrix
            assert (got.translation - expected[i].translation).length < 1e-4, (name, frame)
            angle = got.to_quaternion().rotation_difference(expected[i].to_quaternion()).angle
            assert angle < 1e-4, (name, frame, angle)

    out = tmp_path / "barrel.caf"
    action = armature.animation_data.action.name
    assert bpy.ops.export_scene.animkit(filepath=str(out), actions=action, variant="crytek") == {"FINISHED"}
    (back,) = animkit.open(out).to_model().clips
    assert [t.target.hash for t in back.tracks] == [t.target.hash for t in original.tracks]


def test_a_y_up_bfres_rig_poses_as_animkit_samples(extension, corpus, scene):
    animkit = extension
    path = corpus / "bfres" / "Npc_Gerudo_Queen_Animation.bfres"
    armature = import_ok(path, clips="Common_Detect")
    package = animkit.open(path).to_model()
    clip, skeleton = package.clip("Common_Detect"), package.skeleton
    # Y-up: the armature object stands the rig up; bone space is untouched.
    assert abs(armature.rotation_euler.x - np.pi / 2) < 1e-6
    for frame in (0, 13, 29):
        bpy.context.scene.frame_set(frame)
        expected = animkit_pose(animkit, clip, skeleton, frame / 30.0)
        for i, name in enumerate(skeleton.names):
            got = armature.pose.bones[name].matrix
            assert (got.translation - expected[i].translation).length < 1e-3 * max(1.0, expected[i].translation.length)
            angle = got.to_quaternion().rotation_difference(expected[i].to_quaternion().normalized()).angle
            assert angle < 1e-3, (name, frame, angle)


def test_gta_tags_match_bones_whatever_their_names(extension, corpus, scene, tmp_path):
    animkit = extension
    armature = import_ok(corpus / "ifp" / "sa_ped_anp3.ifp", clips="WALK_civi")
    for i, bone in enumerate(armature.data.bones):
        bone["animkit_name"] = bone.name = f"rig_bone_{i}"
    vc = corpus / "ifp" / "vc_ped_anpk.ifp"
    assert import_ok(vc, clips="WALK_player") == armature
    original = animkit.open(vc).to_model().clip("WALK_player")
    tracked = {t.target.id for t in original.tracks}
    rig_tags = {bone.get("animkit_id") for bone in armature.data.bones}
    action = armature.animation_data.action
    assert action["animkit"]["tracks"].count('"channel"') == sum(t.target.id in rig_tags for t in original.tracks)
    assert tracked & rig_tags


def test_skb_tracks_bind_by_bone_index(extension, corpus, scene, tmp_path):
    animkit = extension
    hip = corpus / "evilengine" / "bfbb_gc_boot.HIP"
    armature = import_ok(hip, clips="spongebob_bounce")
    entry = next(e for e in animkit.open(hip).entries() if e.name == "spongebob_idle10.anm")
    anm = tmp_path / entry.name
    anm.write_bytes(entry.data)
    assert import_ok(anm) == armature
    (original,) = animkit.open(anm).to_model().clips
    assert armature.animation_data.action["animkit"]["tracks"].count('"channel"') == len(original.tracks)
    out = tmp_path / "again.anm"
    assert bpy.ops.export_scene.animkit(filepath=str(out), actions=armature.animation_data.action.name) == {"FINISHED"}
    (back,) = animkit.open(out).to_model().clips
    assert [(t.target.index, t.channel) for t in back.tracks] == [(t.target.index, t.channel) for t in original.tracks]
    assert animkit.open(out).dump()["document"]["bone_count"] == animkit.open(anm).dump()["document"]["bone_count"]


@pytest.mark.parametrize(
    "file, clip, skeleton",
    [
        ("bfres/Npc_Gerudo_Queen_Animation.bfres", "Common_Detect", None),
        ("cryengine/ce3_barrel_cutscene_0829.caf", "animation", "cryengine/ce3_skeleton_character.chr"),
    ],
    ids=["bfres-y-up", "caf-z-up"],
)
def test_onto_a_rig_from_blenders_gltf_importer(extension, corpus, scene, tmp_path, file, clip, skeleton):
    """Blender's glTF importer points bones along their children and turns Y-up into Z-up:
    the clip, imported onto that rig, puts every joint where animkit's sample does, and exports
    back within quantisation."""
    animkit = extension
    path = corpus / file
    package = animkit.open(path).to_model()
    if skeleton:
        package.skeleton = animkit.open(corpus / skeleton).to_model().skeleton
    package.clips = [package.clip(clip)]
    rig_only = animkit.Package(name="rig", skeleton=package.skeleton, up_axis=package.up_axis)
    rig_only.clips = [animkit.Clip("rest", [animkit.Track(package.skeleton.names[0], "scale", [0.0], [[1, 1, 1]])])]
    animkit.write(rig_only, tmp_path / "rig.glb")
    assert bpy.ops.import_scene.gltf(filepath=str(tmp_path / "rig.glb")) == {"FINISHED"}
    armature = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    bpy.context.view_layer.objects.active = armature
    import_ok(path, clips=clip, skeleton=str(corpus / skeleton) if skeleton else "")
    assert bpy.context.view_layer.objects.active == armature
    original, rig = package.clips[0], package.skeleton

    # In the rig's own (armature) space, turned as Blender turned the file's axes.
    axes = Quaternion(armature.get("animkit_axes", (1.0, 0.0, 0.0, 0.0))).to_matrix().to_4x4()
    for frame in (0, 7, 19):
        bpy.context.scene.frame_set(frame)
        expected = animkit_pose(animkit, original, rig, frame / 30.0)
        size = max(m.translation.length for m in expected)
        for i, name in enumerate(rig.names):
            head = armature.pose.bones[name].head
            assert (head - (axes @ expected[i]).translation).length < 1e-4 * max(1.0, size), (name, frame)

    out = tmp_path / f"back{path.suffix}"
    action = armature.animation_data.action.name
    assert bpy.ops.export_scene.animkit(filepath=str(out), actions=action) == {"FINISHED"}
    (back,) = animkit.open(out).to_model().clips
    assert [(t.target.label, t.channel) for t in back.tracks] == [(t.target.label, t.channel) for t in original.tracks]
    for bone, channel, rotation, translation in measure.differences(
        animkit, original, back, np.linspace(0, original.duration, 7)
    ):
        assert rotation <= 0.05 and translation <= 0.005, (bone, channel, rotation, translation)


def test_a_dff_gives_a_standalone_anm_its_rig(extension, corpus, scene, tmp_path):
    animkit = extension
    hip = animkit.open(corpus / "evilengine" / "bfbb_gc_boot.HIP")
    entries = {e.name: e.data for e in hip.entries()}
    dff, anm = tmp_path / "spongebob_bind.dff", tmp_path / "spongebob_idle10.anm"
    dff.write_bytes(entries[dff.name])
    anm.write_bytes(entries[anm.name])
    armature = import_ok(anm, skeleton=str(dff))
    skeleton = animkit.open(dff).to_model().skeleton
    assert len(armature.data.bones) == len(skeleton) == animkit.open(anm).dump()["document"]["bone_count"]
    out = tmp_path / "again.anm"
    assert bpy.ops.export_scene.animkit(filepath=str(out), actions=armature.animation_data.action.name) == {"FINISHED"}
    (original,) = animkit.open(anm).to_model().clips
    (back,) = animkit.open(out).to_model().clips
    assert [(t.target.index, t.channel) for t in back.tracks] == [(t.target.index, t.channel) for t in original.tracks]
    for bone, channel, rotation, translation in measure.differences(animkit, original, back, np.linspace(0, 1, 7)):
        assert rotation <= 0.05 and translation <= 0.005, (bone, channel)
