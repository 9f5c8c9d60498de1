//! FSKA skeletal animations (spec §7.1) and their conversion to the model.
//!
//! Translation and scale become `CubicSpline` tracks with the tangents of §5.5; where the X, Y
//! and Z curves have different key frames, every component is evaluated (value and one-sided
//! slopes) at the union of the frames, which splits each cubic segment exactly. Quaternion-mode
//! rotations become cubic rotation tracks the same way; Euler XYZ rotations (`q = qZ·qY·qX`,
//! radians) become cubic quaternion keys at the union of the angle curves' frames, with keys
//! added where the engine's rotation leaves the cubic between them (`euler`).

use glam::{EulerRot, Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::curve::Curve;
use super::euler::rotation_keys;
use super::platform::Platform;
use super::subfile;
use super::union::union_cubic;
use crate::bytes::Cursor;
use crate::error::{Context, Error, ErrorKind, Result};
use crate::format::Limits;
use crate::model::{BoneRef, Clip, Interpolation, Target, Track, Values};

/// An FSKA header with its bone animations.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fska {
    /// Position of the header.
    #[serde(skip)]
    pub at: usize,
    /// The animation's name.
    pub name: String,
    /// Flags: bit 2 looping, bits 8–9 scale mode, bits 12–13 rotation mode.
    pub flags: u32,
    /// Frames.
    pub frame_count: i32,
    /// The stored user-data count.
    pub user_data_count: u16,
    /// The stored curve total.
    pub curve_count: i32,
    /// Runtime size of the baked curves (§8).
    pub baked_size: u32,
    /// One entry per animated bone.
    pub bones: Vec<BoneAnim>,
    /// The user-data entries in storage order (their index group is rebuilt from the names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_data: Vec<UserData>,
}

/// One user-data entry: `off name; u16 count; u8 type; u8 pad`, then the values inline
/// (types 0 `i32`, 1 `f32`, 2 string offset, 3 wide-string offset, 4 byte) (spec tag S), checked on
/// 53 retail FSKA.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserData {
    /// The entry's name.
    pub name: String,
    /// Value type (0 `i32`, 1 `f32`, 2 string, 3 wide string, 4 byte).
    pub kind: u8,
    /// The byte after the type.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pad: u8,
    /// The values.
    #[serde(flatten)]
    pub values: UserValues,
}

fn is_zero(v: &u8) -> bool {
    *v == 0
}

/// The values of a user-data entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UserValues {
    /// `i32` or `f32` values as raw words.
    Words(Vec<u32>),
    /// String offsets, resolved.
    Strings(Vec<String>),
    /// Bytes (padded to 4 when stored).
    Bytes(Vec<u8>),
}

/// Reads the user-data index group at `at` and its entries.
pub fn read_user_data(data: &[u8], at: usize) -> Result<Vec<UserData>> {
    let mut out = Vec::new();
    for (name, target) in super::dict::entries_at(data, at)? {
        let Some(e) = target else {
            return Err(Error::invalid(at, "user data entry without data"));
        };
        let wiiu = Platform::WiiU { version: 0x0304_0000 };
        let mut c = wiiu.cursor(data, e)?;
        let _name = c.i32()?;
        let count = c.u16()?;
        let kind = c.u8()?;
        let pad = c.u8()?;
        let values = match kind {
            0 | 1 => {
                let n = c.count(u64::from(count), 4, "user data value")?;
                UserValues::Words((0..n).map(|_| c.u32()).collect::<Result<_>>()?)
            }
            2 | 3 => {
                let n = c.count(u64::from(count), 4, "user data string")?;
                UserValues::Strings((0..n).map(|_| wiiu.name(data, &mut c)).collect::<Result<_>>()?)
            }
            4 => UserValues::Bytes(c.take(usize::from(count))?.to_vec()),
            k => return Err(Error::invalid(e + 6, format!("unknown user data type {k}"))),
        };
        out.push(UserData { name, kind, pad, values });
    }
    Ok(out)
}

