//! What a classic chunk file holds that its model does not show, for `info` notes and `check`:
//!
//! - chunks of a type animkit reads, in a version it does not (e.g. a CompiledBones chunk that
//!   is not 0x800): skipped, so the model lacks what they hold;
//! - uncompiled controllers (PQLog 0x827/0x830, CE2 0x831, PQS 0x833): the Resource Compiler's
//!   `.i_caf` input. CE5's CAF loader (`ParseChunkHeaders`) reads them only when the file has
//!   no compiled controller (0x829/0x831/0x832), and ignores them otherwise;
//! - animation headers (GlobalAnimationHeaderCAF, MotionParameters) with no controller,
//!   like an `.img` or a CAF stripped of its keys: the clips have no tracks (CE5 warns "CAF file
//!   has no controllers").

use super::chunkfile::{kind, ChunkFile, Container};
use super::controller::FLAG_ADDITIVE;
use super::ivo;
use super::model::{contents_with, Contents, Decoding};
use super::quat_codecs::format_name;
use crate::lint::{Finding, Severity};

/// Chunk types the model reads, the versions it reads, and what it loses without them.
const READ_VERSIONS: &[(u32, &str, &[u32], &str)] = &[
    (kind::COMPILED_BONES, "CompiledBones", &[0x800], "the skeleton is"),
    (kind::BONE_NAME_LIST, "BoneNameList", &[0x745], "the bone names are"),
    (kind::MOTION_PARAMETERS, "MotionParameters", &[0x925], "the clip's start, end and flags are"),
    (kind::GAH_CAF, "GlobalAnimationHeaderCAF", &[0x971], "the clip's name, duration and flags are"),
    (kind::TIMING, "Timing", &[0x918, 0x919], "the frame rate is"),
];

/// One thing the model does not show, as its `info` note and its `check` finding.
type Fact = (String, Finding);

/// What the model of `file` does not show.
fn facts(file: &ChunkFile, c: &Contents) -> Vec<Fact> {
    let mut out = unread_chunks(file);
    out.extend(uncompiled(c));
    out.extend(headers_without_controllers(c));
    out
}

/// The chunks of a known type in a version animkit does not read.
fn unread_chunks(file: &ChunkFile) -> Vec<Fact> {
    let c = file.container;
    let mut out = Vec::new();
    for (index, ch) in file.chunks.iter().enumerate() {
        let (version, _) = ch.version_and_endian(c);
        let Some(&(_, name, read, left_out)) = READ_VERSIONS.iter().find(|r| r.0 == ch.kind(c)) else { continue };
        if !read.contains(&version) {
            let message = format!(
                "{name} chunk {index} (type 0x{:X}, version 0x{version:X}) at offset {} is not read (animkit reads version {}): {left_out} left out",
                ch.chunk_type,
                ch.offset,
                hex_list(read)
            );
            let finding = Finding::new(Severity::Warning, "chunk-version-not-read", message.clone());
            out.push((message, finding.at(ch.offset as usize).path(format!("chunk {index} ({name})"))));
        }
    }
    out
}

/// The uncompiled controllers (e.g. "77 uncompiled controllers (0x830)"), beside the compiled ones.
fn uncompiled(c: &Contents) -> Option<Fact> {
    let mut versions: Vec<u32> =
        c.controllers.iter().filter(|k| k.rotation_formats.is_none()).map(|k| k.version).collect();
    let n = versions.len();
    versions.sort_unstable();
    versions.dedup();
    let what = format!("{n} uncompiled controller{} ({})", if n == 1 { "" } else { "s" }, hex_list(&versions));
    let (note, severity, code, message) = match c.controllers.len() - n {
        _ if n == 0 => return None,
        0 => (
            format!("intermediate (.i_caf) content: {what}; a game's .caf holds compiled ones (0x829/0x831/0x832)"),
            Severity::Info,
            "uncompiled-controllers",
            format!(
                "{what}: intermediate (.i_caf) content, the Resource Compiler's input; the engine expects \
                 compiled controllers (0x829/0x831/0x832) in a .caf and reads these only when there are none"
            ),
        ),
        m => (
            format!("{what} beside {m} compiled ones: the engine plays only the compiled ones"),
            Severity::Warning,
            "mixed-controllers",
            format!("{what} beside {m} compiled ones: CE5 loads only the compiled ones, animkit reads all {}", n + m),
        ),
    };
    Some((note, Finding::new(severity, code, message)))
}

