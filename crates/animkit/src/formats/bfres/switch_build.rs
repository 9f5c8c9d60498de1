//! Switch BFRES (0.8.0.0) files built from the model (`platform=switch`): the skeletal tracks
//! of every clip as an FSKA, encoded as the model writer encodes FSKA curves
//! ([`super::from_model`]), and its texture-index and shader-parameter tracks as an FMAA
//! ([`fmaa`]), laid out as the animation-only files of Super Mario Odyssey are:
//!
//! header (`0xD0`), the FSKA headers (`0x60` each, chained as blocks), the FMAA headers (`0x78`
//! each, outside the chain), the FSKA and FMAA dictionaries, the FSKA data one animation after
//! another ([`super::switch_write`]), the FMAA data likewise, the `_STR` string table (file
//! name, animation names, bone names, then the FMAAs' animation, material, parameter, sampler
//! and texture names, in that order of first use), then the `_RLT` relocation table listing
//! every non-null offset in section 0 (five sections, the four buffer sections empty).
//!
//! Not written: visibility, shape and scene animations and the skeleton (warnings say what is
//! left out, with counts).

use std::collections::BTreeSet;

use super::fmaa::{self, fmaa_data, fmaa_header, Fmaa};
use super::fres::SwitchFileHeader as FileHeader;
use super::fska::{fska_data, fska_header, Fska};
use super::layout::{write_dict, Out};
use super::platform::Platform;
use super::switch_write::{group, with_relocation, RelocSection, Relocation, StringTable};
use crate::bytes::{Endian, Writer};
use crate::error::{Error, Result};
use crate::format::WriteOptions;
use crate::model::{Package, Values};
use crate::record::Record;

/// The version written: 0.8.0.0, as in Splatoon 2 and Super Mario Odyssey.
pub const VERSION: u32 = 0x0008_0000;

/// The size of the file header.
const HEADER_SIZE: usize = 0xD0;

/// Builds a Switch file from the model; returns the bytes and warnings.
pub fn from_model(package: &Package, options: &WriteOptions) -> Result<(Vec<u8>, Vec<String>)> {
    let mut warnings = Vec::new();
    let why = "the Switch file holds animations only";
    let (mut fskas, mut fmaas) = (Vec::new(), Vec::new());
    for (clip, fps, fska) in super::from_model::clip_fskas(package, options, why, &mut warnings)? {
        fskas.extend(fska);
        fmaas.extend(fmaa::fmaa_from_clip(clip, fps, &mut warnings)?);
    }
    let tracks = package.clips.iter().flat_map(|c| &c.tracks);
    let left_out = tracks.filter(|t| matches!(t.values, Values::Visibility(_))).count();
    if left_out > 0 {
        warnings.push(format!(
            "{left_out} visibility track(s) not written: Switch files are written with skeletal and material animations only"
        ));
    }
    if fskas.is_empty() && fmaas.is_empty() {
        return Err(Error::unrepresentable(
            "no clip has bone, texture-pattern or shader-parameter tracks: a Switch file would hold nothing",
        ));
    }
    let name = if package.name.is_empty() { "animkit" } else { package.name.as_str() };
    Ok((build(name, &fskas, &fmaas)?, warnings))
}

/// Writes the `_STR` block of every name the file refers to, in order of first use (see the
/// module notes), resolves the names against it and pads to 8; returns the table and its end.
fn string_table(o: &mut Out, name: &str, fskas: &[Fska], fmaas: &[Fmaa]) -> Result<(StringTable, usize)> {
    let names = std::iter::once(name)
        .chain(fskas.iter().map(|f| f.name.as_str()))
        .chain(fskas.iter().flat_map(|f| f.bones.iter().map(|b| b.name.as_str())))
        .chain(fmaas.iter().flat_map(fmaa::names));
    let mut table = StringTable { at: o.pos(), strings: Vec::new() };
    let mut seen = std::collections::HashSet::new();
    for s in names {
        if s.len() > usize::from(u16::MAX) {
            return Err(Error::unrepresentable(format!("a name of {} bytes (at most 65535)", s.len())));
        }
        if !s.is_empty() && seen.insert(s) {
            table.strings.push(s.to_string());
        }
    }
    o.w.bytes(b"_STR");
    o.w.fill(0, 12); // next block (none), size (up to the `_RLT`, below), reserved
    o.w.bytes(&table.body());
    let end = o.pos();
    let positions = table.positions();
    o.resolve(|s| positions.get(s).copied())?;
    o.align();
    o.w.patch_u32(table.at + 8, (o.pos() - table.at) as u32);
    Ok((table, end))
}

