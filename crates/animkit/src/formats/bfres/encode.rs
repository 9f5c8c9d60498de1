//! Choosing the smallest encoding of a float curve (spec §4.1, §5.3, §5.7); the baked size (§8)
//! and FSKA flag bits (§7.1) a writer computes for curves.
//!
//! The curve's segments arrive as cubic rows in final units (`c0` includes the offset). A curve
//! whose rows all have `c2 = c3 = 0` is stored linear (2 elements per key instead of 4). The key
//! type is the smallest of `s8`, `s16` and `f32` whose decoded curve stays within [`bound`] of
//! the rows over every whole segment: the bound is one `s16` step of the key values' range
//! (`(max - min) / 32767`, what the §5.7 quantiser gives when no coefficient exceeds the values'
//! half-range), plus `f32` rounding of the values' magnitude. A segment's error is at most the
//! sum of its four coefficients' errors (`t` runs over `0..=1`), so that sum is what is checked.
//! Curves with tangents much steeper than their range (a root bone jumping 100 000 units in one
//! frame, as in Super Mario Odyssey's cutscenes) would lose more in `s16`, whose step follows
//! the largest coefficient: they are stored `f32`. `s8` is chosen when it stays within the bound,
//! which it does on data that was `s8` to begin with (Nintendo's quantiser is re-derivable, §5.7).

use std::borrow::Cow;

use super::curve::{quantise_cubic, Curve, CurveType, KeyType};

/// A float curve's storage: flag bits (curve type and key type), scale, offset and the stored key
/// elements (`stride` per key).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Encoded {
    pub(crate) flags: u16,
    pub(crate) scale: f32,
    pub(crate) offset: f32,
    pub(crate) keys: Vec<f64>,
}

/// Curve-type flag bits (§4.1).
const CUBIC: u16 = 0 << 4;
const LINEAR: u16 = 1 << 4;
/// Key-type flag bits (§4.1).
const F32: u16 = 0 << 2;
const S16: u16 = 1 << 2;
const S8: u16 = 2 << 2;

/// Whether rows of a polynomial are linear within `tol` (their `c2`, `c3` change values by less).
fn is_linear(rows: &[[f32; 4]], tol: f32) -> bool {
    rows.iter().all(|r| r[2].abs() + r[3].abs() <= tol / 4.0)
}

/// How far an encoding of `rows` may move the curve: one `s16` step of the key values' range,
/// plus 4 `f32` ULPs of their magnitude (the rounding of `c0 = stored·scale + offset`).
pub(crate) fn bound(rows: &[[f32; 4]]) -> f32 {
    let (lo, hi) = rows.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), r| (l.min(r[0]), h.max(r[0])));
    if lo > hi {
        return 0.0;
    }
    (hi - lo) / 32767.0 + 4.0 * f32::EPSILON * lo.abs().max(hi.abs())
}

/// The largest error against `rows` over any segment of the rows `stored · scale` (plus `offset`
/// in `c0`): the sum of the coefficient errors, which bounds `|Σ (d_j - r_j)·t^j|` for `t` in
/// `0..=1`.
fn worst_error(rows: &[[f32; 4]], stored: &[[i32; 4]], scale: f32, offset: f32) -> f32 {
    let error = |(r, s): (&[f32; 4], &[i32; 4])| {
        let c = s.map(|v| v as f32 * scale);
        r.iter().zip([c[0] + offset, c[1], c[2], c[3]]).map(|(a, b)| (a - b).abs()).sum::<f32>()
    };
    rows.iter().zip(stored).map(error).fold(0f32, f32::max)
}

/// The smallest encoding of `rows` (see the module documentation).
pub(crate) fn encode(rows: &[[f32; 4]]) -> Encoded {
    let tol = bound(rows);
    let linear = is_linear(rows, tol);
    let (curve, stride) = if linear { (LINEAR, 2) } else { (CUBIC, 4) };
    let shaped: Cow<[[f32; 4]]> =
        if linear { rows.iter().map(|r| [r[0], r[1], 0.0, 0.0]).collect() } else { Cow::Borrowed(rows) };
    for (limit, key_bits) in [(127.0, S8), (32767.0, S16)] {
        let (scale, offset, stored) = quantise_cubic(&shaped, limit);
        if worst_error(rows, &stored, scale, offset) <= tol {
            let keys = stored.iter().flat_map(|s| s.iter().take(stride).map(|&v| f64::from(v))).collect();
            return Encoded { flags: curve | key_bits, scale, offset, keys };
        }
    }
    let keys = shaped.iter().flat_map(|r| r.iter().take(stride).map(|&v| f64::from(v))).collect();
    Encoded { flags: curve | F32, scale: 1.0, offset: 0.0, keys }
}

