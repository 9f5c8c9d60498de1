//! Keys for an engine that interpolates differently from the source.
//!
//! Engines join keys their own way: GTA and EvilEngine slerp, CryEngine nlerps, BFRES and glTF
//! may store cubic splines. Writing a source's keys as they are into a format whose engine joins
//! them another way keeps the keys but changes the motion between them: nlerp and slerp part by
//! up to 4° over a 120° segment, and a cubic spline's overshoot is lost entirely. [`rekey`] adds
//! keys, sampled from the source as its own engine plays it, until the target's interpolation
//! stays within a tolerance everywhere between keys (checked at the quarter points of every
//! segment), never closer together than the target's frame spacing.
//!
//! Step tracks are returned as they are: formats express a step in different ways (a repeated
//! key time, a key one frame earlier), which is the writer's to choose.

use glam::{DQuat, DVec4, Quat, Vec3};

use super::{Interpolation, Track, Values};
use crate::sample::{sample_segment, sample_track, Sampled, Segment};

/// How closely re-keyed tracks follow the source.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Tolerance {
    /// The largest rotation between source and target, in radians.
    pub rotation: f32,
    /// The largest difference of a translation, scale or scalar component, in source units.
    pub vector: f32,
    /// The target's key spacing in seconds (its frame length); 0 where times are floats.
    pub frame: f32,
}

impl Tolerance {
    /// A tolerance of `rotation` radians, `vector` source units, on keys `frame` seconds apart.
    pub fn new(rotation: f32, vector: f32, frame: f32) -> Tolerance {
        Tolerance { rotation, vector, frame }
    }
}

/// A re-keyed track and what it took.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Rekeyed {
    /// The track with its new keys.
    pub track: Track,
    /// Keys added to the source's.
    pub added: usize,
    /// The largest difference left at a checked point where the frame spacing allowed no new key
    /// (radians for rotations, units otherwise); 0 when the tolerance holds everywhere checked.
    pub worst: f32,
}

/// The deepest subdivision of one source segment (2^12 keys), whatever the frame spacing.
const MAX_DEPTH: u32 = 12;

/// `track` with keys such that interpolating them as `target` follows the source's own
/// interpolation within `tolerance`. Returns the track unchanged (no key added) when it already
/// interpolates as `target`, is a step track, or is of a channel that always steps.
pub fn rekey(track: &Track, target: Interpolation, tolerance: Tolerance) -> Rekeyed {
    let unchanged = Rekeyed { track: track.clone(), added: 0, worst: 0.0 };
    let same = track.interpolation == target
        || matches!((track.interpolation, target), (Interpolation::Linear, Interpolation::Slerp))
            && matches!(track.values, Values::Rotation(_));
    if same || track.interpolation == Interpolation::Step || target == Interpolation::CubicSpline {
        return unchanged;
    }
    let mut out = Builder { source: track, target, tolerance, times: Vec::new(), values: Vec::new(), worst: 0.0 };
    let keys: Vec<(f32, Sampled)> =
        track.times.iter().enumerate().filter_map(|(i, &t)| key_value(track, i).map(|v| (t, v))).collect();
    let Some(&(t0, v0)) = keys.first() else { return unchanged };
    if !matches!(v0, Sampled::Rotation(_) | Sampled::Translation(_) | Sampled::Scale(_) | Sampled::Scalar(_)) {
        return unchanged;
    }
    out.push(t0, v0);
    for pair in keys.windows(2) {
        if let [(ta, va), (tb, vb)] = *pair {
            out.segment(ta, va, tb, vb, 0);
        }
    }
    let added = out.times.len().saturating_sub(track.times.len());
    let worst = out.worst;
    Rekeyed { track: out.finish(), added, worst }
}

/// The value key `i` holds (for a cubic track, the value between its tangents). Two keys at one
/// time (a step) each keep their own value.
fn key_value(track: &Track, i: usize) -> Option<Sampled> {
    sample_segment(track, Segment { a: i, b: i, u: 0.0, length: 0.0 })
}

struct Builder<'a> {
    source: &'a Track,
    target: Interpolation,
    tolerance: Tolerance,
    times: Vec<f32>,
    values: Vec<Sampled>,
    worst: f32,
}

