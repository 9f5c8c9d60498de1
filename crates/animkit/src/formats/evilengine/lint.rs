//! `check` and `repair` for SKB animations and HIP/HOP archives (`evilengine.md` §4, §5).
//!
//! [`invariant_violations`] checks C2–C10 of §4 (C1, big-endian GameCube data, is a retail
//! observation rather than a rule: little-endian PS2/Xbox assets are valid). Each invariant is
//! reported once per animation, with the first offending offset and the number of occurrences.

use std::collections::BTreeMap;

use super::hip::{asset_hash, basename, AnimAsset, Hip};
use super::skb::{Body, KeyV1, Skb, HEADER_SIZE};
use crate::lint::{Finding, Severity, Severity::*};

/// Byte offset of key `k`.
fn key_offset(skb: &Skb, k: usize) -> usize {
    let size = match skb.body {
        Body::V1 { .. } => 16,
        Body::V2 { .. } => 10,
    };
    HEADER_SIZE + size * k
}

/// Byte offset of `offsets[r][b]`.
fn offsets_offset(skb: &Skb, r: usize, b: usize) -> usize {
    skb.offsets_start() + 2 * (r * usize::from(skb.bone_count) + b)
}

/// Collects the first occurrence of each code and counts the rest.
struct Collector {
    first: BTreeMap<&'static str, (Finding, usize)>,
}

impl Collector {
    fn push(&mut self, severity: Severity, code: &'static str, offset: usize, message: impl FnOnce() -> String) {
        self.first
            .entry(code)
            .and_modify(|(_, n)| *n += 1)
            .or_insert_with(|| (Finding::new(severity, code, message()).at(offset), 1));
    }

    fn finish(self) -> Vec<Finding> {
        self.first
            .into_values()
            .map(|(mut f, n)| {
                if n > 1 {
                    f.message.push_str(&format!(" ({n} occurrences)"));
                }
                f
            })
            .collect()
    }
}

/// Findings for C2–C10 and the key/time ranges (codes `c2-flags` … `c10-key-count`).
pub(crate) fn invariant_violations(skb: &Skb) -> Vec<Finding> {
    let mut c = Collector { first: BTreeMap::new() };
    if skb.flags != 0 {
        c.push(Info, "c2-flags", 4, || format!("Flags = 0x{:08X} (0 in every retail file; preserved)", skb.flags));
    }
    size_and_padding(skb, &mut c);
    times_and_indices(skb, &mut c);
    let (t, k, bones) = (skb.time_count(), skb.key_count(), usize::from(skb.bone_count));
    if t == 1 && k != bones && k != 2 * bones {
        c.push(Error, "static-pose", 0x0C, || format!("T = 1 needs K = B or K = 2B; K = {k}, B = {bones}"));
    }
    if t >= 2 {
        bone_grouping(skb, &mut c);
    }
    c.finish()
}

/// C3: the size and the padding.
fn size_and_padding(skb: &Skb, c: &mut Collector) {
    let mut canonical = skb.clone();
    canonical.pad_canonically();
    if canonical != *skb {
        let (have, want) = (skb.tail.0.len(), canonical.tail.0.len());
        let message = match skb.body {
            Body::V1 { .. } => format!("{have} bytes after the offsets table; the format wants {want} bytes of CD"),
            Body::V2 { .. } => "V2 padding is not CD CD or bytes follow the data".to_string(),
        };
        c.push(Warning, "c3-size", skb.data_size(), || message);
    }
}

/// C4 (times start at 0 and increase) and the time and translation index ranges.
fn times_and_indices(skb: &Skb, c: &mut Collector) {
    let (t_count, times) = (skb.time_count(), skb.times_seconds());
    if t_count == 0 {
        c.push(Error, "c4-times", 0x0A, || "TimeCount is 0".into());
    } else if let Some(&t0) = times.first().filter(|&&t| t != 0.0) {
        c.push(Error, "c4-times", key_offset(skb, skb.key_count()), || format!("times[0] = {t0} (must be 0)"));
    }
    for (i, w) in times.windows(2).enumerate() {
        if let &[a, b] = w {
            if b.partial_cmp(&a) != Some(std::cmp::Ordering::Greater) {
                c.push(Error, "c4-times", key_offset(skb, skb.key_count()), || {
                    format!("times[{}] = {b} does not increase", i + 1)
                });
            }
        }
    }
    for k in (0..skb.key_count()).filter(|&k| skb.key_time_index(k).is_some_and(|ti| ti >= t_count)) {
        c.push(Error, "time-index-range", key_offset(skb, k), || {
            format!("key {k} has a time index past T = {t_count}")
        });
    }
    if let Body::V2 { keys, tran, .. } = &skb.body {
        if let Some(k) = keys.iter().position(|key| usize::from(key.tran_index) >= tran.len()) {
            c.push(Error, "tran-index-range", key_offset(skb, k) + 2, || {
                format!("key {k} has a translation index past N = {}", tran.len())
            });
        }
    }
}

