//! SARC archives (spec `shared/formats/bfres.md` §13): `SARC` header, `SFAT` node table,
//! `SFNT` name table, then member data.
//!
//! The raw layer keeps every header field, every node as stored, the name table bytes (with
//! their padding) and the whole data region, so an archive writes back byte for byte. [`build`]
//! writes a new archive from members: nodes sorted by name hash, names padded to 4, each member
//! aligned to its own requirement (for a Wii U BFRES at least the alignment at its `0x10`).

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::budget::Resource;
use crate::bytes::{round_up, Cursor, Endian, Writer};
use crate::error::{Context, Error, ErrorKind, Result};
use crate::format::{Capabilities, Confidence, Document, Entry, Format, ReadOptions, Repaired, WriteOptions, Written};
use crate::lint::{Finding, Severity};
use crate::model::Package;
use crate::raw_json::Hex;
use crate::registry::Registry;

/// One SFAT node as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// The hash of the member's name (SARC's multiplicative hash with `hash_key`).
    pub hash: u32,
    /// `0x01000000 | name_offset / 4` (the high byte may count collisions); 0 when unnamed.
    pub attr: u32,
    /// Relative to the data offset.
    pub begin: u32,
    /// The end of the member's data, relative to the data offset.
    pub end: u32,
}

/// A whole SARC archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sarc {
    /// The byte order (BOM `FE FF` big, `FF FE` little).
    pub endian: Endian,
    /// The SARC header's size field (0x14).
    pub header_size: u16,
    /// The file size the header states.
    pub file_size: u32,
    /// Where member data starts.
    pub data_offset: u32,
    /// The format version (0x0100).
    pub version: u16,
    /// The reserved header field, kept as stored.
    pub reserved: u16,
    /// The SFAT header's size field (0x0C).
    pub sfat_header_size: u16,
    /// The multiplier of the name hash (0x65).
    pub hash_key: u32,
    /// The SFAT nodes, in stored order.
    pub nodes: Vec<Node>,
    /// The SFNT header's size field (0x08).
    pub sfnt_header_size: u16,
    /// The reserved SFNT field, kept as stored.
    pub sfnt_reserved: u16,
    /// From the end of the SFNT header to the data offset: names, padding.
    pub names: Hex,
    /// From the data offset to the end of the file (a slice of the input, not a copy).
    #[serde(with = "crate::raw_json::hex_bytes")]
    pub data: Bytes,
}

/// The name hash: `h = h·key + byte` (bytes as signed chars, like oead).
pub(crate) fn hash(name: &[u8], key: u32) -> u32 {
    name.iter().fold(0u32, |h, &b| h.wrapping_mul(key).wrapping_add(b as i8 as i32 as u32))
}

/// The byte order the mark at 6 states (`FE FF` big, `FF FE` little).
fn byte_order(data: &[u8]) -> Result<Endian> {
    match data.get(6..8) {
        Some([0xFE, 0xFF]) => Ok(Endian::Big),
        Some([0xFF, 0xFE]) => Ok(Endian::Little),
        Some(_) => Err(Error::invalid(6, "bad byte-order mark")),
        None => Err(Error::truncated(6, 2, data.len().saturating_sub(6))),
    }
}

/// The `count` SFAT nodes at the cursor (16 bytes each).
fn read_nodes(c: &mut Cursor, count: u16) -> Result<Vec<Node>> {
    let n = c.count(u64::from(count), 16, "SFAT node")?;
    let mut nodes = Vec::with_capacity(n);
    for i in 0..n {
        nodes.push(
            (|| Ok(Node { hash: c.u32()?, attr: c.u32()?, begin: c.u32()?, end: c.u32()? }))()
                .within(|| format!("SFAT node {i}"))?,
        );
    }
    Ok(nodes)
}

/// Where the regions of an archive of `len` bytes start, as its headers state them.
#[derive(Clone, Copy)]
struct Layout {
    len: usize,
    sfat_at: usize,
    names_at: usize,
    data_offset: u32,
    file_size: u32,
}

/// Checks that member data starts after the names and within the file, that the file is as
/// long as the header says, and that every member lies inside the data region.
fn check_regions(layout: &Layout, nodes: &[Node]) -> Result<()> {
    let Layout { len, sfat_at, names_at, data_offset, file_size } = *layout;
    let data_at = data_offset as usize;
    if data_at < names_at || data_at > len {
        return Err(Error::invalid(12, format!("data offset {data_offset:#x} outside {names_at:#x}..{len:#x}")));
    }
    if (file_size as usize) > len {
        return Err(Error::truncated(len, file_size as usize - len, 0).within("SARC"));
    }
    let region = len - data_at;
    for (i, node) in nodes.iter().enumerate() {
        if node.begin > node.end || node.end as usize > region {
            return Err(Error::invalid(
                sfat_at + 0x0C + 16 * i,
                format!("member {i} spans {:#x}..{:#x}, outside the {region}-byte data region", node.begin, node.end),
            ));
        }
    }
    Ok(())
}

