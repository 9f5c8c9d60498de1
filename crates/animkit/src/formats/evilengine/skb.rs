//! The SKB raw layer: V1 and V2 `ANIM` assets in either byte order (`evilengine.md` §2).
//!
//! [`read_v1`] / [`read_v2`] parse one layout; [`read`] decides between them (explicit version,
//! else both attempts plus validation, §1). [`write`] is the exact inverse of either reader:
//! section padding and any trailing bytes are kept verbatim, so every file rewrites byte for byte.

use bytes::Bytes;

use crate::bytes::{Cursor, Endian, Writer};
use crate::error::{Context, Error, ErrorKind, Result};

/// The magic as a 32-bit value in platform byte order (`1BKS` on big-endian disks).
pub const MAGIC: u32 = 0x3142_4B53;
/// Header size of both versions.
pub const HEADER_SIZE: usize = 0x1C;
/// The padding byte of the original exporter.
pub const PAD: u8 = 0xCD;

/// The two on-disk layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkbVersion {
    V1,
    V2,
}

impl SkbVersion {
    pub fn label(self) -> &'static str {
        match self {
            SkbVersion::V1 => "V1",
            SkbVersion::V2 => "V2",
        }
    }
}

/// A V1 key (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyV1 {
    pub time_index: u16,
    /// x, y, z, w, each / 32767.
    pub quat: [i16; 4],
    /// x, y, z, each × Scale.
    pub tran: [i16; 3],
}

/// A V2 key (10 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyV2 {
    /// Bits 0–14: time index; bit 15: w is negative.
    pub frame: u16,
    pub tran_index: u16,
    /// x, y, z, each / 32767; w is derived.
    pub quat: [i16; 3],
}

impl KeyV2 {
    pub fn time_index(&self) -> u16 {
        self.frame & 0x7FFF
    }

    pub fn w_negative(&self) -> bool {
        self.frame & 0x8000 != 0
    }
}

/// The version-specific sections.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    V1 {
        keys: Vec<KeyV1>,
        /// Seconds.
        times: Vec<f32>,
    },
    V2 {
        keys: Vec<KeyV2>,
        /// Frames at 30 fps.
        times: Vec<u16>,
        tran: Vec<[i16; 3]>,
        /// The two bytes after `times` when T is odd (`CD CD` from the original exporter).
        pad_times: Vec<u8>,
        /// The two bytes after `tran` when N is odd.
        pad_tran: Vec<u8>,
        /// The bytes after `offsets` when B·(T−1) is odd (2, or fewer at the end of the data).
        pad_offsets: Vec<u8>,
    },
}

/// One SKB animation, exactly as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Skb {
    pub endian: Endian,
    /// The header Flags word (V2: a runtime pointer slot); preserved verbatim.
    pub flags: u32,
    pub bone_count: u16,
    /// Per-axis translation scale.
    pub scale: [f32; 3],
    pub body: Body,
    /// `offsets[r][b]` flattened row-major: (T−1) rows of B entries.
    pub offsets: Vec<u16>,
    /// Bytes after the last section: V1 padding (`CD CD`), an extra offsets row of a peer tool, …
    pub tail: Bytes,
}

impl Skb {
    pub fn version(&self) -> SkbVersion {
        match self.body {
            Body::V1 { .. } => SkbVersion::V1,
            Body::V2 { .. } => SkbVersion::V2,
        }
    }

    pub fn key_count(&self) -> usize {
        match &self.body {
            Body::V1 { keys, .. } => keys.len(),
            Body::V2 { keys, .. } => keys.len(),
        }
    }

    pub fn time_count(&self) -> usize {
        match &self.body {
            Body::V1 { times, .. } => times.len(),
            Body::V2 { times, .. } => times.len(),
        }
    }

    /// Number of offset rows (T − 1, or 0 when T is 0 or 1).
    pub fn rows(&self) -> usize {
        self.time_count().saturating_sub(1)
    }

