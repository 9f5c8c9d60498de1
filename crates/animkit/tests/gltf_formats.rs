//! glTF export of every format's corpus, checked by independent readers: the Khronos validator
//! (0 errors, 0 warnings) and three.js playback against [`animkit::sample::sample`].
//!
//! - EvilEngine: every clip of `bfbb_gc_boot.HIP`, one GLB per character (`Document::packages`:
//!   the clips each skinned MODL binds, with its HAnim skeleton; the rest without a skeleton).
//! - CryEngine: every CAF, i_caf and DBA, with the matching `.chr` (corpus README pairs) through
//!   the `skeleton` read parameter.
//! - BFRES: every file; the FSKA of `Animal_Bass_Animation` bound to the FSKL of `Animal_Bass.bfres`,
//!   the others with their own skeleton.
//!
//! Needs `node` and `tools/gltf-check/node_modules` (`npm ci --prefix tools/gltf-check`); skips
//! without them (fails under `CI=true`), as `tests/gltf_node.rs` does.

mod common;

use std::path::Path;

use animkit::model::Package;
use animkit::{Bytes, ReadOptions};
use common::gltf::{export_glb, glb_json, run_node, temp_dir, tools, validate_clean, Nodes, Pick, Playback};

/// The EvilEngine packages: one per character of `bfbb_gc_boot.HIP`.
fn hip_packages() -> Vec<(String, Package)> {
    let Some(dir) = common::corpus_dir("evilengine") else { return Vec::new() };
    let doc = animkit::open(dir.join("bfbb_gc_boot.HIP")).unwrap();
    let packages = doc.packages().unwrap();
    let total: usize = packages.iter().map(|p| p.clips.len()).sum();
    assert_eq!(total, 127, "every ANIM asset is in exactly one package");
    assert_eq!(total, doc.to_model().unwrap().clips.len());
    packages.into_iter().map(|p| (format!("bfbb_gc_boot_{}", p.name), p)).collect()
}

/// The `.chr` whose CompiledBones name a CryEngine animation's controllers (corpus README).
fn cry_skeleton(name: &str) -> Option<&'static str> {
    if name.starts_with("ce3_") {
        Some("ce3_skeleton_character.chr")
    } else if name.starts_with("ly_") {
        Some("ly_jack_root.chr")
    } else if name.starts_with("ce5_") {
        Some("ce5_skelProxy.chr")
    } else {
        None
    }
}

fn cry_packages() -> Vec<(String, Package)> {
    let Some(dir) = common::corpus_dir("cryengine") else { return Vec::new() };
    let mut out = Vec::new();
    for (name, bytes) in common::corpus_files("cryengine") {
        if name.ends_with(".chr") || name.starts_with("not_cryengine") {
            continue;
        }
        let mut options = ReadOptions::default();
        // The DBAs are first-person/animal databases: no corpus skeleton names them.
        if let Some(chr) = cry_skeleton(&name).filter(|_| !name.ends_with(".dba")) {
            options.params.insert("skeleton".into(), dir.join(chr).display().to_string());
        }
        let doc = animkit::read(Bytes::from(bytes), Some(Path::new(&name)), &options).unwrap();
        let package = doc.to_model().unwrap();
        assert!(!package.clips.is_empty(), "{name}");
        out.push((name, package));
    }
    out
}

fn bfres_packages() -> Vec<(String, Package)> {
    let Some(dir) = common::corpus_dir("bfres") else { return Vec::new() };
    let bass_skeleton = animkit::open(dir.join("Animal_Bass.bfres")).unwrap().to_model().unwrap().skeleton.unwrap();
    let mut out = Vec::new();
    for (name, bytes) in common::corpus_files("bfres") {
        let doc = animkit::read(Bytes::from(bytes), Some(Path::new(&name)), &ReadOptions::default()).unwrap();
        let mut package = doc.to_model().unwrap();
        if name.starts_with("Animal_Bass_Animation") {
            package.skeleton = Some(bass_skeleton.clone());
        }
        out.push((name, package));
    }
    out
}

