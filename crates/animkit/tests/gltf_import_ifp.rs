//! A glTF made by hand (a two-bone rig with a 1 s rotation, built here as JSON with an embedded
//! buffer) imports into the model and is written as ANP3 and as ANPK through the IFP format's
//! `from_model`; both files read back and sample as the same motion within IFP quantisation.

use animkit::interchange::gltf::base64_encode;
use animkit::model::{Channel, Package, Target};
use animkit::sample::{sample, Sampled};
use animkit::{Bytes, ReadOptions, WriteOptions};
use glam::{Quat, Vec3, Vec4};
use serde_json::json;

/// Key times, the lower bone's rotation (about Z, 0 → 90° over 1 s in four keys: the glTF's
/// LINEAR slerp between them) and the root's translation.
fn keys() -> (Vec<f32>, Vec<Quat>, Vec<Vec3>) {
    let times = vec![0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0];
    let rotations = times.iter().map(|t| Quat::from_rotation_z(t * std::f32::consts::FRAC_PI_2)).collect();
    let translations = times.iter().map(|t| Vec3::new(0.0, 0.25 * t, 1.0)).collect();
    (times, rotations, translations)
}

/// The rig as a `.gltf`: node 0 `Pelvis` (root, at 1 m), node 1 `Spine` (child, 0.5 m up), a skin
/// over both, one animation `bend` with a LINEAR rotation on `Spine` and a LINEAR translation on
/// `Pelvis`. Buffer layout (little-endian f32): times 16 B, rotations 64 B, translations 48 B.
fn hand_made_gltf() -> Vec<u8> {
    let (times, rotations, translations) = keys();
    let mut bin: Vec<u8> = Vec::new();
    let mut put = |v: &[f32]| v.iter().for_each(|x| bin.extend_from_slice(&x.to_le_bytes()));
    put(&times);
    rotations.iter().for_each(|q| put(&q.to_array()));
    translations.iter().for_each(|t| put(&t.to_array()));
    let uri = format!("data:application/octet-stream;base64,{}", base64_encode(&bin));
    let gltf = json!({
        "asset": {"version": "2.0", "generator": "animkit test (by hand)"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "Pelvis", "translation": [0.0, 0.0, 1.0], "children": [1]},
            {"name": "Spine", "translation": [0.0, 0.5, 0.0]}
        ],
        "buffers": [{"byteLength": bin.len(), "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 16},
            {"buffer": 0, "byteOffset": 16, "byteLength": 64},
            {"buffer": 0, "byteOffset": 80, "byteLength": 48}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC3"}
        ],
        "animations": [{
            "name": "bend",
            "samplers": [
                {"input": 0, "output": 1, "interpolation": "LINEAR"},
                {"input": 0, "output": 2, "interpolation": "LINEAR"}
            ],
            "channels": [
                {"sampler": 0, "target": {"node": 1, "path": "rotation"}},
                {"sampler": 1, "target": {"node": 0, "path": "translation"}}
            ]
        }]
    });
    serde_json::to_vec_pretty(&gltf).unwrap()
}

fn pose(p: &Package, t: f32) -> Vec<(String, Channel, Sampled)> {
    let clip = p.clip("bend").expect("clip bend");
    let mut out: Vec<_> = sample(clip, t)
        .into_iter()
        .filter_map(|e| match &e.target {
            Target::Bone(b) => Some((b.name.clone()?.trim().to_string(), channel(&e.value), e.value)),
            _ => None,
        })
        .collect();
    out.sort_by(|a, b| (a.0.as_str(), a.1 as u8).cmp(&(b.0.as_str(), b.1 as u8)));
    out
}

fn channel(v: &Sampled) -> Channel {
    match v {
        Sampled::Rotation(_) => Channel::Rotation,
        Sampled::Translation(_) => Channel::Translation,
        Sampled::Scale(_) => Channel::Scale,
        Sampled::Scalar(_) => Channel::Scalar,
        Sampled::TextureIndex(_) => Channel::TextureIndex,
        Sampled::Visibility(_) => Channel::Visibility,
        _ => panic!("a sampled kind this test does not know: {v:?}"),
    }
}

