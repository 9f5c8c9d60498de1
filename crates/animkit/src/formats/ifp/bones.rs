//! GTA ped bone tags (HAnim node ids) and the names the games and tools give those bones.
//!
//! Used to give a bone tag to a track that has only a name, e.g. when Vice City ANPK objects of
//! the 48-byte form (no tag) are written as San Andreas ANP3. Names compare case-insensitively
//! after trimming surrounding spaces; inner spaces matter (SA's `" Spine 1"` is tag 2 while
//! `"Spine1"` is tag 3). Sources: `ifp.md` §4.5 and the names with tags in the VC and SA
//! `ped.ifp` files.

/// (tag, names): SA stored names, VC names (`R Fingers` as in reVC `Bones.cpp`), and GTA III names.
const PED_BONES: &[(i32, &[&str])] = &[
    (0, &["root", "normal", "player"]),
    (1, &["pelvis", "swaist"]),
    (2, &["spine", "spine 1", "smid"]),
    (3, &["spine1", "spine 2", "storso"]),
    (4, &["neck"]),
    (5, &["head", "shead"]),
    (6, &["l brow"]),
    (7, &["r brow"]),
    (8, &["jaw"]),
    (21, &["bip01 r clavicle"]),
    (22, &["r upperarm", "supperarmr"]),
    (23, &["r forearm", "slowerarmr"]),
    (24, &["r hand", "srhand"]),
    (25, &["r finger", "r fingers"]),
    (26, &["r finger01"]),
    (31, &["bip01 l clavicle"]),
    (32, &["l upperarm", "supperarml"]),
    (33, &["l forearm", "slowerarml"]),
    (34, &["l hand", "slhand"]),
    (35, &["l finger", "l fingers"]),
    (36, &["l finger01"]),
    (41, &["l thigh", "supperlegl"]),
    (42, &["l calf", "slowerlegl"]),
    (43, &["l foot", "sfootl"]),
    (44, &["l toe0"]),
    (51, &["r thigh", "supperlegr"]),
    (52, &["r calf", "slowerlegr"]),
    (53, &["r foot", "sfootr"]),
    (54, &["r toe0"]),
    (201, &["belly"]),
    (301, &["r breast"]),
    (302, &["l breast"]),
];

/// The ped bone tag of a bone name, if it is one of the known ped bones.
pub(crate) fn ped_tag(name: &str) -> Option<i32> {
    let name = name.trim();
    PED_BONES.iter().find(|(_, names)| names.iter().any(|n| n.eq_ignore_ascii_case(name))).map(|&(tag, _)| tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_tags_like_the_retail_files() {
        // Pairs as stored with 44-byte ANIM tags in VC ped.ifp and with ANP3 tags in SA ped.ifp.
        assert_eq!(ped_tag(" Pelvis"), Some(1));
        assert_eq!(ped_tag("R Forearm"), Some(23));
        assert_eq!(ped_tag(" R ForeArm"), Some(23));
        assert_eq!(ped_tag(" Spine 1"), Some(2));
        assert_eq!(ped_tag("Spine1"), Some(3));
        assert_eq!(ped_tag("Normal"), Some(0));
        assert_eq!(ped_tag("L Fingers"), Some(35));
        assert_eq!(ped_tag("supperarml"), Some(32));
        assert_eq!(ped_tag("PLAYERmesh"), None);
        assert_eq!(ped_tag("L Breast"), Some(302));
    }
}