    /// The time of entry `i` of the time table, in seconds.
    pub fn time(&self, i: usize) -> Option<f32> {
        match &self.body {
            Body::V1 { times, .. } => times.get(i).copied(),
            Body::V2 { times, .. } => times.get(i).map(|&f| f32::from(f) / 30.0),
        }
    }

    /// All times in seconds.
    pub fn times_seconds(&self) -> Vec<f32> {
        (0..self.time_count()).filter_map(|i| self.time(i)).collect()
    }

    /// The time index of key `k`.
    pub fn key_time_index(&self, k: usize) -> Option<usize> {
        match &self.body {
            Body::V1 { keys, .. } => keys.get(k).map(|key| usize::from(key.time_index)),
            Body::V2 { keys, .. } => keys.get(k).map(|key| usize::from(key.time_index())),
        }
    }

    /// `offsets[r][b]`.
    pub fn offset(&self, r: usize, b: usize) -> Option<usize> {
        let bones = usize::from(self.bone_count);
        if b >= bones {
            return None;
        }
        self.offsets.get(r.checked_mul(bones)?.checked_add(b)?).map(|&o| usize::from(o))
    }

    /// The dequantised rotation of key `k` (x, y, z, w), not renormalised (§3.1).
    pub fn key_rotation(&self, k: usize) -> Option<[f32; 4]> {
        const Q: f32 = 32767.0;
        match &self.body {
            Body::V1 { keys, .. } => keys.get(k).map(|key| key.quat.map(|c| f32::from(c) / Q)),
            Body::V2 { keys, .. } => keys.get(k).map(v2_rotation),
        }
    }

    /// The dequantised translation of key `k` (`Tran × Scale`, per axis).
    pub fn key_translation(&self, k: usize) -> Option<[f32; 3]> {
        let raw = match &self.body {
            Body::V1 { keys, .. } => keys.get(k)?.tran,
            Body::V2 { keys, tran, .. } => *tran.get(usize::from(keys.get(k)?.tran_index))?,
        };
        let ([x, y, z], [sx, sy, sz]) = (raw, self.scale);
        Some([f32::from(x) * sx, f32::from(y) * sy, f32::from(z) * sz])
    }

    /// The size of the sections without the V1 trailing padding (§2.3 `S`; for V2 all padding
    /// is included).
    pub fn data_size(&self) -> usize {
        let b = usize::from(self.bone_count);
        match &self.body {
            Body::V1 { keys, times } => HEADER_SIZE + 16 * keys.len() + 4 * times.len() + 2 * b * self.rows(),
            Body::V2 { keys, times, tran, pad_times, pad_tran, pad_offsets } => {
                HEADER_SIZE
                    + 10 * keys.len()
                    + 2 * times.len()
                    + pad_times.len()
                    + 6 * tran.len()
                    + pad_tran.len()
                    + 2 * self.offsets.len()
                    + pad_offsets.len()
            }
        }
    }
}

/// The dequantised rotation of a V2 key (x, y, z, w): w derived, its sign from bit 15 (§3.1).
pub fn v2_rotation(key: &KeyV2) -> [f32; 4] {
    let [x, y, z] = key.quat.map(|c| f32::from(c) / 32767.0);
    let w = (1.0 - x * x - y * y - z * z).max(0.0).sqrt();
    [x, y, z, if key.w_negative() { -w } else { w }]
}

/// The byte order the magic announces, or `None` when the bytes are not an SKB animation.
pub fn detect_endian(bytes: &[u8]) -> Option<Endian> {
    let m: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
    if u32::from_be_bytes(m) == MAGIC {
        Some(Endian::Big)
    } else if u32::from_le_bytes(m) == MAGIC {
        Some(Endian::Little)
    } else {
        None
    }
}

struct Header {
    endian: Endian,
    flags: u32,
    bone_count: u16,
    time_count: u16,
    count_word: [u8; 4],
    scale: [f32; 3],
}

