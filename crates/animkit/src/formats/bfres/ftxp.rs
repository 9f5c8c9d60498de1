//! FTXP texture pattern animations (spec §3, §6) and their conversion to texture-index tracks.
//!
//! One STEP track per (material, sampler): keys at the curve's frames (seconds at the chosen
//! fps), indices into the TextureRef list in node order; a sampler without a curve gets one key
//! with its base value. An index outside `[0, texRefCount)` is an error (§6).

use super::curve::{rel, Curve, Value};
use super::dict::entries_at;
use super::strings::{name_at, name_field};
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
    let mut c = Cursor::new(data, Endian::Big);
    c.seek(at)?;
    if c.array::<4>()? != *b"FTXP" {
        return Err(Error::invalid(at, "not an FTXP"));
    }
    let name = name_field(data, &mut c)?;
    let _path = c.i32()?;
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
    let textures = match refs_at {
        None => Vec::new(),
        Some(r) if new => entries_at(data, r).within(|| "texture refs")?.into_iter().map(|e| e.0).collect(),
        Some(r) => {
            let mut t = Cursor::new(data, Endian::Big);
            t.seek(r)?;
            t.count(u64::from(tex_count), 8, "texture ref")?;
            let mut names = Vec::new();
            for _ in 0..tex_count {
                names.push(name_field(data, &mut t)?);
                t.skip(4)?;
            }
            names
        }
    };
    let mut materials = Vec::new();
    if mat_count > 0 {
        let mats_at = mats_at.ok_or_else(|| Error::invalid(at + 0x2C, "null material array"))?;
        let mut m = Cursor::new(data, Endian::Big);
        m.seek(mats_at)?;
        m.count(u64::from(mat_count), 0x1C, "material animation")?;
        for i in 0..usize::from(mat_count) {
            materials.push(read_material(data, mats_at + 0x1C * i, version).within(|| format!("material {i}"))?);
        }
    }
    Ok(Ftxp { at, name, flags, frame_count, baked_size, textures, materials })
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
    let mut infos = Vec::new();
    let mut base_values = Vec::new();
    if info_count > 0 {
        let infos_at = infos_at.ok_or_else(|| Error::invalid(at + 0x14, "null pattern info array"))?;
        let mut p = Cursor::new(data, Endian::Big);
        p.seek(infos_at)?;
        p.count(u64::from(info_count), 8, "pattern info")?;
        for _ in 0..info_count {
            let curve_index = p.i8()?;
            let sub_bind_index = p.i8()?;
            p.skip(2)?;
            let field = p.offset();
            let off = p.i32()?;
            let sampler = if off == 0 { String::new() } else { name_at(data, field as i64 + i64::from(off))? };
            infos.push(PatternInfo { curve_index, sub_bind_index, sampler });
        }
        if let Some(base_at) = base_at {
            let mut b = Cursor::new(data, Endian::Big);
            b.seek(base_at)?;
            b.count(u64::from(info_count), 2, "base value")?;
            for _ in 0..info_count {
                base_values.push(b.u16()?);
            }
        }
    }
    let mut curves = Vec::new();
    if curve_count > 0 {
        let curves_at = curves_at.ok_or_else(|| Error::invalid(at + 0x18, "null curve array"))?;
        let size = Curve::header_size(version);
        for i in 0..usize::from(curve_count) {
            curves.push(Curve::read(data, curves_at + size * i, version).within(|| format!("curve {i}"))?);
        }
    }
    Ok(MaterialPattern { name, begin_curve, begin_pat_anim, infos, curves, base_values })
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
                let mut times = Vec::new();
                let mut indices = Vec::new();
                for &f in &curve.frames {
                    let v = match curve.eval(f) {
                        Value::Int(v) => i64::from(v),
                        other => other.as_f32() as i64,
                    };
                    times.push(f / fps);
                    indices.push(check(v, &format!("{} {}", mat.name, info.sampler))?);
                }
                (times, indices)
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
    Ok(Clip {
        name: anim.name.clone(),
        duration: anim.frame_count.max(0) as f32 / fps,
        looping: Some(anim.looping()),
        additive: false,
        frame_rate: Some(fps),
        tracks,
    })
}