impl Builder<'_> {
    fn push(&mut self, t: f32, v: Sampled) {
        self.times.push(t);
        self.values.push(v);
    }

    /// Adds the keys of the source segment from `(ta, va)` to `(tb, vb)` after `ta`'s: `tb` alone
    /// when the target's interpolation follows the source closely enough, else the segment split
    /// at a frame near its middle, each half in turn.
    fn segment(&mut self, ta: f32, va: Sampled, tb: f32, vb: Sampled, depth: u32) {
        if tb <= ta {
            // A step: nothing lies between the two keys.
            return self.push(tb, vb);
        }
        let error = [0.25f32, 0.5, 0.75]
            .iter()
            .filter_map(|&u| {
                let t = ta + (tb - ta) * u;
                let source = sample_track(self.source, t)?;
                Some(self.distance(source, self.between(va, vb, u)?))
            })
            .fold(0.0f32, f32::max);
        let limit = match va {
            Sampled::Rotation(_) => self.tolerance.rotation,
            _ => self.tolerance.vector,
        };
        let split = (error > limit && depth < MAX_DEPTH).then(|| self.split_time(ta, tb)).flatten();
        match split.and_then(|tm| sample_track(self.source, tm).map(|vm| (tm, vm))) {
            Some((tm, vm)) => {
                self.segment(ta, va, tm, vm, depth + 1);
                self.segment(tm, vm, tb, vb, depth + 1);
            }
            None => {
                if error > limit {
                    self.worst = self.worst.max(error);
                }
                self.push(tb, vb);
            }
        }
    }

    /// A time strictly inside `(ta, tb)` near its middle, on the target's frame grid.
    fn split_time(&self, ta: f32, tb: f32) -> Option<f32> {
        let mid = (ta + tb) / 2.0;
        let frame = self.tolerance.frame;
        let t = if frame > 0.0 { (mid / frame).round() * frame } else { mid };
        (t > ta && t < tb && (frame <= 0.0 || (t - ta >= frame * 0.999 && tb - t >= frame * 0.999))).then_some(t)
    }

    /// The target engine's value a fraction `u` of the way from `a` to `b`.
    fn between(&self, a: Sampled, b: Sampled, u: f32) -> Option<Sampled> {
        Some(match (a, b) {
            (Sampled::Rotation(a), Sampled::Rotation(b)) => {
                let b = if a.dot(b) < 0.0 { -b } else { b };
                Sampled::Rotation(if self.target == Interpolation::Nlerp { a.lerp(b, u) } else { a.slerp(b, u) })
            }
            (Sampled::Translation(a), Sampled::Translation(b)) => Sampled::Translation(a.lerp(b, u)),
            (Sampled::Scale(a), Sampled::Scale(b)) => Sampled::Scale(a.lerp(b, u)),
            (Sampled::Scalar(a), Sampled::Scalar(b)) => Sampled::Scalar(a + (b - a) * u),
            _ => return None,
        })
    }

    /// Radians between rotations (from the chord, exact for small angles); the largest component
    /// difference otherwise.
    fn distance(&self, a: Sampled, b: Sampled) -> f32 {
        match (a, b) {
            (Sampled::Rotation(p), Sampled::Rotation(q)) => rotation_between(p, q),
            (Sampled::Translation(p), Sampled::Translation(q)) | (Sampled::Scale(p), Sampled::Scale(q)) => {
                (p - q).abs().max_element()
            }
            (Sampled::Scalar(p), Sampled::Scalar(q)) => (p - q).abs(),
            _ => 0.0,
        }
    }

    /// The re-keyed track: the target's interpolation over the collected keys.
    fn finish(self) -> Track {
        let values = match self.values.first() {
            Some(Sampled::Rotation(_)) => Values::Rotation(self.values.iter().filter_map(as_rotation).collect()),
            Some(Sampled::Translation(_)) => Values::Translation(self.values.iter().filter_map(as_vector).collect()),
            Some(Sampled::Scale(_)) => Values::Scale(self.values.iter().filter_map(as_vector).collect()),
            _ => Values::Scalar(self.values.iter().filter_map(as_scalar).collect()),
        };
        Track { target: self.source.target.clone(), interpolation: self.target, times: self.times, values }
    }
}

/// The angle between two rotations in radians: `4·asin(|p − q| / 2)` with `q` on `p`'s side.
pub fn rotation_between(p: Quat, q: Quat) -> f32 {
    let (p, q): (DQuat, DQuat) = (p.normalize().as_dquat(), q.normalize().as_dquat());
    let q = if p.dot(q) < 0.0 { -q } else { q };
    let chord = (DVec4::from(p) - DVec4::from(q)).length();
    (4.0 * (chord / 2.0).min(1.0).asin()) as f32
}

fn as_rotation(v: &Sampled) -> Option<Quat> {
    match *v {
        Sampled::Rotation(q) => Some(q),
        _ => None,
    }
}

fn as_vector(v: &Sampled) -> Option<Vec3> {
    match *v {
        Sampled::Translation(x) | Sampled::Scale(x) => Some(x),
        _ => None,
    }
}

