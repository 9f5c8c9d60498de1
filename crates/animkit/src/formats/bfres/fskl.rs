//! The FSKL skeleton inside an FMDL, on Wii U and Switch ([`Platform`]), for the model's
//! [`Skeleton`].
//!
//! Not in the spec; layouts from public implementations (tag S), checked on the corpus (Wii U
//! 3.4.0.4 and 4.5.0.3, Switch 0.8.0.0). Offsets below are from the start of each structure;
//! "off" is a Wii U self-relative `i32` or a Switch absolute `u64`.
//!
//! - **FMDL**: after the opening (`layout::opening`): off name, off path, off FSKL.
//! - **FSKL, Wii U**: `04 u32 flags; 08 u16 boneCount; 0A u16 smoothCount; 0C u16 rigidCount;
//!   10 off bone dict; 14 off bone array; 18 off matrix-to-bone table`.
//! - **FSKL, Switch** (0.8: `0x58` bytes): `10 off bone dict; 18 off bone array; 20 off
//!   matrix-to-bone table; 28 off inverse matrices; 30 user pointer`; 16 reserved bytes in 0.8
//!   (none before; from 0.9 the flags follow the magic and a mirror-table offset follows the
//!   user pointer); then `u32 flags` (before 0.9), `u16 boneCount, smoothCount, rigidCount`.
//! - **Bone**: Wii U `00 off name` (`0x40` bytes, `0x70` before 3.4 with a 3×4 inverse
//!   matrix); Switch `00 off name; 08 off user data; 10 off user-data dict`, 16 reserved bytes
//!   from 0.8 (`0x60` bytes; `0x50` before). Then on both: `u16 index; s16 parent;
//!   s16 smoothMatrixIndex; s16 rigidMatrixIndex; s16 billboardIndex; u16 userDataCount;
//!   u32 flags (bits 12–14 rotation: 0 quaternion, 1 Euler XYZ); vec3 scale; vec4 rotation
//!   (W = 1 for Euler); vec3 translation`.
//! - **Matrix-to-bone table**: `u16[smoothCount + rigidCount]`, the bone of each skinning
//!   matrix, smooth matrices first. A bone's smooth and rigid matrix indices are both indices
//!   into the whole table (the rigid ones count on from `smoothCount`: 126 smooth and 3 rigid
//!   matrices in the Gerudo queen, rigid indices 126–128), and the entry they point at names
//!   the bone (checked by [`check`]; it holds for every bone of the corpus). Animations do not go through it: an FSKA binds its bone
//!   animations to bones by name (its own bind-index table is `0xFFFF` on disk and filled at
//!   load time, §3.1), which is how [`super::bind`] chooses the model.
//!
//! Observed: in Switch 0.8.0.0 (Splatoon 2) bones carry flags `0x…1001` (visible, Euler) and the
//! skeleton flags `0x1200` (Maya scale, Euler), as in BotW.

use glam::{Quat, Vec3};

use super::fska::euler_xyz;
use super::layout::{opening, values, In, Io, Offset};
use super::platform::Platform;
use crate::error::{Context, Error, Result};
use crate::model::{Bone, Skeleton, Transform};

/// An FSKL as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Fskl {
    pub at: usize,
    pub flags: u32,
    pub bones: Vec<BoneRecord>,
    pub smooth_count: u16,
    pub rigid_count: u16,
    /// The bone of each skinning matrix: `smooth_count` smooth ones, then the rigid ones.
    pub matrix_to_bone: Vec<u16>,
}

/// One bone as stored.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoneRecord {
    pub at: usize,
    pub name: String,
    /// The bone's own index (its position in the array).
    pub index: u16,
    pub parent: i16,
    pub smooth_index: i16,
    pub rigid_index: i16,
    pub billboard_index: i16,
    pub flags: u32,
    pub scale: [f32; 3],
    pub rotation: [f32; 4],
    pub translation: [f32; 3],
}

