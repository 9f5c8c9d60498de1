//! Yaz0: Nintendo's LZ77 wrapper (`.szs`, `.sbfres`). Spec: `shared/formats/bfres.md` §12.
//!
//! Header: `Yaz0`, big-endian `u32` decoded size, `u32` alignment hint, `u32` reserved. Then
//! groups: a flag byte read MSB first; `1` copies a literal, `0` reads a back-reference
//! `b1 b2 [b3]` with `dist = ((b1 & 15) << 8 | b2) + 1` and length `(b1 >> 4) + 2`, or
//! `b3 + 0x12` when `b1 >> 4 == 0`. Decoding stops when the output is full, even mid-group.
//!
//! The document keeps the original compressed stream so an unchanged file writes back byte for
//! byte; [`encode`] (a greedy hash-chain matcher with one step of lazy evaluation) is used only
//! when the payload is new. Nintendo's own encoder is not reproducible (§12).

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::budget::{Budget, Resource};
use crate::containers::payload;
use crate::error::{Error, ErrorKind, Result};
use crate::format::{
    Capabilities, Confidence, Document, Entry, Format, Limits, ReadOptions, Repaired, WriteOptions, Written,
};
use crate::lint::{Finding, Severity};
use crate::model::Package;
use crate::raw_json::Hex;
use crate::registry::Registry;

/// The 16-byte header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The size of the decoded file.
    pub decoded_size: u32,
    /// The alignment hint for the decoded data (0 in most files).
    pub alignment: u32,
    /// The reserved word, kept as stored.
    pub reserved: u32,
}

/// Reads the header of a Yaz0 stream.
pub fn header(data: &[u8]) -> Result<Header> {
    let mut c = crate::bytes::Cursor::new(data, crate::bytes::Endian::Big);
    let magic = c.array::<4>()?;
    if &magic != b"Yaz0" {
        return Err(Error::invalid(0, "not a Yaz0 stream (magic is not \"Yaz0\")"));
    }
    Ok(Header { decoded_size: c.u32()?, alignment: c.u32()?, reserved: c.u32()? })
}

/// The most bytes a Yaz0 stream of `stream_len` bytes (after the header) can decode to. The
/// densest encoding is a group of eight three-byte back-references of the longest length,
/// 0x111: 25 input bytes for 2184 output bytes, a ratio of 87.36. A partial group of `r` bytes
/// holds its flag byte and `(r - 1) / 3` such references, then one literal when one byte is
/// left over or one two-byte reference of the longest short length (0x11) when two are.
pub fn max_decoded_len(stream_len: usize) -> u64 {
    const GROUP_IN: u64 = 1 + 8 * 3;
    const GROUP_OUT: u64 = 8 * 0x111;
    let n = stream_len as u64;
    let (groups, rest) = (n / GROUP_IN, n % GROUP_IN);
    let partial = match rest.checked_sub(1) {
        None => 0,
        Some(r) => {
            r / 3 * 0x111
                + match r % 3 {
                    0 => 0,
                    1 => 1,
                    _ => 0x11,
                }
        }
    };
    groups * GROUP_OUT + partial
}

/// Decodes a whole Yaz0 file (header included) within a budget of its own made from `limits`.
/// Returns the payload and the number of input bytes the stream consumed (header included).
pub fn decode(data: &[u8], limits: &Limits) -> Result<(Vec<u8>, usize)> {
    decode_within(data, &Budget::for_input(data.len(), limits))
}

