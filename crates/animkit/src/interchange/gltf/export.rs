//! Model → glTF 2.0 (JSON document plus one binary buffer).
//!
//! Rules (see the module docs of [`super`] for the whole list):
//! - One animation per clip; channels `rotation` / `translation` / `scale`; times in seconds.
//! - `Slerp`/`Linear` → `LINEAR` (rotations normalised and made hemisphere-continuous first),
//!   `Step` → `STEP`, `CubicSpline` → `CUBICSPLINE` (the model already stores glTF's layout),
//!   `Nlerp` → resampled densely, then `LINEAR` (bound: [`NLERP_TOLERANCE`]).
//! - Times become strictly increasing and ≥ 0 ([`strict_times`], [`clamp_negative`]).
//! - Nodes come from `package.skeleton` (tracks bound with `Skeleton::find`), else one flat node
//!   per track target (with a warning). A skin always covers the bone nodes, with inverse bind
//!   matrices from the rest pose, and a tiny skinned mesh (one triangle per joint) carries it,
//!   because glTF requires a mesh on a skinned node and three.js treats only skin joints as bones.
//! - `UpAxis::Z`: everything is parented under a node rotated −90° about X.
//! - Additive clips are exported as they are with one warning line, or with `additive=bake`
//!   composed with the rest pose (`additive`).
//! - Whatever cannot be a channel (texture indices, scalars, visibility, material targets,
//!   duplicate targets, empty tracks, empty clips) goes into `extras.animkit`, losslessly, with a
//!   warning naming it. A bone's visibility track also plays in viewers: a `STEP` channel on the
//!   node's `KHR_node_visibility` `visible` (ratified by Khronos) through `KHR_animation_pointer`,
//!   both optional extensions, the output an unsigned-byte `SCALAR` of 0 and 1 (`visibility_channel`).
//!   Importers that know neither ignore it; animkit's reads the lossless extras track.
//!
//! Every JSON value edited here is an object built here, so fields are set with `set` rather
//! than `value[key] = …`, and bone indices come from a validated skeleton; nothing is indexed
//! unchecked.

use std::collections::{BTreeSet, HashMap};

use glam::{Affine3A, Quat, Vec3, Vec4};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use super::json::Member;

use crate::error::{Error, Result};
use crate::model::{
    Bone, BoneRef, Channel, Clip, Interpolation, Package, Skeleton, Target, Track, Transform, UpAxis, Values,
};
use crate::sample::{nlerp, sample_track, Sampled};

/// The largest rotation-angle error (radians) allowed between glTF's slerp through the resampled
/// keys and the engine's nlerp, for `Nlerp` tracks.
pub const NLERP_TOLERANCE: f64 = 1e-5;

/// How far a repeated key is moved (seconds), as `ifp.md` §7.2 asks.
pub const REPEAT_OFFSET: f32 = 1e-4;

/// The name of the node that turns a Z-up package into glTF's Y-up.
pub const Z_UP_NODE: &str = "animkit_z_up";
/// The name of the node that parents several root bones (Y-up), so the skin has a common root.
pub const COMMON_ROOT_NODE: &str = "animkit_root";

/// The rotation of the Z-up correcting node: −90° about X (maps +Z to +Y).
pub fn z_up_rotation() -> Quat {
    Quat::from_xyzw(-std::f32::consts::FRAC_1_SQRT_2, 0.0, 0.0, std::f32::consts::FRAC_1_SQRT_2)
}

/// The glTF JSON and binary buffer of an export, with what was approximated.
///
/// The JSON is kept as the text of each top-level member, written as soon as the member is
/// complete (each animation as its clip is done, each accessor as its keys are), so that no
/// parsed `serde_json::Value` of the whole document ever exists (for the SA `ped.ifp` export it
/// took 14× the memory of its text).
pub struct Exported {
    /// Each top-level member, in file order; `animations` and `accessors` element by element.
    pub members: Vec<(&'static str, Member)>,
    /// The binary buffer (buffer 0): key times and values.
    pub bin: Vec<u8>,
    /// What the export approximated, one line per kind with counts.
    pub warnings: Vec<String>,
}

impl Exported {
    /// The length of [`Exported::write_json`]'s text.
    pub fn json_len(&self) -> usize {
        let members: usize = self.members.iter().map(|(k, v)| k.len() + 3 + v.len()).sum();
        2 + members + self.members.len().saturating_sub(1)
    }

    /// Appends the JSON text: the members as one object, byte for byte what serde_json writes
    /// for the same object (keys are plain ASCII names, so `"key":` needs no escaping).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        out.push(b'{');
        for (i, (key, value)) in self.members.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'"');
            out.extend_from_slice(key.as_bytes());
            out.extend_from_slice(b"\":");
            value.write(out);
        }
        out.push(b'}');
    }

    /// Replaces the `buffers` member by one whose buffer 0 holds `bin` as a `data:` URI (the
    /// `.gltf` variant).
    pub fn embed_bin(&mut self) -> Result<()> {
        if self.bin.is_empty() {
            return Ok(());
        }
        let uri = format!("data:application/octet-stream;base64,{}", super::base64::base64_encode(&self.bin));
        let buffers = Member::Text(to_text(&json!([{"byteLength": self.bin.len(), "uri": uri}]))?);
        match self.members.iter_mut().find(|(k, _)| *k == "buffers") {
            Some((_, v)) => *v = buffers,
            None => self.members.push(("buffers", buffers)),
        }
        Ok(())
    }
}

fn json_error(e: serde_json::Error) -> Error {
    Error::unrepresentable(format!("glTF JSON: {e}"))
}

/// The JSON text of a value built by the exporter.
fn to_text(value: &Value) -> Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(json_error)
}

/// Appends a value to an array's elements, as text.
fn push_element(array: &mut Vec<Box<RawValue>>, value: &Value) -> Result<()> {
    array.push(serde_json::value::to_raw_value(value).map_err(json_error)?);
    Ok(())
}

