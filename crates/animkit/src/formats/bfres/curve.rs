//! The AnimCurve system shared by FSKA, FTXP, FSHU and FVIS (spec §4–§5).
//!
//! [`Curve::read`] reads a curve header with its frames and keys; [`Curve::eval`] evaluates it
//! at a frame as §5 describes (wrap modes, segment search, every curve type);
//! [`Curve::hermite`] gives value and in/out slopes for the glTF cubic mapping (§5.5).

use serde::{Deserialize, Serialize};

use super::layout::{values, In, Io, Offset, Out};
use super::platform::Platform;
use crate::bytes::{Cursor, Endian};
use crate::error::{Context, Error, Result};

/// Frame storage (flags bits 0–1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum FrameType {
    /// `f32`.
    F32,
    /// `s16` fixed point 10.5 (`raw / 32`).
    Fixed10x5,
    /// `u8`.
    U8,
}

/// Key storage (flags bits 2–3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum KeyType {
    /// `f32` for float curves, `s32`/`u32` for int and bool curves.
    Bits32,
    /// `s16`.
    S16,
    /// `s8`.
    S8,
}

/// Curve type (flags bits 4–6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum CurveType {
    /// Cubic segments: four coefficients per key.
    Cubic,
    /// Linear segments: two coefficients per key.
    Linear,
    /// One float key per frame.
    BakedFloat,
    /// Integer keys held until the next key.
    StepInt,
    /// One integer key per frame.
    BakedInt,
    /// Bits held until the next key.
    StepBool,
    /// One bit per frame.
    BakedBool,
}

/// Pre/post wrap (flags bits 8–9 and 12–13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum Wrap {
    /// Hold the end value.
    Clamp,
    /// Repeat the curve.
    Repeat,
    /// Repeat it back and forth.
    Mirror,
    /// Value 3: undefined (§5.1); evaluated as clamp.
    Undefined,
}

impl Wrap {
    fn from_bits(b: u16) -> Wrap {
        match b & 3 {
            0 => Wrap::Clamp,
            1 => Wrap::Repeat,
            2 => Wrap::Mirror,
            _ => Wrap::Undefined,
        }
    }
}

/// An evaluated value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub enum Value {
    /// A float curve's value.
    Float(f32),
    /// An int curve's value.
    Int(i32),
    /// A bool curve's value.
    Bool(bool),
}

impl Value {
    /// The value as a float (ints converted, bools 0/1).
    pub fn as_f32(self) -> f32 {
        match self {
            Value::Float(v) => v,
            Value::Int(v) => v as f32,
            Value::Bool(b) => f32::from(u8::from(b)),
        }
    }
}

/// One curve with its frames and keys, decoded. Its JSON form (the dump) is its fields, with
/// `scale_bits` and `offset_bits` the stored words.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Curve {
    /// Absolute position of the curve header.
    #[serde(skip)]
    pub at: usize,
    /// Frame type (bits 0–1), key type (2–3), curve type (4–6), pre wrap (8–9), post wrap (12–13).
    pub flags: u16,
    /// Number of keys.
    pub key_count: u16,
    /// The animated field, as an offset into the target's value block.
    pub target: u32,
    /// First frame.
    #[serde(with = "crate::raw_json::exact")]
    pub start: f32,
    /// Last frame.
    #[serde(with = "crate::raw_json::exact")]
    pub end: f32,
    /// The raw scale word (an `f32` for float curves; 0 or 1 in int and bool curves).
    pub scale_bits: u32,
    /// The raw offset word: `f32` for float curves, `s32` for int and bool curves.
    pub offset_bits: u32,
    /// `value(last) - value(first)`; absent before 3.4.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::raw_json::exact")]
    pub delta: Option<f32>,
    /// Frame of each key.
    #[serde(with = "crate::raw_json::exact")]
    pub frames: Vec<f32>,
    /// Key elements as stored (4 per key for cubic, 2 for linear, 1 otherwise; packed words
    /// for bool curves), widened to `f64` (every stored type converts exactly).
    pub keys: Vec<f64>,
}

impl Curve {
    /// Frame storage (flags bits 0–1).
    pub fn frame_type(&self) -> FrameType {
        match self.flags & 3 {
            0 => FrameType::F32,
            1 => FrameType::Fixed10x5,
            _ => FrameType::U8,
        }
    }

