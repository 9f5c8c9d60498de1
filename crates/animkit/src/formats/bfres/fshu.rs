//! FSHU shader parameter, colour and texture SRT animations (spec §7.3) and their conversion to
//! scalar tracks.
//!
//! One track per (material, parameter, component): float curves become `CubicSpline` scalar
//! tracks (§5.5), int curves `Step` tracks at their keys, constants one-key `Step` tracks. The
//! property is `param.component`: `mode`, `scale_x`, `scale_y`, `rotate`, `translate_x`,
//! `translate_y` for texture SRT, `r g b a` for colour, otherwise `param[+0xNN]`.

use super::curve::{rel, Curve, Value};
use super::fska::union_cubic;
use super::strings::name_field;
use super::subfile;
use crate::bytes::{Cursor, Endian};
use crate::error::{Error, Result};
use crate::formats::Limits;
use crate::model::{Clip, Interpolation, Target, Track, Values};

/// Which index group the FSHU came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    ShaderParam,
    Colour,
    TextureSrt,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Fshu {
    pub at: usize,
    pub name: String,
    pub flags: u32,
    pub frame_count: i32,
    pub param_anim_count: i32,
    pub curve_count: i32,
    pub baked_size: u32,
    pub materials: Vec<MaterialAnim>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MaterialAnim {
    pub name: String,
    pub begin_curve: i32,
    pub begin_param_anim: i32,
    pub params: Vec<ParamInfo>,
    pub curves: Vec<Curve>,
    /// `(target, raw value word)`.
    pub constants: Vec<(u32, u32)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParamInfo {
    pub name: String,
    pub begin_curve: u16,
    pub float_curves: u16,
    pub int_curves: u16,
    pub begin_constant: u16,
    pub constant_count: u16,
    pub sub_bind_index: u16,
}

impl Fshu {
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }
}

pub fn read(data: &[u8], at: usize, version: u32) -> Result<Fshu> {
    if version < 0x0304_0000 {
        return Err(Error::unsupported("FSHU before 3.4.0.0 is not supported"));
    }
    let (mut c, name) = subfile::open(data, at, b"FSHU")?;
    let flags = c.u32()?;
    let frame_count = c.i32()?;
    let mat_count = c.u16()?;
    let _ud = c.u16()?;
    let param_anim_count = c.i32()?;
    let curve_count = c.i32()?;
    let baked_size = c.u32()?;
    let _model = c.i32()?;
    let _bind = c.i32()?;
    let mats_at = rel(&mut c, "material animations")?;
    let materials = subfile::records(data, mats_at, at + 0x2C, mat_count.into(), 0x20, "material animation", |m| {
        read_material(data, m.offset(), version)
    })?;
    Ok(Fshu { at, name, flags, frame_count, param_anim_count, curve_count, baked_size, materials })
}

fn read_material(data: &[u8], at: usize, version: u32) -> Result<MaterialAnim> {
    let mut c = Cursor::new(data, Endian::Big);
    c.seek(at)?;
    let info_count = c.u16()?;
    let curve_count = c.u16()?;
    let constant_count = c.u16()?;
    c.skip(2)?;
    let begin_curve = c.i32()?;
    let begin_param_anim = c.i32()?;
    let name = name_field(data, &mut c)?;
    let infos_at = rel(&mut c, "param infos")?;
    let curves_at = rel(&mut c, "curves")?;
    let consts_at = rel(&mut c, "constants")?;
    let params = subfile::records(data, infos_at, at + 0x14, info_count.into(), 0x10, "param info", |p| {
        Ok(ParamInfo {
            begin_curve: p.u16()?,
            float_curves: p.u16()?,
            int_curves: p.u16()?,
            begin_constant: p.u16()?,
            constant_count: p.u16()?,
            sub_bind_index: p.u16()?,
            name: name_field(data, p)?,
        })
    })?;
    let curves = Curve::read_array(data, curves_at, at + 0x18, curve_count.into(), version)?;
    let constants = subfile::records(data, consts_at, at + 0x1C, constant_count.into(), 8, "constant", |k| {
        Ok((k.u32()?, k.u32()?))
    })?;
    Ok(MaterialAnim { name, begin_curve, begin_param_anim, params, curves, constants })
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

pub fn to_clip(anim: &Fshu, kind: Kind, fps: f32, limits: &Limits) -> Result<Clip> {
    let mut tracks = Vec::new();
    for mat in &anim.materials {
        for p in &mat.params {
            let begin = usize::from(p.begin_curve);
            let count = usize::from(p.float_curves) + usize::from(p.int_curves);
            for ci in begin..begin + count {
                let curve = mat
                    .curves
                    .get(ci)
                    .ok_or_else(|| Error::invalid(anim.at, format!("{}: curve {ci} out of range", p.name)))?;
                let target = Target::Material {
                    material: mat.name.as_str().into(),
                    property: format!("{}.{}", p.name, component(kind, curve.target)).into(),
                };
                let window = anim.frame_count.max(0) as f32;
                if curve.is_float() {
                    let curve = curve.unrolled(0.0, window)?;
                    let (times, keys) = union_cubic([Some(&*curve)], [0.0], fps, limits)?;
                    let values = keys.iter().flat_map(|k| [k[0][0], k[1][0], k[2][0]]).collect();
                    tracks.push(Track {
                        target,
                        interpolation: Interpolation::CubicSpline,
                        times,
                        values: Values::Scalar(values),
                    });
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
                let &(t, raw) = mat
                    .constants
                    .get(ki)
                    .ok_or_else(|| Error::invalid(anim.at, format!("{}: constant {ki} out of range", p.name)))?;
                let v = if kind == Kind::TextureSrt && t == 0 {
                    Value::Int(raw as i32)
                } else {
                    Value::Float(f32::from_bits(raw))
                };
                tracks.push(Track {
                    target: Target::Material {
                        material: mat.name.as_str().into(),
                        property: format!("{}.{}", p.name, component(kind, t)).into(),
                    },
                    interpolation: Interpolation::Step,
                    times: vec![0.0],
                    values: Values::Scalar(vec![v.as_f32()]),
                });
            }
        }
    }
    Ok(subfile::clip(&anim.name, anim.frame_count, anim.looping(), fps, tracks))
}
