//! Float curves evaluated at non-decreasing frames in one pass (spec §5.2–§5.5).
//!
//! Converting a curve to model keys evaluates it at every key frame of its channel, in order.
//! [`Curve::hermite`] and [`Curve::left_limit`] search the frames on every call; a [`Sweep`]
//! keeps the segment it is in, so each frame costs one polynomial and its slope. The results are
//! the same as those two functions give: the value, the slopes on either side (final units per
//! frame; at a key the in-slope is the end slope of the segment before it, before the first key
//! and after the last both are 0), and, at a key whose segment before it ends more than 4
//! quantisation steps away (a held segment), the value approached from the left.
//!
//! Frames outside the curve's own range on a side that wraps (repeat, mirror), and curve types
//! other than cubic and linear, are handed to those general functions.

use super::curve::{Curve, CurveType, Wrap};

/// A curve's value at one frame with its one-sided slopes (per frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Point {
    pub(crate) value: f32,
    pub(crate) in_slope: f32,
    pub(crate) out_slope: f32,
    /// The value the curve approaches from the left where it jumps at this frame.
    pub(crate) jump: Option<f32>,
}

impl Point {
    /// A constant: `value`, flat on both sides.
    pub(crate) fn constant(value: f32) -> Point {
        Point { value, in_slope: 0.0, out_slope: 0.0, jump: None }
    }
}

/// A cursor over one curve's segments for frames given in non-decreasing order (a smaller frame
/// searches backwards, so any order is correct, only slower).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sweep<'a> {
    curve: &'a Curve,
    frames: &'a [f32],
    /// The last key at or before the previous frame (0 before the first key).
    key: usize,
    /// Key `key`'s segment, while `key + 1` exists.
    segment: Option<Segment>,
    /// The segment before it (key `key - 1`'s).
    previous: Option<Segment>,
    scale: f32,
    offset: f32,
    stride: usize,
    /// Whether the fast path applies (a cubic or linear curve).
    direct: bool,
    /// Whether a wrap mode replays the curve on either side (repeat or mirror).
    replays: bool,
}

/// One segment in final units: `value(t) = ((c3·t + c2)·t + c1)·t + c0` for `t` in `0..=1`
/// over frames `f0..f1`.
#[derive(Debug, Clone, Copy)]
struct Segment {
    f0: f32,
    f1: f32,
    /// `1 / (f1 - f0)`, 0 for a segment of no length.
    per_frame: f32,
    c: [f32; 4],
}

impl Segment {
    fn value(&self, t: f32) -> f32 {
        let [c0, c1, c2, c3] = self.c;
        ((c3 * t + c2) * t + c1) * t + c0
    }

    /// The slope per frame at `t`.
    fn slope(&self, t: f32) -> f32 {
        let [_, c1, c2, c3] = self.c;
        ((3.0 * c3 * t + 2.0 * c2) * t + c1) * self.per_frame
    }
}