/// One bone's animation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoneAnim {
    /// Position of the bone animation.
    #[serde(skip)]
    pub at: usize,
    /// Flags: bits 3–5 which base values are stored, bits 6–15 which curves.
    pub flags: u32,
    /// The bone's name.
    pub name: String,
    /// First rotation curve (in the bone's flag order).
    pub begin_rotate: u8,
    /// First translation curve.
    pub begin_translate: u8,
    /// First base translation value.
    pub begin_base_translate: u8,
    /// Stored low byte first at `0x0C`.
    pub begin_curve: u16,
    /// Base scale.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::raw_json::exact")]
    pub scale: Option<[f32; 3]>,
    /// Base rotation (quaternion, or Euler XYZ in radians with W = 1).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::raw_json::exact")]
    pub rotate: Option<[f32; 4]>,
    /// Base translation.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::raw_json::exact")]
    pub translate: Option<[f32; 3]>,
    /// The bone's curves; `target` is the channel's offset (§7.1).
    pub curves: Vec<Curve>,
}

impl BoneAnim {
    /// Reads the base values the flags announce, in storage order: scale (bit 3), rotation
    /// (bit 4), translation (bit 5), from a cursor at the base data (either byte order).
    pub fn read_base(&mut self, b: &mut Cursor) -> Result<()> {
        if self.flags & 0x08 != 0 {
            self.scale = Some([b.f32()?, b.f32()?, b.f32()?]);
        }
        if self.flags & 0x10 != 0 {
            self.rotate = Some([b.f32()?, b.f32()?, b.f32()?, b.f32()?]);
        }
        if self.flags & 0x20 != 0 {
            self.translate = Some([b.f32()?, b.f32()?, b.f32()?]);
        }
        Ok(())
    }
}

/// Rotation storage (flags bits 12–13).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RotateMode {
    /// Quaternion curves.
    Quaternion,
    /// Euler XYZ angle curves, radians.
    EulerXyz,
}

impl Fska {
    /// Whether the animation loops (flags bit 2).
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }

    /// How rotations are stored (flags bits 12–13).
    pub fn rotate_mode(&self) -> RotateMode {
        if (self.flags >> 12) & 3 == 1 {
            RotateMode::EulerXyz
        } else {
            RotateMode::Quaternion
        }
    }

    /// Scale mode (bits 8–9): 0 none, 1 standard, 2 Maya, 3 Softimage.
    pub fn scale_mode(&self) -> u32 {
        (self.flags >> 8) & 3
    }
}

/// Reads the FSKA at `at` (Switch: user data is not read).
///
/// Wii U after the opening: `u32 flags`; from 3.4 `s32 frameCount; u16 boneCount, userDataCount;
/// s32 curveCount; u32 bakedSize`, before it the four counts as `u16` and 4 bytes after
/// bakedSize; then off bone animations, skeleton, bind indices, user data. Switch (`0x60`; `0x50`
/// in 0.9, whose flags follow the magic): off skeleton, bind indices, bone animations, user
/// data, user dict; `u32 flags` (before 0.9); `s32 frameCount, curveCount; u32 bakedSize;
/// u16 boneCount, userDataCount`.
pub fn read(data: &[u8], at: usize, platform: Platform) -> Result<Fska> {
    let (mut c, name) = platform.open(data, at, b"FSKA")?;
    let (mut anim, bone_count, bones_field, bones_at) = match platform {
        Platform::WiiU { .. } => read_wiiu_fields(data, &mut c, platform)?,
        Platform::Switch { .. } => read_switch_fields(&mut c, platform, at)?,
    };
    anim.at = at;
    anim.name = name;
    let size = match platform {
        Platform::WiiU { .. } => 0x18,
        p if p.switch_0_9() => 0x38,
        _ => 0x28,
    };
    anim.bones = platform
        .records(data, (bones_field, bones_at), bone_count, size, "bone animation", |b| read_bone(data, b, platform))?;
    Ok(anim)
}

/// An FSKA with only its header fields, its bone count, and where the bone array's offset lies
/// and points.
type Fields = (Fska, usize, usize, Option<usize>);

fn read_wiiu_fields(data: &[u8], c: &mut Cursor, platform: Platform) -> Result<Fields> {
    let flags = c.u32()?;
    let (frame_count, bone_count, user_data_count, curve_count, baked_size) = if platform.since_3_4() {
        (c.i32()?, c.u16()?, c.u16()?, c.i32()?, c.u32()?)
    } else {
        let (fc, bc, ud, cc, bs) = (c.u16()?, c.u16()?, c.u16()?, c.u16()?, c.u32()?);
        c.skip(4)?;
        (i32::from(fc), bc, ud, i32::from(cc), bs)
    };
    let bones_field = c.offset();
    let bones_at = platform.offset(c, "bone animations")?;
    let _skeleton = c.i32()?;
    let _bind = c.i32()?;
    let user_data = match platform.offset(c, "user data")? {
        Some(u) if user_data_count > 0 => read_user_data(data, u).within(|| "user data")?,
        _ => Vec::new(),
    };
    let anim = Fska { flags, frame_count, user_data_count, curve_count, baked_size, user_data, ..Fska::default() };
    Ok((anim, bone_count.into(), bones_field, bones_at))
}

