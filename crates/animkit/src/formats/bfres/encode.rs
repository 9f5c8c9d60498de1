//! Choosing the smallest encoding of a float curve (spec §4.1, §5.3, §5.7).
//!
//! The curve's segments arrive as cubic rows in final units (`c0` includes the offset). A curve
//! whose rows all have `c2 = c3 = 0` is stored linear (2 elements per key instead of 4). The key
//! type is the smallest of `s8`, `s16` and `f32` whose decoded curve stays within the `s16`
//! quantiser's own bound of the rows at every key and mid-segment: `s16` rounds each of the four
//! coefficients by at most half a step, so its value error is at most 2 steps of
//! `max |coefficient| / 32767`; `s8` is chosen when it does as well, which it does on data that
//! was `s8` to begin with (Nintendo's quantiser is re-derivable, §5.7).

use super::curve::quantise_cubic;

/// A float curve's storage: flag bits (curve type and key type), scale, offset and the stored key
/// elements (`stride` per key).
#[derive(Debug, Clone, PartialEq)]
pub struct Encoded {
    pub flags: u16,
    pub scale: f32,
    pub offset: f32,
    pub keys: Vec<f64>,
}

/// Curve-type flag bits (§4.1).
const CUBIC: u16 = 0 << 4;
const LINEAR: u16 = 1 << 4;
/// Key-type flag bits (§4.1).
const F32: u16 = 0 << 2;
const S16: u16 = 1 << 2;
const S8: u16 = 2 << 2;

/// A row's value at `t` in final units.
fn value(r: &[f32; 4], t: f32) -> f32 {
    ((r[3] * t + r[2]) * t + r[1]) * t + r[0]
}

/// Whether rows of a polynomial are linear within `tol` (their `c2`, `c3` change values by less).
fn is_linear(rows: &[[f32; 4]], tol: f32) -> bool {
    rows.iter().all(|r| r[2].abs() + r[3].abs() <= tol / 4.0)
}

/// The smallest encoding of `rows` (see the module documentation).
pub fn encode(rows: &[[f32; 4]]) -> Encoded {
    let (s16_step, _, _) = quantise_cubic(rows, 32767.0);
    let magnitude = rows.iter().map(|r| r[0].abs()).fold(0f32, f32::max);
    let tol = 2.0 * s16_step + 4.0 * f32::EPSILON * magnitude;
    let linear = is_linear(rows, tol);
    let (curve, stride) = if linear { (LINEAR, 2) } else { (CUBIC, 4) };
    let shaped: Vec<[f32; 4]> =
        if linear { rows.iter().map(|r| [r[0], r[1], 0.0, 0.0]).collect() } else { rows.to_vec() };
    for (limit, key_bits) in [(127.0, S8), (32767.0, S16)] {
        let (scale, offset, stored) = quantise_cubic(&shaped, limit);
        let decoded: Vec<[f32; 4]> = stored
            .iter()
            .map(|s| {
                let c = s.map(|v| v as f32 * scale);
                [c[0] + offset, c[1], c[2], c[3]]
            })
            .collect();
        let close = rows
            .iter()
            .zip(&decoded)
            .all(|(r, d)| [0.0, 0.5, 1.0].iter().all(|&t| (value(r, t) - value(d, t)).abs() <= tol));
        if close {
            let keys = stored.iter().flat_map(|s| s.iter().take(stride).map(|&v| f64::from(v))).collect();
            return Encoded { flags: curve | key_bits, scale, offset, keys };
        }
    }
    let keys = shaped.iter().flat_map(|r| r.iter().take(stride).map(|&v| f64::from(v))).collect();
    Encoded { flags: curve | F32, scale: 1.0, offset: 0.0, keys }
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
        // A coefficient 1000× smaller than the largest one cannot survive s8 (step 1/127).
        let rows = [[0.0, 1.0, -0.5, 0.001], [0.501, 0.0, 0.0, 0.0]];
        let e = encode(&rows);
        assert_eq!(e.flags, CUBIC | S16);
        assert_eq!(e.keys.len(), 8);
    }
}
