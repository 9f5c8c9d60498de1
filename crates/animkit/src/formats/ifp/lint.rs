//! `check` and `repair` for IFP (`ifp.md` §8).
//!
//! Severities follow what the engines do with a file: an error breaks the games, a warning
//! breaks some reader or tool, info is harmless. One departure from the §8 table:
//! `flags-mismatch` (ANP3 flags bit 0 disagreeing with the frame types) is a **warning**. The
//! retail SA loader decides the frame layout from the sequences' frame type (third-party
//! decompilation, §9 question 1) and MTA ignores the flag, so both play such a file; only
//! gta-reversed, whose loader follows the flag, misreads it. `repair` sets the flag from the
//! frames.
//!
//! Findings carry the offset of the offending field. Offsets are recomputed here from the raw
//! layer (structures are fixed-size or size-prefixed, so a running position is exact).

use super::canonical::{canonicalize, cpan_size, dgan_size, padded_name, until_nul};
use super::model::{decode_anpk, decode_v2, Keys};
use super::raw::*;
use crate::bytes::round_up;
use crate::lint::{Finding, Severity, Severity::*};
use crate::raw_json::Hex;
use crate::text::{clean_after_nul, latin1_until_nul};

/// Payloads that GTA III and VC read into 256-byte buffers.
const GAME_BUFFER: u32 = 256;

struct Linter {
    findings: Vec<Finding>,
}

impl Linter {
    /// Adds a finding at `offset` under `path` (none when empty).
    fn at(&mut self, s: Severity, code: &'static str, message: impl Into<String>, offset: usize, path: &str) {
        self.findings.push(Finding::new(s, code, message).at(offset).path(path));
    }

    /// Adds a finding that `repair` fixes.
    fn fixable(&mut self, s: Severity, code: &'static str, message: impl Into<String>, offset: usize, path: &str) {
        self.findings.push(Finding::new(s, code, message).at(offset).path(path).fixable());
    }

    /// Adds a finding without an offset.
    fn no_offset(&mut self, s: Severity, code: &'static str, message: impl Into<String>, path: &str) {
        self.findings.push(Finding::new(s, code, message).path(path));
    }

    /// Checks a fixed name buffer: a NUL must end it; bytes after the NUL should be zero.
    fn fixed_name(&mut self, buf: &[u8], offset: usize, path: &str) {
        if !buf.contains(&0) {
            self.at(Error, "name-without-nul", format!("{}-byte name has no NUL", buf.len()), offset, path);
        } else if !clean_after_nul(buf) {
            self.fixable(Info, "garbage-after-nul", "bytes after the name's NUL are not zero", offset, path);
        }
        let len = until_nul(buf).len();
        if len > 23 {
            self.at(Warning, "name-too-long", format!("name of {len} bytes: the games keep 23"), offset, path);
        }
    }

    /// Checks decoded keys at `offset`: order, repeated times and unit quaternions (as stored:
    /// 4 × i16 (1/4096) or 4 × f32). Returns the first key time when it is not 0, which callers
    /// aggregate per animation.
    fn keys(&mut self, keys: &Keys, offset: usize, path: &str) -> Option<f32> {
        if let Some(i) = keys.times.windows(2).position(|w| matches!(w, [a, b] if b < a)) {
            self.at(Error, "decreasing-times", format!("key {} is earlier than key {i}", i + 1), offset, path);
        }
        if keys.times.windows(2).any(|w| matches!(w, [a, b] if b == a)) {
            self.at(Info, "repeated-times", "two keys share a time (a step)", offset, path);
        }
        let mut norms =
            keys.rotations.iter().map(|q| q.to_array().iter().map(|c| c * c).sum::<f32>().sqrt()).enumerate();
        if let Some((k, n)) = norms.find(|(_, n)| (n - 1.0).abs() > 0.01) {
            self.at(Warning, "quaternion-not-unit", format!("key {k} has |q| = {n:.4}"), offset, path);
        }
        keys.times.first().copied().filter(|&t| t != 0.0)
    }