fn read_switch_fields(c: &mut Cursor, platform: Platform, at: usize) -> Result<Fields> {
    let _skeleton = c.u64()?;
    let _bind = c.u64()?;
    let bones_field = c.offset();
    let bones_at = platform.offset(c, "bone animations")?;
    let _user = (c.u64()?, c.u64()?);
    let flags = if platform.switch_0_9() { platform.cursor(c.data(), at + 4)?.u32()? } else { c.u32()? };
    let frame_count = c.i32()?;
    let curve_count = c.i32()?;
    let baked_size = c.u32()?;
    let bone_count = c.u16()?;
    let user_data_count = c.u16()?;
    let anim = Fska { flags, frame_count, user_data_count, curve_count, baked_size, ..Fska::default() };
    Ok((anim, bone_count.into(), bones_field, bones_at))
}

/// Reads the bone animation at the cursor. Wii U (`0x18`): `u32 flags; off name; u8
/// beginRotate, beginTranslate, curveCount, beginBaseTranslate; u16 beginCurve` (low byte
/// first) and 2 bytes; off curves, base data. Switch (`0x28`; `0x38` from 0.9 with two more
/// `u64` after the offsets): off name, curves, base data; `u32 flags`; the four `u8`; `s32
/// beginCurve`.
fn read_bone(data: &[u8], c: &mut Cursor, platform: Platform) -> Result<BoneAnim> {
    let at = c.offset();
    let switch = platform.is_switch();
    let wiiu_flags = if switch { None } else { Some(c.u32()?) };
    let name = platform.name(data, c)?;
    let (mut curves_at, mut base_at) = (None, None);
    if switch {
        curves_at = platform.offset(c, "curves")?;
        base_at = platform.offset(c, "base data")?;
        if platform.switch_0_9() {
            c.skip(16)?;
        }
    }
    let flags = match wiiu_flags {
        Some(flags) => flags,
        None => c.u32()?,
    };
    let [begin_rotate, begin_translate, curve_count, begin_base_translate] = c.array::<4>()?;
    let begin_at = c.offset();
    let [lo, hi, high_lo, high_hi] = c.array::<4>()?;
    if switch && (high_lo, high_hi) != (0, 0) {
        let begin = i32::from_le_bytes([lo, hi, high_lo, high_hi]);
        return Err(Error::invalid(begin_at, format!("beginCurve {begin} out of range")));
    }
    if !switch {
        curves_at = platform.offset(c, "curves")?;
        base_at = platform.offset(c, "base data")?;
    }
    let mut bone = BoneAnim {
        at,
        flags,
        name,
        begin_rotate,
        begin_translate,
        begin_base_translate,
        begin_curve: u16::from_le_bytes([lo, hi]),
        scale: None,
        rotate: None,
        translate: None,
        curves: Vec::new(),
    };
    if flags & 0x38 != 0 {
        let field = at + if platform.is_switch() { 0x10 } else { 0x14 };
        let base_at = base_at.ok_or_else(|| Error::invalid(field, "base data flagged but its offset is null"))?;
        bone.read_base(&mut platform.cursor(data, base_at)?)?;
    }
    let curves_field = if platform.is_switch() { at + 8 } else { at + 0x10 };
    bone.curves = Curve::read_array(data, curves_at, curves_field, curve_count.into(), platform)?;
    Ok(bone)
}

/// Target offsets of the scale channels (§7.1).
pub(crate) const SCALE: [u32; 3] = [0x04, 0x08, 0x0C];
/// Target offsets of the translation channels (§7.1).
pub(crate) const TRANSLATE: [u32; 3] = [0x10, 0x14, 0x18];
/// Target offsets of the rotation channels (§7.1).
pub(crate) const ROTATE: [u32; 4] = [0x20, 0x24, 0x28, 0x2C];

