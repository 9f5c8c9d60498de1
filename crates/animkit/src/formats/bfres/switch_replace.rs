//! One skeletal animation replaced inside a Switch file (0.5 to 0.8): its data is written where
//! the old data was ([`super::switch_write`]), everything after it moves (section 0 by a
//! multiple of 8, later sections by a multiple of the file's alignment, so GPU buffers keep
//! theirs), and every offset the relocation table lists, the block chain, the header's sizes
//! and the relocation table itself follow. Entries of the old data are dropped and the new
//! data's offsets grouped anew ([`super::switch_write::group`]).

use std::collections::{BTreeSet, HashMap};

use super::fmaa::{self, Fmaa};
use super::fska::{Fska, RotateMode};
use super::layout::Image;
use super::switch_write::{
    blocks, fmaa_start, get, group, overwrite, parts, push_entry, put_u32, with_relocation, write_fska_data,
    write_fska_header, Parts, RelocEntry, RelocSection, Relocation,
};
use crate::bytes::round_up;
use crate::error::{Error, Result};
use crate::model::{Clip, Values};

/// How positions move when `[start, old_end)` is replaced by data `d0` bytes longer (a
/// multiple of 8): what follows in section 0 moves by `d0`; the later sections and the `_RLT`
/// (from `tail_start`) by `d_tail`, a multiple of the file's alignment, so buffers keep theirs.
struct Shift {
    start: usize,
    old_end: usize,
    sec0_end: usize,
    tail_start: usize,
    d0: isize,
    d_tail: isize,
}

impl Shift {
    fn new(p: &Parts, start: usize, old_end: usize, new_len: usize) -> Result<Shift> {
        let old_len = old_end - start;
        let diff = new_len as isize - old_len as isize;
        let d0 = diff.div_euclid(8) * 8 + if diff.rem_euclid(8) > 0 { 8 } else { 0 };
        let (sec0, tail_start, align) = tail(p)?;
        let sec0_end = sec0.end;
        if start < sec0.start || old_end > sec0_end {
            return Err(Error::invalid(start, "FSKA data outside the relocation table's first section"));
        }
        let needed = (sec0_end as isize + d0 - tail_start as isize).max(0) as usize;
        let d_tail = if d0 > 0 { round_up(needed, align) as isize } else { 0 };
        Ok(Shift { start, old_end, sec0_end, tail_start, d0, d_tail })
    }

    /// The new position of `p`; `None` inside the replaced range.
    fn map(&self, p: usize) -> Option<usize> {
        let moved = |d: isize| usize::try_from(p as isize + d).ok();
        if p < self.start {
            Some(p)
        } else if p < self.old_end {
            None
        } else if p < self.tail_start {
            moved(self.d0)
        } else {
            moved(self.d_tail)
        }
    }

    fn map_or_err(&self, p: usize, what: &str) -> Result<usize> {
        self.map(p).ok_or_else(|| Error::invalid(p, format!("{what} points into the FSKA data being replaced")))
    }
}

/// Section 0's range, where the later sections start (the first non-empty one at or after
/// section 0's end, else the `_RLT`) and the alignment they keep when they move: the file's, or
/// 8 for the `_RLT`.
fn tail(p: &Parts) -> Result<(std::ops::Range<usize>, usize, usize)> {
    let sec0 = p.relocation.sections.first().ok_or_else(|| Error::invalid(0x18, "_RLT without sections"))?;
    let (sec0_start, sec0_end) = (sec0.pos as usize, (sec0.pos + sec0.size) as usize);
    let rlt_at = p.header.stored.relocation_table as usize;
    let tail_start = p
        .relocation
        .sections
        .iter()
        .skip(1)
        .filter(|s| s.size > 0 && s.pos as usize >= sec0_end)
        .map(|s| s.pos as usize)
        .min()
        .unwrap_or(rlt_at);
    let align = if tail_start == rlt_at { 8 } else { 1usize << p.header.stored.alignment_log2.min(16) };
    Ok((sec0_start..sec0_end, tail_start, align))
}

