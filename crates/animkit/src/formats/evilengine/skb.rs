//! The SKB raw layer: V1 and V2 `ANIM` assets in either byte order (`evilengine.md` §2).
//!
//! The fixed-layout parts (headers, keys) are [`record!`](crate::record) declarations: one field
//! list reads, writes and dumps (serde) both byte orders. The sections are arrays whose counts
//! are the header's; their padding and any trailing bytes are kept verbatim, so [`write`] gives
//! back every file byte for byte. Which layout a loose file has is the format's decision
//! (`mod.rs`), not the reader's.

use serde::{Deserialize, Serialize};

use crate::bytes::{Cursor, Endian, Writer};
use crate::error::{Context, Error, Result};
use crate::raw_json::{Hex, F32};
use crate::record::Record;

/// The magic as a 32-bit value in the file's byte order (`1BKS` on big-endian disks).
const MAGIC: u32 = 0x3142_4B53;
/// Header size of both versions.
pub(crate) const HEADER_SIZE: usize = 0x1C;
/// The padding byte of the original exporter.
pub(crate) const PAD: u8 = 0xCD;

/// The two on-disk layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkbVersion {
    V1,
    V2,
}

impl SkbVersion {
    pub(crate) fn label(self) -> &'static str {
        match self {
            SkbVersion::V1 => "V1",
            SkbVersion::V2 => "V2",
        }
    }
}

crate::record! {
    /// The V1 header after the magic (KeyCount a u32).
    struct HeaderV1 {
        flags: u32,
        bone_count: u16,
        time_count: u16,
        key_count: u32,
        scale: [F32; 3],
    }
}

crate::record! {
    /// The V2 header after the magic (KeyCount and TranCount u16).
    struct HeaderV2 {
        flags: u32,
        bone_count: u16,
        time_count: u16,
        key_count: u16,
        tran_count: u16,
        scale: [F32; 3],
    }
}

crate::record! {
    /// A V1 key (16 bytes), laid out in memory as on disk so that decoding it is a byte swap.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
    #[repr(C)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct KeyV1 {
        pub time_index: u16,
        /// x, y, z, w, each / 32767.
        pub quat: [i16; 4],
        /// x, y, z, each × Scale.
        pub tran: [i16; 3],
    }
}

crate::record! {
    /// A V2 key (10 bytes), laid out in memory as on disk.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
    #[repr(C)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct KeyV2 {
        /// Bits 0–14: time index; bit 15: w is negative.
        pub frame: u16,
        pub tran_index: u16,
        /// x, y, z, each / 32767; w is derived.
        pub quat: [i16; 3],
    }
}

impl KeyV2 {
    pub(crate) fn time_index(&self) -> u16 {
        self.frame & 0x7FFF
    }

    /// The dequantised rotation (x, y, z, w): w derived, its sign from bit 15 (§3.1).
    pub(crate) fn rotation(&self) -> [f32; 4] {
        let [x, y, z] = self.quat.map(|c| f32::from(c) / 32767.0);
        let w = (1.0 - x * x - y * y - z * z).max(0.0).sqrt();
        [x, y, z, if self.frame & 0x8000 != 0 { -w } else { w }]
    }
}

/// The version-specific sections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "version", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Body {
    V1 {
        keys: Vec<KeyV1>,
        /// Seconds.
        times: Vec<F32>,
    },
    V2 {
        keys: Vec<KeyV2>,
        /// Frames at 30 fps.
        times: Vec<u16>,
        tran: Vec<[i16; 3]>,
        /// The two bytes after `times` when T is odd (`CD CD` from the original exporter).
        #[serde(default, skip_serializing_if = "Hex::is_empty")]
        pad_times: Hex,
        /// The two bytes after `tran` when N is odd.
        #[serde(default, skip_serializing_if = "Hex::is_empty")]
        pad_tran: Hex,
        /// The bytes after `offsets` when B·(T−1) is odd (2, or fewer at the end of the data).
        #[serde(default, skip_serializing_if = "Hex::is_empty")]
        pad_offsets: Hex,
    },
}

