//! The chunk-file container: CryTek 0x744/0x745, `CrCh` 0x746 and Star Citizen `#ivo` 0x900
//! (`cryengine.md` §1, §9.1).
//!
//! The raw layer keeps the header fields, every table entry as stored (type, version, id, offset,
//! size), each chunk's bytes (including the 16-byte embedded header of 0x744/0x745 chunks) and
//! every byte that no structure covers (alignment padding after a chunk whose size leaves it out,
//! unreferenced data, trailing bytes) as [`Gap`]s at their offsets. Writing places all of them at
//! their offsets again, so a file that was read writes back byte for byte.
//!
//! Chunk extents: 0x745 and 0x746 entries carry a size. 0x744 and `#ivo` entries do not: a chunk
//! ends at the next greater chunk offset; the last one at the table when the table follows the
//! data (0x744), otherwise at the end of the file.

use std::borrow::Cow;

use bytes::Bytes;
use serde::{Deserialize, Serialize};

pub use super::raw::kind;
use super::raw::{hex_u32, Body, EmbeddedHeader};
use crate::bytes::{round_up, Cursor, Endian, Writer};
use crate::error::{Context, Error, ErrorKind, Result};
use crate::raw_json::Hex;
use crate::record::Record;

/// The container flavour, from the file's magic and version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Container {
    /// `CryTek\0\0`, version 0x744: 16-byte entries without a size.
    CryTek744,
    /// `CryTek\0\0`, version 0x745: 20-byte entries with a size.
    CryTek745,
    /// `CrCh`, version 0x746: 16-byte entries, new chunk numbering, no embedded headers.
    CrCh,
    /// `#ivo`, version 0x900: 16-byte entries `type, version, u64 offset`.
    Ivo,
}

impl Container {
    /// The magic, the header's version and the name `info` shows.
    fn identity(self) -> (&'static [u8], u32, &'static str) {
        match self {
            Container::CryTek744 => (b"CryTek\0\0", 0x744, "CryTek 0x744"),
            Container::CryTek745 => (b"CryTek\0\0", 0x745, "CryTek 0x745"),
            Container::CrCh => (b"CrCh", 0x746, "CrCh 0x746"),
            Container::Ivo => (b"#ivo", 0x900, "#ivo 0x900"),
        }
    }

    /// The file header's length: the magic and three `u32` (20 bytes for CryTek, 16 otherwise).
    pub fn header_len(self) -> usize {
        self.identity().0.len() + 12
    }

    /// The length of a chunk table entry: 20 bytes in 0x745 files, 16 otherwise.
    pub fn entry_len(self) -> usize {
        match self {
            Container::CryTek745 => 20,
            _ => 16,
        }
    }

    fn has_size(self) -> bool {
        matches!(self, Container::CryTek745 | Container::CrCh)
    }

    /// Whether the file is CryTek 0x744/0x745: chunks may start with a 16-byte copy of their
    /// entry, and the chunk count starts the table rather than being in the header.
    pub fn embedded_headers(self) -> bool {
        matches!(self, Container::CryTek744 | Container::CryTek745)
    }

    /// The container's name and version, as `info` shows it.
    pub fn name(self) -> &'static str {
        self.identity().2
    }
}

/// One table entry and the chunk it points at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chunk {
    /// The type as stored: old numbering (0xCCCC000D) in CryTek files, new (0x100D) in `CrCh`,
    /// a 32-bit hash in `#ivo`.
    #[serde(rename = "type", with = "hex_u32")]
    pub chunk_type: u32,
    /// The version as stored, with its big-endian flag bit.
    #[serde(with = "hex_u32")]
    pub version: u32,
    /// The chunk id (0 in `#ivo`, which has none).
    #[serde(default)]
    pub id: u32,
    /// The stored offset.
    pub offset: u64,
    /// The stored size (0x745, 0x746); `None` where the entry has no size field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u32>,
    /// The embedded copy of the entry (0x744/0x745, §1.3), when the chunk starts with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<EmbeddedHeader>,
    /// The payload (`size` bytes in all, or up to the next chunk for sizeless containers).
    pub body: Body,
}

