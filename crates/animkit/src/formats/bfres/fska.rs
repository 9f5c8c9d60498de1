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

use super::curve::{write_curves, Curve};
use super::euler::rotation_keys;
use super::layout::{count16, narrow, opening, values, write_dict, In, Io, Offset, Out};
use super::platform::Platform;
use super::subfile;
use super::union::union_cubic;
use crate::bytes::{round_up, Cursor};
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
#[serde(deny_unknown_fields)]
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
#[non_exhaustive]
pub enum UserValues {
    /// `i32` or `f32` values as raw words.
    Words(Vec<u32>),
    /// String offsets, resolved.
    Strings(Vec<String>),
    /// Bytes (padded to 4 when stored).
    Bytes(Vec<u8>),
}

impl UserValues {
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            UserValues::Words(v) => v.len(),
            UserValues::Strings(v) => v.len(),
            UserValues::Bytes(v) => v.len(),
        }
    }

    /// Whether there is no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl UserData {
    /// The entry's head, read or written: `off name; u16 count; u8 type; u8 pad`.
    fn walk(&mut self, io: &mut impl Io, count: &mut u16) -> Result<()> {
        io.name(&mut self.name)?;
        values!(io, *count, self.kind);
        io.value(&mut self.pad)
    }
}

/// Reads the user-data index group at `at` and its entries (named as in the index group).
pub fn read_user_data(data: &[u8], at: usize) -> Result<Vec<UserData>> {
    let mut out = Vec::new();
    for (name, target) in super::dict::entries_at(data, at)? {
        let Some(e) = target else {
            return Err(Error::invalid(at, "user data entry without data"));
        };
        let platform = Platform::WiiU { version: 0x0304_0000 };
        let mut c = platform.cursor(data, e)?;
        let mut entry = UserData { name: String::new(), kind: 0, pad: 0, values: UserValues::Words(Vec::new()) };
        let mut count = 0;
        entry.walk(&mut In { c: &mut c, platform }, &mut count)?;
        entry.values = match entry.kind {
            0 | 1 => {
                let n = c.count(u64::from(count), 4, "user data value")?;
                UserValues::Words((0..n).map(|_| c.u32()).collect::<Result<_>>()?)
            }
            2 | 3 => {
                let n = c.count(u64::from(count), 4, "user data string")?;
                UserValues::Strings((0..n).map(|_| platform.name(data, &mut c)).collect::<Result<_>>()?)
            }
            4 => UserValues::Bytes(c.take(usize::from(count))?.to_vec()),
            k => return Err(Error::invalid(e + 6, format!("unknown user data type {k}"))),
        };
        out.push(UserData { name, ..entry });
    }
    Ok(out)
}

/// Writes a user-data dictionary followed by its entries (see [`read_user_data`]), the values
/// inline after each head.
pub fn write_user_data(o: &mut Out, entries: &[UserData]) -> Result<()> {
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let mut targets = Vec::with_capacity(entries.len());
    let mut p = o.pos() + 8 + 16 * (entries.len() + 1);
    for e in entries {
        targets.push(p);
        p += 8 + match &e.values {
            UserValues::Bytes(v) => round_up(v.len(), 4),
            v => 4 * v.len(),
        };
    }
    write_dict(o, &names, &targets)?;
    for e in entries {
        let mut head = UserData { name: e.name.clone(), values: UserValues::Words(Vec::new()), ..*e };
        head.walk(o, &mut (e.values.len() as u16))?;
        match &e.values {
            UserValues::Words(v) => v.iter().for_each(|&x| o.w.u32(x)),
            UserValues::Strings(v) => v.iter().for_each(|x| o.string(x)),
            UserValues::Bytes(v) => {
                o.w.bytes(v);
                o.align();
            }
        }
    }
    Ok(())
}

/// One bone's animation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
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
#[non_exhaustive]
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

/// The FSKA header's links to its data: the bone count and the offsets (read: where they point;
/// written: their slots).
#[derive(Default)]
pub(crate) struct FskaSlots {
    bone_count: u16,
    bind: Offset,
    bones: Offset,
    user: Offset,
}

