//! SARC archives (spec `shared/formats/bfres.md` §13): `SARC` header, `SFAT` node table,
//! `SFNT` name table, then member data.
//!
//! The raw layer keeps every header field, every node as stored, the name table bytes (with
//! their padding) and the whole data region, so an archive writes back byte for byte. [`build`]
//! writes a new archive from members: nodes sorted by name hash, names padded to 4, each member
//! aligned to its own requirement (for a Wii U BFRES at least the alignment at its `0x10`).

use std::any::Any;

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::bytes::{round_up, Cursor, Endian, Writer};
use crate::error::{Context, Error, ErrorKind, Result};
use crate::formats::{Capabilities, Confidence, Document, Entry, Format, ReadOptions, WriteOptions, Written};
use crate::lint::{Finding, Repaired, Severity};
use crate::model::Package;
use crate::raw_json::Hex;

/// One SFAT node as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    pub hash: u32,
    /// `0x01000000 | name_offset / 4` (the high byte may count collisions); 0 when unnamed.
    pub attr: u32,
    /// Relative to the data offset.
    pub begin: u32,
    pub end: u32,
}

/// A whole SARC archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sarc {
    pub endian: Endian,
    pub header_size: u16,
    pub file_size: u32,
    pub data_offset: u32,
    pub version: u16,
    pub reserved: u16,
    pub sfat_header_size: u16,
    pub hash_key: u32,
    pub nodes: Vec<Node>,
    pub sfnt_header_size: u16,
    pub sfnt_reserved: u16,
    /// From the end of the SFNT header to the data offset: names, padding.
    pub names: Hex,
    /// From the data offset to the end of the file.
    pub data: Hex,
}

/// The name hash: `h = h·key + byte` (bytes as signed chars, like oead).
pub fn hash(name: &[u8], key: u32) -> u32 {
    name.iter().fold(0u32, |h, &b| h.wrapping_mul(key).wrapping_add(b as i8 as i32 as u32))
}

/// Parses an archive.
pub fn read(data: &[u8]) -> Result<Sarc> {
    if data.get(..4) != Some(b"SARC") {
        return Err(Error::invalid(0, "not a SARC archive"));
    }
    let endian = match data.get(6..8) {
        Some([0xFE, 0xFF]) => Endian::Big,
        Some([0xFF, 0xFE]) => Endian::Little,
        Some(_) => return Err(Error::invalid(6, "bad byte-order mark")),
        None => return Err(Error::truncated(6, 2, data.len().saturating_sub(6))),
    };
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
    let n = c.count(u64::from(count), 16, "SFAT node")?;
    let mut nodes = Vec::with_capacity(n);
    for i in 0..n {
        nodes.push(
            (|| Ok(Node { hash: c.u32()?, attr: c.u32()?, begin: c.u32()?, end: c.u32()? }))()
                .within(|| format!("SFAT node {i}"))?,
        );
    }
    let sfnt_at = c.offset();
    if c.array::<4>()? != *b"SFNT" {
        return Err(Error::invalid(sfnt_at, "missing SFNT"));
    }
    let sfnt_header_size = c.u16()?;
    let sfnt_reserved = c.u16()?;
    skip_padding(&mut c, usize::from(sfnt_header_size).saturating_sub(8), "SFNT header")?;
    let names_at = c.offset();
    let data_at = data_offset as usize;
    if data_at < names_at || data_at > data.len() {
        return Err(Error::invalid(
            12,
            format!("data offset {data_offset:#x} outside {names_at:#x}..{:#x}", data.len()),
        ));
    }
    if (file_size as usize) > data.len() {
        return Err(Error::truncated(data.len(), file_size as usize - data.len(), 0).within("SARC"));
    }
    let region = data.len() - data_at;
    for (i, node) in nodes.iter().enumerate() {
        if node.begin > node.end || node.end as usize > region {
            return Err(Error::invalid(
                sfat_at + 0x0C + 16 * i,
                format!("member {i} spans {:#x}..{:#x}, outside the {region}-byte data region", node.begin, node.end),
            ));
        }
    }
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
        data: Hex(data.get(data_at..).unwrap_or_default().to_vec()),
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
    w.bytes(&s.data.0);
    w.into_vec()
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
        self.data.0.get(n.begin as usize..n.end as usize)
    }
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
pub const MAX_MEMBER_ALIGNMENT: usize = 1 << 16;

