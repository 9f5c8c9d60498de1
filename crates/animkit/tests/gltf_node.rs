//! glTF export checked by independent readers: the Khronos validator and three.js playback.
//!
//! Needs `node` and `tools/gltf-check/node_modules` (`npm ci --prefix tools/gltf-check`).
//! Without them the tests say that they skipped; under CI (`CI=true`) they fail instead.

mod common;

use std::path::Path;

use animkit::model::{Bone, BoneRef, Package, Skeleton, Target};
use animkit::sample::sample;
use animkit::{Bytes, ReadOptions};
use common::gltf::{
    export_glb, glb_json, playback, playback_difference, run_node, temp_dir, tools, validate_clean, Nodes, Pick,
    Playback,
};
use glam::{Quat, Vec3};
use serde_json::Value;

fn ifp_model(name: &str) -> Option<Package> {
    let dir = common::corpus_dir("ifp")?;
    Some(animkit::open(dir.join(name)).unwrap().to_model().unwrap())
}

#[test]
fn every_corpus_ifp_exports_a_glb_that_validates_cleanly() {
    let Some(tools) = tools() else { return };
    let files = common::corpus_files("ifp");
    if files.is_empty() {
        return;
    }
    let dir = temp_dir("validate");
    let mut paths = Vec::new();
    let mut clips = 0;
    for (name, bytes) in &files {
        let doc = animkit::read(Bytes::from(bytes.clone()), Some(Path::new(name)), &ReadOptions::default()).unwrap();
        let package = doc.to_model().unwrap();
        clips += package.clips.len();
        let (glb, _warnings) = export_glb(&package);
        let path = dir.join(format!("{name}.glb"));
        std::fs::write(&path, glb).unwrap();
        paths.push(path);
    }
    let results = validate_clean(&tools, &paths);
    let count = |k: &str| results.iter().map(|r| r[k].as_u64().unwrap()).sum::<u64>();
    let mut codes: Vec<String> =
        results.iter().flat_map(|r| r["messages"].as_array().unwrap()).map(|m| m["code"].to_string()).collect();
    codes.sort();
    codes.dedup();
    eprintln!(
        "validated {} GLB files ({clips} clips): 0 errors, 0 warnings, {} infos, {} hints {codes:?}",
        results.len(),
        count("infos"),
        count("hints")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn check_playback(file: &str, every: usize) {
    let Some(tools) = tools() else { return };
    let Some(package) = ifp_model(file) else {
        return;
    };
    let options = Playback { pick: Pick::Every(every), last: 1.0, nodes: Nodes::Exact };
    let report = playback(&tools, file, &package, options);
    assert!(report.compared > 0);
    eprintln!(
        "{file}: {} clips, {} values compared with three.js, worst difference {:e}",
        report.clips, report.compared, report.worst
    );
}

#[test]
fn three_js_plays_vc_anpk_clips_like_sample() {
    check_playback("vc_ped_anpk.ifp", 7);
}

#[test]
fn three_js_plays_sa_anp3_clips_like_sample() {
    check_playback("sa_ped_anp3.ifp", 11);
}

/// A Z-up rig of two bones (the knee named only by its id) with one clip: a cubic-spline knee
/// rotation, a step and an nlerp hip track, and a texture-index track glTF cannot carry.
fn rig() -> Package {
    use animkit::model::{Clip, Interpolation, Track, Transform, UpAxis, Values};
    let bones = vec![
        Bone {
            name: "hip".into(),
            rest: Transform { translation: Vec3::new(0.0, 0.0, 1.0), ..Default::default() },
            ..Default::default()
        },
        Bone {
            name: "knee".into(),
            id: Some(7),
            parent: Some(0),
            rest: Transform { translation: Vec3::new(0.0, 0.0, -0.5), ..Default::default() },
            ..Default::default()
        },
    ];
    let hip = || Target::Bone(BoneRef::named("hip"));
    let knee = || Target::Bone(BoneRef { id: Some(7), ..Default::default() });
    let q = |a: f32| Quat::from_rotation_x(a);
    let clip = Clip {
        name: "bend".into(),
        duration: 1.0,
        tracks: vec![
            Track {
                target: knee(),
                interpolation: Interpolation::CubicSpline,
                times: vec![0.0, 1.0],
                values: Values::Rotation(vec![
                    Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                    q(0.0),
                    Quat::from_xyzw(0.3, 0.0, 0.0, 0.0),
                    Quat::from_xyzw(0.3, 0.0, 0.0, 0.0),
                    q(1.2),
                    Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                ]),
            },
            Track {
                target: hip(),
                interpolation: Interpolation::Step,
                times: vec![0.0, 0.5],
                values: Values::Translation(vec![Vec3::ZERO, Vec3::new(0.0, 1.0, 0.0)]),
            },
            Track {
                target: hip(),
                interpolation: Interpolation::Nlerp,
                times: vec![0.0, 1.0],
                values: Values::Rotation(vec![q(0.0), q(1.5)]),
            },
            Track {
                target: Target::Material { material: "face".into(), property: "texture".into() },
                interpolation: Interpolation::Step,
                times: vec![0.0, 0.5],
                values: Values::TextureIndex { indices: vec![0, 1], textures: vec!["a".into(), "b".into()].into() },
            },
        ],
        ..Default::default()
    };
    Package { name: "rig".into(), up_axis: UpAxis::Z, clips: vec![clip], skeleton: Some(Skeleton { bones }) }
}

/// A model with a real skeleton, Z-up, cubic and step tracks: validates and plays back.
#[test]
fn skeleton_cubic_and_step_tracks_validate_and_play() {
    let Some(tools) = tools() else { return };
    let package = rig();
    let (glb, warnings) = export_glb(&package);
    assert!(warnings.iter().any(|w| w.contains("TextureIndex")), "{warnings:?}");
    let dir = temp_dir("rig");
    let path = dir.join("rig.glb");
    std::fs::write(&path, &glb).unwrap();
    let (ok, stdout, stderr) = run_node(&tools, "validate.mjs", &[&path]);
    assert!(ok, "{stdout}\n{stderr}");
    let req = dir.join("req.json");
    let times = [0.0f32, 0.25, 0.5, 0.75, 1.0];
    std::fs::write(&req, serde_json::json!([{"animation": 0, "times": times}]).to_string()).unwrap();
    let (ok, stdout, stderr) = run_node(&tools, "playback.mjs", &[&path, &req]);
    assert!(ok, "{stderr}");
    let result: Value = serde_json::from_str(&stdout).unwrap();
    let json = glb_json(&glb);
    let node = |name: &str| json["nodes"].as_array().unwrap().iter().position(|n| n["name"] == name).unwrap();
    let clip = &package.clips[0];
    for (k, &t) in times.iter().enumerate() {
        let nodes = &result[0]["samples"][k]["nodes"];
        for e in sample(clip, t) {
            let Target::Bone(r) = &e.target else { continue };
            let n = if r.id == Some(7) { node("knee") } else { node("hip") };
            let got = &nodes[n.to_string()];
            let err = playback_difference(got, e.value);
            assert!(err <= 1e-4, "t={t} {:?}: {err} ({got} vs {:?})", r, e.value);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gltf_format_is_registered() {
    let (f, v) = animkit::REGISTRY.by_extension("glb").unwrap();
    assert_eq!((f.name(), v), ("gltf", Some("glb")));
    let (f, v) = animkit::REGISTRY.by_extension("gltf").unwrap();
    assert_eq!((f.name(), v), ("gltf", Some("gltf")));
}