/// Adds the member `key` holding `values`, unless there are none.
fn push_array(members: &mut Vec<(&'static str, Member)>, key: &'static str, values: Vec<Value>) -> Result<()> {
    if !values.is_empty() {
        members.push((key, Member::Text(to_text(&Value::Array(values))?)));
    }
    Ok(())
}

/// Adds the member `key` holding `elements`, unless there are none.
fn push_elements(members: &mut Vec<(&'static str, Member)>, key: &'static str, elements: Vec<Box<RawValue>>) {
    if !elements.is_empty() {
        members.push((key, Member::Elements(elements)));
    }
}

const FLOAT: u32 = 5126;
const UNSIGNED_BYTE: u32 = 5121;
const UNSIGNED_SHORT: u32 = 5123;
/// The `bufferView.target` of vertex attributes: WebGL's `ARRAY_BUFFER`.
const ARRAY_BUFFER: u32 = 34962;

/// The binary buffer and the accessors into it.
#[derive(Default)]
struct Bin {
    data: Vec<u8>,
    views: Vec<Value>,
    /// The `accessors` so far, each written as text as it is made ([`push_element`]).
    accessors: Vec<Box<RawValue>>,
    /// Animation data goes into one buffer view, the next one when it opens: where it starts
    /// in `data`, and its view index, while it is open.
    anim_view: Option<(usize, usize)>,
    times: HashMap<Vec<u32>, usize>,
}

/// Sets `key` of a JSON object built by the exporter (a no-op on anything else, which it never
/// passes). Like `object[key] = value`: a new key goes last, an existing one keeps its place.
fn set(object: &mut Value, key: &str, value: Value) {
    if let Some(map) = object.as_object_mut() {
        map.insert(key.to_owned(), value);
    }
}

fn num(x: f32) -> Value {
    // f64::from is exact, so the validator's min/max comparison and a reader both see the f32.
    json!(f64::from(x))
}

impl Bin {
    fn align(&mut self) {
        while !self.data.len().is_multiple_of(4) {
            self.data.push(0);
        }
    }

    /// Adds an accessor of floats to the shared animation buffer view.
    fn anim_floats(&mut self, floats: &[f32], ty: &str, count: usize, bounds: bool) -> Result<usize> {
        let (start, view) = *self.anim_view.get_or_insert((self.data.len(), self.views.len()));
        let offset = self.data.len() - start;
        self.data.reserve(4 * floats.len());
        for f in floats {
            self.data.extend_from_slice(&f.to_le_bytes());
        }
        let mut acc =
            json!({"bufferView": view, "byteOffset": offset, "componentType": FLOAT, "count": count, "type": ty});
        if bounds {
            let min = floats.iter().copied().fold(f32::INFINITY, f32::min);
            let max = floats.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            set(&mut acc, "min", json!([num(min)]));
            set(&mut acc, "max", json!([num(max)]));
        }
        self.push_accessor(&acc)
    }

    fn push_accessor(&mut self, accessor: &Value) -> Result<usize> {
        push_element(&mut self.accessors, accessor)?;
        Ok(self.accessors.len() - 1)
    }

    /// Adds an accessor of unsigned bytes (`SCALAR`) to the shared animation buffer view, then
    /// pads it to 4 so the next float accessor stays aligned.
    fn anim_bytes(&mut self, bytes: &[u8]) -> Result<usize> {
        let (start, view) = *self.anim_view.get_or_insert((self.data.len(), self.views.len()));
        let offset = self.data.len() - start;
        self.data.extend_from_slice(bytes);
        self.align();
        let acc = json!({"bufferView": view, "byteOffset": offset, "componentType": UNSIGNED_BYTE, "count": bytes.len(), "type": "SCALAR"});
        self.push_accessor(&acc)
    }

    /// A time accessor, shared between samplers with bit-identical times.
    fn anim_times(&mut self, times: &[f32]) -> Result<usize> {
        let key: Vec<u32> = times.iter().map(|t| t.to_bits()).collect();
        if let Some(&index) = self.times.get(&key) {
            return Ok(index);
        }
        let index = self.anim_floats(times, "SCALAR", times.len(), true)?;
        self.times.insert(key, index);
        Ok(index)
    }

    /// Closes the animation buffer view (its accessors name it already).
    fn close_anim(&mut self) {
        if let Some((start, _)) = self.anim_view.take() {
            self.views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": self.data.len() - start}));
            self.align();
        }
    }

    /// An accessor in a buffer view of its own (after the animation view, which it closes).
    fn own_view(&mut self, bytes: &[u8], target: Option<u32>, mut accessor: Value) -> Result<usize> {
        self.close_anim();
        self.align();
        let mut view = json!({"buffer": 0, "byteOffset": self.data.len(), "byteLength": bytes.len()});
        if let Some(target) = target {
            set(&mut view, "target", json!(target));
        }
        self.data.extend_from_slice(bytes);
        self.views.push(view);
        set(&mut accessor, "bufferView", json!(self.views.len() - 1));
        self.push_accessor(&accessor)
    }
}

/// The bone reference a node stands for: its name plus the ids the node's extras record.
pub fn node_ref(bone: &Bone) -> BoneRef {
    BoneRef { name: Some(bone.name.as_str().into()), id: bone.id, hash: bone.hash, index: None }
}

/// The skeleton the nodes are made from, and whether it was made up from the track targets.
fn skeleton_for(package: &Package, warnings: &mut Vec<String>) -> Result<(Skeleton, bool)> {
    let (mut skeleton, synthesized) = match &package.skeleton {
        Some(s) => {
            s.validate().map_err(|m| Error::unrepresentable(format!("skeleton: {m}")))?;
            (s.clone(), false)
        }
        None => (Skeleton::default(), true),
    };
    let before = skeleton.bones.len();
    let mut unmatched = Vec::new();
    for track in package.clips.iter().flat_map(|c| &c.tracks) {
        let Target::Bone(r) = &track.target else {
            continue;
        };
        if skeleton.find(r).is_none() {
            skeleton.bones.push(Bone {
                name: r.name.as_deref().map_or_else(|| r.label(), str::to_string),
                id: r.id,
                hash: r.hash,
                parent: None,
                rest: Transform::default(),
            });
            if !synthesized {
                unmatched.push(r.label());
            }
        }
    }
    if synthesized && !skeleton.bones.is_empty() {
        warnings.push(format!(
            "no skeleton: {} flat nodes named after the track targets (no hierarchy, identity rest pose)",
            skeleton.bones.len()
        ));
    }
    if !unmatched.is_empty() {
        warnings.push(format!(
            "{} track target(s) not in the skeleton became root nodes: {}",
            skeleton.bones.len() - before,
            unmatched.join(", ")
        ));
    }
    Ok((skeleton, synthesized))
}

fn trs_json(node: &mut Value, t: &Transform) {
    if t.translation != Vec3::ZERO {
        set(node, "translation", json!(t.translation.to_array().map(num)));
    }
    if t.rotation != Quat::IDENTITY {
        set(node, "rotation", json!(t.rotation.to_array().map(num)));
    }
    if t.scale != Vec3::ONE {
        set(node, "scale", json!(t.scale.to_array().map(num)));
    }
}

fn affine(t: &Transform) -> Affine3A {
    Affine3A::from_scale_rotation_translation(t.scale, t.rotation, t.translation)
}

fn interpolation_name(i: Interpolation) -> &'static str {
    match i {
        Interpolation::Step => "step",
        Interpolation::Linear => "linear",
        Interpolation::Slerp => "slerp",
        Interpolation::Nlerp => "nlerp",
        Interpolation::CubicSpline => "cubic_spline",
    }
}

/// Keys of one transform track as flat floats: `comps` floats per value, `per_key` values per key.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatKeys {
    /// Key times in seconds.
    pub times: Vec<f32>,
    /// The values, flat.
    pub values: Vec<f32>,
    /// Floats per value (4 for a rotation, 3 for a translation or scale).
    pub comps: usize,
    /// Values per key (3 for cubic keys: in-tangent, value, out-tangent).
    pub per_key: usize,
}

