//! Switch BFRES (0.8.0.0) files built from the model (`platform=switch`): the skeletal tracks
//! of every clip as an FSKA, encoded as the model writer encodes FSKA curves
//! ([`super::from_model`]), and its texture-index and shader-parameter tracks as an FMAA
//! (`switch_fmaa`), laid out as the animation-only files of Super Mario Odyssey are:
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

use std::collections::{BTreeSet, HashMap};

use super::fmaa::Fmaa;
use super::fres::SwitchFileHeader as FileHeader;
use super::fska::Fska;
use super::switch_write::{dict_bytes, group, write_fska_data, write_fska_header, RelocSection, Relocation};
use crate::bytes::{round_up, Endian, Writer};
use crate::error::{Error, Result};
use crate::format::WriteOptions;
use crate::model::{Package, Values};
use crate::record::Record;

/// The version written: 0.8.0.0, as in Splatoon 2 and Super Mario Odyssey.
pub const VERSION: u32 = 0x0008_0000;

/// Builds a Switch file from the model; returns the bytes and warnings.
pub fn from_model(package: &Package, options: &WriteOptions) -> Result<(Vec<u8>, Vec<String>)> {
    let rotation = super::from_model::rotation_setting(options)?;
    let mut warnings = Vec::new();
    if let Some(skeleton) = &package.skeleton {
        warnings.push(format!(
            "skeleton ({} bones) not written: the Switch file holds animations only",
            skeleton.bones.len()
        ));
    }
    let (mut fskas, mut fmaas) = (Vec::new(), Vec::new());
    let mut left_out = 0usize;
    for clip in &package.clips {
        super::from_model::check_tracks(clip)?;
        let fps = super::from_model::clip_fps(clip, options)?;
        left_out += clip.tracks.iter().filter(|t| matches!(t.values, Values::Visibility(_))).count();
        let euler = super::from_model::rotation_mode(clip, fps, rotation)?;
        fskas.extend(super::from_model::fska_from_clip(clip, fps, euler)?);
        fmaas.extend(super::switch_fmaa::fmaa_from_clip(clip, fps, &mut warnings)?);
    }
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

/// Where the parts of a built file lie.
struct Plan {
    /// The FMAA header array and the two dictionaries.
    fmaa_headers: usize,
    fska_dict: usize,
    fmaa_dict: usize,
    fska_data: Vec<usize>,
    fmaa_data: Vec<usize>,
    str_at: usize,
    /// Each string's length-word position.
    names: HashMap<String, usize>,
    str_end: usize,
    rlt: usize,
}

/// The size of a dictionary of `n` entries (0 for none).
fn dict_size(n: usize) -> usize {
    if n == 0 {
        0
    } else {
        8 + 16 * (n + 1)
    }
}

/// Every name the file refers to, in order of first use (see the module notes).
fn string_list(name: &str, fskas: &[Fska], fmaas: &[Fmaa]) -> Vec<String> {
    let names = std::iter::once(name)
        .chain(fskas.iter().map(|f| f.name.as_str()))
        .chain(fskas.iter().flat_map(|f| f.bones.iter().map(|b| b.name.as_str())))
        .chain(fmaas.iter().flat_map(super::switch_fmaa::names));
    let mut strings: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for s in names {
        if !s.is_empty() && seen.insert(s) {
            strings.push(s.to_string());
        }
    }
    strings
}

fn plan(name: &str, fskas: &[Fska], fmaas: &[Fmaa]) -> Result<(Plan, Vec<String>)> {
    let fmaa_headers = 0xD0 + 0x60 * fskas.len();
    let fska_dict = fmaa_headers + super::switch_fmaa::HEADER_SIZE * fmaas.len();
    let fmaa_dict = fska_dict + dict_size(fskas.len());
    let mut at = fmaa_dict + dict_size(fmaas.len());
    let mut fska_data = Vec::with_capacity(fskas.len());
    for f in fskas {
        fska_data.push(at);
        at = super::switch_write::fska_data_end(f, at)?;
    }
    let mut fmaa_data = Vec::with_capacity(fmaas.len());
    for f in fmaas {
        at = round_up(at, 8);
        fmaa_data.push(at);
        at = super::switch_fmaa::lay_out(f, at)?.end;
    }
    let str_at = round_up(at, 8);
    let strings = string_list(name, fskas, fmaas);
    let mut pos = HashMap::new();
    let mut p = str_at + 0x14;
    for s in std::iter::once("").chain(strings.iter().map(String::as_str)) {
        if s.len() > usize::from(u16::MAX) {
            return Err(Error::unrepresentable(format!("a name of {} bytes (at most 65535)", s.len())));
        }
        pos.insert(s.to_string(), p);
        p += round_up(2 + s.len() + 1, 2);
    }
    let plan = Plan {
        fmaa_headers,
        fska_dict,
        fmaa_dict,
        fska_data,
        fmaa_data,
        str_at,
        names: pos,
        str_end: p,
        rlt: round_up(p, 8),
    };
    Ok((plan, strings))
}

/// Builds a Switch file holding `fskas` and `fmaas` (see the module notes for the layout).
pub fn build(name: &str, fskas: &[Fska], fmaas: &[Fmaa]) -> Result<Vec<u8>> {
    if fskas.len() > usize::from(u16::MAX) || fmaas.len() > usize::from(u16::MAX) {
        return Err(Error::unrepresentable("more than 65535 animations of one kind"));
    }
    let (plan, strings) = plan(name, fskas, fmaas)?;
    let mut out = vec![0u8; plan.rlt];
    let mut offsets = BTreeSet::new();
    write_fskas(&mut out, &mut offsets, &plan, fskas)?;
    write_fmaas(&mut out, &mut offsets, &plan, fmaas)?;
    let name_at = |s: &str| plan.names.get(s).copied().unwrap_or(0);
    for (dict, names) in [
        (plan.fska_dict, fskas.iter().map(|f| f.name.as_str()).collect::<Vec<_>>()),
        (plan.fmaa_dict, fmaas.iter().map(|f| f.name.as_str()).collect()),
    ] {
        if names.is_empty() {
            continue;
        }
        let entries: Vec<(&str, usize)> = names.iter().map(|&n| (n, name_at(n))).collect();
        put(&mut out, dict, &dict_bytes(&entries, name_at(""))?.0);
        offsets.extend((0..=names.len()).map(|k| dict + 8 + 16 * k + 8));
    }
    write_strings(&mut out, &plan, &strings);
    let header = file_header(name_at(name), &plan, fskas.len() as u16, fmaas.len() as u16)?;
    let mut w = Writer::new(Endian::Little);
    header.write(&mut w);
    put(&mut out, 0, &w.into_vec());
    // The name, the FSKA and FMAA arrays and dictionaries present, and the string table.
    offsets.extend([0x20, 0xB0]);
    offsets.extend(
        [(0x38, fskas.len()), (0x48, fmaas.len())].into_iter().filter(|g| g.1 > 0).flat_map(|g| [g.0, g.0 + 8]),
    );
    let sections =
        std::iter::once(RelocSection { pointer: 0, pos: 0, size: plan.str_end as u32, entries: group(&offsets) })
            .chain((0..4).map(|_| RelocSection { pointer: 0, pos: plan.str_end as u32, size: 0, entries: Vec::new() }))
            .collect();
    out.extend_from_slice(&Relocation { sections }.to_bytes(plan.rlt));
    let size = out.len() as u32;
    put(&mut out, 0x1C, &size.to_le_bytes());
    Ok(out)
}

/// The FSKA headers (chained as blocks, the last one linking to `_STR`) and data.
fn write_fskas(out: &mut [u8], offsets: &mut BTreeSet<usize>, plan: &Plan, fskas: &[Fska]) -> Result<()> {
    let name_at = |s: &str| plan.names.get(s).copied().unwrap_or(0);
    let refs: HashMap<&str, usize> = plan.names.iter().map(|(k, &v)| (k.as_str(), v)).collect();
    for (i, (f, &data_at)) in fskas.iter().zip(&plan.fska_data).enumerate() {
        let h = 0xD0 + 0x60 * i;
        let next = if i + 1 < fskas.len() { 0x60 } else { plan.str_at - h };
        put(out, h, b"FSKA");
        put(out, h + 4, &(next as u32).to_le_bytes());
        put(out, h + 8, &(next as u32).to_le_bytes());
        let bind = vec![0xFFFF; f.bones.len()];
        let (img, bones) = write_fska_data(f, &bind, data_at, &refs)?;
        put(out, data_at, &img.bytes);
        offsets.extend(img.offsets());
        offset(out, offsets, h + 0x10, name_at(&f.name));
        offset(out, offsets, h + 0x18, name_at(""));
        offset(out, offsets, h + 0x28, data_at);
        offset(out, offsets, h + 0x30, bones);
        write_fska_header(out, h, f)?;
    }
    Ok(())
}

/// The FMAA headers and data.
fn write_fmaas(out: &mut [u8], offsets: &mut BTreeSet<usize>, plan: &Plan, fmaas: &[Fmaa]) -> Result<()> {
    let refs: HashMap<&str, usize> = plan.names.iter().map(|(k, &v)| (k.as_str(), v)).collect();
    for (i, (f, &data_at)) in fmaas.iter().zip(&plan.fmaa_data).enumerate() {
        let h = plan.fmaa_headers + super::switch_fmaa::HEADER_SIZE * i;
        let (img, layout) = super::switch_fmaa::write_data(f, data_at, &refs)?;
        let header = super::switch_fmaa::write_header(f, h, data_at, &layout, &refs)?;
        for part in [img, header] {
            put(out, part.start, &part.bytes);
            offsets.extend(part.offsets());
        }
    }
    Ok(())
}

fn put(out: &mut [u8], at: usize, b: &[u8]) {
    if let Some(slot) = out.get_mut(at..at + b.len()) {
        slot.copy_from_slice(b);
    }
}

/// Writes an offset, listing it for the relocation table when not null.
fn offset(out: &mut [u8], offsets: &mut BTreeSet<usize>, at: usize, target: usize) {
    put(out, at, &(target as u64).to_le_bytes());
    if target != 0 {
        offsets.insert(at);
    }
}

/// The `_STR` block: header, the empty string, then `strings`.
fn write_strings(out: &mut [u8], plan: &Plan, strings: &[String]) {
    let mut w = Writer::new(Endian::Little);
    w.bytes(b"_STR");
    w.u32(0);
    w.u32((plan.rlt - plan.str_at) as u32);
    w.u32(0);
    w.u32(strings.len() as u32);
    for s in std::iter::once("").chain(strings.iter().map(String::as_str)) {
        w.u16(s.len() as u16);
        w.bytes(s.as_bytes());
        w.u8(0);
        if w.len() % 2 == 1 {
            w.u8(0);
        }
    }
    let bytes = w.into_vec();
    if let Some(slot) = out.get_mut(plan.str_at..plan.str_at + bytes.len()) {
        slot.copy_from_slice(&bytes);
    }
}

fn file_header(name: usize, plan: &Plan, fskas: u16, fmaas: u16) -> Result<FileHeader> {
    let first_block = if fskas > 0 { 0xD0 } else { plan.str_at };
    let first_block = u16::try_from(first_block).map_err(|_| {
        Error::unrepresentable("the first block (the string table) beyond 64 KiB: write a skeletal animation too")
    })?;
    let array = |present: bool, at: usize| if present { at as u64 } else { 0 };
    Ok(FileHeader {
        magic: *super::fres::SWITCH_MAGIC,
        version: VERSION,
        bom: [0xFF, 0xFE],
        alignment_log2: 3,
        address_size: 0,
        file_name: (name + 2) as u32,
        flags: 0,
        first_block,
        relocation_table: plan.rlt as u32,
        file_size: 0,
        name: name as u64,
        models: [0; 2],
        skeletal_animations: [array(fskas > 0, 0xD0), array(fskas > 0, plan.fska_dict)],
        material_animations: [array(fmaas > 0, plan.fmaa_headers), array(fmaas > 0, plan.fmaa_dict)],
        bone_visibility_animations: [0; 2],
        shape_animations: [0; 2],
        scene_animations: [0; 2],
        memory_pool: 0,
        buffer_info: 0,
        embedded_files: [0; 2],
        reserved: 0,
        string_table: (plan.str_at + 0x14) as u64,
        string_table_size: (plan.str_end - plan.str_at) as u32,
        counts: [0, fskas, fmaas, 0, 0, 0, 0],
        padding: [0; 6],
    })
}