/// Bytes at `offset` that no header, table or chunk covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gap {
    /// The file offset of the first byte.
    pub offset: u64,
    /// The bytes as stored.
    #[serde(with = "crate::raw_json::hex_bytes")]
    pub data: Bytes,
}

/// A whole chunk file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkFile {
    /// The container flavour.
    pub container: Container,
    /// The magic as stored (8 bytes for CryTek, 4 otherwise).
    pub magic: Hex,
    /// CryTek `fileType` (0xFFFF0000 geometry, 0xFFFF0001 animation); 0 for other containers.
    #[serde(default)]
    pub file_type: u32,
    /// The header's version field.
    pub version: u32,
    /// The file offset of the chunk table.
    pub table_offset: u32,
    /// Chunks in table order.
    pub chunks: Vec<Chunk>,
    /// Uncovered bytes in offset order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<Gap>,
}

/// The old CryTek type prefixes and their new (0x746) numbering (`ConvertChunkTypeTo0x746`).
const NUMBERING: [(u32, u32); 3] = [(0xCCCC_0000, 0x1000), (0xACDC_0000, 0x2000), (0xAAFC_0000, 0x3000)];

/// `ConvertChunkTypeTo0x746`: old CryTek numbering to the new one (other values unchanged).
pub fn to_new_type(t: u32) -> u32 {
    NUMBERING.iter().find(|n| t & 0xFFFF_F000 == n.0).map_or(t, |n| n.1 | (t & 0xFFF))
}

/// The inverse of [`to_new_type`].
pub fn to_old_type(t: u32) -> u32 {
    NUMBERING.iter().find(|n| t & 0xFFFF_F000 == n.1).map_or(t, |n| n.0 | (t & 0xFFF))
}

impl Chunk {
    /// The type in new numbering (CryTek types converted; `#ivo` hashes unchanged).
    pub fn kind(&self, container: Container) -> u32 {
        match container {
            Container::Ivo => self.chunk_type,
            _ => to_new_type(self.chunk_type),
        }
    }

    /// The version without the big-endian flag, and whether the flag is set.
    pub fn version_and_endian(&self, container: Container) -> (u32, Endian) {
        let flag = match container {
            Container::CryTek744 | Container::CryTek745 => 0x8000_0000,
            Container::CrCh => 0x8000,
            Container::Ivo => 0,
        };
        let endian = if self.version & flag != 0 { Endian::Big } else { Endian::Little };
        let masked = match container {
            Container::Ivo => self.version & 0xFFFF,
            _ => self.version & !flag,
        };
        (masked, endian)
    }

    /// The chunk's name in messages, as table entry `i`: its index, type and id.
    pub(crate) fn label(&self, i: usize) -> String {
        format!("chunk {i} (type 0x{:X}, id {})", self.chunk_type, self.id)
    }

    /// The payload's bytes (an embedded header left out).
    pub fn payload(&self, container: Container) -> Result<Bytes> {
        self.body.to_bytes(self.version_and_endian(container).1)
    }

    /// The absolute file offset of the payload's first byte.
    pub fn payload_offset(&self) -> usize {
        self.offset as usize + if self.header.is_some() { 16 } else { 0 }
    }

    /// The chunk's declared structure: its body, or the structure read from the start of a
    /// payload kept as bytes (trailing bytes ignored, as the engine does); bytes when the type
    /// and version have none.
    pub fn structure(&self, container: Container) -> Result<Cow<'_, Body>> {
        let Body::Bytes { hex } = &self.body else { return Ok(Cow::Borrowed(&self.body)) };
        let (version, endian) = self.version_and_endian(container);
        let mut c = Cursor::with_base(hex, self.payload_offset(), endian);
        Ok(match Body::decode(self.kind(container), version, &mut c)? {
            Some(body) => Cow::Owned(body),
            None => Cow::Borrowed(&self.body),
        })
    }

    /// The chunk's bytes: embedded header and payload.
    pub fn bytes(&self, container: Container) -> Result<Bytes> {
        let payload = self.payload(container)?;
        let Some(h) = &self.header else { return Ok(payload) };
        let mut w = Writer::with_capacity(Endian::Little, 16 + payload.len());
        h.write(&mut w);
        w.bytes(&payload);
        Ok(Bytes::from(w.into_vec()))
    }
}