/// Parses an archive. The data region is a slice of `data`.
pub fn read(data: &Bytes) -> Result<Sarc> {
    if data.get(..4) != Some(b"SARC") {
        return Err(Error::invalid(0, "not a SARC archive"));
    }
    let endian = byte_order(data)?;
    let mut c = Cursor::new(data, endian);
    c.skip(4)?;
    let header_size = c.u16()?;
    c.skip(2)?;
    let file_size = c.u32()?;
    let data_offset = c.u32()?;
    let version = c.u16()?;
    let reserved = c.u16()?;
    if header_size < 0x14 {
        return Err(Error::invalid(4, format!("header size {header_size} < 0x14")));
    }
    skip_padding(&mut c, usize::from(header_size).saturating_sub(0x14), "SARC header")?;
    let sfat_at = c.offset();
    if c.array::<4>()? != *b"SFAT" {
        return Err(Error::invalid(sfat_at, "missing SFAT"));
    }
    let sfat_header_size = c.u16()?;
    let count = c.u16()?;
    let hash_key = c.u32()?;
    skip_padding(&mut c, usize::from(sfat_header_size).saturating_sub(0x0C), "SFAT header")?;
    let nodes = read_nodes(&mut c, count)?;
    let sfnt_at = c.offset();
    if c.array::<4>()? != *b"SFNT" {
        return Err(Error::invalid(sfnt_at, "missing SFNT"));
    }
    let sfnt_header_size = c.u16()?;
    let sfnt_reserved = c.u16()?;
    skip_padding(&mut c, usize::from(sfnt_header_size).saturating_sub(8), "SFNT header")?;
    let names_at = c.offset();
    check_regions(&Layout { len: data.len(), sfat_at, names_at, data_offset, file_size }, &nodes)?;
    let data_at = data_offset as usize;
    Ok(Sarc {
        endian,
        header_size,
        file_size,
        data_offset,
        version,
        reserved,
        sfat_header_size,
        hash_key,
        nodes,
        sfnt_header_size,
        sfnt_reserved,
        names: Hex(data.get(names_at..data_at).unwrap_or_default().to_vec()),
        data: data.slice(data_at.min(data.len())..),
    })
}

/// The bytes of an archive.
pub fn write(s: &Sarc) -> Vec<u8> {
    let mut w = Writer::new(s.endian);
    w.bytes(b"SARC");
    w.u16(s.header_size);
    w.u16(0xFEFF);
    w.u32(s.file_size);
    w.u32(s.data_offset);
    w.u16(s.version);
    w.u16(s.reserved);
    w.fill(0, usize::from(s.header_size).saturating_sub(0x14));
    w.bytes(b"SFAT");
    w.u16(s.sfat_header_size);
    w.u16(s.nodes.len() as u16);
    w.u32(s.hash_key);
    w.fill(0, usize::from(s.sfat_header_size).saturating_sub(0x0C));
    for n in &s.nodes {
        w.u32(n.hash);
        w.u32(n.attr);
        w.u32(n.begin);
        w.u32(n.end);
    }
    w.bytes(b"SFNT");
    w.u16(s.sfnt_header_size);
    w.u16(s.sfnt_reserved);
    w.fill(0, usize::from(s.sfnt_header_size).saturating_sub(8));
    w.bytes(&s.names.0);
    w.bytes(&s.data);
    w.into_vec()
}

/// The length [`write`] gives, without writing (and so copying) the archive.
fn written_len(s: &Sarc) -> usize {
    usize::from(s.header_size).max(0x14)
        + usize::from(s.sfat_header_size).max(0x0C)
        + 16 * s.nodes.len()
        + usize::from(s.sfnt_header_size).max(8)
        + s.names.0.len()
        + s.data.len()
}