/// Where an FSKA's data parts were written (absolute).
pub(crate) struct FskaParts {
    /// The bind indices.
    pub bind: usize,
    /// The BoneAnim array.
    pub bones: usize,
    /// The user-data dictionary, when there is user data.
    pub user: Option<usize>,
}

impl FskaSlots {
    /// Points the header's offsets at the data.
    pub(crate) fn link(&self, o: &mut Out, parts: &FskaParts) {
        o.patch(self.bind.field, parts.bind);
        o.patch(self.bones.field, parts.bones);
        if let Some(user) = parts.user {
            o.patch(self.user.field, user);
        }
    }
}

impl Fska {
    /// The FSKA header, read or written. Wii U after the opening: `u32 flags`; from 3.4 `s32
    /// frameCount; u16 boneCount, userDataCount; s32 curveCount; u32 bakedSize`, before it the
    /// four counts as `u16` and 4 bytes after bakedSize; then off bone animations, skeleton, bind
    /// indices, user data. Switch (`0x60`; `0x50` in 0.9, whose flags follow the magic): off
    /// skeleton, bind indices, bone animations, user data, user dict; `u32 flags` (before 0.9);
    /// `s32 frameCount, curveCount; u32 bakedSize; u16 boneCount, userDataCount` and a pad word
    /// (before 0.9).
    fn walk(&mut self, io: &mut impl Io, bone_count: u16) -> Result<FskaSlots> {
        let p = io.platform();
        opening(io, b"FSKA", &mut self.flags, &mut self.name)?;
        let mut s = FskaSlots { bone_count, ..FskaSlots::default() };
        if p.is_switch() {
            io.runtime()?; // bound skeleton
            s.bind = io.offset("bind indices")?;
            s.bones = io.offset("bone animations")?;
            s.user = io.offset("user data")?;
            io.runtime()?; // user-data dictionary
            if !p.switch_0_9() {
                io.value(&mut self.flags)?;
            }
            values!(io, self.frame_count, self.curve_count, self.baked_size, s.bone_count, self.user_data_count);
            if !p.switch_0_9() {
                io.pad(4)?;
            }
            return Ok(s);
        }
        io.value(&mut self.flags)?;
        if p.since_3_4() {
            values!(io, self.frame_count, s.bone_count, self.user_data_count, self.curve_count, self.baked_size);
        } else {
            narrow(io, &mut self.frame_count, "frameCount")?;
            values!(io, s.bone_count, self.user_data_count);
            narrow(io, &mut self.curve_count, "curveCount")?;
            io.value(&mut self.baked_size)?;
            io.pad(4)?;
        }
        s.bones = io.offset("bone animations")?;
        io.runtime()?; // bound skeleton
        s.bind = io.offset("bind indices")?;
        s.user = io.offset("user data")?;
        Ok(s)
    }
}

/// Reads the FSKA at `at` (see `Fska::walk`; on Switch user data is not read).
pub fn read(data: &[u8], at: usize, platform: Platform) -> Result<Fska> {
    let mut c = platform.cursor(data, at)?;
    let mut anim = Fska { at, ..Fska::default() };
    let s = anim.walk(&mut In { c: &mut c, platform }, 0)?;
    if let (false, Some(u), 1..) = (platform.is_switch(), s.user.target, anim.user_data_count) {
        anim.user_data = read_user_data(data, u).within(|| "user data")?;
    }
    let size = match platform {
        Platform::WiiU { .. } => 0x18,
        p if p.switch_0_9() => 0x38,
        _ => 0x28,
    };
    anim.bones = platform.records(data, s.bones.pair(), s.bone_count.into(), size, "bone animation", |c| {
        BoneAnim::read(data, &mut In { c, platform })
    })?;
    Ok(anim)
}

/// Writes an FSKA (Wii U 3.4 and later, or Switch): its header, then its data.
pub fn write_fska(o: &mut Out, a: &Fska) -> Result<()> {
    if !o.platform().since_3_4() {
        return Err(Error::unsupported("writing FSKA before 3.4.0.0"));
    }
    let slots = fska_header(o, a)?;
    let parts = fska_data(o, a, &vec![0xFFFF; a.bones.len()])?;
    slots.link(o, &parts);
    Ok(())
}

