//! glTF 2.0 → model. See the module docs of [`super`] for the rules.
//!
//! Every index and count from the file is checked before use: accessor ranges against their
//! buffer view and buffer, node references against the node list, the node graph for cycles and
//! second parents. Allocation is bounded by the bytes an accessor really covers.

use std::collections::{BTreeSet, HashMap};

use bytes::Bytes;
use glam::{Mat4, Quat, Vec3};
use serde::Deserialize;
use serde_json::Value;

use super::export::{COMMON_ROOT_NODE, Z_UP_NODE};
use super::json::{index, list, GltfJson};
use super::skin::{self, SkinChoice};
use super::tidy::{self, ImportOptions};
use crate::error::{Error, ErrorKind, Result};
use crate::format::Limits;
use crate::model::rest::make_rotations_continuous;
use crate::model::{Bone, BoneRef, Clip, Interpolation, Package, Skeleton, Target, Track, Transform, UpAxis, Values};

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Invalid, None, message)
}

/// The element of `items` that the index `v` names, with that index.
fn lookup<'a, T>(items: &'a [T], v: Option<&Value>, what: &str) -> Result<(usize, &'a T)> {
    let i = index(v, items.len(), what)?;
    let item = items.get(i).ok_or_else(|| invalid(format!("{what}: index {i} out of range ({})", items.len())))?;
    Ok((i, item))
}

fn floats<const N: usize>(v: Option<&Value>) -> Option<[f32; N]> {
    let a = v?.as_array()?;
    if a.len() != N {
        return None;
    }
    let mut out = [0f32; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = x.as_f64()? as f32;
    }
    Some(out)
}

/// The members of an accessor that reading it needs (the others, `min`/`max` and names, are
/// skipped unparsed). Each is `Some` when present, even as `null`, as `Value::get` would say.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AccessorFields {
    #[serde(default, deserialize_with = "present")]
    buffer_view: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    byte_offset: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    component_type: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    count: Option<Value>,
    #[serde(default, deserialize_with = "present", rename = "type")]
    kind: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    normalized: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    sparse: Option<Value>,
}