/// The bytes `curves` take baked (§8), one value per frame of `start..=end`: 4 a frame plus 20
/// for a float curve, the key width a frame plus 8 for an int curve, a bit a frame in words plus 8
/// for a bool curve.
pub(crate) fn baked_size<'a>(curves: impl IntoIterator<Item = &'a Curve>) -> u32 {
    curves.into_iter().fold(0u32, |sum, c| {
        let n = ((c.end - c.start).max(0.0) as u32).saturating_add(1);
        let size = match (c.curve_type(), c.key_type()) {
            (CurveType::StepBool | CurveType::BakedBool, _) => n.div_ceil(32).saturating_mul(4).saturating_add(8),
            (CurveType::StepInt | CurveType::BakedInt, KeyType::S8) => n.saturating_add(8),
            (CurveType::StepInt | CurveType::BakedInt, KeyType::S16) => n.saturating_mul(2).saturating_add(8),
            (CurveType::StepInt | CurveType::BakedInt, KeyType::Bits32) => n.saturating_mul(4).saturating_add(8),
            _ => n.saturating_mul(4).saturating_add(20),
        };
        sum.saturating_add(size)
    })
}

/// The bone flag bit index (§7.1) of an FSKA curve target: 0–2 scale X–Z (`0x04`–`0x0C`), 3–6
/// rotation X–W (`0x20`–`0x2C`), 7–9 translation X–Z (`0x10`–`0x18`); `None` for another target.
pub(crate) fn flag_index(target: u32) -> Option<u32> {
    match target {
        0x04..=0x0C => Some((target - 4) / 4),
        0x20..=0x2C => Some(3 + (target - 0x20) / 4),
        0x10..=0x18 => Some(7 + (target - 0x10) / 4),
        _ => None,
    }
}

/// The bone flag bit (§7.1) of an FSKA curve target (bits 6–15), 0 for an unknown target.
pub(crate) fn flag_bit(target: u32) -> u32 {
    flag_index(target).map_or(0, |i| 1 << (6 + i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_rows_are_stored_linear_and_s8_when_exact() {
        // Values 0, 1, 2 (the last row constant): c1 = 1 per segment; s8 with offset 1 and scale
        // 1/127 reproduces them exactly.
        let rows = [[0.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]];
        let e = encode(&rows);
        assert_eq!(e.flags, LINEAR | S8);
        assert_eq!(e.keys.len(), 6);
        assert_eq!(e.offset, 1.0);
    }

    #[test]
    fn fine_cubics_need_s16() {
        // A coefficient 250× smaller than the largest one cannot survive s8 (step 1/127 of the
        // half-range 0.2505), and s16 keeps every coefficient within half a step of it.
        let rows = [[0.0, 0.25, 0.0, 0.001], [0.501, 0.0, 0.0, 0.0]];
        let e = encode(&rows);
        assert_eq!(e.flags, CUBIC | S16);
        assert_eq!(e.keys.len(), 8);
    }

    /// The rows decoded from an encoding, in final units.
    fn decode(e: &Encoded) -> Vec<[f32; 4]> {
        let stride = if e.flags & 0x70 == LINEAR { 2 } else { 4 };
        e.keys
            .chunks(stride)
            .map(|k| {
                let c = |j: usize| k.get(j).map_or(0.0, |&v| v as f32 * e.scale);
                [c(0) + e.offset, c(1), c(2), c(3)]
            })
            .collect()
    }

    #[test]
    fn a_jump_steeper_than_the_range_is_stored_f32() {
        // A root bone holding at 357, jumping to -100 023 in one frame (Hermite with zero slopes:
        // c2 = 3·Δp, c3 = -2·Δp), then holding. The largest coefficient is 3·100 380 = 301 140, so
        // an s16 step is 9.19 units and rounding four coefficients can move the curve by 2 steps
        // (18.4); the bound is one s16 step of the value range, 100 380 / 32767 = 3.06, plus
        // 4 ULPs of 100 023 (0.05).
        let dp = -100_023.0 - 357.0;
        let rows = [[357.0, 0.0, 3.0 * dp, -2.0 * dp], [-100_023.0, 0.0, 0.0, 0.0]];
        let b = bound(&rows);
        assert!((b - (100_380.0 / 32767.0 + 4.0 * f32::EPSILON * 100_023.0)).abs() < 1e-3, "{b}");
        let e = encode(&rows);
        assert_eq!(e.flags, CUBIC | F32);
        assert_eq!(decode(&e), rows.to_vec());
    }

    #[test]
    fn an_encoded_curve_stays_within_the_bound_everywhere() {
        // A smooth cubic with no coefficient above the values' half-range (0.5) is stored s16, and its decoded values
        // differ from the rows by at most the bound at every t in 0..=1 (sampled at 1/64 steps).
        let rows = [[0.0, 0.4, 0.3, -0.1], [1.0, 0.5, -0.45, 0.2], [0.8, 0.0, 0.0, 0.0]];
        let e = encode(&rows);
        assert_eq!(e.flags, CUBIC | S16);
        let value = |r: &[f32; 4], t: f32| ((r[3] * t + r[2]) * t + r[1]) * t + r[0];
        let b = bound(&rows);
        for (r, d) in rows.iter().zip(decode(&e)) {
            for k in 0..=64 {
                let t = k as f32 / 64.0;
                assert!((value(r, t) - value(&d, t)).abs() <= b, "t {t}: {} vs {}", value(r, t), value(&d, t));
            }
        }
    }
}
