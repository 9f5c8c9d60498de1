//! Euler XYZ rotation curves as cubic quaternion keys (spec §7.1).
//!
//! Breath of the Wild stores bone rotations as three angle curves (radians, `q = qZ·qY·qX`, X
//! applied first); the engine evaluates the angles at a frame and builds the quaternion from
//! them. The model's rotation track gets one cubic key at every key frame of the three curves,
//! holding the quaternion there and its time derivative on each side (the chain rule through the
//! angle curves' slopes), so a cubic Hermite between two keys starts and ends exactly as the
//! engine's rotation does. Between keys the two part by terms of fourth and higher order in the
//! segment length, which peak near the quarter points and the midpoint: where one of those is off
//! by more than [`TOLERANCE`], a key is added at the midpoint, and each half is checked again.
//!
//! A quaternion is multilinear in the half-angle sines and cosines `(s, c)` of the three angles,
//! so its derivative by one angle is the same product with that angle's `(s, c)` replaced by
//! `(c, -s) / 2`: one `sin_cos` per angle gives the value and all three partial derivatives.

mod bound;

use glam::{Quat, Vec4};

use super::curve::{Curve, KeyType};
use super::sweep::{Point, Sweep};
use super::union::union_frames;
use crate::error::{Error, ErrorKind, Result};
use crate::format::Limits;
use bound::Spans;

/// The least rotation (radians) between the cubic and the engine's Euler rotation that adds a
/// key: about one `s16` step of an angle curve over ±π (`π / 32767 ≈ 9.6e-5`). A bone whose
/// angle curves store coarser steps is held to those: the sum of one step of each, the most
/// its stored keys can be off (see [`tolerance`]).
pub(crate) const TOLERANCE: f32 = 1e-4;

/// The tolerance for a bone's angle curves: [`TOLERANCE`], or one quantisation step of each
/// integer-keyed curve summed when that is more. Such steps are real: a segment may end up to a
/// step away from the next key's value (a jump too small to hold), which no key can follow.
pub(crate) fn tolerance(curves: [Option<&Curve>; 3]) -> f32 {
    let step = |c: &Curve| match c.key_type() {
        KeyType::S8 | KeyType::S16 => c.scale().abs(),
        KeyType::Bits32 => 0.0,
    };
    TOLERANCE.max(curves.iter().flatten().map(|c| step(c)).sum())
}

/// How many times one segment may be halved (2^8 keys from one segment).
const MAX_DEPTH: u32 = 8;

/// `q = qZ·qY·qX` from the half-angle `(sin, cos)` pairs of X, Y and Z, as `(x, y, z, w)`.
fn compose((sx, cx): (f32, f32), (sy, cy): (f32, f32), (sz, cz): (f32, f32)) -> Vec4 {
    Vec4::new(
        sx * cy * cz - cx * sy * sz,
        cx * sy * cz + sx * cy * sz,
        cx * cy * sz - sx * sy * cz,
        cx * cy * cz + sx * sy * sz,
    )
}

/// `∂q/∂x`, `∂q/∂y`, `∂q/∂z` from the half-angle `(sin, cos)` pairs.
fn partials(half: [(f32, f32); 3]) -> [Vec4; 3] {
    let d = half.map(|(s, c)| (0.5 * c, -0.5 * s));
    let [hx, hy, hz] = half;
    [compose(d[0], hy, hz), compose(hx, d[1], hz), compose(hx, hy, d[2])]
}

/// The angle rates whose quaternion rate at `angles` is nearest to `rate` (least squares; the
/// three partial derivatives are independent except at gimbal lock, `y = ±π/2`, where the
/// smallest rates that do it are taken).
pub(crate) fn angle_rates(angles: [f32; 3], rate: Vec4) -> [f32; 3] {
    let j = partials(angles.map(|a| (0.5 * a).sin_cos()));
    let normal = glam::Mat3::from_cols_array_2d(&j.map(|a| j.map(|b| a.dot(b))));
    let rhs = glam::Vec3::from_array(j.map(|a| a.dot(rate)));
    // A small ridge keeps the solve finite at gimbal lock (the normal matrix is 1/4 · I away
    // from it).
    let solved = (normal + glam::Mat3::from_diagonal(glam::Vec3::splat(1e-7))).inverse() * rhs;
    if solved.is_finite() {
        solved.to_array()
    } else {
        [0.0; 3]
    }
}

