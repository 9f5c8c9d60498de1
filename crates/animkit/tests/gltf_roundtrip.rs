//! glTF import and round trips, in Rust only (no node needed).

mod common;

use std::path::Path;

use animkit::model::{BoneRef, Clip, Interpolation, Package, Target, Track, UpAxis, Values};
use animkit::sample::{sample_track, Sampled};
use animkit::{Bytes, ReadOptions, WriteOptions};
use glam::{Quat, Vec3, Vec4};
use serde_json::{json, Value};

fn gltf() -> &'static dyn animkit::Format {
    animkit::REGISTRY.by_name("gltf").unwrap().0
}

fn export(package: &Package, variant: &str) -> Vec<u8> {
    let w = gltf().from_model(package, &WriteOptions::default().with_variant(variant)).unwrap();
    w.document.write().unwrap()
}

fn import(bytes: Vec<u8>, name: &str) -> Package {
    let doc = animkit::read(Bytes::from(bytes), Some(Path::new(name)), &ReadOptions::default()).unwrap();
    assert_eq!(doc.format().name(), "gltf");
    doc.to_model().unwrap()
}

/// The largest component difference of two sampled values; rotations as directions (glTF holds
/// unit quaternions, a game file's stored keys need not be unit) and up to sign.
fn sampled_diff(a: Sampled, b: Sampled) -> f32 {
    match (a, b) {
        (Sampled::Rotation(p), Sampled::Rotation(q)) => {
            let (p, q) = (Vec4::from(p).normalize_or_zero(), Vec4::from(q).normalize_or_zero());
            (p - q).abs().max_element().min((p + q).abs().max_element())
        }
        (Sampled::Translation(p), Sampled::Translation(q)) | (Sampled::Scale(p), Sampled::Scale(q)) => {
            (p - q).abs().max_element()
        }
        (a, b) => {
            if a == b {
                0.0
            } else {
                f32::INFINITY
            }
        }
    }
}

/// Compares two tracks: keys one by one when the counts agree (times within the 1e-4 s repeat
/// offset, values up to quaternion sign), else by sampling. Returns whether keys matched 1:1.
fn assert_track_close(a: &Track, b: &Track, what: &str) -> bool {
    assert_eq!(a.target, b.target, "{what}");
    assert_eq!(a.interpolation, b.interpolation, "{what}");
    assert_eq!(a.channel(), b.channel(), "{what}");
    let same_keys =
        a.times.len() == b.times.len() && a.times.iter().zip(&b.times).all(|(x, y)| (x - y).abs() <= 1.01e-4);
    if same_keys {
        match (&a.values, &b.values) {
            (Values::Rotation(p), Values::Rotation(q)) => {
                for (k, (p, q)) in p.iter().zip(q).enumerate() {
                    let d = sampled_diff(Sampled::Rotation(*p), Sampled::Rotation(*q));
                    assert!(d <= 1e-6, "{what}: key {k} {p} vs {q}");
                }
            }
            (Values::Translation(p), Values::Translation(q)) | (Values::Scale(p), Values::Scale(q)) => {
                assert_eq!(p, q, "{what}");
            }
            (p, q) => assert_eq!(p, q, "{what}"),
        }
        true
    } else {
        let end = a.times.last().copied().unwrap_or(0.0).max(0.0);
        for i in 0..=50 {
            let t = end * i as f32 / 50.0 + 2e-4;
            let (Some(x), Some(y)) = (sample_track(a, t), sample_track(b, t)) else { panic!("{what}") };
            assert!(sampled_diff(x, y) <= 1e-4, "{what}: t={t} {x:?} vs {y:?}");
        }
        false
    }
}

fn assert_clips_close(a: &Package, b: &Package, file: &str) -> (usize, usize) {
    assert_eq!(a.name, b.name);
    assert_eq!(a.up_axis, b.up_axis);
    assert_eq!(a.skeleton.is_some(), b.skeleton.is_some());
    assert_eq!(a.clips.len(), b.clips.len(), "{file}");
    let (mut exact, mut sampled) = (0, 0);
    for (ca, cb) in a.clips.iter().zip(&b.clips) {
        assert_eq!(ca.name, cb.name);
        assert_eq!(ca.duration, cb.duration, "{file} {}", ca.name);
        assert_eq!(ca.looping, cb.looping);
        assert_eq!(ca.tracks.len(), cb.tracks.len(), "{file} {}", ca.name);
        for (k, (ta, tb)) in ca.tracks.iter().zip(&cb.tracks).enumerate() {
            if assert_track_close(ta, tb, &format!("{file} clip \"{}\" track {k}", ca.name)) {
                exact += 1;
            } else {
                sampled += 1;
            }
        }
    }
    (exact, sampled)
}