/// Adds the `names` the string table lacks at its end, in order (existing strings keep their
/// positions). The table closes section 0, so the section, the header's string-table size and
/// the `_STR` block grow; empty sections that started at section 0's end follow it; when the
/// zeros before the later sections are too few, those sections and the `_RLT` move by a
/// multiple of the file's alignment and every offset into them follows.
pub fn add_strings<'a>(data: &[u8], names: impl IntoIterator<Item = &'a str>) -> Result<Vec<u8>> {
    let p = parts(data)?;
    let known = p.strings.positions();
    let mut missing: Vec<&str> = Vec::new();
    for n in names {
        if !n.is_empty() && !known.contains_key(n) && !missing.contains(&n) {
            missing.push(n);
        }
    }
    if missing.is_empty() {
        return Ok(data.to_vec());
    }
    let mut bytes = Vec::new();
    for s in &missing {
        u16::try_from(s.len()).map_err(|_| Error::unrepresentable(format!("a name of {} bytes", s.len())))?;
        push_entry(&mut bytes, s);
    }
    let at = p.strings.end();
    let (sec0, tail_start, align) = tail(&p)?;
    let sec0_end = sec0.end;
    if at > tail_start || data.get(at..tail_start).is_none_or(|z| z.iter().any(|&b| b != 0)) {
        return Err(Error::unsupported("data between the string table and the next section: not moved"));
    }
    // A table whose count includes the leading empty string is read one empty entry past its
    // end: keep 4 zero bytes there.
    let reserve = if p.strings.strings.last().is_some_and(String::is_empty) { 4 } else { 0 };
    let d_tail = round_up((at + bytes.len() + reserve).saturating_sub(tail_start), align) as isize;
    let shift = Shift { start: at, old_end: at, sec0_end: at, tail_start, d0: 0, d_tail };
    let rlt_at = p.header.stored.relocation_table as usize;
    let mut work = data.get(..rlt_at).ok_or_else(|| Error::invalid(0x18, "_RLT offset beyond the file"))?.to_vec();
    relocate_listed(&mut work, &p, &shift, &(0..0))?;
    put_u32(&mut work, p.strings.at + 0x10, (p.strings.strings.len() + missing.len()) as u32)?;
    let table_size = get::<u32>(&work, 0xB8)? + bytes.len() as u32;
    put_u32(&mut work, 0xB8, table_size)?;
    relink_blocks(&mut work, &shift, rlt_at)?;
    let mut relocation = relocate_table(&p.relocation, &shift, &BTreeSet::new())?;
    for (i, s) in relocation.sections.iter_mut().enumerate() {
        if i == 0 {
            s.size += bytes.len() as u32;
        } else if s.size == 0 && s.pos as usize == sec0_end {
            s.pos += bytes.len() as u32;
        }
    }
    assemble(&work, &shift, &bytes, rlt_at, &relocation)
}

/// Replaces skeletal animation `index` of a Switch file by `anim`: its data is written where the
/// old data was, everything after it moves (section 0 by a multiple of 8, later sections by a
/// multiple of the file's alignment), and every listed offset, the block chain, the header's
/// sizes and the relocation table follow. Names the string table lacks are added first
/// ([`add_strings`]).
pub fn replace_fska(data: &[u8], index: usize, anim: &Fska) -> Result<Vec<u8>> {
    let names = std::iter::once(anim.name.as_str()).chain(anim.bones.iter().map(|b| b.name.as_str()));
    let grown = add_strings(data, names)?;
    let p = parts(&grown)?;
    let entry = p.fskas.get(index).ok_or_else(|| Error::invalid(0x38, format!("no skeletal animation {index}")))?;
    let (old, start) = (&entry.animation, entry.data_at);
    let bind: Vec<u16> = anim
        .bones
        .iter()
        .map(|b| {
            old.bones.iter().position(|o| o.name == b.name).and_then(|i| entry.bind.get(i)).copied().unwrap_or(0xFFFF)
        })
        .collect();
    let end = |a: &Fska, bind: &[u16]| write_fska_data(a, bind, start, None).map(|(i, _)| i.start + i.bytes.len());
    let shift = Shift::new(&p, start, end(old, &entry.bind)?, end(anim, &bind)? - start)?;
    let (img, bones_at) = write_fska_data(anim, &bind, start, Some(&moved_strings(&p, &shift)?))?;
    // The header's bind, bone and user-data offsets point into the new data.
    let h = entry.header_at;
    finish(&grown, &p, &shift, img, h + 0x28..h + 0x40, |work| {
        put_u64(work, h + 0x28, start as u64)?;
        put_u64(work, h + 0x30, bones_at as u64)?;
        if get::<u64>(work, h + 0x38)? != 0 {
            put_u64(work, h + 0x38, (bones_at + 0x28 * anim.bones.len()) as u64)?;
        }
        write_fska_header(work, h, anim)?;
        Ok(Vec::new())
    })
}

