//! Classic skeletons: CompiledBones 0x800 in `.chr` files (`cryengine.md` §8).
//!
//! `char reserved[32]`, then 584-byte `CryBoneDescData_Comp` records: controller id at 0x000,
//! `defaultB2W` (bind pose in model space, Matrix34 row-major) at 0x108, `name[256]` at 0x138,
//! `offsetParent` at 0x23C (parent = index + offset; 0 = root). Local bind =
//! `inverse(parent.B2W) × B2W`.

use glam::{Affine3A, Mat3A, Quat, Vec3, Vec3A};

use crate::bytes::{Cursor, Endian};
use crate::error::{Context, Error, Result};
use crate::model::{Bone, Skeleton, Transform};
use crate::text::latin1_until_nul;

pub const RECORD_SIZE: usize = 584;

/// One bone record as stored (the fields the model uses).
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledBone {
    pub controller_id: u32,
    pub name: String,
    /// Bind pose, model space.
    pub bone_to_world: Affine3A,
    pub offset_parent: i32,
}

fn matrix34(c: &mut Cursor) -> Result<Affine3A> {
    let mut m = [0f32; 12];
    for v in &mut m {
        *v = c.f32()?;
    }
    // Rows: [m00 m01 m02 tx], [m10 m11 m12 ty], [m20 m21 m22 tz].
    let cols =
        Mat3A::from_cols(Vec3A::new(m[0], m[4], m[8]), Vec3A::new(m[1], m[5], m[9]), Vec3A::new(m[2], m[6], m[10]));
    Ok(Affine3A { matrix3: cols, translation: Vec3A::new(m[3], m[7], m[11]) })
}

/// Parses a CompiledBones 0x800 payload.
pub fn parse(payload: &[u8], base: usize) -> Result<Vec<CompiledBone>> {
    let mut c = Cursor::with_base(payload, base, Endian::Little);
    c.skip(32).within(|| "compiled bones")?;
    let n = c.remaining() / RECORD_SIZE;
    let mut bones = Vec::with_capacity(n);
    for i in 0..n {
        let bone = (|| {
            let rec = c.take(RECORD_SIZE)?;
            let mut r = Cursor::with_base(rec, c.offset() - RECORD_SIZE, Endian::Little);
            let controller_id = r.u32()?;
            r.seek(0x108)?;
            let bone_to_world = matrix34(&mut r)?;
            let name = latin1_until_nul(r.take(256)?);
            r.seek(0x23C)?;
            let offset_parent = r.i32()?;
            Ok(CompiledBone { controller_id, name, bone_to_world, offset_parent })
        })()
        .within(|| format!("compiled bone {i}"))?;
        bones.push(bone);
    }
    Ok(bones)
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
        let parent = if b.offset_parent == 0 {
            None
        } else {
            let p = i as i64 + i64::from(b.offset_parent);
            if p < 0 || p >= i as i64 {
                return Err(Error::invalid(
                    0,
                    format!("bone {i} \"{}\" has parent offset {}", b.name, b.offset_parent),
                ));
            }
            Some(p as usize)
        };
        let local = match parent.and_then(|p| bones.get(p)) {
            Some(pb) => pb.bone_to_world.inverse() * b.bone_to_world,
            None => b.bone_to_world,
        };
        out.push(Bone { name: b.name.clone(), id: None, hash: Some(b.controller_id), parent, rest: decompose(local) });
    }
    Ok(Skeleton { bones: out })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let bones = parse(&payload, 0).unwrap();
        let skel = to_skeleton(&bones).unwrap();
        assert_eq!(skel.bones[0].hash, Some(0x7856_1A24));
        assert_eq!(skel.bones[1].parent, Some(0));
        assert!((skel.bones[1].rest.translation - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-6);
        let z90 = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        assert!(skel.bones[1].rest.rotation.dot(z90).abs() > 0.999_999);
        assert!(parse(&payload[..20], 0).is_err());
    }
}