#[test]
fn corpus_ifp_to_gltf_to_model_matches_the_first_model() {
    let files = common::corpus_files("ifp");
    let mut totals = (0, 0, 0);
    for (name, bytes) in &files {
        let doc = animkit::read(Bytes::from(bytes.clone()), Some(Path::new(name)), &ReadOptions::default()).unwrap();
        let first = doc.to_model().unwrap();
        for variant in ["glb", "gltf"] {
            let out = export(&first, variant);
            let second = import(out, &format!("x.{variant}"));
            let (e, s) = assert_clips_close(&first, &second, name);
            if variant == "glb" {
                totals.0 += first.clips.len();
                totals.1 += e;
                totals.2 += s;
            }
        }
    }
    if !files.is_empty() {
        eprintln!(
            "{} files, {} clips round-tripped through glTF: {} tracks key-for-key, {} by sampling",
            files.len(),
            totals.0,
            totals.1,
            totals.2
        );
    }
}

#[test]
fn gltf_dump_pack_write_is_identical_and_glb_dump_stands_alone() {
    let Some(dir) = common::corpus_dir("ifp") else {
        return;
    };
    let first = animkit::open(dir.join("weaponsprint_anp3.ifp")).unwrap().to_model().unwrap();
    let text = export(&first, "gltf");
    let doc = animkit::read(Bytes::from(text.clone()), None, &ReadOptions::default()).unwrap();
    assert_eq!(doc.write().unwrap(), text, "a read document writes its bytes back");
    let packed = animkit::pack(animkit::dump(doc.as_ref()).unwrap()).unwrap();
    assert_eq!(packed.write().unwrap(), text, "dump → pack → write");

    let glb = export(&first, "glb");
    let doc = animkit::read(Bytes::from(glb.clone()), None, &ReadOptions::default()).unwrap();
    assert_eq!(doc.write().unwrap(), glb);
    assert!(doc.version().starts_with("GLB"));
    let packed = animkit::pack(animkit::dump(doc.as_ref()).unwrap()).unwrap();
    assert_eq!(packed.to_model().unwrap(), doc.to_model().unwrap());
}

/// A two-bone rig written by hand (independent of the exporter): `hip` at the origin with child
/// `knee` 0.5 m below; the knee turns 90° about X over 1 s (LINEAR), the hip translation steps.
fn two_bone_rig() -> Vec<u8> {
    let mut bin: Vec<u8> = Vec::new();
    let mut put = |floats: &[f32]| {
        let at = bin.len();
        for f in floats {
            bin.extend_from_slice(&f.to_le_bytes());
        }
        at
    };
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let times = put(&[0.0, 1.0]);
    let rots = put(&[0.0, 0.0, 0.0, 1.0, h, 0.0, 0.0, h]);
    let steps = put(&[0.0, 0.5]);
    let trans = put(&[0.0, 1.0, 0.0, 0.0, 1.2, 0.0]);
    let ibm = put(&[
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0, // hip at y = 1
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -0.5, 0.0, 1.0, // knee at y = 0.5
    ]);
    let json = json!({
        "asset": {"version": "2.0", "generator": "hand-written test rig"},
        "scene": 0,
        "scenes": [{"name": "rig", "nodes": [0]}],
        "nodes": [
            {"name": "Armature", "children": [1]},
            {"name": "hip", "translation": [0.0, 1.0, 0.0], "children": [2]},
            {"name": "knee", "translation": [0.0, -0.5, 0.0]}
        ],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": 4}],
        "animations": [{
            "name": "kick",
            "channels": [
                {"sampler": 0, "target": {"node": 2, "path": "rotation"}},
                {"sampler": 1, "target": {"node": 1, "path": "translation"}}
            ],
            "samplers": [
                {"input": 0, "output": 1},
                {"input": 2, "output": 3, "interpolation": "STEP"}
            ]
        }],
        "accessors": [
            {"bufferView": 0, "byteOffset": times, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 0, "byteOffset": rots, "componentType": 5126, "count": 2, "type": "VEC4"},
            {"bufferView": 0, "byteOffset": steps, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [0.5]},
            {"bufferView": 0, "byteOffset": trans, "componentType": 5126, "count": 2, "type": "VEC3"},
            {"bufferView": 0, "byteOffset": ibm, "componentType": 5126, "count": 2, "type": "MAT4"}
        ],
        "bufferViews": [{"buffer": 0, "byteLength": bin.len()}],
        "buffers": [{"byteLength": bin.len()}]
    });
    // GLB by hand: header, JSON chunk padded with spaces, BIN chunk padded with zeros.
    let mut text = serde_json::to_vec(&json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}

#[test]
fn hand_made_two_bone_rig_imports() {
    let p = import(two_bone_rig(), "rig.glb");
    assert_eq!(p.name, "rig");
    assert_eq!(p.up_axis, UpAxis::Y);
    let skel = p.skeleton.as_ref().unwrap();
    // The skin's joints are the bones, in joint order: the non-joint ancestor "Armature" (the
    // armature object, as Blender writes it) is not a bone, so no index shifts by one.
    let names: Vec<_> = skel.bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["hip", "knee"]);
    assert_eq!(skel.bones[0].parent, None);
    assert_eq!(skel.bones[1].parent, Some(0));
    assert_eq!(skel.bones[1].rest.translation, Vec3::new(0.0, -0.5, 0.0));
    let clip = &p.clips[0];
    assert_eq!(clip.name, "kick");
    assert_eq!(clip.duration, 1.0);
    let rot = &clip.tracks[0];
    assert_eq!(rot.target, Target::Bone(BoneRef::named("knee")));
    assert_eq!(rot.interpolation, Interpolation::Slerp);
    // Halfway through a 90° turn about X: 45°, i.e. (sin 22.5°, 0, 0, cos 22.5°).
    let Some(Sampled::Rotation(q)) = sample_track(rot, 0.5) else { panic!() };
    assert!(Vec4::from(q).abs_diff_eq(Vec4::new(0.382_683_43, 0.0, 0.0, 0.923_879_5), 1e-6), "{q}");
    let step = &clip.tracks[1];
    assert_eq!(step.interpolation, Interpolation::Step);
    assert_eq!(sample_track(step, 0.49), Some(Sampled::Translation(Vec3::new(0.0, 1.0, 0.0))));
    assert_eq!(sample_track(step, 0.5), Some(Sampled::Translation(Vec3::new(0.0, 1.2, 0.0))));
    // And back out: the export of the import imports to the same model.
    let again = import(export(&p, "glb"), "again.glb");
    assert_eq!(again.clips, p.clips);
    assert_eq!(again.skeleton, p.skeleton);
}

