//! Switch bone-visibility animations (FBVS), read into the Wii U [`Fvis`] and converted through
//! [`fvis::to_clip`], and the names of the shape (FSHA) and scene (FSCN) animations, which the
//! model does not carry.
//!
//! Where the FRES header keeps their (array, dict) `u64` pairs: bone visibility at `0x58`, shape
//! animations at `0x68`, scene animations at `0x78`; 32 bytes later from version 0.9 (the
//! reserved block after the model dict). Counts: [`Header`].
//!
//! FBVS (`0x68` bytes before 0.9, checked on Super Mario Odyssey's `MarioCapAnimation.bfres`,
//! 21 of them; `0x60` from 0.9, where `u16 flags; u16 pad` replace the 12-byte block header):
//! `00 FBVS; 04 u32 next; 08 u64 size; 10 name; 18 path; 20 model; 28 bind u16[]; 30 curves;
//! 38 base bits; 40 name offsets u64[]; 48 user data; 50 user dict; 58 u16 flags; 5A u16
//! userDataCount; 5C i32 frameCount; 60 u16 animCount; 62 u16 curveCount; 64 u32 bakedSize`
//! (from 0.9 every field from the name on sits 8 bytes earlier, and `58`'s word is unused).
//! Base bits are bytes, entry `i` in bit `i % 8` of byte `i / 8` (so the same bits as the Wii U's
//! little-end-first `u32` words); curves are Switch AnimCurves whose `target` is the entry index,
//! step bool in every retail file.
//!
//! `_DIC` (dict) layout: `u32` magic (0 in the files seen), `s32` count, then `count + 1` nodes
//! of `{u32 ref; u16 left; u16 right; u64 name}`, the first the root (no name).

use super::fvis::{self, Fvis};
use super::switch::{read_curve, string_at, Header, CURVE_SIZE};
use crate::bytes::{Cursor, Endian};
use crate::error::{Context, Error, Result};
use crate::model::Clip;

/// The header offsets of the (array, dict) pairs of one kind of animation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    BoneVisibility,
    Shape,
    Scene,
}

impl Kind {
    fn header_field(self, major: u8) -> usize {
        let v9 = if major >= 9 { 0x20 } else { 0 };
        v9 + match self {
            Kind::BoneVisibility => 0x58,
            Kind::Shape => 0x68,
            Kind::Scene => 0x78,
        }
    }

    fn count(self, header: &Header) -> u16 {
        match self {
            Kind::BoneVisibility => header.bone_visibility_count,
            Kind::Shape => header.shape_anim_count,
            Kind::Scene => header.scene_anim_count,
        }
    }

    /// What a modder calls it, in the plural.
    pub fn plural(self) -> &'static str {
        match self {
            Kind::BoneVisibility => "bone visibility animations",
            Kind::Shape => "shape animations",
            Kind::Scene => "scene animations",
        }
    }
}

fn le(data: &[u8]) -> Cursor<'_> {
    Cursor::new(data, Endian::Little)
}

/// A `u64` absolute offset at `at` (`None` for 0), checked against the file.
fn offset_at(data: &[u8], at: usize, what: &str) -> Result<Option<usize>> {
    let mut c = le(data);
    c.seek(at)?;
    let v = c.u64()?;
    match usize::try_from(v) {
        Ok(0) => Ok(None),
        Ok(o) if o < data.len() => Ok(Some(o)),
        _ => Err(Error::invalid(at, format!("{what} offset {v:#x} is outside the file ({} bytes)", data.len()))),
    }
}

/// The names of the animations of `kind`, from their dict.
pub fn names(data: &[u8], header: &Header, kind: Kind) -> Result<Vec<String>> {
    let count = usize::from(kind.count(header));
    if count == 0 {
        return Ok(Vec::new());
    }
    let field = kind.header_field(header.major()) + 8;
    let dict = offset_at(data, field, "dict")?.ok_or_else(|| Error::invalid(field, "null dict"))?;
    let mut c = le(data);
    c.seek(dict + 4)?;
    let stored = c.i32()?;
    if usize::try_from(stored).ok() != Some(count) {
        return Err(Error::invalid(dict + 4, format!("dict holds {stored} entries, the header counts {count}")));
    }
    c.count(count as u64 + 1, 16, "dict node")?;
    (1..=count)
        .map(|i| {
            let name_field = dict + 8 + 16 * i + 8;
            match offset_at(data, name_field, "name")? {
                Some(at) => string_at(data, at),
                None => Ok(String::new()),
            }
        })
        .collect::<Result<_>>()
        .within(|| format!("{} dict", kind.plural()))
}

