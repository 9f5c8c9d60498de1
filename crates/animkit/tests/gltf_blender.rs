//! A GLB shaped like Blender's glTF export of an animkit file comes back into the game formats
//! correctly. Blender's exporter (4.5, default settings) writes: its armature object as a node
//! that is not a skin joint, above the joints; translation, rotation and scale channels for every
//! joint, constant at the rest pose where the clip did not move the bone; keys on its scene's
//! 24 fps frames; no node or animation extras (without "Include → Custom Properties"); and
//! rotation keys whose sign may alternate (q, −q). The file is built here, from a four-bone
//! Z-up rig whose 30 fps clip moves only `Root` (translation) and `Spine` (rotation).

mod common;

use animkit::interchange::gltf::base64_encode;
use animkit::model::{Bone, BoneRef, Clip, Interpolation, Package, Skeleton, Target, Track, Transform, UpAxis, Values};
use animkit::sample::{sample_track, Sampled};
use animkit::{Bytes, ReadOptions, WriteOptions};
use glam::{Quat, Vec3, Vec4};
use serde_json::{json, Value};

/// The rig: Root (tag 0) → Pelvis (tag 1, 1 m up, turned 90° about X) → Spine (tag 2, 0.2 m up)
/// and Pelvis → Head (tag 5, 0.5 m up). The tags are GTA bone tags.
fn rig() -> Skeleton {
    let bone = |name: &str, id, parent, translation, rotation| Bone {
        name: name.into(),
        id: Some(id),
        hash: None,
        parent,
        rest: Transform { translation, rotation, scale: Vec3::ONE },
    };
    Skeleton {
        bones: vec![
            bone("Root", 0, None, Vec3::ZERO, Quat::IDENTITY),
            bone("Pelvis", 1, Some(0), Vec3::new(0.0, 0.0, 1.0), Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
            bone("Spine", 2, Some(1), Vec3::new(0.0, 0.2, 0.0), Quat::IDENTITY),
            bone("Head", 5, Some(1), Vec3::new(0.0, 0.5, 0.0), Quat::from_rotation_z(0.1)),
        ],
    }
}

/// The original clip, 30 fps, 1 s: Root walks 0.6 m along Y, Spine bends 60° about X.
fn original() -> Clip {
    let times: Vec<f32> = (0..=30).map(|k| k as f32 / 30.0).collect();
    let track = |name: &str, id, values| Track {
        target: Target::Bone(BoneRef { name: Some(name.into()), id: Some(id), ..Default::default() }),
        interpolation: if matches!(values, Values::Rotation(_)) { Interpolation::Slerp } else { Interpolation::Linear },
        times: times.clone(),
        values,
    };
    Clip {
        name: "walk".into(),
        duration: 1.0,
        frame_rate: Some(30.0),
        tracks: vec![
            track("Root", 0, Values::Translation(times.iter().map(|t| Vec3::new(0.0, 0.6 * t, 0.0)).collect())),
            track("Spine", 2, Values::Rotation(times.iter().map(|t| Quat::from_rotation_x(1.047 * t)).collect())),
        ],
        ..Default::default()
    }
}

/// The value Blender writes for `bone`'s `channel` at time `t`: the clip's, else the rest pose.
fn blender_value(clip: &Clip, bone: &Bone, path: &str, t: f32) -> Vec<f32> {
    let tracked = clip.tracks.iter().find(|tr| {
        tr.target.bone().and_then(|b| b.name.as_deref()) == Some(bone.name.as_str())
            && matches!((path, &tr.values), ("rotation", Values::Rotation(_)) | ("translation", Values::Translation(_)))
    });
    match (path, tracked.and_then(|tr| sample_track(tr, t))) {
        (_, Some(Sampled::Rotation(q))) => q.to_array().to_vec(),
        (_, Some(Sampled::Translation(v))) => v.to_array().to_vec(),
        ("rotation", _) => bone.rest.rotation.to_array().to_vec(),
        ("translation", _) => bone.rest.translation.to_array().to_vec(),
        _ => bone.rest.scale.to_array().to_vec(),
    }
}

/// The Blender-like GLB: node 0 `animkit_z_up` (−90° about X, as animkit writes it, its extras
/// gone), node 1 `Armature` (not a joint), nodes 2–5 the bones (skin joints), node 6 the skinned
/// mesh; one animation with T/R/S for every joint at 24 fps, rotations alternating in sign.
fn blender_glb(skeleton: &Skeleton, clip: &Clip) -> Vec<u8> {
    let mut bin: Vec<u8> = Vec::new();
    let mut accessors = Vec::new();
    let mut put = |floats: &[f32], ty: &str, count: usize, bin: &mut Vec<u8>| {
        let offset = bin.len();
        floats.iter().for_each(|f| bin.extend_from_slice(&f.to_le_bytes()));
        accessors
            .push(json!({"bufferView": 0, "byteOffset": offset, "componentType": 5126, "count": count, "type": ty}));
        accessors.len() - 1
    };
    let times: Vec<f32> = (0..=24).map(|k| k as f32 / 24.0).collect();
    let input = put(&times, "SCALAR", times.len(), &mut bin);
    let (mut samplers, mut channels) = (Vec::new(), Vec::new());
    for (b, bone) in skeleton.bones.iter().enumerate() {
        for path in ["translation", "rotation", "scale"] {
            let mut values = Vec::new();
            for (k, &t) in times.iter().enumerate() {
                let v = blender_value(clip, bone, path, t);
                // Blender's q, −q: every other rotation key negated.
                let sign = if path == "rotation" && k % 2 == 1 { -1.0 } else { 1.0 };
                values.extend(v.iter().map(|x| x * sign));
            }
            let ty = if path == "rotation" { "VEC4" } else { "VEC3" };
            let output = put(&values, ty, times.len(), &mut bin);
            samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
            channels.push(json!({"sampler": samplers.len() - 1, "target": {"node": 2 + b, "path": path}}));
        }
    }
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let mut nodes = vec![
        json!({"name": "animkit_z_up", "rotation": [-h, 0.0, 0.0, h], "children": [1, 2 + skeleton.bones.len()]}),
        json!({"name": "Armature", "children": [2]}),
    ];
    for (b, bone) in skeleton.bones.iter().enumerate() {
        let children: Vec<usize> =
            skeleton.bones.iter().enumerate().filter(|(_, c)| c.parent == Some(b)).map(|(i, _)| 2 + i).collect();
        let mut node = json!({
            "name": bone.name,
            "translation": bone.rest.translation.to_array(),
            "rotation": bone.rest.rotation.to_array(),
            "scale": bone.rest.scale.to_array(),
        });
        if !children.is_empty() {
            node["children"] = json!(children);
        }
        nodes.push(node);
    }
    nodes.push(json!({"name": "Body", "skin": 0}));
    let joints: Vec<usize> = (0..skeleton.bones.len()).map(|b| 2 + b).collect();
    let gltf = json!({
        "asset": {"version": "2.0", "generator": "Khronos glTF Blender I/O v4.5.47"},
        "scene": 0,
        "scenes": [{"name": "Scene", "nodes": [0]}],
        "nodes": nodes,
        "skins": [{"name": "Armature", "joints": joints}],
        "animations": [{"name": "walk", "channels": channels, "samplers": samplers}],
        "accessors": accessors,
        "bufferViews": [{"buffer": 0, "byteLength": bin.len()}],
        "buffers": [{"byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{}", base64_encode(&bin))}],
    });
    serde_json::to_vec(&gltf).unwrap()
}

