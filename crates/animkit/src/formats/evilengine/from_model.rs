//! Model → SKB, in canonical form (`evilengine.md` §3.2, §4).
//!
//! - Bones: a track's `BoneRef::index`, else its bone's position in the package skeleton (by id,
//!   hash or name: [`Skeleton::find`]; a skeleton read from the character's MODL or `.dff` is in
//!   HAnim node order, §6.2), else a `bone_NN` label. B = the highest bone index + 1, at least
//!   the skeleton's bone count; a channel without a track holds the bone's rest pose from the
//!   skeleton (identity without one). Tracks with no bone index are dropped and counted in one
//!   warning per clip.
//! - Times: the sorted union of every key time of the clip (plus 0 and the duration), strictly
//!   increasing. A bone gets a key at each of its own tracks' key times, plus 0 and the last time
//!   (C7, C8); a key's value is the track's own key at that time, else the model sampled there,
//!   so linear/slerp tracks are reproduced exactly up to quantisation. Step and cubic tracks are
//!   approximated and reported.
//! - Never T = 1: a single-time clip gets the `T = 2`, `{0, 1/30}` form of §3.4.
//! - Quantisation (§3.2): `Quat = round(q·32767)`, of the normalised q unless q already lies on
//!   the 1/32767 grid (a value read from an SKB, whose stored integers come back unchanged);
//!   `Scale[i] = max|t[i]|/32767`, `Tran = round(t/Scale)`, and a zero-range axis gets
//!   `Scale = 0`, `Tran = 0` (no division). When an axis's values are exactly `n × S` for one
//!   scale `S` (read from an SKB: 111 of 675 retail axes peak at 32766, not 32767), that `S` is
//!   kept, so an unchanged clip writes back its stored keys.
//! - V2: times are frames at 30 fps (`round(t·30)`, merged when two round to the same frame), the
//!   quaternion is negated when w < 0 so bit 15 is never set, translations are shared in a table.
//! - The offsets table is derived from the keys (C9); padding is `CD`; Flags is 0.

use std::collections::HashMap;

use glam::{Quat, Vec3};

use super::skb::{Body, KeyV1, KeyV2, Skb, SkbVersion};
use crate::bytes::Endian;
use crate::error::{Error, Result};
use crate::model::rest::rest_pose;
use crate::model::{Clip, Interpolation, Skeleton, Target, Track, Values};
use crate::raw_json::{Hex, F32};
use crate::sample::{sample_track, Sampled};

/// The largest stored quaternion component and translation integer.
const FULL: f32 = 32767.0;

/// The bone index a track addresses.
fn bone_index(track: &Track, skeleton: Option<&Skeleton>) -> Option<usize> {
    let Target::Bone(bone) = &track.target else {
        return None;
    };
    if let Some(i) = bone.index {
        return Some(i as usize);
    }
    if let Some(i) = skeleton.and_then(|s| s.find(bone)) {
        return Some(i);
    }
    bone.name.as_deref()?.strip_prefix("bone_")?.parse().ok()
}

/// A key before quantisation: time index, rotation, translation.
type Key = (usize, Quat, Vec3);

/// The rotation and translation track of each bone index.
type PerBone<'a> = Vec<(Option<&'a Track>, Option<&'a Track>)>;

/// What [`bone_tracks`] left out, for one summarised warning each.
#[derive(Default)]
struct Dropped {
    /// Labels of the tracks with no bone index.
    unbound: Vec<String>,
    /// Tracks of channels SKB cannot store (scale, scalar, …).
    unsupported: Vec<String>,
    /// Step or cubic tracks approximated by linear keys.
    approximated: Vec<String>,
}