/// Reads the FBVS at `at`.
pub fn read_fbvs(data: &[u8], at: usize, major: u8) -> Result<Fvis> {
    let mut c = le(data);
    c.seek(at)?;
    if c.array::<4>()? != *b"FBVS" {
        return Err(Error::invalid(at, "not an FBVS (bone visibility animation)"));
    }
    let base = if major >= 9 { at } else { at + 8 };
    let name = match offset_at(data, base + 0x08, "name")? {
        Some(s) => string_at(data, s).within(|| "name")?,
        None => String::new(),
    };
    let curves_at = offset_at(data, base + 0x28, "curves")?;
    let base_at = offset_at(data, base + 0x30, "base bits")?;
    let names_at = offset_at(data, base + 0x38, "names")?;
    c.seek(if major >= 9 { at + 4 } else { base + 0x50 })?;
    let flags = c.u16()?;
    c.seek(base + 0x52)?;
    let _user_data_count = c.u16()?;
    let frame_count = c.i32()?;
    let anim_count = usize::from(c.u16()?);
    let curve_count = usize::from(c.u16()?);
    let baked_size = c.u32()?;
    let names = read_names(data, names_at, base + 0x38, anim_count)?;
    let base_bytes = match base_at {
        Some(b) if anim_count > 0 => {
            let mut r = le(data);
            r.seek(b)?;
            r.take(anim_count.div_ceil(8)).within(|| "base bits")?.to_vec()
        }
        _ => Vec::new(),
    };
    // Bytes, least significant bit first, as little-endian u32 words.
    let base_words =
        base_bytes.chunks(4).map(|w| w.iter().rev().fold(0u32, |acc, &b| (acc << 8) | u32::from(b))).collect();
    let curves = read_curves(data, curves_at, base + 0x28, curve_count)?;
    Ok(Fvis { at, name, flags, frame_count, baked_size, names, curves, base: base_words })
}

fn read_names(data: &[u8], at: Option<usize>, field: usize, count: usize) -> Result<Vec<String>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let at = at.ok_or_else(|| Error::invalid(field, "null name array"))?;
    let mut c = le(data);
    c.seek(at)?;
    c.count(count as u64, 8, "name")?;
    (0..count)
        .map(|i| match offset_at(data, at + 8 * i, "name")? {
            Some(s) => string_at(data, s),
            None => Ok(String::new()),
        })
        .collect::<Result<_>>()
        .within(|| "names")
}

fn read_curves(data: &[u8], at: Option<usize>, field: usize, count: usize) -> Result<Vec<super::curve::Curve>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let at = at.ok_or_else(|| Error::invalid(field, "null curve array"))?;
    let mut c = le(data);
    c.seek(at)?;
    c.count(count as u64, CURVE_SIZE, "curve")?;
    (0..count).map(|i| read_curve(data, at + CURVE_SIZE * i).within(|| format!("curve {i}"))).collect()
}

/// The header offsets of every FBVS of the file.
pub fn fbvs_offsets(data: &[u8], header: &Header) -> Result<Vec<usize>> {
    let count = usize::from(header.bone_visibility_count);
    if count == 0 {
        return Ok(Vec::new());
    }
    let major = header.major();
    let field = Kind::BoneVisibility.header_field(major);
    let array = offset_at(data, field, "bone visibility array")?
        .ok_or_else(|| Error::invalid(field, "null bone visibility array"))?;
    let size = if major >= 9 { 0x60 } else { 0x68 };
    let mut c = le(data);
    c.seek(array)?;
    c.count(count as u64, size, "bone visibility animation")?;
    Ok((0..count).map(|i| array + size * i).collect())
}

/// Every bone-visibility animation of the file as a clip of visibility tracks.
pub fn bone_visibility_clips(data: &[u8], header: &Header, fps: f32) -> Result<Vec<Clip>> {
    let major = header.major();
    fbvs_offsets(data, header)?
        .into_iter()
        .enumerate()
        .map(|(i, at)| {
            let anim = read_fbvs(data, at, major).within(|| format!("bone visibility animation {i}"))?;
            fvis::to_clip(&anim, fps).within(|| format!("bone visibility animation \"{}\"", anim.name))
        })
        .collect()
}

/// The shape and scene animations, by name: one line per kind with its count, for the
/// conversion's warnings of what the model does not carry.
pub fn not_in_model(data: &[u8], header: &Header) -> Vec<String> {
    [Kind::Shape, Kind::Scene]
        .into_iter()
        .filter(|&k| k.count(header) > 0)
        .map(|k| match names(data, header, k) {
            Ok(names) => super::not_carried::named_line(k.plural(), &names),
            Err(e) => format!("{} {}: their names do not read ({e})", k.count(header), k.plural()),
        })
        .collect()
}
