//! Switch BFRES (0.5 to 0.8) written and dumped: the relocation table (`_RLT`) and string
//! table (`_STR`) read into structures and written back, and the FSKA and FMAA data written again
//! in place by the writer both platforms share ([`super::build`]) as Nintendo's tools lay it out
//! (`switch_replace` replaces one animation, moving what follows).
//!
//! Facts this rests on (checked on the corpus's Splatoon 2 and Super Mario Odyssey files):
//! - Offsets are absolute `u64`; `_RLT` lists where every one of them is: sections
//!   `{u64 0; u32 pos; u32 size; u32 firstEntry; u32 entryCount}` (24 bytes) and entries
//!   `{u32 pos; u16 structCount; u8 offsetCount; u8 paddingWords}`: `structCount` runs of
//!   `offsetCount` consecutive offsets, `offsetCount + paddingWords` 8-byte words apart. The
//!   grouping differs between Nintendo's tools (Super Mario Odyssey lists null offsets inside a
//!   structure array, Splatoon 2 leaves them out and merges runs of unrelated structures), so it
//!   is kept as read and only the entries of rewritten data are grouped anew ([`group`]).
//! - `_STR`: `{magic; u32 next 0; u32 size up to _RLT; u32 0; u32 count}`, the empty string, then
//!   `count` entries `{u16 length; bytes; NUL}` padded to 2, in the order the tool met them (not
//!   sorted). Name offsets point at the length word. The table ends section 0.
//! - Blocks (`FMDL`, `FSKA`, `FMAT`, `FSKL`, `_STR`, …) open with `{magic; u32 next (relative);
//!   u32 size; u32 0}` and form a chain from the header's first-block field (`0x16`).
//! - FSKA data follows its header array, one animation after another: bind indices (`u16`,
//!   padded to 8), the BoneAnim array (`0x28` each), then per bone its base values and its curve
//!   array (`0x30` each), and per curve its frames and its keys. Each array and the base values
//!   start at a multiple of 8 (nothing pads the data's end); gaps are zeros.
//!
//! The dump (`SwitchDump`) names the header, both tables and every FSKA and FMAA; the bytes
//! they do not describe (models, visibility animations, GPU buffers, embedded files, the FSKA
//! headers' offsets) are runs of hexadecimal with their positions, zeros between them. `pack`
//! writes each part back where the dump says, so dump → pack gives the file byte for byte; an
//! edited FSKA must keep its size (to change sizes, replace the animation through the model:
//! [`super::SwitchDocument::with_clip`]). Files laid out as version 0.9 (or without a relocation
//! or string table) keep their header and animations in the runs.
use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::anims::{Kind, Listing};
use super::fmaa::{self, Fmaa};
use super::fres::{read_switch_header, SwitchFileHeader as FileHeader, SwitchHeader as Header, SWITCH_MAGIC};
use super::fska::{self, fska_data, fska_header, Fska};
use super::layout::{Image, Out};
use super::platform::Platform;
use crate::bytes::{round_up, Endian, Writer};
use crate::error::{Context, Error, Result};
use crate::raw_json::Hex;
use crate::record::Record;

crate::record! {
    /// One `_RLT` entry: `struct_count` runs of `offset_count` consecutive `u64` offsets starting
    /// at `pos`, the runs `offset_count + padding_words` 8-byte words apart.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RelocEntry {
        /// Absolute position of the first offset.
        pub pos: u32,
        /// Number of runs.
        pub struct_count: u16,
        /// Offsets per run.
        pub offset_count: u8,
        /// 8-byte words between the end of one run and the start of the next.
        pub padding_words: u8,
    }
}

impl RelocEntry {
    /// The absolute position of every offset the entry lists.
    pub fn positions(&self) -> impl Iterator<Item = usize> + '_ {
        let stride = (usize::from(self.offset_count) + usize::from(self.padding_words)) * 8;
        (0..usize::from(self.struct_count))
            .flat_map(move |s| (0..usize::from(self.offset_count)).map(move |k| self.pos as usize + s * stride + k * 8))
    }
}

/// One `_RLT` section: a memory region of the file and the entries whose offsets lie in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelocSection {
    /// The runtime pointer slot, 0 on disk.
    pub pointer: u64,
    /// Start of the region.
    pub pos: u32,
    /// Size of the region.
    pub size: u32,
    /// The section's entries, in file order.
    pub entries: Vec<RelocEntry>,
}