fn as_scalar(v: &Sampled) -> Option<f32> {
    match *v {
        Sampled::Scalar(x) => Some(x),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BoneRef, Target};
    use std::f32::consts::PI;

    const TIGHT: Tolerance = Tolerance { rotation: 1e-3, vector: 1e-3, frame: 0.0 };

    fn bone() -> Target {
        Target::Bone(BoneRef::named("b"))
    }

    /// The largest difference between `a` and `b` at `n + 1` evenly spaced times over `0..=end`.
    fn worst(a: &Track, b: &Track, end: f32, n: usize) -> f32 {
        (0..=n)
            .map(|i| end * i as f32 / n as f32)
            .map(|t| match (sample_track(a, t).unwrap(), sample_track(b, t).unwrap()) {
                (Sampled::Rotation(p), Sampled::Rotation(q)) => rotation_between(p, q),
                (Sampled::Translation(p), Sampled::Translation(q)) => (p - q).abs().max_element(),
                _ => unreachable!(),
            })
            .fold(0.0, f32::max)
    }

    #[test]
    fn a_wide_slerp_becomes_nlerp_keys_that_follow_it() {
        // 160° about z in one second: nlerp's midpoint error is about 12° without extra keys.
        let slerp = Track {
            target: bone(),
            interpolation: Interpolation::Slerp,
            times: vec![0.0, 1.0],
            values: Values::Rotation(vec![Quat::IDENTITY, Quat::from_rotation_z(160f32.to_radians())]),
        };
        let plain = Track { interpolation: Interpolation::Nlerp, ..slerp.clone() };
        assert!(worst(&slerp, &plain, 1.0, 64) > 0.05);
        let r = rekey(&slerp, Interpolation::Nlerp, TIGHT);
        assert_eq!(r.track.interpolation, Interpolation::Nlerp);
        assert!(r.added > 0 && r.worst == 0.0);
        assert!(worst(&slerp, &r.track, 1.0, 997) <= 2e-3, "{}", worst(&slerp, &r.track, 1.0, 997));
        // The source's keys are all kept.
        assert!(slerp.times.iter().all(|t| r.track.times.contains(t)));
    }

    #[test]
    fn a_cubic_overshoot_survives_as_linear_keys_on_the_frame_grid() {
        // From 0 to 1 with steep tangents: the curve overshoots far beyond the keys.
        let cubic = Track {
            target: bone(),
            interpolation: Interpolation::CubicSpline,
            times: vec![0.0, 1.0],
            values: Values::Translation(vec![
                Vec3::ZERO,
                Vec3::ZERO,
                Vec3::X * 8.0,
                Vec3::X * 8.0,
                Vec3::X,
                Vec3::ZERO,
            ]),
        };
        let frame = 1.0 / 30.0;
        let r = rekey(&cubic, Interpolation::Linear, Tolerance { frame, ..TIGHT });
        assert!(r.track.times.iter().all(|t| ((t / frame).round() * frame - t).abs() < 1e-5));
        for (&t, v) in r.track.times.iter().zip(match &r.track.values {
            Values::Translation(v) => v,
            _ => unreachable!(),
        }) {
            let Some(Sampled::Translation(s)) = sample_track(&cubic, t) else { unreachable!() };
            assert!((s - *v).length() < 1e-6, "keys are the source's values at their times");
        }
        // Between frames the straight lines stay close to the curve (a frame is the limit).
        assert!(worst(&cubic, &r.track, 1.0, 300) < 0.05, "{}", worst(&cubic, &r.track, 1.0, 300));
    }

    #[test]
    fn frame_spacing_bounds_the_keys_and_reports_what_is_left() {
        let slerp = Track {
            target: bone(),
            interpolation: Interpolation::Slerp,
            times: vec![0.0, 0.05],
            values: Values::Rotation(vec![Quat::IDENTITY, Quat::from_rotation_x(PI * 0.9)]),
        };
        let r = rekey(&slerp, Interpolation::Nlerp, Tolerance { frame: 0.1, ..TIGHT });
        assert_eq!(r.added, 0, "no frame inside a segment shorter than a frame");
        assert!(r.worst > 0.01);
    }

    #[test]
    fn a_step_made_of_two_keys_at_one_time_is_kept() {
        let slerp = Track {
            target: bone(),
            interpolation: Interpolation::Slerp,
            times: vec![0.0, 1.0, 1.0, 2.0],
            values: Values::Rotation(vec![
                Quat::IDENTITY,
                Quat::from_rotation_y(1.5),
                Quat::from_rotation_y(-1.5),
                Quat::IDENTITY,
            ]),
        };
        let r = rekey(&slerp, Interpolation::Nlerp, TIGHT);
        let at = |t: f32| r.track.times.iter().filter(|&&x| x == t).count();
        assert_eq!(at(1.0), 2);
        assert!(worst(&slerp, &r.track, 2.0, 401) <= 2e-3);
    }

    #[test]
    fn same_interpolation_and_steps_are_left_alone() {
        let step = Track {
            target: bone(),
            interpolation: Interpolation::Step,
            times: vec![0.0, 1.0],
            values: Values::Translation(vec![Vec3::ZERO, Vec3::ONE]),
        };
        assert_eq!(rekey(&step, Interpolation::Linear, TIGHT).track, step);
        let linear = Track { interpolation: Interpolation::Linear, ..step };
        assert_eq!(rekey(&linear, Interpolation::Linear, TIGHT).added, 0);
    }
}