    /// Key storage (flags bits 2–3).
    pub fn key_type(&self) -> KeyType {
        match (self.flags >> 2) & 3 {
            0 => KeyType::Bits32,
            1 => KeyType::S16,
            _ => KeyType::S8,
        }
    }

    /// Curve type (flags bits 4–6; the reserved 3 reads as cubic, the reader rejects it).
    pub fn curve_type(&self) -> CurveType {
        curve_type(self.flags).unwrap_or(CurveType::Cubic)
    }

    /// What happens before the first frame (flags bits 8–9).
    pub fn pre_wrap(&self) -> Wrap {
        Wrap::from_bits(self.flags >> 8)
    }

    /// What happens after the last frame (flags bits 12–13).
    pub fn post_wrap(&self) -> Wrap {
        Wrap::from_bits(self.flags >> 12)
    }

    /// The header size: `0x20` on Wii U before 3.4, `0x24` from 3.4 (with `delta`), `0x30` on
    /// Switch (offsets first, `u64`, and a pad word).
    pub fn header_size(platform: Platform) -> usize {
        match platform {
            Platform::Switch { .. } => 0x30,
            p if p.since_3_4() => 0x24,
            _ => 0x20,
        }
    }

    /// Whether the values are floats (cubic, linear or baked float).
    pub fn is_float(&self) -> bool {
        matches!(self.curve_type(), CurveType::Cubic | CurveType::Linear | CurveType::BakedFloat)
    }

    /// The scale word as an `f32`.
    pub fn scale(&self) -> f32 {
        f32::from_bits(self.scale_bits)
    }

    /// The offset word as an `f32` (float curves).
    pub fn offset_f32(&self) -> f32 {
        f32::from_bits(self.offset_bits)
    }

    /// The offset word as an `i32` (int and bool curves).
    pub fn offset_i32(&self) -> i32 {
        self.offset_bits as i32
    }

    /// Key elements per key.
    pub fn stride(&self) -> usize {
        match self.curve_type() {
            CurveType::Cubic => 4,
            CurveType::Linear => 2,
            _ => 1,
        }
    }

    /// The `count` curves of the array the offset `at` points at (see [`Platform::records`]).
    pub(crate) fn read_array(data: &[u8], at: Offset, count: usize, platform: Platform) -> Result<Vec<Curve>> {
        let size = Curve::header_size(platform);
        platform.records(data, at.pair(), count, size, "curve", |c| Curve::read(data, c.offset(), platform))
    }

    /// The curve header (§5.2), read or written: Wii U `u16 flags, keyCount; u32 target; f32
    /// start, end; scale and offset words; f32 delta (from 3.4); off frames, keys` (`0x20`, `0x24`
    /// from 3.4); Switch (`0x30`) the `u64` frame and key offsets first, then the same fields with
    /// `delta` and a pad word. Returns the frame and key offsets.
    fn walk(&mut self, io: &mut impl Io) -> Result<[Offset; 2]> {
        let switch = io.platform().is_switch();
        let mut arrays = [Offset::default(); 2];
        if switch {
            arrays = [io.offset("frames")?, io.offset("keys")?];
        }
        values!(io, self.flags, self.key_count, self.target, self.start, self.end, self.scale_bits, self.offset_bits);
        if io.platform().since_3_4() {
            let mut delta = self.delta.unwrap_or(0.0);
            io.value(&mut delta)?;
            self.delta = Some(delta);
        }
        if switch {
            io.pad(4)?;
        } else {
            arrays = [io.offset("frames")?, io.offset("keys")?];
        }
        Ok(arrays)
    }

    /// Reads the curve whose header is at `at` (absolute) in `data`, with its frames and keys.
    pub fn read(data: &[u8], at: usize, platform: Platform) -> Result<Curve> {
        let mut c = platform.cursor(data, at)?;
        let mut curve = Curve { at, ..Curve::default() };
        let [frames, keys] = curve.walk(&mut In { c: &mut c, platform })?;
        let flags = curve.flags;
        let flags_at = at + if platform.is_switch() { 16 } else { 0 };
        let ct =
            curve_type(flags).ok_or_else(|| Error::invalid(flags_at, format!("curve type 3 in flags {flags:#06x}")))?;
        let n = usize::from(curve.key_count);
        let endian = platform.endian();
        if n > 0 {
            let frames_at = frames.target.ok_or_else(|| Error::invalid(frames.field, "null frame array"))?;
            curve.frames = read_frames(curve.frame_type(), data, frames_at, n, endian).within(|| "frames")?;
        }
        let bool_curve = matches!(ct, CurveType::StepBool | CurveType::BakedBool);
        let elements = if bool_curve { n.div_ceil(32) } else { n * curve.stride() };
        if elements > 0 {
            let keys_at = keys.target.ok_or_else(|| Error::invalid(keys.field, "null key array"))?;
            let kind = (if bool_curve { KeyType::Bits32 } else { curve.key_type() }, bool_curve, curve.is_float());
            curve.keys = read_keys(kind, data, keys_at, elements, endian).within(|| "keys")?;
        }
        Ok(curve)
    }