/// The relocation table: `_RLT`, its own position, the section count, `u32 0`, the sections,
/// then every section's entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Relocation {
    /// The table's sections.
    pub sections: Vec<RelocSection>,
}

/// Reads the `_RLT` at `at`.
pub fn read_relocation(data: &[u8], at: usize) -> Result<Relocation> {
    let mut c = Platform::SWITCH_0_8.cursor(data, at)?;
    if c.array::<4>()? != *b"_RLT" {
        return Err(Error::invalid(at, "no _RLT block where the header's relocation-table offset points"));
    }
    let _self_pos = c.u32()?;
    let n = c.u32()?;
    let count = c.count(u64::from(n), 24, "relocation section")?;
    c.skip(4)?;
    let entries_at = c.offset() + 24 * count;
    let mut sections = Vec::with_capacity(count);
    for i in 0..count {
        let (pointer, pos, size, first, n) = (c.u64()?, c.u32()?, c.u32()?, c.u32()?, c.u32()?);
        let mut e = Platform::SWITCH_0_8
            .cursor(data, entries_at + first as usize * 8)
            .within(|| format!("relocation section {i}"))?;
        let n = e.count(u64::from(n), 8, "relocation entry")?;
        let entries = (0..n).map(|_| RelocEntry::read(&mut e)).collect::<Result<_>>()?;
        sections.push(RelocSection { pointer, pos, size, entries });
    }
    Ok(Relocation { sections })
}

impl Relocation {
    /// The table's bytes when placed at `at` (the first-entry indices are the running sums).
    pub fn to_bytes(&self, at: usize) -> Vec<u8> {
        let mut w = Writer::new(Endian::Little);
        w.bytes(b"_RLT");
        [at as u32, self.sections.len() as u32, 0].into_iter().for_each(|v| w.u32(v));
        let mut first = 0u32;
        for s in &self.sections {
            w.u64(s.pointer);
            [s.pos, s.size, first, s.entries.len() as u32].into_iter().for_each(|v| w.u32(v));
            first += s.entries.len() as u32;
        }
        self.sections.iter().flat_map(|s| &s.entries).for_each(|e| e.write(&mut w));
        w.into_vec()
    }

    /// Every offset position the table lists.
    pub fn positions(&self) -> BTreeSet<usize> {
        self.sections.iter().flat_map(|s| &s.entries).flat_map(|e| e.positions()).collect()
    }
}

/// Groups offset positions into entries: a run of consecutive offsets, repeated while the next
/// runs have the same length at the same distance.
pub fn group(positions: &BTreeSet<usize>) -> Vec<RelocEntry> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &p in positions {
        match runs.last_mut() {
            Some((s, n)) if *s + 8 * *n == p && *n < 255 => *n += 1,
            _ => runs.push((p, 1)),
        }
    }
    let entry = |(pos, len, count, stride): (usize, usize, usize, usize)| RelocEntry {
        pos: pos as u32,
        struct_count: count as u16,
        offset_count: len as u8,
        padding_words: if count > 1 { (stride / 8 - len) as u8 } else { 0 },
    };
    let mut out = Vec::new();
    let mut current: Option<(usize, usize, usize, usize)> = None;
    for (p, n) in runs {
        if let Some((s, len, count, stride)) = current.as_mut() {
            let gap = p - *s;
            let fits = if *count == 1 { gap % 8 == 0 && gap / 8 - *len <= 255 } else { gap == *stride * *count };
            if n == *len && fits && *count < 0xFFFF {
                if *count == 1 {
                    *stride = gap;
                }
                *count += 1;
                continue;
            }
        }
        out.extend(current.replace((p, n, 1, 0)).map(entry));
    }
    out.extend(current.map(entry));
    out
}

/// The `_STR` block: the strings in stored order (the leading empty string not counted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StringTable {
    /// Position of the `_STR` magic.
    pub at: usize,
    /// The strings after the leading empty one.
    pub strings: Vec<String>,
}

