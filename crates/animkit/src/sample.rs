//! Interpolation and pose evaluation on the model.
//!
//! Key search: for time `t`, key `a` is the last key with `time <= t` and `b = a + 1`; before the
//! first key the first value holds, after the last key the last value holds (engines clamp; a
//! looping clip wraps `t` into `[0, duration)` first). Two keys at the same time therefore make a
//! step, which is how GTA and EvilEngine express one. Per-interpolation rules:
//!
//! - `Slerp` (and `Linear` on rotations): shortest arc. With `c = a·b`, `b` is negated when
//!   `c < 0`; then `θ = acos(min(c, 1))` and the result is `(sin((1-u)θ)·a + sin(uθ)·b)/sin θ`,
//!   falling back to a plain lerp when `sin θ < 1e-6`. This is the GTA (re3/gta-reversed) and
//!   RenderWare rule.
//! - `Nlerp`: negate `b` when `a·b < 0`, lerp component-wise, normalise (CryEngine).
//! - `CubicSpline`: cubic Hermite with tangents scaled by the segment length (glTF §Appendix C);
//!   rotations are normalised afterwards.
//! - Texture indices and visibility always step.
//!
//! Rotations are interpolated as the model holds them, which is as the file stores them (not
//! always unit length), and are not renormalised afterwards: that is RenderWare's `rw_slerp`
//! (EvilEngine SKB), and GTA's per-animation value, whose blend of all playing animations the
//! engine then normalises (a lone animation's rotation is this quaternion's direction). Cubic
//! and `Nlerp` results are normalised, as their engines do.

use glam::{Quat, Vec3, Vec4};
use serde::Serialize;

use crate::model::{Clip, Interpolation, Target, Track, Values};

/// A sampled value of one track.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Sampled {
    /// A rotation (unit quaternion `x y z w`).
    Rotation(Quat),
    /// A translation.
    Translation(Vec3),
    /// A scale.
    Scale(Vec3),
    /// A plain number.
    Scalar(f32),
    /// A texture index.
    TextureIndex(u32),
    /// Whether the target is shown.
    Visibility(bool),
}

/// One target's sampled channel in a pose.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoseEntry {
    /// What the value is for.
    pub target: Target,
    /// The value at the sampled time.
    pub value: Sampled,
}

/// Where `t` falls among the keys: the two keys around it and the progress between them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    /// The key before (or at) `t`.
    pub a: usize,
    /// The key after `t` (equal to `a` at the ends).
    pub b: usize,
    /// The progress from `a` to `b`, 0 to 1.
    pub u: f32,
    /// The segment's length in seconds (0 when `a == b`).
    pub length: f32,
}

/// Finds the segment for time `t`; `None` when there are no keys.
pub fn segment(times: &[f32], t: f32) -> Option<Segment> {
    let last = times.len().checked_sub(1)?;
    let i = times.partition_point(|&x| x <= t);
    Some(match between(times, i) {
        Some(seg) => Segment { u: ((t - seg.0) / seg.1).clamp(0.0, 1.0), ..seg.2 },
        None if i == 0 => Segment { a: 0, b: 0, u: 0.0, length: 0.0 },
        None => Segment { a: last, b: last, u: 0.0, length: 0.0 },
    })
}

/// The keys `i - 1` and `i` when both exist: the first one's time, the segment's length, and the
/// segment with `u = 0`.
fn between(times: &[f32], i: usize) -> Option<(f32, f32, Segment)> {
    let a = i.checked_sub(1)?;
    let (&ta, &tb) = (times.get(a)?, times.get(i)?);
    let length = tb - ta;
    Some((ta, length, Segment { a, b: i, u: 0.0, length }))
}

/// Like [`segment`], but for the value approached from the left of `t`: at a key time the
/// segment that ends there (so a step track gives the previous key's value).
pub(crate) fn segment_left(times: &[f32], t: f32) -> Option<Segment> {
    let i = times.partition_point(|&x| x < t);
    let Some((ta, length, seg)) = between(times, i) else { return segment(times, t) };
    let u = if length > 0.0 { ((t - ta) / length).clamp(0.0, 1.0) } else { 1.0 };
    Some(Segment { u, ..seg })
}

