//! Building BFRES animations from the model, canonical per spec §5.7 and §8.
//!
//! - **FSKA.** One BoneAnim per bone with rotation, translation or scale tracks, in order of first
//!   appearance. Each channel stores its first key as base data; a changing component gets a
//!   cubic curve (Hermite → cubic, §5.4: cubic tracks keep their tangents, linear ones give
//!   `c2 = c3 = 0`, step ones hold) in the smallest encoding within the bound of
//!   [`super::encode`]. Rotations are Euler XYZ, as every Breath of the Wild FSKA stores them,
//!   where angle curves follow every rotation track of the clip within 0.035° (`rotation=auto`),
//!   else quaternion curves with hemisphere-continuous keys; `rotation=euler|quat` forces one.
//!   Euler is not forced by default: the engine interpolates the three angles, which near gimbal
//!   lock (pitch ±90°, common on GTA pelvis bones) turns up to 180° away from the source's slerp.
//!   Cubic tangents become angle slopes ([`super::euler::angle_rates`]); keys the cubic through
//!   their neighbours passes through are left out.
//! - **FTXP.** Texture-index tracks become step-int curves (`s8` keys when they fit, offset
//!   `(min+max)/2`, raw scale word 0); a constant sampler stores only its base value. The texture
//!   list is the union of the tracks' lists.
//! - **FSHU.** Scalar tracks on `param.component` material properties (the names `to_model`
//!   gives) become float curves or constants, grouped by kind (texture SRT, colour, param).
//! - **FVIS.** Visibility tracks become step-bool curves (scale word 1) or base bits.
//! - **Clips read from BFRES** ([`super::stored`]). An FSKA or FSHU clip whose tracks are all as
//!   read (same frame rate and count, rotations in the mode read) is written as the subfile read,
//!   user data included; otherwise an FSKA's unchanged channels keep their base values and curves.
//!   With `rotation=auto` an Euler FSKA stays Euler when its changed rotation tracks can be Euler
//!   curves, and a quaternion one stays quaternion. An unchanged Breath of the Wild file rewrites
//!   to the same animation bytes (re-encoding its Euler rotations from the model's cubic
//!   quaternion keys gave 1.2–2.3× the size).
//! - **Skeleton.** Not written (no FMDL): a warning says so with the bone count.
//!
//! Write parameters: `fps` (default: the clip's frame rate, else 30), `rotation` (`auto`, the
//! default, `quat` or `euler`).

use std::collections::BTreeMap;

use glam::{Quat, Vec4};

use super::build::{write_file, Subfile};
use super::curve::Curve;
use super::encode::{baked_size, encode, flag_bit};
use super::euler::angle_rates;
use super::fshu::{component_target, Fshu, Kind, MaterialAnim, ParamInfo};
use super::fska::{euler_xyz, BoneAnim, Fska, ROTATE, SCALE, TRANSLATE};
use super::ftxp::{Ftxp, MaterialPattern, PatternInfo};
use super::fvis::Fvis;
use super::stored::{StoredFshu, StoredFska};
use crate::error::{Error, Result};
use crate::format::WriteOptions;
use crate::model::{Channel, Clip, Interpolation, Package, Target, Track, Values};
use crate::sample::{sample_track, Sampled};

/// A key of one component: `(frame, value, in-slope, out-slope)`, slopes per frame.
type HermiteKey = (f32, f32, f32, f32);

/// The version written (BotW Wii U).
const VERSION: u32 = 0x0405_0003;

/// Frame-type flag bits for a set of frames (§5.7): u8 when every frame is an integer in
/// 0..=255, else 10.5 fixed point when every frame is a 1/32 step within ±1024, else f32. Each
/// stores the frames exactly.
fn frame_type_bits(frames: &[f32]) -> u16 {
    if frames.iter().all(|f| f.fract() == 0.0 && (0.0..=255.0).contains(f)) {
        2
    } else if frames.iter().all(|f| (-1024.0..1024.0).contains(f) && (f * 32.0).fract() == 0.0) {
        1
    } else {
        0
    }
}

/// Snaps frames computed from seconds to integers or 1/32 steps when they are that close.
fn snap(f: f32) -> f32 {
    let r = f.round();
    if (f - r).abs() < 1e-3 {
        return r;
    }
    let r = (f * 32.0).round() / 32.0;
    if (f - r).abs() < 1e-4 {
        r
    } else {
        f
    }
}

/// The key frames of times in seconds at `fps`, snapped ([`snap`]).
fn frames_at(times: &[f32], fps: f32) -> Vec<f32> {
    times.iter().map(|&t| snap(t * fps)).collect()
}

/// The looping bit (4) of an animation subfile's flags.
pub(crate) fn looping(clip: &Clip) -> u16 {
    u16::from(clip.looping == Some(true)) << 2
}

