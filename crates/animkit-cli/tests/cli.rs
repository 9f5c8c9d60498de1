//! The command-line contract: exit codes, JSON Lines, dump → pack, safe output, batches.

mod common;

use animkit::model::Values;
use common::{animkit, code, corpus, example, ok, repo, temp_dir};

#[test]
fn formats_lists_the_registry() {
    let o = animkit(&["formats"]);
    assert_eq!(code(&o), 0);
    let text = String::from_utf8_lossy(&o.stdout);
    for name in ["ifp", "gltf"] {
        assert!(text.lines().any(|l| l.starts_with(name)), "{text}");
    }
}

#[test]
fn info_json_reports_clip_counts_one_line_per_file() {
    let (Some(vc), Some(sa)) = (corpus("ifp", "vc_ped_anpk.ifp"), corpus("ifp", "sa_ped_anp3.ifp")) else { return };
    let o = animkit(&["info", "--json", &vc, &sa]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["format"], "ifp");
    assert_eq!(lines[0]["version"], "ANPK");
    assert_eq!(lines[0]["clips"].as_array().unwrap().len(), 234);
    assert_eq!(lines[1]["version"], "ANP3");
    assert_eq!(lines[1]["clips"].as_array().unwrap().len(), 294);
    let clip = &lines[1]["clips"][0];
    assert!(clip["name"].is_string() && clip["duration_s"].is_number());
    let track = &clip["tracks"][0];
    assert!(track["target"].is_string() && track["keys"].is_number());
}

