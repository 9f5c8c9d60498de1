"""Export into an existing IFP or HIP (only the exported animations change), and animkit's
errors as Blender reports."""

import bpy
import pytest


def test_replacing_one_animation_of_an_ifp_keeps_every_other_byte_for_byte(extension, corpus, scene, tmp_path):
    animkit = extension
    package = corpus / "ifp" / "sa_ped_anp3.ifp"
    assert bpy.ops.import_scene.animkit(filepath=str(package), clips="WALK_civi") == {"FINISHED"}
    armature = bpy.context.view_layer.objects.active
    out = tmp_path / "ped.ifp"
    action = armature.animation_data.action.name
    assert bpy.ops.export_scene.animkit(filepath=str(out), actions=action, replace_in=str(package)) == {"FINISHED"}
    before = {e.name: e.data for e in animkit.open(package).entries()}
    after = {e.name: e.data for e in animkit.open(out).entries()}
    assert list(after) == list(before)
    assert [n for n in before if before[n] != after[n]] == []  # even WALK_civi: the same keys give the same bytes
    clip = animkit.open(out).to_model().clip("WALK_civi")
    original = animkit.open(package).to_model().clip("WALK_civi")
    for mine, theirs in zip(original.tracks, clip.tracks):
        assert (mine.target.name, mine.target.id, mine.channel) == (
            theirs.target.name,
            theirs.target.id,
            theirs.channel,
        )
        assert (mine.times == theirs.times).all() and (abs(mine.values - theirs.values) <= 1 / 4096).all()


def test_replacing_an_anim_asset_of_a_hip_keeps_the_other_assets(extension, corpus, scene, tmp_path):
    animkit = extension
    hip = corpus / "evilengine" / "bfbb_gc_boot.HIP"
    assert bpy.ops.import_scene.animkit(filepath=str(hip), clips="spongebob_idle10") == {"FINISHED"}
    armature = bpy.context.view_layer.objects.active
    out = tmp_path / "boot.HIP"
    action = armature.animation_data.action.name
    assert bpy.ops.export_scene.animkit(filepath=str(out), actions=action, replace_in=str(hip)) == {"FINISHED"}
    before = {e.name: e.data for e in animkit.open(hip).entries()}
    after = {e.name: e.data for e in animkit.open(out).entries()}
    assert list(after) == list(before)
    assert [n for n in before if before[n] != after[n]] in ([], ["spongebob_idle10.anm"])
    assert not [f for f in animkit.open(out).check() if f.severity == "error"]


def test_a_file_animkit_cannot_read_is_a_report_not_a_traceback(extension, corpus, scene):
    # In background mode Blender raises an operator's ERROR report as RuntimeError("Error: …").
    with pytest.raises(RuntimeError) as raised:
        bpy.ops.import_scene.animkit(filepath=str(corpus / "cryengine" / "not_cryengine_cal3d_walk.caf"))
    message = str(raised.value)
    assert message.startswith("Error: animkit: ") and "Traceback" not in message, message
    assert not bpy.data.actions and not bpy.data.armatures


def test_an_unknown_clip_and_an_unwritable_extension_are_reports(extension, corpus, scene, tmp_path):
    with pytest.raises(RuntimeError, match=r"^Error: animkit: .*no clip NOPE"):
        bpy.ops.import_scene.animkit(filepath=str(corpus / "ifp" / "sa_ped_anp3.ifp"), clips="NOPE")
    assert bpy.ops.import_scene.animkit(filepath=str(corpus / "ifp" / "sa_ped_anp3.ifp"), clips="abseil") == {
        "FINISHED"
    }
    with pytest.raises(RuntimeError, match=r"^Error: animkit: no game format writes \.txt"):
        bpy.ops.export_scene.animkit(filepath=str(tmp_path / "x.txt"))
    with pytest.raises(RuntimeError, match=r"^Error: animkit: .*no animation \"abseil\""):
        bpy.ops.export_scene.animkit(
            filepath=str(tmp_path / "x.ifp"), replace_in=str(corpus / "ifp" / "weaponsprint_anp3.ifp")
        )


def test_a_clip_onto_a_rig_it_does_not_fit_is_refused(extension, corpus, scene):
    assert bpy.ops.import_scene.animkit(
        filepath=str(corpus / "bfres" / "Animal_Bass_Animation.bfres"), clips="Move"
    ) == {"FINISHED"}
    with pytest.raises(RuntimeError, match=r"^Error: animkit: no track of clip \"animation\" matches a bone of"):
        bpy.ops.import_scene.animkit(filepath=str(corpus / "cryengine" / "ce3_barrel_cutscene_0829.caf"))
    assert [a.name for a in bpy.data.actions] == ["Move"]