/// A member that is present, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Reads an accessor as floats (`comps` per element), decoding normalised integers.
pub fn read_accessor(json: &GltfJson, buffers: &[Option<Bytes>], i: usize) -> Result<(Vec<f32>, usize)> {
    let acc: AccessorFields = json.accessor_as(i)?;
    let within = |e: Error| e.within(format!("accessor {i}"));
    let count = acc.count.as_ref().and_then(Value::as_u64).ok_or_else(|| within(invalid("no count")))?;
    let comps = match acc.kind.as_ref().and_then(Value::as_str) {
        Some("SCALAR") => 1,
        Some("VEC2") => 2,
        Some("VEC3") => 3,
        Some("VEC4") => 4,
        Some("MAT4") => 16,
        other => return Err(within(Error::unsupported(format!("accessor type {other:?}")))),
    };
    let ctype = acc.component_type.as_ref().and_then(Value::as_u64).unwrap_or(0);
    let csize = match ctype {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        5125 | 5126 => 4,
        _ => return Err(within(invalid(format!("componentType {ctype}")))),
    };
    if acc.sparse.is_some() {
        return Err(within(Error::unsupported("sparse accessors")));
    }
    let normalized = acc.normalized.as_ref().and_then(Value::as_bool).unwrap_or(false);
    let elem = comps * csize;
    let Some(view_index) = acc.buffer_view.as_ref() else {
        // No buffer view: all zeros. Bound the allocation like any other.
        let n = usize::try_from(count)
            .ok()
            .filter(|&n| n.saturating_mul(comps) <= (1 << 26))
            .ok_or_else(|| within(invalid("count too large")))?;
        return Ok((vec![0.0; n * comps], comps));
    };
    let (vi, view) = lookup(json.list("bufferViews"), Some(view_index), "bufferView").map_err(within)?;
    let (bi, data) =
        lookup(buffers, view.get("buffer"), "buffer").map_err(|e| within(e.within(format!("bufferView {vi}"))))?;
    let data = data
        .as_deref()
        .ok_or_else(|| within(Error::unsupported(format!("buffer {bi} is external and was not loaded"))))?;
    let vo = view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0);
    let vl = view.get("byteLength").and_then(Value::as_u64).unwrap_or(0);
    let slice = usize::try_from(vo)
        .ok()
        .zip(usize::try_from(vl).ok())
        .and_then(|(o, l)| data.get(o..o.checked_add(l)?))
        .ok_or_else(|| {
            within(Error::new(ErrorKind::Truncated, Some(vo), format!("bufferView {vi} runs past buffer {bi}")))
        })?;
    let stride = match view.get("byteStride").and_then(Value::as_u64) {
        Some(s) => usize::try_from(s).map_err(|_| within(invalid("byteStride")))?,
        None => elem,
    };
    if stride < elem {
        return Err(within(invalid(format!("byteStride {stride} is below the element size {elem}"))));
    }
    let ao = usize::try_from(acc.byte_offset.as_ref().and_then(Value::as_u64).unwrap_or(0))
        .map_err(|_| within(invalid("byteOffset")))?;
    let n = usize::try_from(count).map_err(|_| within(invalid("count")))?;
    let too_short = || {
        within(Error::new(
            ErrorKind::Truncated,
            Some(vo),
            format!(
                "{n} elements of {elem} bytes (stride {stride}) from {ao} do not fit bufferView {vi} ({} bytes)",
                slice.len()
            ),
        ))
    };
    if n > 0 {
        let end = (n - 1).checked_mul(stride).and_then(|x| x.checked_add(ao)).and_then(|x| x.checked_add(elem));
        if end.is_none_or(|e| e > slice.len()) {
            return Err(too_short());
        }
    }
    let mut out = Vec::with_capacity(n * comps);
    // Element `e` starts at `ao + e * stride` (stride ≥ elem ≥ 1); the check above covers them all.
    let elements = slice.get(ao..).unwrap_or_default().chunks(stride).take(n);
    for element in elements {
        let element = element.get(..elem).ok_or_else(too_short)?;
        for b in element.chunks_exact(csize) {
            let v = match (ctype, b) {
                (5126, &[b0, b1, b2, b3]) => f32::from_le_bytes([b0, b1, b2, b3]),
                (5125, &[b0, b1, b2, b3]) => u32::from_le_bytes([b0, b1, b2, b3]) as f32,
                (5120, &[b0]) => {
                    let x = f32::from(b0 as i8);
                    if normalized {
                        (x / 127.0).max(-1.0)
                    } else {
                        x
                    }
                }
                (5121, &[b0]) => {
                    let x = f32::from(b0);
                    if normalized {
                        x / 255.0
                    } else {
                        x
                    }
                }
                (5122, &[b0, b1]) => {
                    let x = f32::from(i16::from_le_bytes([b0, b1]));
                    if normalized {
                        (x / 32767.0).max(-1.0)
                    } else {
                        x
                    }
                }
                (5123, &[b0, b1]) => {
                    let x = f32::from(u16::from_le_bytes([b0, b1]));
                    if normalized {
                        x / 65535.0
                    } else {
                        x
                    }
                }
                // `csize` follows from `ctype`, so every component matches an arm above.
                _ => return Err(within(invalid(format!("componentType {ctype} with {} bytes", b.len())))),
            };
            out.push(v);
        }
    }
    if out.len() != n * comps {
        return Err(too_short());
    }
    Ok((out, comps))
}

struct NodeInfo {
    name: String,
    rest: Transform,
    children: Vec<usize>,
    id: Option<i32>,
    hash: Option<u32>,
    /// The name is only the label animkit's export gave a bone known by its hash or id.
    labelled: bool,
    z_up: bool,
    /// Our common-root node (several root bones under one node, for the skin).
    common_root: bool,
}