impl Sarc {
    /// Member `i`'s name (from the name table; `None` when unnamed or unreadable).
    pub fn name(&self, i: usize) -> Option<String> {
        let n = self.nodes.get(i)?;
        if n.attr >> 24 == 0 {
            return None;
        }
        let at = (n.attr & 0x00FF_FFFF) as usize * 4;
        let rest = self.names.0.get(at..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        Some(String::from_utf8_lossy(rest.get(..end)?).into_owned())
    }

    /// Member `i`'s bytes.
    pub fn member(&self, i: usize) -> Option<&[u8]> {
        let n = self.nodes.get(i)?;
        self.data.get(n.begin as usize..n.end as usize)
    }

    /// Member `i`'s bytes as a slice of the archive's data (no copy).
    pub fn member_bytes(&self, i: usize) -> Option<Bytes> {
        let n = self.nodes.get(i)?;
        (n.begin <= n.end && n.end as usize <= self.data.len())
            .then(|| self.data.slice(n.begin as usize..n.end as usize))
    }

    /// Pairs of non-empty members whose bytes overlap (in data order: the second starts before
    /// the first ends), and how many members overlap an earlier one in all. Linear after a sort.
    pub fn overlaps(&self) -> (Vec<(usize, usize)>, usize) {
        let mut by_begin: Vec<(u32, u32, usize)> =
            self.nodes.iter().enumerate().filter(|(_, n)| n.end > n.begin).map(|(i, n)| (n.begin, n.end, i)).collect();
        by_begin.sort_unstable();
        let (mut examples, mut count) = (Vec::new(), 0);
        // The member reaching furthest so far, and where it ends.
        let mut reach: Option<(u32, usize)> = None;
        for &(begin, end, i) in &by_begin {
            match reach {
                Some((far, j)) if begin < far => {
                    count += 1;
                    if examples.len() < 3 {
                        examples.push((j, i));
                    }
                    if end > far {
                        reach = Some((end, i));
                    }
                }
                _ => reach = Some((end, i)),
            }
        }
        (examples, count)
    }
}

/// The largest alignment a moved member keeps from its old offset: enough for every known table
/// (BotW aligns some members to 0x2000) without padding a member to its offset's every zero bit.
const MAX_KEPT_ALIGNMENT: usize = 0x2000;

/// `s` with member `index` holding `data`: one file of a game's archive replaced.
///
/// The game's alignment table is unknown here (§13: oead and sarc-rs carry BotW's), so the
/// layout is kept: members stored before the replaced one keep their bytes and offsets; the
/// replaced member and those after it move, each keeping the alignment its old offset had (up to
/// `MAX_KEPT_ALIGNMENT`) and at least what its data needs ([`member_alignment`]); bytes after
/// the last member stay after it. Names, hashes and node order do not change; the file size is
/// recomputed. Members that overlap (shared data) cannot be moved apart and are an error.
pub(crate) fn replace_member(s: &Sarc, index: usize, data: &[u8]) -> Result<Sarc> {
    let bad = |m: String| Error::new(ErrorKind::Invalid, None, m).within("SARC");
    let old = &s.data;
    let range = |i: usize| -> Result<(usize, usize)> {
        let n = s.nodes.get(i).ok_or_else(|| bad(format!("no member {i}")))?;
        let (begin, end) = (n.begin as usize, n.end as usize);
        if begin > end || end > old.len() {
            return Err(bad(format!("member {i} lies at {begin}..{end}, outside the {}-byte data", old.len())));
        }
        Ok((begin, end))
    };
    let mut by_begin = (0..s.nodes.len()).map(|i| Ok((range(i)?, i))).collect::<Result<Vec<_>>>()?;
    by_begin.sort_unstable();
    let overlap = by_begin.iter().zip(by_begin.iter().skip(1)).find(|(((_, end), _), ((begin, _), _))| end > begin);
    if let Some(((_, a), (_, b))) = overlap {
        return Err(bad(format!("members {a} and {b} overlap: they cannot be moved apart")));
    }
    let (replaced_begin, _) = range(index)?;
    let tail_from = by_begin.last().map_or(0, |((_, end), _)| *end);
    let data_offset = s.data_offset as usize;
    let mut out = s.clone();
    let mut bytes = old.get(..replaced_begin).unwrap_or_default().to_vec();
    for &((begin, end), i) in by_begin.iter().filter(|((begin, _), i)| *begin > replaced_begin || *i == index) {
        let member = if i == index { data } else { old.get(begin..end).unwrap_or_default() };
        let kept = 1usize.checked_shl((data_offset + begin).trailing_zeros()).unwrap_or(MAX_KEPT_ALIGNMENT);
        let align = kept.min(MAX_KEPT_ALIGNMENT).max(member_alignment(member));
        bytes.resize(round_up(data_offset + bytes.len(), align) - data_offset, 0);
        let node = out.nodes.get_mut(i).ok_or_else(|| bad(format!("no member {i}")))?;
        node.begin = u32::try_from(bytes.len()).map_err(|_| Error::unrepresentable("SARC over 4 GiB"))?;
        bytes.extend_from_slice(member);
        node.end = u32::try_from(bytes.len()).map_err(|_| Error::unrepresentable("SARC over 4 GiB"))?;
    }
    bytes.extend_from_slice(old.get(tail_from..).unwrap_or_default());
    out.data = Bytes::from(bytes);
    out.file_size = u32::try_from(write(&out).len()).map_err(|_| Error::unrepresentable("SARC over 4 GiB"))?;
    Ok(out)
}

/// Skips the bytes a header size says follow the known fields. They are not kept (the writer
/// writes zeros), so anything else is rejected: otherwise the file would not write back exactly
/// (found by the round-trip fuzzer: an SFNT header size of 10 swallowed two name bytes).
fn skip_padding(c: &mut Cursor, n: usize, what: &str) -> Result<()> {
    let at = c.offset();
    if c.take(n)?.iter().any(|&b| b != 0) {
        return Err(Error::invalid(at, format!("{what}: {n} bytes past the known fields are not zero")));
    }
    Ok(())
}

/// The largest member alignment honoured: a BFRES claiming more (a damaged header) gets 4, so a
/// rebuilt archive cannot be padded to gigabytes.
pub(crate) const MAX_MEMBER_ALIGNMENT: usize = 1 << 16;

/// The alignment a member needs: 4, or more for a BFRES (its `u32` at `0x10`, at most 64 KiB)
/// or a nested SARC or Yaz0 (8).
pub fn member_alignment(data: &[u8]) -> usize {
    match data.get(..4) {
        Some(b"FRES") => data
            .get(0x10..)
            .and_then(<[u8]>::first_chunk)
            .map(|b| u32::from_be_bytes(*b) as usize)
            .filter(|a| a.is_power_of_two() && *a <= MAX_MEMBER_ALIGNMENT)
            .unwrap_or(4)
            .max(4),
        Some(b"SARC" | b"Yaz0") => 8,
        _ => 4,
    }
}

/// Builds a canonical archive (big-endian, hash key `0x65`) from named members.
pub fn build(members: &[(String, Vec<u8>)], endian: Endian) -> Result<Sarc> {
    const KEY: u32 = 0x65;
    // Stable: members with the same hash and name keep their order.
    let mut order: Vec<&(String, Vec<u8>)> = members.iter().collect();
    order.sort_by(|a, b| (hash(a.0.as_bytes(), KEY), &a.0).cmp(&(hash(b.0.as_bytes(), KEY), &b.0)));
    let mut names = Vec::new();
    // Each member's name offset, in `order`.
    let mut name_offsets = Vec::with_capacity(members.len());
    for (name, _) in &order {
        name_offsets.push(names.len());
        names.extend_from_slice(name.as_bytes());
        names.push(0);
        names.resize(round_up(names.len(), 4), 0);
    }
    let names_at = 0x14 + 0x0C + 16 * members.len() + 8;
    let align = members.iter().map(|m| member_alignment(&m.1)).fold(4, lcm);
    let data_offset = round_up(names_at + names.len(), align);
    names.resize(data_offset - names_at, 0);
    let mut data = Vec::new();
    let mut nodes = Vec::with_capacity(members.len());
    let mut prev_hash = None;
    let mut collisions = 1u32;
    for ((name, bytes), name_offset) in order.into_iter().zip(name_offsets) {
        let begin = round_up(data_offset + data.len(), member_alignment(bytes)) - data_offset;
        data.resize(begin, 0);
        data.extend_from_slice(bytes);
        let h = hash(name.as_bytes(), KEY);
        collisions = if prev_hash == Some(h) { collisions + 1 } else { 1 };
        prev_hash = Some(h);
        let offset = u32::try_from(name_offset / 4)
            .ok()
            .filter(|&o| o < 1 << 24)
            .ok_or_else(|| Error::unrepresentable("SARC name table too large"))?;
        nodes.push(Node { hash: h, attr: (collisions << 24) | offset, begin: begin as u32, end: data.len() as u32 });
    }
    let file_size = u32::try_from(data_offset + data.len()).map_err(|_| Error::unrepresentable("SARC over 4 GiB"))?;
    let count = u16::try_from(members.len()).map_err(|_| Error::unrepresentable("more than 65535 SARC members"))?;
    let _ = count;
    Ok(Sarc {
        endian,
        header_size: 0x14,
        file_size,
        data_offset: data_offset as u32,
        version: 0x0100,
        reserved: 0,
        sfat_header_size: 0x0C,
        hash_key: KEY,
        nodes,
        sfnt_header_size: 8,
        sfnt_reserved: 0,
        names: Hex(names),
        data: Bytes::from(data),
    })
}

fn lcm(a: usize, b: usize) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    a / gcd(a, b) * b
}