/// Exports every package, validates all GLBs in one validator run, and returns
/// (files, clips, unbound-target warnings).
fn validate_all(tag: &str, packages: &[(String, Package)]) -> (usize, usize) {
    let Some(tools) = tools() else { return (0, 0) };
    let dir = temp_dir(&format!("formats-{tag}"));
    let mut paths = Vec::new();
    let mut clips = 0;
    for (name, package) in packages {
        clips += package.clips.len();
        let (glb, warnings) = export_glb(package);
        for w in warnings.iter().filter(|w| w.contains("not in the skeleton") || w.contains("no skeleton")) {
            eprintln!("{name}: {w}");
        }
        let path = dir.join(format!("{name}.glb"));
        std::fs::write(&path, glb).unwrap();
        paths.push(path);
    }
    let results = validate_clean(&tools, &paths);
    let infos: u64 = results.iter().map(|r| r["infos"].as_u64().unwrap()).sum();
    eprintln!("{tag}: validated {} GLB files ({clips} clips): 0 errors, 0 warnings, {infos} infos", results.len());
    let _ = std::fs::remove_dir_all(&dir);
    (results.len(), clips)
}

#[test]
fn every_hip_clip_exports_a_glb_that_validates_cleanly() {
    let packages = hip_packages();
    if packages.is_empty() {
        return;
    }
    assert!(packages.iter().any(|(_, p)| p.skeleton.is_some()));
    let (_, clips) = validate_all("hip", &packages);
    assert!(clips == 127 || tools().is_none());
}

#[test]
fn every_cryengine_animation_exports_a_glb_that_validates_cleanly() {
    let packages = cry_packages();
    if packages.is_empty() {
        return;
    }
    validate_all("cryengine", &packages);
}

#[test]
fn every_bfres_exports_a_glb_that_validates_cleanly() {
    let packages = bfres_packages();
    if packages.is_empty() {
        return;
    }
    validate_all("bfres", &packages);
}

/// The largest difference of three.js playback from `sample`, per interpolation kind, over
/// `clip_count` clips spread over the package. Asserts 1e-4 for every kind.
fn playback(name: &str, package: &Package, clip_count: usize) -> f32 {
    let Some(tools) = tools() else { return 0.0 };
    let options = Playback { pick: Pick::About(clip_count), last: 0.999, nodes: Nodes::Lenient };
    let report = common::gltf::playback(&tools, name, package, options);
    if report.clips == 0 {
        return 0.0;
    }
    assert!(report.compared > 0, "{name}: nothing compared");
    eprintln!(
        "{name}: {} clips, {} values, worst {:e} by interpolation {:?}",
        report.clips, report.compared, report.worst, report.worst_by
    );
    report.worst
}

#[test]
fn three_js_plays_hip_clips_like_sample() {
    let mut worst = 0f32;
    for (name, package) in hip_packages() {
        worst = worst.max(playback(&name, &package, 3));
    }
    eprintln!("hip: worst difference {worst:e}");
}

#[test]
fn three_js_plays_cryengine_clips_like_sample() {
    let mut worst = 0f32;
    for (name, package) in cry_packages() {
        worst = worst.max(playback(&name, &package, 3));
    }
    eprintln!("cryengine: worst difference {worst:e}");
}

#[test]
fn three_js_plays_bfres_clips_like_sample() {
    let mut worst = 0f32;
    for (name, package) in bfres_packages() {
        worst = worst.max(playback(&name, &package, 4));
    }
    eprintln!("bfres: worst difference {worst:e}");
}

