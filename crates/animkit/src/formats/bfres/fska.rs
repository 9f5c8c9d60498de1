//! FSKA skeletal animations (spec §7.1) and their conversion to the model.
//!
//! Translation and scale become `CubicSpline` tracks with the tangents of §5.5; where the X, Y
//! and Z curves have different key frames, every component is evaluated (value and one-sided
//! slopes) at the union of the frames, which splits each cubic segment exactly. Quaternion-mode
//! rotations become cubic rotation tracks the same way; Euler XYZ rotations (`q = qZ·qY·qX`,
//! radians) become cubic quaternion keys at the union of the angle curves' frames, with keys
//! added where the engine's rotation leaves the cubic between them ([`super::euler`]).

use glam::{EulerRot, Quat, Vec3};

use super::curve::{rel, Curve};
use super::euler::rotation_keys;
use super::strings::name_field;
use super::subfile;
use super::sweep::{Point, Sweep};
use crate::bytes::{Cursor, Endian};
use crate::error::{Context, Error, ErrorKind, Result};
use crate::formats::Limits;
use crate::model::{BoneRef, Clip, Interpolation, Target, Track, Values};

/// An FSKA header with its bone animations.
#[derive(Debug, Clone, PartialEq)]
pub struct Fska {
    pub at: usize,
    pub name: String,
    pub flags: u32,
    pub frame_count: i32,
    pub user_data_count: u16,
    pub curve_count: i32,
    pub baked_size: u32,
    pub bones: Vec<BoneAnim>,
    /// The user-data entries in storage order (their index group is rebuilt from the names).
    pub user_data: Vec<UserData>,
}

/// One user-data entry: `off name; u16 count; u8 type; u8 pad`, then the values inline
/// (types 0 `i32`, 1 `f32`, 2 string offset, 3 wide-string offset, 4 byte) (spec tag S), checked on
/// 53 retail FSKA.
#[derive(Debug, Clone, PartialEq)]
pub struct UserData {
    pub name: String,
    pub kind: u8,
    pub pad: u8,
    pub values: UserValues,
}

#[derive(Debug, Clone, PartialEq)]
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
        let mut c = Cursor::new(data, Endian::Big);
        c.seek(e)?;
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
                UserValues::Strings((0..n).map(|_| name_field(data, &mut c)).collect::<Result<_>>()?)
            }
            4 => UserValues::Bytes(c.take(usize::from(count))?.to_vec()),
            k => return Err(Error::invalid(e + 6, format!("unknown user data type {k}"))),
        };
        out.push(UserData { name, kind, pad, values });
    }
    Ok(out)
}

/// One bone's animation.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneAnim {
    pub at: usize,
    pub flags: u32,
    pub name: String,
    pub begin_rotate: u8,
    pub begin_translate: u8,
    pub begin_base_translate: u8,
    /// Stored low byte first at `0x0C`.
    pub begin_curve: u16,
    pub scale: Option<[f32; 3]>,
    pub rotate: Option<[f32; 4]>,
    pub translate: Option<[f32; 3]>,
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
    Quaternion,
    EulerXyz,
}

impl Fska {
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }

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

/// Reads the FSKA at `at`.
pub fn read(data: &[u8], at: usize, version: u32) -> Result<Fska> {
    let (mut c, name) = subfile::open(data, at, b"FSKA")?;
    let flags = c.u32()?;
    let (frame_count, bone_count, user_data_count, curve_count, baked_size) = if version >= 0x0304_0000 {
        (c.i32()?, c.u16()?, c.u16()?, c.i32()?, c.u32()?)
    } else {
        let fc = c.u16()?;
        let bc = c.u16()?;
        let ud = c.u16()?;
        let cc = c.u16()?;
        let bs = c.u32()?;
        c.skip(4)?;
        (i32::from(fc), bc, ud, i32::from(cc), bs)
    };
    let bones_at = rel(&mut c, "bone animations")?;
    let _skeleton = c.i32()?;
    let _bind = c.i32()?;
    let user_at = rel(&mut c, "user data")?;
    let user_data = match user_at {
        Some(u) if user_data_count > 0 => read_user_data(data, u).within(|| "user data")?,
        _ => Vec::new(),
    };
    let bones = subfile::records(data, bones_at, at + 0x20, bone_count.into(), 0x18, "bone animation", |b| {
        read_bone(data, b.offset(), version)
    })?;
    Ok(Fska { at, name, flags, frame_count, user_data_count, curve_count, baked_size, bones, user_data })
}