/// The packages of members whose bytes other members share exactly, so each is read once.
struct SharedMembers {
    /// For each member, the first member with the same non-empty range, when there is another.
    first_of: Vec<Option<usize>>,
    packages: std::collections::HashMap<usize, Package>,
}

impl SharedMembers {
    fn new(sarc: &Sarc) -> Self {
        let mut first: std::collections::HashMap<(u32, u32), (usize, usize)> = std::collections::HashMap::new();
        for (i, n) in sarc.nodes.iter().enumerate().filter(|(_, n)| n.end > n.begin) {
            first.entry((n.begin, n.end)).or_insert((i, 0)).1 += 1;
        }
        let first_of = sarc
            .nodes
            .iter()
            .map(|n| first.get(&(n.begin, n.end)).filter(|(_, count)| *count > 1).map(|(i, _)| *i))
            .collect();
        SharedMembers { first_of, packages: std::collections::HashMap::new() }
    }

    /// The package of a member whose bytes an earlier member shares, read already.
    fn get(&self, i: usize) -> Option<Package> {
        let first = self.first_of.get(i).copied().flatten()?;
        self.packages.get(&first).cloned()
    }

    /// Keeps member `i`'s package when later members share its bytes.
    fn keep(&mut self, i: usize, package: &Package) {
        if self.first_of.get(i).copied().flatten() == Some(i) {
            self.packages.insert(i, package.clone());
        }
    }
}