/// Shortest-arc spherical interpolation (the GTA/RenderWare rule, see the module docs).
pub(crate) fn slerp(a: Quat, b: Quat, u: f32) -> Quat {
    let (a4, mut b4) = (Vec4::from(a), Vec4::from(b));
    let mut c = a4.dot(b4);
    if c < 0.0 {
        b4 = -b4;
        c = -c;
    }
    let theta = c.min(1.0).acos();
    let s = theta.sin();
    let r = if s < 1e-6 { a4 + (b4 - a4) * u } else { (a4 * ((1.0 - u) * theta).sin() + b4 * (u * theta).sin()) / s };
    Quat::from_vec4(r)
}

/// The quaternion dot product summed in CryEngine's order, `((x·x' + y·y') + z·z') + w·w'`
/// (`Cry_Quat.h` `operator|`), so that a hemisphere test on a dot product near 0 decides as the
/// engine does (a SIMD dot product sums in another order).
pub fn hemisphere_dot(a: Quat, b: Quat) -> f32 {
    a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w
}

/// Hemisphere-corrected normalised linear interpolation (the CryEngine rule: `Quat::SetNlerp`).
pub(crate) fn nlerp(a: Quat, b: Quat, u: f32) -> Quat {
    let (a4, mut b4) = (Vec4::from(a), Vec4::from(b));
    if hemisphere_dot(a, b) < 0.0 {
        b4 = -b4;
    }
    Quat::from_vec4((a4 + (b4 - a4) * u).normalize_or_zero())
}

/// Cubic Hermite basis: value at `u` from p0, scaled out-tangent m0, p1, scaled in-tangent m1.
fn hermite<T>(p0: T, m0: T, p1: T, m1: T, u: f32) -> T
where
    T: std::ops::Mul<f32, Output = T> + std::ops::Add<Output = T>,
{
    let u2 = u * u;
    let u3 = u2 * u;
    p0 * (2.0 * u3 - 3.0 * u2 + 1.0) + m0 * (u3 - 2.0 * u2 + u) + p1 * (-2.0 * u3 + 3.0 * u2) + m1 * (u3 - u2)
}

/// Interpolates a track's values of one type at a segment.
fn interpolate<T: Copy>(
    values: &[T],
    seg: Segment,
    interpolation: Interpolation,
    lerp: impl Fn(T, T, f32) -> T,
    cubic: impl Fn(T, T, T, T, f32) -> T,
) -> Option<T> {
    if interpolation == Interpolation::CubicSpline {
        let p0 = *values.get(3 * seg.a + 1)?;
        if seg.a == seg.b {
            return Some(p0);
        }
        let m0 = *values.get(3 * seg.a + 2)?;
        let m1 = *values.get(3 * seg.b)?;
        let p1 = *values.get(3 * seg.b + 1)?;
        return Some(cubic(p0, m0, p1, m1, seg.u));
    }
    let a = *values.get(seg.a)?;
    if seg.a == seg.b || interpolation == Interpolation::Step {
        return Some(a);
    }
    Some(lerp(a, *values.get(seg.b)?, seg.u))
}

/// Samples one track at time `t` (seconds, clamped to the keys). `None` for a track without keys
/// or whose value count does not fit its times.
pub fn sample_track(track: &Track, t: f32) -> Option<Sampled> {
    sample_segment(track, segment(&track.times, t)?)
}

/// The value of a track approached from the left of `t` (differs from [`sample_track`] only at
/// a step: a step key or two keys at the same time).
pub(crate) fn sample_track_left(track: &Track, t: f32) -> Option<Sampled> {
    sample_segment(track, segment_left(&track.times, t)?)
}

