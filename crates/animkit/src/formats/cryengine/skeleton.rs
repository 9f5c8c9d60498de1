//! Classic skeletons: CompiledBones 0x800 in `.chr` files (`cryengine.md` §8) to the model.
//!
//! Each bone's parent is `index + offset_parent` (0 = root); its local bind is
//! `inverse(parent.B2W) × B2W` of the model-space bind poses.

use glam::{Affine3A, Mat3A, Quat, Vec3, Vec3A};

use super::raw::CompiledBone;
use crate::error::{Error, Result};
use crate::model::{Bone, Skeleton, Transform};
use crate::raw_json::F32;
use crate::text::latin1_until_nul;

/// A row-major `Matrix34` (`m00 m01 m02 tx`, …) as an affine transform.
fn matrix34(m: &[F32; 12]) -> Affine3A {
    let m = m.map(|v| v.0);
    let cols =
        Mat3A::from_cols(Vec3A::new(m[0], m[4], m[8]), Vec3A::new(m[1], m[5], m[9]), Vec3A::new(m[2], m[6], m[10]));
    Affine3A { matrix3: cols, translation: Vec3A::new(m[3], m[7], m[11]) }
}

fn decompose(m: Affine3A) -> Transform {
    let (scale, rotation, translation) = m.to_scale_rotation_translation();
    let rotation = if rotation.is_finite() { rotation.normalize() } else { Quat::IDENTITY };
    // Bind matrices are rigid; keep unit scale unless the file says otherwise.
    let scale = if (scale - Vec3::ONE).abs().max_element() < 1e-3 { Vec3::ONE } else { scale };
    Transform { translation, rotation, scale }
}

/// The model skeleton: bones in file order, hash = controller id, local rest pose.
pub fn to_skeleton(bones: &[CompiledBone]) -> Result<Skeleton> {
    let mut out = Vec::with_capacity(bones.len());
    for (i, b) in bones.iter().enumerate() {
        let name = latin1_until_nul(&b.name.0);
        let parent = if b.offset_parent == 0 {
            None
        } else {
            let p = i as i64 + i64::from(b.offset_parent);
            if p < 0 || p >= i as i64 {
                return Err(Error::invalid(0, format!("bone {i} \"{name}\" has parent offset {}", b.offset_parent)));
            }
            Some(p as usize)
        };
        let local = match parent.and_then(|p| bones.get(p)) {
            Some(pb) => matrix34(&pb.bone_to_world).inverse() * matrix34(&b.bone_to_world),
            None => matrix34(&b.bone_to_world),
        };
        out.push(Bone { name, id: None, hash: Some(b.controller_id), parent, rest: decompose(local) });
    }
    Ok(Skeleton { bones: out })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::{Cursor, Endian};
    use crate::formats::cryengine::raw::{kind, Body, BONE_SIZE as RECORD_SIZE};

    fn parse(payload: &[u8]) -> Option<Vec<CompiledBone>> {
        match Body::decode(kind::COMPILED_BONES, 0x800, &mut Cursor::new(payload, Endian::Little)).ok()? {
            Some(Body::CompiledBones { bones, .. }) => Some(bones),
            _ => None,
        }
    }

    fn record(id: u32, name: &str, b2w_rows: [f32; 12], offset_parent: i32) -> Vec<u8> {
        let mut r = vec![0u8; RECORD_SIZE];
        r[..4].copy_from_slice(&id.to_le_bytes());
        for (k, v) in b2w_rows.iter().enumerate() {
            r[0x108 + 4 * k..0x10C + 4 * k].copy_from_slice(&v.to_le_bytes());
        }
        r[0x138..0x138 + name.len()].copy_from_slice(name.as_bytes());
        r[0x23C..0x240].copy_from_slice(&offset_parent.to_le_bytes());
        r
    }

    #[test]
    fn local_bind_is_relative_to_the_parent() {
        // Root at (0, 0, 1); child at (0, 1, 1) rotated 90° about Z (rows of Rz(90°) = [0 -1 0; 1 0 0; 0 0 1]).
        let mut payload = vec![0u8; 32];
        payload.extend(record(0x7856_1A24, "Bip01", [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 1.], 0));
        payload.extend(record(7, "Bip01 Pelvis", [0., -1., 0., 0., 1., 0., 0., 1., 0., 0., 1., 1.], -1));
        let bones = parse(&payload).unwrap();
        let skel = to_skeleton(&bones).unwrap();
        assert_eq!(skel.bones[0].hash, Some(0x7856_1A24));
        assert_eq!(skel.bones[1].parent, Some(0));
        assert!((skel.bones[1].rest.translation - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-6);
        let z90 = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        assert!(skel.bones[1].rest.rotation.dot(z90).abs() > 0.999_999);
        assert!(parse(&payload[..20]).is_none());
    }
}