/// The FSKA header (see `Fska::walk`) with its data offsets left to patch; the user-data count
/// is that of the entries written.
pub(crate) fn fska_header(o: &mut Out, a: &Fska) -> Result<FskaSlots> {
    let user_data_count = count16(a.user_data.len(), "user-data entries")?;
    let mut header = Fska { name: a.name.clone(), bones: Vec::new(), user_data: Vec::new(), user_data_count, ..*a };
    header.walk(o, count16(a.bones.len(), "bone animations")?)
}

/// An FSKA's data from the output's position: the bind indices, the BoneAnim array, per bone
/// its base values and curves, then the user data.
pub(crate) fn fska_data(o: &mut Out, a: &Fska, bind: &[u16]) -> Result<FskaParts> {
    let bind_at = o.pos();
    bind.iter().for_each(|&b| o.w.u16(b));
    o.align();
    let bones = o.pos();
    let slots = a.bones.iter().map(|b| b.write(o)).collect::<Result<Vec<_>>>()?;
    for (b, &[curves_slot, base_slot]) in a.bones.iter().zip(&slots) {
        let has_base = b.scale.is_some() || b.rotate.is_some() || b.translate.is_some();
        if !has_base && b.curves.is_empty() {
            continue;
        }
        if has_base {
            o.align();
        }
        o.here(base_slot, has_base);
        for v in b.scale.iter().flatten().chain(b.rotate.iter().flatten()).chain(b.translate.iter().flatten()) {
            o.w.f32(*v);
        }
        if !b.curves.is_empty() {
            o.align();
        }
        o.here(curves_slot, !b.curves.is_empty());
        write_curves(o, &b.curves)?;
    }
    let user = (!a.user_data.is_empty()).then(|| o.pos());
    if user.is_some() {
        write_user_data(o, &a.user_data)?;
    }
    Ok(FskaParts { bind: bind_at, bones, user })
}

impl BoneAnim {
    /// The bone animation, read or written. Wii U (`0x18`): `u32 flags; off name; u8
    /// beginRotate, beginTranslate, curveCount, beginBaseTranslate; u16 beginCurve` (low byte
    /// first) and 2 bytes; off curves, base data. Switch (`0x28`; `0x38` from 0.9 with two more
    /// `u64` after the offsets, zeros when written): off name, curves, base data; `u32 flags`;
    /// the four `u8`; `beginCurve` and 2 zero bytes; a pad word. Returns the curve and base
    /// offsets.
    fn walk(&mut self, io: &mut impl Io, count: &mut u8) -> Result<[Offset; 2]> {
        let p = io.platform();
        let mut arrays = [Offset::default(); 2];
        if p.is_switch() {
            io.name(&mut self.name)?;
            arrays = [io.offset("curves")?, io.offset("base data")?];
            if p.switch_0_9() {
                io.pad(16)?;
            }
        }
        io.value(&mut self.flags)?;
        if !p.is_switch() {
            io.name(&mut self.name)?;
        }
        values!(io, self.begin_rotate, self.begin_translate, *count, self.begin_base_translate);
        let begin_at = io.pos();
        let [lo, hi] = self.begin_curve.to_le_bytes();
        let mut begin = [lo, hi, 0, 0];
        io.value(&mut begin)?;
        if p.is_switch() && begin[2..] != [0, 0] {
            let begin = i32::from_le_bytes(begin);
            return Err(Error::invalid(begin_at, format!("beginCurve {begin} out of range")));
        }
        self.begin_curve = u16::from_le_bytes([begin[0], begin[1]]);
        if p.is_switch() {
            io.pad(4)?;
        } else {
            arrays = [io.offset("curves")?, io.offset("base data")?];
        }
        Ok(arrays)
    }