/// Where each string of the table lies once `shift` moves it.
fn moved_strings<'a>(p: &'a Parts, shift: &Shift) -> Result<HashMap<&'a str, usize>> {
    p.strings.positions().into_iter().map(|(s, at)| Ok((s, shift.map_or_err(at, "a string")?))).collect()
}

/// The new file, once the new data `img` is written at the shift's start: every listed offset
/// outside the replaced range and `skip` moved, `fix` run on the bytes (it returns the offsets
/// it adds), the block chain relinked, the relocation table moved and the new data's offsets
/// listed.
fn finish(
    data: &[u8],
    p: &Parts,
    shift: &Shift,
    mut img: Image,
    skip: std::ops::Range<usize>,
    fix: impl FnOnce(&mut [u8]) -> Result<Vec<usize>>,
) -> Result<Vec<u8>> {
    img.bytes.resize(((shift.old_end - shift.start) as isize + shift.d0) as usize, 0);
    let rlt_at = p.header.stored.relocation_table as usize;
    let mut work = data.get(..rlt_at).ok_or_else(|| Error::invalid(0x18, "_RLT offset beyond the file"))?.to_vec();
    relocate_listed(&mut work, p, shift, &skip)?;
    let mut added: BTreeSet<usize> = img.offsets().collect();
    added.extend(fix(&mut work)?);
    relink_blocks(&mut work, shift, rlt_at)?;
    let relocation = relocate_table(&p.relocation, shift, &added)?;
    assemble(&work, shift, &img.bytes, rlt_at, &relocation)
}

fn put_u64(buf: &mut [u8], at: usize, v: u64) -> Result<()> {
    overwrite(buf, at, &v.to_le_bytes(), "offset")
}

/// Each block's next-block distance and size for the new positions; the last block (`_STR`)
/// runs to the `_RLT`.
fn relink_blocks(work: &mut [u8], shift: &Shift, rlt_at: usize) -> Result<()> {
    for (at, _) in blocks(work)? {
        let next = get::<u32>(work, at + 4)? as usize;
        let size = get::<u32>(work, at + 8)? as usize;
        let new_at = shift.map_or_err(at, "a block")?;
        if next == 0 {
            if at + size == rlt_at {
                let new_rlt = shift.map_or_err(rlt_at, "the _RLT")?;
                put_u32(work, at + 8, (new_rlt - new_at) as u32)?;
            }
            continue;
        }
        let new_next = (shift.map_or_err(at + next, "a block")? - new_at) as u32;
        put_u32(work, at + 4, new_next)?;
        if size == next {
            put_u32(work, at + 8, new_next)?;
        }
    }
    Ok(())
}

/// The relocation table for the new positions: entries of the replaced data dropped, the others
/// moved, the new data's offsets grouped into entries of its section.
fn relocate_table(old: &Relocation, shift: &Shift, added: &BTreeSet<usize>) -> Result<Relocation> {
    let mut sections = Vec::with_capacity(old.sections.len());
    for (i, s) in old.sections.iter().enumerate() {
        let mut entries = Vec::with_capacity(s.entries.len());
        for e in &s.entries {
            let moved: Vec<Option<usize>> = e.positions().map(|p| shift.map(p)).collect();
            if moved.iter().all(Option::is_none) {
                continue;
            }
            let first = moved.first().copied().flatten();
            let uniform = e
                .positions()
                .zip(&moved)
                .all(|(p, m)| m.map(|m| m as isize - p as isize) == first.map(|f| f as isize - e.pos as isize));
            let Some(pos) = first.filter(|_| uniform) else {
                return Err(Error::invalid(
                    e.pos as usize,
                    "a relocation entry spans the edge of the replaced FSKA data",
                ));
            };
            entries.push(RelocEntry { pos: pos as u32, ..*e });
        }
        let (pos, end) = (s.pos as usize, (s.pos + s.size) as usize);
        if (pos..end.max(pos + 1)).contains(&shift.start) && i == 0 {
            entries.extend(group(added));
            entries.sort_by_key(|e| e.pos);
        }
        let new_pos = shift.map_or_err(pos, "a relocation section")?;
        let new_end = if s.size == 0 { new_pos } else { shift.map_or_err(end - 1, "a relocation section")? + 1 };
        sections.push(RelocSection {
            pointer: s.pointer,
            pos: new_pos as u32,
            size: (new_end - new_pos) as u32,
            entries,
        });
    }
    Ok(Relocation { sections })
}