/// One SKB animation, exactly as stored (its serde form is the dump). Counts are the lengths of
/// the arrays; BoneCount is kept because a T = 1 animation has no offsets rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Skb {
    pub endian: Endian,
    /// The header Flags word (V2: a runtime pointer slot); preserved verbatim.
    pub flags: u32,
    pub bone_count: u16,
    /// Per-axis translation scale.
    pub scale: [F32; 3],
    pub body: Body,
    /// `offsets[r][b]` flattened row-major: (T−1) rows of B key indices.
    pub offsets: Vec<u16>,
    /// Bytes after the last section: V1 padding (`CD CD`), an extra offsets row of a peer tool, …
    #[serde(default, skip_serializing_if = "Hex::is_empty")]
    pub tail: Hex,
}

impl Skb {
    pub(crate) fn version(&self) -> SkbVersion {
        match self.body {
            Body::V1 { .. } => SkbVersion::V1,
            Body::V2 { .. } => SkbVersion::V2,
        }
    }

    pub(crate) fn key_count(&self) -> usize {
        match &self.body {
            Body::V1 { keys, .. } => keys.len(),
            Body::V2 { keys, .. } => keys.len(),
        }
    }

    pub(crate) fn time_count(&self) -> usize {
        match &self.body {
            Body::V1 { times, .. } => times.len(),
            Body::V2 { times, .. } => times.len(),
        }
    }

    /// Number of offset rows (T − 1, or 0 when T is 0 or 1).
    pub(crate) fn rows(&self) -> usize {
        self.time_count().saturating_sub(1)
    }

    /// All times in seconds.
    pub(crate) fn times_seconds(&self) -> Vec<f32> {
        match &self.body {
            Body::V1 { times, .. } => times.iter().map(|t| t.0).collect(),
            Body::V2 { times, .. } => times.iter().map(|&f| f32::from(f) / 30.0).collect(),
        }
    }

    /// The time index of key `k`.
    pub(crate) fn key_time_index(&self, k: usize) -> Option<usize> {
        match &self.body {
            Body::V1 { keys, .. } => keys.get(k).map(|key| usize::from(key.time_index)),
            Body::V2 { keys, .. } => keys.get(k).map(|key| usize::from(key.time_index())),
        }
    }

    /// Row `r` of the offsets table: one entry per bone.
    fn offset_row(&self, r: usize) -> Option<&[u16]> {
        let bones = usize::from(self.bone_count);
        let start = r.checked_mul(bones)?;
        self.offsets.get(start..start.checked_add(bones)?)
    }

    /// `offsets[r][b]`.
    pub(crate) fn offset(&self, r: usize, b: usize) -> Option<usize> {
        self.offset_row(r)?.get(b).map(|&o| usize::from(o))
    }

    /// The byte offset of the offsets table: after the header, the keys, the times and (V2) the
    /// translations, with their padding (§2.1, §2.2).
    pub(crate) fn offsets_start(&self) -> usize {
        match &self.body {
            Body::V1 { keys, times } => HEADER_SIZE + 16 * keys.len() + 4 * times.len(),
            Body::V2 { keys, times, tran, pad_times, pad_tran, .. } => {
                let (times, tran) = (2 * times.len() + pad_times.0.len(), 6 * tran.len() + pad_tran.0.len());
                HEADER_SIZE + 10 * keys.len() + times + tran
            }
        }
    }

    /// The size of the sections without the V1 trailing padding (§2.3 `S`; for V2 all padding
    /// is included).
    pub(crate) fn data_size(&self) -> usize {
        self.offsets_start()
            + match &self.body {
                Body::V1 { .. } => 2 * usize::from(self.bone_count) * self.rows(),
                Body::V2 { pad_offsets, .. } => 2 * self.offsets.len() + pad_offsets.0.len(),
            }
    }