/// A curve keyed at `frames` (their frame type chosen by [`frame_type_bits`]): `kinds` holds its
/// curve- and key-type flag bits, then its scale and offset words, `delta` (the last value less
/// the first) and the stored key elements.
fn curve(frames: Vec<f32>, kinds: u16, target: u32, words: [u32; 2], delta: f32, keys: Vec<f64>) -> Result<Curve> {
    Ok(Curve {
        at: 0,
        flags: frame_type_bits(&frames) | kinds,
        key_count: u16::try_from(frames.len()).map_err(|_| Error::unrepresentable("too many keys"))?,
        target,
        start: frames.first().copied().unwrap_or(0.0),
        end: frames.last().copied().unwrap_or(0.0),
        scale_bits: words[0],
        offset_bits: words[1],
        delta: Some(delta),
        frames,
        keys,
    })
}

/// A cubic float curve from keys `(frame, value, in-slope, out-slope)` (slopes per frame), or
/// `None` when the channel is constant. With `hold`, each segment keeps its first value (step).
fn float_curve(target: u32, keys: &[HermiteKey], hold: bool) -> Result<Option<Curve>> {
    let [(_, v0, _, _), _, ..] = *keys else { return Ok(None) };
    if keys.iter().all(|k| k.1 == v0 && k.2 == 0.0 && k.3 == 0.0) {
        return Ok(None);
    }
    // Each segment as a cubic in t over 0..=1 (Hermite → cubic, §5.4); the last key holds.
    let nexts = keys.iter().skip(1).map(Some).chain([None]);
    let rows: Vec<[f32; 4]> = keys
        .iter()
        .zip(nexts)
        .map(|(&(f0, p0, _, s0), next)| match next {
            Some(&(f1, p1, s1, _)) if !hold => {
                let d = f1 - f0;
                let (s0, s1) = (s0 * d, s1 * d);
                [p0, s0, 3.0 * (p1 - p0) - 2.0 * s0 - s1, 2.0 * (p0 - p1) + s0 + s1]
            }
            _ => [p0, 0.0, 0.0, 0.0],
        })
        .collect();
    let e = encode(&rows);
    let stride = if e.flags & 0x70 == 0 { 4 } else { 2 };
    let value_of = |i: usize| e.keys.get(i * stride).map_or(0.0, |&k| k as f32 * e.scale + e.offset);
    let delta = value_of(keys.len() - 1) - value_of(0);
    let frames = keys.iter().map(|k| k.0).collect();
    curve(frames, e.flags, target, [e.scale.to_bits(), e.offset.to_bits()], delta, e.keys).map(Some)
}

/// The keys of `N` components at frame `f` from their values and slopes on either side.
fn keys_at<const N: usize>(f: f32, values: &[f32; N], ins: &[f32; N], outs: &[f32; N]) -> [HermiteKey; N] {
    let mut keys = [(f, 0.0, 0.0, 0.0); N];
    for (k, ((&v, &i), &o)) in keys.iter_mut().zip(values.iter().zip(ins).zip(outs)) {
        *k = (f, v, i, o);
    }
    keys
}

/// Per-component keys `(frame, value, in, out)` of a vector track: a cubic track's tangents
/// per frame, else the slopes of the segments either side (0 for a step track, before the first
/// key, after the last and across a zero-length segment).
fn component_keys<const N: usize>(track: &Track, values: &[[f32; N]], fps: f32) -> Result<Vec<[HermiteKey; N]>> {
    let n = track.times.len();
    let cubic = track.interpolation == Interpolation::CubicSpline;
    if values.len() != if cubic { 3 * n } else { n } {
        return Err(Error::unrepresentable(format!(
            "track {}: value count does not fit its times",
            track.target.label()
        )));
    }
    let frames = frames_at(&track.times, fps);
    if cubic {
        // (in-tangent, value, out-tangent) per key.
        let (triples, _) = values.as_chunks::<3>();
        let per_frame = |t: &[f32; N]| t.map(|x| x / fps);
        let keys = frames.iter().zip(triples);
        return Ok(keys.map(|(&f, [i, v, o])| keys_at(f, v, &per_frame(i), &per_frame(o))).collect());
    }
    let step = track.interpolation == Interpolation::Step;
    // The per-component slopes from key a to key b.
    let slopes = |(fa, va): (f32, &[f32; N]), (fb, vb): (f32, &[f32; N])| {
        let d = fb - fa;
        let mut s = [0f32; N];
        if d > 0.0 && !step {
            for (s, (a, b)) in s.iter_mut().zip(va.iter().zip(vb)) {
                *s = (b - a) / d;
            }
        }
        s
    };
    let keys: Vec<(f32, &[f32; N])> = frames.iter().copied().zip(values).collect();
    let prevs = [None].into_iter().chain(keys.iter().copied().map(Some));
    let nexts = keys.iter().skip(1).copied().map(Some).chain([None]);
    let all = keys.iter().zip(prevs).zip(nexts).map(|((&key, prev), next)| {
        let inn = prev.map_or([0.0; N], |p| slopes(p, key));
        let out = next.map_or([0.0; N], |n| slopes(key, n));
        keys_at(key.0, key.1, &inn, &out)
    });
    Ok(all.collect())
}

