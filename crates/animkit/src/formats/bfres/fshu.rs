//! FSHU shader parameter, colour and texture SRT animations (spec §7.3) and their conversion to
//! scalar tracks.
//!
//! One track per (material, parameter, component): float curves become `CubicSpline` scalar
//! tracks (§5.5), int curves `Step` tracks at their keys, constants one-key `Step` tracks. The
//! property is `param.component`: `mode`, `scale_x`, `scale_y`, `rotate`, `translate_x`,
//! `translate_y` for texture SRT, `r g b a` for colour, otherwise `param[+0xNN]`.

use serde::{Deserialize, Serialize};

use super::curve::{Curve, Value};
use super::platform::Platform;
use super::subfile;
use super::union::union_cubic;
use crate::bytes::Cursor;
use crate::error::{Error, Result};
use crate::format::Limits;
use crate::model::{Clip, Interpolation, Target, Track, Values};

/// Which index group the FSHU came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The shader-parameter group.
    ShaderParam,
    /// The colour group.
    Colour,
    /// The texture SRT group.
    TextureSrt,
}

/// An FSHU with its material animations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fshu {
    /// Position of the header.
    #[serde(skip)]
    pub at: usize,
    /// The animation's name.
    pub name: String,
    /// Flags (bit 2: looping).
    pub flags: u32,
    /// Frames.
    pub frame_count: i32,
    /// The stored count of animated parameters.
    pub param_anim_count: i32,
    /// The stored curve total.
    pub curve_count: i32,
    /// Runtime size of the baked curves (§8).
    pub baked_size: u32,
    /// One entry per animated material.
    pub materials: Vec<MaterialAnim>,
}

/// One material of an FSHU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialAnim {
    /// The material's name.
    pub name: String,
    /// Derived (the writer recomputes it).
    #[serde(default)]
    pub begin_curve: i32,
    /// Derived (the writer recomputes it).
    #[serde(default)]
    pub begin_param_anim: i32,
    /// The parameters animated.
    pub params: Vec<ParamInfo>,
    /// The material's curves.
    pub curves: Vec<Curve>,
    /// `(target, raw value word)`.
    pub constants: Vec<(u32, u32)>,
}

/// A shader parameter's curves and constants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamInfo {
    /// The parameter's name.
    pub name: String,
    /// First curve of the parameter (material-local).
    pub begin_curve: u16,
    /// Number of float curves.
    pub float_curves: u16,
    /// Number of int curves.
    pub int_curves: u16,
    /// First constant (material-local).
    pub begin_constant: u16,
    /// Number of constants.
    pub constant_count: u16,
    /// Sub-bind index.
    pub sub_bind_index: u16,
}

impl Fshu {
    /// Whether the animation loops (flags bit 2).
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }
}

/// Reads the FSHU at `at` (Wii U 3.4 and later).
pub fn read(data: &[u8], at: usize, platform: Platform) -> Result<Fshu> {
    if !platform.since_3_4() {
        return Err(Error::unsupported("FSHU before 3.4.0.0 is not supported"));
    }
    let (mut c, name) = platform.open(data, at, b"FSHU")?;
    let flags = c.u32()?;
    let frame_count = c.i32()?;
    let mat_count = c.u16()?;
    let _ud = c.u16()?;
    let param_anim_count = c.i32()?;
    let curve_count = c.i32()?;
    let baked_size = c.u32()?;
    let _model = c.i32()?;
    let _bind = c.i32()?;
    let mats_at = platform.offset(&mut c, "material animations")?;
    let materials =
        platform.records(data, (at + 0x2C, mats_at), mat_count.into(), 0x20, "material animation", |m| {
            read_material(data, m, platform)
        })?;
    Ok(Fshu { at, name, flags, frame_count, param_anim_count, curve_count, baked_size, materials })
}

fn read_material(data: &[u8], c: &mut Cursor, platform: Platform) -> Result<MaterialAnim> {
    let at = c.offset();
    let info_count = c.u16()?;
    let curve_count = c.u16()?;
    let constant_count = c.u16()?;
    c.skip(2)?;
    let begin_curve = c.i32()?;
    let begin_param_anim = c.i32()?;
    let name = platform.name(data, c)?;
    let infos_at = platform.offset(c, "param infos")?;
    let curves_at = platform.offset(c, "curves")?;
    let consts_at = platform.offset(c, "constants")?;
    let params = read_param_infos(data, infos_at, at + 0x14, info_count.into(), platform)?;
    let curves = Curve::read_array(data, curves_at, at + 0x18, curve_count.into(), platform)?;
    let constants = read_constants(data, consts_at, at + 0x1C, constant_count.into(), platform)?;
    Ok(MaterialAnim { name, begin_curve, begin_param_anim, params, curves, constants })
}

