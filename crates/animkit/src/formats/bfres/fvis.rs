//! FVIS visibility animations (spec §7.2) and their conversion to visibility tracks.
//!
//! Curve `targetOffset` is the entry index; entries without a curve take their base bit.
//! Bone visibility targets the bone; material visibility targets `material.visibility`.

use super::curve::{rel, Curve};
use super::strings::name_field;
use super::subfile;
use crate::error::{Error, Result};
use crate::model::{BoneRef, Clip, Interpolation, Target, Track, Values};

#[derive(Debug, Clone, PartialEq)]
pub struct Fvis {
    pub at: usize,
    pub name: String,
    pub flags: u16,
    pub frame_count: i32,
    pub baked_size: u32,
    pub names: Vec<String>,
    pub curves: Vec<Curve>,
    pub base: Vec<u32>,
}

impl Fvis {
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }

    pub fn material(&self) -> bool {
        self.flags & 0x100 != 0
    }
}

pub fn read(data: &[u8], at: usize, version: u32) -> Result<Fvis> {
    if version < 0x0304_0000 {
        return Err(Error::unsupported("FVIS before 3.4.0.0 is not supported (its layout is unverified)"));
    }
    let (mut c, name) = subfile::open(data, at, b"FVIS")?;
    let flags = c.u16()?;
    let _ud = c.u16()?;
    let frame_count = c.i32()?;
    let anim_count = c.u16()?;
    let curve_count = c.u16()?;
    let baked_size = c.u32()?;
    let _model = c.i32()?;
    let _bind = c.i32()?;
    let names_at = rel(&mut c, "names")?;
    let curves_at = rel(&mut c, "curves")?;
    let base_at = rel(&mut c, "base values")?;
    let names = subfile::records(data, names_at, at + 0x24, anim_count.into(), 4, "name", |n| name_field(data, n))?;
    // One bit per entry, 32 to a word; optional.
    let words = usize::from(anim_count).div_ceil(32);
    let base = match base_at {
        Some(_) => subfile::records(data, base_at, at + 0x2C, words, 4, "base word", |b| b.u32())?,
        None => Vec::new(),
    };
    let curves = Curve::read_array(data, curves_at, at + 0x28, curve_count.into(), version)?;
    Ok(Fvis { at, name, flags, frame_count, baked_size, names, curves, base })
}

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
