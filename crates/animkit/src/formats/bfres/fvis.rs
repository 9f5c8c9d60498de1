//! FVIS visibility animations (spec §7.2) and their conversion to visibility tracks.
//!
//! Curve `targetOffset` is the entry index; entries without a curve take their base bit.
//! Bone visibility targets the bone; material visibility targets `material.visibility`.

use super::curve::{rel, Curve};
use super::strings::name_at;
use crate::bytes::{Cursor, Endian};
use crate::error::{Context, Error, Result};
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
    let mut c = Cursor::new(data, Endian::Big);
    c.seek(at)?;
    if c.array::<4>()? != *b"FVIS" {
        return Err(Error::invalid(at, "not an FVIS"));
    }
    let name = super::strings::name_field(data, &mut c)?;
    let _path = c.i32()?;
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
    let mut names = Vec::new();
    let mut base = Vec::new();
    if anim_count > 0 {
        let names_at = names_at.ok_or_else(|| Error::invalid(at + 0x24, "null name array"))?;
        let mut n = Cursor::new(data, Endian::Big);
        n.seek(names_at)?;
        n.count(u64::from(anim_count), 4, "name")?;
        for _ in 0..anim_count {
            let field = n.offset();
            let off = n.i32()?;
            names.push(if off == 0 { String::new() } else { name_at(data, field as i64 + i64::from(off))? });
        }
        if let Some(base_at) = base_at {
            let words = usize::from(anim_count).div_ceil(32);
            let mut b = Cursor::new(data, Endian::Big);
            b.seek(base_at)?;
            b.count(words as u64, 4, "base word")?;
            for _ in 0..words {
                base.push(b.u32()?);
            }
        }
    }
    let mut curves = Vec::new();
    if curve_count > 0 {
        let curves_at = curves_at.ok_or_else(|| Error::invalid(at + 0x28, "null curve array"))?;
        let size = Curve::header_size(version);
        for i in 0..usize::from(curve_count) {
            curves.push(Curve::read(data, curves_at + size * i, version).within(|| format!("curve {i}"))?);
        }
    }
    Ok(Fvis { at, name, flags, frame_count, baked_size, names, curves, base })
}

pub fn to_clip(anim: &Fvis, fps: f32) -> Result<Clip> {
    let mut tracks = Vec::new();
    for (i, name) in anim.names.iter().enumerate() {
        let target = if anim.material() {
            Target::Material { material: name.as_str().into(), property: "visibility".into() }
        } else {
            Target::Bone(BoneRef::named(name.clone()))
        };
        let (times, values) = match anim.curves.iter().find(|c| c.target as usize == i) {
            Some(curve) => curve.frames.iter().map(|&f| (f / fps, curve.eval(f).as_f32() != 0.0)).unzip(),
            None => {
                let word = anim.base.get(i >> 5).copied().unwrap_or(0);
                (vec![0.0], vec![(word >> (i & 31)) & 1 == 1])
            }
        };
        tracks.push(Track { target, interpolation: Interpolation::Step, times, values: Values::Visibility(values) });
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
