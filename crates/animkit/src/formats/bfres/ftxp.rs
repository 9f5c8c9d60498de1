//! FTXP texture pattern animations (spec §3, §6) and their conversion to texture-index tracks.
//!
//! One STEP track per (material, sampler): keys at the curve's frames (seconds at the chosen
//! fps), indices into the TextureRef list in node order; a sampler without a curve gets one key
//! with its base value. An index outside `[0, texRefCount)` is an error (§6).

use serde::{Deserialize, Serialize};

use super::curve::{Curve, Value};
use super::dict::entries_at;
use super::platform::Platform;
use super::subfile;
use crate::bytes::Cursor;
use crate::error::{Context, Error, Result};
use std::sync::Arc;

use crate::model::{Clip, Interpolation, Target, Track, Values};

/// An FTXP with its material patterns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ftxp {
    /// Position of the header.
    #[serde(skip)]
    pub at: usize,
    /// The animation's name.
    pub name: String,
    /// Flags (bit 2: looping).
    pub flags: u16,
    /// Frames.
    pub frame_count: i32,
    /// Runtime size of the baked curves (§8).
    pub baked_size: u32,
    /// The TextureRef names, in node order: what the curves' values index.
    pub textures: Vec<String>,
    /// Where each TextureRef's FTEX offset points (an absolute position in the file: the texture
    /// in this file's FTEX group, as Mario Kart 8 stores them), or `None` when null (textures
    /// in a separate `.Tex1` file). Empty: every one null.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub texture_ftex: Vec<Option<usize>>,
    /// One entry per animated material.
    pub materials: Vec<MaterialPattern>,
}

/// One material of an FTXP.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialPattern {
    /// The material's name.
    pub name: String,
    /// Derived (the writer recomputes it).
    #[serde(default)]
    pub begin_curve: i32,
    /// Derived (the writer recomputes it).
    #[serde(default)]
    pub begin_pat_anim: i32,
    /// One info per sampler.
    pub infos: Vec<PatternInfo>,
    /// The material's curves.
    pub curves: Vec<Curve>,
    /// Per info, the texture index without a curve (optional).
    pub base_values: Vec<u16>,
}

/// A sampler's curve (or base value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternInfo {
    /// The curve of the sampler (material-local), negative for none.
    pub curve_index: i8,
    /// Sub-bind index.
    pub sub_bind_index: i8,
    /// The sampler's name.
    pub sampler: String,
}

impl Ftxp {
    /// Whether the animation loops (flags bit 2).
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }
}

/// Reads the FTXP at `at` (Wii U).
pub fn read(data: &[u8], at: usize, platform: Platform) -> Result<Ftxp> {
    let (mut c, name) = platform.open(data, at, b"FTXP")?;
    let flags = c.u16()?;
    let new = platform.since_3_4();
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
    let mats_at = platform.offset(&mut c, "material animations")?;
    let refs_at = platform.offset(&mut c, "texture refs")?;
    // TextureRef records: (name offset, FTEX offset); from 3.4 reached through an index group.
    let texture_ref = |t: &mut Cursor| -> Result<(String, Option<usize>)> {
        Ok((platform.name(data, t)?, platform.offset(t, "FTEX")?))
    };
    let refs: Vec<(String, Option<usize>)> = match refs_at {
        None => Vec::new(),
        Some(r) if new => entries_at(data, r)
            .within(|| "texture refs")?
            .into_iter()
            .map(|(name, record)| match record {
                Some(at) => platform
                    .records(data, (at, Some(at)), 1, 8, "texture ref", texture_ref)
                    .map(|mut v| (name, v.pop().and_then(|r| r.1))),
                None => Ok((name, None)),
            })
            .collect::<Result<_>>()?,
        r => platform.records(data, (at + 0x30, r), tex_count.into(), 8, "texture ref", texture_ref)?,
    };
    let texture_ftex = if refs.iter().all(|r| r.1.is_none()) { Vec::new() } else { refs.iter().map(|r| r.1).collect() };
    let textures = refs.into_iter().map(|r| r.0).collect();
    let materials =
        platform.records(data, (at + 0x2C, mats_at), mat_count.into(), 0x1C, "material animation", |m| {
            read_material(data, m, platform)
        })?;
    Ok(Ftxp { at, name, flags, frame_count, baked_size, textures, texture_ftex, materials })
}