/// A rotation and its rate of change: the quaternion for angles `(x, y, z)` and its derivative
/// for angle rates `in` and `out` (per frame) on each side.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rotation {
    value: Vec4,
    in_rate: Vec4,
    out_rate: Vec4,
}

impl Rotation {
    /// The rotation of the angles and slopes `p`, given their half angles' `(sin, cos)`.
    fn of(p: [Point; 3], half: [(f32, f32); 3]) -> Rotation {
        let [hx, hy, hz] = half;
        let partial = partials(half);
        let rate = |slopes: [f32; 3]| partial.iter().zip(slopes).map(|(q, s)| *q * s).sum::<Vec4>();
        Rotation {
            value: compose(hx, hy, hz),
            in_rate: rate(p.map(|p| p.in_slope)),
            out_rate: rate(p.map(|p| p.out_slope)),
        }
    }

    fn negated(self) -> Rotation {
        Rotation { value: -self.value, in_rate: -self.in_rate, out_rate: -self.out_rate }
    }

    /// Itself or its negation, whichever lies in the hemisphere of `previous`.
    fn near(self, previous: Option<Vec4>) -> Rotation {
        if previous.is_some_and(|p| p.dot(self.value) < 0.0) {
            self.negated()
        } else {
            self
        }
    }
}

/// A component that is not animated: its base angle and the half angle's `(sin, cos)`, computed
/// once for every key.
#[derive(Debug, Clone, Copy)]
struct Held {
    angle: f32,
    half: (f32, f32),
}

impl Held {
    fn new(angle: f32) -> Held {
        Held { angle, half: (0.5 * angle).sin_cos() }
    }
}

/// One angle: a curve, or the base value when the component is not animated.
type Angle<'a> = Result<Sweep<'a>, Held>;

/// A component's angle: its curve, or `base` held when it has none.
fn angle(curve: Option<&Curve>, base: f32) -> Angle<'_> {
    curve.map(Sweep::new).ok_or_else(|| Held::new(base))
}

fn point(angle: &mut Angle, f: f32) -> Point {
    match angle {
        Ok(sweep) => sweep.at(f),
        Err(held) => Point::constant(held.angle),
    }
}

/// The half angles' `(sin, cos)` of points `p` of `angles` (a held angle's point is its base).
fn halves(angles: &[Angle; 3], p: &[Point; 3]) -> [(f32, f32); 3] {
    let half = |angle: &Angle, p: &Point| match angle {
        Ok(_) => (0.5 * p.value).sin_cos(),
        Err(held) => held.half,
    };
    [half(&angles[0], &p[0]), half(&angles[1], &p[1]), half(&angles[2], &p[2])]
}

/// The points of `angles` at frame `f`.
fn points_at(angles: &mut [Angle; 3], f: f32) -> [Point; 3] {
    let [x, y, z] = angles;
    [point(x, f), point(y, f), point(z, f)]
}

/// The angle from `fa` (where `angle` is) to `fb` as a cubic in `s` ([`Sweep::piece`]).
fn piece(angle: &Angle, fa: f32, fb: f32) -> Option<[f32; 4]> {
    match angle {
        Ok(sweep) => sweep.piece(fa, fb),
        Err(held) => Some([held.angle, 0.0, 0.0, 0.0]),
    }
}

/// The engine's rotation at frame `f`, either sign.
fn value_at(angles: &mut [Angle; 3], f: f32) -> Vec4 {
    let points = points_at(angles, f);
    let [hx, hy, hz] = halves(angles, &points);
    compose(hx, hy, hz)
}

/// The engine's rotation at frame `f`, in the hemisphere of `near`.
fn exact_at(angles: &mut [Angle; 3], f: f32, near: Vec4) -> Rotation {
    let points = points_at(angles, f);
    Rotation::of(points, halves(angles, &points)).near(Some(near))
}

/// Cubic keys being collected: times in seconds, `[in, value, out]` quaternions per key with
/// tangents per second; the last key's frame, value and out-rate (per frame) for the next segment.
struct Keys {
    /// The largest rotation (radians) left between the cubic and the engine's rotation.
    tolerance: f32,
    fps: f32,
    times: Vec<f32>,
    values: Vec<Quat>,
    last: Option<(f32, Vec4, Vec4)>,
}