    /// `inconsistent-size` when the size field of `what` is not its canonical value.
    fn size(&mut self, what: &str, have: u32, want: usize, offset: usize, path: &str) {
        if have as usize != want {
            self.fixable(Warning, "inconsistent-size", format!("{what} size {have} ≠ {want}"), offset, path);
        }
    }

    /// One finding for the sequences of an animation whose first key is not at 0.
    fn late_starts(&mut self, starts: &[(usize, f32)], total: usize, path: &str) {
        if let Some(&(offset, t0)) = starts.first() {
            let n = starts.len();
            let msg = format!("{n} of {total} sequences start away from 0 s (first: {t0} s); the engine plays each from its first key");
            self.at(Warning, "first-time-not-zero", msg, offset, path);
        }
    }
}

/// Every finding for a parsed file.
pub(crate) fn lint(file: &IfpFile) -> Vec<Finding> {
    let mut l = Linter { findings: Vec::new() };
    if let Some(s) = &file.salvage {
        let (parsed, declared, error) = (file.animation_count(), s.declared_animations, &s.error);
        let msg = format!("{parsed} of {declared} animations parsed; the rest is damaged: {error}");
        l.fixable(Error, "truncated-animation", msg, s.stopped_at, "");
    }
    let (content_end, declared_size) = match &file.body {
        Body::Anp3(v2) => (lint_v2(&mut l, v2, V2Version::Anp3), v2.size),
        Body::Anp2(v2) => (lint_v2(&mut l, v2, V2Version::Anp2), v2.size),
        Body::Anpk(anpk) => (lint_anpk(&mut l, anpk), anpk.size),
    };
    let tail = file.tail.0.len();
    if declared_size as usize != content_end - 8 {
        let what =
            if declared_size as usize == content_end + tail - 8 { " (it counts the trailing bytes)" } else { "" };
        let msg = format!("header size {declared_size} ≠ content length − 8 = {}{what}", content_end - 8);
        l.fixable(Warning, "header-size", msg, 4, "");
    }
    if tail > 0 && file.salvage.is_none() {
        let (sev, code, what) = if file.tail.0.iter().all(|&b| b == 0) {
            let img = (content_end + tail).is_multiple_of(2048);
            (Info, "zero-tail", if img { "zero padding to a 2048-byte IMG sector" } else { "zero bytes" })
        } else {
            (Warning, "trailing-bytes", "non-zero bytes (stale data)")
        };
        l.fixable(sev, code, format!("{tail} bytes after the last animation: {what}"), content_end, "");
    }
    l.findings
}

fn duplicates<'a>(names: impl Iterator<Item = &'a [u8]>) -> Option<String> {
    let mut seen: Vec<&[u8]> = Vec::new();
    for n in names {
        if seen.iter().any(|s| s.eq_ignore_ascii_case(n)) {
            return Some(latin1_until_nul(n));
        }
        seen.push(n);
    }
    None
}

/// Checks an ANP2/ANP3 body; returns the offset of its end.
fn lint_v2(l: &mut Linter, v2: &V2, version: V2Version) -> usize {
    l.fixed_name(&v2.block_name.0, 8, "header");
    let block_len = until_nul(&v2.block_name.0).len();
    if block_len > 15 {
        l.at(Warning, "block-name-too-long", format!("block name of {block_len} bytes: San Andreas keeps 15"), 8, "");
    }
    if let Some(d) = duplicates(v2.animations.iter().map(|a| until_nul(&a.name.0))) {
        l.no_offset(Warning, "duplicate-animation-name", format!("animation name \"{d}\" appears more than once"), "");
    }
    let mut pos = 36;
    for (ai, anim) in v2.animations.iter().enumerate() {
        pos = lint_v2_animation(l, version, anim, ai, pos);
    }
    pos
}