/// Builds the curves of one channel: `(base value, curves)`.
fn channel<const N: usize>(keys: &[[HermiteKey; N]], targets: [u32; N], hold: bool) -> Result<([f32; N], Vec<Curve>)> {
    let base = keys.first().map_or([0.0; N], |k| k.map(|c| c.1));
    let mut curves = Vec::new();
    for (c, target) in targets.into_iter().enumerate() {
        let column: Vec<HermiteKey> = keys.iter().filter_map(|k| k.get(c).copied()).collect();
        let column = if hold { column } else { fewer_keys(&column) };
        curves.extend(float_curve(target, &column, hold)?);
    }
    Ok((base, curves))
}

/// The cubic Hermite from key `a` to key `b` at frame `f` (slopes per frame).
fn hermite_at(a: &HermiteKey, b: &HermiteKey, f: f32) -> f32 {
    let d = b.0 - a.0;
    let u = (f - a.0) / d;
    let (u2, u3) = (u * u, u * u * u);
    (2.0 * u3 - 3.0 * u2 + 1.0) * a.1
        + (u3 - 2.0 * u2 + u) * d * a.3
        + (-2.0 * u3 + 3.0 * u2) * b.1
        + (u3 - u2) * d * b.2
}

/// `keys` without the keys that the cubic through their neighbours already passes through: a
/// run of keys is left out when the one cubic from the key before the run to the key after it
/// stays within `tolerance` of the original keys' cubics (checked at every original key and at
/// a quarter, half and three quarters of every original segment), so dropping keys never drifts
/// from the source. The tolerance is a quarter of an `s16` step of the keys' value range (an
/// eighth of the encoder's bound, [`super::encode::bound`]), or 4 `f32` ULPs of their magnitude
/// when that is more. This undoes the splits of a source whose channels were keyed at different
/// frames (BFRES X, Y and Z curves, read at the union of their frames).
fn fewer_keys(keys: &[HermiteKey]) -> Vec<HermiteKey> {
    let (lo, hi) = keys.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), k| (l.min(k.1), h.max(k.1)));
    let tolerance = ((hi - lo) / 4.0 / 65534.0).max(4.0 * f32::EPSILON * lo.abs().max(hi.abs()));
    let mut out: Vec<HermiteKey> = Vec::with_capacity(keys.len());
    let mut kept = 0usize;
    for (i, key) in keys.iter().enumerate() {
        if let (Some(a), Some(b), Some(run)) = (out.last(), keys.get(i + 1), keys.get(kept..=i + 1)) {
            if a.0 < key.0 && key.0 < b.0 && follows(a, b, run, tolerance) {
                continue;
            }
        }
        out.push(*key);
        kept = i;
    }
    out
}

/// Whether the cubic from `a` to `b` stays within `tolerance` of the cubics through `run` (the
/// original keys from `a` to `b`) at every key and at the quarters of every segment.
fn follows(a: &HermiteKey, b: &HermiteKey, run: &[HermiteKey], tolerance: f32) -> bool {
    run.windows(2).all(|pair| {
        let [p, q] = pair else { return false };
        [0.25, 0.5, 0.75, 1.0].iter().all(|&u| {
            let f = p.0 + u * (q.0 - p.0);
            let original = if u == 1.0 { q.1 } else { hermite_at(p, q, f) };
            (hermite_at(a, b, f) - original).abs() <= tolerance
        })
    })
}

/// The Euler XYZ angles `[x, y, z]` of a unit quaternion (`q = qZ·qY·qX`), `y` in `-π/2..=π/2`.
/// Computed from the rotation matrix terms directly, so a component that is exactly zero in the
/// source stays zero close to gimbal lock.
fn zyx_angles(q: Quat) -> [f32; 3] {
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let sin_y = (2.0 * (w * y - x * z)).clamp(-1.0, 1.0);
    [
        (2.0 * (w * x + y * z)).atan2(1.0 - 2.0 * (x * x + y * y)),
        sin_y.asin(),
        (2.0 * (w * z + x * y)).atan2(1.0 - 2.0 * (y * y + z * z)),
    ]
}

/// Of the two angle triples of one rotation, `(x, y, z)` and `(x + π, π − y, z + π)`, each
/// unwrapped by whole turns towards `previous`, the one nearest to it.
fn nearest_angles(a: [f32; 3], previous: Option<[f32; 3]>) -> [f32; 3] {
    let Some(p) = previous else { return a };
    let pi = std::f32::consts::PI;
    let unwrap = |mut a: [f32; 3]| {
        for (x, p) in a.iter_mut().zip(p) {
            *x += ((p - *x) / std::f32::consts::TAU).round() * std::f32::consts::TAU;
        }
        a
    };
    let first = unwrap(a);
    let second = unwrap([a[0] + pi, pi - a[1], a[2] + pi]);
    let distance = |a: [f32; 3]| a.iter().zip(p).map(|(x, p)| (x - p).abs()).sum::<f32>();
    if distance(second) < distance(first) {
        second
    } else {
        first
    }
}

