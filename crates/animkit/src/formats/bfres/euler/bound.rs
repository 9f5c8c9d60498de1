//! How far the cubic between two rotation keys can be from the engine's Euler rotation, bounded
//! from the angle curves alone: only the segments this cannot clear are sampled.
//!
//! Between two keys each angle is one cubic in `s` (0 at the first key, 1 at the next), so the
//! rotation `q(s) = qZ·qY·qX` of the half angles is smooth there. The cubic Hermite `G` through `q`
//! and `q'` at both ends is within `max |q''''| · s²(1 - s)² / 24` of it at `s` (the remainder is a
//! divided difference: an average of `q''''` with non-negative weights, so the bound holds for the
//! quaternion as a whole, not only per component). `|q''''|` follows from the product rule: the
//! factor `(sin θ, cos θ)` of a half angle θ with `|θ'| ≤ A`, `|θ''| ≤ B`, `|θ'''| ≤ C` (and `θ''''
//! = 0`) has derivatives of norm at most `1, A, A² + B, A³ + 3AB + C, A⁴ + 6A²B + 4AC + 3B²` (Faà
//! di Bruno), and a product of quaternions has the product of the norms.
//!
//! The keys are not quite `G`'s: a key holds the rotation of the angles and slopes it was given,
//! which may be a stored key's value a few quantisation steps from where the segment before it
//! ends, or the slope on the key's other side. The rotation moves by at most half the sum of the
//! angle changes (`|∂q/∂x| = 1/2`) and its rate along one angle by a quarter of it
//! (`|∂²q/∂x∂y| = 1/4`); in the cubic these weigh what the Hermite basis gives them at `s`.
//!
//! The bound is taken where the keys are sampled, at `s = 1/3` and `2/3`: a segment it clears
//! is one the sampling would have passed, so the keys are the ones sampling every segment gives.

use glam::{Mat4, Vec4};

/// The three angles (X, Y, Z in lanes 0–2, lane 3 zero) over a segment: their cubics in `s`
/// (radians, coefficients of `1, s, s², s³`), and the angles and slopes (radians per unit `s`)
/// the keys at `s = 0` and `s = 1` were built from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Spans {
    c: [Vec4; 4],
    start: [Vec4; 2],
    end: [Vec4; 2],
}

impl Spans {
    /// Per angle: its piece, and `[angle, slope]` at the start key and at the end key.
    pub(crate) fn new(pieces: [[f32; 4]; 3], start: [[f32; 2]; 3], end: [[f32; 2]; 3]) -> Spans {
        let [x, y, z] = pieces.map(Vec4::from_array);
        // Rows of coefficients become columns: lane i of column j is angle i's coefficient j.
        let rows = Mat4::from_cols(x, y, z, Vec4::ZERO).transpose();
        let lanes =
            |[[a0, s0], [a1, s1], [a2, s2]]: [[f32; 2]; 3]| [Vec4::new(a0, a1, a2, 0.0), Vec4::new(s0, s1, s2, 0.0)];
        Spans { c: [rows.x_axis, rows.y_axis, rows.z_axis, rows.w_axis], start: lanes(start), end: lanes(end) }
    }

    /// Per angle, bounds on the norms of the first four derivatives of `(sin θ, cos θ)` over
    /// `0..=1` for the half angle `θ = x / 2`, each divided by its order's factorial (the
    /// coefficients of an exponential generating function; the factor itself is 1).
    fn factor_derivatives(&self) -> [Vec4; 4] {
        let [_, c1, c2, c3] = self.c.map(|c| 0.5 * c);
        // θ' = c1 + 2c2·s + 3c3·s² peaks at an end or at its vertex.
        let slope = |s: Vec4| (c1 + (2.0 * c2 + 3.0 * c3 * s) * s).abs();
        let vertex = Vec4::select(c3.cmpne(Vec4::ZERO), (-c2 / (3.0 * c3)).clamp(Vec4::ZERO, Vec4::ONE), Vec4::ZERO);
        let a = c1.abs().max(slope(Vec4::ONE)).max(slope(vertex));
        let b = (2.0 * c2).abs().max((2.0 * c2 + 6.0 * c3).abs());
        let c = (6.0 * c3).abs();
        let aa = a * a;
        [
            a,
            0.5 * (aa + b),
            (a * aa + 3.0 * a * b + c) / 6.0,
            (aa * aa + 6.0 * aa * b + 4.0 * a * c + 3.0 * b * b) / 24.0,
        ]
    }

    /// How far the key at the start (`side` 0) or the end (1) is from the rotation the pieces
    /// give there: half the angles' distance (value), and how far the tangent can be (see the
    /// module notes).
    fn off(&self, side: usize) -> (f32, f32) {
        let [c0, c1, c2, c3] = self.c;
        let ((angle, slope), [used_angle, used_slope]) =
            if side == 0 { ((c0, c1), self.start) } else { ((c0 + c1 + c2 + c3, c1 + 2.0 * c2 + 3.0 * c3), self.end) };
        let moved = (used_angle - angle).abs().element_sum();
        let slope_off = (used_slope - slope).abs().element_sum();
        let turning = slope.abs().element_sum();
        (0.5 * moved, 0.5 * slope_off + 0.25 * turning * moved)
    }
}

