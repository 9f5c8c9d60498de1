//! Curves seen through their wrap modes (spec §5.1) across a whole animation.
//!
//! A curve covers `start..=end`; before it the pre-wrap applies, after it the post-wrap: clamp
//! holds the end value, repeat restarts the curve every `L = end - start` frames, mirror plays
//! it backwards every other period. The model has no wrap modes, so every consumer converts a
//! curve over the animation's whole window: [`Curve::step_keys`] gives the (frame, value) changes
//! of a step curve, [`Curve::unrolled`] an equivalent clamped cubic or linear curve.
//!
//! A step value changes at every image of a key frame: forwards it holds from the image on, in a
//! mirrored period it holds up to the image, and right after a period's end the next period's
//! first key takes over. So each image and the point one frame quantum after it (1 frame for u8
//! frames, 1/32 otherwise) are evaluated; the keys are then exact at every frame of that lattice.

use std::borrow::Cow;

use super::curve::{Curve, CurveType, FrameType, Value, Wrap};
use crate::error::{Error, ErrorKind, Result};

/// The most frames a curve may be expanded to across its wrap periods.
const MAX_EXPANDED: usize = 1 << 20;

/// Whether a wrap mode replays the curve (repeat or mirror) rather than holding its end value.
fn replays(w: Wrap) -> bool {
    matches!(w, Wrap::Repeat | Wrap::Mirror)
}

impl Curve {
    /// The curve's length `end - start` when some wrap mode replays it and it has keys.
    fn period(&self) -> Option<f64> {
        let len = f64::from(self.end) - f64::from(self.start);
        let wraps = replays(self.pre_wrap()) || replays(self.post_wrap());
        (wraps && len > 0.0 && !self.frames.is_empty()).then_some(len)
    }

    /// The periods other than the curve's own (0) that replay it within `lo..=hi`: period `n`
    /// covers `start + n·L ..= start + (n+1)·L`.
    fn replayed_periods(&self, lo: f32, hi: f32) -> Result<Vec<i64>> {
        let Some(len) = self.period() else { return Ok(Vec::new()) };
        let start = f64::from(self.start);
        let mut periods = Vec::new();
        let first = ((f64::from(lo) - start) / len).floor();
        let last = ((f64::from(hi) - start) / len).floor();
        let per_period = 2 * (self.frames.len() + 2);
        let count = (-first).max(0.0) + last.max(0.0);
        if count * per_period as f64 > MAX_EXPANDED as f64 {
            return Err(self.limit(format!("curve wraps over more than {MAX_EXPANDED} frames")));
        }
        if replays(self.pre_wrap()) && first < 0.0 {
            periods.extend(first as i64..0);
        }
        if replays(self.post_wrap()) && last > 0.0 {
            periods.extend(1..=last as i64);
        }
        Ok(periods)
    }

    /// A limit error at the curve's header.
    fn limit(&self, message: String) -> Error {
        Error::new(ErrorKind::Limit, Some(self.at as u64), message)
    }

    /// Whether period `n` plays the curve backwards.
    fn reflected(&self, n: i64) -> bool {
        let side = if n < 0 { self.pre_wrap() } else { self.post_wrap() };
        side == Wrap::Mirror && n.rem_euclid(2) == 1
    }

    /// Where frame `f` of the curve's own period lands in period `n`.
    fn image(&self, n: i64, f: f64, len: f64) -> f64 {
        let start = f64::from(self.start);
        if self.reflected(n) {
            start + (n + 1) as f64 * len - (f - start)
        } else {
            start + n as f64 * len + (f - start)
        }
    }

    /// The distance between two frames of the curve's frame storage.
    fn frame_quantum(&self) -> f32 {
        match self.frame_type() {
            FrameType::U8 => 1.0,
            FrameType::Fixed10x5 | FrameType::F32 => 1.0 / 32.0,
        }
    }

    /// The frames within `lo..=hi` (plus the curve's own key frames) at which the wrapped curve
    /// may change value, sorted.
    fn breakpoints(&self, lo: f32, hi: f32) -> Result<Vec<f32>> {
        let mut out = self.frames.clone();
        let periods = self.replayed_periods(lo, hi)?;
        if let Some(len) = self.period().filter(|_| !periods.is_empty()) {
            let q = f64::from(self.frame_quantum());
            let points: Vec<f64> =
                self.frames.iter().map(|&f| f64::from(f)).chain([f64::from(self.start), f64::from(self.end)]).collect();
            for n in periods {
                for &p in &points {
                    let at = self.image(n, p, len);
                    out.extend([at, at + q].map(|x| x as f32).into_iter().filter(|x| (lo..=hi).contains(x)));
                }
            }
            out.push(lo);
            out.push(self.end + self.frame_quantum());
        }
        out.retain(|f| f.is_finite());
        out.sort_by(f32::total_cmp);
        out.dedup();
        Ok(out)
    }

