//! `convert` batches never lose an output, options are checked, and a conversion that would
//! write nothing fails.

mod common;

use common::{animkit, code, corpus, example, ok, temp_dir};

#[test]
fn same_named_inputs_in_different_folders_are_all_written() {
    let dir = temp_dir("same-names");
    let (a, b) = (dir.join("gta3/x.ifp"), dir.join("sa/x.ifp"));
    std::fs::create_dir_all(a.parent().unwrap()).unwrap();
    std::fs::create_dir_all(b.parent().unwrap()).unwrap();
    ok(&animkit(&["convert", &example(), "-o", a.to_str().unwrap(), "--to", "anpk"]));
    std::fs::copy(example(), &b).unwrap();
    let out = format!("{}/", dir.join("out").display());
    let err = ok(&animkit(&["convert", a.to_str().unwrap(), b.to_str().unwrap(), "-o", &out, "--to", "glb"]));
    assert!(err.contains("2 of 2 files done, 0 failed; 2 files written"), "{err}");
    // Each result is the one converting its input alone gives.
    for (input, result) in [(&a, "out/gta3/x.glb"), (&b, "out/sa/x.glb")] {
        let alone = dir.join("alone.glb");
        ok(&animkit(&["convert", input.to_str().unwrap(), "-o", alone.to_str().unwrap()]));
        assert!(std::fs::read(dir.join(result)).unwrap() == std::fs::read(&alone).unwrap(), "{result}");
    }
    assert!(!dir.join("out/x.glb").exists());
    // The same file twice still collides: an error before anything is written.
    let again = format!("{}/", dir.join("again").display());
    let o = animkit(&["convert", a.to_str().unwrap(), a.to_str().unwrap(), "-o", &again, "--to", "glb"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("would both be written to"));
    assert!(!dir.join("again").exists());
}

#[test]
fn several_inputs_need_a_directory() {
    let dir = temp_dir("several");
    let target = dir.join("x.glb");
    let o = animkit(&["convert", &example(), &example(), "-o", target.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("need a directory") && err.contains("ending in /"), "{err}");
    assert!(!target.exists());
}

#[test]
fn a_misspelt_option_exits_2_and_lists_the_valid_keys() {
    let dir = temp_dir("opt");
    let out = dir.join("x.ifp");
    let o = animkit(&["convert", &example(), "-o", out.to_str().unwrap(), "--opt", "overflw=error"]);
    assert_eq!(code(&o), 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("\"overflw\"") && err.contains("overflow") && err.contains("compression"), "{err}");
    // A key of another format: the message lists what this one writes.
    let o = animkit(&["convert", &example(), "-o", out.to_str().unwrap(), "--opt", "rotation=euler"]);
    assert_eq!(code(&o), 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("overflow=uncompressed|error"), "{err}");
    assert!(!out.exists());
    // The keys the formats take are listed.
    let o = animkit(&["formats", "--params"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("overflow=uncompressed|error"));
    // A valid key goes through.
    ok(&animkit(&["convert", &example(), "-o", out.to_str().unwrap(), "--opt", "overflow=error"]));
}

/// `--opt` keys are checked against what the verb reads and writes for the files named: the
/// formats of the inputs (reading) and of the output (writing), not every format.
#[test]
fn an_option_of_neither_the_inputs_nor_the_output_is_refused_naming_both() {
    let dir = temp_dir("opt-per-verb");
    let walk = example();
    let glb = dir.join("x.glb");
    let o = animkit(&["convert", &example(), "-o", glb.to_str().unwrap(), "--opt", "rotation=euler"]);
    assert_eq!(code(&o), 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--opt \"rotation\" is not a setting of reading ifp or writing gltf: "), "{err}");
    assert!(err.contains("reading ifp takes timeline=authored|engine, root=keep|in-place"), "{err}");
    assert!(err.contains("writing gltf takes additive=keep|bake"), "{err}");
    assert!(!glb.exists());
    // Verbs that only read: the input's format alone.
    for verb in [&["info"][..], &["check"], &["dump"], &["sample", "--clip", "0", "--time", "0"]] {
        let mut args = verb.to_vec();
        args.extend([walk.as_str(), "--opt", "additive=bake"]);
        let o = animkit(&args);
        assert_eq!(code(&o), 2, "{verb:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("--opt \"additive\" is not a setting of reading ifp: reading ifp takes "),
            "{verb:?}: {err}"
        );
    }
    let o = animkit(&["info", &example(), "--opt", "skb_version=1"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"skb_version\" is not a setting of reading ifp"));
    ok(&animkit(&["info", &example(), "--opt", "root=in-place"]));
}

/// A batch of two formats takes the read settings of each; each input gets its own.
#[test]
fn a_batch_of_two_formats_takes_the_settings_of_each() {
    let dir = temp_dir("opt-batch");
    let walk = example();
    let bfres = dir.join("walk.bfres");
    ok(&animkit(&["convert", &example(), "-o", bfres.to_str().unwrap()]));
    let out = format!("{}/", dir.join("out").display());
    let settings = ["--opt", "rotations=unit", "--opt", "fps=60"];
    let mut args = vec!["convert", walk.as_str(), bfres.to_str().unwrap(), "-o", &out, "--to", "model-json"];
    args.extend(settings);
    let err = ok(&animkit(&args));
    assert!(err.contains("2 of 2 files done, 0 failed"), "{err}");
    // Each output is the one its input gives with only its own format's setting.
    for (input, setting, result) in
        [(walk.as_str(), "rotations=unit", "walk_cycle.json"), (bfres.to_str().unwrap(), "fps=60", "walk.json")]
    {
        let alone = dir.join("alone.json");
        ok(&animkit(&["convert", input, "-o", alone.to_str().unwrap(), "--opt", setting]));
        let batch = std::fs::read(dir.join("out").join(result)).unwrap();
        assert!(batch == std::fs::read(&alone).unwrap(), "{result}");
        let plain = dir.join("plain.json");
        ok(&animkit(&["convert", input, "-o", plain.to_str().unwrap()]));
        assert!(batch != std::fs::read(&plain).unwrap(), "{setting} changes {result}");
    }
}

#[test]
fn a_conversion_that_keeps_no_track_fails() {
    let Some(sprint) = corpus("ifp", "weaponsprint_anp3.ifp") else { return };
    let dir = temp_dir("no-track");
    let out = dir.join("w.anm");
    let o = animkit(&["convert", &sprint, "-o", out.to_str().unwrap(), "--to", "skb-le"]);
    assert_eq!(code(&o), 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("none of the 36 tracks") && err.contains("--skeleton"), "{err}");
    assert_eq!(err.matches("SKB bone index").count(), 1, "one line per cause, not per track: {err}");
    assert!(!out.exists());
}

#[test]
fn the_summary_counts_every_file_written_per_character() {
    let Some(hip) = corpus("evilengine", "bfbb_gc_boot.HIP") else { return };
    let dir = temp_dir("per-character");
    let out = format!("{}/", dir.join("out").display());
    let err = ok(&animkit(&["convert", &hip, &example(), "-o", &out, "--to", "glb"]));
    assert!(err.contains("2 of 2 files done, 0 failed; 6 files written"), "{err}");
    assert_eq!(std::fs::read_dir(dir.join("out")).unwrap().count(), 6);
}

/// ANP3 has no scale: three scale tracks dropped read as one count and one line per cause;
/// `--verbose` lists each.
#[test]
fn drops_are_summarised_and_verbose_lists_each() {
    let dir = temp_dir("summary");
    let track = |bone: &str, values: serde_json::Value| serde_json::json!({"target": {"bone": {"name": bone}}, "interpolation": "linear", "times": [0.0, 1.0], "values": values});
    let mut tracks = Vec::new();
    for bone in ["Pelvis", "Spine", "Head"] {
        tracks.push(track(bone, serde_json::json!({"rotation": [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0]]})));
        tracks.push(track(bone, serde_json::json!({"scale": [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]})));
    }
    let model = serde_json::json!({"animkit_model": 1, "package": {"name": "grow", "up_axis": "Z",
        "clips": [{"name": "grow", "duration": 1.0, "tracks": tracks}]}});
    let json = dir.join("grow.json");
    std::fs::write(&json, model.to_string()).unwrap();
    let out = dir.join("grow.ifp");
    let err = ok(&animkit(&["convert", json.to_str().unwrap(), "-o", out.to_str().unwrap()]));
    assert!(err.contains("3 of 6 tracks dropped"), "{err}");
    assert!(err.contains("scale of Pelvis dropped: ANP3 has no scale (and 2 more like it)"), "{err}");
    assert_eq!(err.matches("has no scale").count(), 1, "{err}");
    let err = ok(&animkit(&["convert", json.to_str().unwrap(), "-o", out.to_str().unwrap(), "--verbose"]));
    assert_eq!(err.matches("has no scale").count(), 3, "{err}");
}

/// BFRES → BFRES says what the model does not carry: the models (with their counts) and the
/// skeleton are named, never dropped without a word.
#[test]
fn bfres_models_left_behind_are_named() {
    let Some(bass) = corpus("bfres", "Animal_Bass.bfres") else { return };
    let dir = temp_dir("bfres-models");
    let out = dir.join("bass.bfres");
    let err = ok(&animkit(&["convert", &bass, "-o", out.to_str().unwrap()]));
    assert!(err.contains("2 models (7 bones, 4 shapes, 4 materials)") && err.contains("not carried"), "{err}");
    assert!(err.contains("skeleton (6 bones) not written"), "{err}");
}