fn node_info(i: usize, node: &Value, count: usize) -> Result<NodeInfo> {
    let within = |e: Error| e.within(format!("node {i}"));
    let name = node.get("name").and_then(Value::as_str).map_or_else(|| format!("node_{i}"), str::to_string);
    let rest = if let Some(m) = floats::<16>(node.get("matrix")) {
        let (scale, rotation, translation) = Mat4::from_cols_array(&m).to_scale_rotation_translation();
        Transform { translation, rotation, scale }
    } else {
        Transform {
            translation: floats::<3>(node.get("translation")).map_or(Vec3::ZERO, Vec3::from),
            rotation: floats::<4>(node.get("rotation")).map_or(Quat::IDENTITY, Quat::from_array),
            scale: floats::<3>(node.get("scale")).map_or(Vec3::ONE, Vec3::from),
        }
    };
    let children = list(node, "children")
        .iter()
        .map(|c| index(Some(c), count, "child"))
        .collect::<Result<Vec<_>>>()
        .map_err(within)?;
    let ours = node.pointer("/extras/animkit");
    let mut id = ours.and_then(|o| o.get("id")).and_then(Value::as_i64).and_then(|v| i32::try_from(v).ok());
    let mut hash = ours.and_then(|o| o.get("hash")).and_then(Value::as_u64).and_then(|v| u32::try_from(v).ok());
    // Without the extras (Blender without custom properties), a nameless bone's label gives its
    // hash or id back: a compiled CAF's `0x16F4F95B` is that CRC-32, not a name to hash.
    let labelled = ours.is_none() && id.is_none() && hash.is_none() && {
        (id, hash) = label_identity(&name);
        id.is_some() || hash.is_some()
    };
    // By role, or by name when a tool dropped the extras (Blender without custom properties).
    let role = ours.and_then(|o| o.get("role")).and_then(Value::as_str);
    let z_up = role == Some("up_axis_z") || name == Z_UP_NODE;
    let common_root = role == Some("common_root") || name == COMMON_ROOT_NODE;
    Ok(NodeInfo { name, rest, children, id, hash, labelled, z_up, common_root })
}

/// The id or hash of a bone whose name is the label [`crate::model::BoneRef::label`] gives a
/// bone without a name: `#12` (an id) or `0x16F4F95B` (a hash, eight hex digits).
fn label_identity(name: &str) -> (Option<i32>, Option<u32>) {
    if let Some(digits) = name.strip_prefix('#') {
        return (digits.parse().ok(), None);
    }
    match name.strip_prefix("0x") {
        Some(hex) if hex.len() == 8 && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            (None, u32::from_str_radix(hex, 16).ok())
        }
        _ => (None, None),
    }
}

fn clip_from_extras(extras: Option<&Value>, fallback_name: String, tracks: Vec<Track>) -> Clip {
    let get = |k: &str| extras.and_then(|e| e.get(k));
    let duration = get("duration")
        .and_then(Value::as_f64)
        .map(|d| d as f32)
        .unwrap_or_else(|| tracks.iter().filter_map(|t| t.times.last().copied()).fold(0.0, f32::max));
    Clip {
        name: get("name").and_then(Value::as_str).map_or(fallback_name, str::to_string),
        duration,
        looping: get("looping").and_then(Value::as_bool),
        additive: get("additive").and_then(Value::as_bool).unwrap_or(false),
        frame_rate: get("frame_rate").and_then(Value::as_f64).map(|f| f as f32),
        tracks,
        ..Default::default()
    }
}

/// The tracks kept in `extras.animkit.tracks`, with their original indices.
fn extra_tracks(extras: Option<&Value>) -> Result<Vec<(Option<usize>, Track)>> {
    let mut out = Vec::new();
    for (k, e) in extras.and_then(|e| e.get("tracks")).and_then(Value::as_array).into_iter().flatten().enumerate() {
        let track: Track = serde_json::from_value(e.get("track").cloned().unwrap_or(Value::Null))
            .map_err(|err| invalid(format!("extras track {k}: {err}")))?;
        track.validate().map_err(|m| invalid(format!("extras track {k}: {m}")))?;
        let index = e.get("index").and_then(Value::as_u64).and_then(|i| usize::try_from(i).ok());
        out.push((index, track));
    }
    Ok(out)
}

/// Puts extras tracks back at their indices and the channel tracks in the other slots, in order.
fn merge(channels: Vec<Track>, extras: Vec<(Option<usize>, Track)>) -> Vec<Track> {
    let total = channels.len() + extras.len();
    let mut slots: Vec<Option<Track>> = (0..total).map(|_| None).collect();
    let mut late = Vec::new();
    for (index, track) in extras {
        match index.and_then(|i| slots.get_mut(i)) {
            Some(slot) if slot.is_none() => *slot = Some(track),
            _ => late.push(track),
        }
    }
    let mut channels = channels.into_iter();
    let mut out = Vec::with_capacity(total);
    for slot in slots {
        match slot {
            Some(t) => out.push(t),
            None => out.extend(channels.next()),
        }
    }
    out.extend(channels);
    out.extend(late);
    out
}

