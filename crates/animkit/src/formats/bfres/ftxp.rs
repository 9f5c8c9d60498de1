//! FTXP texture pattern animations (spec §3, §6) and their conversion to texture-index tracks.
//!
//! One STEP track per (material, sampler): keys at the curve's frames (seconds at the chosen
//! fps), indices into the TextureRef list in node order; a sampler without a curve gets one key
//! with its base value. An index outside `[0, texRefCount)` is an error (§6).

use super::curve::{rel, Curve, Value};
use super::dict::entries_at;
use super::strings::name_field;
use super::subfile;
use crate::bytes::{Cursor, Endian};
use crate::error::{Context, Error, Result};
use std::sync::Arc;

use crate::model::{Clip, Interpolation, Target, Track, Values};

#[derive(Debug, Clone, PartialEq)]
pub struct Ftxp {
    pub at: usize,
    pub name: String,
    pub flags: u16,
    pub frame_count: i32,
    pub baked_size: u32,
    pub textures: Vec<String>,
    /// Where each TextureRef's FTEX offset points (an absolute position in the file: the texture
    /// in this file's FTEX group, as Mario Kart 8 stores them), or `None` when null (textures
    /// in a separate `.Tex1` file). Empty: every one null.
    pub texture_ftex: Vec<Option<usize>>,
    pub materials: Vec<MaterialPattern>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MaterialPattern {
    pub name: String,
    pub begin_curve: i32,
    pub begin_pat_anim: i32,
    pub infos: Vec<PatternInfo>,
    pub curves: Vec<Curve>,
    pub base_values: Vec<u16>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PatternInfo {
    pub curve_index: i8,
    pub sub_bind_index: i8,
    pub sampler: String,
}

impl Ftxp {
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }
}

pub fn read(data: &[u8], at: usize, version: u32) -> Result<Ftxp> {
    let (mut c, name) = subfile::open(data, at, b"FTXP")?;
    let flags = c.u16()?;
    let new = version >= 0x0304_0000;
    let (frame_count, tex_count, mat_count, baked_size) = if new {
        let _ud = c.u16()?;
        let fc = c.i32()?;
        let tc = c.u16()?;
        let mc = c.u16()?;
        let _infos = c.u32()?;
        let _curves = c.u32()?;
        (fc, tc, mc, c.u32()?)
    } else {
        let fc = c.u16()?;
        let tc = c.u16()?;
        let mc = c.u16()?;
        let _ud = c.u16()?;
        let _infos = c.u16()?;
        let _curves = c.i32()?;
        let bs = c.u32()?;
        c.skip(4)?;
        (i32::from(fc), tc, mc, bs)
    };
    let _model = c.i32()?;
    let _bind = c.i32()?;
    let mats_at = rel(&mut c, "material animations")?;
    let refs_at = rel(&mut c, "texture refs")?;
    // TextureRef records: (name offset, FTEX offset); from 3.4 reached through an index group.
    let texture_ref =
        |t: &mut Cursor| -> Result<(String, Option<usize>)> { Ok((name_field(data, t)?, rel(t, "FTEX")?)) };
    let refs: Vec<(String, Option<usize>)> = match refs_at {
        None => Vec::new(),
        Some(r) if new => entries_at(data, r)
            .within(|| "texture refs")?
            .into_iter()
            .map(|(name, record)| match record {
                Some(at) => subfile::records(data, Some(at), at, 1, 8, "texture ref", texture_ref)
                    .map(|mut v| (name, v.pop().and_then(|r| r.1))),
                None => Ok((name, None)),
            })
            .collect::<Result<_>>()?,
        r => subfile::records(data, r, at + 0x30, tex_count.into(), 8, "texture ref", texture_ref)?,
    };
    let texture_ftex = if refs.iter().all(|r| r.1.is_none()) { Vec::new() } else { refs.iter().map(|r| r.1).collect() };
    let textures = refs.into_iter().map(|r| r.0).collect();
    let materials = subfile::records(data, mats_at, at + 0x2C, mat_count.into(), 0x1C, "material animation", |m| {
        read_material(data, m.offset(), version)
    })?;
    Ok(Ftxp { at, name, flags, frame_count, baked_size, textures, texture_ftex, materials })
}

fn read_material(data: &[u8], at: usize, version: u32) -> Result<MaterialPattern> {
    let mut c = Cursor::new(data, Endian::Big);
    c.seek(at)?;
    let info_count = c.u16()?;
    let curve_count = c.u16()?;
    let begin_curve = c.i32()?;
    let begin_pat_anim = c.i32()?;
    let name = name_field(data, &mut c)?;
    let infos_at = rel(&mut c, "pattern infos")?;
    let curves_at = rel(&mut c, "curves")?;
    let base_at = rel(&mut c, "base values")?;
    let infos = subfile::records(data, infos_at, at + 0x10, info_count.into(), 8, "pattern info", |p| {
        let curve_index = p.i8()?;
        let sub_bind_index = p.i8()?;
        p.skip(2)?;
        Ok(PatternInfo { curve_index, sub_bind_index, sampler: name_field(data, p)? })
    })?;
    // Optional: without it every sampler without a curve shows texture 0.
    let base_values = match base_at {
        Some(_) => subfile::records(data, base_at, at + 0x18, info_count.into(), 2, "base value", |b| b.u16())?,
        None => Vec::new(),
    };
    let curves = Curve::read_array(data, curves_at, at + 0x14, curve_count.into(), version)?;
    Ok(MaterialPattern { name, begin_curve, begin_pat_anim, infos, curves, base_values })
}

/// The keys of a texture-pattern curve over the animation's frames `0..=frame_count` (and the
/// curve's own keys beyond them), with its pre/post wrap modes applied (see
/// [`super::unroll`]): frames in seconds and the texture index wherever it changes (integer
/// curves exactly as stored, float curves truncated), every index passed through `check`.
pub fn pattern_keys(
    curve: &Curve,
    frame_count: i32,
    fps: f32,
    mut check: impl FnMut(i64) -> Result<u32>,
) -> Result<(Vec<f32>, Vec<u32>)> {
    let keys = curve.step_keys(0.0, frame_count.max(0) as f32)?;
    let mut times = Vec::with_capacity(keys.len());
    let mut indices = Vec::with_capacity(keys.len());
    for (f, v) in keys {
        let v = match v {
            Value::Int(v) => i64::from(v),
            other => other.as_f32() as i64,
        };
        times.push(f / fps);
        indices.push(check(v)?);
    }
    Ok((times, indices))
}

pub fn to_clip(anim: &Ftxp, fps: f32) -> Result<Clip> {
    let n = anim.textures.len();
    let check = |v: i64, what: &str| -> Result<u32> {
        u32::try_from(v)
            .ok()
            .filter(|&i| (i as usize) < n)
            .ok_or_else(|| Error::invalid(anim.at, format!("{what}: texture index {v} outside 0..{n}")))
    };
    let mut tracks = Vec::new();
    let textures: Arc<[String]> = anim.textures.as_slice().into();
    for mat in &anim.materials {
        let material: Arc<str> = mat.name.as_str().into();
        for (j, info) in mat.infos.iter().enumerate() {
            let target = Target::Material { material: material.clone(), property: info.sampler.as_str().into() };
            let (times, indices) = if info.curve_index >= 0 {
                let curve = mat
                    .curves
                    .get(info.curve_index as usize)
                    .ok_or_else(|| Error::invalid(anim.at, format!("curve index {} out of range", info.curve_index)))?;
                pattern_keys(curve, anim.frame_count, fps, |v| check(v, &format!("{} {}", mat.name, info.sampler)))?
            } else {
                let base = mat.base_values.get(j).copied().unwrap_or(0);
                (vec![0.0], vec![check(i64::from(base), &format!("{} {}", mat.name, info.sampler))?])
            };
            tracks.push(Track {
                target,
                interpolation: Interpolation::Step,
                times,
                values: Values::TextureIndex { indices, textures: textures.clone() },
            });
        }
    }
    Ok(subfile::clip(&anim.name, anim.frame_count, anim.looping(), fps, tracks))
}
