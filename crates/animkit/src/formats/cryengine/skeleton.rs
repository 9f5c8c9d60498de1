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