/// Reads the header; the returned cursor reads in the byte order the magic announces.
fn header(bytes: &[u8]) -> Result<(Header, Cursor<'_>)> {
    let endian = detect_endian(bytes)
        .ok_or_else(|| Error::invalid(0, "magic is neither \"1BKS\" nor \"SKB1\": not an SKB animation"))?;
    let mut c = Cursor::new(bytes, endian);
    c.skip(4)?;
    let flags = c.u32()?;
    let bone_count = c.u16()?;
    let time_count = c.u16()?;
    let count_word = c.array::<4>()?;
    let scale = [c.f32()?, c.f32()?, c.f32()?];
    Ok((Header { endian, flags, bone_count, time_count, count_word, scale }, c))
}

fn offsets_table(c: &mut Cursor, bones: usize, rows: usize) -> Result<Vec<u16>> {
    let n = c.count(bones as u64 * rows as u64, 2, "offsets")?;
    records(c, n)
}

/// A byte order known at compile time, so that decoding loops carry no byte-order branch.
trait ByteOrder {
    fn u16(b: [u8; 2]) -> u16;
    fn u32(b: [u8; 4]) -> u32;
    fn i16(b: [u8; 2]) -> i16 {
        Self::u16(b) as i16
    }
}

struct Be;
struct Le;

impl ByteOrder for Be {
    fn u16(b: [u8; 2]) -> u16 {
        u16::from_be_bytes(b)
    }
    fn u32(b: [u8; 4]) -> u32 {
        u32::from_be_bytes(b)
    }
}

impl ByteOrder for Le {
    fn u16(b: [u8; 2]) -> u16 {
        u16::from_le_bytes(b)
    }
    fn u32(b: [u8; 4]) -> u32 {
        u32::from_le_bytes(b)
    }
}

/// A fixed-size record of an SKB section.
trait Record<const N: usize>: Sized {
    fn decode<O: ByteOrder>(r: &[u8; N]) -> Self;
}

/// The `W` 16-bit words of a record (`W` = `N` / 2).
#[inline(always)]
fn words<O: ByteOrder, const N: usize, const W: usize>(r: &[u8; N]) -> [i16; W] {
    let mut out = [0; W];
    for (o, b) in out.iter_mut().zip(r.as_chunks::<2>().0) {
        *o = O::i16(*b);
    }
    out
}

impl Record<16> for KeyV1 {
    #[inline(always)]
    fn decode<O: ByteOrder>(r: &[u8; 16]) -> Self {
        let [t, qx, qy, qz, qw, x, y, z] = words::<O, 16, 8>(r);
        KeyV1 { time_index: t as u16, quat: [qx, qy, qz, qw], tran: [x, y, z] }
    }
}

impl Record<10> for KeyV2 {
    #[inline(always)]
    fn decode<O: ByteOrder>(r: &[u8; 10]) -> Self {
        let [frame, tran_index, x, y, z] = words::<O, 10, 5>(r);
        KeyV2 { frame: frame as u16, tran_index: tran_index as u16, quat: [x, y, z] }
    }
}

impl Record<6> for [i16; 3] {
    #[inline(always)]
    fn decode<O: ByteOrder>(r: &[u8; 6]) -> Self {
        words::<O, 6, 3>(r)
    }
}

impl Record<2> for u16 {
    #[inline(always)]
    fn decode<O: ByteOrder>(r: &[u8; 2]) -> Self {
        O::u16(*r)
    }
}

impl Record<4> for f32 {
    #[inline(always)]
    fn decode<O: ByteOrder>(r: &[u8; 4]) -> Self {
        f32::from_bits(O::u32(*r))
    }
}

