//! Zstandard (`.zs`: `.pack.zs`, `.bfres.zs`), the compression of newer Switch games (RFC 8878).
//!
//! A file is a sequence of frames. A Zstandard frame starts with the little-endian magic
//! `0xFD2FB528`; a skippable frame with `0x184D2A50..=0x184D2A5F`, then a `u32` length and that
//! many bytes of user data, which decoders ignore. The decoded file is the concatenation of every
//! Zstandard frame's content.
//!
//! Decoding streams one block (at most 128 KiB) at a time and charges the input's [`Budget`]
//! before the decoded bytes are kept, so a small file that decodes to gigabytes (a `.zs` bomb)
//! stops at the "decoded" limit having allocated no more than it. A frame's window (the history
//! the decoder keeps, declared in its header) may not be larger than what remains of that limit.
//!
//! The decoder and encoder are `ruzstd`, written in Rust (nothing to compile but Rust). The
//! document keeps the original stream, so an unchanged file writes back byte for byte; a new
//! payload is compressed with `ruzstd`'s encoder (about level 1 of the reference one), as one
//! frame: the game reads any valid frame, not only its own encoder's.

use std::ops::RangeInclusive;

use bytes::Bytes;
use ruzstd::decoding::errors::FrameDecoderError;
use ruzstd::decoding::{BlockDecodingStrategy, Dictionary, FrameDecoder};
use ruzstd::encoding::CompressionLevel;
use serde::{Deserialize, Serialize};

use crate::budget::{Budget, Resource};
use crate::containers::{payload, zstd_dict};
use crate::error::{Error, ErrorKind, Result};
use crate::format::{
    Capabilities, Confidence, Document, Entry, Format, Limits, ReadOptions, Repaired, WriteOptions, Written,
};
use crate::lint::{Finding, Severity};
use crate::model::Package;
use crate::raw_json::Hex;
use crate::registry::Registry;

/// The magic of a Zstandard frame (little-endian).
pub const FRAME_MAGIC: u32 = 0xFD2F_B528;
/// The magics of skippable frames (little-endian).
pub(crate) const SKIPPABLE_MAGIC: RangeInclusive<u32> = 0x184D_2A50..=0x184D_2A5F;
/// The largest window a frame may declare whatever the budget (the decoder's own default).
pub(crate) const MAX_WINDOW: u64 = ruzstd::decoding::DEFAULT_MAX_WINDOW_SIZE;

/// The little-endian `u32` at `at`.
fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    data.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes)
}

/// A decoded stream and how it was laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The decoded file.
    pub payload: Vec<u8>,
    /// Input bytes the frames used (the rest is trailing data).
    pub consumed: usize,
    /// Zstandard frames decoded.
    pub frames: usize,
    /// Skippable frames passed over.
    pub skippable: usize,
}

/// Decodes a whole Zstandard file (without dictionaries) within a budget of its own made from
/// `limits`.
pub fn decode(data: &[u8], limits: &Limits) -> Result<Decoded> {
    decode_within(data, &Budget::for_input(data.len(), limits), &[])
}

/// Decodes every frame of a Zstandard file, charging `budget` for each block's output before
/// keeping it; `dicts` are the dictionaries frames may name (`zstd_dict`). Decoding stops at
/// the first bytes that are not a frame (trailing data).
pub(crate) fn decode_within(data: &[u8], budget: &Budget, dicts: &[Bytes]) -> Result<Decoded> {
    let mut d = Decoded { payload: Vec::new(), consumed: 0, frames: 0, skippable: 0 };
    while let Some(magic) = u32_at(data, d.consumed) {
        let at = d.consumed;
        if SKIPPABLE_MAGIC.contains(&magic) {
            let len = u32_at(data, at + 4).ok_or_else(|| Error::truncated(at + 4, 4, data.len() - at - 4))?;
            let end = (at + 8).saturating_add(len as usize);
            if end > data.len() {
                let e = Error::truncated(at + 8, len as usize, data.len() - at - 8);
                return Err(e.within(format!("Zstandard skippable frame at {at}")));
            }
            d.consumed = end;
            d.skippable += 1;
        } else if magic == FRAME_MAGIC {
            d.consumed = decode_frame(data, at, budget, dicts, &mut d.payload)?;
            d.frames += 1;
        } else {
            break;
        }
    }
    if d.frames == 0 {
        let message = "no Zstandard frame (magic 28 B5 2F FD) at the start of the file";
        return Err(Error::invalid(d.consumed, message));
    }
    Ok(d)
}

