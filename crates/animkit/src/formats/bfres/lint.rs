//! Checks beyond parsing (spec §2–§8): header counts and tries, and inside the animation
//! subfiles the derived fields a writer must recompute (§8): curve totals, begin indices,
//! bakedSize, key ranges, texture indices and the `delta` field.

use super::anims::{Kind, Listing};
use super::curve::{Curve, CurveType, Value};
use super::encode::{baked_size, flag_index};
use super::fres::{self, FresFile, Part, SwitchHeader, GROUP_NAMES};
use super::platform::Platform;
use super::{dict, fmaa, fshu, fska, fskl, ftxp, fvis};
use crate::lint::{Finding, Severity};

/// A finding of `code` in the structure `path`, at byte `at` when there is one.
fn finding(severity: Severity, code: &'static str, path: &str, at: Option<usize>, msg: String) -> Finding {
    let f = Finding::new(severity, code, msg).path(path);
    match at {
        Some(at) => f.at(at),
        None => f,
    }
}

fn warn(code: &'static str, path: &str, at: usize, msg: String) -> Finding {
    finding(Severity::Warning, code, path, Some(at), msg)
}

fn check_curve(out: &mut Vec<Finding>, path: &str, c: &Curve) {
    if c.frames.first().is_some_and(|&f| f != c.start) || c.frames.last().is_some_and(|&f| f != c.end) {
        let span = format!("{:?}..{:?}", c.frames.first(), c.frames.last());
        let msg = format!("keys span {span} but the header says {}..{}", c.start, c.end);
        out.push(warn("curve-range", path, c.at, msg));
    }
    if c.frames.windows(2).any(|w| matches!(w, [a, b] if b <= a)) {
        out.push(warn("curve-frames-unsorted", path, c.at, "key frames do not increase".into()));
    }
    if let (Some(d), CurveType::Cubic | CurveType::Linear, Some(_)) = (c.delta, c.curve_type(), c.frames.last()) {
        let n = c.frames.len() - 1;
        let diff = c.key_value(n) - c.key_value(0);
        let tol = 2.0 * c.scale().abs() + 1e-5 * diff.abs().max(d.abs()) + f32::EPSILON;
        if (diff - d).abs() > tol {
            let msg = format!("delta {d} but last − first is {diff}");
            out.push(finding(Severity::Info, "curve-delta", path, Some(c.at), msg));
        }
    }
}