/// Samples one track at a segment found by [`segment`] (or `segment_left`).
pub fn sample_segment(track: &Track, seg: Segment) -> Option<Sampled> {
    let interp = track.interpolation;
    let d = seg.length;
    Some(match &track.values {
        Values::Rotation(v) => {
            let rot_lerp = if interp == Interpolation::Nlerp { nlerp } else { slerp };
            let q = interpolate(v, seg, interp, rot_lerp, |p0, m0, p1, m1, u| {
                let [p0, m0, p1, m1] = [p0, m0, p1, m1].map(Vec4::from);
                Quat::from_vec4(hermite(p0, m0 * d, p1, m1 * d, u).normalize_or_zero())
            })?;
            Sampled::Rotation(q)
        }
        Values::Translation(v) | Values::Scale(v) => {
            let x = interpolate(
                v,
                seg,
                interp,
                |a, b, u| a.lerp(b, u),
                |p0, m0, p1, m1, u| hermite(p0, m0 * d, p1, m1 * d, u),
            )?;
            match track.values {
                Values::Translation(_) => Sampled::Translation(x),
                _ => Sampled::Scale(x),
            }
        }
        Values::Scalar(v) => Sampled::Scalar(interpolate(
            v,
            seg,
            interp,
            |a, b, u| a + (b - a) * u,
            |p0, m0, p1, m1, u| hermite(p0, m0 * d, p1, m1 * d, u),
        )?),
        Values::TextureIndex { indices, .. } => Sampled::TextureIndex(*indices.get(seg.a)?),
        Values::Visibility(v) => Sampled::Visibility(*v.get(seg.a)?),
    })
}

/// Maps a clip time to the time the tracks are sampled at: for a looping clip, wrapped into
/// `[0, duration)`, except that the end of a loop (`t = k × duration`, `k ≥ 1`) is the clip's end,
/// as every engine here plays it (the last frame shows the last key, not the first); unchanged
/// otherwise (tracks clamp at their ends).
pub(crate) fn clip_time(clip: &Clip, t: f32) -> f32 {
    if clip.looping == Some(true) && clip.duration > 0.0 {
        match t.rem_euclid(clip.duration) {
            0.0 if t > 0.0 => clip.duration,
            wrapped => wrapped,
        }
    } else {
        t
    }
}

/// `t` when it is a time a clip can be sampled at (a finite number of seconds), else an error
/// that says so. [`sample`] itself takes any `f32`: callers that take times from users check them here.
pub fn check_time(t: f32) -> crate::Result<f32> {
    if t.is_finite() {
        Ok(t)
    } else {
        Err(crate::Error::new(crate::ErrorKind::Invalid, None, format!("time {t} is not a number of seconds")))
    }
}

/// Evaluates every track of a clip at time `t`, in track order.
///
/// A looping clip's time is wrapped first. The wrap is exact, but `t` itself carries its rounding
/// (a time computed as `loops × duration + key` is not that sum exactly), so a wrapped time that
/// falls within two units in the last place of `t` below a key is taken as that key: a step track
/// then shows the key's value, as it does at the same time in the first loop.
pub fn sample(clip: &Clip, t: f32) -> Vec<PoseEntry> {
    let wrapped = clip_time(clip, t);
    let tolerance = if wrapped == t { 0.0 } else { 2.0 * ulp(t) };
    clip.tracks
        .iter()
        .filter_map(|track| {
            let t = snap_to_next_key(&track.times, wrapped, tolerance);
            sample_track(track, t).map(|value| PoseEntry { target: track.target.clone(), value })
        })
        .collect()
}

/// The spacing of f32 values at `t`.
fn ulp(t: f32) -> f32 {
    let a = t.abs();
    f32::from_bits(a.to_bits() + 1) - a
}