/// Reads the `_STR` block at `at`.
pub fn read_strings(data: &[u8], at: usize) -> Result<StringTable> {
    let mut c = Platform::SWITCH_0_8.cursor(data, at)?;
    if c.array::<4>()? != *b"_STR" {
        return Err(Error::invalid(at, "not a _STR block"));
    }
    c.skip(12)?;
    let n = c.u32()?;
    let count = c.count(u64::from(n), 4, "string")?;
    let mut strings = Vec::with_capacity(count + 1);
    for i in 0..=count {
        let len = usize::from(c.u16()?);
        let bytes = c.take(len)?;
        let s = std::str::from_utf8(bytes)
            .map_err(|_| Error::invalid(c.offset() - len, format!("string {i} is not UTF-8")))?;
        strings.push(s.to_string());
        c.skip(if len % 2 == 0 { 2 } else { 1 })?;
    }
    if strings.first().is_some_and(|s| !s.is_empty()) {
        return Err(Error::invalid(at + 0x14, "the string table does not open with the empty string"));
    }
    strings.remove(0);
    Ok(StringTable { at, strings })
}

impl StringTable {
    /// The entries' bytes (from the count on), without the block header.
    pub fn body(&self) -> Vec<u8> {
        let mut out = (self.strings.len() as u32).to_le_bytes().to_vec();
        std::iter::once("").chain(self.strings.iter().map(String::as_str)).for_each(|s| push_entry(&mut out, s));
        out
    }

    /// Where the entries end (after the last one's padding). Super Mario Odyssey's count
    /// includes the leading empty string (Splatoon 2's does not), so its last entry read is an
    /// empty one in the zeros after the table: that one is not counted.
    pub fn end(&self) -> usize {
        let uncounted = if self.strings.last().is_some_and(String::is_empty) { 4 } else { 0 };
        self.at + 0x10 + self.body().len() - uncounted
    }

    /// Where each string's length word lies.
    pub fn positions(&self) -> HashMap<&str, usize> {
        let mut at = self.at + 0x14;
        let mut out = HashMap::new();
        for s in std::iter::once("").chain(self.strings.iter().map(String::as_str)) {
            out.entry(s).or_insert(at);
            at += round_up(2 + s.len() + 1, 2);
        }
        out
    }
}

/// Appends a string table entry: `u16` length, the bytes, NUL, padded to 2 (from an even length).
pub(crate) fn push_entry(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u16).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    out.resize(round_up(out.len() + 1, 2), 0);
}

/// The blocks of the chain starting at the header's first-block field: `(position, magic)`.
pub fn blocks(data: &[u8]) -> Result<Vec<(usize, [u8; 4])>> {
    let mut c = Platform::SWITCH_0_8.cursor(data, 0x16)?;
    let mut at = usize::from(c.u16()?);
    let mut out = Vec::new();
    loop {
        c.seek(at).within(|| "block chain")?;
        let magic = c.array::<4>()?;
        let next = c.u32()? as usize;
        out.push((at, magic));
        if next == 0 {
            return Ok(out);
        }
        if out.len() > data.len() / 16 {
            return Err(Error::invalid(at + 4, "the block chain loops"));
        }
        at += next;
    }
}

/// The FSKA whose header is at `header` with where its data lies and its bind indices; FSKAs
/// with user data are refused (their user data is not read on Switch).
fn fska_entry(data: &[u8], header: usize, anim: Fska) -> Result<FskaEntry> {
    let mut c = Platform::SWITCH_0_8.cursor(data, header + 0x28)?;
    let bind_at = Platform::SWITCH_0_8.offset(&mut c, "bind indices")?;
    let bones_at = Platform::SWITCH_0_8.offset(&mut c, "bone animations")?;
    let user_at = Platform::SWITCH_0_8.offset(&mut c, "user data")?;
    let (Some(bind_at), Some(bones_at)) = (bind_at, bones_at) else {
        return Err(Error::unsupported("replacing an FSKA without bind indices or bone animations"));
    };
    if anim.user_data_count > 0 || user_at.is_some_and(|u| u < bones_at) {
        return Err(Error::unsupported("replacing an FSKA that carries user data"));
    }
    let mut b = Platform::SWITCH_0_8.cursor(data, bind_at)?;
    let bind = (0..anim.bones.len()).map(|_| b.u16()).collect::<Result<Vec<_>>>()?;
    Ok(FskaEntry { header_at: header, data_at: bind_at, bind, animation: anim })
}