impl<'a> Sweep<'a> {
    pub(crate) fn new(curve: &'a Curve) -> Sweep<'a> {
        let ct = curve.curve_type();
        let mut sweep = Sweep {
            curve,
            frames: &curve.frames,
            key: 0,
            segment: None,
            previous: None,
            scale: curve.scale(),
            offset: curve.offset_f32(),
            stride: if ct == CurveType::Linear { 2 } else { 4 },
            direct: matches!(ct, CurveType::Cubic | CurveType::Linear),
            replays: [curve.pre_wrap(), curve.post_wrap()].iter().any(|w| matches!(w, Wrap::Repeat | Wrap::Mirror)),
        };
        sweep.segment = sweep.segment_of(0);
        sweep
    }

    /// The curve at frame `f`: the two common steps (a frame inside the current segment, or the
    /// key that ends it) here, the others in [`Sweep::search`].
    pub(crate) fn at(&mut self, f: f32) -> Point {
        if let Some(s) = self.segment.filter(|s| s.f0 < f && f < s.f1) {
            // Inside the current segment: the common case, one polynomial and its slope.
            let t = (f - s.f0) * s.per_frame;
            let slope = s.slope(t);
            return Point { value: s.value(t), in_slope: slope, out_slope: slope, jump: None };
        }
        if self.direct && !self.wraps_at(f) {
            if let Some(point) = self.next_key(f) {
                return point;
            }
        }
        self.search(f)
    }

    /// [`Sweep::at`] anywhere else: outside the curve's range, at a repeated key, after a jump
    /// over keys or back, or on a curve of another type or wrapping there.
    fn search(&mut self, f: f32) -> Point {
        if !self.direct || self.wraps_at(f) {
            let (value, in_slope, out_slope) = self.curve.hermite(f);
            return Point { value, in_slope, out_slope, jump: self.curve.left_limit(f) };
        }
        self.seek(f);
        let Some(s) = self.segment.filter(|s| s.f0 <= f) else {
            return self.outside(f);
        };
        let t = if s.f1 > s.f0 { (f - s.f0) * s.per_frame } else { 0.0 };
        let out_slope = s.slope(t);
        let in_slope = if t == 0.0 && self.key > 0 { self.end_slope(self.key - 1) } else { out_slope };
        Point { value: s.value(t), in_slope, out_slope, jump: if f == s.f0 { self.jump(f) } else { None } }
    }

    /// The curve from `fa`, the frame last given to [`Sweep::at`], to a later frame `fb`, as a
    /// cubic in `s` (0 at `fa`, 1 at `fb`; final units, coefficients of `1, s, s², s³`): `None`
    /// where a key lies strictly between them, a wrap mode replays the curve there, or its type
    /// is not cubic or linear. Before the first key and after the last it is the held value.
    pub(crate) fn piece(&self, fa: f32, fb: f32) -> Option<[f32; 4]> {
        if !self.direct || self.wraps_at(fa) || self.wraps_at(fb) {
            return None;
        }
        let held = |key: usize| Some([self.curve.key(key, 0) * self.scale + self.offset, 0.0, 0.0, 0.0]);
        if self.frames.first().is_some_and(|&first| fb <= first) {
            return held(0);
        }
        if self.frames.last().is_some_and(|&last| fa >= last) {
            return held(self.frames.len() - 1);
        }
        let s = self.segment.filter(|s| s.f0 <= fa && fb <= s.f1)?;
        let [_, c1, c2, c3] = s.c;
        let (t, h) = ((fa - s.f0) * s.per_frame, (fb - fa) * s.per_frame);
        let slope = (3.0 * c3 * t + 2.0 * c2) * t + c1;
        Some([s.value(t), slope * h, (3.0 * c3 * t + c2) * h * h, c3 * h * h * h])
    }

    /// At the key that ends the current segment (the common step of a sweep over key frames):
    /// moves to the segment it starts and gives the point there, as [`Sweep::seek`] and the rest
    /// of [`Sweep::at`] would, without their searches. `None`, nothing moved, unless both
    /// segments have length and `f` is that key's frame (neither repeated nor the last key).
    fn next_key(&mut self, f: f32) -> Option<Point> {
        let before = self.segment.filter(|s| s.f0 < f && f == s.f1)?;
        let s = self.segment_of(self.key + 1).filter(|s| f < s.f1)?;
        self.key += 1;
        self.previous = Some(before);
        self.segment = Some(s);
        let t = (f - s.f0) * s.per_frame;
        let out_slope = s.slope(t);
        let in_slope = if t == 0.0 { before.slope(1.0) } else { out_slope };
        let jump = self.jump_between(before.value(1.0), s.c[0]);
        Some(Point { value: s.value(t), in_slope, out_slope, jump })
    }

    /// Moves to the last key at or before `f` (key 0 when `f` is before the first), backwards
    /// or forwards from where it is.
    fn seek(&mut self, f: f32) {
        let start = self.key;
        while self.key > 0 && self.frames.get(self.key).is_some_and(|&k| k > f) {
            self.key -= 1;
        }
        while self.frames.get(self.key + 1).is_some_and(|&k| k <= f) {
            self.key += 1;
        }
        if self.key == start + 1 {
            self.previous = self.segment;
            self.segment = self.segment_of(self.key);
        } else if self.key + 1 == start && self.previous.is_some() {
            self.segment = self.previous;
            self.previous = self.key.checked_sub(1).and_then(|p| self.segment_of(p));
        } else if self.key != start || self.segment.is_none() {
            self.previous = self.key.checked_sub(1).and_then(|p| self.segment_of(p));
            self.segment = self.segment_of(self.key);
        }
    }

    /// Segment `i` in final units, while key `i + 1` exists.
    fn segment_of(&self, i: usize) -> Option<Segment> {
        let (&f0, &f1) = self.frames.get(i).zip(self.frames.get(i + 1))?;
        let [c0, c1, c2, c3] = self.row(i);
        let (s, o) = (self.scale, self.offset);
        let per_frame = if f1 > f0 { 1.0 / (f1 - f0) } else { 0.0 };
        Some(Segment { f0, f1, per_frame, c: [c0 * s + o, c1 * s, c2 * s, c3 * s] })
    }

    /// Whether `f` lies outside the curve's range on a side whose wrap mode replays it.
    fn wraps_at(&self, f: f32) -> bool {
        if !self.replays {
            return false;
        }
        let side = if f < self.curve.start {
            self.curve.pre_wrap()
        } else if f > self.curve.end {
            self.curve.post_wrap()
        } else {
            return false;
        };
        matches!(side, Wrap::Repeat | Wrap::Mirror)
    }

    /// Before the first key (held, flat) or at and after the last (held; at the last key itself
    /// the in-slope is the end slope of the segment before it).
    fn outside(&self, f: f32) -> Point {
        let last = self.frames.len().saturating_sub(1);
        let before = self.frames.first().is_some_and(|&f0| f < f0);
        let key = if before { 0 } else { last };
        let value = self.curve.key(key, 0) * self.scale + self.offset;
        let at_last = !before && self.frames.last().is_some_and(|&l| l == f);
        let in_slope = if at_last && last > 0 { self.end_slope(last - 1) } else { 0.0 };
        Point { value, in_slope, out_slope: 0.0, jump: if at_last { self.jump(f) } else { None } }
    }

    /// At the key frame `f`: the end of the segment before the first key at `f`, when it is
    /// more than 4 quantisation steps from that key's value.
    fn jump(&self, f: f32) -> Option<f32> {
        let mut k = self.key;
        while k > 0 && self.frames.get(k - 1) == Some(&f) {
            k -= 1;
        }
        let left = self.cached(k.checked_sub(1)?)?.value(1.0);
        let right = match self.segment {
            Some(s) if k == self.key => s.c[0],
            _ => self.curve.key(k, 0) * self.scale + self.offset,
        };
        self.jump_between(left, right)
    }

    /// `left`, the value where a segment ends, when the next one starts at `right` more than
    /// four stored units (plus float noise) away: a jump, not a rounding difference.
    fn jump_between(&self, left: f32, right: f32) -> Option<f32> {
        let tol = 4.0 * self.scale.abs() + 1e-6 * right.abs();
        ((left - right).abs() > tol).then_some(left)
    }

    /// Segment `i` (from the cache when it is the current or the previous one).
    fn cached(&self, i: usize) -> Option<Segment> {
        if i == self.key {
            self.segment
        } else if i + 1 == self.key {
            self.previous
        } else {
            self.segment_of(i)
        }
    }

    /// The slope (per frame) at the end of segment `i`.
    fn end_slope(&self, i: usize) -> f32 {
        self.cached(i).map_or(0.0, |s| s.slope(1.0))
    }

    /// Key `i`'s stored coefficients (unscaled; `c2 = c3 = 0` for linear curves).
    fn row(&self, i: usize) -> [f32; 4] {
        let at = i * self.stride;
        match self.curve.keys.get(at..at + self.stride) {
            Some(&[c0, c1]) => [c0 as f32, c1 as f32, 0.0, 0.0],
            Some(&[c0, c1, c2, c3]) => [c0 as f32, c1 as f32, c2 as f32, c3 as f32],
            _ => [self.curve.key(i, 0), 0.0, 0.0, 0.0],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cubic rows over frames 2, 5, 5, 9, 12 (a repeated frame and a held segment into 9), f32
    /// keys, scale 0.5, offset 1.
    fn curve(flags: u16) -> Curve {
        let rows = [
            [1.0, 2.0, -1.0, 0.5],
            [4.0, 0.0, 0.0, 0.0],
            [2.5, -3.0, 1.0, 0.25],
            [9.0, 1.0, 0.0, 0.0],
            [0.75, 0.0, 0.0, 0.0],
        ];
        Curve {
            at: 0,
            flags,
            key_count: 5,
            target: 0,
            start: 2.0,
            end: 12.0,
            scale_bits: 0.5f32.to_bits(),
            offset_bits: 1f32.to_bits(),
            delta: None,
            frames: vec![2.0, 5.0, 5.0, 9.0, 12.0],
            keys: rows.iter().flatten().copied().collect(),
        }
    }

    /// The sweep gives what the searching functions give (to rounding: it scales the coefficients
    /// once per segment), at keys, between them and outside the range, for clamped and wrapping
    /// curves, with frames in order and out of order.
    #[test]
    fn sweep_equals_hermite_and_left_limit() {
        for flags in [0x0000, 0x1100, 0x2200] {
            let c = curve(flags);
            let mut frames: Vec<f32> = (-8..=64).map(|i| i as f32 / 4.0).collect();
            frames.extend([12.0, 3.0, 5.0, 0.0]);
            let mut sweep = Sweep::new(&c);
            for f in frames {
                let (value, in_slope, out_slope) = c.hermite(f);
                let want = Point { value, in_slope, out_slope, jump: c.left_limit(f) };
                let got = sweep.at(f);
                let close = |a: f32, b: f32| (a - b).abs() <= 1e-5 * a.abs().max(1.0);
                let jumps = match (got.jump, want.jump) {
                    (Some(a), Some(b)) => close(a, b),
                    (a, b) => a == b,
                };
                assert!(
                    close(got.value, want.value)
                        && close(got.in_slope, want.in_slope)
                        && close(got.out_slope, want.out_slope)
                        && jumps,
                    "flags {flags:#x} frame {f}: {got:?} vs {want:?}"
                );
            }
        }
    }

    #[test]
    fn a_held_segment_is_a_jump() {
        let c = curve(0);
        let mut sweep = Sweep::new(&c);
        // Segment 2 ends at p(1) = 2.5 - 3 + 1 + 0.25 = 0.75 raw (1.375 final); key 3 is 9 raw
        // (5.5 final): a jump of 8.25 raw steps.
        let p = sweep.at(9.0);
        assert_eq!((p.value, p.jump), (5.5, Some(1.375)));
        assert_eq!(sweep.at(10.0).jump, None);
    }
}