/// Reads the name of the FMDL at `at` and its skeleton (`None` when the model has none).
pub fn read_model(data: &[u8], at: usize, platform: Platform) -> Result<(String, Option<Fskl>)> {
    let mut c = platform.cursor(data, at)?;
    let io = &mut In { c: &mut c, platform };
    let (mut flags, mut name) = (0, String::new());
    opening(io, b"FMDL", &mut flags, &mut name)?;
    let skeleton = io.offset("skeleton")?.target.map(|s| read(data, s, platform).within(|| "FSKL"));
    Ok((name, skeleton.transpose()?))
}

/// Counts and table offsets of an FSKL header.
struct Header {
    flags: u32,
    /// Bones, smooth and rigid matrices.
    counts: [u16; 3],
    array: Offset,
    matrices: Offset,
}

fn read_header(data: &[u8], at: usize, platform: Platform) -> Result<Header> {
    let mut c = platform.cursor(data, at)?;
    if c.array::<4>()? != *b"FSKL" {
        return Err(Error::invalid(at, "not an FSKL"));
    }
    let io = &mut In { c: &mut c, platform };
    let (mut flags, mut counts) = (0, [0; 3]);
    match platform {
        Platform::WiiU { .. } => {
            values!(io, flags, counts);
            io.pad(2)?;
        }
        Platform::Switch { major } if major >= 9 => io.value(&mut flags)?,
        Platform::Switch { .. } => io.pad(12)?,
    }
    let _dict = io.offset("bone dict")?;
    let (array, matrices) = (io.offset("bone array")?, io.offset("matrix-to-bone table")?);
    if let Platform::Switch { major } = platform {
        // Inverse matrices and user pointer, then 16 reserved bytes (0.8) or a mirror table (0.9).
        io.pad(16 + if major >= 9 { 8 } else { 16 * usize::from(major == 8) })?;
        if major < 9 {
            io.value(&mut flags)?;
        }
        io.value(&mut counts)?;
    }
    Ok(Header { flags, counts, array, matrices })
}

/// The size of one bone record.
fn bone_size(platform: Platform) -> usize {
    match platform {
        Platform::WiiU { version } if version >= 0x0304_0000 => 0x40,
        Platform::WiiU { .. } => 0x70,
        Platform::Switch { major } if major >= 8 => 0x60,
        Platform::Switch { .. } => 0x50,
    }
}

/// Reads the FSKL at `at`.
pub fn read(data: &[u8], at: usize, platform: Platform) -> Result<Fskl> {
    let Header { flags, counts: [count, smooth_count, rigid_count], array, matrices } =
        read_header(data, at, platform)?;
    let bones = platform.records(data, array.pair(), count.into(), bone_size(platform), "bone", |c| {
        read_bone(&mut In { c, platform })
    })?;
    let n = u64::from(smooth_count) + u64::from(rigid_count);
    let mut matrix_to_bone = Vec::new();
    if n > 0 {
        let at = matrices.target.ok_or_else(|| Error::invalid(at, "null matrix-to-bone table"))?;
        let mut c = platform.cursor(data, at)?;
        let n = c.count(n, 2, "matrix-to-bone entry")?;
        matrix_to_bone = (0..n).map(|_| c.u16()).collect::<Result<_>>()?;
    }
    Ok(Fskl { at, flags, bones, smooth_count, rigid_count, matrix_to_bone })
}

/// A bone (see the module notes).
fn read_bone(io: &mut In) -> Result<BoneRecord> {
    let mut b = BoneRecord { at: io.pos(), ..BoneRecord::default() };
    io.name(&mut b.name)?;
    if let Platform::Switch { major } = io.platform {
        io.pad(if major >= 8 { 32 } else { 16 })?; // user data and its dict, reserved from 0.8
    }
    let mut user_data_count = 0u16;
    values!(io, b.index, b.parent, b.smooth_index, b.rigid_index, b.billboard_index, user_data_count, b.flags);
    values!(io, b.scale, b.rotation, b.translation);
    Ok(b)
}

impl BoneRecord {
    /// Whether the rotation is Euler XYZ in radians (flags bits 12–14 = 1), else a quaternion.
    pub fn euler(&self) -> bool {
        (self.flags >> 12) & 7 == 1
    }
}