/// The `count` param infos at `array` (stored at `field`). Wii U (`0x10`): `u16 beginCurve,
/// floatCurves, intCurves, beginConstant, constantCount, subBindIndex; off name`. Switch
/// (`0x18`): the name offset first, then the six `u16` and 4 pad bytes.
pub fn read_param_infos(
    data: &[u8],
    array: Option<usize>,
    field: usize,
    count: usize,
    platform: Platform,
) -> Result<Vec<ParamInfo>> {
    let size = if platform.is_switch() { 0x18 } else { 0x10 };
    platform.records(data, (field, array), count, size, "param info", |p| {
        let switch_name = if platform.is_switch() { Some(platform.name(data, p)?) } else { None };
        let mut info = ParamInfo {
            name: String::new(),
            begin_curve: p.u16()?,
            float_curves: p.u16()?,
            int_curves: p.u16()?,
            begin_constant: p.u16()?,
            constant_count: p.u16()?,
            sub_bind_index: p.u16()?,
        };
        info.name = match switch_name {
            Some(name) => name,
            None => platform.name(data, p)?,
        };
        Ok(info)
    })
}

/// The `count` animation constants at `array` (stored at `field`): `(u32 target, value word)`.
pub fn read_constants(
    data: &[u8],
    array: Option<usize>,
    field: usize,
    count: usize,
    platform: Platform,
) -> Result<Vec<(u32, u32)>> {
    platform.records(data, (field, array), count, 8, "constant", |k| Ok((k.u32()?, k.u32()?)))
}

fn component(kind: Kind, target: u32) -> String {
    match (kind, target) {
        (Kind::TextureSrt, 0x00) => "mode".into(),
        (Kind::TextureSrt, 0x04) => "scale_x".into(),
        (Kind::TextureSrt, 0x08) => "scale_y".into(),
        (Kind::TextureSrt, 0x0C) => "rotate".into(),
        (Kind::TextureSrt, 0x10) => "translate_x".into(),
        (Kind::TextureSrt, 0x14) => "translate_y".into(),
        (Kind::Colour, t) if t < 16 && t % 4 == 0 => {
            ["r", "g", "b", "a"].get((t / 4) as usize).copied().unwrap_or("?").into()
        }
        (_, t) => format!("[+0x{t:02X}]"),
    }
}

/// Converts an FSHU of group `kind` to a clip of scalar tracks.
pub fn to_clip(anim: &Fshu, kind: Kind, fps: f32, limits: &Limits) -> Result<Clip> {
    let mut tracks = Vec::new();
    for m in &anim.materials {
        let material = (m.name.as_str(), m.params.as_slice(), m.curves.as_slice(), m.constants.as_slice());
        param_tracks(&mut tracks, (anim.at, anim.frame_count), kind, material, fps, limits)?;
    }
    Ok(subfile::clip(&anim.name, anim.frame_count, anim.looping(), fps, tracks))
}

/// A material's animated shader parameters as FSHU and FMAA both hold them: its name, param
/// infos, curves and `(target, raw value word)` constants (indices material-local).
pub type MaterialParams<'a> = (&'a str, &'a [ParamInfo], &'a [Curve], &'a [(u32, u32)]);

/// Appends the scalar tracks of one material's parameters to `tracks`: one per curve (float
/// curves cubic over the animation's `frame_count` frames, int curves STEP at their keys) and a
/// one-key STEP track per constant. `at` is the subfile's position, for errors.
pub fn param_tracks(
    tracks: &mut Vec<Track>,
    (at, frame_count): (usize, i32),
    kind: Kind,
    (material, params, curves, constants): MaterialParams,
    fps: f32,
    limits: &Limits,
) -> Result<()> {
    let window = frame_count.max(0) as f32;
    let target = |p: &ParamInfo, t: u32| Target::Material {
        material: material.into(),
        property: format!("{}.{}", p.name, component(kind, t)).into(),
    };
    for p in params {
        let begin = usize::from(p.begin_curve);
        for ci in begin..begin + usize::from(p.float_curves) + usize::from(p.int_curves) {
            let curve =
                curves.get(ci).ok_or_else(|| Error::invalid(at, format!("{}: curve {ci} out of range", p.name)))?;
            let target = target(p, curve.target);
            if curve.is_float() {
                let curve = curve.unrolled(0.0, window)?;
                let (times, keys) = union_cubic([Some(&*curve)], [0.0], fps, limits)?;
                let values = Values::Scalar(keys.iter().flat_map(|k| [k[0][0], k[1][0], k[2][0]]).collect());
                tracks.push(Track { target, interpolation: Interpolation::CubicSpline, times, values });
            } else {
                let keys = curve.step_keys(0.0, window)?;
                let (times, values) = keys.into_iter().map(|(f, v)| (f / fps, v.as_f32())).unzip();
                tracks.push(Track {
                    target,
                    interpolation: Interpolation::Step,
                    times,
                    values: Values::Scalar(values),
                });
            }
        }
        let begin = usize::from(p.begin_constant);
        for ki in begin..begin + usize::from(p.constant_count) {
            let &(t, raw) = constants
                .get(ki)
                .ok_or_else(|| Error::invalid(at, format!("{}: constant {ki} out of range", p.name)))?;
            let v = if kind == Kind::TextureSrt && t == 0 {
                Value::Int(raw as i32)
            } else {
                Value::Float(f32::from_bits(raw))
            };
            let values = Values::Scalar(vec![v.as_f32()]);
            tracks.push(Track { target: target(p, t), interpolation: Interpolation::Step, times: vec![0.0], values });
        }
    }
    Ok(())
}