impl FlatKeys {
    fn from_track(track: &Track) -> Option<FlatKeys> {
        let per_key = if track.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        let (values, comps): (Vec<f32>, usize) = match &track.values {
            Values::Rotation(q) => (q.iter().flat_map(|q| q.to_array()).collect(), 4),
            Values::Translation(v) | Values::Scale(v) => (v.iter().flat_map(|v| v.to_array()).collect(), 3),
            _ => return None,
        };
        Some(FlatKeys { times: track.times.clone(), values, comps, per_key })
    }

    /// Key `i`'s values (`per_key` values of `comps` floats).
    fn key(&self, i: usize) -> Option<&[f32]> {
        let n = self.comps * self.per_key;
        self.values.get(i * n..(i + 1) * n)
    }
}

fn sampled_flat(s: Sampled) -> Vec<f32> {
    match s {
        Sampled::Rotation(q) => q.to_array().to_vec(),
        Sampled::Translation(v) | Sampled::Scale(v) => v.to_array().to_vec(),
        Sampled::Scalar(x) => vec![x],
        Sampled::TextureIndex(i) => vec![i as f32],
        Sampled::Visibility(b) => vec![f32::from(u8::from(b))],
    }
}

/// Removes keys before time 0, putting a key at 0 with the value the model has there (and, for a
/// cubic track, the curve's derivative as both tangents), so playback from 0 on is unchanged.
/// Returns whether anything changed.
pub fn clamp_negative(track: &Track, keys: &mut FlatKeys) -> bool {
    let Some(&first) = keys.times.first() else {
        return false;
    };
    if first >= 0.0 {
        return false;
    }
    let k = keys.times.partition_point(|&t| t < 0.0);
    let n = keys.comps * keys.per_key;
    if keys.times.get(k) == Some(&0.0) {
        keys.times.drain(..k);
        keys.values.drain(..k * n);
        return true;
    }
    let Some(at0) = sample_track(track, 0.0).map(sampled_flat) else {
        return false;
    };
    let mut new_key = Vec::with_capacity(n);
    if keys.per_key == 3 {
        // The derivative of the Hermite segment (k-1, k) at t = 0, in units per second; k ≥ 1 as
        // the first key is before 0. No segment (every key before 0): a constant.
        let c = keys.comps;
        let segment = k.checked_sub(1).and_then(|j| {
            let (_, a_value, a_out) = cubic_key(keys.key(j)?, c)?;
            let (b_in, b_value, _) = cubic_key(keys.key(k)?, c)?;
            Some((keys.times.get(j..=k)?, a_value, a_out, b_in, b_value))
        });
        let deriv: Vec<f32> = match segment {
            Some((&[t0, t1], a_value, a_out, b_in, b_value)) => {
                let d = t1 - t0;
                let u = (0.0 - t0) / d;
                let points = a_value.iter().zip(a_out).zip(b_in).zip(b_value);
                points
                    .map(|(((&p0, &a_out), &b_in), &p1)| {
                        let (m0, m1) = (a_out * d, b_in * d);
                        let dh00 = 6.0 * u * u - 6.0 * u;
                        let dh10 = 3.0 * u * u - 4.0 * u + 1.0;
                        let dh01 = -6.0 * u * u + 6.0 * u;
                        let dh11 = 3.0 * u * u - 2.0 * u;
                        (p0 * dh00 + m0 * dh10 + p1 * dh01 + m1 * dh11) / d
                    })
                    .collect()
            }
            _ => vec![0.0; c],
        };
        new_key.extend_from_slice(&deriv);
        new_key.extend_from_slice(&at0);
        new_key.extend_from_slice(&deriv);
    } else {
        new_key.extend_from_slice(&at0);
    }
    keys.times.drain(..k);
    keys.values.drain(..k * n);
    keys.times.insert(0, 0.0);
    keys.values.splice(0..0, new_key);
    true
}