/// One index group as read: its index, its name, its entries `(name, data position)` and the
/// trie its names build (`None` when building fails, which only an inconsistent trie of our own
/// does: nothing to compare then).
type GroupTrie = (usize, &'static str, Vec<(String, usize)>, Option<Vec<dict::TrieNode>>);

/// Every index group whose entries read, with the trie its names build.
fn group_tries(file: &FresFile, data: &[u8]) -> Vec<GroupTrie> {
    let groups = GROUP_NAMES.iter().enumerate();
    groups
        .filter_map(|(g, &name)| {
            let entries = fres::entries(data, &file.header, g).ok()?;
            let keys: Vec<&[u8]> = entries.iter().map(|e| e.0.as_bytes()).collect();
            let built = dict::build(&keys).ok();
            Some((g, name, entries, built))
        })
        .collect()
}

/// Whether a stored trie node differs from the built one.
fn differs(n: &dict::Node, built: &dict::TrieNode) -> bool {
    (n.reference, n.left, n.right) != *built
}

/// The checks of a Wii U file: its size and group counts against the header, each index
/// group's trie against the one its names build, and every subfile's own checks.
pub fn lint(file: &FresFile, data: &[u8]) -> Vec<Finding> {
    let mut out = Vec::new();
    let h = &file.header;
    if h.file_size as usize != data.len() {
        let msg = format!("header file size {} but the file has {} bytes", h.file_size, data.len());
        out.push(finding(Severity::Warning, "file-size-mismatch", "", Some(0x0C), msg).fixable());
    }
    for (g, group_name, entries, built) in group_tries(file, data) {
        let count = h.counts.get(g).copied().unwrap_or(0);
        if entries.len() != usize::from(count) {
            let msg = format!("header count {count} but the group has {} entries", entries.len());
            out.push(warn("group-count-mismatch", group_name, 0x50 + 2 * g, msg).fixable());
        }
        let stored = file.parts.iter().find_map(|p| match p {
            Part::Dict { group, dict } if *group == g => Some(dict),
            _ => None,
        });
        if let (Some(d), Some(built)) = (stored, built) {
            if d.nodes.iter().zip(&built).any(|(n, b)| differs(n, b)) {
                let msg = "stored trie differs from the one built from the names".to_string();
                out.push(finding(Severity::Error, "dict-trie-mismatch", group_name, None, msg).fixable());
            }
        }
        for (name, at) in entries {
            lint_entry(&mut out, data, g, &format!("{group_name} \"{name}\""), at, h.version);
        }
    }
    out
}

/// The checks of the subfile at `at`, entry of group `g` (an unreadable one is an error).
fn lint_entry(out: &mut Vec<Finding>, data: &[u8], g: usize, path: &str, at: usize, version: u32) {
    let wiiu = Platform::WiiU { version };
    let read = match g {
        fres::G_FSKA => fska::read(data, at, wiiu).map(|a| lint_fska(out, path, &a, version)),
        fres::G_FTXP => ftxp::read(data, at, wiiu).map(|a| lint_ftxp(out, path, &a)),
        fres::G_FSHU_PARAM | fres::G_FSHU_COLOUR | fres::G_FSHU_SRT => {
            fshu::read(data, at, wiiu).map(|a| lint_fshu(out, path, &a))
        }
        fres::G_FVIS_BONE | fres::G_FVIS_MAT => fvis::read(data, at, wiiu).map(|a| lint_fvis(out, path, &a, g)),
        fres::G_FMDL => {
            lint_model(out, path, data, at, wiiu);
            Ok(())
        }
        _ => Ok(()),
    };
    if let Err(e) = read {
        out.push(finding(Severity::Error, "subfile-unreadable", path, Some(at), e.to_string()));
    }
}

/// FVIS checks: curve ranges and targets, and the type flag against the index group.
fn lint_fvis(out: &mut Vec<Finding>, path: &str, a: &fvis::Fvis, g: usize) {
    for c in &a.curves {
        check_curve(out, path, c);
        if c.target as usize >= a.names.len() {
            let msg = format!("curve targets entry {} of {}", c.target, a.names.len());
            out.push(warn("curve-target", path, c.at, msg));
        }
    }
    if (g == fres::G_FVIS_MAT) != a.material() {
        out.push(warn("fvis-kind", path, a.at + 0x0C, "the type flag (bit 8) does not match the index group".into()));
    }
}

/// The structure checks of a model's skeleton ([`fskl::check`]), on Wii U and Switch.
pub fn lint_model(out: &mut Vec<Finding>, path: &str, data: &[u8], at: usize, platform: Platform) {
    match fskl::read_model(data, at, platform) {
        Ok((_, Some(skeleton))) => {
            for (at, message) in fskl::check(&skeleton) {
                out.push(warn("skeleton-index", &format!("{path} / FSKL"), at, message));
            }
        }
        Ok((_, None)) => {}
        Err(e) => out.push(finding(Severity::Error, "subfile-unreadable", path, Some(at), e.to_string())),
    }
}

/// The first version whose bone animations are known to flag their curves (BoneAnim flags bits
/// 6–15, §7.1): Breath of the Wild's 4.5.0.3 sets the bit of every curve on all 14,541 bones,
/// and Switch 0.8.0.0 (Splatoon 2, Super Mario Odyssey) on all 1,059 bones. Mario Kart 8's
/// 3.4.0.4 sets none (70 bone animations, 34 curves in the corpus file) although its curves are
/// well formed (known targets, in flag-bit order) and the game plays them: the converter of that
/// generation left the bits clear and the runtime finds a curve by its target offset, as every
/// public reader does. So before this version a bone with curves and no curve bit at all is that
/// older form, not a finding; a bone with some bits set is still checked bit by bit.
const CURVE_BITS_FROM: u32 = 0x0405_0003;

/// Whether the bone's curve-present bits are to be checked (see [`CURVE_BITS_FROM`]).
fn curve_bits_apply(flags: u32, version: u32) -> bool {
    version >= CURVE_BITS_FROM || flags & 0xFFC0 != 0
}

fn lint_fska(out: &mut Vec<Finding>, path: &str, a: &fska::Fska, version: u32) {
    let mut total = 0usize;
    for b in &a.bones {
        let bpath = format!("{path} / bone \"{}\"", b.name);
        if usize::from(b.begin_curve) != total {
            let msg = format!("beginCurve {} but {total} curves precede it", b.begin_curve);
            out.push(warn("begin-curve", &bpath, b.at + 0x0C, msg));
        }
        total += b.curves.len();
        let mut prev_bit = 0;
        for c in &b.curves {
            check_curve(out, &bpath, c);
            let Some(bit) = flag_index(c.target) else {
                out.push(warn("curve-target", &bpath, c.at, format!("unknown target offset {:#x}", c.target)));
                continue;
            };
            if curve_bits_apply(b.flags, version) && b.flags & (1 << (6 + bit)) == 0 {
                let msg = format!("curve for target {:#x} without its flag bit", c.target);
                out.push(warn("curve-flag", &bpath, c.at, msg));
            }
            if bit < prev_bit {
                out.push(warn("curve-order", &bpath, c.at, "curves are not in flag-bit order".into()));
            }
            prev_bit = bit;
        }
    }
    if a.curve_count as usize != total {
        let msg = format!("header says {} curves, bones hold {total}", a.curve_count);
        out.push(warn("curve-count", path, a.at + 0x18, msg));
    }
    let baked = baked_size(a.bones.iter().flat_map(|b| &b.curves));
    if a.baked_size != baked {
        let msg = format!("bakedSize {} but §8 gives {baked}", a.baked_size);
        out.push(finding(Severity::Info, "baked-size", path, Some(a.at + 0x1C), msg));
    }
}

fn lint_fshu(out: &mut Vec<Finding>, path: &str, a: &fshu::Fshu) {
    let (mut curves, mut params) = (0i32, 0i32);
    for m in &a.materials {
        let mpath = format!("{path} / material \"{}\"", m.name);
        if m.begin_curve != curves || m.begin_param_anim != params {
            let msg =
                format!("begin indices {}/{} but {curves}/{params} precede (§7.3)", m.begin_curve, m.begin_param_anim);
            out.push(warn("begin-index", &mpath, a.at, msg));
        }
        curves += m.curves.len() as i32;
        params += (m.curves.len() + m.constants.len()) as i32;
        for c in &m.curves {
            check_curve(out, &mpath, c);
        }
        for p in &m.params {
            let end = usize::from(p.begin_curve) + usize::from(p.float_curves) + usize::from(p.int_curves);
            let cend = usize::from(p.begin_constant) + usize::from(p.constant_count);
            if end > m.curves.len() || cend > m.constants.len() {
                let msg = format!("parameter {} refers past its curves or constants", p.name);
                out.push(warn("param-range", &mpath, a.at, msg));
            }
        }
    }
    if a.curve_count != curves || a.param_anim_count != params {
        let msg =
            format!("header totals {}/{} but materials hold {curves}/{params}", a.param_anim_count, a.curve_count);
        out.push(warn("curve-count", path, a.at + 0x18, msg));
    }
}

fn lint_ftxp(out: &mut Vec<Finding>, path: &str, a: &ftxp::Ftxp) {
    let (mut curves, mut infos) = (0i32, 0i32);
    let n = a.textures.len() as i64;
    for m in &a.materials {
        let mpath = format!("{path} / material \"{}\"", m.name);
        if m.begin_curve != curves || m.begin_pat_anim != infos {
            let msg = format!("begin indices {}/{} but {curves}/{infos} precede", m.begin_curve, m.begin_pat_anim);
            out.push(warn("begin-index", &mpath, a.at, msg));
        }
        curves += m.curves.len() as i32;
        infos += m.infos.len() as i32;
        for c in &m.curves {
            check_curve(out, &mpath, c);
            for &f in &c.frames {
                let v = match c.eval(f) {
                    Value::Int(v) => i64::from(v),
                    other => i64::from(other.as_f32() as i32),
                };
                if !(0..n).contains(&v) {
                    let msg = format!("frame {f}: texture index {v} outside 0..{n}");
                    out.push(finding(Severity::Error, "texture-index", &mpath, Some(c.at), msg));
                }
            }
        }
        for (j, (info, base)) in m.infos.iter().zip(&m.base_values).enumerate() {
            if i64::from(*base) >= n {
                let msg = format!("sampler {j} base value {base} outside 0..{n}");
                out.push(finding(Severity::Error, "texture-index", &mpath, None, msg));
            }
            if info.curve_index >= 0 && m.curves.get(info.curve_index as usize).is_none() {
                let msg = format!("sampler {j} uses missing curve {}", info.curve_index);
                out.push(finding(Severity::Error, "curve-index", &mpath, None, msg));
            }
        }
    }
}

/// Fixes what [`lint`] marks fixable: header counts, index-group tries and the file size.
/// Returns the repaired file and a description of each change.
pub fn repair(file: &FresFile, data: &[u8]) -> (FresFile, Vec<String>) {
    let mut out = file.clone();
    let mut changes = Vec::new();
    for (g, group_name, entries, built) in group_tries(file, data) {
        if let Some(count) = out.header.counts.get_mut(g).filter(|c| usize::from(**c) != entries.len()) {
            changes.push(format!("{group_name}: count {count} → {}", entries.len()));
            *count = entries.len() as u16;
        }
        let Some(built) = built else { continue };
        for p in &mut out.parts {
            let Part::Dict { group, dict } = p else { continue };
            for (n, b) in dict.nodes.iter_mut().zip(&built).filter(|(n, b)| *group == g && differs(n, b)) {
                changes.push(format!("{group_name}: rebuilt trie node"));
                (n.reference, n.left, n.right) = *b;
            }
        }
    }
    let size = fres::write(&out).len() as u32;
    if out.header.file_size != size {
        changes.push(format!("file size {} → {size}", out.header.file_size));
        out.header.file_size = size;
    }
    changes.dedup();
    (out, changes)
}

/// Consistency checks (derived counts and begin indices, as the Wii U lint checks them): FSKA
/// `curveCount` is the sum of the bones' curve counts and each bone's `beginCurve` the running
/// sum; FMAA `curveCount` is the sum of the materials' curves. Not fixable by `repair` (the
/// findings name what a replacement through the model recomputes).
pub fn lint_switch(data: &[u8], header: &SwitchHeader) -> Vec<Finding> {
    let mut out = Vec::new();
    let listing = Listing::Switch(header);
    let platform = listing.platform();
    for anim in listing.fskas(data).unwrap_or_default() {
        let path = format!("FSKA \"{}\"", anim.name);
        let mut sum = 0usize;
        for bone in &anim.bones {
            if usize::from(bone.begin_curve) != sum {
                let msg =
                    format!("bone \"{}\": beginCurve {} but {sum} curves precede it", bone.name, bone.begin_curve);
                out.push(warn("bfres-switch-begin-curve", &path, bone.at, msg));
            }
            sum += bone.curves.len();
        }
        if usize::try_from(anim.curve_count).ok() != Some(sum) {
            let msg = format!("curveCount {} but the bones hold {sum} curves", anim.curve_count);
            out.push(warn("bfres-switch-curve-count", &path, anim.at, msg));
        }
    }
    for (label, at) in listing.subfiles(data, Kind::Model).unwrap_or_default() {
        lint_model(&mut out, &label.to_string(), data, at, platform);
    }
    for (_, at) in listing.subfiles(data, Kind::Material).unwrap_or_default() {
        let Ok(anim) = fmaa::read(data, at, platform) else { continue };
        let sum: usize = anim.materials.iter().map(|m| m.curves.len()).sum();
        if usize::from(anim.curve_count) != sum {
            let msg = format!("curveCount {} but the materials hold {sum} curves", anim.curve_count);
            out.push(warn("bfres-switch-curve-count", &format!("FMAA \"{}\"", anim.name), at, msg));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curve_bits_are_required_from_the_version_that_sets_them() {
        // Mario Kart 8 (3.4.0.4) bone flags: base scale/rotate/translate and transform bits,
        // no curve bit; BotW (4.5.0.3) must flag every curve.
        let mk8 = 0x0300_0038;
        assert!(!curve_bits_apply(mk8, 0x0304_0004));
        assert!(curve_bits_apply(mk8, 0x0405_0003));
        // Some bits set (here rotate Z, bit 11): the bone is checked bit by bit at any version.
        assert!(curve_bits_apply(mk8 | 1 << 11, 0x0304_0004));
    }
}