/// Checks one ANP2/ANP3 animation starting at `pos`; returns the offset of its end.
fn lint_v2_animation(l: &mut Linter, version: V2Version, anim: &V2Animation, ai: usize, anim_at: usize) -> usize {
    let path = &format!("animation {ai} \"{}\"", latin1_until_nul(&anim.name.0));
    l.fixed_name(&anim.name.0, anim_at, path);
    if anim.sequences.is_empty() {
        l.at(Warning, "empty-animation", "animation has no sequences", anim_at, path);
    }
    if anim.sequences.len() > 65_535 {
        l.at(Error, "too-many-sequences", "San Andreas stores the count in 16 bits", anim_at + 24, path);
    }
    lint_v2_header(l, version, anim, anim_at, path);
    if let Some(d) = duplicates(anim.sequences.iter().map(|s| until_nul(&s.name.0))) {
        l.at(Warning, "duplicate-bone", format!("bone \"{d}\" has two sequences"), anim_at, path);
    }
    let mut tags: Vec<i32> = anim.sequences.iter().map(|s| s.bone_tag).filter(|&t| t != -1).collect();
    tags.sort_unstable();
    if let Some(&[tag, _]) = tags.windows(2).find(|w| matches!(w, [a, b] if a == b)) {
        l.at(Warning, "duplicate-tag", format!("bone tag {tag} appears twice"), anim_at, path);
    }
    let (mut late, mut translated) = (Vec::new(), Vec::new());
    let mut pos = anim_at + version.animation_header_size();
    for (si, seq) in anim.sequences.iter().enumerate() {
        let spath = &format!("{path} / sequence {si} \"{}\"", latin1_until_nul(&seq.name.0));
        l.fixed_name(&seq.name.0, pos, spath);
        let n = seq.frame_count();
        if n == 0 {
            let msg = "sequence with zero frames: San Andreas reads key −1";
            l.fixable(Error, "empty-sequence", msg, pos + 28, spath);
        }
        if n > 65_535 {
            let msg = format!("{n} frames: San Andreas stores the count in 16 bits");
            l.at(Error, "too-many-frames", msg, pos + 28, spath);
        }
        if let Some(t0) = l.keys(&decode_v2(seq.frame_type, anim.sequences.of(seq)), pos + 36, spath) {
            late.push((pos + 36, t0));
        }
        if seq.frame_type.has_translation() && !matches!(seq.bone_tag, 0 | -1) {
            translated.push((pos + 24, seq.bone_tag));
        }
        pos += 36 + seq.frames.len;
    }
    l.late_starts(&late, anim.sequences.len(), path);
    if let Some(&(offset, _)) = translated.first() {
        let tags: Vec<String> = translated.iter().map(|(_, t)| t.to_string()).collect();
        l.at(Info, "translation-on-bone", format!("translation keys on bone tags {}", tags.join(", ")), offset, path);
    }
    pos
}

/// Checks an animation header's frameDataSize (ANP3) and its frame types against each other
/// and the flags (ANP3).
fn lint_v2_header(l: &mut Linter, version: V2Version, anim: &V2Animation, anim_at: usize, path: &str) {
    let (fds, frames) = (anim.frame_data_size as usize, anim.sequences.iter().map(|s| s.frames.len).sum());
    let sa = version == V2Version::Anp3;
    if sa && fds < frames {
        let msg = format!("frameDataSize {fds} < {frames} bytes of frames: San Andreas overflows its buffer");
        l.fixable(Error, "frame-data-size-too-small", msg, anim_at + 28, path);
    } else if sa && fds > frames {
        let msg = format!("frameDataSize {fds} > {frames} bytes of frames");
        l.fixable(Warning, "frame-data-size-too-large", msg, anim_at + 28, path);
    }
    let compressed: Vec<bool> = anim.sequences.iter().map(|s| s.frame_type.compressed()).collect();
    if compressed.iter().any(|&c| c) && compressed.iter().any(|&c| !c) {
        l.at(Error, "mixed-frame-types", "compressed and uncompressed sequences in one animation", anim_at, path);
    } else if let Some(&first) = compressed.first().filter(|&&c| sa && (anim.flags & 1 == 1) != c) {
        // A warning, not an error (§3 flags, §9 question 1): the retail loader takes the frame
        // layout from the sequences' frame type, and MTA ignores the flag, so the game and MTA
        // play such an animation; only gta-reversed, whose loader follows the flag, decodes it
        // with the wrong stride.
        let class = if first { "compressed" } else { "uncompressed" };
        let msg = format!(
            "flags {} but the frames are {class}: the game and MTA go by the frame type, but gta-reversed \
             follows the flag and decodes them wrongly",
            anim.flags
        );
        l.fixable(Warning, "flags-mismatch", msg, anim_at + 32, path);
    }
}