impl Keys {
    fn push(&mut self, f: f32, in_rate: Vec4, value: Vec4, out_rate: Vec4) {
        self.times.push(f / self.fps);
        self.values.extend([in_rate * self.fps, value, out_rate * self.fps].map(Quat::from_vec4));
        self.last = Some((f, value, out_rate));
    }

    fn last_value(&self) -> Option<Vec4> {
        self.last.map(|k| k.1)
    }

    /// Adds keys strictly between the last key and `(fb, b, b_in)` until the cubic between each
    /// pair of keys is within the tolerance of the Euler rotation at a third and two thirds of the
    /// way; `angles` may be anywhere ([`Sweep`] seeks either way), best at the last key.
    fn refine(&mut self, angles: &[Angle; 3], fb: f32, b: Vec4, b_in: Vec4, depth: u32) {
        let Some((fa, a, a_out)) = self.last else { return };
        let d = fb - fa;
        if d <= 0.0 || depth >= MAX_DEPTH {
            return;
        }
        let mut probe = *angles;
        // The cubic Hermite basis (h00, h10, h01, h11) at u = 1/3 and 2/3.
        let thirds = [(1.0 / 3.0, [20.0, 4.0, 7.0, -2.0]), (2.0 / 3.0, [7.0, 2.0, 20.0, -4.0])];
        let close = thirds.iter().all(|&(u, h)| {
            let [h00, h10, h01, h11] = h.map(|x: f32| x / 27.0);
            let cubic = (h00 * a + h10 * d * a_out + h01 * b + h11 * d * b_in).normalize_or_zero();
            let exact = value_at(&mut probe, fa + u * d);
            // A chord between unit quaternions is 2·sin(θ/4) for a rotation θ between them.
            (cubic - exact * cubic.dot(exact).signum()).length() <= 0.5 * self.tolerance
        });
        if close {
            return;
        }
        let mut probe = *angles;
        let m = fa + 0.5 * d;
        let middle = exact_at(&mut probe, m, a);
        self.refine(angles, m, middle.value, middle.in_rate, depth + 1);
        self.push(m, middle.in_rate, middle.value, middle.out_rate);
        self.refine(&probe, fb, b, b_in, depth + 1);
    }
}

/// Where a segment starts: each angle's piece from the key to the next key frame, and the
/// points the key was built from.
struct Start {
    pieces: [[f32; 4]; 3],
    points: [Point; 3],
}

/// Whether [`bound::distance`] clears the segment from `start` to a key `d` frames on built from
/// `ends` (the angles there and the slopes into it), so that sampling it could not add a key.
fn cleared(start: Option<&Start>, d: f32, ends: &[Point; 3], tolerance: f32) -> bool {
    let Some(start) = start else { return false };
    let spans = Spans::new(
        start.pieces,
        start.points.map(|p| [p.value, p.out_slope * d]),
        ends.map(|p| [p.value, p.in_slope * d]),
    );
    // The chord of the normalised cubic is at most 1.01 times its distance (below 0.1), and the
    // sampling it replaces compares in f32: a margin of 5e-6 covers its rounding.
    let e = bound::distance(&spans);
    e < 0.1 && 1.01 * e + 5e-6 <= 0.5 * tolerance
}