/// `t`, or the first key after it when that key is at most `tolerance` away.
fn snap_to_next_key(times: &[f32], t: f32, tolerance: f32) -> f32 {
    match times.get(times.partition_point(|&x| x <= t)) {
        Some(&key) if key - t <= tolerance => key,
        _ => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::BoneRef;
    use std::f32::consts::FRAC_PI_2;

    fn rot_track(interpolation: Interpolation, times: Vec<f32>, q: Vec<Quat>) -> Track {
        Track { target: Target::Bone(BoneRef::named("b")), interpolation, times, values: Values::Rotation(q) }
    }

    fn close(a: Quat, b: Quat) -> bool {
        Vec4::from(a).abs_diff_eq(Vec4::from(b), 1e-6)
    }

    #[test]
    fn segment_clamps_and_steps_on_equal_times() {
        let times = [0.0, 1.0, 1.0, 2.0];
        assert_eq!(segment(&times, -1.0).unwrap().a, 0);
        assert_eq!(segment(&times, 5.0).unwrap().a, 3);
        // At a repeated time the later key holds: a step.
        let s = segment(&times, 1.0).unwrap();
        assert_eq!((s.a, s.b, s.u), (2, 3, 0.0));
        let s = segment(&times, 0.25).unwrap();
        assert_eq!((s.a, s.b, s.u), (0, 1, 0.25));
        assert!(segment(&[], 0.0).is_none());
    }

    #[test]
    fn left_limit_sees_the_value_before_a_step() {
        let times = [0.0, 1.0, 1.0, 2.0];
        let s = segment_left(&times, 1.0).unwrap();
        assert_eq!((s.a, s.b, s.u), (0, 1, 1.0));
        let step = Track {
            target: Target::Bone(BoneRef::named("b")),
            interpolation: Interpolation::Step,
            times: vec![0.0, 1.0],
            values: Values::Scalar(vec![3.0, 5.0]),
        };
        assert_eq!(sample_track_left(&step, 1.0), Some(Sampled::Scalar(3.0)));
        assert_eq!(sample_track(&step, 1.0), Some(Sampled::Scalar(5.0)));
    }

    #[test]
    fn slerp_halfway_about_z_is_45_degrees() {
        // Independent value: a 90° turn about Z halves to 45°: (0, 0, sin 22.5°, cos 22.5°).
        let b = Quat::from_rotation_z(FRAC_PI_2);
        let expect = Quat::from_xyzw(0.0, 0.0, 0.382_683_43, 0.923_879_5);
        assert!(close(slerp(Quat::IDENTITY, b, 0.5), expect));
        // The other hemisphere's copy of b gives the same (shortest) arc.
        assert!(close(slerp(Quat::IDENTITY, -b, 0.5), expect));
    }

    #[test]
    fn slerp_quarter_keeps_constant_angular_speed() {
        // 90° about X, a quarter of the way: 22.5° → (sin 11.25°, 0, 0, cos 11.25°).
        let b = Quat::from_rotation_x(FRAC_PI_2);
        let expect = Quat::from_xyzw(0.195_090_32, 0.0, 0.0, 0.980_785_3);
        assert!(close(slerp(Quat::IDENTITY, b, 0.25), expect));
    }

    #[test]
    fn nlerp_differs_from_slerp_off_the_midpoint() {
        let b = Quat::from_rotation_x(FRAC_PI_2);
        // nlerp at 1/4: normalise((1-u)·(0,0,0,1) + u·(s,0,0,c)) with s = c = √½.
        let (s, u) = (std::f32::consts::FRAC_1_SQRT_2, 0.25);
        let raw = Vec4::new(u * s, 0.0, 0.0, (1.0 - u) + u * s).normalize();
        assert!(close(nlerp(Quat::IDENTITY, b, u), Quat::from_vec4(raw)));
        assert!(!close(nlerp(Quat::IDENTITY, b, u), slerp(Quat::IDENTITY, b, u)));
        assert!(close(nlerp(Quat::IDENTITY, -b, 0.5), slerp(Quat::IDENTITY, b, 0.5)));
    }

    #[test]
    fn track_sampling_by_interpolation() {
        let q = vec![Quat::IDENTITY, Quat::from_rotation_z(FRAC_PI_2)];
        let t = rot_track(Interpolation::Step, vec![0.0, 1.0], q.clone());
        assert_eq!(sample_track(&t, 0.9), Some(Sampled::Rotation(Quat::IDENTITY)));
        let t = rot_track(Interpolation::Slerp, vec![0.0, 2.0], q);
        let Some(Sampled::Rotation(r)) = sample_track(&t, 1.0) else { panic!() };
        assert!(close(r, Quat::from_rotation_z(FRAC_PI_2 / 2.0)));

        let lin = Track {
            target: Target::Bone(BoneRef::named("b")),
            interpolation: Interpolation::Linear,
            times: vec![1.0, 3.0],
            values: Values::Translation(vec![Vec3::ZERO, Vec3::new(2.0, 4.0, -6.0)]),
        };
        assert_eq!(sample_track(&lin, 2.5), Some(Sampled::Translation(Vec3::new(1.5, 3.0, -4.5))));
        assert_eq!(sample_track(&lin, 0.0), Some(Sampled::Translation(Vec3::ZERO)));
    }

    #[test]
    fn cubic_hermite_matches_closed_form() {
        // p(t) = t³ on [0, 2]: p(0)=0, p(2)=8, p'(0)=0, p'(2)=12. At t=1 the cubic gives 1.
        let t = Track {
            target: Target::Bone(BoneRef::named("b")),
            interpolation: Interpolation::CubicSpline,
            times: vec![0.0, 2.0],
            values: Values::Scalar(vec![0.0, 0.0, 0.0, 12.0, 8.0, 0.0]),
        };
        let Some(Sampled::Scalar(v)) = sample_track(&t, 1.0) else { panic!() };
        assert!((v - 1.0).abs() < 1e-6, "{v}");
        let Some(Sampled::Scalar(v)) = sample_track(&t, 1.5) else { panic!() };
        assert!((v - 3.375).abs() < 1e-5, "{v}");
    }

    #[test]
    fn wrapped_time_just_below_a_key_takes_the_key() {
        // 0.4 - 0.3 in f32 is 0.099999994, one ulp below the f32 key 0.1.
        assert!(0.4f32.rem_euclid(0.3) < 0.1);
        let track = Track {
            target: Target::Bone(BoneRef::named("b")),
            interpolation: Interpolation::Step,
            times: vec![0.0, 0.1, 0.2],
            values: Values::Scalar(vec![1.0, 2.0, 3.0]),
        };
        let clip = Clip { duration: 0.3, looping: Some(true), tracks: vec![track], ..Default::default() };
        let at = |t: f32| sample(&clip, t)[0].value;
        assert_eq!(at(0.1), Sampled::Scalar(2.0));
        assert_eq!(at(0.4), Sampled::Scalar(2.0));
        assert_eq!(at(0.39), Sampled::Scalar(1.0));
        // Without a wrap nothing is snapped.
        assert_eq!(at(0.099_999_994), Sampled::Scalar(1.0));
    }

    #[test]
    fn end_of_a_looping_clip_is_its_last_key() {
        let track = Track {
            target: Target::Bone(BoneRef::named("b")),
            interpolation: Interpolation::Linear,
            times: vec![0.0, 0.5, 1.0],
            values: Values::Scalar(vec![1.0, 2.0, 3.0]),
        };
        let clip = Clip { duration: 1.0, looping: Some(true), tracks: vec![track], ..Default::default() };
        let at = |t: f32| sample(&clip, t)[0].value;
        assert_eq!(at(1.0), Sampled::Scalar(3.0));
        assert_eq!(at(2.0), Sampled::Scalar(3.0));
        assert_eq!(at(0.0), Sampled::Scalar(1.0));
        assert_eq!(at(1.25), Sampled::Scalar(1.5));
        assert_eq!(at(-0.5), Sampled::Scalar(2.0));
    }

    #[test]
    fn only_finite_times_are_times() {
        assert_eq!(check_time(1.5).unwrap(), 1.5);
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            assert!(check_time(bad).unwrap_err().message.contains("not a number of seconds"));
        }
    }

    #[test]
    fn looping_clip_wraps_time() {
        let clip = Clip { duration: 2.0, looping: Some(true), ..Default::default() };
        assert_eq!(clip_time(&clip, 5.0), 1.0);
        assert_eq!(clip_time(&clip, 4.0), 2.0);
        let once = Clip { duration: 2.0, ..Default::default() };
        assert_eq!(clip_time(&once, 5.0), 5.0);
    }

    /// A negative dot product between consecutive keys takes the short way (SKB spec §3.3 hemisphere
    /// flip): keys (0,0,0,1) → (0,0,−0.7071,−0.7071), which is +90° about Z stored in the other
    /// hemisphere. Halfway is +45°: z = sin 22.5° = 0.3826834, w = cos 22.5° = 0.9238795.
    #[test]
    fn hemisphere_flip_takes_the_short_arc() {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let m = slerp(Quat::IDENTITY, Quat::from_xyzw(0.0, 0.0, -h, -h), 0.5);
        assert!((m.z - 0.382_683_4).abs() < 1e-5 && (m.w - 0.923_879_5).abs() < 1e-5, "{m:?}");
    }
}