/// The little-endian `u32` at `at` in `b`, if all four bytes are there.
pub(super) fn le_u32_at(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..)?.first_chunk().copied().map(u32::from_le_bytes)
}

/// The container the magic names (with a known version for CryTek), without parsing further.
pub fn sniff(bytes: &[u8]) -> Option<Container> {
    if bytes.get(..6) == Some(b"CryTek") {
        let version = le_u32_at(bytes, 12);
        return match version {
            Some(0x744) => Some(Container::CryTek744),
            Some(0x745) => Some(Container::CryTek745),
            _ => None,
        };
    }
    match bytes.get(..4) {
        Some(b"CrCh") => Some(Container::CrCh),
        Some(b"#ivo") => Some(Container::Ivo),
        _ => None,
    }
}

/// Parses a chunk file. With `lenient` (a damaged file), a chunk that runs past the end of the
/// file keeps the bytes that are there (the table still states its size, so the file writes
/// back as it was read).
pub fn read(data: &Bytes, lenient: bool) -> Result<ChunkFile> {
    read_inner(data, lenient).within(|| "chunk file")
}

/// A chunk table entry's fields.
#[derive(Clone, Copy)]
enum Field {
    Type,
    Version,
    /// `CrCh` stores type and version as `u16`.
    Type16,
    Version16,
    Id,
    Offset,
    Offset64,
    Size,
}

impl Container {
    /// The fields of a table entry in order: 0x744 `type, version, offset, id` (the layout of
    /// [`EmbeddedHeader`]), 0x745 the same and `size`, `CrCh` `u16 type, u16 version, id, size,
    /// offset`, `#ivo` `type, version, u64 offset` (no id, no size).
    fn entry_fields(self) -> &'static [Field] {
        use Field::*;
        match self {
            Container::CryTek744 => &[Type, Version, Offset, Id],
            Container::CryTek745 => &[Type, Version, Offset, Id, Size],
            Container::CrCh => &[Type16, Version16, Id, Size, Offset],
            Container::Ivo => &[Type, Version, Offset64],
        }
    }
}

/// The file header: magic, CryTek file type (0 otherwise), version, the chunk count where the
/// header holds it, and the table offset. CryTek (20 bytes): `magic[8], fileType, version,
/// tableOffset`, the count starting the table; `CrCh` and `#ivo` (16 bytes): `magic[4],
/// version, count, tableOffset`.
type Header = (Vec<u8>, u32, u32, Option<u32>, u32);

fn header(c: &mut Cursor, container: Container) -> Result<Header> {
    let crytek = container.embedded_headers();
    let (known_magic, known, name) = container.identity();
    let magic = c.take(known_magic.len())?.to_vec();
    let [first, second, table_offset] = [c.u32()?, c.u32()?, c.u32()?];
    let (file_type, version, count) = if crytek { (first, second, None) } else { (0, first, Some(second)) };
    // CryTek versions are told apart by `sniff`: only `CrCh` and `#ivo` can differ here.
    if version != known {
        let name = name.split(' ').next().unwrap_or(name);
        let message = format!("{name} chunk file version 0x{version:X} (0x{known:X} is known)");
        return Err(Error::new(ErrorKind::Unsupported, Some(4), message));
    }
    Ok((magic, file_type, version, count, table_offset))
}

