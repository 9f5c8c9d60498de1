//! The FSKL skeleton inside an FMDL (Wii U), for the model's [`Skeleton`].
//!
//! Not in the spec; layout from public implementations and checked on the corpus:
//! FMDL `04 off name; 08 off path; 0C off FSKL`. FSKL `04 u32 flags; 08 u16 boneCount;
//! 0A u16 smooth; 0C u16 rigid; 10 off bone dict; 14 off bone array`. Bone (`0x40`, plus a
//! 3×4 inverse matrix before 3.4): `00 off name; 04 u16 index; 06 s16 parent; 08 s16 smooth;
//! 0A s16 rigid; 0C s16 billboard; 0E u16 userDataCount; 10 u32 flags (bit 12: Euler XYZ);
//! 14 vec3 scale; 20 vec4 rotation (W = 1 for Euler); 30 vec3 translation`.

use glam::{Quat, Vec3};

use super::curve::rel;
use super::fska::euler_xyz;
use super::strings::name_field;
use crate::bytes::{Cursor, Endian};
use crate::error::{Context, Error, Result};
use crate::model::{Bone, Skeleton, Transform};

/// Reads the skeleton of the FMDL at `at`; `None` when the model has none.
pub fn read_model_skeleton(data: &[u8], at: usize, version: u32) -> Result<Option<Skeleton>> {
    let mut c = Cursor::new(data, Endian::Big);
    c.seek(at)?;
    if c.array::<4>()? != *b"FMDL" {
        return Err(Error::invalid(at, "not an FMDL"));
    }
    c.skip(8)?;
    let Some(skel_at) = rel(&mut c, "skeleton")? else {
        return Ok(None);
    };
    read_skeleton(data, skel_at, version).within(|| "FSKL").map(Some)
}

/// Reads the FSKL at `at`.
pub fn read_skeleton(data: &[u8], at: usize, version: u32) -> Result<Skeleton> {
    let mut c = Cursor::new(data, Endian::Big);
    c.seek(at)?;
    if c.array::<4>()? != *b"FSKL" {
        return Err(Error::invalid(at, "not an FSKL"));
    }
    let flags = c.u32()?;
    let count = c.u16()?;
    c.skip(6)?;
    let _dict = rel(&mut c, "bone dict")?;
    let array = rel(&mut c, "bone array")?;
    let stride = if version >= 0x0304_0000 { 0x40 } else { 0x70 };
    let mut bones = Vec::new();
    if count > 0 {
        let array = array.ok_or_else(|| Error::invalid(at + 0x14, "null bone array"))?;
        let mut b = Cursor::new(data, Endian::Big);
        b.seek(array)?;
        b.count(u64::from(count), stride, "bone")?;
        for i in 0..usize::from(count) {
            bones.push(read_bone(data, array + stride * i, flags).within(|| format!("bone {i}"))?);
        }
    }
    for (i, bone) in bones.iter_mut().enumerate() {
        if bone.parent.is_some_and(|p| p >= i) {
            return Err(Error::invalid(
                at,
                format!("bone {i} '{}' has a parent that is not an earlier bone", bone.name),
            ));
        }
    }
    Ok(Skeleton { bones })
}

fn read_bone(data: &[u8], at: usize, skeleton_flags: u32) -> Result<Bone> {
    let mut c = Cursor::new(data, Endian::Big);
    c.seek(at)?;
    let name = name_field(data, &mut c)?;
    let index = c.u16()?;
    let parent = c.i16()?;
    c.skip(8)?;
    let flags = c.u32()?;
    let scale = Vec3::new(c.f32()?, c.f32()?, c.f32()?);
    let r = [c.f32()?, c.f32()?, c.f32()?, c.f32()?];
    let translation = Vec3::new(c.f32()?, c.f32()?, c.f32()?);
    let _ = skeleton_flags;
    let euler = flags & 0x1000 != 0;
    let rotation = if euler { euler_xyz(r[0], r[1], r[2]) } else { Quat::from_array(r).normalize() };
    Ok(Bone {
        name,
        id: Some(i32::from(index)),
        hash: None,
        parent: usize::try_from(parent).ok(),
        rest: Transform { translation, rotation, scale },
    })
}