/// Decodes the frame at `at` onto `out`, one block at a time; returns where the frame ends.
fn decode_frame(data: &[u8], at: usize, budget: &Budget, dicts: &[Bytes], out: &mut Vec<u8>) -> Result<usize> {
    let mut source = data.get(at..).unwrap_or_default();
    let remaining = budget.limit(Resource::Decoded).saturating_sub(budget.used(Resource::Decoded));
    let mut decoder = FrameDecoder::new();
    decoder.set_max_window_size(remaining.min(MAX_WINDOW));
    let within = || format!("Zstandard frame at {at}");
    for (i, raw) in dicts.iter().enumerate() {
        let dict = Dictionary::decode_dict(raw)
            .map_err(|e| Error::new(ErrorKind::Invalid, None, format!("dictionary {i}: {e}")).within(within()))?;
        decoder.add_dict(dict).map_err(|e| frame_error(e, at, budget, dicts).within(within()))?;
    }
    decoder.init(&mut source).map_err(|e| frame_error(e, at, budget, dicts).within(within()))?;
    // A declared content size (0: none or empty) beyond the budget fails before decoding; one
    // within it is reserved at once. Each block is charged as it decodes all the same.
    let declared = decoder.content_size();
    if declared > remaining {
        budget.charge(Resource::Decoded, declared, Some(at as u64)).map_err(|e| e.within(within()))?;
    }
    out.reserve(usize::try_from(declared).unwrap_or(0));
    loop {
        let offset = data.len() - source.len();
        let finished = decoder
            .decode_blocks(&mut source, BlockDecodingStrategy::UptoBlocks(1))
            .map_err(|e| frame_error(e, offset, budget, dicts).within(within()))?;
        let ready = decoder.can_collect() as u64;
        budget.charge(Resource::Decoded, ready, Some(offset as u64)).map_err(|e| e.within(within()))?;
        budget.charge(Resource::Work, ready, Some(offset as u64)).map_err(|e| e.within(within()))?;
        decoder.collect_to_writer(&mut *out).map_err(|e| Error::invalid(offset, e.to_string()).within(within()))?;
        if finished {
            break;
        }
    }
    let end = data.len() - source.len();
    if let (Some(stored), Some(computed)) = (decoder.get_checksum_from_data(), decoder.get_calculated_checksum()) {
        if stored != computed {
            let message = format!("content checksum {stored:08x} does not match the decoded data's {computed:08x}");
            return Err(Error::invalid(end.saturating_sub(4), message).within(within()));
        }
    }
    Ok(end)
}

/// A decoder error as the library's: a window beyond the budget names the "decoded" limit, a
/// missing dictionary says where to find it.
fn frame_error(e: FrameDecoderError, offset: usize, budget: &Budget, dicts: &[Bytes]) -> Error {
    match e {
        FrameDecoderError::DictNotProvided { dict_id } => {
            Error::new(ErrorKind::Unsupported, Some(offset as u64), zstd_dict::missing(dict_id, dicts))
        }
        FrameDecoderError::WindowSizeTooBig { requested, max } if max < MAX_WINDOW => Error::new(
            ErrorKind::Limit,
            Some(offset as u64),
            format!(
                "the frame's {requested}-byte window would pass the \"decoded\" limit of {limit} ({max} bytes \
                 left); raise it with --limit decoded=SIZE if the file is trusted",
                limit = budget.limit(Resource::Decoded),
            ),
        ),
        e => Error::invalid(offset, e.to_string()),
    }
}

/// Compresses `payload` as one Zstandard frame.
pub fn encode(payload: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(payload, CompressionLevel::Fastest)
}

/// The Zstandard container format, reading the file it holds through a registry.
pub struct Zstd {
    registry: &'static Registry,
}

impl Zstd {
    /// Zstandard, reading its payload with the formats of `registry`.
    pub const fn new(registry: &'static Registry) -> Self {
        Zstd { registry }
    }