/// The fourth derivative's bound for the product of three factors (X, Y, Z in lanes): `4!` times
/// the coefficient of `s⁴` in the product of their exponential generating functions (constant
/// terms 1).
fn product_fourth([d1, d2, d3, d4]: [Vec4; 4]) -> f32 {
    // x·y up to s⁴, then the s⁴ term of (x·y)·z.
    let p1 = d1.x + d1.y;
    let p2 = d2.x + d1.x * d1.y + d2.y;
    let p3 = d3.x + d2.x * d1.y + d1.x * d2.y + d3.y;
    let p4 = d4.x + d3.x * d1.y + d2.x * d2.y + d1.x * d3.y + d4.y;
    24.0 * (p4 + p3 * d1.z + p2 * d2.z + p1 * d3.z + d4.z)
}

/// An upper bound on the distance between the cubic Hermite through the two keys and the
/// rotation of the three angles `spans` at a third and at two thirds of the way, where
/// [`super::Keys::refine`] samples it. Inlined where the key loop calls it (it runs once per
/// candidate key).
#[inline]
pub(crate) fn distance(spans: &Spans) -> f32 {
    // s²(1 - s)² / 24 at s = 1/3 and 2/3.
    let remainder = product_fourth(spans.factor_derivatives()) * (4.0 / 81.0 / 24.0);
    let ((va, ta), (vb, tb)) = (spans.off(0), spans.off(1));
    // The Hermite weights (h00, h10, h01, |h11|) are (20, 4, 7, 2) / 27 at 1/3, reversed at 2/3.
    let third = 20.0 * va + 4.0 * ta + 7.0 * vb + 2.0 * tb;
    let two_thirds = 7.0 * va + 2.0 * ta + 20.0 * vb + 4.0 * tb;
    remainder + third.max(two_thirds) / 27.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec4, EulerRot};

    /// The rotation of cubic angle pieces at `s` (`q = qZ·qY·qX` in f64, by glam), and its
    /// derivative by central differences.
    fn rotation(pieces: [[f64; 4]; 3], s: f64) -> (DVec4, DVec4) {
        let q = |s: f64| {
            let [x, y, z] = pieces.map(|[c0, c1, c2, c3]| ((c3 * s + c2) * s + c1) * s + c0);
            DVec4::from(DQuat::from_euler(EulerRot::ZYX, z, y, x))
        };
        let h = 1e-5;
        (q(s), (q(s + h) - q(s - h)) / (2.0 * h))
    }

    /// Against the distance of the Hermite cubic through exact ends at a third and two thirds:
    /// the bound holds and is not loose by more than a small factor, for pieces from gentle to
    /// more than a quarter turn per segment.
    #[test]
    fn the_bound_holds_and_is_close() {
        let cases: [[[f64; 4]; 3]; 4] = [
            [[0.1, 0.05, -0.01, 0.002], [-0.3, 0.02, 0.0, 0.0], [1.2, -0.04, 0.01, 0.0]],
            [[0.0, 0.4, 0.1, -0.05], [0.5, -0.3, 0.05, 0.02], [-1.0, 0.2, -0.1, 0.0]],
            [[2.0, 1.2, -0.4, 0.1], [0.1, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
            [[-0.7, 0.6, 0.3, -0.2], [1.3, 0.5, -0.2, 0.1], [0.2, -0.8, 0.3, 0.05]],
        ];
        for pieces in cases {
            let (a, a_rate) = rotation(pieces, 0.0);
            let (b, b_rate) = rotation(pieces, 1.0);
            let mut worst = 0f64;
            for s in [1.0 / 3.0, 2.0 / 3.0] {
                let (h00, h10) = ((1.0 + 2.0 * s) * (1.0 - s) * (1.0 - s), s * (1.0 - s) * (1.0 - s));
                let (h01, h11) = (s * s * (3.0 - 2.0 * s), s * s * (s - 1.0));
                let cubic = h00 * a + h10 * a_rate + h01 * b + h11 * b_rate;
                worst = worst.max((cubic - rotation(pieces, s).0).length());
            }
            let pieces = pieces.map(|p| p.map(|c| c as f32));
            let start = pieces.map(|[c0, c1, _, _]| [c0, c1]);
            let end = pieces.map(|[c0, c1, c2, c3]| [c0 + c1 + c2 + c3, c1 + 2.0 * c2 + 3.0 * c3]);
            let bound = f64::from(distance(&Spans::new(pieces, start, end)));
            assert!(worst <= bound && bound < 20.0 * worst, "{pieces:?}: sampled {worst}, bound {bound}");
        }
    }

    /// A key built from an angle a step off the piece's end (a quantised key): the cubic moves
    /// by up to half that step (`20/27` of it at two thirds), and the bound says at least so much.
    #[test]
    fn a_key_off_the_piece_counts() {
        let flat = [[0.3, 0.0]; 3];
        let pieces = [[0.3, 0.0, 0.0, 0.0]; 3];
        assert_eq!(distance(&Spans::new(pieces, flat, flat)), 0.0);
        let d = distance(&Spans::new(pieces, flat, [[0.31, 0.0], [0.3, 0.0], [0.3, 0.0]]));
        assert!((d - 0.005 * 20.0 / 27.0).abs() < 1e-7, "{d}");
        // The quaternion at two thirds moves by 20/27 of the half-angle change: the bound is exact.
        let q = |x: f64| DVec4::from(DQuat::from_euler(EulerRot::ZYX, 0.3, 0.3, x));
        let moved = (q(0.31) - q(0.3)).length() * 20.0 / 27.0;
        assert!(moved <= f64::from(d) && moved > 0.99 * f64::from(d), "{moved} {d}");
    }
}
