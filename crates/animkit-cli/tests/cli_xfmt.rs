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

/// The modder's loop: extract a clip, edit it as model JSON, write it back as SKB and `replace` it
/// into the archive; the archive is rewritten only with `-o` or `--in-place` (which keeps a backup).
#[test]
fn an_edited_clip_goes_back_into_its_archive() {
    let Some(hip) = corpus("evilengine", "bfbb_gc_boot.HIP") else { return };
    let dir = temp_dir("replace");
    let path = |name: &str| dir.join(name).display().to_string();
    ok(&animkit(&["extract", &hip, "-o", &path("ex")]));
    ok(&animkit(&["convert", &path("ex/spongebob_idle01.anm"), "-o", &path("idle.json"), "--to", "model-json"]));
    let json = std::fs::read_to_string(path("idle.json")).unwrap();
    let mut model: serde_json::Value = serde_json::from_str(&json).unwrap();
    // Raise every translated bone by 1 (the edit a modder makes in a text editor or a script).
    let mut raised = 0;
    for track in model["package"]["clips"][0]["tracks"].as_array_mut().unwrap() {
        let translations = track["values"].get_mut("translation").and_then(|t| t.as_array_mut());
        for v in translations.into_iter().flatten() {
            v[1] = serde_json::json!(v[1].as_f64().unwrap() + 1.0);
            raised += 1;
        }
    }
    assert!(raised > 0);
    std::fs::write(path("idle.json"), serde_json::to_string(&model).unwrap()).unwrap();
    ok(&animkit(&["convert", &path("idle.json"), "-o", &path("idle.anm"), "--to", "skb-be"]));
    let edited = std::fs::read(path("idle.anm")).unwrap();

    let copy = path("boot.HIP");
    std::fs::copy(&hip, &copy).unwrap();
    let o = animkit(&["replace", &copy, "spongebob_idle01.anm", &path("idle.anm"), "-o", &copy]);
    assert_eq!(common::code(&o), 2, "overwriting the archive needs --in-place");
    assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(&hip).unwrap());
    let o = animkit(&["replace", &copy, "spongebob_idle01.anm", &path("idle.anm"), "--in-place"]);
    let err = ok(&o);
    assert!(err.contains("backup kept"), "{err}");
    assert_eq!(std::fs::read(format!("{copy}.bak")).unwrap(), std::fs::read(&hip).unwrap());

    ok(&animkit(&["extract", &copy, "-o", &path("again")]));
    for entry in std::fs::read_dir(dir.join("ex")).unwrap() {
        let name = entry.unwrap().file_name();
        let before = std::fs::read(dir.join("ex").join(&name)).unwrap();
        let after = std::fs::read(dir.join("again").join(&name)).unwrap();
        if name == "spongebob_idle01.anm" {
            assert_eq!(after, edited);
            assert_ne!(after, before);
        } else {
            assert!(after == before, "{name:?} changed");
        }
    }
    let o = animkit(&["check", &copy]);
    ok(&o);
    // A file of another kind is refused, with the reason.
    let o = animkit(&["replace", &hip, "spongebob_idle01.anm", &path("ex/spongebob_bind.dff"), "-o", &path("x.HIP")]);
    assert_eq!(common::code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not read as skb"));
    assert!(!dir.join("x.HIP").exists());
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

/// A CAF names its bones by CRC-32 only; `sample --skeleton` labels them with the `.chr` names.
#[test]
fn sample_labels_bones_from_a_skeleton() {
    let (Some(caf), Some(chr)) =
        (corpus("cryengine", "ce5_run_fwd_3p_0832.caf"), corpus("cryengine", "ce5_skelProxy.chr"))
    else {
        return;
    };
    let targets = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["sample", &caf, "--clip", "0", "--time", "0.1", "--json"];
        args.extend(extra);
        let o = animkit(&args);
        ok(&o);
        let line: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        line["pose"].as_array().unwrap().iter().map(|e| e["target"].as_str().unwrap().to_string()).collect()
    };
    let (bare, named) = (targets(&[]), targets(&["--skeleton", &chr]));
    assert_eq!(bare.len(), named.len());
    assert_eq!(bare[0], "0x16F4F95B");
    assert_eq!(named[0], "root", "CRC-32 of \"root\" is 0x16F4F95B");
    assert!(named.iter().all(|n| !n.starts_with("0x")), "{named:?}");
    // The CryEngine read setting names them the same way (the library loads the file).
    let setting = format!("skeleton={chr}");
    assert_eq!(targets(&["--opt", &setting]), named);
}