impl Fskl {
    /// The model's skeleton: names, parents (each an earlier bone) and rest poses.
    pub fn to_skeleton(&self) -> Result<Skeleton> {
        let mut bones = Vec::with_capacity(self.bones.len());
        for (i, b) in self.bones.iter().enumerate() {
            let parent = usize::try_from(b.parent).ok();
            if parent.is_some_and(|p| p >= i) {
                return Err(Error::invalid(
                    b.at,
                    format!("bone {i} '{}' has parent {}, which is not an earlier bone", b.name, b.parent),
                ));
            }
            let [x, y, z, w] = b.rotation;
            let rotation = if b.euler() { euler_xyz(x, y, z) } else { Quat::from_xyzw(x, y, z, w).normalize() };
            bones.push(Bone {
                name: b.name.clone(),
                id: Some(i32::from(b.index)),
                hash: None,
                parent,
                rest: Transform {
                    translation: Vec3::from_array(b.translation),
                    rotation,
                    scale: Vec3::from_array(b.scale),
                },
            });
        }
        Ok(Skeleton { bones })
    }
}

/// The structure checks of an FSKL, as sentences with the offset they concern: every bone's
/// index is its position; each matrix-to-bone entry names a bone; a bone's smooth and rigid
/// matrix indices point at entries naming that bone.
pub fn check(skeleton: &Fskl) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let n = skeleton.bones.len();
    for (m, &b) in skeleton.matrix_to_bone.iter().enumerate() {
        if usize::from(b) >= n {
            out.push((skeleton.at, format!("matrix {m} names bone {b}, but the skeleton has {n} bones")));
        }
    }
    for (i, b) in skeleton.bones.iter().enumerate() {
        if usize::from(b.index) != i {
            out.push((b.at, format!("bone {i} '{}' stores index {}", b.name, b.index)));
        }
        for (kind, index) in [("smooth", b.smooth_index), ("rigid", b.rigid_index)] {
            let Ok(index) = usize::try_from(index) else { continue };
            let entry = skeleton.matrix_to_bone.get(index).copied();
            if entry.map(usize::from) != Some(i) {
                let found = entry.map_or("no entry".to_string(), |e| format!("bone {e}"));
                out.push((b.at, format!("bone {i} '{}': {kind} matrix {index} holds {found}", b.name)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bone(index: u16, smooth: i16, rigid: i16) -> BoneRecord {
        BoneRecord {
            at: 0,
            name: format!("b{index}"),
            index,
            parent: index as i16 - 1,
            smooth_index: smooth,
            rigid_index: rigid,
            billboard_index: -1,
            flags: 0x1000,
            scale: [1.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            translation: [0.0; 3],
        }
    }

    #[test]
    fn matrix_indices_point_at_their_bones() {
        // Splatoon 2's Wsp_Bubble layout in small: bones 1 and 2 smooth matrices 0 and 1, bone 0
        // rigid matrix 2 (the first after the two smooth ones).
        let mut fskl = Fskl {
            at: 0,
            flags: 0x1200,
            bones: vec![bone(0, -1, 2), bone(1, 0, -1), bone(2, 1, -1)],
            smooth_count: 2,
            rigid_count: 1,
            matrix_to_bone: vec![1, 2, 0],
        };
        assert!(check(&fskl).is_empty(), "{:?}", check(&fskl));
        fskl.matrix_to_bone = vec![2, 1, 3];
        let found: Vec<String> = check(&fskl).into_iter().map(|f| f.1).collect();
        assert_eq!(
            found,
            [
                "matrix 2 names bone 3, but the skeleton has 3 bones",
                "bone 0 'b0': rigid matrix 2 holds bone 3",
                "bone 1 'b1': smooth matrix 0 holds bone 2",
                "bone 2 'b2': smooth matrix 1 holds bone 1",
            ]
        );
    }

    #[test]
    fn euler_rest_rotations_become_quaternions() {
        let mut b = bone(0, -1, -1);
        b.rotation = [0.0, 0.0, std::f32::consts::FRAC_PI_2, 1.0];
        let fskl =
            Fskl { at: 0, flags: 0, bones: vec![b], smooth_count: 0, rigid_count: 0, matrix_to_bone: Vec::new() };
        let rest = fskl.to_skeleton().unwrap().bones[0].rest.rotation;
        // 90° about Z takes +X to +Y.
        assert!((rest * Vec3::X - Vec3::Y).length() < 1e-6);
    }
}