/// Builds a Switch file holding `fskas` and `fmaas` (see the module notes for the layout).
pub fn build(name: &str, fskas: &[Fska], fmaas: &[Fmaa]) -> Result<Vec<u8>> {
    if fskas.len() > usize::from(u16::MAX) || fmaas.len() > usize::from(u16::MAX) {
        return Err(Error::unrepresentable("more than 65535 animations of one kind"));
    }
    let mut o = Out::new(0, Platform::SWITCH_0_8);
    o.w.fill(0, HEADER_SIZE);
    let mut fska_slots = Vec::with_capacity(fskas.len());
    for f in fskas {
        fska_slots.push((o.pos(), fska_header(&mut o, f)?));
    }
    let fmaa_headers = o.pos();
    let fmaa_slots = fmaas.iter().map(|f| fmaa_header(&mut o, f)).collect::<Result<Vec<_>>>()?;
    let fska_dict = dictionary(&mut o, fskas.iter().map(|f| f.name.as_str()))?;
    let fmaa_dict = dictionary(&mut o, fmaas.iter().map(|f| f.name.as_str()))?;
    for (f, (_, slots)) in fskas.iter().zip(&fska_slots) {
        let parts = fska_data(&mut o, f, &vec![0xFFFF; f.bones.len()])?;
        slots.link(&mut o, &parts);
    }
    for (f, slots) in fmaas.iter().zip(&fmaa_slots) {
        o.align();
        let layout = fmaa_data(&mut o, f)?;
        slots.link(&mut o, &layout);
    }
    o.align();
    let (table, str_end) = string_table(&mut o, name, fskas, fmaas)?;
    // The block chain: each FSKA header links to the next, the last to `_STR`.
    for (i, (h, _)) in fska_slots.iter().enumerate() {
        let next = (fska_slots.get(i + 1).map_or(table.at, |n| n.0) - h) as u32;
        o.w.patch_u32(h + 4, next);
        o.w.patch_u32(h + 8, next);
    }
    let first_block = if fskas.is_empty() { table.at } else { HEADER_SIZE };
    let first_block = u16::try_from(first_block).map_err(|_| {
        Error::unrepresentable("the first block (the string table) beyond 64 KiB: write a skeletal animation too")
    })?;
    let name_at = table.positions().get(name).copied().unwrap_or(0);
    let array = |n: usize, at: usize| if n > 0 { at as u64 } else { 0 };
    let header = FileHeader {
        magic: *super::fres::SWITCH_MAGIC,
        version: VERSION,
        bom: [0xFF, 0xFE],
        alignment_log2: 3,
        file_name: (name_at + 2) as u32,
        first_block,
        name: name_at as u64,
        skeletal_animations: [array(fskas.len(), HEADER_SIZE), array(fskas.len(), fska_dict)],
        material_animations: [array(fmaas.len(), fmaa_headers), array(fmaas.len(), fmaa_dict)],
        string_table: (table.at + 0x14) as u64,
        string_table_size: (str_end - table.at) as u32,
        counts: [0, fskas.len() as u16, fmaas.len() as u16, 0, 0, 0, 0],
        ..FileHeader::default()
    };
    let mut w = Writer::new(Endian::Little);
    header.write(&mut w);
    o.w.patch_bytes(0, &w.into_vec());
    let image = o.into_image();
    let mut offsets: BTreeSet<usize> = image.offsets().collect();
    // The name, the FSKA and FMAA arrays and dictionaries present, and the string table.
    offsets.extend([0x20, 0xB0]);
    offsets.extend(
        [(0x38, fskas.len()), (0x48, fmaas.len())].into_iter().filter(|g| g.1 > 0).flat_map(|g| [g.0, g.0 + 8]),
    );
    let sections = std::iter::once(RelocSection { pointer: 0, pos: 0, size: str_end as u32, entries: group(&offsets) })
        .chain((0..4).map(|_| RelocSection { pointer: 0, pos: str_end as u32, size: 0, entries: Vec::new() }))
        .collect();
    with_relocation(image.bytes, &Relocation { sections })
}

/// A dictionary of `names` at the output's position (nothing and 0 when there are none).
fn dictionary<'a>(o: &mut Out, names: impl Iterator<Item = &'a str>) -> Result<usize> {
    let names: Vec<&str> = names.collect();
    if names.is_empty() {
        return Ok(0);
    }
    let at = o.pos();
    write_dict(o, &names, &[])?;
    Ok(at)
}