/// Checks a chunk id (`stray-chunk-id`) and, for chunks the games read into a 256-byte buffer,
/// its size (`payload-too-large`).
fn chunk(l: &mut Linter, h: &ChunkHeader, want: &[u8; 4], buffered: bool, at: usize, path: &str) {
    if &h.id.0 != want {
        let got = latin1_until_nul(&h.id.0);
        let msg = format!("chunk id \"{got}\" where {} belongs", String::from_utf8_lossy(want));
        l.fixable(Error, "stray-chunk-id", msg, at, path);
    }
    if buffered && h.size > GAME_BUFFER {
        let (id, size) = (latin1_until_nul(&h.id.0), h.size);
        let msg = format!("{id} payload of {size} bytes overflows the 256-byte buffer of III and VC");
        l.at(Error, "payload-too-large", msg, at + 4, path);
    }
}

/// Checks an ANPK body; returns the offset of its end.
fn lint_anpk(l: &mut Linter, anpk: &Anpk) -> usize {
    chunk(l, &anpk.info, b"INFO", true, 8, "header");
    let block = until_nul(&anpk.block_name.0);
    l.size("header INFO", anpk.info.size, 5 + block.len(), 12, "header");
    if block.len() > 19 {
        let msg = format!("block name of {} bytes: Vice City keeps 19", block.len());
        l.at(Warning, "block-name-too-long", msg, 20, "");
    }
    if let Some(d) = duplicates(anpk.animations.iter().map(|a| until_nul(&a.name.0))) {
        l.no_offset(Warning, "duplicate-animation-name", format!("animation name \"{d}\" appears more than once"), "");
    }
    let mut pos = 16 + round_up(anpk.info.size as usize, 4);
    for (ai, anim) in anpk.animations.iter().enumerate() {
        pos = lint_anpk_animation(l, anim, ai, pos);
    }
    pos
}

/// Checks one ANPK animation starting at `pos`; returns the offset of its end.
fn lint_anpk_animation(l: &mut Linter, anim: &AnpkAnimation, ai: usize, mut pos: usize) -> usize {
    let name = until_nul(&anim.name.0);
    let path = &format!("animation {ai} \"{}\"", latin1_until_nul(name));
    chunk(l, &anim.name_chunk, b"NAME", true, pos, path);
    if anim.name_chunk.size as usize != name.len() + 1 || anim.name != padded_name(name) {
        let sev = if clean_after_nul(&anim.name.0) { Warning } else { Info };
        l.fixable(sev, "name-payload", "NAME size or padding is not name + NUL + zeros", pos, path);
    }
    if name.len() > 23 {
        l.at(Warning, "name-too-long", format!("name of {} bytes: the games keep 23", name.len()), pos + 8, path);
    }
    pos += 8 + anim.name.0.len();
    chunk(l, &anim.dgan, b"DGAN", false, pos, path);
    l.size("DGAN", anim.dgan.size, dgan_size(anim) as usize, pos + 4, path);
    pos += 8;
    chunk(l, &anim.info, b"INFO", true, pos, path);
    pos += 8 + round_up(anim.info.size as usize, 4);
    if anim.objects.is_empty() {
        l.no_offset(Warning, "empty-animation", "animation has no objects", path);
    }
    if let Some(d) = duplicates(anim.objects.iter().map(|o| until_nul(&o.name.0))) {
        l.no_offset(Warning, "duplicate-bone", format!("object \"{d}\" appears twice"), path);
    }
    let mut late = Vec::new();
    for (oi, obj) in anim.objects.iter().enumerate() {
        let opath = &format!("{path} / object {oi} \"{}\"", latin1_until_nul(&obj.name.0));
        let (end, late_start) = lint_anpk_object(l, obj, anim.objects.of(obj), (oi, anim.objects.len()), pos, opath);
        pos = end;
        late.extend(late_start);
    }
    l.late_starts(&late, anim.objects.len(), path);
    pos
}