/// Writes an FSKA's data (bind indices, bone animations, base values, curves) from `start`
/// (nothing pads its end); names are offsets into `strings` (left null without, to measure).
/// Returns the image and the bone array's position.
pub(crate) fn write_fska_data(
    anim: &Fska,
    bind: &[u16],
    start: usize,
    strings: Option<&HashMap<&str, usize>>,
) -> Result<(Image, usize)> {
    let mut o = Out::new(start, Platform::SWITCH_0_8);
    let parts = fska_data(&mut o, anim, bind)?;
    if o.pos() > u32::MAX as usize {
        return Err(Error::unrepresentable("Switch FSKA data beyond 4 GiB"));
    }
    strings.map_or(Ok(()), |strings| o.resolve(|s| strings.get(s).copied()))?;
    Ok((o.into_image(), parts.bones))
}

/// One skeletal animation: where its header (whose offsets are left as read) and its data (bind
/// indices first) lie, its bind indices (`0xFFFF` = unbound) and its contents.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FskaEntry {
    pub header_at: usize,
    pub data_at: usize,
    pub bind: Vec<u16>,
    pub animation: Fska,
}

/// One material animation: where its header and its data (bind indices first) lie, and its
/// contents.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FmaaEntry {
    pub header_at: usize,
    pub data_at: usize,
    pub animation: Fmaa,
}

/// A Switch file taken apart for writing: header, `_RLT`, `_STR`, FSKAs, and per FMAA its
/// header's position and contents.
pub(crate) struct Parts {
    pub header: Header,
    pub relocation: Relocation,
    pub strings: StringTable,
    pub fskas: Vec<FskaEntry>,
    pub fmaas: Vec<(usize, Fmaa)>,
}

/// Takes a Switch file (0.5 to 0.8) apart for writing.
pub(crate) fn parts(data: &[u8]) -> Result<Parts> {
    let header = read_switch_header(data)?;
    if header.major() >= 9 {
        return Err(Error::unsupported(format!(
            "writing Switch BFRES 0.{}: only 0.5 to 0.8 are written",
            header.major()
        )));
    }
    let relocation = read_relocation(data, header.stored.relocation_table as usize).within(|| "_RLT")?;
    let str_at = blocks(data)?
        .into_iter()
        .find(|(_, m)| m == b"_STR")
        .ok_or_else(|| Error::invalid(0x16, "no _STR block in the block chain"))?
        .0;
    let strings = read_strings(data, str_at).within(|| "_STR")?;
    let fskas = read_fskas(data, &header)?;
    let fmaas = read_fmaas(data, &header)?;
    Ok(Parts { header, relocation, strings, fskas, fmaas })
}

/// Every skeletal animation of the file, with where its data lies.
pub(crate) fn read_fskas(data: &[u8], header: &Header) -> Result<Vec<FskaEntry>> {
    let listing = Listing::Switch(header);
    let mut fskas = Vec::new();
    for (label, at) in listing.subfiles(data, Kind::Skeletal)? {
        let anim = fska::read(data, at, listing.platform()).within(|| label.to_string())?;
        let name = anim.name.clone();
        fskas.push(fska_entry(data, at, anim).within(|| format!("skeletal animation \"{name}\""))?);
    }
    Ok(fskas)
}

/// Every material animation of the file: header position and contents.
pub(crate) fn read_fmaas(data: &[u8], header: &Header) -> Result<Vec<(usize, Fmaa)>> {
    let listing = Listing::Switch(header);
    let list = listing.subfiles(data, Kind::Material)?.into_iter();
    list.map(|(label, at)| Ok((at, fmaa::read(data, at, listing.platform()).within(|| label.to_string())?))).collect()
}

/// Every material animation with where its data lies (for writing it again).
fn fmaa_entries(data: &[u8], fmaas: Vec<(usize, Fmaa)>) -> Result<Vec<FmaaEntry>> {
    let list = fmaas.into_iter().enumerate();
    list.map(|(i, (header_at, animation))| {
        let data_at = fmaa_start(data, header_at).within(|| format!("material animation {i}"))?;
        Ok(FmaaEntry { header_at, data_at, animation })
    })
    .collect()
}

/// Writes an unchanged Switch file from its parts (`write_over`, after `parts` has checked
/// that the file can be written); the rest (models, visibility animations, buffers, embedded
/// files) is kept as read.
pub fn rewrite(data: &[u8]) -> Result<Vec<u8>> {
    let rlt_at = parts(data)?.header.stored.relocation_table as usize;
    let mut out = data.get(..rlt_at).ok_or_else(|| Error::invalid(0x18, "_RLT offset beyond the file"))?.to_vec();
    write_over(&mut out, &structured(data)?)?;
    Ok(out)
}

