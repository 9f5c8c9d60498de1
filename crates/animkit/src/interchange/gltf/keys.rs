//! Transform tracks made ready for glTF keys: times strictly increasing from 0 s, rotations unit
//! and hemisphere-continuous, `Nlerp` rotations resampled (see the module docs of [`super`]).

use std::sync::OnceLock;

use glam::{Quat, Vec4};

use crate::model::{Interpolation, Track, Values};
use crate::sample::{nlerp, sample_track, Sampled};

/// The largest rotation-angle error (radians) allowed between glTF's slerp through the resampled
/// keys and the engine's nlerp, for `Nlerp` tracks.
pub const NLERP_TOLERANCE: f64 = 1e-5;

/// How far a repeated key is moved (seconds), as `ifp.md` §7.2 asks.
pub const REPEAT_OFFSET: f32 = 1e-4;

/// Keys of one transform track as flat floats: `comps` floats per value, `per_key` values per key.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatKeys {
    /// Key times in seconds.
    pub times: Vec<f32>,
    /// The values, flat.
    pub values: Vec<f32>,
    /// Floats per value (4 for a rotation, 3 for a translation or scale).
    pub comps: usize,
    /// Values per key (3 for cubic keys: in-tangent, value, out-tangent).
    pub per_key: usize,
}

impl FlatKeys {
    fn from_track(track: &Track) -> Option<FlatKeys> {
        let per_key = if track.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        let (values, comps): (Vec<f32>, usize) = match &track.values {
            Values::Rotation(q) => (q.iter().flat_map(|q| q.to_array()).collect(), 4),
            Values::Translation(v) | Values::Scale(v) => (v.iter().flat_map(|v| v.to_array()).collect(), 3),
            _ => return None,
        };
        Some(FlatKeys { times: track.times.clone(), values, comps, per_key })
    }

    /// Key `i`'s values (`per_key` values of `comps` floats).
    fn key(&self, i: usize) -> Option<&[f32]> {
        let n = self.comps * self.per_key;
        self.values.get(i * n..(i + 1) * n)
    }
}

fn sampled_flat(s: Sampled) -> Vec<f32> {
    match s {
        Sampled::Rotation(q) => q.to_array().to_vec(),
        Sampled::Translation(v) | Sampled::Scale(v) => v.to_array().to_vec(),
        Sampled::Scalar(x) => vec![x],
        Sampled::TextureIndex(i) => vec![i as f32],
        Sampled::Visibility(b) => vec![f32::from(u8::from(b))],
    }
}

/// Removes keys before time 0, putting a key at 0 with the value the model has there (and, for a
/// cubic track, the curve's derivative as both tangents), so playback from 0 on is unchanged.
/// Returns whether anything changed.
pub fn clamp_negative(track: &Track, keys: &mut FlatKeys) -> bool {
    let Some(&first) = keys.times.first() else {
        return false;
    };
    if first >= 0.0 {
        return false;
    }
    let k = keys.times.partition_point(|&t| t < 0.0);
    let n = keys.comps * keys.per_key;
    if keys.times.get(k) == Some(&0.0) {
        keys.times.drain(..k);
        keys.values.drain(..k * n);
        return true;
    }
    let Some(at0) = sample_track(track, 0.0).map(sampled_flat) else {
        return false;
    };
    let mut new_key = Vec::with_capacity(n);
    if keys.per_key == 3 {
        // The derivative of the Hermite segment (k-1, k) at t = 0, in units per second; k ≥ 1 as
        // the first key is before 0. No segment (every key before 0): a constant.
        let c = keys.comps;
        let segment = k.checked_sub(1).and_then(|j| {
            let (_, a_value, a_out) = cubic_key(keys.key(j)?, c)?;
            let (b_in, b_value, _) = cubic_key(keys.key(k)?, c)?;
            Some((keys.times.get(j..=k)?, a_value, a_out, b_in, b_value))
        });
        let deriv: Vec<f32> = match segment {
            Some((&[t0, t1], a_value, a_out, b_in, b_value)) => {
                let d = t1 - t0;
                let u = (0.0 - t0) / d;
                let points = a_value.iter().zip(a_out).zip(b_in).zip(b_value);
                points
                    .map(|(((&p0, &a_out), &b_in), &p1)| {
                        let (m0, m1) = (a_out * d, b_in * d);
                        let dh00 = 6.0 * u * u - 6.0 * u;
                        let dh10 = 3.0 * u * u - 4.0 * u + 1.0;
                        let dh01 = -6.0 * u * u + 6.0 * u;
                        let dh11 = 3.0 * u * u - 2.0 * u;
                        (p0 * dh00 + m0 * dh10 + p1 * dh01 + m1 * dh11) / d
                    })
                    .collect()
            }
            _ => vec![0.0; c],
        };
        new_key.extend_from_slice(&deriv);
        new_key.extend_from_slice(&at0);
        new_key.extend_from_slice(&deriv);
    } else {
        new_key.extend_from_slice(&at0);
    }
    keys.times.drain(..k);
    keys.values.drain(..k * n);
    keys.times.insert(0, 0.0);
    keys.values.splice(0..0, new_key);
    true
}

