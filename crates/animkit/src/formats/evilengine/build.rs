//! Model → SKB, in canonical form (`evilengine.md` §3.2, §4).
//!
//! - Bones: a track's `BoneRef::index`, else its bone's position in the package skeleton, else a
//!   `bone_NN` label. B = the highest bone index + 1; bones without tracks get identity keys.
//! - Times: the sorted union of every key time of the clip (plus 0 and the duration), strictly
//!   increasing. A bone gets a key at each of its own tracks' key times, plus 0 and the last time
//!   (C7, C8); values are the model sampled there, so linear/slerp tracks are reproduced exactly
//!   up to quantisation. Step and cubic tracks are approximated and reported.
//! - Never T = 1: a single-time clip gets the `T = 2`, `{0, 1/30}` form of §3.4.
//! - Quantisation (§3.2): `Quat = round(q·32767)` of the normalised q; `Scale[i] = max|t[i]|/32767`,
//!   `Tran = round(t/Scale)`, and a zero-range axis gets `Scale = 0`, `Tran = 0` (no division).
//! - V2: times are frames at 30 fps (`round(t·30)`, merged when two round to the same frame), the
//!   quaternion is negated when w < 0 so bit 15 is never set, translations are shared in a table.
//! - The offsets table is derived from the keys (C9); padding is `CD`; Flags is 0.

use std::collections::HashMap;

use bytes::Bytes;
use glam::{Quat, Vec3};

use super::lint::{derive_offsets, v1_padding};
use super::skb::{check_counts, Body, KeyV1, KeyV2, Skb, SkbVersion, PAD};
use crate::bytes::Endian;
use crate::error::{Error, Result};
use crate::model::{Clip, Interpolation, Skeleton, Target, Track, Values};
use crate::sample::{sample_track, Sampled};

/// Options for writing SKB from the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildOptions {
    pub version: SkbVersion,
    pub endian: Endian,
}

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

/// One bone's keys before quantisation: time index, rotation, translation.
struct BoneKeys {
    keys: Vec<(usize, Quat, Vec3)>,
}

