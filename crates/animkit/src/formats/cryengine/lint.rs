//! `check` and `repair` for CryEngine chunk files.
//!
//! Container findings (offsets are the chunk's file offset): embedded headers whose offset field
//! differs from the chunk's (fixable), overlapping chunks, bytes outside every chunk that are not
//! zero padding (fixable: dropped), big-endian chunks. Content findings: chunks that do not
//! decode, key times that are not strictly increasing (the Lumberyard RC refuses them),
//! rotation formats the CE5 runtime does not accept (3, 4), non-unit f32 rotations, a bone name
//! list whose length differs from the controller count, `#ivo` time bitmaps whose popcount is
//! not the key count, and what [`super::survey`] finds (chunk versions not read, uncompiled
//! controllers, animation headers without controllers).
//!
//! `repair` rewrites the file in the canonical layout (§1.6): same chunks, order and ids; table
//! after the header; chunks aligned to 4 with zero padding; embedded headers with the chunk's
//! own offset.

use super::chunkfile::{self, kind, ChunkFile, Container};
use super::controller::Controller;
use super::ivo;
use super::model::Contents;
use crate::bytes::Endian;
use crate::error::Result;
use crate::lint::{Finding, Severity::*};

fn increasing(frames: &[f32]) -> bool {
    frames.windows(2).all(|w| matches!(w, [a, b] if b > a))
}

fn controller_findings(out: &mut Vec<Finding>, ctrl: &Controller, at: usize, p: &str) {
    let mut push = |severity, code, message: String| out.push(Finding::new(severity, code, message).at(at).path(p));
    let tracks = [
        ("rotation", ctrl.rotation.as_ref().map(|t| &t.frames)),
        ("position", ctrl.position.as_ref().map(|t| &t.frames)),
        ("scale", ctrl.scale.as_ref().map(|t| &t.frames)),
    ];
    for (what, _) in tracks.into_iter().filter(|(_, f)| f.is_some_and(|f| !increasing(f))) {
        push(Error, "key-times-not-increasing", format!("{what} key times repeat or decrease"));
    }
    let (Some((rot, _)), Some(r)) = (ctrl.rotation_formats, &ctrl.rotation) else { return };
    if matches!(rot, 3 | 4) {
        let message = format!("rotation format {rot} is not read by the CE5 runtime (0, 1, 5, 6, 8 are)");
        push(Warning, "rotation-format-not-in-ce5", message);
    }
    let non_unit =
        matches!(rot, 0 | 1).then(|| r.values.iter().enumerate().find(|(_, q)| (q.length() - 1.0).abs() > 0.01));
    if let Some((k, q)) = non_unit.flatten() {
        push(Warning, "quaternion-not-unit", format!("key {k} has |q| = {:.4}", q.length()));
    }
}

/// Every problem found in the file, with the `#ivo` C2 layout forced as the `ivo_c2` read option
/// says (`None`: decided per file).
pub fn lint_with(file: &ChunkFile, c2_layout: Option<ivo::C2Layout>) -> Vec<Finding> {
    let mut out = layout_findings(file);
    chunk_findings(&mut out, file);
    match file.container {
        Container::Ivo => match ivo::parse(file, c2_layout) {
            Ok(anim) => ivo_findings(&mut out, &anim),
            Err(e) => out.push(Finding::new(Error, "chunk-does-not-decode", e.to_string())),
        },
        // Lenient decoding keeps what does not decode in `undecoded`: it does not fail.
        _ => content_findings(&mut out, file, &super::model::contents_with(file, true).unwrap_or_default()),
    }
    out
}

/// Overlapping chunks, and bytes outside every chunk that are not zero padding.
fn layout_findings(file: &ChunkFile) -> Vec<Finding> {
    let extents: Vec<(u64, u64)> = file
        .chunks
        .iter()
        .map(|ch| (ch.offset, ch.offset.saturating_add(ch.bytes(file.container).map_or(0, |b| b.len() as u64))))
        .collect();
    let mut out: Vec<Finding> = chunkfile::overlaps(&extents, usize::MAX)
        .0
        .into_iter()
        .map(|(a, b)| {
            let at = extents.get(b).map_or(0, |e| e.0 as usize);
            Finding::new(Warning, "overlapping-chunks", format!("chunks {a} and {b} overlap")).at(at)
        })
        .collect();
    for g in file.gaps.iter().filter(|g| g.data.iter().any(|&b| b != 0)) {
        let message = format!("{} bytes outside every chunk are not zero padding", g.data.len());
        out.push(Finding::new(Info, "unreferenced-bytes", message).at(g.offset as usize).fixable());
    }
    out
}