/// The in-tangent, value and out-tangent of a cubic key of `comps` floats each.
fn cubic_key(key: &[f32], comps: usize) -> Option<(&[f32], &[f32], &[f32])> {
    let (in_tangent, rest) = key.split_at_checked(comps)?;
    let (value, out_tangent) = rest.split_at_checked(comps)?;
    Some((in_tangent, value, out_tangent))
}

/// Makes key times strictly increasing: each run of equal times `t` (k keys, next key at `T`)
/// becomes `t, t + δ, t + 2δ …` with `δ = min(1e-4, (T − t)/k)`, so a step stays a (very short)
/// ramp that ends before the next key. Falls back to the next representable `f32` when `δ`
/// vanishes; returns the indices of keys that still cannot be kept (dropped by the caller), and
/// how many keys were moved.
pub fn strict_times(times: &mut [f32]) -> (Vec<usize>, usize) {
    let next_up = |x: f32| {
        if x == 0.0 {
            f32::from_bits(1)
        } else if x > 0.0 {
            f32::from_bits(x.to_bits() + 1)
        } else {
            f32::from_bits(x.to_bits() - 1)
        }
    };
    for t in times.iter_mut() {
        *t += 0.0; // -0 becomes +0
    }
    let mut drop = Vec::new();
    let mut moved = 0;
    let mut i = 0;
    while let Some(&t) = times.get(i) {
        // Keys i..j are the run at time t.
        let run = 1 + times.iter().skip(i + 1).take_while(|&&x| x <= t).count();
        let j = i + run;
        if run > 1 {
            let next = times.get(j).copied().unwrap_or(f32::INFINITY);
            let delta = REPEAT_OFFSET.min((next - t) / run as f32);
            let mut prev = t;
            for (m, slot) in times.iter_mut().skip(i + 1).take(run - 1).enumerate() {
                let mut v = t + delta * (m + 1) as f32;
                if v <= prev {
                    v = next_up(prev);
                }
                if v >= next || !v.is_finite() {
                    drop.push(i + 1 + m);
                    continue;
                }
                *slot = v;
                prev = v;
                moved += 1;
            }
        }
        i = j;
    }
    (drop, moved)
}

/// The nlerp curve's angle along the arc, for progress `u` on a segment of arc angle `theta`.
fn nlerp_angle(u: f64, theta: f64) -> f64 {
    (u * theta.sin()).atan2((1.0 - u) + u * theta.cos())
}

/// Whether `n` equal parts of a segment of quaternion arc angle `theta` keep slerp between
/// nlerp samples within [`NLERP_TOLERANCE`] (rotation angle) of nlerp, checked at 7 points per
/// part.
fn parts_suffice(n: usize, theta: f64) -> bool {
    let mut err = 0.0f64;
    for i in 0..n {
        let (u0, u1) = (i as f64 / n as f64, (i + 1) as f64 / n as f64);
        let (p0, p1) = (nlerp_angle(u0, theta), nlerp_angle(u1, theta));
        for j in 1..8 {
            let s = j as f64 / 8.0;
            let u = u0 + (u1 - u0) * s;
            err = err.max((nlerp_angle(u, theta) - (p0 + (p1 - p0) * s)).abs());
        }
    }
    // Rotation angle is twice the quaternion arc angle.
    2.0 * err <= NLERP_TOLERANCE
}