/// Builds one SKB animation from a clip.
pub fn from_clip(
    clip: &Clip,
    skeleton: Option<&Skeleton>,
    options: BuildOptions,
    warnings: &mut Vec<String>,
) -> Result<Skb> {
    let mut per_bone: Vec<(Option<&Track>, Option<&Track>)> = Vec::new();
    for track in &clip.tracks {
        track.validate().map_err(|m| Error::unrepresentable(format!("track {}: {m}", track.target.label())))?;
        let Some(b) = bone_index(track, skeleton) else {
            warnings.push(format!("clip \"{}\": track {} has no bone index; skipped", clip.name, track.target.label()));
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
            _ => warnings.push(format!(
                "clip \"{}\": {:?} track of {} cannot be stored in SKB; skipped",
                clip.name,
                track.channel(),
                track.target.label()
            )),
        }
        if matches!(track.interpolation, Interpolation::Step | Interpolation::CubicSpline) {
            warnings.push(format!(
                "clip \"{}\": {:?} track of {} is approximated by linear keys at its key times",
                clip.name,
                track.interpolation,
                track.target.label()
            ));
        }
    }
    // The time table.
    let mut all: Vec<f32> = vec![0.0];
    for track in per_bone.iter().flat_map(|(r, t)| [r, t]).flatten() {
        all.extend(track.times.iter().copied().filter(|&t| t >= 0.0));
        if track.times.iter().any(|&t| t < 0.0) {
            warnings.push(format!(
                "clip \"{}\": keys before time 0 of {} are dropped",
                clip.name,
                track.target.label()
            ));
        }
    }
    if clip.duration.is_finite() && clip.duration > 0.0 {
        all.push(clip.duration);
    }
    if options.version == SkbVersion::V2 {
        for t in &mut all {
            *t = (*t * 30.0).round() / 30.0;
        }
    }
    all.sort_by(f32::total_cmp);
    all.dedup();
    if all.len() == 1 {
        all.push(1.0 / 30.0);
    }
    let last = all.len() - 1;
    let index_of = |t: f32| {
        let t = if options.version == SkbVersion::V2 { (t * 30.0).round() / 30.0 } else { t };
        all.partition_point(|&x| x < t).min(last)
    };
    // Keys per bone.
    let mut bones = Vec::with_capacity(per_bone.len());
    for &(rot, tran) in &per_bone {
        let mut idx: Vec<usize> = vec![0, last];
        for track in [rot, tran].into_iter().flatten() {
            idx.extend(track.times.iter().filter(|&&t| t >= 0.0).map(|&t| index_of(t)));
        }
        idx.sort_unstable();
        idx.dedup();
        // Every index is 0, `last` or from `index_of`, all within `all`.
        let keys = idx
            .into_iter()
            .filter_map(|i| Some((i, *all.get(i)?)))
            .map(|(i, t)| {
                let q = match rot.and_then(|tr| sample_track(tr, t)) {
                    Some(Sampled::Rotation(q)) => q,
                    _ => Quat::IDENTITY,
                };
                let p = match tran.and_then(|tr| sample_track(tr, t)) {
                    Some(Sampled::Translation(p)) => p,
                    _ => Vec3::ZERO,
                };
                (i, q, p)
            })
            .collect();
        bones.push(BoneKeys { keys });
    }
    // Scale per axis (§3.2 zero-range rule).
    let mut max = [0f32; 3];
    for (_, _, p) in bones.iter().flat_map(|b| &b.keys) {
        for (m, c) in max.iter_mut().zip(p.to_array()) {
            if !c.is_finite() {
                return Err(Error::unrepresentable(format!("clip \"{}\": a translation is not finite", clip.name)));
            }
            *m = m.max(c.abs());
        }
    }
    let scale = max.map(|m| m / 32767.0);
    let quant_t = |p: Vec3| -> [i16; 3] {
        let mut out = [0i16; 3];
        for ((o, c), s) in out.iter_mut().zip(p.to_array()).zip(scale) {
            *o = if s == 0.0 { 0 } else { (c / s).round().clamp(-32767.0, 32767.0) as i16 };
        }
        out
    };
    let quant_q = |q: Quat| -> [i16; 4] {
        let q = q.normalize();
        let q = if q.is_finite() { q } else { Quat::IDENTITY };
        q.to_array().map(|c| (c * 32767.0).round().clamp(-32767.0, 32767.0) as i16)
    };
    let key_total: usize = bones.iter().map(|b| b.keys.len()).sum();
    let bone_count = bones.len() as u16;
    let mut skb = match options.version {
        SkbVersion::V1 => {
            let keys = bones
                .iter()
                .flat_map(|b| &b.keys)
                .map(|&(i, q, p)| KeyV1 { time_index: i as u16, quat: quant_q(q), tran: quant_t(p) })
                .collect::<Vec<_>>();
            Skb {
                endian: options.endian,
                flags: 0,
                bone_count,
                scale,
                body: Body::V1 { keys, times: all.clone() },
                offsets: Vec::new(),
                tail: Bytes::new(),
            }
        }
        SkbVersion::V2 => {
            if key_total > usize::from(u16::MAX) || all.len() > 0x7FFF {
                return Err(Error::unrepresentable(format!(
                    "clip \"{}\" has too many keys or times for V2",
                    clip.name
                )));
            }
            let mut table: Vec<[i16; 3]> = Vec::new();
            let mut seen: HashMap<[i16; 3], u16> = HashMap::new();
            let mut keys = Vec::with_capacity(key_total);
            for &(i, q, p) in bones.iter().flat_map(|b| &b.keys) {
                let q = if q.w < 0.0 { -q } else { q };
                let [x, y, z, _] = quant_q(q);
                let t = quant_t(p);
                let n = *seen.entry(t).or_insert_with(|| {
                    table.push(t);
                    (table.len() - 1) as u16
                });
                keys.push(KeyV2 { frame: i as u16, tran_index: n, quat: [x, y, z] });
            }
            let frames: Vec<u16> = all.iter().map(|&t| (t * 30.0).round().clamp(0.0, 65535.0) as u16).collect();
            let odd = |n: usize| if n % 2 == 1 { vec![PAD; 2] } else { Vec::new() };
            Skb {
                endian: options.endian,
                flags: 0,
                bone_count,
                scale,
                body: Body::V2 {
                    pad_times: odd(frames.len()),
                    pad_tran: odd(table.len()),
                    pad_offsets: odd(usize::from(bone_count) * last),
                    keys,
                    times: frames,
                    tran: table,
                },
                offsets: Vec::new(),
                tail: Bytes::new(),
            }
        }
    };
    let mut runs = Vec::with_capacity(bones.len());
    let mut start = 0;
    for b in &bones {
        runs.push((start, start + b.keys.len() - 1));
        start += b.keys.len();
    }
    skb.offsets = derive_offsets(&skb, &runs);
    if key_total > 65536 {
        return Err(Error::unrepresentable(format!(
            "{key_total} keys: the u16 offsets table addresses at most 65,536"
        )));
    }
    if let Body::V1 { .. } = skb.body {
        skb.tail = Bytes::from(v1_padding(skb.data_size()));
    }
    check_counts(&skb)?;
    Ok(skb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::evilengine::lint::invariant_violations;
    use crate::formats::evilengine::model::to_clip;
    use crate::formats::evilengine::skb::{read, write};
    use crate::formats::Limits;
    use crate::model::BoneRef;
    use crate::sample::sample;

    fn track(b: u32, times: Vec<f32>, values: Values) -> Track {
        let interpolation =
            if matches!(values, Values::Rotation(_)) { Interpolation::Slerp } else { Interpolation::Linear };
        Track { target: Target::Bone(BoneRef { index: Some(b), ..Default::default() }), interpolation, times, values }
    }

    fn clip() -> Clip {
        Clip {
            name: "c".into(),
            duration: 1.0,
            tracks: vec![
                track(0, vec![0.0, 1.0], Values::Rotation(vec![Quat::IDENTITY, Quat::IDENTITY])),
                track(
                    2,
                    vec![0.0, 0.4, 1.0],
                    Values::Rotation(vec![Quat::IDENTITY, Quat::from_rotation_z(1.0), Quat::from_rotation_x(-2.0)]),
                ),
                // y never moves: a zero-range axis.
                track(
                    2,
                    vec![0.0, 0.6],
                    Values::Translation(vec![Vec3::new(1.0, 0.0, -3.0), Vec3::new(-2.0, 0.0, 5.0)]),
                ),
            ],
            ..Default::default()
        }
    }

    #[test]
    fn model_to_skb_to_model_is_stable_within_quantisation() {
        for version in [SkbVersion::V1, SkbVersion::V2] {
            for endian in [Endian::Big, Endian::Little] {
                let mut warnings = Vec::new();
                let skb = from_clip(&clip(), None, BuildOptions { version, endian }, &mut warnings).unwrap();
                assert!(warnings.is_empty(), "{warnings:?}");
                assert!(invariant_violations(&skb).is_empty(), "{:?}", invariant_violations(&skb));
                assert_eq!(skb.scale[1], 0.0);
                let bytes = Bytes::from(write(&skb));
                if version == SkbVersion::V1 {
                    assert_eq!(bytes.len() % 4, 0);
                }
                let (back, _) = read(&bytes, None).unwrap();
                assert_eq!(back.version(), version);
                let c2 = to_clip(&back, "c", None, &Limits::default()).unwrap();
                assert_eq!(c2.duration, 1.0);
                assert_eq!(usize::from(back.bone_count), 3);
                let src = clip();
                for i in 0..=20 {
                    let t = i as f32 / 20.0;
                    let got = sample(&c2, t);
                    for a in sample(&src, t) {
                        let b = got
                            .iter()
                            .find(|e| {
                                e.target == a.target
                                    && std::mem::discriminant(&e.value) == std::mem::discriminant(&a.value)
                            })
                            .unwrap();
                        match (a.value, b.value) {
                            (Sampled::Rotation(x), Sampled::Rotation(y)) => {
                                assert!(x.dot(y).abs() > 1.0 - 1e-6, "{t} {x:?} {y:?}")
                            }
                            // Quantisation step: max|t| / 32767 per axis (5 / 32767 on z).
                            (Sampled::Translation(x), Sampled::Translation(y)) => {
                                assert!((x - y).abs().max_element() < 5.0 / 32767.0, "{t} {x} {y}")
                            }
                            _ => unreachable!(),
                        }
                    }
                }
                // A second generation stores the same integers (quantisation is idempotent).
                let skb2 = from_clip(&c2, None, BuildOptions { version, endian }, &mut warnings).unwrap();
                assert_eq!(skb2.body, back.body);
                assert_eq!(skb2.offsets, back.offsets);
            }
        }
    }
}