impl Chunk {
    /// The chunk of the table entry at `c` in `container`'s layout, its bytes not yet read.
    fn read_entry(c: &mut Cursor, container: Container) -> Result<Chunk> {
        let body = Body::Bytes { hex: Bytes::new() };
        let mut e = Chunk { chunk_type: 0, version: 0, id: 0, offset: 0, size: None, header: None, body };
        for field in container.entry_fields() {
            match field {
                Field::Type => e.chunk_type = c.u32()?,
                Field::Version => e.version = c.u32()?,
                Field::Type16 => e.chunk_type = c.u16()?.into(),
                Field::Version16 => e.version = c.u16()?.into(),
                Field::Id => e.id = c.u32()?,
                Field::Offset => e.offset = c.u32()?.into(),
                Field::Offset64 => e.offset = c.u64()?,
                Field::Size => e.size = Some(c.u32()?),
            }
        }
        Ok(e)
    }

    /// Appends the chunk's table entry in `container`'s layout.
    fn write_entry(&self, w: &mut Writer, container: Container) {
        for field in container.entry_fields() {
            match field {
                Field::Type => w.u32(self.chunk_type),
                Field::Version => w.u32(self.version),
                Field::Type16 => w.u16(self.chunk_type as u16),
                Field::Version16 => w.u16(self.version as u16),
                Field::Id => w.u32(self.id),
                Field::Offset => w.u32(self.offset as u32),
                Field::Offset64 => w.u64(self.offset),
                Field::Size => w.u32(self.size.unwrap_or(0)),
            }
        }
    }

    /// The chunk with its bytes `data`: the embedded header split off when its type, version
    /// and id match the entry's (the robust rule of §1.3), the payload as bytes.
    fn with_bytes(mut self, container: Container, data: Bytes) -> Chunk {
        self.header = data.get(..16).filter(|_| container.embedded_headers()).and_then(|h| {
            let h = EmbeddedHeader::read(&mut Cursor::new(h, Endian::Little)).ok()?;
            (h.chunk_type == self.chunk_type && h.version == self.version && h.id == self.id).then_some(h)
        });
        let hex = if self.header.is_some() { data.slice(16..) } else { data };
        self.body = Body::Bytes { hex };
        self
    }
}

/// Where each chunk's bytes start and end. Sizeless chunks (0x744, `#ivo`) end at the next
/// greater offset, the last one at the table when it follows the data (0x744), else at the end
/// of the file. A chunk past the end is an error, or cut at the end when `lenient`.
fn extents(
    entries: &[Chunk],
    container: Container,
    table_offset: u32,
    file_len: u64,
    lenient: bool,
) -> Result<Vec<(u64, u64)>> {
    let mut sorted: Vec<u64> = entries.iter().map(|e| e.offset).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let table = u64::from(table_offset);
    let mut extents = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let len = match e.size {
            Some(s) => u64::from(s),
            None => {
                let end = match sorted.get(sorted.partition_point(|&o| o <= e.offset)) {
                    Some(&o) => o,
                    None if container == Container::CryTek744 && table >= e.offset => table,
                    None => file_len,
                };
                end.saturating_sub(e.offset)
            }
        };
        let end = match e.offset.checked_add(len).filter(|&end| end <= file_len) {
            Some(end) => end,
            None if lenient => file_len.max(e.offset),
            None => {
                let at = e.offset.min(file_len) as usize;
                return Err(
                    Error::truncated(at, len as usize, file_len.saturating_sub(e.offset) as usize).within(e.label(i))
                );
            }
        };
        extents.push((e.offset, end));
    }
    Ok(extents)
}

