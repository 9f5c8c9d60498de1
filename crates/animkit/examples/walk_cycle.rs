//! Generates the bundled example files from code (no game data):
//!
//! - `examples/walk_cycle.ifp`: a 1-second procedural walk cycle on a GTA-style ped skeleton,
//!   written as San Andreas ANP3 (compressed frames, bone tags as in `ped.ifp`);
//! - `examples/walk_cycle_rig.glb`: the skeleton it animates (rest pose), as glTF.
//!
//! Run from the repository root: `cargo run -p animkit --example walk_cycle`. The test
//! `tests/examples.rs` checks that the shipped files are exactly what this recipe produces.

use animkit::model::{Bone, BoneRef, Clip, Interpolation, Package, Skeleton, Target, Track, Transform, UpAxis, Values};
use animkit::{Format, WriteOptions};
use glam::{Quat, Vec3};

/// (name, bone tag, parent index, rest translation in metres; Z up, facing −Y).
const BONES: &[(&str, i32, Option<usize>, [f32; 3])] = &[
    ("Root", 0, None, [0.0, 0.0, 0.0]),
    ("Pelvis", 1, Some(0), [0.0, 0.0, 1.0]),
    ("Spine", 2, Some(1), [0.0, 0.0, 0.1]),
    ("Spine1", 3, Some(2), [0.0, 0.0, 0.2]),
    ("Neck", 4, Some(3), [0.0, 0.0, 0.25]),
    ("Head", 5, Some(4), [0.0, 0.0, 0.1]),
    ("Bip01 R Clavicle", 21, Some(3), [-0.05, 0.0, 0.2]),
    ("R UpperArm", 22, Some(6), [-0.15, 0.0, 0.0]),
    ("R Forearm", 23, Some(7), [0.0, 0.0, -0.28]),
    ("R Hand", 24, Some(8), [0.0, 0.0, -0.25]),
    ("Bip01 L Clavicle", 31, Some(3), [0.05, 0.0, 0.2]),
    ("L UpperArm", 32, Some(10), [0.15, 0.0, 0.0]),
    ("L Forearm", 33, Some(11), [0.0, 0.0, -0.28]),
    ("L Hand", 34, Some(12), [0.0, 0.0, -0.25]),
    ("L Thigh", 41, Some(1), [0.1, 0.0, -0.05]),
    ("L Calf", 42, Some(14), [0.0, 0.0, -0.45]),
    ("L Foot", 43, Some(15), [0.0, 0.0, -0.45]),
    ("R Thigh", 51, Some(1), [-0.1, 0.0, -0.05]),
    ("R Calf", 52, Some(17), [0.0, 0.0, -0.45]),
    ("R Foot", 53, Some(18), [0.0, 0.0, -0.45]),
];

/// The rotation of a bone at phase `p` (radians over one cycle), about the bone's local axes.
fn pose(name: &str, p: f32) -> Quat {
    let deg = f32::to_radians;
    let (s, c) = p.sin_cos();
    match name {
        "L Thigh" => Quat::from_rotation_x(deg(25.0) * s),
        "R Thigh" => Quat::from_rotation_x(deg(-25.0) * s),
        "L Calf" => Quat::from_rotation_x(deg(-15.0) * (1.0 + c)),
        "R Calf" => Quat::from_rotation_x(deg(-15.0) * (1.0 - c)),
        "L Foot" => Quat::from_rotation_x(deg(-10.0) * s),
        "R Foot" => Quat::from_rotation_x(deg(10.0) * s),
        "L UpperArm" => Quat::from_rotation_x(deg(-20.0) * s),
        "R UpperArm" => Quat::from_rotation_x(deg(20.0) * s),
        "L Forearm" | "R Forearm" => Quat::from_rotation_x(deg(15.0) + deg(5.0) * s),
        "Spine1" => Quat::from_rotation_z(deg(6.0) * s),
        "Pelvis" => Quat::from_rotation_z(deg(-4.0) * s),
        _ => Quat::IDENTITY,
    }
}

pub fn skeleton() -> Skeleton {
    let bones = BONES
        .iter()
        .map(|&(name, tag, parent, t)| Bone {
            name: name.to_string(),
            id: Some(tag),
            hash: None,
            parent,
            rest: Transform { translation: Vec3::from(t), ..Default::default() },
        })
        .collect();
    Skeleton { bones }
}

/// The walk cycle: 31 keys over 1 s (30 per second), every bone rotated, the pelvis bobbing.
pub fn walk_cycle() -> Package {
    let times: Vec<f32> = (0..=30).map(|k| k as f32 / 30.0).collect();
    let phase = |t: f32| t * std::f32::consts::TAU;
    let mut tracks = Vec::new();
    for &(name, tag, _, rest) in BONES {
        let target = Target::Bone(BoneRef { name: Some(name.into()), id: Some(tag), ..Default::default() });
        let rotations = times.iter().map(|&t| pose(name, phase(t))).collect();
        tracks.push(Track {
            target: target.clone(),
            interpolation: Interpolation::Slerp,
            times: times.clone(),
            values: Values::Rotation(rotations),
        });
        if name == "Pelvis" {
            let bob = times.iter().map(|&t| Vec3::from(rest) + Vec3::Z * 0.03 * (2.0 * phase(t)).cos()).collect();
            tracks.push(Track {
                target,
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values: Values::Translation(bob),
            });
        }
    }
    let clip = Clip { name: "walk_cycle".into(), duration: 1.0, looping: Some(true), tracks, ..Default::default() };
    Package { name: "example".into(), up_axis: UpAxis::Z, clips: vec![clip], skeleton: Some(skeleton()) }
}

/// The bytes of both example files: (walk_cycle.ifp, walk_cycle_rig.glb).
pub fn example_files() -> (Vec<u8>, Vec<u8>) {
    let package = walk_cycle();
    let ifp = animkit::formats::ifp::Ifp.from_model(&package, &WriteOptions::default()).unwrap();
    let rig = Package { name: "example_rig".into(), clips: Vec::new(), ..package };
    let glb = animkit::interchange::gltf::Gltf.from_model(&rig, &WriteOptions::default()).unwrap();
    (ifp.document.write().unwrap(), glb.document.write().unwrap())
}

#[allow(dead_code)]
fn main() {
    let (ifp, glb) = example_files();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    animkit::io::write_atomic(&dir.join("walk_cycle.ifp"), &ifp).unwrap();
    animkit::io::write_atomic(&dir.join("walk_cycle_rig.glb"), &glb).unwrap();
    println!(
        "wrote examples/walk_cycle.ifp ({} bytes) and examples/walk_cycle_rig.glb ({} bytes)",
        ifp.len(),
        glb.len()
    );
}
