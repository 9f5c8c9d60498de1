//! FVIS visibility animations (spec §7.2) and their conversion to visibility tracks.
//!
//! Curve `targetOffset` is the entry index; entries without a curve take their base bit.
//! Bone visibility targets the bone; material visibility targets `material.visibility`.

use serde::{Deserialize, Serialize};

use super::curve::Curve;
use super::layout::{count16, opening, In, Io, Offset, Out};
use super::platform::Platform;
use super::subfile;
use crate::error::{Error, Result};
use crate::model::{BoneRef, Clip, Interpolation, Target, Track, Values};

/// An FVIS (Wii U) or FBVS (Switch) with its names, curves and base bits.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
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

    /// The FVIS (Wii U, 3.4 and later) or FBVS (Switch) header, read or written. Wii U after
    /// the opening: `u16 flags, userDataCount; s32 frameCount; u16 animCount, curveCount; u32
    /// bakedSize`; off model, bind indices, names, curves, base values (`u32` words), user data.
    /// Switch FBVS (`0x68` bytes; `0x60` from 0.9, whose flags follow the magic): off model, bind
    /// indices, curves, base values (bytes), names, user data, user dict; `u16 flags` (unused
    /// from 0.9), `u16 userDataCount; s32 frameCount; u16 animCount, curveCount; u32 bakedSize`.
    /// Returns the bind-index, name, curve and base offsets.
    fn walk(&mut self, io: &mut impl Io, counts: &mut [u16; 2]) -> Result<[Offset; 4]> {
        let p = io.platform();
        let mut flags = u32::from(self.flags);
        opening(io, if p.is_switch() { b"FBVS" } else { b"FVIS" }, &mut flags, &mut self.name)?;
        let mut arrays = [Offset::default(); 4];
        if p.is_switch() {
            io.runtime()?; // bound model
            let bind = io.offset("bind indices")?;
            let (curves, base) = (io.offset("curves")?, io.offset("base")?);
            arrays = [bind, io.offset("names")?, curves, base];
            io.runtime()?; // user data
            io.runtime()?; // user-data dictionary
        }
        io.value(&mut self.flags)?;
        if p.switch_0_9() {
            self.flags = flags as u16;
        }
        io.pad(2)?; // user-data count
        io.value(&mut self.frame_count)?;
        counts.iter_mut().try_for_each(|n| io.value(n))?;
        io.value(&mut self.baked_size)?;
        if !p.is_switch() {
            io.runtime()?; // bound model
            arrays = [io.offset("bind indices")?, io.offset("names")?, io.offset("curves")?, io.offset("base")?];
            io.runtime()?; // user data
        }
        Ok(arrays)
    }
}

/// Reads the FVIS (Wii U, 3.4 and later) or FBVS (Switch) at `at` (see `Fvis::walk`).
pub fn read(data: &[u8], at: usize, platform: Platform) -> Result<Fvis> {
    if !platform.since_3_4() {
        return Err(Error::unsupported("FVIS before 3.4.0.0 is not supported (its layout is unverified)"));
    }
    let mut c = platform.cursor(data, at)?;
    let (mut anim, mut counts) = (Fvis { at, ..Fvis::default() }, [0; 2]);
    let [_, names, curves, base] = anim.walk(&mut In { c: &mut c, platform }, &mut counts)?;
    let [anim_count, curve_count] = counts.map(usize::from);
    anim.names = platform.names(data, names.pair(), anim_count)?;
    anim.base = read_base(data, base.target, base.field, anim_count, platform)?;
    anim.curves = Curve::read_array(data, curves, curve_count, platform)?;
    Ok(anim)
}

/// Writes an FVIS (Wii U 3.4 and later, §7.2 storage order) at the output's position.
pub fn write_fvis(o: &mut Out, a: &Fvis) -> Result<()> {
    if !o.platform().since_3_4() || o.platform().is_switch() {
        return Err(Error::unsupported("writing FVIS before 3.4.0.0 or an FBVS"));
    }
    let mut counts = [count16(a.names.len(), "entries")?, a.curves.len() as u16];
    let mut header = Fvis { name: a.name.clone(), names: Vec::new(), curves: Vec::new(), base: Vec::new(), ..*a };
    let [bind, names, curves, base] = header.walk(o, &mut counts)?;
    o.bind_indices(bind.field, counts[0]);
    o.patch_here(names.field);
    for name in &a.names {
        o.string(name);
    }
    o.patch_here(curves.field);
    let slots = a.curves.iter().map(|c| c.write_header(o)).collect::<Result<Vec<_>>>()?;
    o.patch_here(base.field);
    for &w in &a.base {
        o.w.u32(w);
    }
    for (c, s) in a.curves.iter().zip(slots) {
        c.write_data(o, s);
    }
    Ok(())
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