/// The most parts a segment is split into.
const MAX_PARTS_LOG2: usize = 10;

/// The largest arc angle in [0, π/2] that `n` parts resample well enough ([`parts_suffice`]):
/// the error grows with the angle, so the angles that suffice are those up to this one, found
/// by bisection to the last `f64` (the unit test checks the growth on a fine grid).
fn largest_angle(n: usize) -> f64 {
    let (mut lo, mut hi) = (0f64.to_bits(), std::f64::consts::FRAC_PI_2.to_bits());
    if parts_suffice(n, f64::from_bits(hi)) {
        return f64::from_bits(hi);
    }
    // Positive floats order as their bits; `lo` suffices, `hi` does not.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if parts_suffice(n, f64::from_bits(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    f64::from_bits(lo)
}

/// [`largest_angle`] of 2^k parts, computed once, on first need (a few µs for the small `k`
/// that ordinary keys need).
fn max_angle(k: usize) -> f64 {
    static MAX: [OnceLock<f64>; MAX_PARTS_LOG2] = [const { OnceLock::new() }; MAX_PARTS_LOG2];
    MAX.get(k).map_or(f64::INFINITY, |cell| *cell.get_or_init(|| largest_angle(1 << k)))
}

/// The smallest cosine whose arc angle is within [`max_angle`] of 2^k parts: as `acos` falls
/// while the cosine grows, a segment whose quaternions' `|dot|` is `c` needs at most 2^k parts
/// when `c >= min_cos(k)`, with no `acos` per segment.
fn min_cos(k: usize) -> f64 {
    static MIN: [OnceLock<f64>; MAX_PARTS_LOG2] = [const { OnceLock::new() }; MAX_PARTS_LOG2];
    let smallest = |max: f64| {
        if 0f64.acos() <= max {
            return 0.0;
        }
        // Positive floats order as their bits; `acos(lo)` is over `max`, `acos(hi)` (1 → 0) is not.
        let (mut lo, mut hi) = (0f64.to_bits(), 1f64.to_bits());
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if f64::from_bits(mid).acos() <= max {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        f64::from_bits(hi)
    };
    MIN.get(k).map_or(f64::INFINITY, |cell| *cell.get_or_init(|| smallest(max_angle(k))))
}

/// How many equal parts (a power of two, at most 1024) the segment between two quaternions
/// whose `|dot|` is `c` (in [0, 1]) needs so that slerp between nlerp samples stays within
/// [`NLERP_TOLERANCE`] (rotation angle) of nlerp: the fewest that [`parts_suffice`] for its arc
/// angle `acos(c)`.
fn parts_for_cos(c: f64) -> usize {
    (0..MAX_PARTS_LOG2).find(|&k| c >= min_cos(k)).map_or(1 << MAX_PARTS_LOG2, |k| 1 << k)
}

/// Resamples an nlerp rotation track so that glTF's slerp reproduces it (see [`parts_for_cos`]).
pub fn resample_nlerp(times: &[f32], rotations: &[Quat]) -> (Vec<f32>, Vec<Quat>) {
    let mut out_t = Vec::with_capacity(times.len());
    let mut out_q = Vec::with_capacity(rotations.len());
    for (i, (&ta, &qa)) in times.iter().zip(rotations).enumerate() {
        out_t.push(ta);
        out_q.push(qa);
        let (Some(&tb), Some(&qb)) = (times.get(i + 1), rotations.get(i + 1)) else {
            break;
        };
        if tb <= ta {
            continue;
        }
        let c = f64::from(Vec4::from(qa).dot(Vec4::from(qb)).abs()).min(1.0);
        let parts = parts_for_cos(c);
        for p in 1..parts {
            let u = p as f32 / parts as f32;
            out_t.push(ta + (tb - ta) * u);
            out_q.push(nlerp(qa, qb, u));
        }
    }
    (out_t, out_q)
}

/// Normalises quaternion keys and flips signs so neighbours lie in the same hemisphere.
fn continuous_rotations(values: &mut [f32]) {
    let mut prev: Option<Vec4> = None;
    for q in values.as_chunks_mut::<4>().0 {
        let mut v = Vec4::from_array(*q);
        // Keep keys that are unit already bit for bit; normalise the others.
        if (v.length_squared() - 1.0).abs() > 2e-6 {
            v = v.normalize_or_zero();
            if v == Vec4::ZERO {
                v = Vec4::W;
            }
        }
        if let Some(p) = prev {
            if p.dot(v) < 0.0 {
                v = -v;
            }
        }
        *q = v.to_array();
        prev = Some(v);
    }
}

/// A transform track ready for glTF: times, flat output values, the glTF interpolation.
pub struct Prepared {
    /// Key times in seconds, strictly increasing from 0.
    pub times: Vec<f32>,
    /// The output values, flat.
    pub values: Vec<f32>,
    /// Floats per value (4 for a rotation).
    pub comps: usize,
    /// `LINEAR`, `STEP` or `CUBICSPLINE`.
    pub interpolation: &'static str,
    /// What changed on the way (cut, resampled, moved keys), one line each.
    pub notes: Vec<String>,
}

/// A transform track as glTF keys, or why it cannot be a channel.
pub fn prepare(track: &Track) -> std::result::Result<Prepared, String> {
    track.validate()?;
    if track.times.is_empty() {
        return Err("the track has no keys".into());
    }
    let mut notes = Vec::new();
    let mut interp = track.interpolation;
    let mut keys = FlatKeys::from_track(track).ok_or("not a transform channel")?;
    if clamp_negative(track, &mut keys) {
        notes.push("keys before 0 s were cut at 0 s".to_string());
    }
    if interp == Interpolation::Nlerp && keys.comps == 4 {
        let quats: Vec<Quat> = keys.values.as_chunks::<4>().0.iter().map(|&q| Quat::from_array(q)).collect();
        let before = keys.times.len();
        let (t, q) = resample_nlerp(&keys.times, &quats);
        keys.times = t;
        keys.values = q.iter().flat_map(|q| q.to_array()).collect();
        interp = Interpolation::Slerp;
        if keys.times.len() != before {
            notes.push(format!("nlerp resampled from {before} to {} keys", keys.times.len()));
        }
    } else if interp == Interpolation::Nlerp {
        interp = Interpolation::Linear;
    }
    if interp == Interpolation::CubicSpline && keys.times.len() < 2 {
        // glTF needs two keys for a cubic spline; one key is a constant.
        let (_, value, _) = keys.key(0).and_then(|k| cubic_key(k, keys.comps)).ok_or("a cubic key without a value")?;
        keys.values = value.to_vec();
        keys.per_key = 1;
        interp = Interpolation::Step;
    }
    if keys.comps == 4 {
        if interp == Interpolation::CubicSpline {
            // Normalise the values (not the tangents): glTF requires unit rotations. Each key is
            // in-tangent, value, out-tangent: the value is every third quaternion from the second.
            for value in keys.values.as_chunks_mut::<4>().0.iter_mut().skip(1).step_by(3) {
                let v = Vec4::from_array(*value).normalize_or_zero();
                *value = if v == Vec4::ZERO { Vec4::W } else { v }.to_array();
            }
        } else {
            continuous_rotations(&mut keys.values);
        }
    }
    let (drop, moved) = strict_times(&mut keys.times);
    if moved > 0 {
        notes.push(format!("{moved} repeated key time(s) moved by up to {REPEAT_OFFSET} s"));
    }
    if !drop.is_empty() {
        let n = keys.comps * keys.per_key;
        for &d in drop.iter().rev() {
            keys.times.remove(d);
            keys.values.drain(d * n..(d + 1) * n);
        }
        notes.push(format!("{} key(s) at an unrepresentable repeated time dropped", drop.len()));
    }
    let interpolation = match interp {
        Interpolation::Step => "STEP",
        Interpolation::CubicSpline => "CUBICSPLINE",
        _ => "LINEAR",
    };
    Ok(Prepared { times: keys.times, values: keys.values, comps: keys.comps, interpolation, notes })
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::model::{BoneRef, Target};

    #[test]
    fn repeated_times_move_by_1e4_below_the_next_key() {
        let mut t = [0.0, 1.0, 1.0, 2.0];
        let (drop, moved) = strict_times(&mut t);
        assert!(drop.is_empty());
        assert_eq!(moved, 1);
        assert_eq!(t, [0.0, 1.0, 1.0 + 1e-4, 2.0]);
        // Three keys at 1 with the next key 1e-4 later: δ = 1e-4 / 3.
        let mut t = [1.0, 1.0, 1.0, 1.0001];
        strict_times(&mut t);
        assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
        assert!(t[2] < 1.0001);
    }

    #[test]
    fn negative_times_are_cut_at_zero_with_the_model_value() {
        // A linear translation from x = -1 at t = -1 to x = 1 at t = 1 is 0 at t = 0.
        let track = Track {
            target: Target::Bone(BoneRef::named("a")),
            interpolation: Interpolation::Linear,
            times: vec![-1.0, 1.0],
            values: Values::Translation(vec![Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0)]),
        };
        let mut keys = FlatKeys::from_track(&track).unwrap();
        assert!(clamp_negative(&track, &mut keys));
        assert_eq!(keys.times, [0.0, 1.0]);
        assert_eq!(keys.values, [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn cubic_cut_keeps_the_curve() {
        // p(t) = t³ on [-1, 1] (p' = 3t²): cut at 0 gives value 0, tangent 0, then the same curve.
        let track = Track {
            target: Target::Bone(BoneRef::named("a")),
            interpolation: Interpolation::CubicSpline,
            times: vec![-1.0, 1.0],
            values: Values::Translation(vec![
                Vec3::splat(3.0),
                Vec3::splat(-1.0),
                Vec3::splat(3.0),
                Vec3::splat(3.0),
                Vec3::splat(1.0),
                Vec3::splat(3.0),
            ]),
        };
        let mut keys = FlatKeys::from_track(&track).unwrap();
        clamp_negative(&track, &mut keys);
        assert_eq!(keys.times, [0.0, 1.0]);
        for (a, b) in keys.values[..9].iter().zip([0.0; 9]) {
            assert!((a - b).abs() < 1e-6, "{:?}", keys.values);
        }
    }

    /// The parts by the angle thresholds.
    fn nlerp_parts(theta: f64) -> usize {
        (0..MAX_PARTS_LOG2).find(|&k| theta <= max_angle(k)).map_or(1 << MAX_PARTS_LOG2, |k| 1 << k)
    }

    /// The first power of two that suffices, tried in turn (the definition).
    fn parts_by_search(theta: f64) -> usize {
        (0..MAX_PARTS_LOG2).map(|k| 1 << k).find(|&n| parts_suffice(n, theta)).unwrap_or(1 << MAX_PARTS_LOG2)
    }

    #[test]
    fn nlerp_parts_by_threshold_equal_the_search() {
        // The thresholds stand for the search only where the error grows with the angle: check on
        // a grid up to 1.2 rad (256 parts; beyond, the search costs too much for a unit test),
        // finer where ordinary keys lie, and at each threshold. (Two parts suffice up to 0.06804
        // rad, one part up to 0.06839: the 7 points of one part miss its largest error, so between
        // the two, one part is the answer. Within a few ulps of a threshold the error's rounding
        // makes the search itself flip back and forth, between two answers both at the bound.)
        let grid = (0..=20_000).map(|i| f64::from(i) * 1e-5).chain((0..=1200).map(|i| f64::from(i) * 1e-3));
        for theta in grid.chain((0..7).map(max_angle)) {
            assert_eq!(nlerp_parts(theta), parts_by_search(theta), "theta {theta}");
        }
    }

    #[test]
    fn parts_by_cosine_equal_parts_by_angle() {
        let grid = (0..=100_000).map(|i| f64::from(i) * 1e-5);
        let near = (0..7).map(min_cos).flat_map(|c| (0..7).map(move |d| f64::from_bits(c.to_bits() + d - 3)));
        for c in grid.chain(near).filter(|c| (0.0..=1.0).contains(c)) {
            assert_eq!(parts_for_cos(c), nlerp_parts(c.acos()), "cos {c}");
        }
    }

    #[test]
    fn nlerp_parts_meet_the_bound() {
        // Independent check (Python): for θ = 0.5 rad, 64 parts give a max timing error of
        // 7.1e-6 rad and 32 parts do not meet 1e-5; for θ = 0.01, one part suffices.
        assert_eq!(nlerp_parts(0.5), 64);
        assert_eq!(nlerp_parts(0.01), 1);
        assert!(nlerp_parts(std::f64::consts::FRAC_PI_2) <= 1024);
    }
}