/// Checks one ANPK object starting at `pos` (object `index` of `count`) whose key frames are
/// `bytes`; returns the offset of its end and, when its first key is not at 0, where and what
/// that key's time is.
fn lint_anpk_object(
    l: &mut Linter,
    obj: &AnpkObject,
    bytes: &[u8],
    (index, count): (usize, usize),
    mut pos: usize,
    path: &str,
) -> (usize, Option<(usize, f32)>) {
    chunk(l, &obj.cpan, b"CPAN", false, pos, path);
    l.size("CPAN", obj.cpan.size, cpan_size(obj) as usize, pos + 4, path);
    pos += 8;
    chunk(l, &ChunkHeader { id: obj.anim_id, size: 0 }, b"ANIM", false, pos, path);
    l.fixed_name(&obj.name.0, pos + 8, path);
    let n = obj.frame_count() as i32;
    if obj.last_frame != n - 1 {
        let msg = format!("ANIM +36 is {} (numFrames − 1 = {})", obj.last_frame, n - 1);
        l.fixable(Warning, "last-frame-word", msg, pos + 8 + 36, path);
    }
    if let AnimLink::Tree { first_child, next_sibling } = obj.link {
        let later = |v: i32| v == -1 || (v > index as i32 && v < count as i32);
        if !later(first_child) || !later(next_sibling) {
            let msg = format!("child {first_child} / sibling {next_sibling} are not later objects");
            l.at(Warning, "bad-tree-index", msg, pos + 8 + 40, path);
        }
    }
    pos += 8 + obj.link.anim_size() as usize;
    let Some(k) = &obj.keys else {
        return (pos, None);
    };
    l.size("key chunk", k.size, k.frames.len, pos + 4, path);
    let keys = decode_anpk(k.id, bytes, true);
    let late = l.keys(&keys, pos + 8, path).map(|t0| (pos + 8, t0));
    let off = |s: &glam::Vec3| (*s - glam::Vec3::ONE).abs().max_element();
    let worst = keys.scales.iter().flatten().copied().max_by(|a, b| off(a).total_cmp(&off(b)));
    if let Some(worst) = worst.filter(|s| off(s) > 1e-4) {
        let msg = format!("KRTS scale ≠ 1 (furthest {worst}): every game discards it");
        l.at(Warning, "scale-not-one", msg, pos, path);
    }
    (pos + 8 + k.frames.len, late)
}

/// A canonical rewrite that keeps every animation and key: sizes and frameDataSize recomputed,
/// flags derived from the frames, name tails zeroed, empty ANP3 sequences omitted, ANIM +36 set,
/// the tail trimmed, a salvaged file's animation count fixed. Returns the changes made.
pub(crate) fn repair(file: &IfpFile) -> (IfpFile, Vec<String>) {
    let mut out = file.clone();
    let mut changes = Vec::new();
    if let Some(s) = out.salvage.take() {
        changes.push(format!(
            "dropped {} damaged animation(s) at byte {} and set the animation count to {}",
            s.declared_animations as usize - file.animation_count(),
            s.stopped_at,
            file.animation_count()
        ));
    }
    if !out.tail.is_empty() {
        changes.push(format!("removed {} bytes after the last animation", out.tail.0.len()));
        out.tail = Hex::default();
    }
    if let Body::Anp3(v2) | Body::Anp2(v2) = &mut out.body {
        for anim in &mut v2.animations {
            let before = anim.sequences.len();
            anim.sequences.retain(|s| s.frames.len > 0);
            if anim.sequences.len() != before {
                changes.push(format!(
                    "animation \"{}\": removed {} sequence(s) with zero frames",
                    latin1_until_nul(&anim.name.0),
                    before - anim.sequences.len()
                ));
            }
        }
    }
    canonicalize(&mut out.body);
    // Report field changes by comparing the canonical document with the original.
    let before = lint(file);
    let after = lint(&out);
    for f in before.iter().filter(|f| f.fixable && !after.iter().any(|a| a.code == f.code && a.path == f.path)) {
        if f.code != "truncated-animation" && f.code != "trailing-bytes" && f.code != "zero-tail" {
            let at = if f.path.is_empty() { String::new() } else { format!("{}: ", f.path) };
            changes.push(format!("{at}fixed: {}", f.message));
        }
    }
    (out, changes)
}