    /// The key range `(first, last)` of each bone. T = 1 (§3.4): one key per bone, `keys[2b]`
    /// when K = 2B, `keys[b]` when K = B. T ≥ 2: the offsets table's ranges when they follow one
    /// another from key 0 to K − 1 with at least two keys each (C5, C10), else [`Skb::bone_runs`].
    pub(crate) fn bone_ranges(&self) -> Result<Vec<(usize, usize)>, String> {
        let (bones, k) = (usize::from(self.bone_count), self.key_count());
        match self.time_count() {
            0 => Err("TimeCount is 0".into()),
            1 if k == 2 * bones => Ok((0..bones).map(|b| (2 * b, 2 * b)).collect()),
            1 if k == bones => Ok((0..bones).map(|b| (b, b)).collect()),
            1 => Err(format!("static pose (T = 1) needs K = B or K = 2B; K = {k}, B = {bones}")),
            _ => {
                let last = self.rows().checked_sub(1).and_then(|r| self.offset_row(r));
                let table = self.offset_row(0).zip(last).and_then(|(first, last)| consecutive_ranges(first, last, k));
                table.or_else(|| self.bone_runs()).ok_or_else(|| {
                    "keys are not grouped by bone: the offsets table and the TimeIndex runs disagree with BoneCount"
                        .into()
                })
            }
        }
    }

    /// Bone `b`'s keys `(first, last)` by the offsets table (C5): from its entry in the first row
    /// to the key after its entry in the last; `None` when T < 2 or the entries are missing.
    pub(crate) fn table_range(&self, b: usize) -> Option<(usize, usize)> {
        Some((self.offset(0, b)?, self.offset(self.rows().checked_sub(1)?, b)? + 1))
    }

    /// Splits the keys into per-bone runs `(first, last)` of strictly increasing time index (the
    /// grouping C5–C8 describe); `None` unless there are exactly B runs that each start at 0 and
    /// end at T − 1.
    pub(crate) fn bone_runs(&self) -> Option<Vec<(usize, usize)>> {
        let (t, k) = (self.time_count(), self.key_count());
        let ti = |k| self.key_time_index(k);
        let mut runs = Vec::new();
        let mut start = 0;
        for i in 1..=k {
            if i == k || ti(i)? <= ti(i - 1)? {
                runs.push((start, i - 1));
                start = i;
            }
        }
        let ok = t >= 2
            && runs.len() == usize::from(self.bone_count)
            && runs.iter().all(|&(s, e)| ti(s) == Some(0) && ti(e) == Some(t - 1) && e > s);
        ok.then_some(runs)
    }

    /// The offsets table C9 derives from the per-bone key runs ([`Skb::bone_runs`]).
    pub(crate) fn derived_offsets(&self) -> Option<Vec<u16>> {
        let runs = self.bone_runs()?;
        let mut offsets = vec![0u16; self.rows() * runs.len()];
        for (b, &(start, end)) in runs.iter().enumerate() {
            let mut o = start;
            // Column b of the rows × runs table.
            for (r, slot) in offsets.iter_mut().skip(b).step_by(runs.len()).enumerate() {
                while o + 1 < end && self.key_time_index(o + 1).is_some_and(|x| x <= r) {
                    o += 1;
                }
                *slot = o as u16;
            }
        }
        Some(offsets)
    }

    /// Sets the original exporter's padding (§2.3): V2 `CD CD` after each section of odd count
    /// and nothing after the data; V1 `CD` after the data up to a multiple of 4.
    pub(crate) fn pad_canonically(&mut self) {
        let odd = |n: usize| Hex(if n % 2 == 1 { vec![PAD; 2] } else { Vec::new() });
        let offsets = self.offsets.len();
        if let Body::V2 { times, tran, pad_times, pad_tran, pad_offsets, .. } = &mut self.body {
            (*pad_times, *pad_tran, *pad_offsets) = (odd(times.len()), odd(tran.len()), odd(offsets));
        }
        self.tail = Hex(match self.body {
            Body::V1 { .. } => vec![PAD; (4 - self.data_size() % 4) % 4],
            Body::V2 { .. } => Vec::new(),
        });
    }