/// A summary of labels: the count and the first few.
fn listed(labels: &[String]) -> String {
    let shown: Vec<&str> = labels.iter().map(String::as_str).take(4).collect();
    let more = if labels.len() > shown.len() { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

impl Dropped {
    fn warnings(&self, clip: &Clip, skeleton: Option<&Skeleton>, warnings: &mut Vec<String>) {
        let (name, total) = (&clip.name, clip.tracks.len());
        let unbound_why = match skeleton {
            None => "they name their bone without an SKB bone index, and there is no skeleton to look the names up \
                     in (give the character's .dff or MODL as the skeleton)"
                .to_string(),
            Some(s) => format!("their bones are not in the {}-bone skeleton", s.bones.len()),
        };
        let dropped = |n| format!("{n} of {total} tracks dropped");
        let approximated = |n| format!("{n} step or cubic track(s) approximated by linear keys at their key times");
        for (labels, what, why) in [
            (&self.unbound, dropped(self.unbound.len()), format!(": {unbound_why}")),
            (&self.unsupported, dropped(self.unsupported.len()), ": SKB stores only rotation and translation".into()),
            (&self.approximated, approximated(self.approximated.len()), String::new()),
        ] {
            if !labels.is_empty() {
                warnings.push(format!("clip \"{name}\": {what} ({}){why}", listed(labels)));
            }
        }
    }
}

/// Sorts a clip's tracks by bone index; counts what cannot be stored.
fn bone_tracks<'a>(clip: &'a Clip, skeleton: Option<&Skeleton>) -> Result<(PerBone<'a>, Dropped)> {
    let mut per_bone: PerBone = Vec::new();
    let mut dropped = Dropped::default();
    for track in &clip.tracks {
        track.validate().map_err(|m| Error::unrepresentable(format!("track {}: {m}", track.target.label())))?;
        let Some(b) = bone_index(track, skeleton) else {
            dropped.unbound.push(track.target.label());
            continue;
        };
        if b >= 0xFFFF {
            return Err(Error::unrepresentable(format!("bone index {b} does not fit the u16 BoneCount")));
        }
        if per_bone.len() <= b {
            per_bone.resize(b + 1, (None, None));
        }
        // Present: resized just above.
        let Some(slot) = per_bone.get_mut(b) else {
            continue;
        };
        match track.values {
            Values::Rotation(_) => slot.0 = Some(track),
            Values::Translation(_) => slot.1 = Some(track),
            _ => {
                dropped.unsupported.push(format!("{:?} of {}", track.channel(), track.target.label()));
                continue;
            }
        }
        if matches!(track.interpolation, Interpolation::Step | Interpolation::CubicSpline) {
            dropped.approximated.push(track.target.label());
        }
    }
    // Every bone of the skeleton gets keys (its rest pose where no track moves it), as the
    // engine indexes bones by HAnim node.
    if let Some(s) = skeleton.filter(|s| s.bones.len() > per_bone.len() && s.bones.len() < 0xFFFF) {
        per_bone.resize(s.bones.len(), (None, None));
    }
    Ok((per_bone, dropped))
}

/// The time table: every key time at or after 0, plus 0 and the duration; V2 on its 30 fps grid.
fn time_table(per_bone: &PerBone, clip: &Clip, version: SkbVersion, warnings: &mut Vec<String>) -> Vec<f32> {
    let mut all: Vec<f32> = vec![0.0];
    let mut early = Vec::new();
    for track in per_bone.iter().flat_map(|(r, t)| [r, t]).flatten() {
        all.extend(track.times.iter().copied().filter(|&t| t >= 0.0));
        if track.times.iter().any(|&t| t < 0.0) {
            early.push(track.target.label());
        }
    }
    if !early.is_empty() {
        let (name, n, labels) = (&clip.name, early.len(), listed(&early));
        warnings.push(format!("clip \"{name}\": keys before time 0 of {n} track(s) dropped ({labels})"));
    }
    if clip.duration.is_finite() && clip.duration > 0.0 {
        all.push(clip.duration);
    }
    if version == SkbVersion::V2 {
        for t in &mut all {
            *t = (*t * 30.0).round() / 30.0;
        }
    }
    all.sort_by(f32::total_cmp);
    all.dedup();
    if all.len() == 1 {
        all.push(1.0 / 30.0);
    }
    all
}

/// A track's value at `t`: its own key when one is at exactly `t` (so stored values pass
/// through bit for bit), else the model sampled there.
fn value_at(track: &Track, t: f32) -> Option<Sampled> {
    let i = track.times.partition_point(|&x| x < t);
    let exact = track.interpolation != Interpolation::CubicSpline && track.times.get(i) == Some(&t);
    match (&track.values, exact) {
        (Values::Rotation(v), true) => v.get(i).copied().map(Sampled::Rotation),
        (Values::Translation(v), true) => v.get(i).copied().map(Sampled::Translation),
        _ => sample_track(track, t),
    }
}

/// The keys, bone after bone: at its tracks' key times, plus the first and last time (C7, C8). A
/// channel without a track holds the bone's rest pose (identity without a skeleton).
fn bone_keys(per_bone: &PerBone, all: &[f32], version: SkbVersion, skeleton: Option<&Skeleton>) -> Vec<Key> {
    let last = all.len() - 1;
    let index_of = |t: f32| {
        let t = if version == SkbVersion::V2 { (t * 30.0).round() / 30.0 } else { t };
        all.partition_point(|&x| x < t).min(last)
    };
    let mut keys = Vec::new();
    for (b, &(rot, tran)) in per_bone.iter().enumerate() {
        let rest = rest_pose(skeleton, b);
        let mut idx: Vec<usize> = vec![0, last];
        for track in [rot, tran].into_iter().flatten() {
            idx.extend(track.times.iter().filter(|&&t| t >= 0.0).map(|&t| index_of(t)));
        }
        idx.sort_unstable();
        idx.dedup();
        // Every index is 0, `last` or from `index_of`, all within `all`.
        keys.extend(idx.into_iter().filter_map(|i| Some((i, *all.get(i)?))).map(|(i, t)| {
            let q = match rot.and_then(|tr| value_at(tr, t)) {
                Some(Sampled::Rotation(q)) => q,
                _ => rest.rotation,
            };
            let p = match tran.and_then(|tr| value_at(tr, t)) {
                Some(Sampled::Translation(p)) => p,
                _ => rest.translation,
            };
            (i, q, p)
        }));
    }
    keys
}

/// The lowest peak integer [`axis_scale`] tries when it looks for the scale that stored an axis.
const LOWEST_PEAK: u16 = 32767 - 1023;

/// Whether every value is `n × scale` (the reader's f32 product) for an integer |n| ≤ 32767.
fn fits_grid(values: &[f32], scale: f32) -> bool {
    values.iter().all(|&v| {
        let n = (v / scale).round();
        n.abs() <= FULL && n * scale == v
    })
}

/// The translation scale of one axis (§3.2): the scale the values were stored with when they lie
/// exactly on such a grid whose peak is within the top 1,024 integers, else `max|t| / 32767`; 0
/// for a zero-range axis.
fn axis_scale(values: &[f32]) -> f32 {
    let max = values.iter().fold(0f32, |m, v| m.max(v.abs()));
    if max == 0.0 {
        return 0.0;
    }
    let canonical = max / FULL;
    for peak in (LOWEST_PEAK..=32767).rev() {
        let s = max / f32::from(peak);
        if let Some(found) = [s, s.next_down(), s.next_up()].into_iter().find(|&c| fits_grid(values, c)) {
            return found;
        }
    }
    canonical
}

/// The per-axis scales of a clip's translations; an error when one is not finite.
fn scales(clip: &Clip, keys: &[Key]) -> Result<[f32; 3]> {
    let mut axes: [Vec<f32>; 3] = Default::default();
    for (_, _, p) in keys {
        if !p.is_finite() {
            return Err(Error::unrepresentable(format!("clip \"{}\": a translation is not finite", clip.name)));
        }
        for (axis, c) in axes.iter_mut().zip(p.to_array()) {
            axis.push(c);
        }
    }
    Ok(axes.map(|a| axis_scale(&a)))
}

fn quant_t(p: Vec3, scale: [f32; 3]) -> [i16; 3] {
    let mut out = [0i16; 3];
    for ((o, c), s) in out.iter_mut().zip(p.to_array()).zip(scale) {
        *o = if s == 0.0 { 0 } else { (c / s).round().clamp(-FULL, FULL) as i16 };
    }
    out
}

/// Whether `q` is what the reader decodes from some stored integers (`n / 32767` in f32, §3.1):
/// x y z w in V1; in V2 x y z, and w the reader's `√(1 − x² − y² − z²)` of them (a V1 key whose
/// length is not 1 is not a V2 key: kept as it is, its rotation would change).
fn on_quat_grid(q: Quat, version: SkbVersion) -> bool {
    let stored = if version == SkbVersion::V1 { 4 } else { 3 };
    let on_grid = q.to_array().iter().take(stored).all(|&c| {
        let n = (f64::from(c) * f64::from(FULL)).round() as f32;
        n.abs() <= FULL && n / FULL == c
    });
    on_grid && (version == SkbVersion::V1 || (1.0 - q.x * q.x - q.y * q.y - q.z * q.z).max(0.0).sqrt() == q.w.abs())
}

/// `round(q·32767)`: a stored value as it is, anything else normalised first (§3.2).
fn quant_q(q: Quat, version: SkbVersion) -> [i16; 4] {
    let q = if on_quat_grid(q, version) { q } else { q.normalize() };
    let q = if q.is_finite() { q } else { Quat::IDENTITY };
    q.to_array().map(|c| (c * FULL).round().clamp(-FULL, FULL) as i16)
}

/// Builds one SKB animation from a clip, in layout `version` and byte order `endian`.
pub(crate) fn from_clip(
    clip: &Clip,
    skeleton: Option<&Skeleton>,
    version: SkbVersion,
    endian: Endian,
    warnings: &mut Vec<String>,
) -> Result<Skb> {
    let (per_bone, dropped) = bone_tracks(clip, skeleton)?;
    dropped.warnings(clip, skeleton, warnings);
    let all = time_table(&per_bone, clip, version, warnings);
    let keys = bone_keys(&per_bone, &all, version, skeleton);
    let scale = scales(clip, &keys)?;
    let (key_total, bone_count) = (keys.len(), per_bone.len() as u16);
    let body = match version {
        SkbVersion::V1 => v1_body(&keys, all, scale),
        SkbVersion::V2 => v2_body(clip, &keys, &all, scale)?,
    };
    let (offsets, tail) = (Vec::new(), Hex::default());
    let mut skb = Skb { endian, flags: 0, bone_count, scale: scale.map(F32), body, offsets, tail };
    // Each bone's keys run from time index 0 to T − 1: the runs are the bones.
    skb.offsets = skb
        .derived_offsets()
        .ok_or_else(|| Error::unrepresentable("the bones' keys do not each run from the first time to the last"))?;
    if key_total > 65536 {
        return Err(Error::unrepresentable(format!(
            "{key_total} keys: the u16 offsets table addresses at most 65,536"
        )));
    }
    skb.pad_canonically();
    skb.check_counts()?;
    Ok(skb)
}

/// V1 keys and float times.
fn v1_body(keys: &[Key], times: Vec<f32>, scale: [f32; 3]) -> Body {
    let keys = keys
        .iter()
        .map(|&(i, q, p)| KeyV1 { time_index: i as u16, quat: quant_q(q, SkbVersion::V1), tran: quant_t(p, scale) })
        .collect();
    Body::V1 { keys, times: times.into_iter().map(F32).collect() }
}

/// V2 keys, the shared translation table and 30 fps frame times.
fn v2_body(clip: &Clip, keys: &[Key], all: &[f32], scale: [f32; 3]) -> Result<Body> {
    if keys.len() > usize::from(u16::MAX) || all.len() > 0x7FFF {
        return Err(Error::unrepresentable(format!("clip \"{}\" has too many keys or times for V2", clip.name)));
    }
    let mut table: Vec<[i16; 3]> = Vec::new();
    let mut seen: HashMap<[i16; 3], u16> = HashMap::new();
    let mut v2_keys = Vec::with_capacity(keys.len());
    for &(i, q, p) in keys {
        let q = if q.w < 0.0 { -q } else { q };
        let [x, y, z, _] = quant_q(q, SkbVersion::V2);
        let t = quant_t(p, scale);
        let n = *seen.entry(t).or_insert_with(|| {
            table.push(t);
            (table.len() - 1) as u16
        });
        v2_keys.push(KeyV2 { frame: i as u16, tran_index: n, quat: [x, y, z] });
    }
    let times = all.iter().map(|&t| (t * 30.0).round().clamp(0.0, 65535.0) as u16).collect();
    let (pad_times, pad_tran, pad_offsets) = Default::default();
    Ok(Body::V2 { keys: v2_keys, times, tran: table, pad_times, pad_tran, pad_offsets })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §3.2 scale rule, and the recovery of a stored scale whose peak is 32766 (as in 111 retail
    /// axes): values n × S read back as the reader computes them give back S and the integers.
    #[test]
    fn a_stored_scale_is_recovered_and_fresh_values_get_the_canonical_one() {
        let stored = 0.001_234_5f32;
        let ints = [0i16, 32766, -32000, 17, -1, 12345];
        let values: Vec<f32> = ints.iter().map(|&n| f32::from(n) * stored).collect();
        let s = axis_scale(&values);
        assert_eq!(s, stored);
        let back: Vec<i16> = values.iter().map(|&v| quant_t(Vec3::new(v, 0.0, 0.0), [s, 0.0, 0.0])[0]).collect();
        assert_eq!(back, ints);
        // Values on no grid: max / 32767.
        let fresh = [0.3f32, -1.7, 0.123_456_7];
        assert_eq!(axis_scale(&fresh), 1.7 / 32767.0);
        assert_eq!(axis_scale(&[0.0, -0.0]), 0.0);
    }

    /// A stored quaternion (integers / 32767) is written back as is; another is normalised first.
    #[test]
    fn stored_quaternions_keep_their_integers() {
        let ints = [100i16, -200, 23170, 23169];
        let q = Quat::from_array(ints.map(|n| f32::from(n) / 32767.0));
        assert!((q.length() - 1.0).abs() > 1e-6, "not unit, as stored values often are not");
        assert_eq!(quant_q(q, SkbVersion::V1), ints);
        // Twice the same direction off the grid: normalised, then rounded (0.6 · 32767 = 19660.2).
        assert_eq!(quant_q(Quat::from_xyzw(0.0, 0.6, 0.0, 0.8) * 2.0, SkbVersion::V1), [0, 19660, 0, 26214]);
    }
}
