//! Switch BFRES (0.8.0.0) files built from the model (`platform=switch`): the skeletal tracks
//! of every clip as an FSKA, encoded as the model writer encodes FSKA curves
//! ([`super::from_model`]), laid out as the animation-only files of Super Mario Odyssey are:
//!
//! header (`0xD0`), the FSKA headers (`0x60` each, chained as blocks), the FSKA dictionary, the
//! FSKA data one animation after another ([`super::switch_write`]), the `_STR` string table
//! (file name, animation names, bone names, in that order of first use), then the `_RLT`
//! relocation table listing every non-null offset in section 0 (five sections, the four
//! buffer sections empty).
//!
//! Not written: material, visibility, shape and scene animations and the skeleton (warnings
//! say what is left out, with counts).

use std::collections::{BTreeSet, HashMap};

use super::fres::SwitchFileHeader as FileHeader;
use super::fska::Fska;
use super::switch_write::{dict_bytes, group, write_fska_data, write_fska_header, RelocSection, Relocation};
use crate::bytes::{round_up, Endian, Writer};
use crate::error::{Error, Result};
use crate::formats::WriteOptions;
use crate::model::{Package, Target, Values};
use crate::record::Record;

/// The version written: 0.8.0.0, as in Splatoon 2 and Super Mario Odyssey.
pub const VERSION: u32 = 0x0008_0000;

/// Builds a Switch file from the model; returns the bytes and warnings.
pub fn from_model(package: &Package, options: &WriteOptions) -> Result<(Vec<u8>, Vec<String>)> {
    let rotation = super::from_model::rotation_setting(options)?;
    let mut warnings = Vec::new();
    if let Some(skeleton) = &package.skeleton {
        warnings.push(format!(
            "skeleton ({} bones) not written: the Switch file holds skeletal animations only",
            skeleton.bones.len()
        ));
    }
    let mut fskas = Vec::new();
    let mut left_out = 0usize;
    for clip in &package.clips {
        super::from_model::check_tracks(clip)?;
        let fps = super::from_model::clip_fps(clip, options)?;
        left_out += clip.tracks.iter().filter(|t| !is_skeletal(t)).count();
        let euler = super::from_model::rotation_mode(clip, fps, rotation)?;
        fskas.extend(super::from_model::fska_from_clip(clip, fps, euler)?);
    }
    if left_out > 0 {
        warnings.push(format!(
            "{left_out} material or visibility track(s) not written: Switch files are written with skeletal animations only"
        ));
    }
    if fskas.is_empty() {
        return Err(Error::unrepresentable("no clip has bone tracks: a Switch file would hold nothing"));
    }
    let name = if package.name.is_empty() { "animkit" } else { package.name.as_str() };
    Ok((build(name, &fskas)?, warnings))
}

fn is_skeletal(t: &crate::model::Track) -> bool {
    matches!((&t.target, &t.values), (Target::Bone(_), Values::Rotation(_) | Values::Translation(_) | Values::Scale(_)))
}

/// Where the parts of a built file lie.
struct Plan {
    dict: usize,
    data: Vec<usize>,
    str_at: usize,
    /// Each string's length-word position.
    names: HashMap<String, usize>,
    str_end: usize,
    rlt: usize,
}

fn plan(name: &str, fskas: &[Fska]) -> Result<(Plan, Vec<String>)> {
    let dict = 0xD0 + 0x60 * fskas.len();
    let mut at = dict + 8 + 16 * (fskas.len() + 1);
    let mut data = Vec::with_capacity(fskas.len());
    for f in fskas {
        data.push(at);
        at = super::switch_write::fska_data_end(f, at)?;
    }
    let str_at = round_up(at, 8);
    let mut strings: Vec<String> = Vec::new();
    let names = std::iter::once(name)
        .chain(fskas.iter().map(|f| f.name.as_str()))
        .chain(fskas.iter().flat_map(|f| f.bones.iter().map(|b| b.name.as_str())));
    for s in names {
        if !s.is_empty() && !strings.iter().any(|x| x == s) {
            strings.push(s.to_string());
        }
    }
    let mut pos = HashMap::new();
    let mut p = str_at + 0x14;
    for s in std::iter::once("").chain(strings.iter().map(String::as_str)) {
        if s.len() > usize::from(u16::MAX) {
            return Err(Error::unrepresentable(format!("a name of {} bytes (at most 65535)", s.len())));
        }
        pos.insert(s.to_string(), p);
        p += round_up(2 + s.len() + 1, 2);
    }
    Ok((Plan { dict, data, str_at, names: pos, str_end: p, rlt: round_up(p, 8) }, strings))
}