/// Reads `n` records (a count already checked with [`Cursor::count`]) in the cursor's byte
/// order: the whole block is taken at once and decoded in one loop per byte order, without
/// per-field bounds checks or byte-order branches.
fn records<const N: usize, T: Record<N>>(c: &mut Cursor, n: usize) -> Result<Vec<T>> {
    let block = c.take(n.saturating_mul(N))?.as_chunks::<N>().0;
    Ok(match c.endian() {
        Endian::Big => block.iter().map(T::decode::<Be>).collect(),
        Endian::Little => block.iter().map(T::decode::<Le>).collect(),
    })
}

/// Parses the V1 layout.
pub fn read_v1(bytes: &Bytes) -> Result<Skb> {
    read_v1_inner(bytes).within(|| "SKB V1")
}

fn read_v1_inner(bytes: &Bytes) -> Result<Skb> {
    let (h, mut c) = header(bytes).within(|| "header")?;
    let key_count = match h.endian {
        Endian::Big => u32::from_be_bytes(h.count_word),
        Endian::Little => u32::from_le_bytes(h.count_word),
    };
    let n = c.count(u64::from(key_count), 16, "key").within(|| "keys")?;
    let keys = records(&mut c, n).within(|| "keys")?;
    let t = c.count(u64::from(h.time_count), 4, "time").within(|| "times")?;
    let times = records(&mut c, t).within(|| "times")?;
    let offsets = offsets_table(&mut c, usize::from(h.bone_count), t.saturating_sub(1)).within(|| "offsets")?;
    let tail = bytes.slice(c.pos()..);
    Ok(Skb {
        endian: h.endian,
        flags: h.flags,
        bone_count: h.bone_count,
        scale: h.scale,
        body: Body::V1 { keys, times },
        offsets,
        tail,
    })
}

/// Reads the two pad bytes that follow a section of odd element count; fewer at the end of data.
fn pad(c: &mut Cursor, odd: bool, last: bool) -> Result<Vec<u8>> {
    if !odd {
        return Ok(Vec::new());
    }
    let n = if last { c.remaining().min(2) } else { 2 };
    Ok(c.take(n)?.to_vec())
}

/// Parses the V2 layout.
pub fn read_v2(bytes: &Bytes) -> Result<Skb> {
    read_v2_inner(bytes).within(|| "SKB V2")
}

fn read_v2_inner(bytes: &Bytes) -> Result<Skb> {
    let (h, mut c) = header(bytes).within(|| "header")?;
    let (kc, nc) = match h.endian {
        Endian::Big => (
            u16::from_be_bytes([h.count_word[0], h.count_word[1]]),
            u16::from_be_bytes([h.count_word[2], h.count_word[3]]),
        ),
        Endian::Little => (
            u16::from_le_bytes([h.count_word[0], h.count_word[1]]),
            u16::from_le_bytes([h.count_word[2], h.count_word[3]]),
        ),
    };
    let n = c.count(u64::from(kc), 10, "key").within(|| "keys")?;
    let keys = records(&mut c, n).within(|| "keys")?;
    let t = c.count(u64::from(h.time_count), 2, "time").within(|| "times")?;
    let times = records(&mut c, t).within(|| "times")?;
    let pad_times = pad(&mut c, t % 2 == 1, false).within(|| "times padding")?;
    let tn = c.count(u64::from(nc), 6, "translation").within(|| "translations")?;
    let tran = records(&mut c, tn).within(|| "translations")?;
    let pad_tran = pad(&mut c, tn % 2 == 1, false).within(|| "translations padding")?;
    let bones = usize::from(h.bone_count);
    let rows = t.saturating_sub(1);
    let offsets = offsets_table(&mut c, bones, rows).within(|| "offsets")?;
    let pad_offsets = pad(&mut c, (bones * rows) % 2 == 1, true)?;
    let tail = bytes.slice(c.pos()..);
    Ok(Skb {
        endian: h.endian,
        flags: h.flags,
        bone_count: h.bone_count,
        scale: h.scale,
        body: Body::V2 { keys, times, tran, pad_times, pad_tran, pad_offsets },
        offsets,
        tail,
    })
}