    /// The value changes of a curve seen as a step function within
    /// `lo..=hi` with the wrap modes applied: `(frame, value)`, the first at the first
    /// breakpoint, then one wherever the value differs from the one before.
    /// Baked and float curves change between keys too: they are also evaluated at every integer
    /// frame of the window (exact there for float curves, everywhere for baked ones).
    pub(crate) fn step_keys(&self, lo: f32, hi: f32) -> Result<Vec<(f32, Value)>> {
        let mut frames = self.breakpoints(lo, hi)?;
        if !matches!(self.curve_type(), CurveType::StepInt | CurveType::StepBool) {
            let (a, b) = (f64::from(lo).ceil(), f64::from(hi).floor());
            if b - a > MAX_EXPANDED as f64 {
                return Err(self.limit(format!("more than {MAX_EXPANDED} frames to sample")));
            }
            if b >= a {
                frames.extend((a as i64..=b as i64).map(|f| f as f32));
                frames.sort_by(f32::total_cmp);
                frames.dedup();
            }
        }
        let mut out: Vec<(f32, Value)> = Vec::new();
        for f in frames {
            let v = self.eval(f);
            if out.last().map(|l| l.1) != Some(v) {
                out.push((f, v));
            }
        }
        Ok(out)
    }

    /// A clamped cubic or linear curve equal to this one within `lo..=hi` with its wrap modes
    /// applied (itself when no wrap mode replays it there). Repeated periods copy the segments;
    /// mirrored ones reverse them (`p(1 - t)`). Other curve types are returned as they are.
    pub(crate) fn unrolled(&self, lo: f32, hi: f32) -> Result<Cow<'_, Curve>> {
        let periods = self.replayed_periods(lo, hi)?;
        let (Some(len), false) = (self.period(), periods.is_empty()) else { return Ok(Cow::Borrowed(self)) };
        if !matches!(self.curve_type(), CurveType::Cubic | CurveType::Linear) {
            return Ok(Cow::Borrowed(self));
        }
        let own = self.period_rows();
        let mut all: Vec<i64> = periods;
        all.push(0);
        all.sort_unstable();
        let mut keys: Vec<(f64, [f64; 4])> = Vec::new();
        for n in all {
            if !keys.is_empty() {
                keys.pop(); // the period's last key: the next period starts there
            }
            if self.reflected(n) {
                keys.extend(reflect_rows(&own).into_iter().map(|(f, r)| (self.image(n, f, len), r)));
            } else {
                keys.extend(own.iter().map(|&(f, r)| (self.image(n, f, len), r)));
            }
        }
        let stride = self.stride();
        let mut out = self.clone();
        out.flags &= !0x3303; // f32 frames, clamp on both sides
        out.start = keys.first().map_or(self.start, |k| k.0 as f32);
        out.end = keys.last().map_or(self.end, |k| k.0 as f32);
        out.key_count = u16::try_from(keys.len()).unwrap_or(u16::MAX);
        out.frames = keys.iter().map(|k| k.0 as f32).collect();
        out.keys = keys.iter().flat_map(|k| k.1.into_iter().take(stride)).collect();
        Ok(Cow::Owned(out))
    }

    /// The curve's own period as `(frame, raw row)` keys spanning `start..=end`: held values
    /// before the first key and after the last become explicit flat segments.
    fn period_rows(&self) -> Vec<(f64, [f64; 4])> {
        let stride = self.stride();
        let row = |i: usize| -> [f64; 4] {
            std::array::from_fn(|j| if j < stride { f64::from(self.key(i, j)) } else { 0.0 })
        };
        let n = self.frames.len();
        let flat = |i: usize| [row(i)[0], 0.0, 0.0, 0.0];
        let mut out = Vec::with_capacity(n + 2);
        if self.frames.first().is_some_and(|&f| f > self.start) {
            out.push((f64::from(self.start), flat(0)));
        }
        for (i, &f) in self.frames.iter().enumerate() {
            out.push((f64::from(f), if i + 1 == n { flat(i) } else { row(i) }));
        }
        if self.frames.last().is_some_and(|&f| f < self.end) {
            out.push((f64::from(self.end), flat(n.saturating_sub(1))));
        }
        out
    }
}