/// The in-tangent, value and out-tangent of a cubic key of `comps` floats each.
fn cubic_key(key: &[f32], comps: usize) -> Option<(&[f32], &[f32], &[f32])> {
    let (in_tangent, rest) = key.split_at_checked(comps)?;
    let (value, out_tangent) = rest.split_at_checked(comps)?;
    Some((in_tangent, value, out_tangent))
}

/// Makes key times strictly increasing: each run of equal times `t` (k keys, next key at `T`)
/// becomes `t, t + δ, t + 2δ …` with `δ = min(1e-4, (T − t)/k)`, so a step stays a (very short)
/// ramp that ends before the next key. Falls back to the next representable `f32` when `δ`
/// vanishes; returns the indices of keys that still cannot be kept (dropped by the caller), and
/// how many keys were moved.
pub fn strict_times(times: &mut [f32]) -> (Vec<usize>, usize) {
    let next_up = |x: f32| {
        if x == 0.0 {
            f32::from_bits(1)
        } else if x > 0.0 {
            f32::from_bits(x.to_bits() + 1)
        } else {
            f32::from_bits(x.to_bits() - 1)
        }
    };
    for t in times.iter_mut() {
        *t += 0.0; // -0 becomes +0
    }
    let mut drop = Vec::new();
    let mut moved = 0;
    let mut i = 0;
    while let Some(&t) = times.get(i) {
        // Keys i..j are the run at time t.
        let run = 1 + times.iter().skip(i + 1).take_while(|&&x| x <= t).count();
        let j = i + run;
        if run > 1 {
            let next = times.get(j).copied().unwrap_or(f32::INFINITY);
            let delta = REPEAT_OFFSET.min((next - t) / run as f32);
            let mut prev = t;
            for (m, slot) in times.iter_mut().skip(i + 1).take(run - 1).enumerate() {
                let mut v = t + delta * (m + 1) as f32;
                if v <= prev {
                    v = next_up(prev);
                }
                if v >= next || !v.is_finite() {
                    drop.push(i + 1 + m);
                    continue;
                }
                *slot = v;
                prev = v;
                moved += 1;
            }
        }
        i = j;
    }
    (drop, moved)
}

/// The nlerp curve's angle along the arc, for progress `u` on a segment of arc angle `theta`.
fn nlerp_angle(u: f64, theta: f64) -> f64 {
    (u * theta.sin()).atan2((1.0 - u) + u * theta.cos())
}

/// How many equal parts a segment of quaternion arc angle `theta` needs so that slerp between
/// nlerp samples stays within [`NLERP_TOLERANCE`] (rotation angle) of nlerp.
pub fn nlerp_parts(theta: f64) -> usize {
    let mut n = 1usize;
    while n < 1024 {
        let mut err = 0.0f64;
        for i in 0..n {
            let (u0, u1) = (i as f64 / n as f64, (i + 1) as f64 / n as f64);
            let (p0, p1) = (nlerp_angle(u0, theta), nlerp_angle(u1, theta));
            for j in 1..8 {
                let s = j as f64 / 8.0;
                let u = u0 + (u1 - u0) * s;
                err = err.max((nlerp_angle(u, theta) - (p0 + (p1 - p0) * s)).abs());
            }
        }
        // Rotation angle is twice the quaternion arc angle.
        if 2.0 * err <= NLERP_TOLERANCE {
            break;
        }
        n *= 2;
    }
    n
}

/// Resamples an nlerp rotation track so that glTF's slerp reproduces it (see [`nlerp_parts`]).
pub fn resample_nlerp(times: &[f32], rotations: &[Quat]) -> (Vec<f32>, Vec<Quat>) {
    let mut out_t = Vec::with_capacity(times.len());
    let mut out_q = Vec::with_capacity(rotations.len());
    for (i, (&ta, &qa)) in times.iter().zip(rotations).enumerate() {
        out_t.push(ta);
        out_q.push(qa);
        let (Some(&tb), Some(&qb)) = (times.get(i + 1), rotations.get(i + 1)) else {
            break;
        };
        if tb <= ta {
            continue;
        }
        let c = f64::from(Vec4::from(qa).dot(Vec4::from(qb)).abs()).min(1.0);
        let parts = nlerp_parts(c.acos());
        for p in 1..parts {
            let u = p as f32 / parts as f32;
            out_t.push(ta + (tb - ta) * u);
            out_q.push(nlerp(qa, qb, u));
        }
    }
    (out_t, out_q)
}

/// Normalises quaternion keys and flips signs so neighbours lie in the same hemisphere.
fn continuous_rotations(values: &mut [f32]) {
    let mut prev: Option<Vec4> = None;
    for q in values.as_chunks_mut::<4>().0 {
        let mut v = Vec4::from_array(*q);
        // Keep keys that are unit already bit for bit; normalise the others.
        if (v.length_squared() - 1.0).abs() > 2e-6 {
            v = v.normalize_or_zero();
            if v == Vec4::ZERO {
                v = Vec4::W;
            }
        }
        if let Some(p) = prev {
            if p.dot(v) < 0.0 {
                v = -v;
            }
        }
        *q = v.to_array();
        prev = Some(v);
    }
}

/// A transform track ready for glTF: times, flat output values, the glTF interpolation.
struct Prepared {
    times: Vec<f32>,
    values: Vec<f32>,
    comps: usize,
    interpolation: &'static str,
    notes: Vec<String>,
}