fn read_bone(data: &[u8], at: usize, version: u32) -> Result<BoneAnim> {
    let mut c = Cursor::new(data, Endian::Big);
    c.seek(at)?;
    let flags = c.u32()?;
    let name = name_field(data, &mut c)?;
    let begin_rotate = c.u8()?;
    let begin_translate = c.u8()?;
    let curve_count = c.u8()?;
    let begin_base_translate = c.u8()?;
    let lo = c.u8()?;
    let hi = c.u8()?;
    c.skip(2)?;
    let curves_at = rel(&mut c, "curves")?;
    let base_at = rel(&mut c, "base data")?;
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
        let base_at = base_at.ok_or_else(|| Error::invalid(at + 0x14, "null base data"))?;
        let mut b = Cursor::new(data, Endian::Big);
        b.seek(base_at)?;
        bone.read_base(&mut b)?;
    }
    bone.curves = Curve::read_array(data, curves_at, at + 0x10, curve_count.into(), version)?;
    Ok(bone)
}

/// Target offsets of the channels (§7.1).
const SCALE: [u32; 3] = [0x04, 0x08, 0x0C];
const TRANSLATE: [u32; 3] = [0x10, 0x14, 0x18];
const ROTATE: [u32; 4] = [0x20, 0x24, 0x28, 0x2C];

/// Key times (seconds) and, per key, `[in-tangent, value, out-tangent]` of each component.
pub type UnionKeys<const N: usize> = (Vec<f32>, Vec<[[f32; N]; 3]>);

/// The key frames of `curves` merged, sorted and without repeats; frame 0 alone when there are
/// none. Each curve's frames are usually in order already, and then merged in one pass each.
pub fn union_frames(curves: &[Option<&Curve>]) -> Vec<f32> {
    let mut lists = curves.iter().flatten().map(|c| c.frames.as_slice());
    let mut frames: Vec<f32> = lists.next().map(<[f32]>::to_vec).unwrap_or_default();
    for list in lists {
        if list != frames.as_slice() {
            frames = merged(&frames, list);
        }
    }
    if !frames.is_sorted() {
        frames.sort_unstable_by(f32::total_cmp);
    }
    frames.dedup();
    if frames.is_empty() {
        frames.push(0.0);
    }
    frames
}

/// Two frame lists merged in order (both sorted; otherwise simply joined), a frame both hold
/// taken once.
fn merged(a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a, b);
    while let (Some((&x, rest_a)), Some((&y, rest_b))) = (a.split_first(), b.split_first()) {
        if x <= y {
            out.push(x);
            a = rest_a;
            if x == y {
                b = rest_b;
            }
        } else {
            out.push(y);
            b = rest_b;
        }
    }
    out.extend_from_slice(a);
    out.extend_from_slice(b);
    out
}

/// Per-component cubic keys at the union of the component curves' frames: for each key the
/// in-tangent, value and out-tangent of every component (tangents per second).
pub fn union_cubic<const N: usize>(
    curves: [Option<&Curve>; N],
    base: [f32; N],
    fps: f32,
    limits: &Limits,
) -> Result<UnionKeys<N>> {
    let frames = union_frames(&curves);
    if frames.len() as u64 > limits.max_keys {
        return Err(Error::new(ErrorKind::Limit, None, "too many keys"));
    }
    let last = frames.len() - 1;
    let mut keys = Vec::with_capacity(frames.len());
    let mut times = Vec::with_capacity(frames.len());
    let mut sweeps = curves.map(|c| c.map(Sweep::new));
    for (k, &f) in frames.iter().enumerate() {
        let mut key = [[0f32; N]; 3];
        // Per component, the value the segment before ends at when the curve jumps at this key.
        let mut jumps = [None::<f32>; N];
        let [ins, values, outs] = &mut key;
        let slots = ins.iter_mut().zip(values.iter_mut()).zip(outs.iter_mut()).zip(jumps.iter_mut());
        for ((sweep, &b), (((inn_slot, value_slot), out_slot), jump)) in sweeps.iter_mut().zip(&base).zip(slots) {
            let p = sweep.as_mut().map_or(Point::constant(b), |s| s.at(f));
            *inn_slot = if k == 0 { 0.0 } else { p.in_slope * fps };
            *value_slot = p.value;
            *out_slot = if k == last { 0.0 } else { p.out_slope * fps };
            *jump = p.jump;
        }
        // A jump at this key (a held segment): the segment before ends elsewhere, with this
        // key's in-tangents; the key itself then starts flat.
        if jumps.iter().any(Option::is_some) {
            let [ins, mut ends, _] = key;
            for (end, jump) in ends.iter_mut().zip(jumps) {
                if let Some(l) = jump.filter(|l| !l.is_nan()) {
                    *end = l;
                }
            }
            key[0] = [0.0; N];
            keys.push([ins, ends, [0.0; N]]);
            times.push(f / fps);
        }
        keys.push(key);
        times.push(f / fps);
    }
    if keys.len() as u64 > limits.max_keys {
        return Err(Error::new(ErrorKind::Limit, None, "too many keys"));
    }
    Ok((times, keys))
}

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