    /// Whether the file's length fits this layout exactly (§2.3), allowing the V1 peer-tool
    /// variants (no padding, an extra offsets row).
    pub(crate) fn length_fits(&self) -> bool {
        let tail = self.tail.0.len();
        match self.version() {
            SkbVersion::V1 => {
                let s = self.data_size();
                let row = 2 * usize::from(self.bone_count);
                let padding = |n: usize| (4 - n % 4) % 4;
                tail == 0 || tail == padding(s) || tail == row || tail == row + padding(s + row)
            }
            SkbVersion::V2 => tail == 0,
        }
    }

    /// Checks that the counts fit their header fields (before writing an edited or built animation).
    pub(crate) fn check_counts(&self) -> Result<()> {
        let t = self.time_count();
        if t > usize::from(u16::MAX) {
            return Err(Error::unrepresentable(format!("{t} times do not fit the u16 TimeCount")));
        }
        if self.offsets.len() != usize::from(self.bone_count) * self.rows() {
            let (n, b, r) = (self.offsets.len(), self.bone_count, self.rows());
            return Err(Error::unrepresentable(format!("{n} offsets for {b} bones and {r} rows")));
        }
        match &self.body {
            Body::V1 { keys, .. } if keys.len() > u32::MAX as usize => Err(Error::unrepresentable("too many keys")),
            Body::V2 { keys, tran, .. } if keys.len() > usize::from(u16::MAX) || tran.len() > usize::from(u16::MAX) => {
                Err(Error::unrepresentable("V2 key or translation count does not fit u16"))
            }
            _ => Ok(()),
        }
    }
}

/// The key ranges `(first[b], last[b] + 1)` of an offsets table's first and last rows (C5), when
/// they follow one another from key 0 to `keys − 1` with at least two keys each (C10).
fn consecutive_ranges(first: &[u16], last: &[u16], keys: usize) -> Option<Vec<(usize, usize)>> {
    let mut table = Vec::with_capacity(first.len());
    let mut next = 0;
    for (&s, &e) in first.iter().zip(last) {
        let (s, e) = (usize::from(s), usize::from(e) + 1);
        if s != next || e <= s {
            return None;
        }
        table.push((s, e));
        next = e + 1;
    }
    (next == keys).then_some(table)
}

/// How the layout of an animation was decided.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Decided {
    /// By an explicit option (`skb_version`).
    Option,
    /// By size and validation: only this layout matched.
    Validation,
}

/// The byte order the magic announces; an error when the bytes are not an SKB animation.
pub(crate) fn detect_endian(bytes: &[u8]) -> Result<Endian> {
    match bytes.first_chunk().map(|&m| (u32::from_be_bytes(m), u32::from_le_bytes(m))) {
        Some((MAGIC, _)) => Ok(Endian::Big),
        Some((_, MAGIC)) => Ok(Endian::Little),
        _ => Err(Error::invalid(0, "magic is neither \"1BKS\" nor \"SKB1\": not an SKB animation")),
    }
}

/// An element of an SKB section decoded from its `N` bytes. The sections are the hot path of
/// reading (125,000 keys in BFBB's boot.HIP): this decodes a whole section in one loop per byte
/// order without per-field bounds checks. The layouts are the [`Record`] declarations above,
/// which write them (a unit test reads every section both ways).
trait Decode<const N: usize>: Sized {
    /// The element in big-endian (`BIG`) or little-endian order: a constant, so the section
    /// loops carry no byte-order test.
    fn decode<const BIG: bool>(r: &[u8; N]) -> Self;
}