/// The members animkit reads, each with its name, skipping members whose bytes an earlier member
/// shares exactly (their notes and findings are the first one's, and reading each again would
/// charge the decode budget once per alias).
fn readable_members<'a>(
    registry: &'a Registry,
    sarc: &'a Sarc,
    options: &'a ReadOptions,
) -> impl Iterator<Item = (String, Box<dyn Document>)> + 'a {
    let shared = SharedMembers::new(sarc);
    (0..sarc.nodes.len()).filter_map(move |i| {
        if shared.first_of.get(i).copied().flatten().is_some_and(|first| first != i) {
            return None;
        }
        let doc = registry.read(sarc.member_bytes(i)?, None, options).ok()?;
        Some((sarc.name(i).unwrap_or_else(|| format!("member_{i}")), doc))
    })
}

/// The SARC archive format, reading its members through a registry.
pub struct SarcFormat {
    registry: &'static Registry,
}

impl SarcFormat {
    /// SARC, reading its members with the formats of `registry`.
    pub const fn new(registry: &'static Registry) -> Self {
        SarcFormat { registry }
    }

    /// A document of `sarc`, its members read through this format's registry.
    pub fn document(&'static self, sarc: Sarc) -> SarcDocument {
        SarcDocument { format: self, sarc, options: ReadOptions::default() }
    }
}

impl Format for SarcFormat {
    fn name(&self) -> &'static str {
        "sarc"
    }

    fn description(&self) -> &'static str {
        "Nintendo SARC archives (.sarc, .pack); models merge the members animkit can read"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["sarc", "pack"]
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { read: true, to_model: true, from_model: false, dump: true, archive: true, skeleton: false }
    }

    fn probe(&self, bytes: &[u8]) -> Confidence {
        match bytes.get(..4) {
            Some(b"SARC") if matches!(bytes.get(6..8), Some([0xFE, 0xFF] | [0xFF, 0xFE])) => Confidence::Certain,
            Some(b"SARC") => Confidence::Likely,
            _ => Confidence::No,
        }
    }

    fn read(&'static self, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
        let budget = options.budget(bytes.len());
        Ok(Box::new(SarcDocument { format: self, sarc: read(&bytes)?, options: options.nested(&budget) }))
    }

    fn from_model(&self, _package: &Package, _options: &WriteOptions) -> Result<Written> {
        Err(Error::unsupported("sarc is a container: write the members, then build the archive"))
    }

    fn undump(&'static self, value: serde_json::Value) -> Result<Box<dyn Document>> {
        let sarc: Sarc = crate::raw_json::from_value(value, "SARC dump")?;
        Ok(Box::new(self.document(sarc)))
    }
}

/// A parsed SARC archive.
pub struct SarcDocument {
    format: &'static SarcFormat,
    /// The archive as read.
    pub sarc: Sarc,
    options: ReadOptions,
}