fn read_inner(data: &Bytes, lenient: bool) -> Result<ChunkFile> {
    let bytes: &[u8] = data;
    let mut c = Cursor::new(bytes, Endian::Little);
    let container = match sniff(bytes) {
        Some(k) => k,
        None if bytes.get(..6) == Some(b"CryTek") => {
            let v = le_u32_at(bytes, 12).unwrap_or(0);
            return Err(Error::new(
                ErrorKind::Unsupported,
                Some(12),
                format!("CryTek chunk file version 0x{v:X} (0x744 and 0x745 are known)"),
            ));
        }
        None => return Err(Error::invalid(0, "not a CryEngine chunk file (no CryTek, CrCh or #ivo magic)")),
    };
    let (magic, file_type, version, count_in_header, table_offset) =
        header(&mut c, container).within(|| "file header")?;
    c.seek(table_offset as usize).map_err(|_| {
        Error::invalid(
            12,
            format!("chunk table offset {table_offset} is past the end of the file ({} bytes)", bytes.len()),
        )
    })?;
    let count = match count_in_header {
        Some(n) => n,
        None => c.u32().within(|| "chunk table")?,
    };
    let n = c.count(u64::from(count), container.entry_len(), "chunk").within(|| "chunk table")?;
    // Allocated once: collecting `Result`s would grow the vector entry by entry.
    let mut entries = Vec::with_capacity(n);
    for i in 0..n {
        entries.push(Chunk::read_entry(&mut c, container).within(|| format!("chunk table entry {i}"))?);
    }
    let table_end = c.pos();
    let file_len = bytes.len() as u64;
    let extents = extents(&entries, container, table_offset, file_len, lenient)?;

    // Not even when lenient: overlapping chunks are not damage to salvage.
    if let Some(message) = overlap_message(&extents) {
        return Err(Error::invalid(table_offset as usize, message).within("chunk table"));
    }

    // Gaps: the complement of header, table and chunks.
    let mut covered: Vec<(u64, u64)> = Vec::with_capacity(extents.len() + 2);
    covered.push((0, container.header_len() as u64));
    covered.push((u64::from(table_offset), table_end as u64));
    covered.extend(extents.iter().filter(|(a, _)| *a < file_len));
    let gaps = complement(&mut covered, file_len)
        .into_iter()
        .map(|(a, b)| Gap { offset: a, data: data.slice(a as usize..b as usize) })
        .collect();
    let chunks = entries
        .into_iter()
        .zip(extents)
        .map(|(e, (a, b))| {
            e.with_bytes(container, if a >= file_len { Bytes::new() } else { data.slice(a as usize..b as usize) })
        })
        .collect();
    let magic = Hex(magic);
    Ok(ChunkFile { container, magic, file_type, version, table_offset, chunks, gaps })
}

/// Pairs of chunks (table indices) whose bytes overlap, up to `max` of them, and how many chunks
/// overlap an earlier one (in offset order) in all. Empty chunks overlap nothing. Linear after a
/// sort, so a table of a million entries pointing at one chunk is found at once.
pub(super) fn overlaps(extents: &[(u64, u64)], max: usize) -> (Vec<(usize, usize)>, usize) {
    let mut by_offset: Vec<(u64, u64, usize)> =
        extents.iter().enumerate().filter(|(_, (a, b))| b > a).map(|(i, &(a, b))| (a, b, i)).collect();
    by_offset.sort_unstable();
    let (mut pairs, mut count) = (Vec::new(), 0);
    // The chunk reaching furthest so far, and where it ends.
    let mut reach: Option<(u64, usize)> = None;
    for &(begin, end, i) in &by_offset {
        match reach {
            Some((far, j)) if begin < far => {
                count += 1;
                if pairs.len() < max {
                    pairs.push((j, i));
                }
                if end > far {
                    reach = Some((end, i));
                }
            }
            _ => reach = Some((end, i)),
        }
    }
    (pairs, count)
}

/// Why a chunk table whose chunks share bytes is rejected: each chunk would be decoded on its
/// own, so a table of a million entries pointing at one chunk would convert it a million times.
fn overlap_message(extents: &[(u64, u64)]) -> Option<String> {
    let (pairs, count) = overlaps(extents, 3);
    if count == 0 {
        return None;
    }
    let listed: Vec<String> = pairs.iter().map(|(a, b)| format!("chunk {b} overlaps chunk {a}")).collect();
    Some(format!(
        "{count} chunks share bytes with another ({}{}); chunks must not overlap",
        listed.join(", "),
        if count > pairs.len() { ", …" } else { "" }
    ))
}

/// The ranges of `[0, len)` that no range in `covered` includes.
fn complement(covered: &mut [(u64, u64)], len: u64) -> Vec<(u64, u64)> {
    covered.sort_unstable();
    let mut out = Vec::new();
    let mut pos = 0u64;
    for &(a, b) in covered.iter() {
        if a > pos {
            out.push((pos, a.min(len)));
        }
        pos = pos.max(b);
    }
    if pos < len {
        out.push((pos, len));
    }
    out.retain(|(a, b)| b > a);
    out
}