    /// Writes the curve header (see `walk`); returns the slots of the frame and key offsets.
    pub(crate) fn write_header(&self, o: &mut Out) -> Result<[usize; 2]> {
        let mut header = Curve { frames: Vec::new(), keys: Vec::new(), ..*self };
        Ok(header.walk(o)?.map(|a| a.field))
    }

    /// Writes the curve's frames and keys (bool curves: one word per 32 keys, as read) and
    /// points `slots` at them.
    pub(crate) fn write_data(&self, o: &mut Out, [frames, keys]: [usize; 2]) {
        o.align();
        o.here(frames, !self.frames.is_empty());
        for &f in &self.frames {
            match self.frame_type() {
                FrameType::F32 => o.w.f32(f),
                FrameType::Fixed10x5 => o.w.i16((f * 32.0).round() as i16),
                FrameType::U8 => o.w.u8(f as u8),
            }
        }
        o.align();
        o.here(keys, !self.keys.is_empty());
        let bool_curve = matches!(self.curve_type(), CurveType::StepBool | CurveType::BakedBool);
        for &k in &self.keys {
            match self.key_type() {
                _ if bool_curve => o.w.u32(k as u32),
                KeyType::Bits32 if self.is_float() => o.w.f32(k as f32),
                KeyType::Bits32 => o.w.i32(k as i32),
                KeyType::S16 => o.w.i16(k as i16),
                KeyType::S8 => o.w.u8(k as i8 as u8),
            }
        }
        o.pad_after();
    }

    /// Key element `j` of key `i` as stored (unscaled).
    pub fn key(&self, i: usize, j: usize) -> f32 {
        self.keys.get(i * self.stride() + j).copied().unwrap_or(0.0) as f32
    }

    /// Maps a frame into the curve's range by its wrap modes (§5.1). See `unroll` for
    /// whole animations.
    pub fn wrap_frame(&self, f: f32) -> f32 {
        let len = self.end - self.start;
        let wrap = if f < self.start {
            self.pre_wrap()
        } else if f > self.end {
            self.post_wrap()
        } else {
            return f;
        };
        if len <= 0.0 {
            return f;
        }
        match wrap {
            Wrap::Clamp | Wrap::Undefined => f,
            Wrap::Repeat => self.start + (f - self.start).rem_euclid(len),
            Wrap::Mirror => {
                let m = (f - self.start).rem_euclid(2.0 * len);
                self.start + if m > len { 2.0 * len - m } else { m }
            }
        }
    }

    /// The segment `(i, t)` for a frame already wrapped; `None` at or after the last key or
    /// before the first.
    fn segment(&self, f: f32) -> Option<(usize, f32)> {
        let i = self.frames.iter().rposition(|&k| k <= f)?;
        let next = *self.frames.get(i + 1)?;
        let f0 = self.frames.get(i).copied().unwrap_or(0.0);
        let d = next - f0;
        Some((i, if d > 0.0 { (f - f0) / d } else { 0.0 }))
    }

    /// Index of the key in effect at `f` (clamped to the first and last key).
    fn key_index(&self, f: f32) -> usize {
        self.frames.iter().rposition(|&k| k <= f).unwrap_or(0)
    }

    /// The raw (unscaled) cubic or linear polynomial value of key `i`'s segment at `t`.
    fn poly(&self, i: usize, t: f32) -> f32 {
        match self.curve_type() {
            CurveType::Linear => self.key(i, 0) + self.key(i, 1) * t,
            _ => ((self.key(i, 3) * t + self.key(i, 2)) * t + self.key(i, 1)) * t + self.key(i, 0),
        }
    }

    /// The raw derivative per unit `t` of segment `i` at `t`.
    fn poly_slope(&self, i: usize, t: f32) -> f32 {
        match self.curve_type() {
            CurveType::Linear => self.key(i, 1),
            _ => (3.0 * self.key(i, 3) * t + 2.0 * self.key(i, 2)) * t + self.key(i, 1),
        }
    }