/// Reads one layout.
pub fn read_version(bytes: &Bytes, version: SkbVersion) -> Result<Skb> {
    match version {
        SkbVersion::V1 => read_v1(bytes),
        SkbVersion::V2 => read_v2(bytes),
    }
}

/// How the version of a file was decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Decided {
    /// By an explicit option (`skb_version`).
    Option,
    /// By the archive's metadata (game detection).
    Archive(String),
    /// By size and validation: only this layout matched.
    Validation,
}

/// Whether the file's length fits this layout exactly (§2.3), allowing the V1 peer-tool variants
/// (no padding, an extra offsets row).
pub fn length_matches(skb: &Skb) -> bool {
    let tail = skb.tail.len();
    match skb.version() {
        SkbVersion::V1 => {
            let s = skb.data_size();
            let row = 2 * usize::from(skb.bone_count);
            let padding = |n: usize| (4 - n % 4) % 4;
            tail == 0 || tail == padding(s) || tail == row || tail == row + padding(s + row)
        }
        SkbVersion::V2 => tail == 0,
    }
}

/// Reads a loose SKB animation: with `version` when given, else by trying both layouts (§1 step
/// 3): the one whose size matches and that passes C4–C9 wins; otherwise an error asks for the option.
pub fn read(bytes: &Bytes, version: Option<SkbVersion>) -> Result<(Skb, Decided)> {
    if detect_endian(bytes).is_none() {
        return Err(Error::invalid(0, "magic is neither \"1BKS\" nor \"SKB1\": not an SKB animation"));
    }
    if let Some(v) = version {
        return Ok((read_version(bytes, v)?, Decided::Option));
    }
    let attempt = |v: SkbVersion| -> Result<Skb, String> {
        let skb = read_version(bytes, v).map_err(|e| e.to_string())?;
        if !length_matches(&skb) {
            return Err(format!("{} trailing bytes do not fit the {} layout", skb.tail.len(), v.label()));
        }
        if let Some(v) =
            super::lint::invariant_violations(&skb).into_iter().find(|v| !matches!(v.code, "c2-flags" | "c3-size"))
        {
            return Err(format!("{}: {}", v.code, v.message));
        }
        Ok(skb)
    };
    match (attempt(SkbVersion::V1), attempt(SkbVersion::V2)) {
        (Ok(skb), Err(_)) | (Err(_), Ok(skb)) => Ok((skb, Decided::Validation)),
        (Ok(_), Ok(_)) => Err(Error::new(
            ErrorKind::Unsupported,
            Some(0),
            "both the V1 and the V2 layout fit this animation; name one with skb_version=1 or skb_version=2",
        )),
        (Err(a), Err(b)) => Err(Error::new(
            ErrorKind::Invalid,
            Some(0),
            format!("neither layout fits (V1: {a}; V2: {b}); name one with skb_version=1 or skb_version=2"),
        )),
    }
}

/// Writes the animation back exactly as stored.
pub fn write(skb: &Skb) -> Vec<u8> {
    let mut w = Writer::with_capacity(skb.endian, skb.data_size() + skb.tail.len());
    w.u32(MAGIC);
    w.u32(skb.flags);
    w.u16(skb.bone_count);
    w.u16(skb.time_count() as u16);
    match &skb.body {
        Body::V1 { keys, times } => {
            w.u32(keys.len() as u32);
            skb.scale.iter().for_each(|&s| w.f32(s));
            for k in keys {
                w.u16(k.time_index);
                k.quat.iter().for_each(|&q| w.i16(q));
                k.tran.iter().for_each(|&t| w.i16(t));
            }
            times.iter().for_each(|&t| w.f32(t));
            skb.offsets.iter().for_each(|&o| w.u16(o));
        }
        Body::V2 { keys, times, tran, pad_times, pad_tran, pad_offsets } => {
            w.u16(keys.len() as u16);
            w.u16(tran.len() as u16);
            skb.scale.iter().for_each(|&s| w.f32(s));
            for k in keys {
                w.u16(k.frame);
                w.u16(k.tran_index);
                k.quat.iter().for_each(|&q| w.i16(q));
            }
            times.iter().for_each(|&t| w.u16(t));
            w.bytes(pad_times);
            for t in tran {
                t.iter().for_each(|&v| w.i16(v));
            }
            w.bytes(pad_tran);
            skb.offsets.iter().for_each(|&o| w.u16(o));
            w.bytes(pad_offsets);
        }
    }
    w.bytes(&skb.tail);
    w.into_vec()
}