/// The `W` 16-bit words of a record (`W` = `N` / 2).
#[inline(always)]
fn words<const BIG: bool, const N: usize, const W: usize>(r: &[u8; N]) -> [i16; W] {
    let mut out = [0; W];
    for (o, b) in out.iter_mut().zip(r.as_chunks::<2>().0) {
        *o = if BIG { i16::from_be_bytes(*b) } else { i16::from_le_bytes(*b) };
    }
    out
}

impl Decode<16> for KeyV1 {
    #[inline(always)]
    fn decode<const BIG: bool>(r: &[u8; 16]) -> Self {
        let [t, qx, qy, qz, qw, x, y, z] = words::<BIG, 16, 8>(r);
        KeyV1 { time_index: t as u16, quat: [qx, qy, qz, qw], tran: [x, y, z] }
    }
}

impl Decode<10> for KeyV2 {
    #[inline(always)]
    fn decode<const BIG: bool>(r: &[u8; 10]) -> Self {
        let [frame, tran_index, x, y, z] = words::<BIG, 10, 5>(r);
        KeyV2 { frame: frame as u16, tran_index: tran_index as u16, quat: [x, y, z] }
    }
}

impl Decode<6> for [i16; 3] {
    #[inline(always)]
    fn decode<const BIG: bool>(r: &[u8; 6]) -> Self {
        words::<BIG, 6, 3>(r)
    }
}

impl Decode<2> for u16 {
    #[inline(always)]
    fn decode<const BIG: bool>(r: &[u8; 2]) -> Self {
        let [v] = words::<BIG, 2, 1>(r);
        v as u16
    }
}

impl Decode<4> for F32 {
    #[inline(always)]
    fn decode<const BIG: bool>(r: &[u8; 4]) -> Self {
        F32(f32::from_bits(if BIG { u32::from_be_bytes(*r) } else { u32::from_le_bytes(*r) }))
    }
}

/// Reads a section of `count` elements (the count checked against the bytes left first).
fn section<const N: usize, T: Decode<N>>(c: &mut Cursor, count: u64, what: &str) -> Result<Vec<T>> {
    let n = c.count(count, N, what)?;
    let block = c.take(n * N)?.as_chunks::<N>().0;
    Ok(match c.endian() {
        Endian::Big => block.iter().map(T::decode::<true>).collect(),
        Endian::Little => block.iter().map(T::decode::<false>).collect(),
    })
}

/// The two pad bytes that follow a V2 section of odd element count; fewer at the end of data.
fn pad(c: &mut Cursor, count: usize, last: bool) -> Result<Hex> {
    let n = match (count % 2, last) {
        (0, _) => 0,
        (_, true) => c.remaining().min(2),
        _ => 2,
    };
    Ok(Hex(c.take(n)?.to_vec()))
}

/// Parses one layout.
pub(crate) fn read(bytes: &[u8], version: SkbVersion) -> Result<Skb> {
    let mut c = Cursor::new(bytes, detect_endian(bytes)?);
    c.skip(4)?;
    read_layout(&mut c, version).within(|| format!("SKB {}", version.label()))
}

