//! FTXP texture pattern animations (spec §3, §6) and their conversion to texture-index tracks.
//!
//! One STEP track per (material, sampler): keys at the curve's frames (seconds at the chosen
//! fps), indices into the TextureRef list in node order; a sampler without a curve gets one key
//! with its base value. An index outside `[0, texRefCount)` is an error (§6).

use serde::{Deserialize, Serialize};

use super::curve::{Curve, Value};
use super::dict::entries_at;
use super::layout::{count16, narrow, opening, values, write_dict, In, Io, Offset, Out, Walk};
use super::platform::Platform;
use super::subfile;
use crate::bytes::Cursor;
use crate::error::{Context, Error, Result};
use std::sync::Arc;

use crate::model::{Clip, Interpolation, Target, Track, Values};

/// An FTXP with its material patterns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternInfo {
    /// The curve of the sampler (material-local), negative for none.
    pub curve_index: i8,
    /// Sub-bind index.
    pub sub_bind_index: i8,
    /// The sampler's name.
    pub sampler: String,
}

/// The counts an FTXP header stores: textures, materials, pattern infos and curves.
#[derive(Default)]
struct Counts {
    textures: u16,
    materials: u16,
    infos: u32,
    curves: u32,
}

impl Ftxp {
    /// Whether the animation loops (flags bit 2).
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }

    /// The FTXP header, read or written (§3.1). After the opening `u16 flags`; from 3.4 `u16
    /// userDataCount; s32 frameCount; u16 textureCount, materialCount; u32 infoCount, curveCount,
    /// bakedSize`; before it `u16 frameCount, textureCount, materialCount, userDataCount,
    /// infoCount; s32 curveCount; u32 bakedSize` and 4 bytes; then off model, bind indices,
    /// material animations, texture refs, user data. Returns the bind-index, material and
    /// texture-ref offsets.
    fn walk(&mut self, io: &mut impl Io, n: &mut Counts) -> Result<[Offset; 3]> {
        let mut flags = u32::from(self.flags);
        opening(io, b"FTXP", &mut flags, &mut self.name)?;
        io.value(&mut self.flags)?;
        if io.platform().since_3_4() {
            io.pad(2)?; // user-data count
            values!(io, self.frame_count, n.textures, n.materials, n.infos, n.curves, self.baked_size);
        } else {
            narrow(io, &mut self.frame_count, "frameCount")?;
            values!(io, n.textures, n.materials);
            io.pad(2)?; // user-data count
            let mut infos = u16::try_from(n.infos).map_err(|_| Error::unrepresentable("too many pattern infos"))?;
            values!(io, infos, n.curves, self.baked_size);
            io.pad(4)?;
        }
        io.runtime()?; // bound model
        let arrays = [io.offset("bind indices")?, io.offset("material animations")?, io.offset("texture refs")?];
        io.runtime()?; // user data
        Ok(arrays)
    }
}

/// Reads the FTXP at `at` (Wii U).
pub fn read(data: &[u8], at: usize, platform: Platform) -> Result<Ftxp> {
    let mut c = platform.cursor(data, at)?;
    let (mut anim, mut n) = (Ftxp { at, ..Ftxp::default() }, Counts::default());
    let [_, materials, refs] = anim.walk(&mut In { c: &mut c, platform }, &mut n)?;
    // TextureRef records: (name offset, FTEX offset); from 3.4 reached through an index group.
    let texture_ref = |t: &mut Cursor| -> Result<(String, Option<usize>)> {
        Ok((platform.name(data, t)?, platform.offset(t, "FTEX")?))
    };
    let refs: Vec<(String, Option<usize>)> = match refs.target {
        None => Vec::new(),
        Some(r) if platform.since_3_4() => entries_at(data, r)
            .within(|| "texture refs")?
            .into_iter()
            .map(|(name, record)| match record {
                Some(at) => platform
                    .records(data, (at, Some(at)), 1, 8, "texture ref", texture_ref)
                    .map(|mut v| (name, v.pop().and_then(|r| r.1))),
                None => Ok((name, None)),
            })
            .collect::<Result<_>>()?,
        _ => platform.records(data, refs.pair(), n.textures.into(), 8, "texture ref", texture_ref)?,
    };
    if refs.iter().any(|r| r.1.is_some()) {
        anim.texture_ftex = refs.iter().map(|r| r.1).collect();
    }
    anim.textures = refs.into_iter().map(|r| r.0).collect();
    anim.materials = platform.records(data, materials.pair(), n.materials.into(), 0x1C, "material animation", |c| {
        MaterialPattern::read(data, &mut In { c, platform })
    })?;
    Ok(anim)
}