fn import(bytes: Vec<u8>, params: &[(&str, &str)]) -> (Package, Vec<String>) {
    let gltf = animkit::REGISTRY.by_name("gltf").unwrap().0;
    let mut options = ReadOptions::default();
    options.params.extend(params.iter().map(|&(k, v)| (k.to_string(), v.to_string())));
    gltf.read(Bytes::from(bytes), &options).unwrap().to_model_with_warnings().unwrap()
}

/// `package` written as `name` (a format or variant) and its bytes read back.
fn rewrite(package: &Package, name: &str) -> (Vec<u8>, Package, Vec<String>) {
    let (format, variant) = animkit::REGISTRY.by_name(name).unwrap();
    let mut options = WriteOptions::default();
    options.variant = variant.map(str::to_string);
    let written = format.from_model(package, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
    let bytes = written.document.write().unwrap();
    let back = format.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap().to_model().unwrap();
    (bytes, back, written.warnings)
}

/// The rotation angle between two quaternions (either sign), in degrees.
fn angle(a: Quat, b: Quat) -> f32 {
    let (a, b) = (Vec4::from(a).normalize(), Vec4::from(b).normalize());
    2.0 * a.dot(b).abs().min(1.0).acos().to_degrees()
}

/// The worst rotation (degrees) and translation (m) error of `got` against the original clip at
/// the original's 30 fps frames, bone by bone as `find` pairs them; bones without a track in
/// `got` hold their rest pose.
fn worst_error(got: &Clip, find: &dyn Fn(&Track, &Bone) -> bool) -> (f32, f32) {
    let (clip, skeleton) = (original(), rig());
    let (mut rot, mut tra) = (0f32, 0f32);
    for k in 0..=30 {
        let t = k as f32 / 30.0;
        for bone in &skeleton.bones {
            for path in ["rotation", "translation"] {
                let expected = blender_value(&clip, bone, path, t);
                let theirs = got.tracks.iter().find(|tr| {
                    find(tr, bone)
                        && matches!(
                            (path, &tr.values),
                            ("rotation", Values::Rotation(_)) | ("translation", Values::Translation(_))
                        )
                });
                match (theirs.and_then(|tr| sample_track(tr, t)), path) {
                    (Some(Sampled::Rotation(q)), _) => rot = rot.max(angle(q, Quat::from_slice(&expected))),
                    (Some(Sampled::Translation(v)), _) => tra = tra.max((v - Vec3::from_slice(&expected)).length()),
                    (None, "rotation") => rot = rot.max(angle(bone.rest.rotation, Quat::from_slice(&expected))),
                    _ => tra = tra.max((bone.rest.translation - Vec3::from_slice(&expected)).length()),
                }
            }
        }
    }
    (rot, tra)
}

fn by_name(track: &Track, bone: &Bone) -> bool {
    track.target.bone().and_then(|b| b.name.as_deref()).is_some_and(|n| n.trim() == bone.name)
}

#[test]
fn blender_like_glb_imports_joints_only_with_continuous_rotations_and_no_rest_tracks() {
    let skeleton = rig();
    let (package, warnings) = import(blender_glb(&skeleton, &original()), &[("fps", "30")]);
    eprintln!("{warnings:#?}");
    assert_eq!(package.up_axis, UpAxis::Z, "the Z-up node is known by its name");
    let bones = package.skeleton.as_ref().unwrap();
    let names: Vec<&str> = bones.bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Root", "Pelvis", "Spine", "Head"], "the armature node is not a bone");
    assert_eq!(bones.bones[1].rest, skeleton.bones[1].rest);
    let clip = &package.clips[0];
    // 12 channels in the file; only Root's translation and Spine's rotation move.
    let kept: Vec<String> = clip.tracks.iter().map(|t| format!("{} {:?}", t.target.label(), t.channel())).collect();
    assert_eq!(kept, ["Root Translation", "Spine Rotation"]);
    assert!(warnings.iter().any(
        |w| w.starts_with("dropped 10 constant tracks equal to the rest pose: 3 rotation, 3 translation, 4 scale")
    ));
    // Sign-continuous: consecutive keys in one hemisphere.
    let Values::Rotation(q) = &clip.tracks[1].values else { panic!() };
    assert!(q.windows(2).all(|w| w[0].dot(w[1]) > 0.0), "{q:?}");
    // At 30 fps, 24 fps frame k lies on a frame when 4 divides k: 18 of 25 keys per track lie
    // between frames and stay where Blender put them (moving them would add timing error).
    assert_eq!(clip.tracks[0].times[1], 1.0 / 24.0);
    assert!(warnings.iter().any(|w| w.starts_with("36 keys lie between the clips' 30 fps frames")), "{warnings:?}");
    // No ids in the node extras: one counted line naming Blender's option.
    let tags: Vec<&String> = warnings.iter().filter(|w| w.contains("Custom Properties")).collect();
    assert_eq!(tags.len(), 1);
    assert!(tags[0].starts_with("4 of 4 bones have no animkit id"), "{}", tags[0]);
    assert!(warnings.len() <= 4, "summarised: {warnings:#?}");

    // keep_constant=true keeps all 12.
    let (kept, _) = import(blender_glb(&skeleton, &original()), &[("keep_constant", "true")]);
    assert_eq!(kept.clips[0].tracks.len(), 12);
}

#[test]
fn blender_like_glb_converts_to_ifp_skb_caf_and_bfres() {
    let skeleton = rig();
    let (package, _) = import(blender_glb(&skeleton, &original()), &[("fps", "30")]);

    // IFP (ANP3): only Root carries translations (frame type 4); Spine is rotation only (type
    // 3); Pelvis and Head, which the clip does not move, are not in the file.
    let (bytes, back, warnings) = rewrite(&package, "anp3");
    assert!(warnings.is_empty(), "{warnings:?}");
    let ifp = animkit::read(Bytes::from(bytes), None, &ReadOptions::default()).unwrap().dump().unwrap();
    let sequences = ifp.pointer("/animations/0/sequences").and_then(Value::as_array).expect("sequences");
    let kinds: Vec<(String, String)> =
        sequences.iter().map(|s| (s["name"].as_str().unwrap_or("").to_string(), s["frame_type"].to_string())).collect();
    eprintln!("ANP3 sequences: {kinds:?}");
    assert_eq!(sequences.len(), 2, "{kinds:?}");
    let (ifp_rot, ifp_tra) = worst_error(&back.clips[0], &by_name);

    // SKB: four bones in joint order (no shift by the armature node); Spine's motion on bone 2.
    let (_, skb, warnings) = rewrite(&package, "skb-be");
    eprintln!("SKB warnings: {warnings:?}");
    let clip = &skb.clips[0];
    let indices: Vec<u32> = clip.tracks.iter().filter_map(|t| t.target.bone()?.index).collect();
    assert_eq!(indices.iter().max(), Some(&3), "bone count 4: {indices:?}");
    let by_index = |track: &Track, bone: &Bone| {
        track.target.bone().and_then(|b| b.index).map(|i| i as usize)
            == rig().bones.iter().position(|b| b.name == bone.name)
    };
    let (skb_rot, skb_tra) = worst_error(clip, &by_index);

    let (_, caf, _) = rewrite(&package, "caf");
    let (caf_rot, caf_tra) = worst_error(&caf.clips[0], &by_name);
    let (_, bfres, _) = rewrite(&package, "bfres");
    let (bfres_rot, bfres_tra) = worst_error(&bfres.clips[0], &by_name);
    eprintln!(
        "worst vs the 30 fps original: IFP {ifp_rot:.3}° {ifp_tra:.4} m, SKB {skb_rot:.3}° {skb_tra:.4} m, \
         CAF {caf_rot:.3}° {caf_tra:.4} m, BFRES {bfres_rot:.3}° {bfres_tra:.4} m"
    );
    // Bounds from each format's own rounding, nothing more (an index shift or a flipped
    // rotation would be tens of degrees). IFP: times in 1/60 s ticks, and k/24 s is 2.5·k ticks,
    // so odd keys move by half a tick (1/120 s: 0.5° of Spine's 60°/s, 5 mm of Root's 0.6 m/s),
    // plus 1/4096 per quaternion component and 1/1024 m. SKB: 1/32767 per component. CAF keys
    // sit on 30 fps frames, between Blender's 24 fps samples (measured 0.040°, the same with f32
    // rotations); BFRES stores these keys as floats.
    let bounds = [
        ("IFP", ifp_rot, ifp_tra, 0.55, 0.0062),
        ("SKB", skb_rot, skb_tra, 0.05, 1e-4),
        ("CAF", caf_rot, caf_tra, 0.05, 1e-4),
        ("BFRES", bfres_rot, bfres_tra, 0.01, 1e-4),
    ];
    for (what, rot, tra, max_rot, max_tra) in bounds {
        assert!(rot <= max_rot, "{what}: {rot}°");
        assert!(tra <= max_tra, "{what}: {tra} m");
    }
}

/// animkit's own Z-up export puts the skinned mesh under the Z-up node (Blender applies the
/// rotation once); the validator run in `gltf_node.rs` covers such files.
#[test]
fn z_up_export_puts_the_skinned_mesh_under_the_z_up_node() {
    let package = Package { name: "rig".into(), up_axis: UpAxis::Z, clips: vec![original()], skeleton: Some(rig()) };
    let (glb, _) = common::gltf::export_glb(&package);
    let json = common::gltf::glb_json(&glb);
    let nodes = json["nodes"].as_array().unwrap();
    let mesh = nodes.iter().position(|n| n.get("skin").is_some()).unwrap();
    assert_eq!(nodes[0]["name"], "animkit_z_up");
    assert!(nodes[0]["children"].as_array().unwrap().contains(&json!(mesh)));
    assert!(!json["scenes"][0]["nodes"].as_array().unwrap().contains(&json!(mesh)));
    // The bones hang from an identity node below the Z-up node: Blender makes the joints' parent
    // its armature object and places bones by world transforms (blender/tests checks it stands).
    assert_eq!(nodes[1]["name"], "animkit_root");
    assert!(nodes[0]["children"].as_array().unwrap().contains(&json!(1)));
    assert!(nodes[1].get("rotation").is_none() && nodes[1].get("translation").is_none());
    let joints = json["skins"][0]["joints"].as_array().unwrap();
    assert!(nodes[1]["children"].as_array().unwrap().contains(&joints[0]));
    if let Some(tools) = common::gltf::tools() {
        let dir = common::gltf::temp_dir("blender-z-up");
        let path = dir.join("z.glb");
        std::fs::write(&path, &glb).unwrap();
        common::gltf::validate_clean(&tools, &[path]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