/// Reads the header and sections after the magic; the V2 sections of odd count padded.
fn read_layout(c: &mut Cursor, version: SkbVersion) -> Result<Skb> {
    let (flags, bone_count, scale, mut body, time_count) = match version {
        SkbVersion::V1 => {
            let h = HeaderV1::read(c).within(|| "header")?;
            let keys = section(c, h.key_count.into(), "key").within(|| "keys")?;
            let times: Vec<F32> = section(c, h.time_count.into(), "time").within(|| "times")?;
            (h.flags, h.bone_count, h.scale, Body::V1 { keys, times }, h.time_count)
        }
        SkbVersion::V2 => {
            let h = HeaderV2::read(c).within(|| "header")?;
            let keys = section(c, h.key_count.into(), "key").within(|| "keys")?;
            let times: Vec<u16> = section(c, h.time_count.into(), "time").within(|| "times")?;
            let pad_times = pad(c, times.len(), false).within(|| "times padding")?;
            let tran: Vec<[i16; 3]> = section(c, h.tran_count.into(), "translation").within(|| "translations")?;
            let pad_tran = pad(c, tran.len(), false).within(|| "translations padding")?;
            let body = Body::V2 { keys, times, tran, pad_times, pad_tran, pad_offsets: Hex::default() };
            (h.flags, h.bone_count, h.scale, body, h.time_count)
        }
    };
    let rows = u64::from(time_count.saturating_sub(1));
    let offsets: Vec<u16> = section(c, u64::from(bone_count) * rows, "offset").within(|| "offsets")?;
    if let Body::V2 { pad_offsets, .. } = &mut body {
        *pad_offsets = pad(c, offsets.len(), true)?;
    }
    let tail = Hex(c.rest().to_vec());
    Ok(Skb { endian: c.endian(), flags, bone_count, scale, body, offsets, tail })
}

/// Writes the animation back exactly as stored.
pub(crate) fn write(skb: &Skb) -> Vec<u8> {
    let all = |w: &mut Writer, items: &[_]| items.iter().for_each(|v: &u16| v.write(w));
    let mut w = Writer::with_capacity(skb.endian, skb.data_size() + skb.tail.0.len());
    w.u32(MAGIC);
    let (flags, bone_count, scale, time_count) = (skb.flags, skb.bone_count, skb.scale, skb.time_count() as u16);
    match &skb.body {
        Body::V1 { keys, times } => {
            HeaderV1 { flags, bone_count, time_count, key_count: keys.len() as u32, scale }.write(&mut w);
            keys.iter().for_each(|k| k.write(&mut w));
            times.iter().for_each(|t| t.write(&mut w));
            all(&mut w, &skb.offsets);
        }
        Body::V2 { keys, times, tran, pad_times, pad_tran, pad_offsets } => {
            let (key_count, tran_count) = (keys.len() as u16, tran.len() as u16);
            HeaderV2 { flags, bone_count, time_count, key_count, tran_count, scale }.write(&mut w);
            keys.iter().for_each(|k| k.write(&mut w));
            all(&mut w, times);
            w.bytes(&pad_times.0);
            tran.iter().for_each(|t| t.write(&mut w));
            w.bytes(&pad_tran.0);
            all(&mut w, &skb.offsets);
            w.bytes(&pad_offsets.0);
        }
    }
    w.bytes(&skb.tail.0);
    w.into_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `count` elements of `bytes` as a section and one by one as records.
    fn both_ways<const N: usize, T: Decode<N> + Record>(bytes: &[u8], endian: Endian, count: u64) -> (Vec<T>, Vec<T>) {
        let (a, b) = (&mut Cursor::new(bytes, endian), &mut Cursor::new(bytes, endian));
        (section(a, count, "element").unwrap(), (0..count).map(|_| T::read(b).unwrap()).collect())
    }

    /// The section decoder reads what the record declarations read, in both byte orders.
    #[test]
    fn sections_decode_as_the_records_read() {
        let bytes: Vec<u8> = (0..32u8).map(|b| b.wrapping_mul(37)).collect();
        for endian in [Endian::Big, Endian::Little] {
            let (v1, v2) = (both_ways::<16, KeyV1>(&bytes, endian, 2), both_ways::<10, KeyV2>(&bytes, endian, 3));
            assert_eq!((v1.0, v2.0), (v1.1, v2.1));
            let (t, f) = (both_ways::<6, [i16; 3]>(&bytes, endian, 5), both_ways::<4, F32>(&bytes, endian, 8));
            assert_eq!((t.0, f.0), (t.1, f.1));
            let o = both_ways::<2, u16>(&bytes, endian, 16);
            assert_eq!(o.0, o.1);
        }
    }
}
