//! A bone hierarchy with a rest pose, for binding tracks and building glTF node trees.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::bone_ref::BoneRef;

/// A local transform: translation, rotation (unit, glTF convention), scale.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Transform {
    /// Translation from the parent.
    pub translation: Vec3,
    /// Rotation (unit quaternion `x y z w`) relative to the parent.
    pub rotation: Quat,
    /// Scale per axis.
    pub scale: Vec3,
}

impl Transform {
    /// `child` placed below this transform: the child's transform in this one's parent space
    /// (`self · child` as matrices). Identity on either side gives the other exactly.
    pub fn then(&self, child: &Transform) -> Transform {
        if *self == Transform::default() {
            return *child;
        }
        if *child == Transform::default() {
            return *self;
        }
        let m = |t: &Transform| glam::Mat4::from_scale_rotation_translation(t.scale, t.rotation, t.translation);
        let (scale, rotation, translation) = (m(self) * m(child)).to_scale_rotation_translation();
        Transform { translation, rotation, scale }
    }
}

impl Default for Transform {
    fn default() -> Self {
        Transform { translation: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE }
    }
}

/// One bone: its names and ids, its parent and its rest pose relative to the parent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Bone {
    /// The bone's name.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// A numeric id (GTA bone tag / HAnim node id), when the format has one.
    pub id: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// A name hash (CryEngine CRC-32), when the format has one.
    pub hash: Option<u32>,
    /// Index of the parent bone, which comes earlier in the list; `None` for a root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    /// The rest pose, relative to the parent.
    pub rest: Transform,
}

/// Bones in parent-before-child order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Skeleton {
    /// The bones; a parent comes before its children.
    pub bones: Vec<Bone>,
}

impl Skeleton {
    /// The index of the bone a track reference denotes: by id, then hash, then name
    /// (case-insensitive, surrounding spaces ignored), then index.
    pub fn find(&self, r: &BoneRef) -> Option<usize> {
        let by = |f: &dyn Fn(&Bone) -> bool| self.bones.iter().position(f);
        r.id.and_then(|id| by(&|b| b.id == Some(id)))
            .or_else(|| r.hash.and_then(|h| by(&|b| b.hash == Some(h))))
            .or_else(|| r.name.as_deref().and_then(|n| by(&|b| b.name.trim().eq_ignore_ascii_case(n.trim()))))
            .or_else(|| r.index.map(|i| i as usize).filter(|&i| i < self.bones.len()))
    }

    /// Checks that every parent index points at an earlier bone.
    pub fn validate(&self) -> Result<(), String> {
        for (i, bone) in self.bones.iter().enumerate() {
            if let Some(p) = bone.parent {
                if p >= i {
                    return Err(format!("bone {i} '{}' has parent {p}, not an earlier bone", bone.name));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_prefers_id_then_hash_then_name() {
        let skel = Skeleton {
            bones: vec![
                Bone { name: "Root".into(), id: Some(0), ..Default::default() },
                Bone { name: " Pelvis".into(), id: Some(1), parent: Some(0), ..Default::default() },
                Bone { name: "Bip01".into(), hash: Some(0x78561A24), parent: Some(1), ..Default::default() },
            ],
        };
        assert_eq!(skel.find(&BoneRef { id: Some(1), ..Default::default() }), Some(1));
        assert_eq!(skel.find(&BoneRef::named("PELVIS")), Some(1));
        assert_eq!(skel.find(&BoneRef { hash: Some(0x78561A24), ..Default::default() }), Some(2));
        assert_eq!(skel.find(&BoneRef { index: Some(7), ..Default::default() }), None);
        assert!(skel.validate().is_ok());
    }
}