/// Quaternion keys as Euler XYZ angles (`q = qZ·qY·qX`), unwrapped for continuity. A cubic
/// track's tangents become the angle slopes that give the same quaternion rate
/// ([`angle_rates`]), so the angle curves leave each key as the quaternions do.
fn euler_keys(track: &Track, qs: &[Quat], fps: f32) -> Result<Vec<[HermiteKey; 3]>> {
    let cubic = track.interpolation == Interpolation::CubicSpline;
    let values: Vec<Quat> = if cubic { qs.iter().skip(1).step_by(3).copied().collect() } else { qs.to_vec() };
    let mut prev: Option<[f32; 3]> = None;
    let mut angles = Vec::with_capacity(values.len());
    for q in &values {
        let a = nearest_angles(zyx_angles(q.normalize()), prev);
        prev = Some(a);
        angles.push(a);
    }
    if !cubic {
        return component_keys(track, &angles, fps);
    }
    let (triples, _) = qs.as_chunks::<3>();
    let keys = frames_at(&track.times, fps).into_iter().zip(&angles).zip(triples);
    let all = keys.map(|((f, a), [inn, value, outt])| {
        // The key may be stored as −q; its tangents then belong to −q too.
        let sign = Vec4::from(euler_xyz(a[0], a[1], a[2])).dot(Vec4::from(*value)).signum();
        let rate = |tangent: &Quat| angle_rates(*a, Vec4::from(*tangent) * sign / fps);
        keys_at(f, a, &rate(inn), &rate(outt))
    });
    Ok(all.collect())
}

/// The largest rotation (radians) by which Euler angle curves may part from a clip's rotation
/// tracks for `rotation=auto` to store them: 0.035°.
const EULER_TOLERANCE: f32 = 6e-4;