    /// The value of key `i` in final units (float curves).
    pub fn key_value(&self, i: usize) -> f32 {
        self.key(i, 0) * self.scale() + self.offset_f32()
    }

    /// Evaluates the curve at frame `f` (§5.2–§5.3).
    pub fn eval(&self, f: f32) -> Value {
        let f = self.wrap_frame(f);
        let baked_index = || {
            let k = (f.floor() - self.start).max(0.0) as usize;
            k.min(usize::from(self.key_count).saturating_sub(1))
        };
        match self.curve_type() {
            CurveType::Cubic | CurveType::Linear => {
                let raw = match self.segment(f) {
                    Some((i, t)) => self.poly(i, t),
                    None if self.frames.first().is_some_and(|&f0| f < f0) => self.key(0, 0),
                    None => self.key(self.frames.len().saturating_sub(1), 0),
                };
                Value::Float(raw * self.scale() + self.offset_f32())
            }
            CurveType::BakedFloat => {
                let k = baked_index();
                let frac = f - f.floor();
                let a = self.key(k, 0);
                let b = if k + 1 < usize::from(self.key_count) { self.key(k + 1, 0) } else { a };
                Value::Float((a + (b - a) * frac) * self.scale() + self.offset_f32())
            }
            CurveType::StepInt => Value::Int(self.int_key(self.key_index(f)).wrapping_add(self.offset_i32())),
            CurveType::BakedInt => Value::Int(self.int_key(baked_index()).wrapping_add(self.offset_i32())),
            CurveType::StepBool => Value::Bool(self.bit(self.key_index(f))),
            CurveType::BakedBool => Value::Bool(self.bit(baked_index())),
        }
    }

    /// Key `i` of an int curve, exactly as stored (`s8`, `s16` or `s32`; never through `f32`).
    fn int_key(&self, i: usize) -> i32 {
        self.keys.get(i).map_or(0, |&k| k as i32)
    }

    fn bit(&self, i: usize) -> bool {
        let word = self.keys.get(i >> 5).copied().unwrap_or(0.0) as u32;
        (word >> (i & 31)) & 1 == 1
    }

    /// At a key whose segment before it ends more than 4 quantisation steps away from the key's
    /// value (a held, stepped segment), the value the curve approaches from the left.
    pub fn left_limit(&self, f: f32) -> Option<f32> {
        if !matches!(self.curve_type(), CurveType::Cubic | CurveType::Linear) {
            return None;
        }
        let k = self.frames.iter().position(|&x| x == f).filter(|&k| k > 0)?;
        let left = self.poly(k - 1, 1.0) * self.scale() + self.offset_f32();
        let right = self.key_value(k);
        let tol = 4.0 * self.scale().abs() + 1e-6 * right.abs();
        ((left - right).abs() > tol).then_some(left)
    }

    /// Value and slopes (final units per frame) at frame `f` for cubic and linear curves:
    /// `(value, in_slope, out_slope)`. At a key the in-slope comes from the segment before it;
    /// before the first key and after the last the slopes are 0 (clamp). No wrapping is applied.
    pub fn hermite(&self, f: f32) -> (f32, f32, f32) {
        let scale = self.scale();
        let value = match self.eval(f) {
            Value::Float(v) => v,
            other => other.as_f32(),
        };
        if !matches!(self.curve_type(), CurveType::Cubic | CurveType::Linear) {
            return (value, 0.0, 0.0);
        }
        let delta = |i: usize| {
            let a = self.frames.get(i).copied().unwrap_or(0.0);
            let b = self.frames.get(i + 1).copied().unwrap_or(a);
            b - a
        };
        let slope_end_of = |i: usize| {
            let d = delta(i);
            if d > 0.0 {
                self.poly_slope(i, 1.0) * scale / d
            } else {
                0.0
            }
        };
        match self.segment(f) {
            Some((i, t)) => {
                let d = delta(i);
                let out = if d > 0.0 { self.poly_slope(i, t) * scale / d } else { 0.0 };
                let inn = if t == 0.0 && i > 0 { slope_end_of(i - 1) } else { out };
                (value, inn, out)
            }
            None => {
                let last = self.frames.len().saturating_sub(1);
                let at_last = self.frames.last().is_some_and(|&l| l == f);
                let inn = if at_last && last > 0 { slope_end_of(last - 1) } else { 0.0 };
                (value, inn, 0.0)
            }
        }
    }
}