#[test]
fn non_transform_and_nlerp_tracks_survive_a_round_trip() {
    let q = |a: f32| Quat::from_rotation_y(a);
    let clip = Clip {
        name: "mixed".into(),
        duration: 2.5,
        looping: Some(true),
        additive: true,
        frame_rate: Some(30.0),
        tracks: vec![
            Track {
                target: Target::Material { material: "m".into(), property: "tex".into() },
                interpolation: Interpolation::Step,
                times: vec![0.0, 1.0],
                values: Values::TextureIndex { indices: vec![1, 0], textures: vec!["x".into(), "y".into()].into() },
            },
            Track {
                target: Target::Bone(BoneRef { hash: Some(0xDEADBEEF), ..Default::default() }),
                interpolation: Interpolation::Nlerp,
                times: vec![0.0, 1.0, 2.0],
                values: Values::Rotation(vec![q(0.0), q(1.4), q(-0.5)]),
            },
            Track {
                target: Target::Bone(BoneRef::named("b")),
                interpolation: Interpolation::Step,
                times: vec![0.0, 0.5],
                values: Values::Visibility(vec![true, false]),
            },
            Track {
                target: Target::Bone(BoneRef::named("b")),
                interpolation: Interpolation::Linear,
                times: vec![-0.5, 0.5, 0.5, 1.0],
                values: Values::Scale(vec![Vec3::ONE, Vec3::splat(2.0), Vec3::splat(3.0), Vec3::ONE]),
            },
        ],
        ..Default::default()
    };
    let empty = Clip { name: "empty".into(), duration: 1.0, ..Default::default() };
    let package =
        Package { name: "p".into(), up_axis: UpAxis::Y, clips: vec![empty.clone(), clip.clone()], skeleton: None };
    let back = import(export(&package, "gltf"), "p.gltf");
    assert_eq!(back.clips[0], empty);
    let c = &back.clips[1];
    assert_eq!((c.duration, c.looping, c.additive, c.frame_rate), (2.5, Some(true), true, Some(30.0)));
    assert_eq!(c.tracks[0], clip.tracks[0]);
    assert_eq!(c.tracks[2], clip.tracks[2]);
    let nl = &c.tracks[1];
    assert_eq!(nl.target, clip.tracks[1].target);
    assert_eq!(nl.interpolation, Interpolation::Nlerp);
    assert!(nl.times.len() > 3, "resampled");
    for i in 0..=200 {
        let t = i as f32 * 0.01;
        let (Some(a), Some(b)) = (sample_track(&clip.tracks[1], t), sample_track(nl, t)) else { panic!() };
        // 1e-5 rad bound on the rotation angle ≈ 5e-6 on quaternion components.
        assert!(sampled_diff(a, b) <= 1e-5, "t={t}: {a:?} vs {b:?}");
    }
    let sc = &c.tracks[3];
    for (t, e) in sc.times.iter().zip([0.0, 0.5, 0.5001, 1.0]) {
        assert!((t - e).abs() < 1e-6, "{:?}", sc.times);
    }
    assert_eq!(sample_track(sc, 0.0), sample_track(&clip.tracks[3], 0.0));
}