/// Decodes a whole Yaz0 file (header included), charging `budget` for the declared size before
/// anything is allocated. A declared size the stream cannot encode ([`max_decoded_len`]) is an
/// error before decoding too.
pub(crate) fn decode_within(data: &[u8], budget: &Budget) -> Result<(Vec<u8>, usize)> {
    let h = header(data).map_err(|e| e.within("Yaz0 header"))?;
    let size = u64::from(h.decoded_size);
    let stream_len = data.len().saturating_sub(16);
    let max_possible = max_decoded_len(stream_len);
    if size > max_possible {
        let message = format!(
            "the header declares {size} decoded bytes, but a {stream_len}-byte stream can encode at most \
             {max_possible} (87.36 per byte)"
        );
        return Err(Error::new(ErrorKind::Invalid, Some(4), message).within("Yaz0 header"));
    }
    budget.charge(Resource::Decoded, size, Some(4)).map_err(|e| e.within("Yaz0 header"))?;
    budget.charge(Resource::Work, size, Some(4)).map_err(|e| e.within("Yaz0 header"))?;
    let size = h.decoded_size as usize;
    let mut out: Vec<u8> = Vec::with_capacity(size);
    let mut pos = 16usize;
    let next = |pos: &mut usize| -> Result<u8> {
        let b = data.get(*pos).copied().ok_or_else(|| Error::truncated(*pos, 1, 0).within("Yaz0 stream"))?;
        *pos += 1;
        Ok(b)
    };
    while out.len() < size {
        let group = next(&mut pos)?;
        for bit in (0..8).rev() {
            if out.len() >= size {
                break;
            }
            if group >> bit & 1 == 1 {
                out.push(next(&mut pos)?);
            } else {
                let at = pos;
                let b1 = next(&mut pos)?;
                let b2 = next(&mut pos)?;
                let dist = ((usize::from(b1 & 0x0F) << 8) | usize::from(b2)) + 1;
                let len = match b1 >> 4 {
                    0 => usize::from(next(&mut pos)?) + 0x12,
                    n => usize::from(n) + 2,
                };
                if dist > out.len() {
                    return Err(Error::invalid(
                        at,
                        format!(
                            "back-reference distance {dist} reaches before the start ({} bytes decoded)",
                            out.len()
                        ),
                    )
                    .within("Yaz0 stream"));
                }
                let len = len.min(size - out.len());
                copy_back(&mut out, dist, len);
            }
        }
    }
    Ok((out, pos))
}

/// Appends `len` bytes copied from `dist` bytes back (`1 <= dist <= out.len()`), the copy
/// overlapping what it appends when `dist < len`. Copies whole runs, each a multiple of `dist`
/// long until the last, so the repeated pattern stays in phase.
fn copy_back(out: &mut Vec<u8>, dist: usize, len: usize) {
    let start = out.len().saturating_sub(dist);
    let mut remaining = len;
    while remaining > 0 {
        let n = remaining.min(out.len() - start);
        out.extend_from_within(start..start + n);
        remaining -= n;
    }
}

/// The length of the common prefix of `a` and `b`, compared 8 bytes at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let (words_a, _) = a.as_chunks::<8>();
    let (words_b, _) = b.as_chunks::<8>();
    let mut l = 0;
    for (x, y) in words_a.iter().zip(words_b) {
        let diff = u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y);
        if diff != 0 {
            // The lowest differing byte in little-endian order is the first one.
            return l + (diff.trailing_zeros() / 8) as usize;
        }
        l += 8;
    }
    l + a.iter().skip(l).zip(b.iter().skip(l)).take_while(|(x, y)| x == y).count()
}

/// The farthest back a match may start.
const WINDOW: usize = 0x1000;
/// The longest match (the three-byte form's `0x12 + 0xFF`).
const MAX_LEN: usize = 0x111;
/// How many earlier positions with the same hash a search tries.
const CHAIN: usize = 64;
/// Bits of the hash of a 3-byte prefix.
const HBITS: u32 = 15;

/// Hash chains over the 3-byte prefixes of a payload: `head[h]` is the last position with hash
/// `h`, `prev[i]` the position before `i` with the same hash (`usize::MAX`: none). Positions
/// below `prev.len()` are in the chains.
struct Chains<'a> {
    payload: &'a [u8],
    head: Vec<usize>,
    prev: Vec<usize>,
}

impl<'a> Chains<'a> {
    fn new(payload: &'a [u8]) -> Self {
        Chains { payload, head: vec![usize::MAX; 1 << HBITS], prev: Vec::with_capacity(payload.len()) }
    }

    /// The hash of the 3 bytes at `i`; `None` when fewer than 3 remain.
    fn hash(&self, i: usize) -> Option<usize> {
        let &[a, b, c] = self.payload.get(i..i + 3)? else { return None };
        let v = (u32::from(a) << 16) | (u32::from(b) << 8) | u32::from(c);
        Some((v.wrapping_mul(2_654_435_761) >> (32 - HBITS)) as usize)
    }