/// A curve array: every header, then every curve's frames and keys.
pub(crate) fn write_curves(o: &mut Out, curves: &[Curve]) -> Result<()> {
    let slots = curves.iter().map(|c| c.write_header(o)).collect::<Result<Vec<_>>>()?;
    for (c, s) in curves.iter().zip(slots) {
        c.write_data(o, s);
    }
    Ok(())
}

/// Nintendo's cubic quantiser (§5.7): `rows` are per-key coefficients in final units
/// (`c0` includes the offset). Returns `(scale, offset, stored rows)` for `s16` (`limit`
/// 32767) or `s8` (127) keys: `offset = (min c0 + max c0) / 2`, `scale = max |coef| / limit`
/// over all rows and columns after subtracting the offset from `c0`, `stored = round(coef / scale)`.
pub fn quantise_cubic(rows: &[[f32; 4]], limit: f32) -> (f32, f32, Vec<[i32; 4]>) {
    let (min, max) = rows.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), r| (a.min(r[0]), b.max(r[0])));
    let offset = if rows.is_empty() { 0.0 } else { (min + max) / 2.0 };
    let centred: Vec<[f32; 4]> = rows.iter().map(|r| [r[0] - offset, r[1], r[2], r[3]]).collect();
    let peak = centred.iter().flatten().fold(0f32, |m, v| m.max(v.abs()));
    let scale = peak / limit;
    let stored = centred.iter().map(|r| r.map(|v| if scale > 0.0 { (v / scale).round() as i32 } else { 0 })).collect();
    (scale, offset, stored)
}

fn curve_type(flags: u16) -> Option<CurveType> {
    Some(match (flags >> 4) & 7 {
        0 => CurveType::Cubic,
        1 => CurveType::Linear,
        2 => CurveType::BakedFloat,
        4 => CurveType::StepInt,
        5 => CurveType::BakedInt,
        6 => CurveType::StepBool,
        7 => CurveType::BakedBool,
        _ => return None,
    })
}

/// Reads a curve's `n` key frames at `frames_at` in its frame type (Wii U big-endian, Switch
/// little-endian): f32, 10.5 fixed point (i16 / 32) or u8. The byte order is chosen once, so
/// each loop reads one fixed order.
fn read_frames(frame_type: FrameType, data: &[u8], frames_at: usize, n: usize, endian: Endian) -> Result<Vec<f32>> {
    match endian {
        Endian::Big => frames_in::<true>(frame_type, data, frames_at, n),
        Endian::Little => frames_in::<false>(frame_type, data, frames_at, n),
    }
}

fn frames_in<const BE: bool>(frame_type: FrameType, data: &[u8], at: usize, n: usize) -> Result<Vec<f32>> {
    Ok(match frame_type {
        FrameType::F32 => words::<4>(data, at, n, "frame")?.map(|b| f32::from_bits(u32_of::<BE>(b))).collect(),
        FrameType::Fixed10x5 => words::<2>(data, at, n, "frame")?.map(|b| f32::from(i16_of::<BE>(b)) / 32.0).collect(),
        FrameType::U8 => words::<1>(data, at, n, "frame")?.map(|[b]| f32::from(b)).collect(),
    })
}

/// Reads a curve's `n` stored key elements of `kind` (see `keys_in`; bool curves as 32-bit bit
/// words, others in the curve's key type) at `at` (Wii U big-endian, Switch little-endian).
fn read_keys(kind: (KeyType, bool, bool), data: &[u8], at: usize, n: usize, endian: Endian) -> Result<Vec<f64>> {
    match endian {
        Endian::Big => keys_in::<true>(kind, data, at, n),
        Endian::Little => keys_in::<false>(kind, data, at, n),
    }
}

/// Keys of `(key type, bool curve, float curve)` in one byte order: bool words unsigned, int
/// keys signed, float keys as `f32`.
fn keys_in<const BE: bool>(kind: (KeyType, bool, bool), data: &[u8], at: usize, n: usize) -> Result<Vec<f64>> {
    Ok(match kind {
        (KeyType::Bits32, true, _) => words::<4>(data, at, n, "key")?.map(|b| f64::from(u32_of::<BE>(b))).collect(),
        (KeyType::Bits32, _, true) => {
            words::<4>(data, at, n, "key")?.map(|b| f64::from(f32::from_bits(u32_of::<BE>(b)))).collect()
        }
        (KeyType::Bits32, ..) => words::<4>(data, at, n, "key")?.map(|b| f64::from(u32_of::<BE>(b) as i32)).collect(),
        (KeyType::S16, ..) => words::<2>(data, at, n, "key")?.map(|b| f64::from(i16_of::<BE>(b))).collect(),
        (KeyType::S8, ..) => words::<1>(data, at, n, "key")?.map(|[b]| f64::from(b as i8)).collect(),
    })
}