/// `0x827, 0x830`.
fn hex_list(versions: &[u32]) -> String {
    versions.iter().map(|v| format!("0x{v:X}")).collect::<Vec<_>>().join(", ")
}

/// The animation headers of a file without controllers (e.g. "3 GlobalAnimationHeaderCAF").
/// Timing is not one: geometry and skeleton files carry it too.
fn headers_without_controllers(c: &Contents) -> Option<Fact> {
    if !c.controllers.is_empty() || c.dba.is_some() {
        return None;
    }
    let mut headers = Vec::new();
    if !c.gahs.is_empty() {
        headers.push(format!("{} GlobalAnimationHeaderCAF", c.gahs.len()));
    }
    if c.motion.is_some() {
        headers.push("MotionParameters".into());
    }
    let headers = headers.join(", ");
    (!headers.is_empty()).then(|| {
        (
            format!("no controllers: animation headers ({headers}) without key data; the clips have no tracks"),
            Finding::new(
                Severity::Warning,
                "no-controllers",
                format!("animation headers ({headers}) but no controller: nothing to play (CE5: \"CAF file has no controllers\")"),
            ),
        )
    })
}

/// Short notes for `info`, for a file decoded as `decoding` says.
pub fn notes_with(file: &ChunkFile, decoding: Decoding) -> Vec<String> {
    let mut notes = vec![format!("{}, {} chunks", file.container.name(), file.chunks.len())];
    if file.container == Container::Ivo {
        match ivo::parse(file, decoding.c2_layout) {
            Ok(a) => {
                let bones: usize = a.blocks.iter().map(|b| b.controllers.len()).sum();
                notes.push(format!("{} #ivo block(s), {bones} bone tracks", a.blocks.len()));
                notes.extend(a.c2.map(|d| d.describe()));
                let mut starts =
                    a.info.map(|i| i.start_rotation).into_iter().chain(a.meta.iter().map(|m| m.start.rotation));
                if starts.any(|q| q.to_quat().dot(glam::Quat::IDENTITY).abs() < 0.999_999) {
                    notes.push("non-identity start rotation (not composed into the keys)".into());
                }
            }
            Err(_) => notes.push("the #ivo animation does not decode (see check)".into()),
        }
        return notes;
    }
    let Ok(c) = contents_with(file, false) else {
        notes.push("some chunks do not decode (see check)".into());
        return notes;
    };
    let mut versions: Vec<u32> = c.controllers.iter().map(|k| k.version).collect();
    versions.dedup();
    if !versions.is_empty() {
        notes.push(format!("{} controllers ({})", c.controllers.len(), hex_list(&versions)));
    }
    let mut fmts: Vec<&str> = c
        .controllers
        .iter()
        .filter_map(|k| k.rotation_formats)
        .filter(|&f| f != (0, 0))
        .map(|(value, _)| format_name(value))
        .collect();
    fmts.sort_unstable();
    fmts.dedup();
    if !fmts.is_empty() {
        notes.push(format!("rotation formats: {}", fmts.join(", ")));
    }
    if c.bone_names.is_some() {
        notes.push("bone name list".into());
    }
    if let Some(b) = &c.bones {
        notes.push(format!("skeleton of {} bones", b.bones.len()));
    }
    if let Some(d) = &c.dba {
        notes.push(format!("DBA of {} animations{}", d.animations.len(), if d.in_place { " (in-place)" } else { "" }));
    }
    if c.motion.is_some_and(|m| m.asset_flags & FLAG_ADDITIVE != 0) {
        notes.push("additive".into());
    }
    notes.extend(facts(file, &c).into_iter().map(|f| f.0));
    notes
}

/// The `check` findings.
pub fn findings(file: &ChunkFile, c: &Contents) -> Vec<Finding> {
    facts(file, c).into_iter().map(|f| f.1).collect()
}