/// Writes over `out` the parts `d` names (each absent where the file or its dump has none): the
/// header; the `_STR` block's head (its size runs to the `_RLT`, or to `out`'s end without one)
/// and entries, and with them the animations ([`write_animations`]); then the relocation table
/// where it lies (`out` grows to hold it).
fn write_over(out: &mut Vec<u8>, d: &SwitchDump) -> Result<()> {
    let relocation = d.relocation_table.as_ref();
    if let Some(h) = &d.header {
        let mut w = Writer::new(Endian::Little);
        h.write(&mut w);
        overwrite(out, 0, &w.into_vec(), "FRES header")?;
    }
    if let Some(strings) = &d.string_table {
        let rlt = relocation.map_or(out.len(), |r| r.0);
        let mut w = Writer::new(Endian::Little);
        w.bytes(b"_STR");
        [0, rlt.saturating_sub(strings.at) as u32, 0].into_iter().for_each(|v| w.u32(v));
        w.bytes(&strings.body());
        overwrite(out, strings.at, &w.into_vec(), "_STR")?;
        write_animations(out, &strings.positions(), &d.skeletal_animations, &d.material_animations)?;
    }
    if let Some(&(at, ref r)) = relocation {
        let bytes = r.to_bytes(at);
        out.resize(out.len().max(at + bytes.len()), 0);
        overwrite(out, at, &bytes, "_RLT")?;
    }
    Ok(())
}

/// Writes over `out` each FSKA's data and header fields ([`write_fska_header`]), and each
/// FMAA's data and header but for the user-data offset, kept as `out` holds it (Splatoon 2
/// points it past an FMAA's material array with no entries, Super Mario Odyssey leaves it
/// null); names are the string table's positions.
fn write_animations(
    out: &mut [u8],
    names: &HashMap<&str, usize>,
    fskas: &[FskaEntry],
    fmaas: &[FmaaEntry],
) -> Result<()> {
    for (i, e) in fskas.iter().enumerate() {
        let (img, _) = write_fska_data(&e.animation, &e.bind, e.data_at, Some(names))
            .within(|| format!("skeletal animation {i}"))?;
        overwrite(out, img.start, &img.bytes, "FSKA data")?;
        write_fska_header(out, e.header_at, &e.animation)?;
    }
    for (i, e) in fmaas.iter().enumerate() {
        let (img, layout) =
            fmaa::write_data(&e.animation, e.data_at, Some(names)).within(|| format!("material animation {i}"))?;
        let mut header = fmaa::write_header(&e.animation, e.header_at, &layout, names)?;
        let user_data = e.header_at + 0x48..e.header_at + 0x50;
        if let (Some(kept), Some(slot)) = (out.get(user_data), header.bytes.get_mut(0x48..0x50)) {
            slot.copy_from_slice(kept);
        }
        overwrite(out, img.start, &img.bytes, "FMAA data")?;
        overwrite(out, header.start, &header.bytes, "FMAA header")?;
    }
    Ok(())
}

/// `out` with the relocation table appended and the header's table offset and file size set.
pub(crate) fn with_relocation(mut out: Vec<u8>, relocation: &Relocation) -> Result<Vec<u8>> {
    let at = out.len();
    out.extend_from_slice(&relocation.to_bytes(at));
    let size = out.len() as u32;
    put_u32(&mut out, 0x18, at as u32)?;
    put_u32(&mut out, 0x1C, size)?;
    Ok(out)
}

/// Writes `bytes` over `out` at `at`.
pub(crate) fn overwrite(out: &mut [u8], at: usize, bytes: &[u8], what: &str) -> Result<()> {
    let slot =
        out.get_mut(at..at + bytes.len()).ok_or_else(|| Error::invalid(at, format!("{what} beyond the file")))?;
    slot.copy_from_slice(bytes);
    Ok(())
}

/// The little-endian value at `at`.
pub(crate) fn get<T: Record>(buf: &[u8], at: usize) -> Result<T> {
    let mut c = Platform::SWITCH_0_8.cursor(buf, at)?;
    T::read(&mut c)
}

/// Where the data of the FMAA whose header is at `at` starts (its bind indices).
pub(crate) fn fmaa_start(data: &[u8], at: usize) -> Result<usize> {
    let mut c = Platform::SWITCH_0_8.cursor(data, at + 0x28)?;
    Platform::SWITCH_0_8
        .offset(&mut c, "bind indices")?
        .ok_or_else(|| Error::unsupported("writing an FMAA without bind indices"))
}