/// The `n` consecutive `N`-byte values at `at`, checked to lie within `data` before any is read
/// (a count that runs past the file is an error at `at`, naming `what`).
fn words<'a, const N: usize>(
    data: &'a [u8],
    at: usize,
    n: usize,
    what: &str,
) -> Result<impl Iterator<Item = [u8; N]> + 'a> {
    let mut c = Cursor::new(data, Endian::Big);
    c.seek(at)?;
    c.count(n as u64, N, what)?;
    let bytes = c.take(n * N)?;
    let (chunks, _) = bytes.as_chunks::<N>();
    Ok(chunks.iter().copied())
}

fn u32_of<const BE: bool>(b: [u8; 4]) -> u32 {
    if BE {
        u32::from_be_bytes(b)
    } else {
        u32::from_le_bytes(b)
    }
}

fn i16_of<const BE: bool>(b: [u8; 2]) -> i16 {
    if BE {
        i16::from_be_bytes(b)
    } else {
        i16::from_le_bytes(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The §5.8 curve: header bytes from the spec, frames 0..=23 (u8, first 2 keys as given,
    /// the rest filler), keys rows 0 and 1 from the spec, the last row `(c0, 0, 0, 0)`.
    fn spec_curve() -> Vec<u8> {
        let header = "0006001800000020000000004 1F00000379C198A3DCCA30600000000000000BC000000D0".replace(' ', "");
        let mut d: Vec<u8> =
            (0..header.len() / 2).map(|i| u8::from_str_radix(&header[2 * i..2 * i + 2], 16).unwrap()).collect();
        // Place frames at 0x1C + 0xBC = 0xD8 and keys at 0x20 + 0xD0 = 0xF0.
        d.resize(0xD8, 0);
        // 24 frames: 0,1,2,… (only the first two matter for the vector; the end frame is 30).
        let frames: Vec<u8> = (0..23u8).chain([30]).collect();
        d.extend_from_slice(&frames);
        d.resize(0xF0, 0);
        let mut rows: Vec<[i16; 4]> = vec![[-5370, 17406, 16330, -16330], [12037, 1076, -32767, 16437]];
        while rows.len() < 23 {
            rows.push([0, 0, 0, 0]);
        }
        rows.push([-5370, 0, 0, 0]);
        for r in rows {
            for v in r {
                d.extend_from_slice(&v.to_be_bytes());
            }
        }
        d
    }

    #[test]
    fn spec_5_8_test_vector() {
        let d = spec_curve();
        let c = Curve::read(&d, 0, Platform::WiiU { version: 0x0405_0003 }).unwrap();
        assert_eq!(c.frame_type(), FrameType::U8);
        assert_eq!(c.key_type(), KeyType::S16);
        assert_eq!(c.curve_type(), CurveType::Cubic);
        assert_eq!((c.key_count, c.target, c.start, c.end), (24, 0x20, 0.0, 30.0));
        assert!((c.scale() - 1.8608542e-05).abs() < 1e-12);
        assert!((c.offset_f32() - 0.09992032).abs() < 1e-8);
        let close = |f: f32, want: f32| {
            let got = c.eval(f).as_f32();
            assert!((got - want).abs() < 2e-7, "frame {f}: {got} vs {want}");
        };
        close(0.0, -7.5515e-06);
        close(0.5, 0.19992727);
        close(1.0, 0.32391133);
        close(30.0, -7.5515e-06);
        // v at 0.5 = 5374.25 raw units: ((−16330·0.5 + 16330)·0.5 + 17406)·0.5 − 5370.
        assert_eq!(c.poly(0, 0.5), 5374.25);
        // Row 0's in-slope at t = 1 is 1076 = row 1's c1 (C1 continuity).
        assert_eq!(c.poly_slope(0, 1.0), 1076.0);
        let (_, inn, out) = c.hermite(1.0);
        assert!((inn - out).abs() < 1e-9);
    }
}