/// The new file: what precedes the replaced data, the new data, the rest of section 0, zeros up
/// to the moved later sections, those sections, and the relocation table.
fn assemble(work: &[u8], shift: &Shift, new: &[u8], rlt_at: usize, relocation: &Relocation) -> Result<Vec<u8>> {
    let piece = |a: usize, b: usize| work.get(a..b).ok_or_else(|| Error::invalid(a, "section beyond the file"));
    if piece(shift.sec0_end, shift.tail_start)?.iter().any(|&b| b != 0) {
        return Err(Error::unsupported("data between the first relocation section and the next: not moved"));
    }
    let mut out = Vec::with_capacity(work.len() + new.len());
    out.extend_from_slice(piece(0, shift.start)?);
    out.extend_from_slice(new);
    out.extend_from_slice(piece(shift.old_end, shift.sec0_end)?);
    let tail_at = shift.map_or_err(shift.tail_start, "the later sections")?;
    out.resize(tail_at, 0);
    out.extend_from_slice(piece(shift.tail_start, rlt_at)?);
    with_relocation(out, relocation)
}

/// Replaces the animations named like `clip` by the clip: its bone tracks replace the skeletal
/// animation of that name, its texture-index and shader-parameter tracks the material animation
/// of that name (FMAA, [`replace_fmaa`]); at least one of the two must exist.
///
/// Skeletal: curves encoded as the model writer encodes FSKA curves ([`super::from_model`]) in
/// the old animation's rotation mode. The old flags stay except looping; each bone keeps its
/// segment-scale-compensate bit, and its hint bits (uniform scale, volume one, zero rotation,
/// zero translation) while its base values are unchanged. Material: built as
/// [`fmaa::fmaa_from_clip`] builds it; the old flags stay except looping.
pub fn replace_clip(data: &[u8], clip: &Clip, fps: f32) -> Result<Vec<u8>> {
    super::from_model::check_tracks(clip)?;
    let p = parts(data)?;
    let skeletal = p.fskas.iter().position(|e| e.animation.name == clip.name);
    let material = p.fmaas.iter().position(|(_, a)| a.name == clip.name);
    let has_bones = clip.tracks.iter().any(|t| matches!(t.target, crate::model::Target::Bone(_)));
    refuse_unwritten(clip, skeletal.is_some(), material.is_some())?;
    let mut out = None;
    if let Some(index) = skeletal.filter(|_| has_bones || material.is_none()) {
        out = Some(replace_skeletal(data, &p, index, clip, fps)?);
    }
    if let Some(index) = material {
        let mut warnings = Vec::new();
        let built = fmaa::fmaa_from_clip(clip, fps, &mut warnings)?;
        if !warnings.is_empty() {
            return Err(Error::unrepresentable(format!(
                "the replacement would not be written as it is: {}",
                warnings.join("; ")
            )));
        }
        if let Some(mut anim) = built {
            if let Some((_, old)) = p.fmaas.get(index) {
                anim.flags = (old.flags & !0x4) | (anim.flags & 0x4);
            }
            let base = out.take().unwrap_or_else(|| data.to_vec());
            out = Some(replace_fmaa(&base, index, &anim)?);
        }
    }
    out.ok_or_else(|| {
        Error::invalid(0x38, format!("no skeletal or material animation named \"{}\" in the file", clip.name))
    })
}

/// Refuses a replacement whose tracks the file has no animation to take: bone tracks without a
/// skeletal animation of the clip's name, texture-index and shader-parameter tracks without a
/// material animation of that name, and visibility tracks (not written inside a Switch file).
fn refuse_unwritten(clip: &Clip, skeletal: bool, material: bool) -> Result<()> {
    let (mut bones, mut materials, mut visibility) = (0usize, 0usize, 0usize);
    for track in &clip.tracks {
        match (&track.target, &track.values) {
            (_, Values::Visibility(_)) => visibility += 1,
            (crate::model::Target::Bone(_), _) => bones += usize::from(!skeletal),
            _ => materials += usize::from(!material),
        }
    }
    let lost: Vec<String> = [
        (bones, "bone track(s): the file has no skeletal animation of that name"),
        (materials, "material track(s): the file has no material animation of that name"),
        (visibility, "visibility track(s): not written inside a Switch file"),
    ]
    .into_iter()
    .filter(|&(n, _)| n > 0)
    .map(|(n, why)| format!("{n} {why}"))
    .collect();
    if lost.is_empty() {
        return Ok(());
    }
    Err(Error::unrepresentable(format!("replacing \"{}\" would drop {}", clip.name, lost.join("; "))))
}