/// Converts one FSKA to a clip.
pub fn to_clip(anim: &Fska, fps: f32, limits: &Limits) -> Result<Clip> {
    let mut tracks = Vec::new();
    let window = anim.frame_count.max(0) as f32;
    for bone in &anim.bones {
        let target = Target::Bone(BoneRef::named(bone.name.clone()));
        // Each curve over the whole animation, its wrap modes applied.
        let unrolled = bone.curves.iter().map(|c| c.unrolled(0.0, window)).collect::<Result<Vec<_>>>()?;
        let curve_for = |target: u32| unrolled.iter().find(|c| c.target == target).map(|c| &**c);
        let scale = SCALE.map(curve_for);
        if scale.iter().any(Option::is_some) || bone.scale.is_some() {
            let (times, k) = union_cubic(scale, bone.scale.unwrap_or([1.0; 3]), fps, limits)?;
            let values = k.iter().flat_map(|k| k.map(Vec3::from_array)).collect();
            tracks.push(Track {
                target: target.clone(),
                interpolation: Interpolation::CubicSpline,
                times,
                values: Values::Scale(values),
            });
        }
        let rot = ROTATE.map(curve_for);
        if rot.iter().any(Option::is_some) || bone.rotate.is_some() {
            let base = bone.rotate.unwrap_or(match anim.rotate_mode() {
                RotateMode::EulerXyz => [0.0, 0.0, 0.0, 1.0],
                RotateMode::Quaternion => [0.0, 0.0, 0.0, 1.0],
            });
            tracks.push(rotation_track(anim, &target, rot, base, fps, limits)?);
        }
        let tr = TRANSLATE.map(curve_for);
        if tr.iter().any(Option::is_some) || bone.translate.is_some() {
            let (times, k) = union_cubic(tr, bone.translate.unwrap_or([0.0; 3]), fps, limits)?;
            let values = k.iter().flat_map(|k| k.map(Vec3::from_array)).collect();
            tracks.push(Track {
                target,
                interpolation: Interpolation::CubicSpline,
                times,
                values: Values::Translation(values),
            });
        }
        let keys = tracks.iter().map(|t| t.times.len() as u64).sum::<u64>();
        if keys > limits.max_keys {
            return Err(Error::new(ErrorKind::Limit, None, format!("more than {} keys", limits.max_keys)));
        }
    }
    Ok(subfile::clip(&anim.name, anim.frame_count, anim.looping(), fps, tracks))
}

/// `q = qZ·qY·qX` (X applied first), angles in radians.
pub fn euler_xyz(x: f32, y: f32, z: f32) -> Quat {
    Quat::from_euler(EulerRot::ZYX, z, y, x)
}

fn rotation_track(
    anim: &Fska,
    target: &Target,
    rot: [Option<&Curve>; 4],
    base: [f32; 4],
    fps: f32,
    limits: &Limits,
) -> Result<Track> {
    match anim.rotate_mode() {
        RotateMode::Quaternion => {
            let (times, k) = union_cubic(rot, base, fps, limits)?;
            let values = k.iter().flat_map(|k| k.map(Quat::from_array)).collect();
            Ok(Track {
                target: target.clone(),
                interpolation: Interpolation::CubicSpline,
                times,
                values: Values::Rotation(values),
            })
        }
        RotateMode::EulerXyz => {
            let [rx, ry, rz, _] = rot;
            let [bx, by, bz, _] = base;
            let (times, values) = rotation_keys([rx, ry, rz], [bx, by, bz], fps, limits)?;
            Ok(Track {
                target: target.clone(),
                interpolation: Interpolation::CubicSpline,
                times,
                values: Values::Rotation(values),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn euler_order_applies_x_first() {
        // Rotating +Y by 90° about X gives +Z; then 90° about Z takes +Z to +Z (unchanged).
        // Z-then-X order would instead give +X. Independent: R = Rz(90)·Rx(90), R·(0,1,0) = (0,0,1).
        let q = euler_xyz(std::f32::consts::FRAC_PI_2, 0.0, std::f32::consts::FRAC_PI_2);
        let v = q * Vec3::Y;
        assert!((v - Vec3::Z).length() < 1e-6, "{v}");
        // Rz(90)·Rx(90)·(1,0,0): Rx leaves X, Rz takes X to Y.
        let v = q * Vec3::X;
        assert!((v - Vec3::Y).length() < 1e-6, "{v}");
    }
}