/// Issue 5: a standalone `.anm` and `.dff` as `animkit extract` writes them. With the `.dff` as the
/// skeleton (the `dff` format, found by probing) the GLB is parented and plays like `sample`;
/// without one, the nodes are `bone_00`… under one root, with a warning; both validate.
#[test]
fn extracted_anm_with_and_without_its_dff_skeleton() {
    let Some(dir) = common::corpus_dir("evilengine") else { return };
    let hip = animkit::open(dir.join("bfbb_gc_boot.HIP")).unwrap();
    let entries = hip.entries().unwrap();
    let entry = |name: &str| entries.iter().find(|e| e.name == name).unwrap_or_else(|| panic!("{name}")).data.clone();
    let anm = animkit::read(entry("spongebob_idle01.anm"), Some(Path::new("a.anm")), &ReadOptions::default()).unwrap();
    let dff = animkit::read(entry("spongebob_bind.dff"), Some(Path::new("a.dff")), &ReadOptions::default()).unwrap();
    assert_eq!(dff.format().name(), "dff");
    assert_eq!(dff.write().unwrap(), entry("spongebob_bind.dff").to_vec());
    let skeleton = dff.to_model().unwrap().skeleton.expect("HAnim skeleton");
    assert_eq!(skeleton.bones.len(), 44);
    let dff_bytes = entry("spongebob_bind.dff");
    let dff_format = animkit::REGISTRY.by_name("dff").unwrap().0;
    for n in 0..dff_bytes.len() {
        // Truncated clumps are errors (or a shorter valid prefix), never panics.
        let _ = dff_format.read(dff_bytes.slice(..n), &ReadOptions::default());
    }
    let dump = animkit::dump(dff.as_ref()).unwrap();
    assert_eq!(animkit::pack(dump).unwrap().write().unwrap(), entry("spongebob_bind.dff").to_vec());

    let bare = anm.to_model().unwrap();
    let (glb, warnings) = export_glb(&bare);
    assert!(warnings.iter().any(|w| w.contains("no skeleton")), "{warnings:?}");
    let json = glb_json(&glb);
    let names: Vec<&str> = json["nodes"].as_array().unwrap().iter().filter_map(|n| n["name"].as_str()).collect();
    assert!(names.contains(&"bone_00") && names.contains(&"bone_01"), "{names:?}");

    // The common root node that keeps the validator happy is not a bone on import.
    let gltf = animkit::REGISTRY.by_name("gltf").unwrap().0;
    let imported = gltf.read(Bytes::from(glb.clone()), &ReadOptions::default()).unwrap().to_model().unwrap();
    // (The skeleton was made up by the exporter, so the import has none, as the source had none.)
    assert!(imported.skeleton.is_none());
    assert_eq!(imported.up_axis, animkit::model::UpAxis::Y);
    let labels: std::collections::BTreeSet<String> =
        imported.clips[0].tracks.iter().map(|t| t.target.label()).collect();
    assert_eq!(labels.len(), 42);
    assert!(labels.iter().all(|l| l.starts_with("bone_")), "{labels:?}");

    let mut bound = bare.clone();
    bound.skeleton = Some(skeleton);
    let (glb2, warnings2) = export_glb(&bound);
    assert!(!warnings2.iter().any(|w| w.contains("no skeleton") || w.contains("not in the skeleton")), "{warnings2:?}");
    let json2 = glb_json(&glb2);
    let parented = json2["nodes"].as_array().unwrap().iter().filter(|n| n["children"].is_array()).count();
    assert!(parented > 5, "a hierarchy: {parented} nodes with children");

    let Some(tools) = tools() else { return };
    let tmp = temp_dir("formats-anm");
    let (a, b) = (tmp.join("bare.glb"), tmp.join("bound.glb"));
    std::fs::write(&a, &glb).unwrap();
    std::fs::write(&b, &glb2).unwrap();
    let (ok, stdout, stderr) = run_node(&tools, "validate.mjs", &[&a, &b]);
    assert!(ok, "{stdout}\n{stderr}");
    playback("spongebob_idle01 (bound)", &bound, 1);
    playback("spongebob_idle01 (bare)", &bare, 1);
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Several root bones (FSKA targets missing from the FSKL) get a common root node on export;
/// importing drops it again and keeps the skeleton's own bones.
#[test]
fn common_root_node_is_not_imported_as_a_bone() {
    let Some((_, package)) = bfres_packages().into_iter().find(|(n, _)| n == "Animal_Bass_Animation.bfres") else {
        return;
    };
    let (glb, warnings) = export_glb(&package);
    assert!(warnings.iter().any(|w| w.contains("not in the skeleton")), "{warnings:?}");
    let json = glb_json(&glb);
    assert_eq!(json["nodes"][0]["name"], "animkit_root");
    let gltf = animkit::REGISTRY.by_name("gltf").unwrap().0;
    let imported = gltf.read(Bytes::from(glb), &ReadOptions::default()).unwrap().to_model().unwrap();
    let names: Vec<String> = imported.skeleton.unwrap().bones.into_iter().map(|b| b.name).collect();
    assert!(!names.iter().any(|n| n == "animkit_root"), "{names:?}");
    assert_eq!(names.len(), package.skeleton.unwrap().bones.len() + 4, "{names:?}");
    assert_eq!(imported.clips.len(), package.clips.len());
}

/// The IFP §7.2 read options change times and root positions: the exports still validate.
#[test]
fn ifp_exports_on_the_engine_timeline_in_place_validate_cleanly() {
    let mut packages = Vec::new();
    for file in ["vc_ped_anpk.ifp", "sa_ped_anp3.ifp"] {
        let Some(bytes) = common::corpus_file("ifp", file) else { return };
        let mut options = ReadOptions::default();
        options.params.insert("timeline".into(), "engine".into());
        options.params.insert("root".into(), "in-place".into());
        let doc = animkit::read(Bytes::from(bytes), Some(Path::new(file)), &options).unwrap();
        packages.push((format!("{file}-engine-in-place"), doc.to_model().unwrap()));
    }
    let (files, clips) = validate_all("ifp-options", &packages);
    assert!((files, clips) == (2, 234 + 294) || tools().is_none());
}