/// The skeletal part of [`replace_clip`]: FSKA `index` replaced by the clip's bone tracks.
fn replace_skeletal(data: &[u8], p: &Parts, index: usize, clip: &Clip, fps: f32) -> Result<Vec<u8>> {
    let entry = p.fskas.get(index).ok_or_else(|| Error::invalid(0x38, format!("no skeletal animation {index}")))?;
    let old = &entry.animation;
    let euler = old.rotate_mode() == RotateMode::EulerXyz;
    let mut anim = super::from_model::fska_from_clip(clip, fps, euler)?
        .ok_or_else(|| Error::unrepresentable(format!("clip \"{}\" has no bone tracks", clip.name)))?;
    anim.flags = (old.flags & !0x4) | (anim.flags & 0x4);
    for bone in &mut anim.bones {
        let Some(was) = old.bones.iter().find(|o| o.name == bone.name) else { continue };
        bone.flags |= was.flags & 0x0080_0000;
        if (was.scale, was.rotate, was.translate) == (bone.scale, bone.rotate, bone.translate) {
            bone.flags |= was.flags & 0x0F00_0000;
        }
    }
    replace_fska(data, index, &anim)
}

/// Replaces material animation `index` of a Switch file by `anim`: its data (from the bind
/// indices to the texture bind array, [`fmaa`]) is written where the old data
/// was and everything after it moves as [`replace_fska`] moves it; the header is written anew.
/// Header offsets the relocation table did not list and the new header sets are listed anew
/// (those it listed stay listed, as Super Mario Odyssey lists null offsets too). Names the
/// string table lacks are added first ([`add_strings`]).
pub fn replace_fmaa(data: &[u8], index: usize, anim: &Fmaa) -> Result<Vec<u8>> {
    let grown = add_strings(data, fmaa::names(anim))?;
    let p = parts(&grown)?;
    let (header_at, old) =
        p.fmaas.get(index).ok_or_else(|| Error::invalid(0x48, format!("no material animation {index}")))?;
    let start = fmaa_start(&grown, *header_at)?;
    let old_end = fmaa::write_data(old, start, None)?.1.end;
    let new_len = fmaa::write_data(anim, start, None)?.1.end - start;
    let shift = Shift::new(&p, start, old_end, new_len)?;
    let names = moved_strings(&p, &shift)?;
    let (img, layout) = fmaa::write_data(anim, start, Some(&names))?;
    let header_range = *header_at..*header_at + fmaa::header_size(super::platform::Platform::SWITCH_0_8);
    let new_header_at = shift.map_or_err(*header_at, "the FMAA header")?;
    let header = fmaa::write_header(anim, new_header_at, &layout, &names)?;
    let listed = p.relocation.positions();
    finish(&grown, &p, &shift, img, header_range.clone(), |work| {
        let slot =
            work.get_mut(header_range).ok_or_else(|| Error::invalid(*header_at, "FMAA header beyond the file"))?;
        slot.copy_from_slice(&header.bytes);
        Ok(header
            .offsets()
            .filter(|&at| shift.map(at).is_some_and(|_| !listed.contains(&(at - new_header_at + header_at))))
            .collect())
    })
}

/// Rewrites every listed offset outside the replaced range and outside `skip` for the new
/// positions, and the file name's position.
fn relocate_listed(work: &mut [u8], p: &Parts, shift: &Shift, skip: &std::ops::Range<usize>) -> Result<()> {
    for pos in p.relocation.positions() {
        if shift.map(pos).is_none() || skip.contains(&pos) {
            continue;
        }
        let v = get::<u64>(work, pos)? as usize;
        if v != 0 {
            put_u64(work, pos, shift.map_or_err(v, &format!("the offset at {pos:#x}"))? as u64)?;
        }
    }
    put_u32(work, 0x10, shift.map_or_err(get::<u32>(work, 0x10)? as usize, "the file name")? as u32)
}
