//! CompiledBones 0x800 in `.chr` files (`cryengine.md` §8): `char reserved[32]`, then 584-byte
//! `CryBoneDescData_Comp` records.

use serde::{Deserialize, Serialize};

use crate::raw_json::{FixedName, F32};

crate::record! {
    /// `BONE_PHYSICS_COMP` (104 bytes): one level of a bone's physics.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    pub struct BonePhysics {
        /// The physics geometry id.
        pub geometry: i32,
        /// Physics flags.
        pub flags: i32,
        /// Joint limits, minimum (rad).
        pub min: [F32; 3],
        /// Joint limits, maximum (rad).
        pub max: [F32; 3],
        /// Spring angles.
        pub spring_angle: [F32; 3],
        /// Spring tensions.
        pub spring_tension: [F32; 3],
        /// Damping.
        pub damping: [F32; 3],
        /// The joint frame (3×3 matrix).
        pub frame: [F32; 9],
    }
}

crate::record! {
    /// `CryBoneDescData_Comp` (584 bytes). Matrices are `Matrix34`, row-major
    /// (`m00 m01 m02 tx`, …); `bone_to_world` is the bind pose in model space. The parent is
    /// the bone `offset_parent` records away (0: a root).
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    pub struct CompiledBone {
        /// The CRC-32 of the bone name.
        pub controller_id: u32,
        /// Physics of LOD 0.
        pub physics: BonePhysics,
        /// Physics of LOD 1.
        pub physics_lod1: BonePhysics,
        /// Mass.
        pub mass: F32,
        /// Model space to bone space.
        pub world_to_bone: [F32; 12],
        /// Bone space to model space: the bind pose.
        pub bone_to_world: [F32; 12],
        /// The bone's name, NUL-padded.
        pub name: FixedName<256>,
        /// The limb id.
        pub limb_id: i32,
        /// Records from this bone to its parent (0: a root).
        pub offset_parent: i32,
        /// The number of children.
        pub children: i32,
        /// Records from this bone to its first child.
        pub offset_children: i32,
    }
}

/// The size of a [`CompiledBone`].
pub(crate) const BONE_SIZE: usize = 584;