/// Checks that the counts fit their header fields (before writing an edited or built animation).
pub fn check_counts(skb: &Skb) -> Result<()> {
    let t = skb.time_count();
    if t > usize::from(u16::MAX) {
        return Err(Error::unrepresentable(format!("{t} times do not fit the u16 TimeCount")));
    }
    if skb.offsets.len() != usize::from(skb.bone_count) * skb.rows() {
        return Err(Error::unrepresentable(format!(
            "{} offsets for {} bones and {} rows",
            skb.offsets.len(),
            skb.bone_count,
            skb.rows()
        )));
    }
    match &skb.body {
        Body::V1 { keys, .. } if keys.len() > u32::MAX as usize => Err(Error::unrepresentable("too many keys")),
        Body::V2 { keys, tran, .. } if keys.len() > usize::from(u16::MAX) || tran.len() > usize::from(u16::MAX) => {
            Err(Error::unrepresentable("V2 key or translation count does not fit u16"))
        }
        _ => Ok(()),
    }
}

/// The same animation in the other byte order (the raw integers are unchanged).
pub fn with_endian(skb: &Skb, endian: Endian) -> Skb {
    Skb { endian, ..skb.clone() }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A hand-built V1 big-endian asset: B = 2, T = 3, K = 5 (bone 0 keys at t0,t2; bone 1 at
    /// t0,t1,t2). Layout per §2.1: 28 + 16·5 + 4·3 + 2·2·2 = 128 bytes, already a multiple of 4.
    pub fn v1_sample(endian: Endian) -> Vec<u8> {
        let mut w = Writer::new(endian);
        w.u32(MAGIC);
        w.u32(0);
        w.u16(2);
        w.u16(3);
        w.u32(5);
        for s in [0.001f32, 0.002, 0.0] {
            w.f32(s);
        }
        let keys: [(u16, [i16; 4], [i16; 3]); 5] = [
            (0, [0, 0, 0, 32767], [0, 0, 0]),
            (2, [0, 0, 0, 32767], [0, 0, 0]),
            (0, [0, 0, 0, 32767], [32767, -100, 0]),
            (1, [0, 0, 23170, 23170], [0, 16384, 0]),
            (2, [0, 0, 32767, 0], [-32767, 32767, 0]),
        ];
        for (ti, q, t) in keys {
            w.u16(ti);
            q.iter().for_each(|&v| w.i16(v));
            t.iter().for_each(|&v| w.i16(v));
        }
        for t in [0.0f32, 0.5, 1.0] {
            w.f32(t);
        }
        // Rows r = 0, 1; columns b = 0, 1: bone 0 keys 0–1, bone 1 keys 2–4.
        for o in [0u16, 2, 0, 3] {
            w.u16(o);
        }
        w.into_vec()
    }

    #[test]
    fn v1_reads_and_writes_back_both_byte_orders() {
        for endian in [Endian::Big, Endian::Little] {
            let bytes = Bytes::from(v1_sample(endian));
            assert_eq!(bytes.len(), 128);
            let expected_magic: &[u8] = if endian == Endian::Big { b"1BKS" } else { b"SKB1" };
            assert_eq!(&bytes[..4], expected_magic);
            let (skb, decided) = read(&bytes, None).unwrap();
            assert_eq!(decided, Decided::Validation);
            assert_eq!(skb.version(), SkbVersion::V1);
            assert_eq!((skb.bone_count, skb.time_count(), skb.key_count()), (2, 3, 5));
            assert_eq!(skb.offset(1, 1), Some(3));
            assert_eq!(write(&skb), bytes.to_vec());
            // Tran × Scale per axis: 32767 × 0.001, −100 × 0.002, 0 × 0.
            let t = skb.key_translation(2).unwrap();
            assert!((t[0] - 32.767).abs() < 1e-4 && (t[1] + 0.2).abs() < 1e-6 && t[2] == 0.0);
        }
    }

    /// A big-endian V1 asset with B = 1, T = 2, K = 2 (identity keys at times 0 and `second`),
    /// without its padding: S = 28 + 32 + 8 + 2 = 70, so a canonical file adds 2 bytes of `CD`.
    fn one_bone_v1_unpadded(second: f32) -> Vec<u8> {
        let mut w = Writer::new(Endian::Big);
        w.u32(MAGIC);
        w.u32(0);
        w.u16(1);
        w.u16(2);
        w.u32(2);
        [0.0f32; 3].iter().for_each(|&s| w.f32(s));
        for ti in [0u16, 1] {
            w.u16(ti);
            [0i16, 0, 0, 32767, 0, 0, 0].iter().for_each(|&v| w.i16(v));
        }
        w.f32(0.0);
        w.f32(second);
        w.u16(0);
        w.into_vec()
    }

    #[test]
    fn v1_padding_and_tail_are_kept() {
        let bytes = Bytes::from([one_bone_v1_unpadded(1.0 / 30.0), vec![PAD; 2]].concat());
        assert_eq!(bytes.len(), 72);
        let (skb, _) = read(&bytes, None).unwrap();
        assert_eq!(&skb.tail[..], &[0xCD, 0xCD]);
        assert_eq!(write(&skb), bytes.to_vec());
    }

    /// A V2 little-endian asset: B = 1, T = 3, K = 3, N = 1 (odd counts everywhere, so every
    /// section has two pad bytes). Size per §2.3: 28 + 30 + 2·(3+1) + 6 + 2 + 2·(2+0) = 78.
    pub fn v2_sample(endian: Endian) -> Vec<u8> {
        let mut w = Writer::new(endian);
        w.u32(MAGIC);
        w.u32(0);
        w.u16(1);
        w.u16(3);
        w.u16(3);
        w.u16(1);
        [0.01f32, 0.01, 0.01].iter().for_each(|&s| w.f32(s));
        for (frame, q) in [(0u16, [0i16, 0, 0]), (1, [0, 0, 23170]), (2 | 0x8000, [0, 0, 0])] {
            w.u16(frame);
            w.u16(0);
            q.iter().for_each(|&v| w.i16(v));
        }
        [0u16, 15, 30].iter().for_each(|&t| w.u16(t));
        w.fill(PAD, 2);
        [100i16, 200, 300].iter().for_each(|&v| w.i16(v));
        w.fill(PAD, 2);
        [0u16, 1].iter().for_each(|&o| w.u16(o));
        w.into_vec()
    }

    #[test]
    fn v2_reads_and_writes_back() {
        for endian in [Endian::Big, Endian::Little] {
            let bytes = Bytes::from(v2_sample(endian));
            assert_eq!(bytes.len(), 78);
            let (skb, decided) = read(&bytes, None).unwrap();
            assert_eq!((skb.version(), decided), (SkbVersion::V2, Decided::Validation));
            assert_eq!(write(&skb), bytes.to_vec());
            // w = −sqrt(1 − 0) for the key with bit 15 set; time 15 frames = 0.5 s.
            assert_eq!(skb.key_rotation(2).unwrap(), [0.0, 0.0, 0.0, -1.0]);
            assert_eq!(skb.time(1), Some(0.5));
            assert_eq!(skb.key_translation(1).unwrap(), [100.0 * 0.01, 200.0 * 0.01, 300.0 * 0.01]);
        }
    }

    #[test]
    fn explicit_version_overrides_and_ambiguity_is_an_error() {
        let bytes = Bytes::from(v1_sample(Endian::Big));
        assert!(read_v2(&bytes).map(|s| !length_matches(&s)).unwrap_or(true));
        let (skb, decided) = read(&bytes, Some(SkbVersion::V1)).unwrap();
        assert_eq!((skb.version(), decided), (SkbVersion::V1, Decided::Option));
        // Not an SKB at all.
        assert!(read(&Bytes::from_static(b"ABCDxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), None).is_err());
    }

    #[test]
    fn truncation_never_panics() {
        for sample in [v1_sample(Endian::Big), v2_sample(Endian::Little)] {
            for n in 0..sample.len() {
                let b = Bytes::copy_from_slice(&sample[..n]);
                let _ = read(&b, None);
                let _ = read_v1(&b);
                let _ = read_v2(&b);
            }
        }
    }

    /// Peer-tool variants (§7): an extra offsets row (BFBBAnimTools), `H` padding
    /// (io_scene_bfbb_anm), no padding. Each reads as V1, keeps its bytes, is flagged by lint
    /// and is made canonical by repair.
    #[test]
    fn peer_tool_variants_read_and_repair() {
        use crate::formats::evilengine::lint::{lint_skb, repair_skb};
        // Canonical: 70 bytes of content and CD CD.
        let base = one_bone_v1_unpadded(0.5);
        let canonical = [base.clone(), vec![PAD; 2]].concat();
        let variants = [
            base.clone(),                            // no padding
            [base.clone(), b"HH".to_vec()].concat(), // 'H' padding
            [base.clone(), vec![0, 1]].concat(),     // an extra offsets row (row T−1 = key 1)
        ];
        for v in variants {
            let bytes = Bytes::from(v.clone());
            let (skb, decided) = read(&bytes, None).unwrap();
            assert_eq!((skb.version(), decided), (SkbVersion::V1, Decided::Validation));
            assert_eq!(write(&skb), v);
            assert!(lint_skb(&skb).iter().any(|f| f.code == "c3-size" && f.fixable));
            let (fixed, changes) = repair_skb(&skb);
            assert_eq!(changes.len(), 1);
            assert_eq!(write(&fixed), canonical);
        }
    }

    /// Random byte mutations of the samples: every layer must return, never panic.
    #[test]
    fn mutations_never_panic() {
        let mut x = 0x9E37_79B9u32;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for sample in [v1_sample(Endian::Big), v2_sample(Endian::Little)] {
            for _ in 0..3000 {
                let mut b = sample.clone();
                for _ in 0..1 + next() % 4 {
                    let i = next() as usize % b.len();
                    b[i] = next() as u8;
                }
                let b = Bytes::from(b);
                for v in [None, Some(SkbVersion::V1), Some(SkbVersion::V2)] {
                    if let Ok((skb, _)) = read(&b, v) {
                        let _ = super::super::lint::lint_skb(&skb);
                        let _ = super::super::lint::repair_skb(&skb);
                        let _ = super::super::model::evaluate(&skb, 0.3);
                        let _ = super::super::model::to_clip(&skb, "m", None, &Default::default());
                        let _ = super::super::dump::to_dump(&skb);
                        let _ = write(&skb);
                    }
                }
            }
        }
    }

    #[test]
    fn byte_order_swap_round_trips() {
        let be = Bytes::from(v1_sample(Endian::Big));
        let skb = read_v1(&be).unwrap();
        let le = write(&with_endian(&skb, Endian::Little));
        assert_eq!(le, v1_sample(Endian::Little));
        let back = read_v1(&Bytes::from(le)).unwrap();
        assert_eq!(write(&with_endian(&back, Endian::Big)), be.to_vec());
    }
}
