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

use super::canonical::{canonicalize_anpk, canonicalize_v2, cpan_size, dgan_size, padded_name, until_nul};
use super::model::{decode_anpk, decode_v2, Keys};
use super::raw::*;
use crate::bytes::round_up;
use crate::lint::{Finding, Severity::*};
use crate::raw_json::Hex;
use crate::text::{clean_after_nul, latin1_until_nul};

/// Payloads that GTA III and VC read into 256-byte buffers.
const GAME_BUFFER: u32 = 256;

struct Linter {
    findings: Vec<Finding>,
}

impl Linter {
    fn push(&mut self, f: Finding) {
        self.findings.push(f);
    }

    /// Checks a fixed name buffer: a NUL must end it; bytes after the NUL should be zero.
    fn fixed_name(&mut self, buf: &[u8], offset: usize, path: &str) {
        if !buf.contains(&0) {
            self.push(
                Finding::new(Error, "name-without-nul", format!("{}-byte name has no NUL", buf.len()))
                    .at(offset)
                    .path(path),
            );
        } else if !clean_after_nul(buf) {
            self.push(
                Finding::new(Info, "garbage-after-nul", "bytes after the name's NUL are not zero")
                    .at(offset)
                    .path(path)
                    .fixable(),
            );
        }
        let len = until_nul(buf).len();
        if len > 23 {
            self.push(
                Finding::new(Warning, "name-too-long", format!("name of {len} bytes: the games keep 23"))
                    .at(offset)
                    .path(path),
            );
        }
    }

    /// Checks decoded keys: order and repeated times. Returns the first key time, which callers
    /// aggregate per animation.
    fn keys(&mut self, keys: &Keys, offset: usize, path: &str) -> Option<f32> {
        if let Some(i) = keys.times.windows(2).position(|w| matches!(w, [a, b] if b < a)) {
            self.push(
                Finding::new(Error, "decreasing-times", format!("key {} is earlier than key {i}", i + 1))
                    .at(offset)
                    .path(path),
            );
        }
        if keys.times.windows(2).any(|w| matches!(w, [a, b] if b == a)) {
            self.push(Finding::new(Info, "repeated-times", "two keys share a time (a step)").at(offset).path(path));
        }
        keys.times.first().copied()
    }

    /// One finding for the sequences of an animation whose first key is not at 0.
    fn late_starts(&mut self, starts: &[(usize, f32)], total: usize, path: &str) {
        if let Some(&(offset, t0)) = starts.first() {
            let msg = format!(
                "{} of {total} sequences start away from 0 s (first: {t0} s); the engine plays each from its first key",
                starts.len()
            );
            self.push(Finding::new(Warning, "first-time-not-zero", msg).at(offset).path(path));
        }
    }

    fn norms(&mut self, norms: impl Iterator<Item = f32>, offset: usize, path: &str) {
        if let Some((k, n)) = norms.enumerate().find(|(_, n)| (n - 1.0).abs() > 0.01) {
            self.push(
                Finding::new(Warning, "quaternion-not-unit", format!("key {k} has |q| = {n:.4}")).at(offset).path(path),
            );
        }
    }
}

fn raw_norms(frames: &[u8], size: usize, compressed: bool) -> impl Iterator<Item = f32> + '_ {
    frames.chunks_exact(size).map(move |f| {
        // The quaternion leads the frame: 4 × i16 (1/4096) or 4 × f32.
        let mut q = [0f32; 4];
        if compressed {
            for (c, w) in q.iter_mut().zip(f.as_chunks::<2>().0) {
                *c = f32::from(i16::from_le_bytes(*w)) / 4096.0;
            }
        } else {
            for (c, w) in q.iter_mut().zip(f.as_chunks::<4>().0) {
                *c = f32::from_le_bytes(*w);
            }
        }
        q.iter().map(|c| c * c).sum::<f32>().sqrt()
    })
}

