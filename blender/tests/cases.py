"""One clip of every corpus format, with its rig where the corpus has one.

(id, corpus file, clip, output extension, output variant, skeleton file or None, worst rotation
in degrees a written key may differ by). The rotation bounds are the format's quantisation, as
the library's conversion matrix states them (crates/animkit/tests/conversion_matrix.rs): ANP3
and SKB V1 store rotations as 16-bit fixed point, compiled CryEngine controllers as SmallTree
codecs, BFRES as fitted curves; ANPK and i_caf store floats. Translations may differ by 5 mm or
0.5 % of the track's range (16-bit translations spread their steps over it).
An `.HIP` output replaces the clip's ANIM asset inside the file it was imported from.
"""

CASES = [
    ("ifp-anp3", "ifp/sa_ped_anp3.ifp", "WALK_civi", ".ifp", "anp3", None, 0.05),
    ("ifp-anpk", "ifp/vc_ped_anpk.ifp", "WALK_civi", ".ifp", "anpk", None, 0.01),
    ("ifp-object", "ifp/countrye_object_anim.ifp", "bigsprunkpole", ".ifp", "anp3", None, 0.05),
    ("skb-anm", "evilengine/bfbb_gc_boot.HIP", "spongebob_bounce", ".anm", "skb-be", None, 0.05),
    ("skb-in-hip", "evilengine/bfbb_gc_boot.HIP", "spongebob_idle10", ".HIP", "skb-be", None, 0.05),
    (
        "caf-crytek",
        "cryengine/ce3_barrel_cutscene_0829.caf",
        "animation",
        ".caf",
        "crytek",
        "cryengine/ce3_skeleton_character.chr",
        0.05,
    ),
    (
        "caf-crch",
        "cryengine/ly_enemy_ambient_idle1_0831.caf",
        "animation",
        ".caf",
        "caf",
        "cryengine/ly_jack_root.chr",
        0.05,
    ),
    ("caf-0832", "cryengine/ce5_run_fwd_3p_0832.caf", "run_fwd_3p", ".caf", "caf", "cryengine/ce5_skelProxy.chr", 0.05),
    ("i_caf", "cryengine/ly_jack_shoot_0830.i_caf", "animation", ".i_caf", "i_caf", "cryengine/ly_jack_root.chr", 0.05),
    ("i_caf-0827", "cryengine/ce5_rifle_walk_aim_0827.i_caf", "animation", ".i_caf", "i_caf", None, 0.05),
    ("caf-prey", "cryengine/prey_mimic_death_0829_aligned.caf", "animation", ".caf", "caf", None, 0.05),
    ("dba", "cryengine/ce3_seagull_0905.dba", "seagull_fly", ".dba", "dba", None, 0.05),
    ("bfres", "bfres/Animal_Bass_Animation.bfres", "Move", ".bfres", "bfres", None, 0.05),
    ("bfres-gerudo", "bfres/Npc_Gerudo_Queen_Animation.bfres", "Common_Detect", ".bfres", "bfres", None, 0.05),
    ("sbfres-yaz0", "bfres/Animal_Bass_Animation.sbfres", "Wait", ".bfres", "bfres", None, 0.05),
    ("szs-switch", "nintendo/s2_wsp_bubble_fska_fmaa.szs", "Attack_Bubble", ".bfres", "bfres", None, 0.05),
    ("szs-wiiu", "nintendo/mk8_bodyb_ysi_3404_multimodel.szs", "Mbrake", ".bfres", "bfres", None, 0.05),
]

IDS = [case[0] for case in CASES]


def translation_bound(extent):
    return max(0.005, 0.005 * extent)