/// Whether Euler angle curves through the keys of every rotation track of `clip` follow the
/// track within [`EULER_TOLERANCE`]: checked at every key and every segment's midpoint, with the
/// angles interpolated as the engine does (cubic between keys) against the track as sampled.
/// True for rotations read from Euler curves; false where a track passes near gimbal lock
/// (`y = ±π/2`) or turns fast between keys, where angle curves bend away from the track.
fn euler_reproduces<'a>(tracks: impl IntoIterator<Item = &'a Track>, fps: f32) -> Result<bool> {
    for t in tracks {
        let (Target::Bone(_), Values::Rotation(q)) = (&t.target, &t.values) else { continue };
        if t.interpolation == Interpolation::Step {
            continue;
        }
        let keys = euler_keys(t, q, fps)?;
        for (k, pair) in keys.windows(2).enumerate() {
            let [[ax, ay, az], [bx, by, bz]] = pair else { continue };
            let (fa, fb) = (ax.0, bx.0);
            let at_key = (t.times.get(k).copied().unwrap_or(fa / fps), [ax.1, ay.1, az.1]);
            let m = 0.5 * (fa + fb);
            let middle = (fb > fa).then(|| (m / fps, [(ax, bx), (ay, by), (az, bz)].map(|(a, b)| hermite_at(a, b, m))));
            for (time, [x, y, z]) in [Some(at_key), middle].into_iter().flatten() {
                let Some(Sampled::Rotation(want)) = sample_track(t, time) else { continue };
                if euler_xyz(x, y, z).angle_between(want) > EULER_TOLERANCE {
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

/// The quaternion keys with signs chosen so each key lies in the hemisphere of the one before
/// (`q` and `-q` are the same rotation, but a curve fitted through both passes through zero: a
/// 180° flip). For cubic tracks (`[in, value, out]` per key) a negated key's tangents are negated
/// with it.
fn hemisphere_continuous(qs: &[Quat], cubic: bool) -> Vec<Quat> {
    let stride = if cubic { 3 } else { 1 };
    let mut out = qs.to_vec();
    let mut prev: Option<Quat> = None;
    for key in out.chunks_mut(stride) {
        let value = if cubic { key.get(1) } else { key.first() };
        let Some(&value) = value else { continue };
        let flip = prev.is_some_and(|p| p.dot(value) < 0.0);
        if flip {
            key.iter_mut().for_each(|q| *q = -*q);
        }
        prev = Some(if flip { -value } else { value });
    }
    out
}

/// The entry of `list` called `name`, added at the end when there is none (so entries keep the
/// order of their first appearance).
fn entry<'a, T: Default>(list: &'a mut Vec<(String, T)>, name: &str) -> Option<&'a mut T> {
    let at = list.iter().position(|e| e.0 == name).unwrap_or(list.len());
    if at == list.len() {
        list.push((name.to_string(), T::default()));
    }
    list.get_mut(at).map(|e| &mut e.1)
}

/// The bone tracks of a clip grouped by bone, bones in order of first appearance.
fn tracks_by_bone(clip: &Clip) -> Vec<(String, Vec<&Track>)> {
    let mut bones: Vec<(String, Vec<&Track>)> = Vec::new();
    for t in &clip.tracks {
        if let (Target::Bone(b), Values::Rotation(_) | Values::Translation(_) | Values::Scale(_)) =
            (&t.target, &t.values)
        {
            if let Some(list) = entry(&mut bones, &b.label()) {
                list.push(t);
            }
        }
    }
    bones
}

/// The FSKA frame count of a clip at `fps`.
pub(crate) fn frame_count(clip: &Clip, fps: f32) -> i32 {
    (clip.duration * fps).round() as i32
}

/// Whether the FSKA of `clip` stores Euler rotations: as `forced` says; else, for a clip read
/// from an FSKA ([`StoredFska`]), as that FSKA did when its changed rotation tracks (if any) can
/// be Euler curves (its unchanged ones keep their curves, and a quaternion FSKA stays one);
/// else where Euler curves reproduce every rotation track ([`euler_reproduces`]).
pub(crate) fn rotation_mode(clip: &Clip, fps: f32, forced: Option<bool>) -> Result<bool> {
    if let Some(euler) = forced {
        return Ok(euler);
    }
    match StoredFska::of(clip, fps, frame_count(clip, fps)) {
        Some(s) if s.euler() => euler_reproduces(clip.tracks.iter().filter(|t| !s.unchanged(t)), fps),
        Some(_) => Ok(false),
        None => euler_reproduces(&clip.tracks, fps),
    }
}

/// The FSKA of `clip`'s bone tracks at `fps` (`None` without any), rotations as Euler angle
/// curves when `euler`, else quaternion curves. A clip read from an FSKA keeps what did not change
/// ([`StoredFska`]): the whole subfile when nothing did.
pub(crate) fn fska_from_clip(clip: &Clip, fps: f32, euler: bool) -> Result<Option<Fska>> {
    let frames = frame_count(clip, fps);
    let stored = StoredFska::of(clip, fps, frames);
    let loop_bit = u32::from(looping(clip));
    if let Some(s) = stored.filter(|s| s.euler() == euler && s.whole(clip)) {
        // Nothing changed: the subfile as read (bones without channels and user data too).
        let flags = s.subfile.flags & !4 | loop_bit;
        return Ok(Some(Fska { name: clip.name.clone(), flags, ..s.subfile.clone() }));
    }
    let by_bone = tracks_by_bone(clip);
    if by_bone.is_empty() {
        return Ok(None);
    }
    let mut bones = Vec::with_capacity(by_bone.len());
    let mut total_curves = 0usize;
    for (name, tracks) in by_bone {
        let bone = bone_anim(name, &tracks, fps, euler, stored, total_curves)?;
        total_curves += bone.curves.len();
        bones.push(bone);
    }
    let baked = baked_size(bones.iter().flat_map(|b| &b.curves));
    let user_data = stored.map(|s| s.subfile.user_data.clone()).unwrap_or_default();
    let mode = if euler { 0x1000 } else { 0 };
    // The scale mode (bits 8–9) of the FSKA read, else Maya's, as Breath of the Wild stores.
    let scale_mode = stored.map_or(0x0200, |s| s.subfile.flags & 0x0300);
    Ok(Some(Fska {
        at: 0,
        name: clip.name.clone(),
        flags: mode | scale_mode | loop_bit,
        frame_count: frames,
        user_data_count: user_data.len() as u16,
        curve_count: total_curves as i32,
        baked_size: baked,
        bones,
        user_data,
    }))
}

/// One bone's animation from its tracks; `begin_curve` curves precede it in the FSKA. A channel
/// whose track is unchanged since it was read keeps its stored base value and curves; the others
/// are encoded from their keys.
fn bone_anim(
    name: String,
    tracks: &[&Track],
    fps: f32,
    euler: bool,
    stored: Option<&StoredFska>,
    begin_curve: usize,
) -> Result<BoneAnim> {
    let (mut scale, mut rotate, mut translate) = (None, None, None);
    let mut curves: Vec<Curve> = Vec::new();
    let mut all_kept = true;
    for &t in tracks {
        let (base, c) = match stored.and_then(|s| s.channel(t, euler)) {
            Some(kept) => (kept.base.map(<[f32]>::to_vec), kept.curves.to_vec()),
            None => {
                all_kept = false;
                let (base, c) = encode_channel(t, fps, euler)?;
                (Some(base), c)
            }
        };
        let slot = match t.channel() {
            Channel::Scale => &mut scale,
            Channel::Rotation => &mut rotate,
            _ => &mut translate,
        };
        *slot = base;
        curves.extend(c);
    }
    curves.sort_by_key(|c| flag_bit(c.target));
    let has = |base: &Option<Vec<f32>>, bit: u32| if base.is_some() { bit } else { 0 };
    let mut flags = has(&scale, 0x08) | has(&rotate, 0x10) | has(&translate, 0x20);
    flags |= curves.iter().fold(0, |f, c| f | flag_bit(c.target));
    if all_kept {
        // Segment scale compensate, scale uniform / volume one, rotate / translate zero (§7.1).
        flags |= stored.and_then(|s| s.bone(&name)).map_or(0, |b| b.flags & 0x0F80_0000);
    }
    let begin_curve = u16::try_from(begin_curve).map_err(|_| Error::unrepresentable("more than 65535 curves"))?;
    if curves.len() > 255 {
        return Err(Error::unrepresentable("more than 255 curves in a bone"));
    }
    let has_base = flags & 0x38 != 0;
    Ok(BoneAnim {
        at: 0,
        flags,
        name,
        begin_rotate: if has_base { 3 } else { 0 },
        begin_translate: if has_base { 6 } else { 0 },
        begin_base_translate: if has_base { 7 } else { 0 },
        begin_curve,
        scale: array(scale),
        rotate: array(rotate),
        translate: array(translate),
        curves,
    })
}

/// A base value as the fixed-size array it is stored as (the channels give 3 or 4 components).
fn array<const N: usize>(v: Option<Vec<f32>>) -> Option<[f32; N]> {
    v.and_then(|v| v.try_into().ok())
}

/// A channel encoded from its track's keys: its base value (the first key) and curves.
fn encode_channel(t: &Track, fps: f32, euler: bool) -> Result<(Vec<f32>, Vec<Curve>)> {
    let hold = t.interpolation == Interpolation::Step;
    Ok(match &t.values {
        Values::Scale(v) | Values::Translation(v) => {
            let targets = if matches!(t.values, Values::Scale(_)) { SCALE } else { TRANSLATE };
            let vals: Vec<[f32; 3]> = v.iter().map(|x| x.to_array()).collect();
            let (b, c) = channel(&component_keys(t, &vals, fps)?, targets, hold)?;
            (b.to_vec(), c)
        }
        Values::Rotation(q) if euler => {
            let keys = euler_keys(t, q, fps)?;
            let (b, c) = channel(&keys, [ROTATE[0], ROTATE[1], ROTATE[2]], hold)?;
            (vec![b[0], b[1], b[2], 1.0], c)
        }
        Values::Rotation(q) => {
            let cubic = t.interpolation == Interpolation::CubicSpline;
            let vals: Vec<[f32; 4]> = hemisphere_continuous(q, cubic).iter().map(|x| x.to_array()).collect();
            let (b, c) = channel(&component_keys(t, &vals, fps)?, ROTATE, hold)?;
            (b.to_vec(), c)
        }
        _ => (Vec::new(), Vec::new()),
    })
}

/// An FTXP from a clip's texture-index tracks (`None` without any). The texture list is every
/// track's list in order, so a list read from a file (unused names included) is kept as it was.
pub(crate) fn ftxp_from_clip(clip: &Clip, fps: f32) -> Result<Option<Ftxp>> {
    let tracks: Vec<_> = clip
        .tracks
        .iter()
        .filter_map(|t| match (&t.target, &t.values) {
            (Target::Material { material, property }, Values::TextureIndex { indices, textures }) => {
                Some((t, material, property, indices, textures))
            }
            _ => None,
        })
        .collect();
    let mut textures: Vec<String> = Vec::new();
    for name in tracks.iter().flat_map(|t| t.4.iter()) {
        if !textures.contains(name) {
            textures.push(name.clone());
        }
    }
    let mut materials: Vec<MaterialPattern> = Vec::new();
    for (t, material, property, indices, names) in tracks {
        // Each index into the file's list.
        let remapped = indices.iter().map(|&i| {
            let k = names.get(i as usize).and_then(|name| textures.iter().position(|n| n == name));
            k.map(|k| k as i64).ok_or_else(|| {
                Error::unrepresentable(format!("{}: texture index {i} outside its list", t.target.label()))
            })
        });
        let remapped = remapped.collect::<Result<Vec<i64>>>()?;
        if materials.last().map(|m| m.name.as_str()) != Some(&**material) {
            materials.push(MaterialPattern { name: material.to_string(), ..Default::default() });
        }
        let Some(m) = materials.last_mut() else { continue };
        let curve_index = match index_curve(t, &remapped, fps)? {
            Some(c) => {
                m.curves.push(c);
                i8::try_from(m.curves.len() - 1)
                    .map_err(|_| Error::unrepresentable("more than 127 curves in a material"))?
            }
            None => -1,
        };
        m.infos.push(PatternInfo { curve_index, sub_bind_index: -1, sampler: property.to_string() });
        let first = remapped.first().copied().unwrap_or(0);
        m.base_values.push(u16::try_from(first).map_err(|_| Error::unrepresentable("texture index over 65535"))?);
    }
    if materials.is_empty() {
        return Ok(None);
    }
    Ok(Some(Ftxp {
        at: 0,
        name: clip.name.clone(),
        flags: looping(clip),
        frame_count: frame_count(clip, fps),
        baked_size: baked_size(materials.iter().flat_map(|m| &m.curves)),
        textures,
        texture_ftex: Vec::new(),
        materials,
    }))
}

/// The step-int curve of texture indices keyed at `t`'s times (`None` when they never change):
/// the indices less the offset `(min + max) / 2`, as `s8` keys when they fit, else `s16`, else
/// `s32`; raw scale word 0.
fn index_curve(t: &Track, indices: &[i64], fps: f32) -> Result<Option<Curve>> {
    let (Some(&first), Some(&last)) = (indices.first(), indices.last()) else { return Ok(None) };
    if indices.iter().all(|&v| v == first) {
        return Ok(None);
    }
    let (min, max) = indices.iter().fold((first, first), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let offset = (min + max).div_euclid(2);
    let fits = |limit: i64| indices.iter().all(|v| (-limit - 1..=limit).contains(&(v - offset)));
    let key_bits = if fits(127) {
        2 << 2
    } else if fits(32767) {
        1 << 2
    } else {
        0
    };
    let keys = indices.iter().map(|v| (v - offset) as f64).collect();
    let words = [0, offset as i32 as u32];
    curve(frames_at(&t.times, fps), key_bits | 4 << 4, 0, words, (last - first) as f32, keys).map(Some)
}

/// Bits packed into words, bit `i & 31` of word `i / 32`.
fn bit_words(bits: &[bool]) -> Vec<u32> {
    bits.chunks(32).map(|c| c.iter().enumerate().fold(0u32, |w, (i, &b)| w | u32::from(b) << i)).collect()
}

/// FVIS subfiles (bone and material) from a clip's visibility tracks: a step-bool curve (scale
/// word 1) for each that changes, and every track's first value among the base bits.
fn fvis_from_clip(clip: &Clip, fps: f32) -> Result<Vec<Fvis>> {
    let mut out = Vec::new();
    for material in [false, true] {
        let (mut names, mut curves, mut bits) = (Vec::new(), Vec::new(), Vec::new());
        for t in &clip.tracks {
            let (name, v) = match (&t.target, &t.values, material) {
                (Target::Bone(b), Values::Visibility(v), false) => (b.label(), v),
                (Target::Material { material: m, .. }, Values::Visibility(v), true) => (m.to_string(), v),
                _ => continue,
            };
            let first = v.first().copied().unwrap_or(false);
            bits.push(first);
            if v.iter().any(|&x| x != first) {
                let last = v.last().copied().unwrap_or(false);
                let delta = f32::from(u8::from(last)) - f32::from(u8::from(first));
                let keys = bit_words(v).into_iter().map(f64::from).collect();
                curves.push(curve(frames_at(&t.times, fps), 6 << 4, names.len() as u32, [1, 0], delta, keys)?);
            }
            names.push(name);
        }
        if names.is_empty() {
            continue;
        }
        out.push(Fvis {
            at: 0,
            name: clip.name.clone(),
            flags: if material { 0x100 } else { 0 } | looping(clip),
            frame_count: frame_count(clip, fps),
            baked_size: baked_size(&curves),
            names,
            curves,
            base: bit_words(&bits),
        });
    }
    Ok(out)
}
/// A material's shader params: per param, its components' `(target, track, values)`.
type ShaderParams<'a> = Vec<(String, Vec<(u32, &'a Track, &'a [f32])>)>;

/// FSHU subfiles (one per kind present) from a clip's scalar tracks on `param.component`
/// material properties.
pub(crate) fn fshu_from_clip(clip: &Clip, fps: f32, warnings: &mut Vec<String>) -> Result<Vec<(usize, Fshu)>> {
    // kind → material → param → components
    let mut kinds: BTreeMap<Kind, Vec<(String, ShaderParams)>> = BTreeMap::new();
    for t in &clip.tracks {
        let (Target::Material { material, property }, Values::Scalar(v)) = (&t.target, &t.values) else { continue };
        let Some((param, (kind, target))) =
            property.rsplit_once('.').and_then(|(p, c)| Some((p, component_target(c)?)))
        else {
            warnings.push(format!("{}: scalar property {property:?} is not param.component; skipped", clip.name));
            continue;
        };
        let params = entry(kinds.entry(kind).or_default(), material);
        if let Some(components) = params.and_then(|p| entry(p, param)) {
            components.push((target, t, v));
        }
    }
    let mut out = Vec::new();
    for (kind, mats) in kinds {
        let mut materials = Vec::with_capacity(mats.len());
        for (name, params) in mats {
            materials.push(shader_material(kind, name, params, fps, &clip.name, warnings)?);
        }
        let curve_count: usize = materials.iter().map(|m| m.curves.len()).sum();
        let constant_count: usize = materials.iter().map(|m| m.constants.len()).sum();
        let fshu = Fshu {
            at: 0,
            name: clip.name.clone(),
            flags: u32::from(looping(clip)),
            frame_count: frame_count(clip, fps),
            param_anim_count: (curve_count + constant_count) as i32,
            curve_count: curve_count as i32,
            baked_size: baked_size(materials.iter().flat_map(|m| &m.curves)),
            materials,
        };
        out.push((kind as usize, fshu));
    }
    Ok(out)
}

/// One material's animation of FSHU `kind`: per param, a float curve for each animated
/// component and a constant for the others. A texture SRT's mode (an integer) is always a
/// constant, its first value (a warning says so when it changes).
fn shader_material(
    kind: Kind,
    name: String,
    params: ShaderParams,
    fps: f32,
    clip: &str,
    warnings: &mut Vec<String>,
) -> Result<MaterialAnim> {
    let (mut curves, mut constants, mut infos) = (Vec::new(), Vec::new(), Vec::new());
    for (pname, mut components) in params {
        components.sort_by_key(|c| c.0);
        let (begin_curve, begin_constant) = (curves.len(), constants.len());
        for (target, t, v) in components {
            let vals: Vec<[f32; 1]> = v.iter().map(|&x| [x]).collect();
            let keys: Vec<HermiteKey> = component_keys(t, &vals, fps)?.into_iter().map(|[k]| k).collect();
            let mode = kind == Kind::TextureSrt && target == 0;
            match float_curve(target, &keys, t.interpolation == Interpolation::Step)? {
                Some(c) if !mode => curves.push(c),
                _ => {
                    let first = keys.first().map_or(0.0, |k| k.1);
                    if mode && keys.iter().any(|k| k.1 != first) {
                        warnings.push(format!("{clip} {name}.{pname}: animated SRT mode written as its first value"));
                    }
                    constants.push((target, if mode { first as i32 as u32 } else { first.to_bits() }));
                }
            }
        }
        infos.push(ParamInfo {
            name: pname,
            begin_curve: begin_curve as u16,
            float_curves: (curves.len() - begin_curve) as u16,
            int_curves: 0,
            begin_constant: begin_constant as u16,
            constant_count: (constants.len() - begin_constant) as u16,
            sub_bind_index: 0xFFFF,
        });
    }
    Ok(MaterialAnim { name, begin_curve: 0, begin_param_anim: 0, params: infos, curves, constants })
}
/// The `rotation` write setting: `None` for `auto`, else whether rotations are written as Euler
/// curves (`euler`) or quaternion curves (`quat`).
pub(crate) fn rotation_setting(options: &WriteOptions) -> Result<Option<bool>> {
    match options.param("rotation") {
        None | Some("auto") => Ok(None),
        Some("quat") => Ok(Some(false)),
        Some("euler") => Ok(Some(true)),
        Some(v) => Err(Error::unrepresentable(format!("rotation={v}: expected auto, quat or euler"))),
    }
}

/// The frame rate `clip` is written at: the `fps` write setting, else the clip's own, else 30.
pub(crate) fn clip_fps(clip: &Clip, options: &WriteOptions) -> Result<f32> {
    match options.param("fps") {
        Some(v) => v.parse::<f32>().ok().filter(|f| *f > 0.0).ok_or_else(|| Error::unrepresentable(format!("fps={v}"))),
        None => Ok(clip.frame_rate.filter(|f| *f > 0.0).unwrap_or(30.0)),
    }
}

/// Refuses a clip with a malformed track (times unsorted or not finite, counts that disagree).
pub(crate) fn check_tracks(clip: &Clip) -> Result<()> {
    for t in &clip.tracks {
        t.validate()
            .map_err(|e| Error::unrepresentable(format!("clip {} track {}: {e}", clip.name, t.target.label())))?;
    }
    Ok(())
}

/// Each clip of `package` with its frame rate ([`clip_fps`]) and its FSKA (`None` without bone
/// tracks; rotations per the `rotation` setting), its tracks checked first. A skeleton is not
/// written: a warning says so with its bone count, then `why`.
pub(crate) fn clip_fskas<'a>(
    package: &'a Package,
    options: &WriteOptions,
    why: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<(&'a Clip, f32, Option<Fska>)>> {
    let rotation = rotation_setting(options)?;
    if let Some(skeleton) = &package.skeleton {
        warnings.push(format!("skeleton ({} bones) not written: {why}", skeleton.bones.len()));
    }
    let mut out = Vec::with_capacity(package.clips.len());
    for clip in &package.clips {
        check_tracks(clip)?;
        let fps = clip_fps(clip, options)?;
        let euler = rotation_mode(clip, fps, rotation)?;
        out.push((clip, fps, fska_from_clip(clip, fps, euler)?));
    }
    Ok(out)
}

/// Builds a BFRES file from the model; returns the bytes and warnings.
pub(crate) fn from_model(package: &Package, options: &WriteOptions) -> Result<(Vec<u8>, Vec<String>)> {
    let mut warnings = Vec::new();
    let why = "the file holds animations only, without the FMDL \"Skeleton\" retail animation files carry \
               (use `animkit replace` to change animations inside the original file)";
    let mut fskas = Vec::new();
    let mut ftxps = Vec::new();
    let mut fshus = Vec::new();
    let mut fviss = Vec::new();
    for (clip, fps, fska) in clip_fskas(package, options, why, &mut warnings)? {
        match StoredFshu::unchanged(clip, fps, frame_count(clip, fps)) {
            Some(fshu) => fshus.push(fshu),
            None => fshus.extend(fshu_from_clip(clip, fps, &mut warnings)?),
        }
        fviss.extend(fvis_from_clip(clip, fps)?);
        fskas.extend(fska);
        if let Some(a) = ftxp_from_clip(clip, fps)? {
            ftxps.push(a);
        }
    }
    let mut subfiles: Vec<Subfile> = fskas.iter().map(Subfile::Fska).collect();
    subfiles.extend(fshus.iter().map(|(g, a)| Subfile::Fshu(a, *g)));
    subfiles.extend(ftxps.iter().map(Subfile::Ftxp));
    subfiles.extend(fviss.iter().map(Subfile::Fvis));
    let name = if package.name.is_empty() { "animkit" } else { package.name.as_str() };
    Ok((write_file(name, VERSION, &subfiles)?, warnings))
}