    /// Puts every position below `to` in the chains.
    fn insert_upto(&mut self, to: usize) {
        while self.prev.len() < to {
            let i = self.prev.len();
            let slot = self.hash(i).and_then(|h| self.head.get_mut(h));
            let before = slot.map_or(usize::MAX, |slot| std::mem::replace(slot, i));
            self.prev.push(before);
        }
    }

    /// The longest earlier match of the bytes at `i` within the window: `(length, distance)`.
    fn find(&self, i: usize) -> (usize, usize) {
        let Some(mut cand) = self.hash(i).and_then(|h| self.head.get(h).copied()) else { return (0, 0) };
        let max = MAX_LEN.min(self.payload.len() - i);
        let here = self.payload.get(i..i + max).unwrap_or_default();
        let (mut best_len, mut best_dist) = (0, 0);
        let mut steps = 0;
        while cand != usize::MAX && i - cand <= WINDOW && steps < CHAIN {
            // `cand < i`, so `there` is at least as long as `here`.
            let there = self.payload.get(cand..).unwrap_or_default();
            let l = common_prefix(here, there);
            if l > best_len {
                best_len = l;
                best_dist = i - cand;
                if l == max {
                    break;
                }
            }
            cand = self.prev.get(cand).copied().unwrap_or(usize::MAX);
            steps += 1;
        }
        (best_len, best_dist)
    }

    /// Whether to code the match of `len` bytes at `i` (else a literal): it is at least 3 bytes
    /// long, and the next position has no match longer by more than a byte (a lazy step).
    fn take_match(&mut self, i: usize, len: usize) -> bool {
        if len < 3 {
            return false;
        }
        if len < MAX_LEN && i + 1 < self.payload.len() {
            self.insert_upto(i + 1);
            let (next_len, _) = self.find(i + 1);
            return next_len <= len + 1;
        }
        true
    }
}

/// Appends the back-reference of `len` bytes `dist` back: two bytes (`len` 3..=0x11) or three.
fn push_match(out: &mut Vec<u8>, len: usize, dist: usize) {
    let d = dist - 1;
    if len >= 0x12 {
        out.push((d >> 8) as u8);
        out.push(d as u8);
        out.push((len - 0x12) as u8);
    } else {
        out.push((((len - 2) << 4) | (d >> 8)) as u8);
        out.push(d as u8);
    }
}