fn prepare(track: &Track) -> std::result::Result<Prepared, String> {
    track.validate()?;
    if track.times.is_empty() {
        return Err("the track has no keys".into());
    }
    let mut notes = Vec::new();
    let mut interp = track.interpolation;
    let mut keys = FlatKeys::from_track(track).ok_or("not a transform channel")?;
    if clamp_negative(track, &mut keys) {
        notes.push("keys before 0 s were cut at 0 s".to_string());
    }
    if interp == Interpolation::Nlerp && keys.comps == 4 {
        let quats: Vec<Quat> = keys.values.as_chunks::<4>().0.iter().map(|&q| Quat::from_array(q)).collect();
        let before = keys.times.len();
        let (t, q) = resample_nlerp(&keys.times, &quats);
        keys.times = t;
        keys.values = q.iter().flat_map(|q| q.to_array()).collect();
        interp = Interpolation::Slerp;
        if keys.times.len() != before {
            notes.push(format!("nlerp resampled from {before} to {} keys", keys.times.len()));
        }
    } else if interp == Interpolation::Nlerp {
        interp = Interpolation::Linear;
    }
    if interp == Interpolation::CubicSpline && keys.times.len() < 2 {
        // glTF needs two keys for a cubic spline; one key is a constant.
        let (_, value, _) = keys.key(0).and_then(|k| cubic_key(k, keys.comps)).ok_or("a cubic key without a value")?;
        keys.values = value.to_vec();
        keys.per_key = 1;
        interp = Interpolation::Step;
    }
    if keys.comps == 4 {
        if interp == Interpolation::CubicSpline {
            // Normalise the values (not the tangents): glTF requires unit rotations. Each key is
            // in-tangent, value, out-tangent: the value is every third quaternion from the second.
            for value in keys.values.as_chunks_mut::<4>().0.iter_mut().skip(1).step_by(3) {
                let v = Vec4::from_array(*value).normalize_or_zero();
                *value = if v == Vec4::ZERO { Vec4::W } else { v }.to_array();
            }
        } else {
            continuous_rotations(&mut keys.values);
        }
    }
    let (drop, moved) = strict_times(&mut keys.times);
    if moved > 0 {
        notes.push(format!("{moved} repeated key time(s) moved by up to {REPEAT_OFFSET} s"));
    }
    if !drop.is_empty() {
        let n = keys.comps * keys.per_key;
        for &d in drop.iter().rev() {
            keys.times.remove(d);
            keys.values.drain(d * n..(d + 1) * n);
        }
        notes.push(format!("{} key(s) at an unrepresentable repeated time dropped", drop.len()));
    }
    let interpolation = match interp {
        Interpolation::Step => "STEP",
        Interpolation::CubicSpline => "CUBICSPLINE",
        _ => "LINEAR",
    };
    Ok(Prepared { times: keys.times, values: keys.values, comps: keys.comps, interpolation, notes })
}

/// The glTF extensions a visibility channel uses.
const VISIBILITY_EXTENSIONS: [&str; 2] = ["KHR_animation_pointer", "KHR_node_visibility"];

/// A `STEP` sampler and channel playing a visibility track on `node`'s `KHR_node_visibility`
/// through `KHR_animation_pointer`, or `None` when the track's times are not glTF key times
/// (strictly increasing, from 0) or it holds no visibility.
fn visibility_channel(bin: &mut Bin, track: &Track, node: usize, sampler: usize) -> Result<Option<(Value, Value)>> {
    let Values::Visibility(states) = &track.values else { return Ok(None) };
    let times_ok = track.times.first().is_some_and(|&t| t >= 0.0) && track.times.is_sorted_by(|a, b| a < b);
    if !times_ok || states.len() != track.times.len() {
        return Ok(None);
    }
    let input = bin.anim_times(&track.times)?;
    let output = bin.anim_bytes(&states.iter().map(|&v| u8::from(v)).collect::<Vec<u8>>())?;
    let pointer = format!("/nodes/{node}/extensions/KHR_node_visibility/visible");
    let sampler_json = json!({"input": input, "output": output, "interpolation": "STEP"});
    let channel = json!({"sampler": sampler, "target": {"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": pointer}}}});
    Ok(Some((sampler_json, channel)))
}

fn extra_track(index: usize, track: &Track, reason: &str) -> Value {
    json!({"index": index, "reason": reason, "track": serde_json::to_value(track).unwrap_or(Value::Null)})
}

fn clip_extras(ci: usize, clip: &Clip) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("clip_index".into(), json!(ci));
    m.insert("name".into(), json!(clip.name));
    m.insert("duration".into(), num(clip.duration));
    if let Some(l) = clip.looping {
        m.insert("looping".into(), json!(l));
    }
    if clip.additive {
        m.insert("additive".into(), json!(true));
    }
    if let Some(f) = clip.frame_rate {
        m.insert("frame_rate".into(), num(f));
    }
    m
}

/// Exports a package with the glTF write options (`additive=keep|bake`: `additive`).
pub fn export_with(package: &Package, options: &crate::format::WriteOptions) -> Result<Exported> {
    let mode = super::additive::AdditiveMode::from_options(options)?;
    let (package, baked) = super::additive::prepare(package, mode)?;
    let mut exported = export(&package)?;
    exported.warnings.extend(baked);
    Ok(exported)
}

/// Puts the skinned mesh node (the last node) into the scene. Under `UpAxis::Z` it becomes a
/// child of the Z-up node (node 0): the inverse bind matrices hold the Z-up rotation, and
/// Blender's importer, which places the armature by the mesh's parent, applied it twice (the rest
/// pose lay on its back) while the mesh sat at the scene root. Viewers that follow the glTF
/// spec ignore a skinned mesh's parents, so the pose there is unchanged.
fn place_skinned_mesh(nodes: &mut [Value], roots: &mut Vec<usize>, z_up: bool) {
    let mesh = nodes.len() - 1;
    let z_up_node = nodes.first_mut().and_then(Value::as_object_mut).filter(|_| z_up);
    match z_up_node {
        Some(node) => {
            if let Value::Array(a) = node.entry("children").or_insert_with(|| json!([])) {
                a.push(json!(mesh));
            }
        }
        None => roots.push(mesh),
    }
}

/// What a clip becomes: a glTF animation, or (without any node channel) its extras alone.
enum ClipJson {
    Animation(Value),
    Empty(Value),
}