/// The first node not reached from a root (a node without a parent) through child lists: one in
/// a cycle or under one, as every node has at most one parent. Linear in the node count, so a
/// chain of 100 000 nodes is checked at once.
fn first_outside_trees(nodes: &[NodeInfo], parent: &[Option<usize>]) -> Option<usize> {
    let mut reached = vec![false; nodes.len()];
    let mut stack: Vec<usize> = parent.iter().enumerate().filter(|(_, p)| p.is_none()).map(|(i, _)| i).collect();
    while let Some(n) = stack.pop() {
        match reached.get_mut(n) {
            Some(r) if !*r => *r = true,
            _ => continue,
        }
        stack.extend(nodes.get(n).into_iter().flat_map(|node| node.children.iter().copied()));
    }
    reached.iter().position(|r| !r)
}

/// A package imported from glTF, with what the import changed or could not keep.
pub struct Imported {
    pub package: Package,
    /// One line per kind of change (counted, never one line per track).
    pub warnings: Vec<String>,
}

/// Imports a parsed glTF into the model; files written by other tools are tidied
/// ([`tidy`]): constant rest tracks dropped, key times snapped to the frame rate.
pub fn import_with(
    json: &GltfJson,
    buffers: &[Option<Bytes>],
    limits: &Limits,
    options: &ImportOptions,
) -> Result<Imported> {
    let mut warnings = Vec::new();
    let raw_nodes = json.list("nodes");
    let nodes: Vec<NodeInfo> =
        raw_nodes.iter().enumerate().map(|(i, n)| node_info(i, n, raw_nodes.len())).collect::<Result<_>>()?;
    // Children were checked against the node count by `node_info`.
    let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for &c in &n.children {
            match parent.get_mut(c) {
                Some(slot) if c != i && slot.is_none() => *slot = Some(i),
                _ => return Err(invalid(format!("node {c} has more than one parent or is its own child"))),
            }
        }
    }
    let parent_of = |n: usize| parent.get(n).copied().flatten();
    // A node by an index taken from `parent`, a child list or `wanted` (all checked already).
    let node_at =
        |n: usize| nodes.get(n).ok_or_else(|| invalid(format!("node index {n} out of range ({})", nodes.len())));
    if let Some(n) = first_outside_trees(&nodes, &parent) {
        return Err(invalid(format!("node {n} is in a cycle or under one (it has no root)")));
    }
    let ours = json.pointer("/extras/animkit");
    let root = |pick: fn(&NodeInfo) -> bool| nodes.iter().zip(&parent).position(|(n, p)| pick(n) && p.is_none());
    let z_up_node = root(|n| n.z_up);

    // Bones: the joints of the skin (when there is one), else the animated nodes and their
    // ancestors; never our Z-up or common-root node.
    let skin = skin::choose(json, nodes.len())?;
    warnings.extend(skin.as_ref().and_then(|s| s.note.clone()));
    let mut wanted: BTreeSet<usize> = skin.iter().flat_map(|s| s.joints.iter().copied()).collect();
    for ai in (0..json.animation_count()).filter(|_| skin.is_none()) {
        let anim = json.animation(ai)?;
        for ch in list(&anim, "channels") {
            if let Some(n) = ch.pointer("/target/node") {
                let n = index(Some(n), nodes.len(), "channel target node")
                    .map_err(|e| e.within(format!("animation {ai}")))?;
                if ch.pointer("/target/path").and_then(Value::as_str) != Some("weights") {
                    wanted.insert(n);
                }
            }
        }
    }
    // Each walk stops at an ancestor already wanted, so all of them together are linear.
    for n in wanted.clone().into_iter().filter(|_| skin.is_none()) {
        let mut at = n;
        while let Some(p) = parent_of(at) {
            if !wanted.insert(p) {
                break;
            }
            at = p;
        }
    }
    if let Some(z) = z_up_node {
        wanted.remove(&z);
    }
    if let Some(r) = root(|n| n.common_root) {
        wanted.remove(&r);
    }
    let bone_parent = |n: usize| {
        let mut at = n;
        while let Some(p) = parent_of(at) {
            if wanted.contains(&p) {
                return Some(p);
            }
            at = p;
        }
        None
    };
    let mut order: Vec<usize> = match &skin {
        Some(SkinChoice { joints, .. }) => joints.iter().copied().filter(|j| wanted.contains(j)).collect(),
        None => wanted.iter().copied().collect(),
    };
    let position: HashMap<usize, usize> = order.iter().enumerate().map(|(b, &n)| (n, b)).collect();
    let rank = |n: usize| position.get(&n).copied().unwrap_or(usize::MAX);
    if order.iter().any(|&n| bone_parent(n).is_some_and(|p| rank(p) > rank(n))) {
        // Not parent-before-child in this order: depth-first from the roots instead.
        if skin.is_some() {
            warnings.push("the skin lists a joint before its parent: bones are numbered depth-first".into());
        }
        order.clear();
        let mut stack: Vec<usize> =
            parent.iter().enumerate().filter(|(_, p)| p.is_none()).map(|(i, _)| i).rev().collect();
        while let Some(n) = stack.pop() {
            if wanted.contains(&n) {
                order.push(n);
            }
            stack.extend(node_at(n)?.children.iter().rev());
        }
    }
    let bone_of: HashMap<usize, usize> = order.iter().enumerate().map(|(b, &n)| (n, b)).collect();
    let bones: Vec<Bone> = order
        .iter()
        .map(|&n| {
            let node = node_at(n)?;
            Ok(Bone {
                name: node.name.clone(),
                id: node.id,
                hash: node.hash,
                parent: bone_parent(n).and_then(|p| bone_of.get(&p).copied()),
                rest: match bone_parent(n) {
                    Some(_) => node.rest,
                    None => above_root(n, &parent_of, &nodes)?.then(&node.rest),
                },
            })
        })
        .collect::<Result<_>>()?;
    let node_ref = |node: &NodeInfo| BoneRef {
        name: (!node.labelled).then(|| node.name.as_str().into()),
        id: node.id,
        hash: node.hash,
        index: None,
    };

    let mut clips: Vec<(Option<usize>, Clip)> = Vec::new();
    let mut total_keys = 0u64;
    let mut not_joints = BTreeSet::new();
    for ai in 0..json.animation_count() {
        let anim = json.animation(ai)?;
        let within = |e: Error| e.within(format!("animation {ai}"));
        let extras = anim.pointer("/extras/animkit");
        let samplers = list(&anim, "samplers");
        let mut tracks = Vec::new();
        for (ci, ch) in list(&anim, "channels").iter().enumerate() {
            let within = |e: Error| within(e.within(format!("channel {ci}")));
            let Some(node) = ch.pointer("/target/node") else {
                continue;
            };
            let (node_index, node) = lookup(&nodes, Some(node), "target node").map_err(within)?;
            let path = ch.pointer("/target/path").and_then(Value::as_str).unwrap_or("");
            if !matches!(path, "rotation" | "translation" | "scale") {
                continue;
            }
            if skin.is_some() && !wanted.contains(&node_index) {
                not_joints.insert(node.name.as_str());
                continue;
            }
            let (_, sampler) = lookup(samplers, ch.get("sampler"), "sampler").map_err(within)?;
            let input = index(sampler.get("input"), usize::MAX, "input").map_err(within)?;
            let output = index(sampler.get("output"), usize::MAX, "output").map_err(within)?;
            let (times, tc) = read_accessor(json, buffers, input).map_err(within)?;
            if tc != 1 {
                return Err(within(invalid("sampler input is not SCALAR")));
            }
            total_keys += times.len() as u64;
            if total_keys > limits.max_keys {
                return Err(Error::new(ErrorKind::Limit, None, format!("more than {} keys", limits.max_keys)));
            }
            let (values, vc) = read_accessor(json, buffers, output).map_err(within)?;
            let glinterp = sampler.get("interpolation").and_then(Value::as_str).unwrap_or("LINEAR");
            let (mut interpolation, per_key) = match glinterp {
                "STEP" => (Interpolation::Step, 1),
                "CUBICSPLINE" => (Interpolation::CubicSpline, 3),
                "LINEAR" if path == "rotation" => (Interpolation::Slerp, 1),
                "LINEAR" => (Interpolation::Linear, 1),
                other => return Err(within(invalid(format!("interpolation \"{other}\"")))),
            };
            let ch_extras = ch.pointer("/extras/animkit");
            if glinterp == "LINEAR" {
                match ch_extras.and_then(|e| e.get("interpolation")).and_then(Value::as_str) {
                    Some("linear") => interpolation = Interpolation::Linear,
                    Some("slerp") => interpolation = Interpolation::Slerp,
                    Some("nlerp") => interpolation = Interpolation::Nlerp,
                    _ => {}
                }
            }
            let want = if path == "rotation" { 4 } else { 3 };
            if vc != want {
                return Err(within(invalid(format!("{path} output has {vc} components"))));
            }
            let values = match path {
                "rotation" => {
                    let mut q: Vec<Quat> = values.as_chunks::<4>().0.iter().map(|&q| Quat::from_array(q)).collect();
                    make_rotations_continuous(&mut q, interpolation);
                    Values::Rotation(q)
                }
                "translation" => {
                    Values::Translation(values.as_chunks::<3>().0.iter().map(|&v| Vec3::from(v)).collect())
                }
                _ => Values::Scale(values.as_chunks::<3>().0.iter().map(|&v| Vec3::from(v)).collect()),
            };
            let target = match ch_extras.and_then(|e| e.get("target")) {
                Some(t) => {
                    serde_json::from_value(t.clone()).map_err(|e| within(invalid(format!("extras target: {e}"))))?
                }
                None => node_ref(node),
            };
            let track = Track { target: Target::Bone(target), interpolation, times, values };
            if values_per_key_mismatch(&track, per_key) {
                return Err(within(invalid(format!(
                    "{} output values for {} keys ({glinterp})",
                    track.values.len(),
                    track.times.len()
                ))));
            }
            track.validate().map_err(|m| within(invalid(m)))?;
            tracks.push(track);
        }
        let tracks = merge(tracks, extra_tracks(extras).map_err(within)?);
        let name = anim.get("name").and_then(Value::as_str).map_or_else(|| format!("animation_{ai}"), str::to_string);
        let index =
            extras.and_then(|e| e.get("clip_index")).and_then(Value::as_u64).and_then(|i| usize::try_from(i).ok());
        clips.push((index, clip_from_extras(extras, name, tracks)));
    }
    for (k, e) in ours.and_then(|o| o.get("empty_clips")).and_then(Value::as_array).into_iter().flatten().enumerate() {
        let tracks = merge(Vec::new(), extra_tracks(Some(e)).map_err(|err| err.within(format!("empty clip {k}")))?);
        let index = e.get("clip_index").and_then(Value::as_u64).and_then(|i| usize::try_from(i).ok());
        clips.push((index, clip_from_extras(Some(e), format!("clip_{k}"), tracks)));
    }
    clips.sort_by_key(|(i, _)| i.unwrap_or(usize::MAX));

    let name = ours
        .and_then(|o| o.get("name"))
        .or_else(|| json.pointer("/scenes/0/name"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let flat = ours.and_then(|o| o.get("skeleton")).and_then(Value::as_bool) == Some(false);
    let up_axis = if z_up_node.is_some() { UpAxis::Z } else { UpAxis::Y };
    if !not_joints.is_empty() {
        let names: Vec<&str> = not_joints.iter().copied().take(4).collect();
        warnings.push(format!(
            "channels of {} node(s) that are not joints of the skin skipped ({}{})",
            not_joints.len(),
            names.join(", "),
            if not_joints.len() > names.len() { ", …" } else { "" }
        ));
    }
    let mut package = Package {
        name,
        up_axis,
        clips: clips.into_iter().map(|(_, c)| c).collect(),
        skeleton: (!flat && !bones.is_empty()).then_some(Skeleton { bones }),
    };
    if !tidy::written_by_animkit(json.pointer("/asset/generator").and_then(Value::as_str)) {
        warnings.extend(tidy::tidy(&mut package, options));
    }
    Ok(Imported { package, warnings })
}

/// The transform of the nodes above root bone `n` that are not bones (Blender's armature
/// object), without our Z-up and common-root nodes, which the import removes.
fn above_root(n: usize, parent_of: &dyn Fn(usize) -> Option<usize>, nodes: &[NodeInfo]) -> Result<Transform> {
    let mut total = Transform::default();
    let mut at = n;
    while let Some(p) = parent_of(at) {
        let node = nodes.get(p).ok_or_else(|| invalid(format!("node index {p} out of range ({})", nodes.len())))?;
        if !node.z_up && !node.common_root {
            total = node.rest.then(&total);
        }
        at = p;
    }
    Ok(total)
}

fn values_per_key_mismatch(track: &Track, per_key: usize) -> bool {
    track.values.len() != track.times.len() * per_key
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nameless_bone_labels_give_their_hash_or_id_back() {
        // The labels BoneRef::label writes for a bone known only by its CRC-32 or its tag.
        assert_eq!(label_identity("0x16F4F95B"), (None, Some(0x16F4_F95B)));
        assert_eq!(label_identity("0xdba80bb2"), (None, Some(0xDBA8_0BB2)));
        assert_eq!(label_identity("#23"), (Some(23), None));
        for name in ["0x16F4F95", "0x16F4F95BA", "0xGGGGGGGG", "Bip01 0x16F4F95B", "#", "#2a", "Root"] {
            assert_eq!(label_identity(name), (None, None), "{name}");
        }
    }

    #[test]
    fn accessors_decode_strides_offsets_and_normalised_integers() {
        // Expected values from the glTF 2.0 spec §3.11 (normalised: i8 c/127 clamped at -1,
        // u16 c/65535, i16 c/32767 clamped at -1), worked by hand.
        let buffer = vec![
            0xAA, 0xAA, // before view 0
            0x00, 0x7F, 0x81, 0x00, 0x00, 0x80, 0xC0, 0x00, // view 0: stride 4, elements at 1 and 5
            0x00, 0x80, 0xFF, 0xFF, // view 1: u16 32768, 65535
            0x00, 0x00, 0x80, 0x3F, 0x07, 0x00, 0x00, 0x00, // view 2: f32 1.0, u32 7
            0x00, 0x80, 0x01, 0x00, // view 3: i16 -32768, 1
        ];
        let json = json!({
            "bufferViews": [
                {"buffer": 0, "byteOffset": 2, "byteLength": 8, "byteStride": 4},
                {"buffer": 0, "byteOffset": 10, "byteLength": 4},
                {"buffer": 0, "byteOffset": 14, "byteLength": 8},
                {"buffer": 0, "byteOffset": 22, "byteLength": 4},
            ],
            "accessors": [
                {"bufferView": 0, "byteOffset": 1, "count": 2, "type": "VEC2", "componentType": 5120, "normalized": true},
                {"bufferView": 1, "count": 2, "type": "SCALAR", "componentType": 5123, "normalized": true},
                {"bufferView": 2, "count": 1, "type": "SCALAR", "componentType": 5126},
                {"bufferView": 2, "byteOffset": 4, "count": 1, "type": "SCALAR", "componentType": 5125},
                {"bufferView": 3, "count": 2, "type": "SCALAR", "componentType": 5122, "normalized": true},
                {"count": 2, "type": "VEC3", "componentType": 5126},
                {"bufferView": 0, "byteOffset": 1, "count": 3, "type": "VEC2", "componentType": 5120},
                {"bufferView": 4, "count": 1, "type": "SCALAR", "componentType": 5126},
            ],
        });
        let json = GltfJson::from_value(json).unwrap();
        let buffers = [Some(Bytes::from(buffer))];
        let read = |i| read_accessor(&json, &buffers, i);
        assert_eq!(read(0).unwrap(), (vec![1.0, -1.0, -1.0, -64.0 / 127.0], 2));
        assert_eq!(read(1).unwrap(), (vec![32768.0 / 65535.0, 1.0], 1));
        assert_eq!(read(2).unwrap(), (vec![1.0], 1));
        assert_eq!(read(3).unwrap(), (vec![7.0], 1));
        assert_eq!(read(4).unwrap(), (vec![-1.0, 1.0 / 32767.0], 1));
        assert_eq!(read(5).unwrap(), (vec![0.0; 6], 3));
        // A third element would end at 1 + 2 * 4 + 2 = 11 > 8 bytes.
        assert_eq!(read(6).unwrap_err().kind, ErrorKind::Truncated);
        // No buffer view 4, no accessor 8.
        assert!(read(7).is_err());
        assert!(read(8).is_err());
    }
}
