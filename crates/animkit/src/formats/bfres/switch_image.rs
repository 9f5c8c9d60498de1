//! Little-endian output at absolute positions for Switch subfile data, and the Switch
//! AnimCurve (`0x30`: `u64` frames, `u64` keys, `u16` flags, `u16` key count, `u32` target,
//! `f32` start, end, scale, offset, delta, 4 bytes of padding) with its frames and keys.

use std::collections::BTreeSet;

use super::curve::{Curve, CurveType, FrameType, KeyType};

/// The bytes a curve's frames take.
pub(crate) fn frame_size(c: &Curve) -> usize {
    c.frames.len()
        * match c.frame_type() {
            FrameType::F32 => 4,
            FrameType::Fixed10x5 => 2,
            FrameType::U8 => 1,
        }
}

/// The bytes a curve's keys take (bool curves: one word per 32 keys, as read).
pub(crate) fn key_size(c: &Curve) -> usize {
    if matches!(c.curve_type(), CurveType::StepBool | CurveType::BakedBool) {
        return c.keys.len() * 4;
    }
    c.keys.len()
        * match c.key_type() {
            KeyType::Bits32 => 4,
            KeyType::S16 => 2,
            KeyType::S8 => 1,
        }
}

/// Little-endian output at absolute positions, growing as needed.
pub(crate) struct Image {
    pub start: usize,
    pub bytes: Vec<u8>,
    /// Absolute positions of the non-null offsets written.
    offsets: BTreeSet<usize>,
}

impl Image {
    /// An empty image starting at absolute position `start`.
    pub fn new(start: usize) -> Self {
        Image { start, bytes: Vec::new(), offsets: BTreeSet::new() }
    }

    /// Writes `b` at absolute position `at`.
    pub fn put(&mut self, at: usize, b: &[u8]) {
        let i = at - self.start;
        if self.bytes.len() < i + b.len() {
            self.bytes.resize(i + b.len(), 0);
        }
        if let Some(slot) = self.bytes.get_mut(i..i + b.len()) {
            slot.copy_from_slice(b);
        }
    }
    /// The absolute positions of the non-null offsets written.
    pub fn offsets(&self) -> impl Iterator<Item = usize> + '_ {
        self.offsets.iter().copied()
    }

    /// Writes an offset, listing it when not null.
    pub fn offset(&mut self, at: usize, target: usize) {
        self.put(at, &(target as u64).to_le_bytes());
        if target != 0 {
            self.offsets.insert(at);
        }
    }
}

/// A curve header (`0x30`) and its frames and keys.
pub(crate) fn write_curve(img: &mut Image, at: usize, c: &Curve, frames: usize, keys: usize) {
    img.offset(at, if c.frames.is_empty() { 0 } else { frames });
    img.offset(at + 8, if c.keys.is_empty() { 0 } else { keys });
    img.put(at + 0x10, &c.flags.to_le_bytes());
    img.put(at + 0x12, &c.key_count.to_le_bytes());
    img.put(at + 0x14, &c.target.to_le_bytes());
    for (k, w) in [c.start.to_bits(), c.end.to_bits(), c.scale_bits, c.offset_bits, c.delta.unwrap_or(0.0).to_bits()]
        .into_iter()
        .enumerate()
    {
        img.put(at + 0x18 + 4 * k, &w.to_le_bytes());
    }
    let mut f = Vec::with_capacity(frame_size(c));
    for &x in &c.frames {
        match c.frame_type() {
            FrameType::F32 => f.extend_from_slice(&x.to_le_bytes()),
            FrameType::Fixed10x5 => f.extend_from_slice(&((x * 32.0).round() as i16).to_le_bytes()),
            FrameType::U8 => f.push(x as u8),
        }
    }
    img.put(frames, &f);
    let bool_curve = matches!(c.curve_type(), CurveType::StepBool | CurveType::BakedBool);
    let mut k = Vec::with_capacity(key_size(c));
    for &x in &c.keys {
        match c.key_type() {
            _ if bool_curve => k.extend_from_slice(&(x as u32).to_le_bytes()),
            KeyType::Bits32 if c.is_float() => k.extend_from_slice(&(x as f32).to_le_bytes()),
            KeyType::Bits32 => k.extend_from_slice(&(x as i32).to_le_bytes()),
            KeyType::S16 => k.extend_from_slice(&(x as i16).to_le_bytes()),
            KeyType::S8 => k.push(x as i8 as u8),
        }
    }
    img.put(keys, &k);
}