impl Document for SarcDocument {
    fn format(&self) -> &'static dyn Format {
        self.format
    }

    fn version(&self) -> String {
        let e = if self.sarc.endian == Endian::Big { "big-endian" } else { "little-endian" };
        format!("SARC {:#06x} {e}", self.sarc.version)
    }

    fn write(&self) -> Result<Vec<u8>> {
        Ok(write(&self.sarc))
    }

    /// Every member that animkit can read, merged: clips in member order, the first skeleton.
    /// Members that share their bytes exactly are read once. Every member read and every key
    /// converted is charged to the budget of the input the archive came from.
    fn to_model(&self) -> Result<Package> {
        let mut package = Package::default();
        let budget = self.options.budget(self.sarc.data.len());
        let mut shared = SharedMembers::new(&self.sarc);
        for i in 0..self.sarc.nodes.len() {
            let Some(bytes) = self.sarc.member_bytes(i) else {
                continue;
            };
            let name = self.sarc.name(i).unwrap_or_else(|| format!("member {i}"));
            let within = |e: crate::Error| e.within(format!("SARC member {name}"));
            let at = self.sarc.nodes.get(i).map(|n| u64::from(self.sarc.data_offset) + u64::from(n.begin));
            let p = match shared.get(i) {
                Some(p) => p,
                None => {
                    budget.charge(Resource::Work, bytes.len() as u64, at).map_err(within)?;
                    let doc = match self.format.registry.read(bytes, None, &self.options) {
                        Ok(doc) => doc,
                        Err(e) if e.kind == ErrorKind::Limit => return Err(within(e)),
                        // Members animkit cannot read (textures, sounds) hold no animation.
                        Err(_) => continue,
                    };
                    let p = doc.to_model().map_err(within)?;
                    shared.keep(i, &p);
                    p
                }
            };
            budget.charge(Resource::Keys, p.key_count() as u64, at).map_err(within)?;
            budget.charge(Resource::Work, p.key_count() as u64, at).map_err(within)?;
            package.clips.extend(p.clips);
            if package.skeleton.is_none() {
                package.skeleton = p.skeleton;
            }
        }
        Ok(package)
    }

    /// What the members that read hold beyond their models, each line after the member's name.
    fn not_in_model(&self) -> Vec<String> {
        readable_members(self.format.registry, &self.sarc, &self.options)
            .flat_map(|(name, doc)| doc.not_in_model().into_iter().map(move |l| format!("{name}: {l}")))
            .collect()
    }

    fn dump(&self) -> Result<serde_json::Value> {
        self.options
            .budget(self.sarc.data.len())
            .charge(Resource::Work, 2 * self.sarc.data.len() as u64, Some(u64::from(self.sarc.data_offset)))
            .map_err(|e| e.within("SARC dump"))?;
        crate::raw_json::to_value(&self.sarc)
    }

    fn lint(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        let s = &self.sarc;
        let total = written_len(s);
        if s.file_size as usize != total {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "file-size-mismatch",
                    format!("header says {} bytes, file has {total}", s.file_size),
                )
                .at(8),
            );
        }
        for (i, node) in s.nodes.iter().enumerate() {
            if let Some(name) = self.sarc.name(i) {
                let h = hash(name.as_bytes(), s.hash_key);
                if h != node.hash {
                    out.push(
                        Finding::new(
                            Severity::Error,
                            "name-hash-mismatch",
                            format!("{name}: stored {:#010x}, computed {h:#010x}", node.hash),
                        )
                        .path(format!("SFAT node {i}")),
                    );
                }
            }
        }
        let (examples, count) = s.overlaps();
        if count > 0 {
            let pairs: Vec<String> = examples.iter().map(|(a, b)| format!("{b} overlaps {a}")).collect();
            out.push(Finding::new(
                Severity::Warning,
                "sarc-overlapping-members",
                format!(
                    "{count} members share bytes with an earlier one (member {}); each is read and \
                     charged to the decode budget, and the archive cannot be edited",
                    pairs.join(", ")
                ),
            ));
        }
        for (name, doc) in readable_members(self.format.registry, s, &self.options) {
            out.extend(doc.lint().into_iter().map(|mut x| {
                x.path = format!("SARC member {name} / {}", x.path);
                x
            }));
        }
        if s.nodes.iter().zip(s.nodes.iter().skip(1)).any(|(a, b)| a.hash > b.hash) {
            out.push(
                Finding::new(Severity::Error, "nodes-unsorted", "SFAT nodes are not sorted by hash (lookups fail)")
                    .fixable(),
            );
        }
        out
    }

    fn repair(&self) -> Result<Repaired> {
        let members: Vec<(String, Vec<u8>)> = (0..self.sarc.nodes.len())
            .map(|i| {
                (
                    self.sarc.name(i).unwrap_or_else(|| format!("member_{i}")),
                    self.sarc.member(i).unwrap_or_default().to_vec(),
                )
            })
            .collect();
        let sarc = build(&members, self.sarc.endian)?;
        Ok(Repaired {
            document: Box::new(self.format.document(sarc)),
            changes: vec!["rebuilt the archive canonically".into()],
        })
    }

    /// The member count, then the notes of each member animkit reads (`NAME: …`).
    fn notes(&self) -> Vec<String> {
        let mut notes = vec![format!("{} members", self.sarc.nodes.len())];
        for (name, doc) in readable_members(self.format.registry, &self.sarc, &self.options) {
            notes.extend(doc.notes().into_iter().map(|n| format!("{name}: {n}")));
        }
        notes
    }

    /// A member by its name (or `member_N`), or a member of a nested archive by `member/entry`.
    fn with_entry(&self, name: &str, data: Bytes) -> Result<Box<dyn Document>> {
        let entries = self.entries()?;
        let sarc = if let Some(i) = entries.iter().position(|e| e.name == name) {
            self.format.registry.check_replacement(name, self.sarc.member(i).unwrap_or_default(), &data)?;
            replace_member(&self.sarc, i, &data)?
        } else {
            let (i, rest) = entries
                .iter()
                .enumerate()
                .find_map(|(i, e)| Some((i, name.strip_prefix(e.name.as_str())?.strip_prefix('/')?)))
                .ok_or_else(|| {
                    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).take(12).collect();
                    let more = if entries.len() > names.len() { ", …" } else { "" };
                    Error::new(
                        ErrorKind::Invalid,
                        None,
                        format!("no member \"{name}\" (members: {}{more})", names.join(", ")),
                    )
                    .within("SARC")
                })?;
            let inner = self.sarc.member(i).unwrap_or_default();
            let replaced = self
                .format
                .registry
                .read(Bytes::copy_from_slice(inner), None, &self.options)
                .and_then(|doc| doc.with_entry(rest, data))
                .and_then(|doc| doc.write())
                .map_err(|e| e.within(format!("SARC member {}", entries.get(i).map_or("", |e| e.name.as_str()))))?;
            replace_member(&self.sarc, i, &replaced)?
        };
        Ok(Box::new(SarcDocument { format: self.format, sarc, options: self.options.clone() }))
    }

    fn entries(&self) -> Result<Vec<Entry>> {
        Ok((0..self.sarc.nodes.len())
            .map(|i| {
                let data = self.sarc.member_bytes(i).unwrap_or_default();
                let kind = data.get(..4).map(|m| String::from_utf8_lossy(m).into_owned()).unwrap_or_default();
                Entry { name: self.sarc.name(i).unwrap_or_else(|| format!("member_{i}")), kind, data }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absurd_bfres_alignment_is_not_honoured() {
        // Found by tests/robustness.rs: a BFRES member claiming 2^31 alignment made `build`
        // (used by repair) pad the archive to 2 GiB.
        let mut fres = b"FRES".to_vec();
        fres.resize(0x40, 0);
        fres[0x10..0x14].copy_from_slice(&0x8000_0000u32.to_be_bytes());
        assert_eq!(member_alignment(&fres), 4);
        let s = build(&[("a.bfres".into(), fres)], Endian::Big).unwrap();
        assert!(s.file_size < 0x1000);
    }

    #[test]
    fn hash_test_vector() {
        // §13: course_model.bfres → 0x62B9F4FD with key 0x65.
        assert_eq!(hash(b"course_model.bfres", 0x65), 0x62B9_F4FD);
    }

    #[test]
    fn build_read_write_round_trip() {
        let mut fres = b"FRES".to_vec();
        fres.resize(0x40, 0);
        fres[0x10..0x14].copy_from_slice(&0x100u32.to_be_bytes());
        let members = vec![
            ("b.txt".to_string(), b"hello".to_vec()),
            ("Model/a.bfres".to_string(), fres.clone()),
            ("c".to_string(), Vec::new()),
        ];
        let s = build(&members, Endian::Big).unwrap();
        let bytes = write(&s);
        assert_eq!(bytes.len(), s.file_size as usize);
        assert_eq!(written_len(&s), bytes.len());
        let back = read(&Bytes::from(bytes.clone())).unwrap();
        assert_eq!(back, s);
        assert_eq!(write(&back), bytes);
        // Sorted by hash, and every member found by name with its bytes and alignment.
        assert!(back.nodes.windows(2).all(|w| w[0].hash <= w[1].hash));
        for (name, data) in &members {
            let i = (0..back.nodes.len()).find(|&i| back.name(i).as_deref() == Some(name.as_str())).unwrap();
            assert_eq!(back.member(i).unwrap(), data.as_slice());
        }
        let i = (0..3).find(|&i| back.name(i).as_deref() == Some("Model/a.bfres")).unwrap();
        assert_eq!((back.data_offset + back.nodes[i].begin) % 0x100, 0);
        let doc = crate::SARC.document(back);
        assert!(doc.lint().is_empty(), "{:?}", doc.lint());
        // Truncation is an error.
        for cut in 0..bytes.len() {
            assert!(read(&Bytes::copy_from_slice(&bytes[..cut])).is_err(), "cut {cut}");
        }
    }

    fn fres(alignment: u32, len: usize) -> Vec<u8> {
        let mut fres = b"FRES".to_vec();
        fres.resize(len, 0x5A);
        fres[0x10..0x14].copy_from_slice(&alignment.to_be_bytes());
        fres
    }

    fn index_of(s: &Sarc, name: &str) -> usize {
        (0..s.nodes.len()).find(|&i| s.name(i).as_deref() == Some(name)).unwrap()
    }

    #[test]
    fn replacing_a_member_moves_only_what_follows_it() {
        let members = vec![
            ("b.txt".to_string(), b"hello".to_vec()),
            ("Model/a.bfres".to_string(), fres(0x100, 0x40)),
            ("c".to_string(), b"0123456789".to_vec()),
        ];
        let s = build(&members, Endian::Big).unwrap();
        let original = write(&s);
        // In data order, the replaced member is the second: the first keeps its bytes and offset.
        let mut by_begin: Vec<usize> = (0..3).collect();
        by_begin.sort_by_key(|&i| s.nodes[i].begin);
        let target = by_begin[1];
        let name = s.name(target).unwrap();
        let new = vec![0xC3; 300];
        let r = replace_member(&s, target, &new).unwrap();
        let bytes = write(&r);
        assert_eq!(bytes.len(), r.file_size as usize);
        let back = read(&Bytes::from(bytes.clone())).unwrap();
        assert_eq!(back, r);
        let (data_at, prefix) = (s.data_offset as usize, (s.data_offset + s.nodes[target].begin) as usize);
        assert_eq!(bytes[data_at..prefix], original[data_at..prefix], "the data before the replaced member is kept");
        assert_eq!(bytes[0x14 + 0x0C + 16 * 3..data_at], original[0x14 + 0x0C + 16 * 3..data_at], "names kept");
        for (n, data) in &members {
            let expected = if *n == name { new.as_slice() } else { data.as_slice() };
            assert_eq!(back.member(index_of(&back, n)).unwrap(), expected, "{n}");
            assert_eq!(back.nodes[index_of(&back, n)].hash, s.nodes[index_of(&s, n)].hash);
        }
        let a = index_of(&back, "Model/a.bfres");
        assert_eq!((back.data_offset + back.nodes[a].begin) % 0x100, 0, "the BFRES stays aligned");
        assert!(crate::SARC.document(back).lint().is_empty());
        // The same bytes back give the same archive.
        assert_eq!(write(&replace_member(&s, target, s.member(target).unwrap()).unwrap()), original);
    }

    #[test]
    fn a_grown_member_keeps_its_old_alignment_and_the_new_data_needs() {
        // Member offsets 0x1000-aligned in the original (as BotW's table asks for some types).
        let mut s = build(&[("x.bin".into(), vec![1; 8]), ("y.bin".into(), vec![2; 8])], Endian::Big).unwrap();
        let (first, second) = if s.nodes[0].begin < s.nodes[1].begin { (0, 1) } else { (1, 0) };
        let data_offset = s.data_offset as usize;
        let second_at = round_up(data_offset + 8, 0x1000) - data_offset;
        let mut data = s.data.to_vec();
        data.truncate(8);
        data.resize(second_at, 0);
        data.extend_from_slice(&[2; 8]);
        s.nodes[second].begin = second_at as u32;
        s.nodes[second].end = (second_at + 8) as u32;
        s.data = Bytes::from(data);
        let r = replace_member(&s, first, &vec![9; 0x1800]).unwrap();
        assert_eq!((r.data_offset + r.nodes[second].begin) % 0x1000, 0);
        assert!(r.nodes[second].begin > 0x1800);
        assert_eq!(r.member(second).unwrap(), [2; 8]);
        // A BFRES asking for more than its slot had gets what it asks.
        let r = replace_member(&s, second, &fres(0x2000, 0x40)).unwrap();
        assert_eq!((r.data_offset + r.nodes[second].begin) % 0x2000, 0);
    }

    #[test]
    fn overlapping_members_are_found_and_reported() {
        let members: Vec<(String, Vec<u8>)> = (0..4).map(|i| (format!("m{i}"), vec![i as u8; 16])).collect();
        let mut s = build(&members, Endian::Big).unwrap();
        assert_eq!(s.overlaps(), (vec![], 0));
        assert!(crate::SARC.document(s.clone()).lint().iter().all(|f| f.code != "sarc-overlapping-members"));
        // Member 1 shares member 0's bytes exactly; member 3 starts inside member 2.
        s.nodes[1].begin = s.nodes[0].begin;
        s.nodes[1].end = s.nodes[0].end;
        s.nodes[3].begin = s.nodes[2].begin + 8;
        let (pairs, count) = s.overlaps();
        assert_eq!(count, 2);
        assert!(pairs.contains(&(0, 1)) || pairs.contains(&(1, 0)), "{pairs:?}");
        assert!(pairs.contains(&(2, 3)), "{pairs:?}");
        let lint = crate::SARC.document(s).lint();
        let finding = lint.iter().find(|f| f.code == "sarc-overlapping-members").unwrap();
        assert!(finding.message.starts_with("2 members share bytes"), "{}", finding.message);
    }

    #[test]
    fn overlapping_or_outlying_members_are_errors() {
        let mut s = build(&[("x".into(), vec![1; 8]), ("y".into(), vec![2; 8])], Endian::Big).unwrap();
        let mut shared = s.clone();
        shared.nodes[1].begin = shared.nodes[0].begin;
        shared.nodes[1].end = shared.nodes[0].end;
        let e = replace_member(&shared, 0, b"new").unwrap_err();
        assert!(e.to_string().contains("overlap"), "{e}");
        s.nodes[1].end = u32::MAX;
        let e = replace_member(&s, 0, b"new").unwrap_err();
        assert!(e.to_string().contains("outside"), "{e}");
        assert!(replace_member(&s, 7, b"new").is_err());
    }
}