fn read_material(data: &[u8], c: &mut Cursor, platform: Platform) -> Result<MaterialPattern> {
    let at = c.offset();
    let info_count = c.u16()?;
    let curve_count = c.u16()?;
    let begin_curve = c.i32()?;
    let begin_pat_anim = c.i32()?;
    let name = platform.name(data, c)?;
    let infos_at = platform.offset(c, "pattern infos")?;
    let curves_at = platform.offset(c, "curves")?;
    let base_at = platform.offset(c, "base values")?;
    let infos = platform.records(data, (at + 0x10, infos_at), info_count.into(), 8, "pattern info", |p| {
        let curve_index = p.i8()?;
        let sub_bind_index = p.i8()?;
        p.skip(2)?;
        Ok(PatternInfo { curve_index, sub_bind_index, sampler: platform.name(data, p)? })
    })?;
    // Optional: without it every sampler without a curve shows texture 0.
    let base_values = match base_at {
        Some(_) => platform.records(data, (at + 0x18, base_at), info_count.into(), 2, "base value", |b| b.u16())?,
        None => Vec::new(),
    };
    let curves = Curve::read_array(data, curves_at, at + 0x14, curve_count.into(), platform)?;
    Ok(MaterialPattern { name, begin_curve, begin_pat_anim, infos, curves, base_values })
}

/// The texture-index STEP track of a material's sampler: with a curve, keys over the
/// animation's frames `0..=frame_count` (and the curve's own keys beyond them), its pre/post
/// wrap modes applied (see `unroll`), the texture index wherever it changes (integer curves
/// exactly as stored, float curves truncated); without one, one key `constant`. Every index
/// must lie in `textures` (an error at `at`, the subfile, otherwise).
pub fn pattern_track(
    at: usize,
    textures: &Arc<[String]>,
    (material, sampler): (&str, &str),
    (curve, constant): (Option<&Curve>, i64),
    frame_count: i32,
    fps: f32,
) -> Result<Track> {
    let n = textures.len();
    let check = |v: i64| -> Result<u32> {
        u32::try_from(v)
            .ok()
            .filter(|&i| (i as usize) < n)
            .ok_or_else(|| Error::invalid(at, format!("{material} {sampler}: texture index {v} outside 0..{n}")))
    };
    let (mut times, mut indices) = (Vec::new(), Vec::new());
    match curve {
        Some(curve) => {
            for (f, v) in curve.step_keys(0.0, frame_count.max(0) as f32)? {
                let v = match v {
                    Value::Int(v) => i64::from(v),
                    other => other.as_f32() as i64,
                };
                times.push(f / fps);
                indices.push(check(v)?);
            }
        }
        None => (times, indices) = (vec![0.0], vec![check(constant)?]),
    }
    Ok(Track {
        target: Target::Material { material: material.into(), property: sampler.into() },
        interpolation: Interpolation::Step,
        times,
        values: Values::TextureIndex { indices, textures: textures.clone() },
    })
}

/// Converts an FTXP to a clip of texture-index tracks.
pub fn to_clip(anim: &Ftxp, fps: f32) -> Result<Clip> {
    let mut tracks = Vec::new();
    let textures: Arc<[String]> = anim.textures.as_slice().into();
    for mat in &anim.materials {
        for (j, info) in mat.infos.iter().enumerate() {
            let curve = match usize::try_from(info.curve_index) {
                Ok(i) => Some(mat.curves.get(i).ok_or_else(|| {
                    Error::invalid(anim.at, format!("curve index {} out of range", info.curve_index))
                })?),
                Err(_) => None,
            };
            let base = i64::from(mat.base_values.get(j).copied().unwrap_or(0));
            let names = (mat.name.as_str(), info.sampler.as_str());
            tracks.push(pattern_track(anim.at, &textures, names, (curve, base), anim.frame_count, fps)?);
        }
    }
    Ok(subfile::clip(&anim.name, anim.frame_count, anim.looping(), fps, tracks))
}