/// C5–C10 for T ≥ 2: each bone's keys follow the previous bone's, at least two of them in time
/// order from time index 0 to T − 1, and the offsets table points at each interval's key.
fn bone_grouping(skb: &Skb, c: &mut Collector) {
    let (rows, k_count, bones) = (skb.rows(), skb.key_count(), usize::from(skb.bone_count));
    let ti = |k: usize| skb.key_time_index(k);
    let mut next_start = 0usize;
    for b in 0..bones {
        let Some((start, end)) = skb.table_range(b) else {
            break;
        };
        let (first_row, last_row) = (offsets_offset(skb, 0, b), offsets_offset(skb, rows - 1, b));
        if start != next_start {
            c.push(Error, "c5-key-grouping", first_row, || {
                format!("bone {b} starts at key {start}, expected {next_start}")
            });
        }
        next_start = end + 1;
        if end >= k_count {
            c.push(Error, "c5-key-grouping", last_row, || format!("bone {b}'s keys end past K = {k_count}"));
            continue;
        }
        if b + 1 == bones && end != k_count - 1 {
            c.push(Error, "c5-key-grouping", last_row, || {
                format!("the last bone ends at key {end}, not K − 1 = {}", k_count - 1)
            });
        }
        if end <= start {
            c.push(Error, "c10-key-count", first_row, || format!("bone {b} has fewer than 2 keys"));
        }
        for k in (start..end).filter(|&k| ti(k) >= ti(k + 1)) {
            c.push(Error, "c6-time-order", key_offset(skb, k + 1), || {
                format!("bone {b}: key {} does not follow key {k} in time", k + 1)
            });
        }
        if end > start && ti(start) != Some(0) {
            c.push(Error, "c7-first-key", key_offset(skb, start), || {
                format!("bone {b}'s first key (key {start}) is not at time index 0")
            });
        }
        if end > start && ti(end) != Some(rows) {
            c.push(Error, "c8-last-key", key_offset(skb, end), || {
                format!("bone {b}'s last key (key {end}) is not at time index T − 1 = {rows}")
            });
        }
        for r in 0..rows {
            let o = skb.offset(r, b).unwrap_or(usize::MAX);
            let ok = o >= start && o < end && ti(o).is_some_and(|x| x <= r) && ti(o + 1).is_some_and(|x| r < x);
            if !ok {
                c.push(Error, "c9-offsets", offsets_offset(skb, r, b), || {
                    format!("offsets[{r}][{b}] = {o} is not bone {b}'s key for interval {r}")
                });
            }
        }
    }
    if bones == 0 && k_count > 0 {
        c.push(Error, "c5-key-grouping", 0x08, || format!("BoneCount is 0 but there are {k_count} keys"));
    }
}

/// Every finding for an SKB animation: the invariants plus quality notes.
pub(crate) fn lint_skb(skb: &Skb) -> Vec<Finding> {
    let mut findings = invariant_violations(skb);
    if let Body::V1 { keys, .. } = &skb.body {
        let norm = |key: &KeyV1| key.quat.map(|c| f32::from(c) / 32767.0).iter().map(|c| c * c).sum::<f32>().sqrt();
        if let Some((k, n)) = keys.iter().map(norm).enumerate().find(|(_, n)| (n - 1.0).abs() > 0.01) {
            findings.push(
                Finding::new(Warning, "quaternion-not-unit", format!("key {k} has |q| = {n:.4}"))
                    .at(key_offset(skb, k)),
            );
        }
    }
    if skb.scale.iter().any(|s| !s.0.is_finite()) {
        findings.push(Finding::new(Error, "scale-not-finite", "a Scale component is not finite").at(0x10));
    }
    for f in &mut findings {
        f.fixable = matches!(f.code, "c3-size" | "c9-offsets");
    }
    findings
}

/// A canonical rewrite: CD padding (V1) or CD pads (V2), no trailing bytes, and the offsets
/// table derived from the keys when they are grouped by bone.
pub(crate) fn repair_skb(skb: &Skb) -> (Skb, Vec<String>) {
    let mut out = skb.clone();
    let mut changes = Vec::new();
    if let Some(offsets) = skb.derived_offsets() {
        if offsets != out.offsets {
            changes.push("rebuilt the offsets table from the keys (C9)".to_string());
            out.offsets = offsets;
        }
    }
    let padded = out.clone();
    out.pad_canonically();
    if out != padded {
        changes.push(match out.body {
            Body::V1 { .. } => {
                format!("replaced {} trailing bytes with {} bytes of CD", padded.tail.0.len(), out.tail.0.len())
            }
            Body::V2 { .. } => "rewrote V2 padding as CD CD and dropped trailing bytes".to_string(),
        });
    }
    (out, changes)
}

/// Every finding for an archive (`file` its written bytes): structure (§5) and each ANIM
/// asset's invariants.
pub(crate) fn lint_hip(
    hip: &Hip,
    file: &bytes::Bytes,
    anims: &[AnimAsset],
    parse: impl Fn(&AnimAsset) -> crate::error::Result<Skb>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let assets = hip.assets();
    if assets.windows(2).any(|w| matches!(w, [a, b] if b.0.asset_id < a.0.asset_id)) {
        findings.push(Finding::new(Warning, "atoc-order", "ATOC entries are not sorted by asset ID").path("ATOC"));
    }
    for (a, dbg) in &assets {
        let path = format!("asset 0x{:08X} \"{}\"", a.asset_id, dbg.map(|d| d.name()).unwrap_or_default());
        if let Err(e) = Hip::asset_data(file, a) {
            findings.push(Finding::new(Error, "asset-outside-file", e.message).path(path.clone()));
        }
        let source = dbg.map(|d| d.source()).unwrap_or_default();
        let base = basename(&source);
        if &a.kind.0 == b"ANIM" && !base.is_empty() && asset_hash(base) != a.asset_id {
            findings.push(
                Finding::new(Info, "asset-id-hash", format!("asset ID is not the hash of \"{base}\"")).path(path),
            );
        }
    }
    for asset in anims {
        let path = format!("ANIM 0x{:08X} \"{}\"", asset.asset_id, asset.name);
        match parse(asset) {
            Ok(skb) => findings.extend(lint_skb(&skb).into_iter().map(|f| f.path(path.clone()))),
            Err(e) => findings.push(Finding::new(Error, "anim-unreadable", e.to_string()).path(path)),
        }
    }
    findings
}
