//! Cross-format conversions through the CLI: HIP archives to one GLB per character, an extracted
//! `.anm` bound to its `.dff`, BFRES texture patterns as CSV / model JSON.

mod common;

use common::{animkit, corpus, ok, temp_dir};

#[test]
fn hip_converts_to_one_glb_per_character() {
    let Some(hip) = corpus("evilengine", "bfbb_gc_boot.HIP") else { return };
    let dir = temp_dir("hip");
    let out = format!("{}/", dir.join("out").display());
    let err = ok(&animkit(&["convert", &hip, "-o", &out, "--to", "glb"]));
    let mut names: Vec<String> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.contains(&"bfbb_gc_boot_spongebob.glb".to_string()), "{names:?}\n{err}");
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(err.contains("109 clips with its skeleton"), "{err}");
    // One file: every character's skeleton side by side, bones named CHARACTER/BONE.
    let one = dir.join("boot.glb");
    let err = ok(&animkit(&["convert", &hip, "-o", &one.display().to_string()]));
    assert!(err.contains("5 skeletons"), "{err}");
    assert!(!err.contains("not in the skeleton"), "{err}");
    let glb = std::fs::read(&one).unwrap();
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json: serde_json::Value = serde_json::from_slice(&glb[20..20 + len]).unwrap();
    assert_eq!(json["animations"].as_array().unwrap().len(), 127);
    let names: Vec<&str> = json["nodes"].as_array().unwrap().iter().filter_map(|n| n["name"].as_str()).collect();
    assert!(names.contains(&"spongebob/bone_00") && names.contains(&"sb_tongue/bone_00"), "{names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn extracted_anm_binds_to_its_dff() {
    let Some(hip) = corpus("evilengine", "bfbb_gc_boot.HIP") else { return };
    let dir = temp_dir("anm");
    let ex = dir.join("ex").display().to_string();
    ok(&animkit(&["extract", &hip, "-o", &ex]));
    let anm = dir.join("ex/spongebob_idle01.anm").display().to_string();
    let dff = dir.join("ex/spongebob_bind.dff").display().to_string();
    let info = animkit(&["info", &dff]);
    ok(&info);
    assert!(String::from_utf8_lossy(&info.stdout).contains("44 nodes"));
    let glb = dir.join("idle.glb").display().to_string();
    let err = ok(&animkit(&["convert", &anm, "--skeleton", &dff, "-o", &glb]));
    assert!(!err.contains("no skeleton"), "{err}");
    let bare = dir.join("bare.glb").display().to_string();
    let err = ok(&animkit(&["convert", &anm, "-o", &bare]));
    assert!(err.contains("no skeleton") && err.contains("flat nodes"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bfres_texture_patterns_as_info_csv_and_json() {
    let Some(bass) = corpus("bfres", "Animal_Bass.bfres") else { return };
    let o = animkit(&["info", &bass]);
    ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("frame → texture: 0 Bass_Alb.0, 1 Bass_Alb.1, 2 Bass_Alb.2"), "{text}");
    let dir = temp_dir("bfres");
    let csv = dir.join("bass.csv");
    ok(&animkit(&["convert", &bass, "-o", &csv.display().to_string()]));
    let table = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(table.lines().count(), 4, "{table}");
    assert!(table.lines().nth(3).unwrap().ends_with(",2,Bass_Alb.2"), "{table}");
    let json = dir.join("bass.json").display().to_string();
    ok(&animkit(&["convert", &bass, "-o", &json]));
    let info = animkit(&["info", &json]);
    ok(&info);
    assert!(String::from_utf8_lossy(&info.stdout).contains("model-json"));
    // And back into a BFRES from the JSON.
    let back = dir.join("back.bfres").display().to_string();
    ok(&animkit(&["convert", &json, "-o", &back]));
    let info = animkit(&["info", &back]);
    ok(&info);
    assert!(String::from_utf8_lossy(&info.stdout).contains("2 Bass_Alb.2"));
    let _ = std::fs::remove_dir_all(&dir);
}