    /// The document of the file `bytes`, decoded within `options`' budget.
    fn decoded(&'static self, bytes: Bytes, options: &ReadOptions) -> Result<ZstdDocument> {
        let budget = options.budget(bytes.len());
        let d = decode_within(&bytes, &budget, &options.zstd_dictionaries)?;
        let (payload, options) = (Bytes::from(d.payload), options.nested(&budget));
        let (consumed, frames, skippable) = (d.consumed, d.frames, d.skippable);
        Ok(ZstdDocument { format: self, stream: bytes, consumed, frames, skippable, payload, options })
    }

    /// A new document holding `payload`, compressed with [`encode`].
    pub fn document(&'static self, payload: Vec<u8>, options: ReadOptions) -> ZstdDocument {
        let stream = Bytes::from(encode(&payload));
        let payload = Bytes::from(payload);
        ZstdDocument { format: self, consumed: stream.len(), stream, frames: 1, skippable: 0, payload, options }
    }
}

impl Format for Zstd {
    fn name(&self) -> &'static str {
        "zstd"
    }

    fn description(&self) -> &'static str {
        "Zstandard compression (.zs: .pack.zs, .bfres.zs); models and entries come from the decoded file"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["zs", "zst"]
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { read: true, to_model: true, from_model: false, dump: true, archive: true, skeleton: false }
    }

    fn probe(&self, bytes: &[u8]) -> Confidence {
        match u32_at(bytes, 0) {
            Some(FRAME_MAGIC) => Confidence::Certain,
            Some(m) if SKIPPABLE_MAGIC.contains(&m) => Confidence::Likely,
            _ => Confidence::No,
        }
    }

    fn read(&'static self, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
        Ok(Box::new(self.decoded(bytes, options)?))
    }

    fn from_model(&self, _package: &Package, _options: &WriteOptions) -> Result<Written> {
        Err(Error::unsupported("zstd is a container: write the inner format, then compress it"))
    }

    fn undump(&'static self, value: serde_json::Value) -> Result<Box<dyn Document>> {
        let d: ZstdDump = crate::raw_json::from_value(value, "Zstandard dump")?;
        let payload = payload::from_dump(self.registry, d.payload).map_err(|e| e.within("Zstandard dump"))?;
        // The kept stream is read within the budget any read gets: not within the payload's
        // length, which a frame's window may pass (a 3-byte payload in a frame declaring a
        // 1 KiB window is valid, and must pack back to the same bytes).
        match self.decoded(Bytes::from(d.stream.0), &ReadOptions::default()) {
            Ok(kept) if kept.payload == payload => Ok(Box::new(kept)),
            _ => Ok(Box::new(self.document(payload, ReadOptions::default()))),
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ZstdDump {
    /// The decoded file: an animkit dump of its own format when that packs back exactly (so it
    /// can be edited), else a hexadecimal string.
    payload: serde_json::Value,
    /// The whole file as stored. `pack` keeps it when it still decodes to the payload, and
    /// compresses the payload afresh otherwise.
    stream: Hex,
}

/// A Zstandard file: its stream as stored and the decoded payload.
pub struct ZstdDocument {
    format: &'static Zstd,
    /// The file as read (every frame, plus anything after them).
    pub stream: Bytes,
    /// Input bytes the frames used.
    pub consumed: usize,
    /// Zstandard frames decoded.
    pub frames: usize,
    /// Skippable frames passed over.
    pub skippable: usize,
    /// The decoded inner file.
    pub payload: Bytes,
    options: ReadOptions,
}

impl ZstdDocument {
    /// The inner document, read through the registry.
    pub fn inner(&self) -> Result<Box<dyn Document>> {
        self.format.registry.read(self.payload.clone(), None, &self.options).map_err(|e| e.within("Zstandard payload"))
    }

    /// The payload as one entry, named by the format it reads as (`payload.sarc`).
    fn payload_entry(&self) -> Entry {
        payload::entry(self.format.registry, &self.payload)
    }

    /// The inner document when it is an archive.
    fn inner_archive(&self) -> Option<Box<dyn Document>> {
        self.inner().ok().filter(|d| d.format().capabilities().archive)
    }
}

impl Document for ZstdDocument {
    fn format(&self) -> &'static dyn Format {
        self.format
    }

    fn version(&self) -> String {
        let skippable = match self.skippable {
            0 => String::new(),
            n => format!(", {n} skippable"),
        };
        format!("Zstandard ({} frame{}{skippable})", self.frames, if self.frames == 1 { "" } else { "s" })
    }

    fn write(&self) -> Result<Vec<u8>> {
        Ok(self.stream.to_vec())
    }

    fn to_model(&self) -> Result<Package> {
        self.inner()?.to_model()
    }

    fn to_model_with_warnings(&self) -> Result<(Package, Vec<String>)> {
        self.inner()?.to_model_with_warnings()
    }

    fn not_in_model(&self) -> Vec<String> {
        self.inner().map(|d| d.not_in_model()).unwrap_or_default()
    }

    fn dump(&self) -> Result<serde_json::Value> {
        let value = ZstdDump {
            payload: payload::to_dump(self.format.registry, &self.payload, &self.options),
            stream: Hex(self.stream.to_vec()),
        };
        crate::raw_json::to_value(&value)
    }

    fn lint(&self) -> Vec<Finding> {
        let mut f = Vec::new();
        if self.consumed < self.stream.len() {
            let message = format!("{} bytes after the last frame", self.stream.len() - self.consumed);
            f.push(Finding::new(Severity::Info, "zstd-trailing-bytes", message).at(self.consumed));
        }
        if self.skippable > 0 {
            let message = format!("{} skippable frame(s): a rewrite of the payload drops them", self.skippable);
            f.push(Finding::new(Severity::Info, "zstd-skippable-frames", message));
        }
        if let Ok(inner) = self.inner() {
            for mut x in inner.lint() {
                x.path = format!("Zstandard payload / {}", x.path);
                f.push(x);
            }
        }
        f
    }

    fn repair(&self) -> Result<Repaired> {
        let doc = self.format.document(self.payload.to_vec(), self.options.clone());
        Ok(Repaired { document: Box::new(doc), changes: vec!["compressed the payload afresh as one frame".into()] })
    }

    fn notes(&self) -> Vec<String> {
        let inner = self.format.registry.probe(&self.payload, None).map(|f| f.name()).unwrap_or("unknown");
        let members = match self.inner_archive().and_then(|d| d.entries().ok()) {
            Some(entries) => format!(" with {} members", entries.len()),
            None => String::new(),
        };
        let mut notes = vec![format!("{} bytes decoded, payload format {inner}{members}", self.payload.len())];
        notes.extend(self.not_in_model());
        notes
    }

    /// The members of the payload when it is an archive (a `.pack.zs` is a SARC), else the
    /// payload itself (`payload.bfres`).
    fn entries(&self) -> Result<Vec<Entry>> {
        match self.inner_archive() {
            Some(archive) => archive.entries(),
            None => Ok(vec![self.payload_entry()]),
        }
    }

    /// The payload (by its entry name) or a member of the payload archive, compressed afresh.
    fn with_entry(&self, name: &str, data: Bytes) -> Result<Box<dyn Document>> {
        let own = self.payload_entry().name;
        let payload = if name == own {
            self.format.registry.check_replacement(name, &self.payload, &data)?;
            data.to_vec()
        } else {
            let Some(archive) = self.inner_archive() else {
                let message = format!("no entry \"{name}\": the Zstandard file holds {own}, not an archive");
                return Err(Error::new(ErrorKind::Invalid, None, message));
            };
            let inner_name = name.strip_prefix(own.as_str()).and_then(|r| r.strip_prefix('/')).unwrap_or(name);
            archive.with_entry(inner_name, data).and_then(|d| d.write()).map_err(|e| e.within("Zstandard payload"))?
        };
        Ok(Box::new(self.format.document(payload, self.options.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_a_hand_made_frame() {
        // RFC 8878 §3.1.1: magic; descriptor 0x20 (single segment, 1-byte content size); content
        // size 5; one raw block (last, type 0, size 3: header 3 << 3 | 1) "abc"; one RLE block
        // (last, type 1, size 2: 2 << 3 | 0b011) of 'z'. The first block is not the last here.
        let mut s = FRAME_MAGIC.to_le_bytes().to_vec();
        s.extend_from_slice(&[0x20, 5, 3 << 3, 0, 0, b'a', b'b', b'c', (2 << 3) | 0b011, 0, 0, b'z']);
        let d = decode(&s, &Limits::default()).unwrap();
        assert_eq!(d.payload, b"abczz");
        assert_eq!((d.consumed, d.frames, d.skippable), (s.len(), 1, 0));
    }

    #[test]
    fn skippable_frames_are_passed_over_and_frames_concatenate() {
        let mut s = 0x184D_2A53u32.to_le_bytes().to_vec();
        s.extend_from_slice(&3u32.to_le_bytes());
        s.extend_from_slice(b"xyz");
        s.extend_from_slice(&encode(b"hello "));
        s.extend_from_slice(&encode(b"world"));
        s.extend_from_slice(b"tail");
        let d = decode(&s, &Limits::default()).unwrap();
        assert_eq!(d.payload, b"hello world");
        assert_eq!((d.consumed, d.frames, d.skippable), (s.len() - 4, 2, 1));
        assert_eq!(crate::ZSTD.probe(&s), Confidence::Likely);
        assert_eq!(crate::ZSTD.probe(&encode(b"")), Confidence::Certain);
    }

    #[test]
    fn rejects_bad_input() {
        assert!(decode(b"not zstd", &Limits::default()).unwrap_err().message.contains("no Zstandard frame"));
        let mut truncated = encode(&[1u8; 1000]);
        truncated.truncate(truncated.len() - 3);
        let e = decode(&truncated, &Limits::default()).unwrap_err();
        assert!(e.path.iter().any(|p| p.contains("Zstandard frame at 0")), "{e}");
        let mut skip = 0x184D_2A50u32.to_le_bytes().to_vec();
        skip.extend_from_slice(&100u32.to_le_bytes());
        assert_eq!(decode(&skip, &Limits::default()).unwrap_err().kind, ErrorKind::Truncated);
    }

    #[test]
    fn the_budget_stops_decoding_and_bounds_the_window() {
        let zeros = encode(&vec![0u8; 1 << 20]);
        let limits = Limits { decoded_bytes: Some(300 << 10), ..Limits::default() };
        let e = decode(&zeros, &limits).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Limit);
        assert!(e.message.contains("\"decoded\" limit of 307200"), "{e}");
        // Descriptor 0x00: a window descriptor byte follows; 0x58 is 2^(10 + 11) = 2 MiB.
        let mut wide = FRAME_MAGIC.to_le_bytes().to_vec();
        wide.extend_from_slice(&[0x00, 0x58, 1, 0, 0]);
        let limits = Limits { decoded_bytes: Some(1 << 20), ..Limits::default() };
        let e = decode(&wide, &limits).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Limit);
        assert!(e.message.contains("2097152-byte window") && e.message.contains("\"decoded\" limit"), "{e}");
    }

    #[test]
    fn a_stream_whose_window_passes_its_payload_packs_back_as_it_was() {
        // Descriptor 0x00: a window byte follows, 0x00 = 1 KiB; one raw block (last, size 3)
        // "abc"; then 4 trailing bytes. A 3-byte payload under a 1 KiB window, as a fuzzed
        // input had it: the dump kept the stream, and `pack` compressed the payload afresh.
        let mut s = FRAME_MAGIC.to_le_bytes().to_vec();
        s.extend_from_slice(&[0x00, 0x00, (3 << 3) | 1, 0, 0, b'a', b'b', b'c', 1, 2, 3, 4]);
        let doc = crate::ZSTD.read(Bytes::from(s.clone()), &ReadOptions::default()).unwrap();
        let packed = crate::ZSTD.undump(doc.dump().unwrap()).unwrap();
        assert_eq!(packed.write().unwrap(), s);
    }

    #[test]
    fn encode_roundtrips() {
        for data in [Vec::new(), b"a".to_vec(), vec![7u8; 300_000], b"the quick brown fox ".repeat(5000)] {
            assert_eq!(decode(&encode(&data), &Limits::default()).unwrap().payload, data);
        }
    }
}