    /// Reads the bone animation at the cursor, with its base values and curves.
    fn read(data: &[u8], io: &mut In) -> Result<BoneAnim> {
        let (platform, at) = (io.platform, io.c.offset());
        let mut bone = BoneAnim { at, ..BoneAnim::default() };
        let mut count = 0;
        let [curves, base] = bone.walk(io, &mut count)?;
        if bone.flags & 0x38 != 0 {
            let base_at =
                base.target.ok_or_else(|| Error::invalid(base.field, "base data flagged but its offset is null"))?;
            bone.read_base(&mut platform.cursor(data, base_at)?)?;
        }
        bone.curves = Curve::read_array(data, curves, count.into(), platform)?;
        Ok(bone)
    }

    /// Writes the bone animation (see `walk`); returns the slots of the curve and base offsets.
    fn write(&self, o: &mut Out) -> Result<[usize; 2]> {
        let mut count =
            u8::try_from(self.curves.len()).map_err(|_| Error::unrepresentable("more than 255 curves in a bone"))?;
        let mut record = BoneAnim { name: self.name.clone(), curves: Vec::new(), ..*self };
        Ok(record.walk(o, &mut count)?.map(|a| a.field))
    }
}

/// Target offsets of the scale channels (§7.1).
pub(crate) const SCALE: [u32; 3] = [0x04, 0x08, 0x0C];
/// Target offsets of the translation channels (§7.1).
pub(crate) const TRANSLATE: [u32; 3] = [0x10, 0x14, 0x18];
/// Target offsets of the rotation channels (§7.1).
pub(crate) const ROTATE: [u32; 4] = [0x20, 0x24, 0x28, 0x2C];

/// Converts one FSKA to a clip.
pub fn to_clip(anim: &Fska, fps: f32, limits: &Limits) -> Result<Clip> {
    let mut tracks = Vec::with_capacity(3 * anim.bones.len());
    let window = anim.frame_count.max(0) as f32;
    let mut keys = 0;
    for bone in &anim.bones {
        let (target, counted) = (Target::Bone(BoneRef::named(bone.name.as_str())), tracks.len());
        // Each curve over the whole animation, its wrap modes applied.
        let unrolled = bone.curves.iter().map(|c| c.unrolled(0.0, window)).collect::<Result<Vec<_>>>()?;
        let curve_for = |target: u32| unrolled.iter().find(|c| c.target == target).map(|c| &**c);
        // A cubic scale or translation track: the keys at the union of the component curves' frames.
        let vec3_track = |target, curves, base, values: fn(Vec<Vec3>) -> Values| -> Result<Track> {
            let (times, k) = union_cubic(curves, base, fps, limits)?;
            let values = values(k.as_flattened().iter().map(|&v| Vec3::from_array(v)).collect());
            Ok(Track { target, interpolation: Interpolation::CubicSpline, times, values })
        };
        let scale = SCALE.map(curve_for);
        if scale.iter().any(Option::is_some) || bone.scale.is_some() {
            tracks.push(vec3_track(target.clone(), scale, bone.scale.unwrap_or([1.0; 3]), Values::Scale)?);
        }
        let rot = ROTATE.map(curve_for);
        if rot.iter().any(Option::is_some) || bone.rotate.is_some() {
            let base = bone.rotate.unwrap_or([0.0, 0.0, 0.0, 1.0]);
            tracks.push(rotation_track(anim, &target, rot, base, fps, limits)?);
        }
        let tr = TRANSLATE.map(curve_for);
        if tr.iter().any(Option::is_some) || bone.translate.is_some() {
            tracks.push(vec3_track(target, tr, bone.translate.unwrap_or([0.0; 3]), Values::Translation)?);
        }
        keys += tracks.iter().skip(counted).map(|t| t.times.len() as u64).sum::<u64>();
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
    let (times, values) = match anim.rotate_mode() {
        RotateMode::Quaternion => {
            let (times, k) = union_cubic(rot, base, fps, limits)?;
            (times, k.as_flattened().iter().map(|&q| Quat::from_array(q)).collect())
        }
        RotateMode::EulerXyz => {
            let [rx, ry, rz, _] = rot;
            let [bx, by, bz, _] = base;
            rotation_keys([rx, ry, rz], [bx, by, bz], fps, limits)?
        }
    };
    Ok(Track {
        target: target.clone(),
        interpolation: Interpolation::CubicSpline,
        times,
        values: Values::Rotation(values),
    })
}
