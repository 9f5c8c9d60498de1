//! A RenderWare clump built by hand here (`evilengine.md` §6.1: FrameList + HAnim PLG) read as a
//! skeleton source through the public `dff` format.

use animkit::format::{Document, ReadOptions};
use animkit::{Bytes, REGISTRY};
use glam::Vec3;

/// RenderWare chunk types.
const CLUMP: u32 = 0x10;
const FRAME_LIST: u32 = 0x0E;
const STRUCT: u32 = 0x01;
const EXTENSION: u32 = 0x03;
const HANIM_PLG: u32 = 0x11E;

/// Reads `bytes` with the `dff` format.
fn read_dff(bytes: &[u8]) -> animkit::Result<Box<dyn Document>> {
    REGISTRY.by_name("dff").unwrap().0.read(Bytes::copy_from_slice(bytes), &ReadOptions::default())
}

fn chunk(kind: u32, body: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&kind.to_le_bytes());
    v.extend_from_slice(&(body.len() as u32).to_le_bytes());
    v.extend_from_slice(&0x1003_FFFFu32.to_le_bytes());
    v.extend_from_slice(body);
    v
}

#[test]
fn reads_a_two_node_clump() {
    let mut frames = 3u32.to_le_bytes().to_vec();
    // Frame 0: clump root; frame 1: node 0 (id 10), turned 90° about Z (right = +Y, up = −X);
    // frame 2: node 1 (id 11) at (0, 2, 0).
    let mats: [([f32; 9], [f32; 3], i32); 3] = [
        ([1., 0., 0., 0., 1., 0., 0., 0., 1.], [0.; 3], -1),
        ([0., 1., 0., -1., 0., 0., 0., 0., 1.], [1., 0., 0.], 0),
        ([1., 0., 0., 0., 1., 0., 0., 0., 1.], [0., 2., 0.], 1),
    ];
    for (m, p, parent) in mats {
        m.iter().chain(&p).for_each(|v| frames.extend_from_slice(&v.to_le_bytes()));
        frames.extend_from_slice(&parent.to_le_bytes());
        frames.extend_from_slice(&0u32.to_le_bytes());
    }
    let hanim = |id: i32, nodes: &[(i32, i32, u32)]| {
        let mut b = Vec::new();
        for v in [0x100u32, id as u32, nodes.len() as u32] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        if !nodes.is_empty() {
            b.extend_from_slice(&0u32.to_le_bytes());
            b.extend_from_slice(&36u32.to_le_bytes());
            for &(a, i, f) in nodes {
                for v in [a as u32, i as u32, f] {
                    b.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        chunk(EXTENSION, &chunk(HANIM_PLG, &b))
    };
    let mut list = chunk(STRUCT, &frames);
    list.extend(chunk(EXTENSION, &[]));
    list.extend(hanim(10, &[(10, 0, 0), (11, 1, 1)]));
    list.extend(hanim(11, &[]));
    let clump = chunk(CLUMP, &[chunk(STRUCT, &[0; 12]), chunk(FRAME_LIST, &list)].concat());
    let skel = read_dff(&clump).unwrap().to_model().unwrap();
    let skel = skel.skeleton.unwrap();
    assert_eq!(skel.bones.len(), 2);
    assert_eq!((skel.bones[0].id, skel.bones[1].parent), (Some(10), Some(0)));
    // 90° about Z: (0, 0, sin 45°, cos 45°).
    let q = skel.bones[0].rest.rotation;
    assert!((q.z.abs() - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6 && q.z * q.w > 0.0, "{q:?}");
    assert_eq!(skel.bones[1].rest.translation, Vec3::new(0.0, 2.0, 0.0));
    for n in 0..clump.len() {
        let _ = read_dff(&clump[..n]).map(|d| d.to_model());
    }
}