/// The alignment a member needs: 4, or more for a BFRES (its `u32` at `0x10`, at most
/// [`MAX_MEMBER_ALIGNMENT`]) or a nested SARC or Yaz0 (8).
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
        data: Hex(data),
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

/// The SARC archive format.
pub struct SarcFormat;

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

    fn read(&self, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
        Ok(Box::new(SarcDocument { sarc: read(&bytes)?, options: options.clone() }))
    }

    fn from_model(&self, _package: &Package, _options: &WriteOptions) -> Result<Written> {
        Err(Error::unsupported("sarc is a container: write the members, then build the archive"))
    }

    fn undump(&self, value: serde_json::Value) -> Result<Box<dyn Document>> {
        let sarc: Sarc = serde_json::from_value(value)
            .map_err(|e| Error::new(ErrorKind::Invalid, None, e.to_string()).within("SARC dump"))?;
        Ok(Box::new(SarcDocument { sarc, options: ReadOptions::default() }))
    }
}

/// A parsed SARC archive.
pub struct SarcDocument {
    pub sarc: Sarc,
    options: ReadOptions,
}

impl SarcDocument {
    pub fn new(sarc: Sarc) -> Self {
        SarcDocument { sarc, options: ReadOptions::default() }
    }
}

impl Document for SarcDocument {
    fn format(&self) -> &'static dyn Format {
        &SarcFormat
    }

    fn version(&self) -> String {
        let e = if self.sarc.endian == Endian::Big { "big-endian" } else { "little-endian" };
        format!("SARC {:#06x} {e}", self.sarc.version)
    }

    fn write(&self) -> Result<Vec<u8>> {
        Ok(write(&self.sarc))
    }

    /// Every member that animkit can read, merged: clips in member order, the first skeleton.
    fn to_model(&self) -> Result<Package> {
        let mut package = Package::default();
        for i in 0..self.sarc.nodes.len() {
            let Some(bytes) = self.sarc.member(i) else {
                continue;
            };
            let name = self.sarc.name(i).unwrap_or_else(|| format!("member {i}"));
            let Ok(doc) = crate::read(Bytes::copy_from_slice(bytes), None, &self.options) else {
                continue;
            };
            let p = doc.to_model().map_err(|e| e.within(format!("SARC member {name}")))?;
            package.clips.extend(p.clips);
            if package.skeleton.is_none() {
                package.skeleton = p.skeleton;
            }
        }
        Ok(package)
    }

    fn dump(&self) -> Result<serde_json::Value> {
        serde_json::to_value(&self.sarc).map_err(|e| Error::new(ErrorKind::Invalid, None, e.to_string()))
    }

    fn lint(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        let s = &self.sarc;
        let total = write(s).len();
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
            document: Box::new(SarcDocument::new(sarc)),
            changes: vec!["rebuilt the archive canonically".into()],
        })
    }

    fn notes(&self) -> Vec<String> {
        vec![format!("{} members", self.sarc.nodes.len())]
    }

    fn entries(&self) -> Result<Vec<Entry>> {
        Ok((0..self.sarc.nodes.len())
            .map(|i| {
                let data = self.sarc.member(i).unwrap_or_default();
                let kind = data.get(..4).map(|m| String::from_utf8_lossy(m).into_owned()).unwrap_or_default();
                Entry {
                    name: self.sarc.name(i).unwrap_or_else(|| format!("member_{i}")),
                    kind,
                    data: Bytes::copy_from_slice(data),
                }
            })
            .collect())
    }

    fn as_any(&self) -> &dyn Any {
        self
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
        let back = read(&bytes).unwrap();
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
        let doc = SarcDocument::new(back);
        assert!(doc.lint().is_empty(), "{:?}", doc.lint());
        // Truncation is an error.
        for cut in 0..bytes.len() {
            assert!(read(&bytes[..cut]).is_err(), "cut {cut}");
        }
    }
}