/// Overwrites the little-endian `u32` at `at`.
pub(crate) fn put_u32(buf: &mut [u8], at: usize, v: u32) -> Result<()> {
    overwrite(buf, at, &v.to_le_bytes(), "field")
}

/// The FSKA header's own fields (`0x48..0x5C`: flags, frame count, curve count, baked size,
/// bone and user-data counts) written over the header at `at`, as [`fska_header`] writes
/// them; its offsets are left as they are.
pub(crate) fn write_fska_header(work: &mut [u8], at: usize, anim: &Fska) -> Result<()> {
    let mut o = Out::new(at, Platform::SWITCH_0_8);
    fska_header(&mut o, anim)?;
    let header = o.into_vec();
    let fields = header.get(0x48..0x5C).ok_or_else(|| Error::invalid(at, "FSKA header beyond the file"))?;
    overwrite(work, at + 0x48, fields, "FSKA header")
}

/// Bytes at an absolute position.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Run {
    pub at: usize,
    pub bytes: Hex,
}

/// The dump of a Switch BFRES (see the module notes).
#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SwitchDump {
    /// Always `switch`.
    pub platform: String,
    pub size: usize,
    /// Versions 0.5 to 0.8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<FileHeader>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub string_table: Option<StringTable>,
    /// The `_RLT`'s position and contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relocation_table: Option<(usize, Relocation)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skeletal_animations: Vec<FskaEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub material_animations: Vec<FmaaEntry>,
    /// Everything else, as runs of bytes.
    pub other: Vec<Run>,
}

/// The structured parts of `data` this dump can name (each absent where the file lacks it).
fn structured(data: &[u8]) -> Result<SwitchDump> {
    let header = read_switch_header(data)?;
    let mut dump = SwitchDump { platform: "switch".into(), size: data.len(), ..SwitchDump::default() };
    if header.major() >= 9 {
        return Ok(dump);
    }
    dump.header = Some(header.stored.clone());
    let rlt = header.stored.relocation_table as usize;
    if data.get(rlt..rlt + 4) == Some(b"_RLT") {
        dump.relocation_table = Some((rlt, read_relocation(data, rlt)?));
    }
    let str_at = blocks(data).ok().and_then(|b| b.into_iter().find(|(_, m)| m == b"_STR"));
    let Some((str_at, _)) = str_at else { return Ok(dump) };
    dump.string_table = Some(read_strings(data, str_at)?);
    dump.skeletal_animations = read_fskas(data, &header)?;
    dump.material_animations = fmaa_entries(data, read_fmaas(data, &header)?)?;
    Ok(dump)
}

/// The dump of a Switch file.
pub(crate) fn to_dump(data: &[u8]) -> Result<SwitchDump> {
    let mut dump = structured(data)?;
    let mut covered = vec![0; data.len()];
    write_over(&mut covered, &dump)?;
    // Bytes the parts do not reproduce, as runs split at 16 or more zeros.
    let mut at = 0;
    while at < data.len() {
        let differs = |i: usize| data.get(i) != covered.get(i);
        let Some(start) = (at..data.len()).find(|&i| differs(i)) else { break };
        let mut end = start + 1;
        while end < data.len() && (end..(end + 16).min(data.len())).any(differs) {
            end += 1;
        }
        dump.other.push(Run { at: start, bytes: Hex(data.get(start..end).unwrap_or_default().to_vec()) });
        at = end;
    }
    Ok(dump)
}

/// Rebuilds the file from its dump: the runs, then every named part over them.
pub(crate) fn from_dump(d: &SwitchDump) -> Result<Vec<u8>> {
    if d.platform != "switch" {
        return Err(Error::invalid(0, format!("platform \"{}\" is not switch", d.platform)));
    }
    let mut out = vec![0u8; d.size];
    for run in &d.other {
        let slot = out.get_mut(run.at..run.at + run.bytes.0.len()).ok_or_else(|| {
            Error::invalid(run.at, format!("a run of {} bytes past the size {}", run.bytes.0.len(), d.size))
        })?;
        slot.copy_from_slice(&run.bytes.0);
    }
    write_over(&mut out, d)?;
    if out.len() != d.size || out.get(..8) != Some(SWITCH_MAGIC) {
        return Err(Error::invalid(0, format!("the parts give {} bytes where the dump says {}", out.len(), d.size)));
    }
    Ok(out)
}