/// The cubic quaternion keys of Euler angle curves `curves` (`None` for a component held at its
/// `base` angle): key times in frames, and per key `[in-tangent, value, out-tangent]` with
/// tangents per second at `fps`. Hemisphere-continuous: each key's sign follows the one before.
pub(crate) fn rotation_keys(
    curves: [Option<&Curve>; 3],
    base: [f32; 3],
    fps: f32,
    limits: &Limits,
) -> Result<(Vec<f32>, Vec<Quat>)> {
    let frames = union_frames(&curves);
    let too_many = || Error::new(ErrorKind::Limit, None, format!("more than {} rotation keys", limits.max_keys));
    if frames.len() as u64 > limits.max_keys {
        return Err(too_many());
    }
    let ([cx, cy, cz], [bx, by, bz]) = (curves, base);
    let mut angles = [angle(cx, bx), angle(cy, by), angle(cz, bz)];
    let mut keys = Keys {
        tolerance: tolerance(curves),
        fps,
        times: Vec::with_capacity(frames.len()),
        values: Vec::with_capacity(3 * frames.len()),
        last: None,
    };
    // The segment from the last key, and whether that key took the sign opposite to its angles'
    // quaternion (the bound holds only where the key at its end did the same).
    let mut start: Option<Start> = None;
    let mut negated = false;
    let last = frames.len() - 1;
    for (k, &f) in frames.iter().enumerate() {
        let d = keys.last.map_or(0.0, |l| f - l.0);
        let mut points = points_at(&mut angles, f);
        for p in &mut points {
            if k == 0 {
                p.in_slope = 0.0;
            }
            if k == last {
                p.out_slope = 0.0;
            }
        }
        // At a jump the segment before ends at the left limits, with these in-slopes.
        let ends = points.map(|p| Point { value: p.jump.unwrap_or(p.value), ..p });
        let end = Rotation::of(ends, halves(&angles, &ends));
        let end_negated = keys.last_value().is_some_and(|p| p.dot(end.value) < 0.0);
        let end = if end_negated { end.negated() } else { end };
        if end_negated != negated || !cleared(start.as_ref(), d, &ends, keys.tolerance) {
            // The sweeps are at `f` now; the samples before it seek back.
            keys.refine(&angles, f, end.value, end.in_rate, 0);
        }
        if points.iter().any(|p| p.jump.is_some()) {
            // The key itself starts flat.
            keys.push(f, end.in_rate, end.value, Vec4::ZERO);
            let key = Rotation::of(points, halves(&angles, &points));
            negated = end.value.dot(key.value) < 0.0;
            let key = if negated { key.negated() } else { key };
            keys.push(f, Vec4::ZERO, key.value, key.out_rate);
        } else {
            negated = end_negated;
            keys.push(f, end.in_rate, end.value, end.out_rate);
        }
        start = frames.get(k + 1).and_then(|&next| {
            let pieces = [piece(&angles[0], f, next)?, piece(&angles[1], f, next)?, piece(&angles[2], f, next)?];
            Some(Start { pieces, points })
        });
        if keys.times.len() as u64 > limits.max_keys {
            return Err(too_many());
        }
    }
    Ok((keys.times, keys.values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::bfres::fska::euler_xyz;

    fn rotation(x: f32, y: f32, z: f32, rates: [f32; 3]) -> Rotation {
        let p = |v: f32, r: f32| Point { value: v, in_slope: r, out_slope: r, jump: None };
        let points = [p(x, rates[0]), p(y, rates[1]), p(z, rates[2])];
        Rotation::of(points, points.map(|p| (0.5 * p.value).sin_cos()))
    }

    #[test]
    fn values_are_the_zyx_product() {
        for (x, y, z) in [(0.3, -1.2, 2.5), (1.5707964, 0.0, 1.5707964), (-3.0, 1.4, 0.1)] {
            let want = euler_xyz(x, y, z);
            let got = rotation(x, y, z, [0.0; 3]).value;
            assert!((Vec4::from(want) - got).length() < 1e-6, "{x} {y} {z}: {got} vs {want}");
        }
    }

    #[test]
    fn angle_rates_invert_the_derivative() {
        let angles = [0.3f32, -1.2, 2.5];
        let r = [0.7f32, -0.4, 1.3];
        let rate = rotation(angles[0], angles[1], angles[2], r).out_rate;
        let back = angle_rates(angles, rate);
        assert!(back.iter().zip(r).all(|(a, b)| (a - b).abs() < 1e-4), "{back:?}");
    }

    #[test]
    fn rates_are_the_derivative() {
        // Central differences of glam's own Euler conversion along angle rates (0.7, -0.4, 1.3).
        let (x, y, z) = (0.3f32, -1.2f32, 2.5f32);
        let r = [0.7f32, -0.4, 1.3];
        let h = 1e-3f32;
        let at = |s: f32| Vec4::from(euler_xyz(x + s * r[0], y + s * r[1], z + s * r[2]));
        let want = (at(h) - at(-h)) / (2.0 * h);
        let got = rotation(x, y, z, r).out_rate;
        assert!((want - got).length() < 1e-3, "{got} vs {want}");
    }
}