/// The `animations`, each written as text as soon as its clip is done, and the
/// clips without any node channel (kept in the root extras). Bone `b` is node `base + b`; the
/// nodes whose `KHR_node_visibility` a channel animates are added to `visible_nodes`.
fn animations(
    package: &Package,
    skeleton: &Skeleton,
    base: usize,
    bin: &mut Bin,
    warnings: &mut Vec<String>,
    visible_nodes: &mut BTreeSet<usize>,
) -> Result<(Vec<Box<RawValue>>, Vec<Value>)> {
    let mut animations = Vec::new();
    let mut empty_clips = Vec::new();
    for (ci, clip) in package.clips.iter().enumerate() {
        match clip_animation(ci, clip, skeleton, (base, visible_nodes), bin, warnings)? {
            ClipJson::Animation(animation) => push_element(&mut animations, &animation)?,
            ClipJson::Empty(extras) => empty_clips.push(extras),
        }
    }
    Ok((animations, empty_clips))
}

/// One clip's animation: a channel and sampler per transform track bound to a node, and per
/// visibility track a `KHR_node_visibility` pointer channel (its node added to `visible_nodes`);
/// everything else in its extras (with a warning line for the clip). Every visibility track is
/// also kept in the extras, the lossless form animkit reads back.
fn clip_animation(
    ci: usize,
    clip: &Clip,
    skeleton: &Skeleton,
    (base, visible_nodes): (usize, &mut BTreeSet<usize>),
    bin: &mut Bin,
    warnings: &mut Vec<String>,
) -> Result<ClipJson> {
    let mut channels = Vec::new();
    let mut samplers = Vec::new();
    let mut extra_tracks = Vec::new();
    let mut used: HashMap<(usize, Channel), usize> = HashMap::new();
    let mut clip_notes: Vec<String> = Vec::new();
    for (ti, track) in clip.tracks.iter().enumerate() {
        let bone = match &track.target {
            Target::Bone(r) => skeleton.find(r),
            Target::Material { .. } => None,
        };
        let channel = track.channel();
        let path = match channel {
            Channel::Rotation => "rotation",
            Channel::Translation => "translation",
            Channel::Scale => "scale",
            _ => "",
        };
        let reason = match (bone, path) {
            (None, _) => Some(format!("{:?} track of a material target", channel)),
            (Some(_), "") => Some(format!("{:?} is not a glTF node channel", channel)),
            (Some(b), _) => used.get(&(b, channel)).map(|&o| format!("same node and channel as track {o}")),
        };
        if let Some(reason) = reason {
            let node = bone.filter(|_| channel == Channel::Visibility).map(|b| base + b);
            let played = match node {
                Some(n) => visibility_channel(bin, track, n, samplers.len())?.map(|pair| (n, pair)),
                None => None,
            };
            if let Some((n, (sampler, ch))) = played {
                samplers.push(sampler);
                channels.push(ch);
                visible_nodes.insert(n);
            } else {
                clip_notes.push(format!("track {ti} ({}, {:?}): {reason}", track.target.label(), channel));
            }
            extra_tracks.push(extra_track(ti, track, &reason));
            continue;
        }
        let Some(b) = bone else { continue };
        let prepared = match prepare(track) {
            Ok(p) => p,
            Err(reason) => {
                clip_notes.push(format!("track {ti} ({}): {reason}", track.target.label()));
                extra_tracks.push(extra_track(ti, track, &reason));
                continue;
            }
        };
        used.insert((b, channel), ti);
        for n in &prepared.notes {
            clip_notes.push(format!("track {ti} ({} {path}): {n}", track.target.label()));
        }
        let input = bin.anim_times(&prepared.times)?;
        let count = prepared.values.len() / prepared.comps;
        let ty = if prepared.comps == 4 { "VEC4" } else { "VEC3" };
        let output = bin.anim_floats(&prepared.values, ty, count, false)?;
        samplers.push(json!({"input": input, "output": output, "interpolation": prepared.interpolation}));
        let mut ch = json!({"sampler": samplers.len() - 1, "target": {"node": base + b, "path": path}});
        let mut ch_extras = Map::new();
        if let (Target::Bone(r), Some(bone)) = (&track.target, skeleton.bones.get(b)) {
            let node_ref = node_ref(bone);
            if *r != node_ref {
                ch_extras.insert("target".into(), serde_json::to_value(r).unwrap_or(Value::Null));
            }
        }
        let natural = match (prepared.interpolation, channel) {
            ("STEP", _) => Interpolation::Step,
            ("CUBICSPLINE", _) => Interpolation::CubicSpline,
            (_, Channel::Rotation) => Interpolation::Slerp,
            _ => Interpolation::Linear,
        };
        if track.interpolation != natural {
            ch_extras.insert("interpolation".into(), json!(interpolation_name(track.interpolation)));
        }
        if !ch_extras.is_empty() {
            set(&mut ch, "extras", json!({ "animkit": ch_extras }));
        }
        channels.push(ch);
    }
    let mut extras = clip_extras(ci, clip);
    if !extra_tracks.is_empty() {
        extras.insert("tracks".into(), Value::Array(extra_tracks));
    }
    if !clip_notes.is_empty() {
        let shown: Vec<_> = clip_notes.iter().take(3).cloned().collect();
        let more = clip_notes.len().saturating_sub(3);
        warnings.push(format!(
            "clip {ci} \"{}\": {}{}",
            clip.name,
            shown.join("; "),
            if more > 0 { format!("; and {more} more") } else { String::new() }
        ));
    }
    if channels.is_empty() {
        warnings.push(format!("clip {ci} \"{}\" has no node channel: kept in extras only", clip.name));
        return Ok(ClipJson::Empty(Value::Object(extras)));
    }
    Ok(ClipJson::Animation(json!({
        "name": clip.name,
        "channels": channels,
        "samplers": samplers,
        "extras": {"animkit": extras},
    })))
}