/// Every finding for a parsed file.
pub fn lint(file: &IfpFile) -> Vec<Finding> {
    let mut l = Linter { findings: Vec::new() };
    if let Some(s) = &file.salvage {
        l.push(
            Finding::new(
                Error,
                "truncated-animation",
                format!(
                    "{} of {} animations parsed; the rest is damaged: {}",
                    file.animation_count(),
                    s.declared_animations,
                    s.error
                ),
            )
            .at(s.stopped_at)
            .fixable(),
        );
    }
    let content_end = match &file.body {
        Body::V2(v2) => lint_v2(&mut l, v2),
        Body::Anpk(anpk) => lint_anpk(&mut l, anpk),
    };
    let declared_size = match &file.body {
        Body::V2(v2) => v2.size,
        Body::Anpk(anpk) => anpk.size,
    };
    if declared_size as usize != content_end - 8 {
        let what = if declared_size as usize == content_end + file.tail.0.len() - 8 {
            " (it counts the trailing bytes)"
        } else {
            ""
        };
        l.push(
            Finding::new(
                Warning,
                "header-size",
                format!("header size {declared_size} ≠ content length − 8 = {}{what}", content_end - 8),
            )
            .at(4)
            .fixable(),
        );
    }
    if !file.tail.is_empty() && file.salvage.is_none() {
        let zero = file.tail.0.iter().all(|&b| b == 0);
        let (sev, code, what) = if zero {
            let img = (content_end + file.tail.0.len()).is_multiple_of(2048);
            (Info, "zero-tail", if img { "zero padding to a 2048-byte IMG sector" } else { "zero bytes" })
        } else {
            (Warning, "trailing-bytes", "non-zero bytes (stale data)")
        };
        l.push(
            Finding::new(sev, code, format!("{} bytes after the last animation: {what}", file.tail.0.len()))
                .at(content_end)
                .fixable(),
        );
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

fn lint_v2(l: &mut Linter, v2: &V2) -> usize {
    let sa = v2.version == V2Version::Anp3;
    l.fixed_name(&v2.block_name.0, 8, "header");
    let block_len = until_nul(&v2.block_name.0).len();
    if block_len > 15 {
        l.push(
            Finding::new(
                Warning,
                "block-name-too-long",
                format!("block name of {block_len} bytes: San Andreas keeps 15"),
            )
            .at(8),
        );
    }
    if let Some(d) = duplicates(v2.animations.iter().map(|a| until_nul(&a.name.0))) {
        l.push(Finding::new(
            Warning,
            "duplicate-animation-name",
            format!("animation name \"{d}\" appears more than once"),
        ));
    }
    let mut pos = 36;
    for (ai, anim) in v2.animations.iter().enumerate() {
        let path = format!("animation {ai} \"{}\"", latin1_until_nul(&anim.name.0));
        let anim_at = pos;
        l.fixed_name(&anim.name.0, pos, &path);
        pos += v2.version.animation_header_size();
        let frames: usize = anim.sequences.iter().map(|s| s.frames.bytes.len()).sum();
        if anim.sequences.is_empty() {
            l.push(Finding::new(Warning, "empty-animation", "animation has no sequences").at(anim_at).path(&path));
        }
        if anim.sequences.len() > 65_535 {
            l.push(
                Finding::new(Error, "too-many-sequences", "San Andreas stores the count in 16 bits")
                    .at(anim_at + 24)
                    .path(&path),
            );
        }
        if sa {
            let fds = anim.frame_data_size as usize;
            if fds < frames {
                l.push(
                    Finding::new(
                        Error,
                        "frame-data-size-too-small",
                        format!("frameDataSize {fds} < {frames} bytes of frames: San Andreas overflows its buffer"),
                    )
                    .at(anim_at + 28)
                    .path(&path)
                    .fixable(),
                );
            } else if fds > frames {
                l.push(
                    Finding::new(
                        Warning,
                        "frame-data-size-too-large",
                        format!("frameDataSize {fds} > {frames} bytes of frames"),
                    )
                    .at(anim_at + 28)
                    .path(&path)
                    .fixable(),
                );
            }
        }
        let compressed: Vec<bool> = anim.sequences.iter().map(|s| s.frames.kind.compressed()).collect();
        if compressed.iter().any(|&c| c) && compressed.iter().any(|&c| !c) {
            l.push(
                Finding::new(Error, "mixed-frame-types", "compressed and uncompressed sequences in one animation")
                    .at(anim_at)
                    .path(&path),
            );
        } else if let Some(&first) = compressed.first().filter(|&&c| sa && (anim.flags & 1 == 1) != c) {
            let class = if first { "compressed" } else { "uncompressed" };
            // A warning, not an error (§3 flags, §9 question 1): the retail loader takes the
            // frame layout from the sequences' frame type, and MTA ignores the flag, so the game
            // and MTA play such an animation; only gta-reversed, whose loader follows the flag,
            // decodes it with the wrong stride.
            l.push(
                Finding::new(
                    Warning,
                    "flags-mismatch",
                    format!(
                        "flags {} but the frames are {class}: the game and MTA go by the frame type, but \
                         gta-reversed follows the flag and decodes them wrongly",
                        anim.flags
                    ),
                )
                .at(anim_at + 32)
                .path(&path)
                .fixable(),
            );
        }
        if let Some(d) = duplicates(anim.sequences.iter().map(|s| until_nul(&s.name.0))) {
            l.push(
                Finding::new(Warning, "duplicate-bone", format!("bone \"{d}\" has two sequences"))
                    .at(anim_at)
                    .path(&path),
            );
        }
        let mut tags: Vec<i32> = anim.sequences.iter().map(|s| s.bone_tag).filter(|&t| t != -1).collect();
        tags.sort_unstable();
        if let Some(tag) = tags.windows(2).find_map(|w| match w {
            [a, b] if a == b => Some(*a),
            _ => None,
        }) {
            l.push(
                Finding::new(Warning, "duplicate-tag", format!("bone tag {tag} appears twice")).at(anim_at).path(&path),
            );
        }
        let mut late = Vec::new();
        let mut translated = Vec::new();
        for (si, seq) in anim.sequences.iter().enumerate() {
            let spath = format!("{path} / sequence {si} \"{}\"", latin1_until_nul(&seq.name.0));
            l.fixed_name(&seq.name.0, pos, &spath);
            let n = seq.frames.count();
            if n == 0 {
                l.push(
                    Finding::new(Error, "empty-sequence", "sequence with zero frames: San Andreas reads key −1")
                        .at(pos + 28)
                        .path(&spath)
                        .fixable(),
                );
            }
            if n > 65_535 {
                l.push(
                    Finding::new(
                        Error,
                        "too-many-frames",
                        format!("{n} frames: San Andreas stores the count in 16 bits"),
                    )
                    .at(pos + 28)
                    .path(&spath),
                );
            }
            let keys = decode_v2(&seq.frames);
            if let Some(t0) = l.keys(&keys, pos + 36, &spath).filter(|&t| t != 0.0) {
                late.push((pos + 36, t0));
            }
            l.norms(
                raw_norms(&seq.frames.bytes, seq.frames.kind.size(), seq.frames.kind.compressed()),
                pos + 36,
                &spath,
            );
            if seq.frames.kind.has_translation() && !matches!(seq.bone_tag, 0 | -1) {
                translated.push((pos + 24, seq.bone_tag));
            }
            pos += 36 + seq.frames.bytes.len();
        }
        l.late_starts(&late, anim.sequences.len(), &path);
        if let Some(&(offset, _)) = translated.first() {
            let tags: Vec<String> = translated.iter().map(|(_, t)| t.to_string()).collect();
            let msg = format!("translation keys on bone tags {}", tags.join(", "));
            l.push(Finding::new(Info, "translation-on-bone", msg).at(offset).path(&path));
        }
    }
    pos
}

fn lint_anpk(l: &mut Linter, anpk: &Anpk) -> usize {
    let check_id = |l: &mut Linter, h: &ChunkHeader, want: &[u8; 4], at: usize, path: &str| {
        if &h.id.0 != want {
            let got = latin1_until_nul(&h.id.0);
            let msg = format!("chunk id \"{got}\" where {} belongs", String::from_utf8_lossy(want));
            l.push(Finding::new(Error, "stray-chunk-id", msg).at(at).path(path).fixable());
        }
    };
    let big = |l: &mut Linter, h: &ChunkHeader, at: usize, path: &str| {
        if h.size > GAME_BUFFER {
            let msg = format!(
                "{} payload of {} bytes overflows the 256-byte buffer of III and VC",
                latin1_until_nul(&h.id.0),
                h.size
            );
            l.push(Finding::new(Error, "payload-too-large", msg).at(at + 4).path(path));
        }
    };
    check_id(l, &anpk.info, b"INFO", 8, "header");
    big(l, &anpk.info, 8, "header");
    let block = until_nul(&anpk.block_name.0);
    if anpk.info.size as usize != 4 + block.len() + 1 {
        l.push(
            Finding::new(
                Warning,
                "inconsistent-size",
                format!("header INFO size {} ≠ {}", anpk.info.size, 5 + block.len()),
            )
            .at(12)
            .path("header")
            .fixable(),
        );
    }
    if block.len() > 19 {
        l.push(
            Finding::new(
                Warning,
                "block-name-too-long",
                format!("block name of {} bytes: Vice City keeps 19", block.len()),
            )
            .at(20),
        );
    }
    if let Some(d) = duplicates(anpk.animations.iter().map(|a| until_nul(&a.name.0))) {
        l.push(Finding::new(
            Warning,
            "duplicate-animation-name",
            format!("animation name \"{d}\" appears more than once"),
        ));
    }
    let mut pos = 16 + round_up(anpk.info.size as usize, 4);
    for (ai, anim) in anpk.animations.iter().enumerate() {
        let name = until_nul(&anim.name.0);
        let path = format!("animation {ai} \"{}\"", latin1_until_nul(name));
        check_id(l, &anim.name_chunk, b"NAME", pos, &path);
        big(l, &anim.name_chunk, pos, &path);
        if anim.name_chunk.size as usize != name.len() + 1 || anim.name != padded_name(name) {
            let sev = if clean_after_nul(&anim.name.0) { Warning } else { Info };
            l.push(
                Finding::new(sev, "name-payload", "NAME size or padding is not name + NUL + zeros")
                    .at(pos)
                    .path(&path)
                    .fixable(),
            );
        }
        if name.len() > 23 {
            l.push(
                Finding::new(Warning, "name-too-long", format!("name of {} bytes: the games keep 23", name.len()))
                    .at(pos + 8)
                    .path(&path),
            );
        }
        pos += 8 + anim.name.0.len();
        check_id(l, &anim.dgan, b"DGAN", pos, &path);
        if anim.dgan.size != dgan_size(anim) {
            l.push(
                Finding::new(
                    Warning,
                    "inconsistent-size",
                    format!("DGAN size {} ≠ {}", anim.dgan.size, dgan_size(anim)),
                )
                .at(pos + 4)
                .path(&path)
                .fixable(),
            );
        }
        pos += 8;
        check_id(l, &anim.info, b"INFO", pos, &path);
        big(l, &anim.info, pos, &path);
        pos += 8 + round_up(anim.info.size as usize, 4);
        if anim.objects.is_empty() {
            l.push(Finding::new(Warning, "empty-animation", "animation has no objects").path(&path));
        }
        if let Some(d) = duplicates(anim.objects.iter().map(|o| until_nul(&o.name.0))) {
            l.push(Finding::new(Warning, "duplicate-bone", format!("object \"{d}\" appears twice")).path(&path));
        }
        let n_objects = anim.objects.len() as i32;
        let mut late = Vec::new();
        for (oi, obj) in anim.objects.iter().enumerate() {
            let opath = format!("{path} / object {oi} \"{}\"", latin1_until_nul(&obj.name.0));
            check_id(l, &obj.cpan, b"CPAN", pos, &opath);
            if obj.cpan.size != cpan_size(obj) {
                l.push(
                    Finding::new(
                        Warning,
                        "inconsistent-size",
                        format!("CPAN size {} ≠ {}", obj.cpan.size, cpan_size(obj)),
                    )
                    .at(pos + 4)
                    .path(&opath)
                    .fixable(),
                );
            }
            pos += 8;
            check_id(l, &ChunkHeader { id: obj.anim_id, size: 0 }, b"ANIM", pos, &opath);
            l.fixed_name(&obj.name.0, pos + 8, &opath);
            let n = obj.frame_count() as i32;
            if obj.last_frame != n - 1 {
                l.push(
                    Finding::new(
                        Warning,
                        "last-frame-word",
                        format!("ANIM +36 is {} (numFrames − 1 = {})", obj.last_frame, n - 1),
                    )
                    .at(pos + 8 + 36)
                    .path(&opath)
                    .fixable(),
                );
            }
            if let AnimLink::Tree { first_child, next_sibling } = obj.link {
                let ok = |v: i32| v == -1 || (v > oi as i32 && v < n_objects);
                if !ok(first_child) || !ok(next_sibling) {
                    l.push(
                        Finding::new(
                            Warning,
                            "bad-tree-index",
                            format!("child {first_child} / sibling {next_sibling} are not later objects"),
                        )
                        .at(pos + 8 + 40)
                        .path(&opath),
                    );
                }
            }
            pos += 8 + obj.link.anim_size() as usize;
            if let Some(k) = &obj.keys {
                if k.size as usize != k.frames.bytes.len() {
                    l.push(
                        Finding::new(
                            Warning,
                            "inconsistent-size",
                            format!("key chunk size {} ≠ {}", k.size, k.frames.bytes.len()),
                        )
                        .at(pos + 4)
                        .path(&opath)
                        .fixable(),
                    );
                }
                let keys = decode_anpk(&k.frames, true);
                if let Some(t0) = l.keys(&keys, pos + 8, &opath).filter(|&t| t != 0.0) {
                    late.push((pos + 8, t0));
                }
                l.norms(raw_norms(&k.frames.bytes, k.frames.kind.size(), false), pos + 8, &opath);
                if let Some(scales) = &keys.scales {
                    let off = |s: &glam::Vec3| (*s - glam::Vec3::ONE).abs().max_element();
                    let worst = scales.iter().copied().max_by(|a, b| off(a).total_cmp(&off(b)));
                    if let Some(worst) = worst.filter(|s| off(s) > 1e-4) {
                        l.push(
                            Finding::new(
                                Warning,
                                "scale-not-one",
                                format!("KRTS scale ≠ 1 (furthest {worst}): every game discards it"),
                            )
                            .at(pos)
                            .path(&opath),
                        );
                    }
                }
                pos += 8 + k.frames.bytes.len();
            }
        }
        l.late_starts(&late, anim.objects.len(), &path);
    }
    pos
}

/// A canonical rewrite that keeps every animation and key: sizes and frameDataSize recomputed,
/// flags derived from the frames, name tails zeroed, empty ANP3 sequences omitted, ANIM +36 set,
/// the tail trimmed, a salvaged file's animation count fixed. Returns the changes made.
pub fn repair(file: &IfpFile) -> (IfpFile, Vec<String>) {
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
    match &mut out.body {
        Body::V2(v2) => {
            for anim in &mut v2.animations {
                let before = anim.sequences.len();
                anim.sequences.retain(|s| !s.frames.bytes.is_empty());
                if anim.sequences.len() != before {
                    changes.push(format!(
                        "animation \"{}\": removed {} sequence(s) with zero frames",
                        latin1_until_nul(&anim.name.0),
                        before - anim.sequences.len()
                    ));
                }
            }
            canonicalize_v2(v2);
        }
        Body::Anpk(anpk) => {
            for obj in anpk.animations.iter_mut().flat_map(|a| a.objects.iter_mut()) {
                obj.last_frame = obj.frame_count() as i32 - 1;
            }
            canonicalize_anpk(anpk);
        }
    }
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