/// Per chunk: embedded header offsets and big-endian data.
fn chunk_findings(out: &mut Vec<Finding>, file: &ChunkFile) {
    for (i, ch) in file.chunks.iter().enumerate() {
        let at = ch.offset as usize;
        if let Some(h) = ch.header.filter(|h| u64::from(h.offset) != ch.offset) {
            let message = format!("embedded header says offset {}, the table {}", h.offset, ch.offset);
            out.push(Finding::new(Info, "embedded-header-offset", message).at(at).path(ch.label(i)).fixable());
        }
        if ch.version_and_endian(file.container).1 == Endian::Big {
            let message = "the chunk's data is big-endian (console build)";
            out.push(Finding::new(Info, "big-endian-chunk", message).at(at).path(ch.label(i)));
        }
    }
}

/// Chunks that do not decode, controllers holding questionable keys, a bone name list whose
/// length is not the controller count, and what [`super::survey`] finds.
fn content_findings(out: &mut Vec<Finding>, file: &ChunkFile, contents: &Contents) {
    let c = file.container;
    let chunk = |i: usize| file.chunks.get(i).map_or((0, String::new()), |ch| (ch.offset as usize, ch.label(i)));
    for (i, e) in &contents.undecoded {
        let (at, p) = chunk(*i);
        out.push(Finding::new(Error, "chunk-does-not-decode", e.to_string()).at(at).path(p));
    }
    for (ctrl, &i) in contents.controllers.iter().zip(&contents.controller_chunks) {
        let (at, p) = chunk(i);
        controller_findings(out, ctrl, at, &p);
    }
    let controllers =
        file.chunks.iter().filter(|ch| ch.kind(c) == kind::CONTROLLER && ch.version_and_endian(c).0 != 0x905).count();
    if let Some((i, names)) = contents.bone_names.as_ref().filter(|(_, n)| controllers > 0 && n.len() != controllers) {
        let (at, p) = chunk(*i);
        let message = format!("{} bone names for {controllers} controllers", names.len());
        out.push(Finding::new(Warning, "bone-name-count", message).at(at).path(p));
    }
    out.extend(super::survey::findings(file, contents));
}

fn ivo_findings(out: &mut Vec<Finding>, anim: &ivo::IvoAnimation) {
    if let Some(d) = anim.c2.filter(|d| d.layout == ivo::C2Layout::Interleaved || d.disagreeing > 0) {
        let (code, severity) = if d.disagreeing > 0 { ("c2-layout-mixed", Warning) } else { ("c2-interleaved", Info) };
        out.push(Finding::new(severity, code, d.describe()).at(anim.blocks.first().map_or(0, |b| b.offset)));
    }
    for (b, block) in anim.blocks.iter().enumerate() {
        for ctrl in block.controllers.iter().filter(|k| k.bitmap_fallback) {
            let message =
                format!("a time bitmap of bone 0x{:08X} does not hold its key count: keys spread evenly", ctrl.hash);
            out.push(Finding::new(Warning, "time-bitmap-count", message).at(block.offset).path(format!("block {b}")));
        }
    }
}

/// The canonical rewrite when a finding is fixable (the last chunk gets no trailing padding, as
/// in the engine's files), and what changed. `#ivo` files are left as they are (their track
/// offsets may reach into the next chunk, which a new layout could break).
pub fn repair(file: &ChunkFile) -> Result<(ChunkFile, Vec<String>)> {
    if file.container == Container::Ivo || !lint_with(file, None).iter().any(|f| f.fixable) {
        return Ok((file.clone(), Vec::new()));
    }
    let out = file.canonical()?;
    let mut changes = Vec::new();
    let (before, after) = (file.write()?, out.write()?);
    if before != after {
        changes.push(format!("rewrote the chunk layout canonically ({} → {} bytes)", before.len(), after.len()));
    }
    Ok((out, changes))
}