/// Exports a package to glTF JSON and one binary buffer.
pub fn export(package: &Package) -> Result<Exported> {
    let mut warnings: Vec<String> = super::additive::as_is_warning(package).into_iter().collect();
    let (skeleton, synthesized) = skeleton_for(package, &mut warnings)?;
    let mut bin = Bin::default();
    let mut nodes: Vec<Value> = Vec::new();
    let z_up = package.up_axis == UpAxis::Z;
    // The validator wants the joints of a skin under one common root (SKIN_NO_COMMON_ROOT): flat
    // nodes and extra root nodes get one, as the Z-up node gives one.
    // Under Z-up, the bones hang from an identity common root below the Z-up node: Blender's
    // importer makes the joints' parent node the armature object and still places the bones by
    // their world transforms, so with the Z-up node as that parent its rotation applied twice
    // (a CryEngine rig lay on its back); with the identity node between, the rig stands.
    let common_root = z_up || skeleton.bones.iter().filter(|b| b.parent.is_none()).count() > 1;
    let base = usize::from(z_up) + usize::from(common_root);
    if z_up {
        let mut n = json!({"name": Z_UP_NODE, "extras": {"animkit": {"role": "up_axis_z"}}, "children": [1]});
        trs_json(&mut n, &Transform { rotation: z_up_rotation(), ..Default::default() });
        nodes.push(n);
    }
    if common_root {
        nodes.push(json!({"name": COMMON_ROOT_NODE, "extras": {"animkit": {"role": "common_root"}}}));
    }
    let mut roots = Vec::new();
    for (i, bone) in skeleton.bones.iter().enumerate() {
        let mut n = json!({"name": bone.name});
        trs_json(&mut n, &bone.rest);
        let mut ids = Map::new();
        if let Some(id) = bone.id {
            ids.insert("id".into(), json!(id));
        }
        if let Some(h) = bone.hash {
            ids.insert("hash".into(), json!(h));
        }
        if !ids.is_empty() {
            set(&mut n, "extras", json!({ "animkit": ids }));
        }
        nodes.push(n);
        match bone.parent {
            Some(p) => {
                // A validated skeleton lists parents first, so the parent's node exists.
                let parent = nodes.get_mut(base + p).and_then(Value::as_object_mut).ok_or_else(|| {
                    Error::unrepresentable(format!("bone {i} '{}': parent {p} is not an earlier bone", bone.name))
                })?;
                if let Value::Array(a) = parent.entry("children").or_insert_with(|| json!([])) {
                    a.push(json!(base + i));
                }
            }
            None => roots.push(base + i),
        }
    }
    if common_root {
        // The common root is the node just before the bones (node 1 under Z-up, else node 0).
        if let Some(node) = base.checked_sub(1).and_then(|i| nodes.get_mut(i)) {
            if !roots.is_empty() {
                set(node, "children", json!(roots));
            }
        }
        roots = vec![0];
    }

    let mut visible_nodes = BTreeSet::new();
    let (animations, empty_clips) = animations(package, &skeleton, base, &mut bin, &mut warnings, &mut visible_nodes)?;
    bin.close_anim();

    // Skin and its carrier mesh.
    let mut skins = Vec::new();
    let mut meshes = Vec::new();
    let joints: Vec<usize> = (0..skeleton.bones.len()).map(|i| base + i).collect();
    if !joints.is_empty() {
        let root_xf = if z_up { Affine3A::from_quat(z_up_rotation()) } else { Affine3A::IDENTITY };
        let mut globals: Vec<Affine3A> = Vec::with_capacity(skeleton.bones.len());
        for bone in &skeleton.bones {
            let parent = bone.parent.and_then(|p| globals.get(p)).copied().unwrap_or(root_xf);
            globals.push(parent * affine(&bone.rest));
        }
        let mut ibm = Vec::with_capacity(64 * globals.len());
        let mut positions: Vec<f32> = Vec::new();
        for g in &globals {
            let m = glam::Mat4::from(g.inverse());
            let mut cols = m.to_cols_array();
            // An affine inverse: make the last row exact for the validator.
            cols[3] = 0.0;
            cols[7] = 0.0;
            cols[11] = 0.0;
            cols[15] = 1.0;
            for c in cols {
                ibm.extend_from_slice(&c.to_le_bytes());
            }
            let p = Vec3::from(g.translation);
            let s = 0.01;
            for v in [p, p + Vec3::new(s, 0.0, 0.0), p + Vec3::new(0.0, s, 0.0)] {
                positions.extend_from_slice(&v.to_array());
            }
        }
        let ibm_acc =
            bin.own_view(&ibm, None, json!({"componentType": FLOAT, "count": joints.len(), "type": "MAT4"}))?;
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for p in positions.as_chunks::<3>().0 {
            for ((lo, hi), &x) in min.iter_mut().zip(&mut max).zip(p) {
                *lo = lo.min(x);
                *hi = hi.max(x);
            }
        }
        let pos_bytes: Vec<u8> = positions.iter().flat_map(|f| f.to_le_bytes()).collect();
        let vcount = positions.len() / 3;
        let pos_acc = bin.own_view(
            &pos_bytes,
            Some(ARRAY_BUFFER),
            json!({"componentType": FLOAT, "count": vcount, "type": "VEC3", "min": min.map(num), "max": max.map(num)}),
        )?;
        let wide = joints.len() > 255;
        let mut joint_bytes = Vec::new();
        let mut weight_bytes = Vec::new();
        for j in 0..joints.len() {
            for _ in 0..3 {
                // Each vertex follows one joint; unused slots hold joint 0 with weight 0.
                for slot in [j, 0, 0, 0] {
                    if wide {
                        joint_bytes.extend_from_slice(&(slot as u16).to_le_bytes());
                    } else {
                        joint_bytes.push(slot as u8);
                    }
                }
                for w in [1.0f32, 0.0, 0.0, 0.0] {
                    weight_bytes.extend_from_slice(&w.to_le_bytes());
                }
            }
        }
        let joint_type = if wide { UNSIGNED_SHORT } else { UNSIGNED_BYTE };
        let joints_acc = bin.own_view(
            &joint_bytes,
            Some(ARRAY_BUFFER),
            json!({"componentType": joint_type, "count": vcount, "type": "VEC4"}),
        )?;
        let weights_acc = bin.own_view(
            &weight_bytes,
            Some(ARRAY_BUFFER),
            json!({"componentType": FLOAT, "count": vcount, "type": "VEC4"}),
        )?;
        meshes.push(json!({
            "name": "animkit_joint_markers",
            "primitives": [{"attributes": {"POSITION": pos_acc, "JOINTS_0": joints_acc, "WEIGHTS_0": weights_acc}}],
        }));
        let mut skin = json!({"name": if package.name.is_empty() { "skeleton" } else { package.name.as_str() }, "joints": joints, "inverseBindMatrices": ibm_acc});
        if let Some(&first_root) = roots.first() {
            if roots.len() == 1 || z_up {
                set(&mut skin, "skeleton", json!(first_root));
            }
        }
        skins.push(skin);
        nodes.push(json!({"name": "animkit_skinned_mesh", "mesh": 0, "skin": 0}));
        place_skinned_mesh(&mut nodes, &mut roots, z_up);
    }
    bin.align();

    let mut pkg_extras = Map::new();
    pkg_extras.insert("version".into(), json!(1));
    pkg_extras.insert("name".into(), json!(package.name));
    pkg_extras.insert("up_axis".into(), json!(if z_up { "z" } else { "y" }));
    pkg_extras.insert("skeleton".into(), json!(!synthesized));
    if !empty_clips.is_empty() {
        pkg_extras.insert("empty_clips".into(), Value::Array(empty_clips));
    }
    let asset = json!({"version": "2.0", "generator": concat!("animkit ", env!("CARGO_PKG_VERSION"))});
    let mut scene = json!({"name": package.name});
    if !roots.is_empty() {
        set(&mut scene, "nodes", json!(roots));
    }
    for &n in &visible_nodes {
        if let Some(node) = nodes.get_mut(n) {
            set(node, "extensions", json!({"KHR_node_visibility": {"visible": true}}));
        }
    }
    let mut members = vec![
        ("asset", Member::Text(to_text(&asset)?)),
        ("scene", Member::Text(b"0".to_vec())),
        ("extras", Member::Text(to_text(&json!({"animkit": pkg_extras}))?)),
        ("scenes", Member::Text(to_text(&json!([scene]))?)),
    ];
    if !visible_nodes.is_empty() {
        members.push(("extensionsUsed", Member::Text(to_text(&json!(VISIBILITY_EXTENSIONS))?)));
    }
    push_array(&mut members, "nodes", nodes)?;
    push_elements(&mut members, "animations", animations);
    push_array(&mut members, "skins", skins)?;
    push_array(&mut members, "meshes", meshes)?;
    push_elements(&mut members, "accessors", std::mem::take(&mut bin.accessors));
    push_array(&mut members, "bufferViews", std::mem::take(&mut bin.views))?;
    if !bin.data.is_empty() {
        members.push(("buffers", Member::Text(to_text(&json!([{"byteLength": bin.data.len()}]))?)));
    }
    Ok(Exported { members, bin: bin.data, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_times_move_by_1e4_below_the_next_key() {
        let mut t = [0.0, 1.0, 1.0, 2.0];
        let (drop, moved) = strict_times(&mut t);
        assert!(drop.is_empty());
        assert_eq!(moved, 1);
        assert_eq!(t, [0.0, 1.0, 1.0 + 1e-4, 2.0]);
        // Three keys at 1 with the next key 1e-4 later: δ = 1e-4 / 3.
        let mut t = [1.0, 1.0, 1.0, 1.0001];
        strict_times(&mut t);
        assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
        assert!(t[2] < 1.0001);
    }

    #[test]
    fn negative_times_are_cut_at_zero_with_the_model_value() {
        // A linear translation from x = -1 at t = -1 to x = 1 at t = 1 is 0 at t = 0.
        let track = Track {
            target: Target::Bone(BoneRef::named("a")),
            interpolation: Interpolation::Linear,
            times: vec![-1.0, 1.0],
            values: Values::Translation(vec![Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0)]),
        };
        let mut keys = FlatKeys::from_track(&track).unwrap();
        assert!(clamp_negative(&track, &mut keys));
        assert_eq!(keys.times, [0.0, 1.0]);
        assert_eq!(keys.values, [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn cubic_cut_keeps_the_curve() {
        // p(t) = t³ on [-1, 1] (p' = 3t²): cut at 0 gives value 0, tangent 0, then the same curve.
        let track = Track {
            target: Target::Bone(BoneRef::named("a")),
            interpolation: Interpolation::CubicSpline,
            times: vec![-1.0, 1.0],
            values: Values::Translation(vec![
                Vec3::splat(3.0),
                Vec3::splat(-1.0),
                Vec3::splat(3.0),
                Vec3::splat(3.0),
                Vec3::splat(1.0),
                Vec3::splat(3.0),
            ]),
        };
        let mut keys = FlatKeys::from_track(&track).unwrap();
        clamp_negative(&track, &mut keys);
        assert_eq!(keys.times, [0.0, 1.0]);
        for (a, b) in keys.values[..9].iter().zip([0.0; 9]) {
            assert!((a - b).abs() < 1e-6, "{:?}", keys.values);
        }
    }

    #[test]
    fn nlerp_parts_meet_the_bound() {
        // Independent check (Python): for θ = 0.5 rad, 64 parts give a max timing error of
        // 7.1e-6 rad and 32 parts do not meet 1e-5; for θ = 0.01, one part suffices.
        assert_eq!(nlerp_parts(0.5), 64);
        assert_eq!(nlerp_parts(0.01), 1);
        assert!(nlerp_parts(std::f64::consts::FRAC_PI_2) <= 1024);
    }
}