#[test]
fn dump_then_pack_gives_the_identical_bytes() {
    let dir = temp_dir("dump");
    let mut inputs = vec![example()];
    inputs.extend(corpus("ifp", "abdominal_trailing_garbage.ifp"));
    inputs.extend(corpus("ifp", "vc_ped_anpk.ifp"));
    for input in inputs {
        let json = dir.join("d.json");
        let out = dir.join("packed.bin");
        assert_eq!(code(&animkit(&["dump", &input, "-o", json.to_str().unwrap()])), 0);
        let o = animkit(&["pack", json.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
        assert!(std::fs::read(&out).unwrap() == std::fs::read(&input).unwrap(), "{input}");
    }
}

#[test]
fn convert_never_overwrites_its_input_unless_asked() {
    let dir = temp_dir("inplace");
    let file = dir.join("walk.ifp");
    std::fs::copy(example(), &file).unwrap();
    let before = std::fs::read(&file).unwrap();
    let o = animkit(&["convert", file.to_str().unwrap(), "-o", file.to_str().unwrap(), "--to", "anpk"]);
    assert_eq!(code(&o), 1);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--in-place"));
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let o = animkit(&["convert", file.to_str().unwrap(), "-o", file.to_str().unwrap(), "--to", "anpk", "--in-place"]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(&std::fs::read(&file).unwrap()[..4], b"ANPK");
    assert_eq!(std::fs::read(dir.join("walk.ifp.bak")).unwrap(), before);
}

#[test]
fn batch_convert_continues_past_a_bad_file() {
    let dir = temp_dir("batch");
    let bad = dir.join("broken.ifp");
    std::fs::write(&bad, b"ANP3\x10\0\0\0truncated").unwrap();
    let out = dir.join("out/");
    let o = animkit(&["convert", &example(), bad.to_str().unwrap(), "-o", out.to_str().unwrap(), "--to", "glb"]);
    assert_eq!(code(&o), 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("1 of 2 files done, 1 failed"), "{err}");
    assert!(err.contains("broken.ifp") && err.contains("truncated"), "{err}");
    assert!(out.join("walk_cycle.glb").is_file());
    assert!(!out.join("broken.glb").exists());
}

#[test]
fn check_and_repair() {
    let Some(garbage) = corpus("ifp", "abdominal_trailing_garbage.ifp") else { return };
    let o = animkit(&["check", "--json", &garbage]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let codes: Vec<&str> = report["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&"trailing-bytes"), "{codes:?}");
    assert_eq!(code(&animkit(&["check", "--strict", &garbage])), 1);
    let dir = temp_dir("repair");
    let fixed = dir.join("fixed.ifp");
    let o = animkit(&["repair", &garbage, "-o", fixed.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("removed"));
    let o = animkit(&["check", "--json", fixed.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stdout));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["severity"] != "error" && !f["fixable"].as_bool().unwrap()));
}

#[test]
fn unreadable_input_exits_2_with_a_message() {
    let dir = temp_dir("bad");
    let junk = dir.join("junk.ifp");
    std::fs::write(&junk, b"not an animation").unwrap();
    let o = animkit(&["info", junk.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a format animkit knows"));
    assert_eq!(code(&animkit(&["info", "/no/such/file.ifp"])), 2);
    assert_eq!(code(&animkit(&["sample"])), 2, "usage errors exit 2");
}

#[test]
fn sample_prints_the_pose_as_json() {
    let o = animkit(&["sample", &example(), "--clip", "walk_cycle", "--time", "0.16666667", "--time", "0.5", "--json"]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    let pose = lines[0]["pose"].as_array().unwrap();
    let thigh = pose.iter().find(|e| e["target"] == "L Thigh" && e["channel"] == "rotation").unwrap();
    // At key 5 (t = 1/6 s) the recipe turns L Thigh by 25°·sin(2π/6) = 21.65° about X:
    // (sin 10.825°, 0, 0, cos 10.825°), within the 1/4096 quantisation of ANP3.
    let q: Vec<f64> = thigh["value"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let half = (25.0 * 60f64.to_radians().sin() / 2.0).to_radians();
    let expect = [half.sin(), 0.0, 0.0, half.cos()];
    assert!(q.iter().zip(expect).all(|(a, b)| (a - b).abs() < 1e-3), "{q:?}");
}

/// `--rest-offsets` (GTA III/VC non-skinned objects): each translation key becomes key + the
/// bound bone's rest translation, checked against the rig's own rest pose.
#[test]
fn convert_adds_rest_translations_when_keys_are_offsets() {
    let dir = temp_dir("rest-offsets");
    let rig = repo().join("examples/walk_cycle_rig.glb");
    let (plain, offset) = (dir.join("plain.glb"), dir.join("offset.glb"));
    let input = example();
    for (out, extra) in [(&plain, None), (&offset, Some("--rest-offsets"))] {
        let mut args = vec!["convert", &input, "--skeleton", rig.to_str().unwrap(), "-o", out.to_str().unwrap()];
        args.extend(extra);
        ok(&animkit(&args));
    }
    let o = animkit(&["convert", &input, "--rest-offsets", "-o", dir.join("x.glb").to_str().unwrap()]);
    assert_eq!(code(&o), 2, "--rest-offsets needs --skeleton");

    let model = |p: &std::path::Path| animkit::open(p).unwrap().to_model().unwrap();
    let (plain, offset) = (model(&plain), model(&offset));
    let skeleton = animkit::open(&rig).unwrap().to_model().unwrap().skeleton.unwrap();
    let mut checked = 0;
    for (a, b) in plain.clips[0].tracks.iter().zip(&offset.clips[0].tracks) {
        match (&a.values, &b.values) {
            (Values::Translation(va), Values::Translation(vb)) => {
                let rest = skeleton.bones[skeleton.find(a.target.bone().unwrap()).unwrap()].rest.translation;
                for (x, y) in va.iter().zip(vb) {
                    assert!((*x + rest - *y).length() < 1e-5, "{}: {x} + {rest} ≠ {y}", a.target.label());
                }
                checked += usize::from(rest.length() > 0.0);
            }
            _ => assert_eq!(a, b),
        }
    }
    assert!(checked > 0, "some bound bone has a non-zero rest translation");
}

#[test]
fn convert_picks_clips_by_name() {
    let Some(sa) = corpus("ifp", "sa_ped_anp3.ifp") else { return };
    let dir = temp_dir("clips");
    let out = dir.join("two.ifp").display().to_string();
    ok(&animkit(&["convert", &sa, "--clip", "walk_civi", "--clip", "RUN_CIVI", "-o", &out]));
    let names: Vec<String> =
        animkit::open(&out).unwrap().to_model().unwrap().clips.into_iter().map(|c| c.name).collect();
    assert_eq!(names, ["run_civi", "WALK_civi"], "file order, any case");
    let o = animkit(&["convert", &sa, "--clip", "moonwalk", "-o", &dir.join("none.ifp").display().to_string()]);
    assert_eq!(code(&o), 1);
    assert!(String::from_utf8_lossy(&o.stderr).contains("no clip \"moonwalk\""));
    assert!(!dir.join("none.ifp").exists());
}
