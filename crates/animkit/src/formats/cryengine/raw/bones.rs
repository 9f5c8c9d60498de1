//! CompiledBones 0x800 in `.chr` files (`cryengine.md` §8): `char reserved[32]`, then 584-byte
//! `CryBoneDescData_Comp` records.

use serde::{Deserialize, Serialize};

use crate::raw_json::{FixedName, F32};

crate::record! {
    /// `BONE_PHYSICS_COMP` (104 bytes): one level of a bone's physics.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    pub struct BonePhysics {
        pub geometry: i32,
        pub flags: i32,
        pub min: [F32; 3],
        pub max: [F32; 3],
        pub spring_angle: [F32; 3],
        pub spring_tension: [F32; 3],
        pub damping: [F32; 3],
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
        pub physics: BonePhysics,
        pub physics_lod1: BonePhysics,
        pub mass: F32,
        pub world_to_bone: [F32; 12],
        pub bone_to_world: [F32; 12],
        pub name: FixedName<256>,
        pub limb_id: i32,
        pub offset_parent: i32,
        pub children: i32,
        pub offset_children: i32,
    }
}

/// The size of a [`CompiledBone`].
pub const BONE_SIZE: usize = 584;