/// Builds a Switch file holding `fskas` (see the module notes for the layout).
pub fn build(name: &str, fskas: &[Fska]) -> Result<Vec<u8>> {
    if fskas.len() > usize::from(u16::MAX) {
        return Err(Error::unrepresentable("more than 65535 skeletal animations"));
    }
    let (plan, strings) = plan(name, fskas)?;
    let name_at = |s: &str| plan.names.get(s).copied().unwrap_or(0);
    let mut out = vec![0u8; plan.rlt];
    let mut offsets = BTreeSet::new();
    let refs: HashMap<&str, usize> = plan.names.iter().map(|(k, &v)| (k.as_str(), v)).collect();
    for (i, (f, &data_at)) in fskas.iter().zip(&plan.data).enumerate() {
        let h = 0xD0 + 0x60 * i;
        let next = if i + 1 < fskas.len() { 0x60 } else { plan.str_at - h };
        put(&mut out, h, b"FSKA");
        put(&mut out, h + 4, &(next as u32).to_le_bytes());
        put(&mut out, h + 8, &(next as u32).to_le_bytes());
        let bind = vec![0xFFFF; f.bones.len()];
        let (img, bones) = write_fska_data(f, &bind, data_at, &refs)?;
        put(&mut out, data_at, &img.bytes);
        offsets.extend(img.offsets());
        offset(&mut out, &mut offsets, h + 0x10, name_at(&f.name));
        offset(&mut out, &mut offsets, h + 0x18, name_at(""));
        offset(&mut out, &mut offsets, h + 0x28, data_at);
        offset(&mut out, &mut offsets, h + 0x30, bones);
        write_fska_header(&mut out, h, f)?;
    }
    let dict_names: Vec<(&str, usize)> = fskas.iter().map(|f| (f.name.as_str(), name_at(&f.name))).collect();
    let (dict, _) = dict_bytes(&dict_names, name_at(""))?;
    put(&mut out, plan.dict, &dict);
    for k in 0..=fskas.len() {
        offsets.insert(plan.dict + 8 + 16 * k + 8);
    }
    write_strings(&mut out, &plan, &strings);
    let header = file_header(name_at(name), &plan, fskas.len() as u16);
    let mut w = Writer::new(Endian::Little);
    header.write(&mut w);
    put(&mut out, 0, &w.into_vec());
    offsets.extend([0x20, 0x38, 0x40, 0xB0]);
    let sections =
        std::iter::once(RelocSection { pointer: 0, pos: 0, size: plan.str_end as u32, entries: group(&offsets) })
            .chain((0..4).map(|_| RelocSection { pointer: 0, pos: plan.str_end as u32, size: 0, entries: Vec::new() }))
            .collect();
    out.extend_from_slice(&Relocation { sections }.to_bytes(plan.rlt));
    let size = out.len() as u32;
    put(&mut out, 0x1C, &size.to_le_bytes());
    Ok(out)
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

fn file_header(name: usize, plan: &Plan, count: u16) -> FileHeader {
    FileHeader {
        magic: *super::fres::SWITCH_MAGIC,
        version: VERSION,
        bom: [0xFF, 0xFE],
        alignment_log2: 3,
        address_size: 0,
        file_name: (name + 2) as u32,
        flags: 0,
        first_block: 0xD0,
        relocation_table: plan.rlt as u32,
        file_size: 0,
        name: name as u64,
        models: [0; 2],
        skeletal_animations: [0xD0, plan.dict as u64],
        material_animations: [0; 2],
        bone_visibility_animations: [0; 2],
        shape_animations: [0; 2],
        scene_animations: [0; 2],
        memory_pool: 0,
        buffer_info: 0,
        embedded_files: [0; 2],
        reserved: 0,
        string_table: (plan.str_at + 0x14) as u64,
        string_table_size: (plan.str_end - plan.str_at) as u32,
        counts: [0, count, 0, 0, 0, 0, 0],
        padding: [0; 6],
    }
}