#[test]
fn damaged_gltf_gives_errors_not_panics() {
    let glb = two_bone_rig();
    for cut in (0..glb.len()).step_by(3) {
        let r = gltf().read(Bytes::from(glb[..cut].to_vec()), &ReadOptions::default());
        assert!(r.is_err(), "cut at {cut}");
    }
    // Out-of-range numbers in the JSON: every one is an error.
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let base: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin = &glb[20 + json_len + 8..];
    let edits: &[(&str, Value)] = &[
        ("/accessors/1/count", json!(1u64 << 40)),
        ("/accessors/1/byteOffset", json!(u64::MAX)),
        ("/accessors/0/bufferView", json!(9)),
        ("/bufferViews/0/byteLength", json!(1 << 20)),
        ("/bufferViews/0/byteStride", json!(1)),
        ("/animations/0/channels/0/sampler", json!(7)),
        ("/animations/0/channels/0/target/node", json!(99)),
        ("/nodes/2/children", json!([0])),
        ("/skins/0/joints", json!([5])),
        ("/animations/0/samplers/0/interpolation", json!("BOUNCY")),
        ("/accessors/1/type", json!("VEC3")),
    ];
    for (pointer, value) in edits {
        let mut j = base.clone();
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        j.pointer_mut(parent).unwrap()[key] = value.clone();
        let mut text = serde_json::to_vec(&j).unwrap();
        while !text.len().is_multiple_of(4) {
            text.push(b' ');
        }
        let mut out = Vec::new();
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&((12 + 8 + text.len() + 8 + bin.len()) as u32).to_le_bytes());
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&text);
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(bin);
        let doc = gltf().read(Bytes::from(out), &ReadOptions::default()).unwrap();
        assert!(doc.to_model().is_err(), "{pointer} = {value}");
    }
}

/// Timing of the export of every clip of `sa_ped_anp3.ifp` to one GLB. Run with
/// `cargo test --release -p animkit --test gltf_roundtrip -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_export_sa_ped_to_one_glb() {
    let Some(dir) = common::corpus_dir("ifp") else {
        return;
    };
    let package = animkit::open(dir.join("sa_ped_anp3.ifp")).unwrap().to_model().unwrap();
    let mut best = f64::INFINITY;
    let mut size = 0;
    for _ in 0..5 {
        let start = std::time::Instant::now();
        let bytes = export(&package, "glb");
        best = best.min(start.elapsed().as_secs_f64());
        size = bytes.len();
    }
    eprintln!("{} clips → one GLB of {size} bytes in {:.1} ms (best of 5)", package.clips.len(), best * 1e3);
}

#[test]
fn z_up_skeleton_round_trips_without_the_correction_node() {
    use animkit::model::{Bone, Skeleton, Transform};
    let bones = vec![
        Bone { name: "root".into(), id: Some(0), ..Default::default() },
        Bone {
            name: "arm".into(),
            id: Some(22),
            hash: Some(0x1234_5678),
            parent: Some(0),
            rest: Transform {
                translation: Vec3::new(0.1, 0.2, 0.3),
                rotation: Quat::from_rotation_z(0.3),
                scale: Vec3::new(1.0, 2.0, 1.0),
            },
        },
        Bone { name: "spare".into(), parent: Some(0), ..Default::default() },
    ];
    let clip = Clip {
        name: "wave".into(),
        duration: 1.0,
        tracks: vec![Track {
            // Bound by id only: the node is "arm"; the reference is kept in the channel extras.
            target: Target::Bone(BoneRef { id: Some(22), ..Default::default() }),
            interpolation: Interpolation::Slerp,
            times: vec![0.0, 1.0],
            values: Values::Rotation(vec![Quat::IDENTITY, Quat::from_rotation_x(1.0)]),
        }],
        ..Default::default()
    };
    let package =
        Package { name: "z".into(), up_axis: UpAxis::Z, clips: vec![clip], skeleton: Some(Skeleton { bones }) };
    let back = import(export(&package, "glb"), "z.glb");
    assert_eq!(back, package);
}
