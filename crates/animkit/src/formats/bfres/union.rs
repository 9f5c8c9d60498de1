//! Keys at the union of several curves' key frames: how the FSKA and FSHU conversions (and the
//! Euler rotation keys of [`super::euler`]) turn per-component curves into one track whose keys
//! split every cubic segment exactly.

use std::borrow::Cow;

use super::curve::Curve;
use super::sweep::{Point, Sweep};
use crate::error::{Error, ErrorKind, Result};
use crate::format::Limits;

/// Key times (seconds) and, per key, `[in-tangent, value, out-tangent]` of each component.
pub type UnionKeys<const N: usize> = (Vec<f32>, Vec<[[f32; N]; 3]>);

/// The key frames of `curves` merged, sorted and without repeats; frame 0 alone when there are
/// none. Each curve's frames are usually in order already, and then merged in one pass each. The
/// frames of a curve are borrowed when no other curve adds to them and they strictly increase
/// (as stored frames usually do).
pub fn union_frames<'a>(curves: &[Option<&'a Curve>]) -> Cow<'a, [f32]> {
    let mut lists = curves.iter().flatten().map(|c| c.frames.as_slice());
    let Some(first) = lists.next() else { return Cow::Owned(vec![0.0]) };
    let mut frames = Cow::Borrowed(first);
    for list in lists {
        if list != &*frames {
            frames = Cow::Owned(merged(&frames, list));
        }
    }
    if !frames.is_empty() && frames.is_sorted_by(|a, b| a < b) {
        return frames;
    }
    let mut frames = frames.into_owned();
    if !frames.is_sorted() {
        frames.sort_unstable_by(f32::total_cmp);
    }
    frames.dedup();
    if frames.is_empty() {
        frames.push(0.0);
    }
    Cow::Owned(frames)
}

/// Two frame lists merged in order (both sorted; otherwise simply joined), a frame both hold
/// taken once.
fn merged(a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a, b);
    while let (Some((&x, rest_a)), Some((&y, rest_b))) = (a.split_first(), b.split_first()) {
        if x <= y {
            out.push(x);
            a = rest_a;
            if x == y {
                b = rest_b;
            }
        } else {
            out.push(y);
            b = rest_b;
        }
    }
    out.extend_from_slice(a);
    out.extend_from_slice(b);
    out
}

/// Per-component cubic keys at the union of the component curves' frames: for each key the
/// in-tangent, value and out-tangent of every component (tangents per second).
pub fn union_cubic<const N: usize>(
    curves: [Option<&Curve>; N],
    base: [f32; N],
    fps: f32,
    limits: &Limits,
) -> Result<UnionKeys<N>> {
    let too_many = || Err(Error::new(ErrorKind::Limit, None, "too many keys"));
    if curves.iter().all(Option::is_none) {
        // A constant: one flat key at frame 0, as the general path below makes it.
        return if limits.max_keys == 0 { too_many() } else { Ok((vec![0.0 / fps], vec![[[0.0; N], base, [0.0; N]]])) };
    }
    let frames = union_frames(&curves);
    if frames.len() as u64 > limits.max_keys {
        return too_many();
    }
    let last = frames.len() - 1;
    let mut keys = Vec::with_capacity(frames.len());
    let mut times = Vec::with_capacity(frames.len());
    let mut sweeps = curves.map(|c| c.map(Sweep::new));
    for (k, &f) in frames.iter().enumerate() {
        let mut key = [[0f32; N]; 3];
        // Per component, the value the segment before ends at when the curve jumps at this key.
        let mut jumps = [None::<f32>; N];
        let [ins, values, outs] = &mut key;
        let slots = ins.iter_mut().zip(values.iter_mut()).zip(outs.iter_mut()).zip(jumps.iter_mut());
        for ((sweep, &b), (((inn_slot, value_slot), out_slot), jump)) in sweeps.iter_mut().zip(&base).zip(slots) {
            let p = sweep.as_mut().map_or(Point::constant(b), |s| s.at(f));
            *inn_slot = if k == 0 { 0.0 } else { p.in_slope * fps };
            *value_slot = p.value;
            *out_slot = if k == last { 0.0 } else { p.out_slope * fps };
            *jump = p.jump;
        }
        // A jump at this key (a held segment): the segment before ends elsewhere, with this
        // key's in-tangents; the key itself then starts flat.
        if jumps.iter().any(Option::is_some) {
            let [ins, mut ends, _] = key;
            for (end, jump) in ends.iter_mut().zip(jumps) {
                if let Some(l) = jump.filter(|l| !l.is_nan()) {
                    *end = l;
                }
            }
            key[0] = [0.0; N];
            keys.push([ins, ends, [0.0; N]]);
            times.push(f / fps);
        }
        keys.push(key);
        times.push(f / fps);
    }
    if keys.len() as u64 > limits.max_keys {
        return too_many();
    }
    Ok((times, keys))
}