fn difference(a: &Sampled, b: &Sampled) -> f32 {
    match (a, b) {
        (Sampled::Rotation(p), Sampled::Rotation(q)) => {
            let (p, q) = (Vec4::from(*p), Vec4::from(*q));
            (p - q).abs().max_element().min((p + q).abs().max_element())
        }
        (Sampled::Translation(p), Sampled::Translation(q)) => (*p - *q).abs().max_element(),
        _ => f32::INFINITY,
    }
}

#[test]
fn hand_made_gltf_writes_anp3_and_anpk_that_sample_the_same_motion() {
    let gltf = animkit::REGISTRY.by_name("gltf").unwrap().0;
    let doc = gltf.read(Bytes::from(hand_made_gltf()), &ReadOptions::default()).unwrap();
    let imported = doc.to_model().unwrap();
    assert_eq!(imported.clips.len(), 1);
    let skel = imported.skeleton.as_ref().expect("the node tree is a skeleton");
    let names: Vec<_> = skel.bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Pelvis", "Spine"]);
    assert_eq!(skel.bones[1].parent, Some(0));
    // The import itself plays the hand-made keys: 45° about Z at 0.5 s (slerp between the keys
    // at 30° and 60°), and the root halfway up its 0.25 m rise.
    let mid = pose(&imported, 0.5);
    let expected_q = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4);
    assert!(
        mid.iter().any(|(n, _, v)| n == "Spine" && difference(v, &Sampled::Rotation(expected_q)) < 1e-6),
        "{mid:?}"
    );
    assert!(mid
        .iter()
        .any(|(n, _, v)| n == "Pelvis" && difference(v, &Sampled::Translation(Vec3::new(0.0, 0.125, 1.0))) < 1e-6));

    let (ifp, _) = animkit::REGISTRY.by_name("ifp").unwrap();
    for variant in ["anp3", "anpk"] {
        let options = WriteOptions::default().with_variant(variant);
        let written = ifp.from_model(&imported, &options).unwrap_or_else(|e| panic!("{variant}: {e}"));
        let bytes = written.document.write().unwrap();
        assert_eq!(&bytes[..4], variant.to_ascii_uppercase().as_bytes(), "{variant}: magic");
        // Read back through the registry (probe included), as `animkit info`/`sample` do.
        let back = animkit::read(Bytes::from(bytes.clone()), None, &ReadOptions::default()).unwrap();
        assert_eq!(back.format().name(), "ifp");
        assert_eq!(back.version().to_ascii_lowercase(), variant, "{variant}");
        assert_eq!(back.write().unwrap(), bytes, "{variant}: byte-identical rewrite");
        let model = back.to_model().unwrap();
        let clip = model.clip("bend").unwrap();
        assert!((clip.last_key_time() - 1.0).abs() < 1.0 / 60.0, "{variant}: duration {}", clip.last_key_time());
        // Quantisation: ANP3 compressed rotations are trunc(q·4096) (≤ 1/4096 per component),
        // translations trunc(v·1024) (≤ 1/1024); the key times (multiples of 1/60 s) are exact.
        // ANPK stores floats.
        let tolerance = if variant == "anp3" { 1.0 / 1024.0 } else { 1e-5 };
        let mut worst = 0f32;
        for k in 0..=40 {
            let t = k as f32 / 40.0;
            let (a, b) = (pose(&imported, t), pose(&model, t));
            for (nb, cb, vb) in &b {
                // IFP frames always carry a rotation: a bone the glTF only moves gets its rest
                // rotation (the node's, identity here).
                let va = match a.iter().find(|(na, ca, _)| na == nb && ca == cb) {
                    Some((_, _, va)) => *va,
                    None => {
                        let bone = skel.bones.iter().find(|x| &x.name == nb).unwrap();
                        assert_eq!(*cb, Channel::Rotation, "{variant}: unexpected {nb} {cb:?}");
                        Sampled::Rotation(bone.rest.rotation)
                    }
                };
                let d = difference(&va, vb);
                worst = worst.max(d);
                assert!(d <= tolerance, "{variant} t={t} {nb} {cb:?}: {va:?} vs {vb:?} ({d})");
            }
            for (na, ca, _) in &a {
                assert!(b.iter().any(|(nb, cb, _)| nb == na && cb == ca), "{variant}: {na} {ca:?} lost");
            }
        }
        eprintln!("{variant}: {} bytes, worst difference from the glTF {worst:e}", bytes.len());
    }
}