impl ChunkFile {
    /// The file with every payload that has a declared structure covering it exactly shown as
    /// that structure (the form of `animkit dump`).
    pub fn structured(&self) -> ChunkFile {
        self.clone().into_structured()
    }

    fn into_structured(mut self) -> ChunkFile {
        for ch in &mut self.chunks {
            if let Body::Bytes { hex } = &ch.body {
                let (version, endian) = ch.version_and_endian(self.container);
                ch.body = Body::read(ch.kind(self.container), version, hex.clone(), ch.payload_offset(), endian);
            }
        }
        self
    }

    /// The bytes of the header and the chunk table; fails when the magic has the wrong length.
    fn header_and_table(&self) -> Result<(Vec<u8>, Vec<u8>)> {
        let c = self.container;
        let count = self.chunks.len() as u32;
        let (version, table_offset) = (self.version, self.table_offset);
        let crytek = c.embedded_headers();
        if self.magic.0.len() != c.identity().0.len() {
            return Err(Error::unrepresentable(format!("a {} magic of {} bytes", c.name(), self.magic.0.len())));
        }
        let mut h = Writer::new(Endian::Little);
        h.bytes(&self.magic.0);
        let words = if crytek { [self.file_type, version, table_offset] } else { [version, count, table_offset] };
        words.into_iter().for_each(|v| h.u32(v));
        let mut t = Writer::new(Endian::Little);
        if crytek {
            t.u32(count);
        }
        self.chunks.iter().for_each(|ch| ch.write_entry(&mut t, c));
        Ok((h.into_vec(), t.into_vec()))
    }

    /// The file's bytes: every gap, chunk, the header and the table at their offsets.
    pub fn write(&self) -> Result<Vec<u8>> {
        let (header, table) = self.header_and_table()?;
        let too_big = || Error::unrepresentable("a chunk file larger than 4 GiB (offsets are 32-bit)");
        let end = |offset: u64, len: usize| offset.checked_add(len as u64).filter(|&e| e <= u64::from(u32::MAX));
        let mut len = end(0, header.len()).ok_or_else(too_big)?;
        len = len.max(end(u64::from(self.table_offset), table.len()).ok_or_else(too_big)?);
        let chunks: Vec<Bytes> = self
            .chunks
            .iter()
            .enumerate()
            .map(|(i, ch)| ch.bytes(self.container).within(|| format!("chunk {i}")))
            .collect::<Result<_>>()?;
        // An empty chunk adds no bytes (a salvaged chunk may point past the end).
        for (ch, data) in self.chunks.iter().zip(&chunks).filter(|(_, d)| !d.is_empty()) {
            len = len.max(end(ch.offset, data.len()).ok_or_else(too_big)?);
        }
        for g in &self.gaps {
            len = len.max(end(g.offset, g.data.len()).ok_or_else(too_big)?);
        }
        let mut out = vec![0u8; len as usize];
        let mut put = |at: u64, b: &[u8]| {
            if let Some(dst) = out.get_mut(at as usize..at as usize + b.len()) {
                dst.copy_from_slice(b);
            }
        };
        for g in &self.gaps {
            put(g.offset, &g.data);
        }
        for (ch, data) in self.chunks.iter().zip(&chunks) {
            put(ch.offset, data);
        }
        put(u64::from(self.table_offset), &table);
        put(0, &header);
        Ok(out)
    }