/// A period's keys played backwards: segment `p(t)` from `a` to `b` becomes `p(1 - t)` from
/// `b` to `a` (`c0 + c1 + c2 + c3`, `-(c1 + 2c2 + 3c3)`, `c2 + 3c3`, `-c3`); the frames stay the
/// original ones (the caller maps them), so the result runs from the last frame to the first.
fn reflect_rows(rows: &[(f64, [f64; 4])]) -> Vec<(f64, [f64; 4])> {
    let mut out = Vec::with_capacity(rows.len());
    for pair in rows.windows(2).rev() {
        let &[(_, [c0, c1, c2, c3]), (b, _)] = pair else { continue };
        out.push((b, [c0 + c1 + c2 + c3, -(c1 + 2.0 * c2 + 3.0 * c3), c2 + 3.0 * c3, -c3]));
    }
    if let Some(&(a, r)) = rows.first() {
        out.push((a, [r[0], 0.0, 0.0, 0.0]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cubic curve over frames 2, 5, 9 (f32 frames, f32 keys, scale 1, offset 0) with the
    /// given wrap flags; rows chosen so the segments do not join smoothly.
    fn cubic(wrap_flags: u16) -> Curve {
        let rows = [[1.0, 2.0, -1.0, 0.5], [2.5, -3.0, 1.0, 0.25], [0.75, 0.0, 0.0, 0.0]];
        Curve {
            at: 0,
            flags: wrap_flags,
            key_count: 3,
            target: 0,
            start: 2.0,
            end: 9.0,
            scale_bits: 1f32.to_bits(),
            offset_bits: 0,
            delta: None,
            frames: vec![2.0, 5.0, 9.0],
            keys: rows.iter().flatten().copied().collect(),
        }
    }

    #[test]
    fn unrolled_cubic_equals_the_wrapped_curve() {
        // Pre and post: repeat, mirror and their mixes; compared with `eval`'s own wrap mapping
        // (§5.1) away from the period ends, where a non-periodic curve jumps.
        for flags in [0x1100, 0x2200, 0x1200, 0x2100, 0x2000, 0x0100] {
            let c = cubic(flags);
            let u = c.unrolled(-30.0, 40.0).unwrap();
            assert!(matches!(u, Cow::Owned(_)), "{flags:#x}");
            for i in -120..=160 {
                let f = i as f32 / 4.0 + 0.125;
                let (want, got) = (c.eval(f).as_f32(), u.eval(f).as_f32());
                assert!((want - got).abs() < 1e-4, "flags {flags:#x} frame {f}: {got} vs {want}");
            }
        }
        assert!(matches!(cubic(0).unrolled(-30.0, 40.0).unwrap(), Cow::Borrowed(_)));
    }

    #[test]
    fn step_keys_follow_the_wrap_modes() {
        // Step int, u8 frames 2, 4, 6 → values 10, 11, 12; post mirror, pre repeat; window 0..=14.
        let c = Curve {
            at: 0,
            flags: 0x2142,
            key_count: 3,
            target: 0,
            start: 2.0,
            end: 6.0,
            scale_bits: 0,
            offset_bits: 11,
            delta: None,
            frames: vec![2.0, 4.0, 6.0],
            keys: vec![-1.0, 0.0, 1.0],
        };
        let keys: Vec<(f32, i32)> = c
            .step_keys(0.0, 14.0)
            .unwrap()
            .into_iter()
            .map(|(f, v)| match v {
                Value::Int(v) => (f, v),
                other => panic!("{other:?}"),
            })
            .collect();
        // By hand from §5.1: frames 0, 1 repeat 4, 5 (11); 2–3: 10; 4–5: 11; 6: 12. Mirror with
        // m = (f - 2) mod 8, reflected when m > 4 to 2 + (8 - m): 7 → 5 and 8 → 4 (11), 9 → 3
        // (10); forward again from 10: 10, 11 → 2, 3 (10), 12, 13 → 4, 5 (11), 14 → 6 (12).
        assert_eq!(keys, [(0.0, 11), (2.0, 10), (4.0, 11), (6.0, 12), (7.0, 11), (9.0, 10), (12.0, 11), (14.0, 12)]);
        assert!(c.step_keys(0.0, 1e9).is_err(), "too many periods is a limit error");
    }
}