/// Writes an FTXP at the output's position (§3.4 storage order). Both header layouts (§3.1):
/// before 3.4.0.0 the counts are narrower and the TextureRefs are a flat array with no index
/// group after the data.
pub fn write_ftxp(o: &mut Out, a: &Ftxp) -> Result<()> {
    let mut n = Counts {
        textures: count16(a.textures.len(), "textures")?,
        materials: count16(a.materials.len(), "materials")?,
        infos: a.materials.iter().map(|m| m.infos.len() as u32).sum(),
        curves: a.materials.iter().map(|m| m.curves.len() as u32).sum(),
    };
    let mut header =
        Ftxp { name: a.name.clone(), textures: Vec::new(), texture_ftex: Vec::new(), materials: Vec::new(), ..*a };
    let [bind, materials, refs] = header.walk(o, &mut n)?;
    o.bind_indices(bind.field, n.materials);
    o.patch_here(materials.field);
    let (mut begin_curve, mut begin_pat_anim) = (0i32, 0i32);
    let mut slots = Vec::new();
    for m in &a.materials {
        let mut record = MaterialPattern { name: m.name.clone(), begin_curve, begin_pat_anim, ..Default::default() };
        slots.push(record.walk(o, &mut [m.infos.len() as u16, m.curves.len() as u16])?);
        begin_curve += m.curves.len() as i32;
        begin_pat_anim += m.infos.len() as i32;
    }
    // TextureRef structs: name, FTEX (before 3.4 the header points at them directly).
    let new = o.platform().since_3_4();
    if !new && !a.textures.is_empty() {
        o.patch_here(refs.field);
    }
    let ref_positions = texture_refs(o, a)?;
    // Per material: pattern infos, curve headers, base values, then its curves' frames and keys
    // (Mario Kart 8's two-material FTXP; one material, as in Animal_Bass, gives §3.4's order).
    for (m, [infos, curves, base]) in a.materials.iter().zip(slots) {
        o.patch_here(infos.field);
        m.infos.iter().try_for_each(|info| info.write(o))?;
        o.patch_here(curves.field);
        let curve_slots = m.curves.iter().map(|c| c.write_header(o)).collect::<Result<Vec<_>>>()?;
        o.patch_here(base.field);
        for &v in &m.base_values {
            o.w.u16(v);
        }
        o.align();
        for (c, slot) in m.curves.iter().zip(curve_slots) {
            c.write_data(o, slot);
        }
    }
    if new {
        o.patch_here(refs.field);
        let names: Vec<&str> = a.textures.iter().map(String::as_str).collect();
        write_dict(o, &names, &ref_positions)?;
    }
    Ok(())
}

/// The TextureRef records (name, FTEX offset); returns where each lies.
fn texture_refs(o: &mut Out, a: &Ftxp) -> Result<Vec<usize>> {
    let mut positions = Vec::new();
    for (k, t) in a.textures.iter().enumerate() {
        positions.push(o.pos());
        o.string(t);
        let field = o.pos();
        match a.texture_ftex.get(k).copied().flatten() {
            Some(target) => {
                o.w.i32(i32::try_from(target as i64 - field as i64).map_err(|_| {
                    Error::unrepresentable(format!("texture \"{t}\": FTEX at {target} is out of reach"))
                })?)
            }
            None => o.w.i32(0),
        }
    }
    Ok(positions)
}

impl MaterialPattern {
    /// The material pattern (`0x1C`), read or written: `u16 infoCount, curveCount; s32
    /// beginCurve, beginPatAnim`; off name, pattern infos, curves, base values. Returns the
    /// three array offsets.
    fn walk(&mut self, io: &mut impl Io, counts: &mut [u16; 2]) -> Result<[Offset; 3]> {
        counts.iter_mut().try_for_each(|n| io.value(n))?;
        values!(io, self.begin_curve, self.begin_pat_anim);
        io.name(&mut self.name)?;
        Ok([io.offset("pattern infos")?, io.offset("curves")?, io.offset("base values")?])
    }

    fn read(data: &[u8], io: &mut In) -> Result<MaterialPattern> {
        let (mut m, mut counts) = (MaterialPattern::default(), [0; 2]);
        let [infos, curves, base] = m.walk(io, &mut counts)?;
        let [info_count, curve_count] = counts.map(usize::from);
        let platform = io.platform;
        m.infos = infos.walked(data, platform, info_count, 8, "pattern info")?;
        // Optional: without it every sampler without a curve shows texture 0.
        if base.target.is_some() {
            m.base_values = platform.records(data, base.pair(), info_count, 2, "base value", |b| b.u16())?;
        }
        m.curves = Curve::read_array(data, curves, curve_count, platform)?;
        Ok(m)
    }
}

impl Walk for PatternInfo {
    /// The pattern info (`8`), read or written: `s8 curveIndex, subBindIndex`; 2 bytes; off
    /// sampler name.
    fn walk(&mut self, io: &mut impl Io) -> Result<()> {
        values!(io, self.curve_index, self.sub_bind_index);
        io.pad(2)?;
        io.name(&mut self.sampler)
    }
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