    /// A new file in the canonical layout (CE5 `ChunkFileWriters.cpp`): header, table right after
    /// it, chunk data in table order, each chunk aligned to 4 with zero padding that the size
    /// leaves out, no padding after the last chunk. `payloads` are `(type in new numbering,
    /// version, id, payload)` (bytes become the chunk's declared structure where it has one);
    /// 0x744/0x745 chunks get their embedded header unless their type/version is in §1.3's list.
    pub fn build<P: Into<Body>>(
        container: Container,
        file_type: u32,
        payloads: Vec<(u32, u32, u32, P)>,
    ) -> Result<ChunkFile> {
        let (magic, version, _) = container.identity();
        let chunks = payloads
            .into_iter()
            .map(|(kind, version, id, payload)| {
                let chunk_type = if container.embedded_headers() { to_old_type(kind) } else { kind };
                let header = (container.embedded_headers() && !no_embedded_header(kind, version))
                    .then_some(EmbeddedHeader { chunk_type, version, offset: 0, id });
                Chunk { chunk_type, version, id, offset: 0, size: None, header, body: payload.into() }
            })
            .collect();
        let magic = Hex(magic.to_vec());
        let file = ChunkFile { container, magic, file_type, version, table_offset: 0, chunks, gaps: Vec::new() };
        Ok(file.canonical()?.into_structured())
    }

    /// The same chunks, order and ids in the canonical layout (CE5 `ChunkFileWriters.cpp`,
    /// §1.6): the table right after the header, chunk data in table order, each chunk aligned to
    /// 4 with zero padding that the size leaves out (a sizeless chunk reaches the next one, so
    /// there the padding joins its bytes), no padding after the last chunk, embedded headers
    /// with the chunk's own offset.
    pub(crate) fn canonical(&self) -> Result<ChunkFile> {
        let c = self.container;
        let table_offset = c.header_len();
        // The table's length does not depend on where the chunks lie.
        let table_end = table_offset + self.header_and_table()?.1.len();
        let mut pos = round_up(table_end, 4);
        let mut gaps = Vec::new();
        let pad = |gaps: &mut Vec<Gap>, from: usize, to: usize| {
            if to > from {
                gaps.push(Gap { offset: from as u64, data: Bytes::from(vec![0; to - from]) });
            }
        };
        pad(&mut gaps, table_end, pos);
        let mut chunks = Vec::with_capacity(self.chunks.len());
        let last = self.chunks.len().saturating_sub(1);
        for (i, ch) in self.chunks.iter().enumerate() {
            let mut chunk = ch.clone();
            if let Some(h) = &mut chunk.header {
                h.offset = pos as u32;
            }
            chunk.offset = pos as u64;
            let len = ch.bytes(c)?.len();
            let next = if len == 0 { pos + 4 } else { round_up(pos + len, 4) };
            // The file ends right after the last chunk (as the engine's files do).
            let end = if i == last { pos + len } else { next };
            if c.has_size() {
                chunk.size = Some(len as u32);
                pad(&mut gaps, pos + len, end);
            } else if end > pos + len {
                let mut data = chunk.payload(c)?.to_vec();
                data.resize(data.len() + end - pos - len, 0);
                chunk.body = data.into();
            }
            chunks.push(chunk);
            pos = next;
        }
        let (magic, file_type, version, table_offset) =
            (self.magic.clone(), self.file_type, self.version, table_offset as u32);
        Ok(ChunkFile { container: c, magic, file_type, version, table_offset, chunks, gaps })
    }
}

/// Chunks written without an embedded header in 0x745 files (§1.3).
fn no_embedded_header(kind: u32, version: u32) -> bool {
    matches!(
        (kind, version),
        (kind::SOURCE_INFO, _)
            | (kind::CONTROLLER, 0x827)
            | (kind::CONTROLLER, 0x830)
            | (kind::BONE_NAME_LIST, 0x745)
            | (kind::MESH_MORPH_TARGET, 0x0001)
            | (kind::BONE_INITIAL_POS, 0x0001)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_numbering_converts_both_ways() {
        assert_eq!(to_new_type(0xCCCC_000D), 0x100D);
        assert_eq!(to_new_type(0xACDC_0000), 0x2000);
        assert_eq!(to_new_type(0xAAFC_0007), 0x3007);
        assert_eq!(to_old_type(0x3002), 0xAAFC_0002);
        assert_eq!(to_old_type(0x1005), 0xCCCC_0005);
    }
}