/// Encodes `payload` as a Yaz0 file with the given alignment hint.
pub fn encode(payload: &[u8], alignment: u32) -> Vec<u8> {
    let n = payload.len();
    let mut out = Vec::with_capacity(16 + n + n / 8 + 8);
    out.extend_from_slice(b"Yaz0");
    out.extend_from_slice(&(n as u32).to_be_bytes());
    out.extend_from_slice(&alignment.to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    let mut chains = Chains::new(payload);
    let mut i = 0;
    while i < n {
        // A group: one byte whose bits (high first) say literal (1) or match (0) for up to 8 items.
        let group_at = out.len();
        out.push(0);
        let mut group = 0u8;
        for bit in (0..8).rev() {
            let Some(&literal) = payload.get(i) else { break };
            chains.insert_upto(i);
            let (len, dist) = chains.find(i);
            if chains.take_match(i, len) {
                push_match(&mut out, len, dist);
                i += len;
            } else {
                group |= 1 << bit;
                out.push(literal);
                i += 1;
            }
        }
        if let Some(slot) = out.get_mut(group_at) {
            *slot = group;
        }
    }
    out
}

/// The Yaz0 container format, reading the file it holds through a registry.
pub struct Yaz0 {
    registry: &'static Registry,
}

impl Yaz0 {
    /// Yaz0, reading its payload with the formats of `registry`.
    pub const fn new(registry: &'static Registry) -> Self {
        Yaz0 { registry }
    }

    /// A new document holding `payload`, compressed with [`encode`].
    pub fn document(&'static self, payload: Vec<u8>, alignment: u32) -> Yaz0Document {
        let stream = encode(&payload, alignment);
        let consumed = stream.len();
        Yaz0Document {
            format: self,
            header: Header { decoded_size: payload.len() as u32, alignment, reserved: 0 },
            stream: Bytes::from(stream),
            consumed,
            payload: Bytes::from(payload),
            options: ReadOptions::default(),
        }
    }
}

impl Format for Yaz0 {
    fn name(&self) -> &'static str {
        "yaz0"
    }

    fn description(&self) -> &'static str {
        "Nintendo Yaz0 compression (.szs, .sbfres); models and entries come from the decoded file"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["szs", "sbfres"]
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { read: true, to_model: true, from_model: false, dump: true, archive: true, skeleton: false }
    }

    fn probe(&self, bytes: &[u8]) -> Confidence {
        match bytes.get(..4) {
            Some(b"Yaz0") if bytes.len() >= 16 => Confidence::Certain,
            Some(b"Yaz0") => Confidence::Likely,
            _ => Confidence::No,
        }
    }

    fn read(&'static self, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
        let header = header(&bytes).map_err(|e| e.within("Yaz0 header"))?;
        let budget = options.budget(bytes.len());
        let (payload, consumed) = decode_within(&bytes, &budget)?;
        Ok(Box::new(Yaz0Document {
            format: self,
            header,
            stream: bytes,
            consumed,
            payload: Bytes::from(payload),
            options: options.nested(&budget),
        }))
    }

    fn from_model(&self, _package: &Package, _options: &WriteOptions) -> Result<Written> {
        Err(Error::unsupported("yaz0 is a container: write the inner format, then compress it"))
    }

    fn undump(&'static self, value: serde_json::Value) -> Result<Box<dyn Document>> {
        let d: Yaz0Dump = crate::raw_json::from_value(value, "Yaz0 dump")?;
        self.document_of_dump(d)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Yaz0Dump {
    header: Header,
    /// The decoded file: an animkit dump of its own format when that packs back exactly (so it
    /// can be edited), else a hexadecimal string.
    payload: serde_json::Value,
    /// The whole file as stored (header included). `pack` keeps it when it still decodes to the
    /// payload, and re-encodes the payload otherwise.
    stream: Hex,
}

/// A Yaz0 file: its stream as stored and the decoded payload.
pub struct Yaz0Document {
    format: &'static Yaz0,
    /// The 16-byte header.
    pub header: Header,
    /// The file as read (header and compressed stream, plus anything after the stream).
    pub stream: Bytes,
    /// Input bytes the stream used (header included).
    pub consumed: usize,
    /// The decoded inner file.
    pub payload: Bytes,
    options: ReadOptions,
}

impl Yaz0 {
    fn document_of_dump(&'static self, d: Yaz0Dump) -> Result<Box<dyn Document>> {
        let payload = payload::from_dump(self.registry, d.payload).map_err(|e| e.within("Yaz0 dump"))?;
        let limits = Limits { decoded_bytes: Some(payload.len() as u64), ..Limits::default() };
        let stored =
            header(&d.stream.0).ok().filter(|h| *h == d.header).and_then(|_| decode(&d.stream.0, &limits).ok());
        if stored.is_some_and(|(p, _)| p == payload) {
            return self.read(Bytes::from(d.stream.0), &ReadOptions::default());
        }
        Ok(Box::new(self.document(payload, d.header.alignment)))
    }
}

impl Yaz0Document {
    /// The inner document, read through the registry.
    pub fn inner(&self) -> Result<Box<dyn Document>> {
        self.format.registry.read(self.payload.clone(), None, &self.options).map_err(|e| e.within("Yaz0 payload"))
    }
}

impl Document for Yaz0Document {
    fn format(&self) -> &'static dyn Format {
        self.format
    }

    fn version(&self) -> String {
        format!("Yaz0 (alignment {})", self.header.alignment)
    }

    fn write(&self) -> Result<Vec<u8>> {
        Ok(self.stream.to_vec())
    }

    fn to_model(&self) -> Result<Package> {
        self.inner()?.to_model()
    }

    fn not_in_model(&self) -> Vec<String> {
        self.inner().map(|d| d.not_in_model()).unwrap_or_default()
    }

    fn dump(&self) -> Result<serde_json::Value> {
        let payload = payload::to_dump(self.format.registry, &self.payload, &self.options);
        serde_json::to_value(Yaz0Dump { header: self.header, payload, stream: Hex(self.stream.to_vec()) })
            .map_err(|e| Error::new(ErrorKind::Invalid, None, e.to_string()))
    }

    fn lint(&self) -> Vec<Finding> {
        let mut f = Vec::new();
        if self.consumed < self.stream.len() {
            f.push(
                Finding::new(
                    Severity::Info,
                    "yaz0-trailing-bytes",
                    format!("{} bytes after the end of the compressed stream", self.stream.len() - self.consumed),
                )
                .at(self.consumed),
            );
        }
        if self.header.reserved != 0 {
            f.push(Finding::new(Severity::Info, "yaz0-reserved", "reserved header word is not 0").at(12));
        }
        if let Ok(inner) = self.inner() {
            for mut x in inner.lint() {
                x.path = format!("Yaz0 payload / {}", x.path);
                f.push(x);
            }
        }
        f
    }

    fn repair(&self) -> Result<Repaired> {
        let doc = self.format.document(self.payload.to_vec(), self.header.alignment);
        Ok(Repaired { document: Box::new(doc), changes: vec!["re-encoded the compressed stream".into()] })
    }

    /// The payload's size and format, then the payload's own notes (`payload: …`).
    fn notes(&self) -> Vec<String> {
        let inner = self.format.registry.probe(&self.payload, None).map(|f| f.name()).unwrap_or("unknown");
        let mut notes = vec![format!("{} bytes decoded, payload format {inner}", self.payload.len())];
        if let Ok(doc) = self.inner() {
            notes.extend(doc.notes().into_iter().map(|n| format!("payload: {n}")));
        }
        notes
    }

    /// The payload (by its entry name), or, by any other name, an entry of the payload when it
    /// is an archive (`.szs`: Yaz0 around SARC). The new payload is compressed afresh (§12: the
    /// original encoder is not reproducible); the header's alignment is kept.
    fn with_entry(&self, name: &str, data: Bytes) -> Result<Box<dyn Document>> {
        let own = self.entries()?.into_iter().next().map(|e| e.name).unwrap_or_default();
        let payload = if name == own {
            self.format.registry.check_replacement(name, &self.payload, &data)?;
            data.to_vec()
        } else {
            let inner = self.inner()?;
            if !inner.format().capabilities().archive {
                let message = format!("no entry \"{name}\": the Yaz0 file holds {own}, not an archive");
                return Err(Error::new(ErrorKind::Invalid, None, message));
            }
            let inner_name = name.strip_prefix(own.as_str()).and_then(|r| r.strip_prefix('/')).unwrap_or(name);
            inner.with_entry(inner_name, data).and_then(|doc| doc.write()).map_err(|e| e.within("Yaz0 payload"))?
        };
        let mut doc = self.format.document(payload, self.header.alignment);
        doc.options = self.options.clone();
        Ok(Box::new(doc))
    }

    fn entries(&self) -> Result<Vec<Entry>> {
        Ok(vec![payload::entry(self.format.registry, &self.payload)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(data: &[u8]) {
        let enc = encode(data, 0);
        let (dec, used) = decode(&enc, &Limits::default()).unwrap();
        assert_eq!(dec, data);
        assert_eq!(used, enc.len());
    }

    #[test]
    fn decodes_a_hand_made_stream() {
        // "abcabcabcX": literals a b c, then a 6-byte copy at distance 3 (b1 = (6-2)<<4 | 0, b2 = 2),
        // then literal X. Group bits: 1 1 1 0 1 → 0b1110_1000.
        let mut s = b"Yaz0\0\0\0\x0a\0\0\0\0\0\0\0\0".to_vec();
        s.extend_from_slice(&[0xE8, b'a', b'b', b'c', 0x40, 0x02, b'X']);
        assert_eq!(decode(&s, &Limits::default()).unwrap().0, b"abcabcabcX");
        // Three-byte form: length 0x12 + 2 = 20 of one repeated byte at distance 1.
        let mut s = b"Yaz0\0\0\0\x15\0\0\0\0\0\0\0\0".to_vec();
        s.extend_from_slice(&[0x80, b'z', 0x00, 0x00, 0x02]);
        assert_eq!(decode(&s, &Limits::default()).unwrap().0, vec![b'z'; 21]);
    }

    #[test]
    fn rejects_bad_input() {
        // Back-reference before the start.
        let mut s = b"Yaz0\0\0\0\x04\0\0\0\0\0\0\0\0".to_vec();
        s.extend_from_slice(&[0x00, 0x20, 0x05]);
        assert!(decode(&s, &Limits::default()).is_err());
        // Size over the limit, checked before allocation.
        let s = b"Yaz0\xff\xff\xff\xff\0\0\0\0\0\0\0\0\x00".to_vec();
        let limits = Limits { decoded_bytes: Some(1000), ..Limits::default() };
        let mut within_reach = s.clone();
        within_reach[4..8].copy_from_slice(&5000u32.to_be_bytes());
        within_reach.resize(16 + 100, 0);
        let e = decode(&within_reach, &limits).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Limit);
        assert!(e.message.contains("\"decoded\" limit of 1000"), "{e}");
        // Size the input cannot produce.
        let e = decode(&s, &Limits::default()).unwrap_err();
        assert!(e.message.contains("can encode at most 0"), "{e}");
        // Truncated stream.
        let s = b"Yaz0\0\0\0\x04\0\0\0\0\0\0\0\0\xff\x01".to_vec();
        assert!(decode(&s, &Limits::default()).is_err());
    }

    #[test]
    fn the_densest_stream_reaches_the_bound() {
        // One literal, then only longest back-references (0x111 bytes at distance 1): the
        // stream every other encoding of the same length decodes to no more than.
        for groups in 0..4 {
            for extra_refs in 0..=8usize {
                let mut s = b"Yaz0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
                s.extend_from_slice(&[0x80, 0, 0x00, 0x00, 0xFF, 0x00, 0x00, 0xFF, 0x00, 0x00, 0xFF]);
                s.extend_from_slice(&[0x00, 0x00, 0xFF, 0x00, 0x00, 0xFF, 0x00, 0x00, 0xFF, 0x00, 0x00, 0xFF]);
                for g in 0..groups + 1 {
                    let refs = if g == groups { extra_refs } else { 8 };
                    s.push(0);
                    for _ in 0..refs {
                        s.extend_from_slice(&[0x00, 0x00, 0xFF]);
                    }
                }
                let stream_len = s.len() - 16;
                let expected = 1 + 7 * 0x111 + (8 * groups + extra_refs) * 0x111;
                let bound = max_decoded_len(stream_len);
                s[4..8].copy_from_slice(&(expected as u32).to_be_bytes());
                assert_eq!(decode(&s, &Limits::default()).unwrap().0, vec![0; expected]);
                // Tight: the first group's literal is the one-byte leftover the bound allows, and
                // only an empty last group (a flag byte the bound lets hold a short copy) is slack.
                let slack = if extra_refs == 0 { 0x11 - 1 } else { 0 };
                assert_eq!(bound, expected as u64 + slack, "{groups} groups, {extra_refs} refs");
                s[4..8].copy_from_slice(&(bound as u32 + 1).to_be_bytes());
                assert!(decode(&s, &Limits::default()).unwrap_err().message.contains("can encode at most"));
            }
        }
        assert_eq!(max_decoded_len(25), 2184);
        assert_eq!(max_decoded_len(25 * 1000) as f64 / 25_000.0, 87.36);
    }

    #[test]
    fn common_prefix_counts_matching_bytes() {
        let a: Vec<u8> = (0..40).collect();
        for cut in 0..40 {
            let mut b = a.clone();
            b[cut] ^= 0xff;
            assert_eq!(common_prefix(&a, &b), cut);
            assert_eq!(common_prefix(&a[..cut], &b), cut);
        }
        assert_eq!(common_prefix(&a, &a), 40);
        assert_eq!(common_prefix(&a[..13], &a), 13);
    }

    #[test]
    fn encode_roundtrips_generated_data() {
        roundtrip(b"");
        roundtrip(b"a");
        roundtrip(&[7u8; 5000]);
        let mut x = 0x2545_F491u32;
        let mut noisy = Vec::new();
        let mut structured = Vec::new();
        for i in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            noisy.push(x as u8);
            structured.push(if x.is_multiple_of(7) { x as u8 } else { (i % 251) as u8 ^ (i / 4096) as u8 });
        }
        roundtrip(&noisy);
        roundtrip(&structured);
        let text = b"the quick brown fox jumps over the lazy dog; ".repeat(300);
        roundtrip(&text);
        assert!(encode(&text, 0).len() < text.len() / 5);
    }
}
