//! FVIS visibility animations (spec §7.2) and their conversion to visibility tracks.
//!
//! Curve `targetOffset` is the entry index; entries without a curve take their base bit.
//! Bone visibility targets the bone; material visibility targets `material.visibility`.

use serde::{Deserialize, Serialize};

use super::curve::Curve;
use super::platform::Platform;
use super::subfile;
use crate::error::{Error, Result};
use crate::model::{BoneRef, Clip, Interpolation, Target, Track, Values};

/// An FVIS (Wii U) or FBVS (Switch) with its names, curves and base bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fvis {
    /// Position of the header.
    #[serde(skip)]
    pub at: usize,
    /// The animation's name.
    pub name: String,
    /// Flags: bit 2 looping, bit 8 material visibility.
    pub flags: u16,
    /// Frames.
    pub frame_count: i32,
    /// Runtime size of the baked curves (§8).
    pub baked_size: u32,
    /// The bones or materials, in entry order.
    pub names: Vec<String>,
    /// The curves; `target` is the entry index.
    pub curves: Vec<Curve>,
    /// Base visibility bits, entry `i` in bit `i % 32` of word `i / 32`.
    pub base: Vec<u32>,
}

impl Fvis {
    /// Whether the animation loops (flags bit 2).
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }

    /// Whether it animates materials, not bones (flags bit 8).
    pub fn material(&self) -> bool {
        self.flags & 0x100 != 0
    }
}

/// Reads the FVIS (Wii U, 3.4 and later) or FBVS (Switch) at `at`.
///
/// Wii U after the opening: `u16 flags, userDataCount; s32 frameCount; u16 animCount,
/// curveCount; u32 bakedSize`; off model, bind indices, names, curves, base values (`u32`
/// words). Switch FBVS (`0x68` bytes; `0x60` from 0.9, whose flags follow the magic): off model,
/// bind indices, curves, base values (bytes), names, user data, user dict; `u16 flags` (unused
/// from 0.9), `u16 userDataCount; s32 frameCount; u16 animCount, curveCount; u32 bakedSize`.
pub fn read(data: &[u8], at: usize, platform: Platform) -> Result<Fvis> {
    if !platform.since_3_4() {
        return Err(Error::unsupported("FVIS before 3.4.0.0 is not supported (its layout is unverified)"));
    }
    let magic = if platform.is_switch() { b"FBVS" } else { b"FVIS" };
    let (mut c, name) = platform.open(data, at, magic)?;
    let (mut arrays, mut names_at) = ([(0, None); 2], None);
    let flags = if platform.is_switch() {
        let _model = c.u64()?;
        let _bind = c.u64()?;
        arrays = [(c.offset(), platform.offset(&mut c, "curves")?), (c.offset(), platform.offset(&mut c, "base")?)];
        names_at = Some((c.offset(), platform.offset(&mut c, "names")?));
        let _user = (c.u64()?, c.u64()?);
        let flags = c.u16()?;
        if platform.switch_0_9() {
            platform.cursor(data, at + 4)?.u16()?
        } else {
            flags
        }
    } else {
        c.u16()?
    };
    let _user_data_count = c.u16()?;
    let frame_count = c.i32()?;
    let anim_count = usize::from(c.u16()?);
    let curve_count = usize::from(c.u16()?);
    let baked_size = c.u32()?;
    if !platform.is_switch() {
        let _model = c.i32()?;
        let _bind = c.i32()?;
        names_at = Some((c.offset(), platform.offset(&mut c, "names")?));
        arrays = [(c.offset(), platform.offset(&mut c, "curves")?), (c.offset(), platform.offset(&mut c, "base")?)];
    }
    let (names_field, names_at) = names_at.unwrap_or_default();
    let names = platform.names(data, names_at, names_field, anim_count)?;
    let [(curves_field, curves_at), (base_field, base_at)] = arrays;
    let base = read_base(data, base_at, base_field, anim_count, platform)?;
    let curves = Curve::read_array(data, curves_at, curves_field, curve_count, platform)?;
    Ok(Fvis { at, name, flags, frame_count, baked_size, names, curves, base })
}

/// The base visibility bits, one per entry, as `u32` words with entry `i` in bit `i % 32` of
/// word `i / 32`: Wii U stores such words (optional); Switch stores bytes, entry `i` in bit
/// `i % 8` of byte `i / 8` (the same bits as little-endian words).
fn read_base(data: &[u8], at: Option<usize>, field: usize, count: usize, platform: Platform) -> Result<Vec<u32>> {
    if at.is_none() {
        return Ok(Vec::new());
    }
    if !platform.is_switch() {
        return platform.records(data, (field, at), count.div_ceil(32), 4, "base word", |b| b.u32());
    }
    let bytes = platform.records(data, (field, at), count.div_ceil(8), 1, "base byte", |b| b.u8())?;
    Ok(bytes.chunks(4).map(|w| w.iter().rev().fold(0u32, |acc, &b| (acc << 8) | u32::from(b))).collect())
}

/// Converts an FVIS to a clip of visibility tracks (one per entry).
pub fn to_clip(anim: &Fvis, fps: f32) -> Result<Clip> {
    let window = anim.frame_count.max(0) as f32;
    let mut tracks = Vec::new();
    for (i, name) in anim.names.iter().enumerate() {
        let target = if anim.material() {
            Target::Material { material: name.as_str().into(), property: "visibility".into() }
        } else {
            Target::Bone(BoneRef::named(name.clone()))
        };
        let (times, values) = match anim.curves.iter().find(|c| c.target as usize == i) {
            Some(curve) => curve.step_keys(0.0, window)?.into_iter().map(|(f, v)| (f / fps, v.as_f32() != 0.0)).unzip(),
            None => {
                let word = anim.base.get(i >> 5).copied().unwrap_or(0);
                (vec![0.0], vec![(word >> (i & 31)) & 1 == 1])
            }
        };
        tracks.push(Track { target, interpolation: Interpolation::Step, times, values: Values::Visibility(values) });
    }
    Ok(subfile::clip(&anim.name, anim.frame_count, anim.looping(), fps, tracks))
}
