//! glTF 2.0 → model. See the module docs of [`super`] for the rules.
//!
//! Every index and count from the file is checked before use: accessor ranges against their
//! buffer view and buffer, node references against the node list, the node graph for cycles and
//! second parents. Allocation is bounded by the bytes an accessor really covers.

use std::collections::{BTreeSet, HashMap};

use glam::{Mat4, Quat, Vec3};
use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::formats::Limits;
use crate::model::{Bone, BoneRef, Clip, Interpolation, Package, Skeleton, Target, Track, Transform, UpAxis, Values};

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Invalid, None, message)
}

fn list<'a>(json: &'a Value, key: &str) -> &'a [Value] {
    json.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn index(v: Option<&Value>, len: usize, what: &str) -> Result<usize> {
    let i = v.and_then(Value::as_u64).ok_or_else(|| invalid(format!("{what}: missing or not an index")))?;
    usize::try_from(i)
        .ok()
        .filter(|&i| i < len)
        .ok_or_else(|| invalid(format!("{what}: index {i} out of range ({len})")))
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

/// Reads an accessor as floats (`comps` per element), decoding normalised integers.
pub fn read_accessor(json: &Value, buffers: &[Option<Vec<u8>>], i: usize) -> Result<(Vec<f32>, usize)> {
    let accessors = list(json, "accessors");
    let acc = accessors.get(i).ok_or_else(|| invalid(format!("accessor {i} does not exist")))?;
    let within = |e: Error| e.within(format!("accessor {i}"));
    let count = acc.get("count").and_then(Value::as_u64).ok_or_else(|| within(invalid("no count")))?;
    let comps = match acc.get("type").and_then(Value::as_str) {
        Some("SCALAR") => 1,
        Some("VEC2") => 2,
        Some("VEC3") => 3,
        Some("VEC4") => 4,
        Some("MAT4") => 16,
        other => return Err(within(Error::unsupported(format!("accessor type {other:?}")))),
    };
    let ctype = acc.get("componentType").and_then(Value::as_u64).unwrap_or(0);
    let csize = match ctype {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        5125 | 5126 => 4,
        _ => return Err(within(invalid(format!("componentType {ctype}")))),
    };
    if acc.get("sparse").is_some() {
        return Err(within(Error::unsupported("sparse accessors")));
    }
    let normalized = acc.get("normalized").and_then(Value::as_bool).unwrap_or(false);
    let elem = comps * csize;
    let Some(view_index) = acc.get("bufferView") else {
        // No buffer view: all zeros. Bound the allocation like any other.
        let n = usize::try_from(count)
            .ok()
            .filter(|&n| n.saturating_mul(comps) <= (1 << 26))
            .ok_or_else(|| within(invalid("count too large")))?;
        return Ok((vec![0.0; n * comps], comps));
    };
    let views = list(json, "bufferViews");
    let vi = index(Some(view_index), views.len(), "bufferView").map_err(within)?;
    let view = &views[vi];
    let bi =
        index(view.get("buffer"), buffers.len(), "buffer").map_err(|e| within(e.within(format!("bufferView {vi}"))))?;
    let data = buffers[bi]
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
    let ao = usize::try_from(acc.get("byteOffset").and_then(Value::as_u64).unwrap_or(0))
        .map_err(|_| within(invalid("byteOffset")))?;
    let n = usize::try_from(count).map_err(|_| within(invalid("count")))?;
    if n > 0 {
        let end = (n - 1).checked_mul(stride).and_then(|x| x.checked_add(ao)).and_then(|x| x.checked_add(elem));
        if end.is_none_or(|e| e > slice.len()) {
            return Err(within(Error::new(
                ErrorKind::Truncated,
                Some(vo),
                format!(
                    "{n} elements of {elem} bytes (stride {stride}) from {ao} do not fit bufferView {vi} ({} bytes)",
                    slice.len()
                ),
            )));
        }
    }
    let mut out = Vec::with_capacity(n * comps);
    for e in 0..n {
        let start = ao + e * stride;
        for c in 0..comps {
            let p = start + c * csize;
            let b = &slice[p..p + csize];
            let v = match ctype {
                5126 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                5125 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
                5120 => {
                    let x = f32::from(b[0] as i8);
                    if normalized {
                        (x / 127.0).max(-1.0)
                    } else {
                        x
                    }
                }
                5121 => {
                    let x = f32::from(b[0]);
                    if normalized {
                        x / 255.0
                    } else {
                        x
                    }
                }
                5122 => {
                    let x = f32::from(i16::from_le_bytes([b[0], b[1]]));
                    if normalized {
                        (x / 32767.0).max(-1.0)
                    } else {
                        x
                    }
                }
                _ => {
                    let x = f32::from(u16::from_le_bytes([b[0], b[1]]));
                    if normalized {
                        x / 65535.0
                    } else {
                        x
                    }
                }
            };
            out.push(v);
        }
    }
    Ok((out, comps))
}

struct NodeInfo {
    name: String,
    rest: Transform,
    children: Vec<usize>,
    id: Option<i32>,
    hash: Option<u32>,
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
    let id = ours.and_then(|o| o.get("id")).and_then(Value::as_i64).and_then(|v| i32::try_from(v).ok());
    let hash = ours.and_then(|o| o.get("hash")).and_then(Value::as_u64).and_then(|v| u32::try_from(v).ok());
    let z_up = ours.and_then(|o| o.get("role")).and_then(Value::as_str) == Some("up_axis_z");
    let common_root = ours.and_then(|o| o.get("role")).and_then(Value::as_str) == Some("common_root");
    Ok(NodeInfo { name, rest, children, id, hash, z_up, common_root })
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
        match index.filter(|&i| i < total) {
            Some(i) if slots[i].is_none() => slots[i] = Some(track),
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

/// Imports a parsed glTF into the model.
pub fn import(json: &Value, buffers: &[Option<Vec<u8>>], limits: &Limits) -> Result<Package> {
    let raw_nodes = list(json, "nodes");
    let nodes: Vec<NodeInfo> =
        raw_nodes.iter().enumerate().map(|(i, n)| node_info(i, n, raw_nodes.len())).collect::<Result<_>>()?;
    let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for &c in &n.children {
            if c == i || parent[c].is_some() {
                return Err(invalid(format!("node {c} has more than one parent or is its own child")));
            }
            parent[c] = Some(i);
        }
    }
    // Cycle check: walking up from any node must end within `nodes.len()` steps.
    for start in 0..nodes.len() {
        let mut at = start;
        let mut steps = 0;
        while let Some(p) = parent[at] {
            at = p;
            steps += 1;
            if steps > nodes.len() {
                return Err(invalid(format!("node {start} is in a cycle")));
            }
        }
    }
    let ours = json.pointer("/extras/animkit");
    let z_up_node = (0..nodes.len()).find(|&i| nodes[i].z_up && parent[i].is_none());

    // Bones: skin joints, animated nodes and their ancestors, except our Z-up node.
    let mut wanted = BTreeSet::new();
    for (si, skin) in list(json, "skins").iter().enumerate() {
        for j in list(skin, "joints") {
            wanted.insert(index(Some(j), nodes.len(), "joint").map_err(|e| e.within(format!("skin {si}")))?);
        }
    }
    let animations = list(json, "animations");
    for (ai, anim) in animations.iter().enumerate() {
        for ch in list(anim, "channels") {
            if let Some(n) = ch.pointer("/target/node") {
                let n = index(Some(n), nodes.len(), "channel target node")
                    .map_err(|e| e.within(format!("animation {ai}")))?;
                if ch.pointer("/target/path").and_then(Value::as_str) != Some("weights") {
                    wanted.insert(n);
                }
            }
        }
    }
    for n in wanted.clone() {
        let mut at = n;
        while let Some(p) = parent[at] {
            wanted.insert(p);
            at = p;
        }
    }
    if let Some(z) = z_up_node {
        wanted.remove(&z);
    }
    if let Some(r) = (0..nodes.len()).find(|&i| nodes[i].common_root && parent[i].is_none()) {
        wanted.remove(&r);
    }
    let bone_parent = |n: usize| {
        let mut at = n;
        while let Some(p) = parent[at] {
            if wanted.contains(&p) {
                return Some(p);
            }
            at = p;
        }
        None
    };
    let mut order: Vec<usize> = wanted.iter().copied().collect();
    if order.iter().any(|&n| bone_parent(n).is_some_and(|p| p > n)) {
        // Not parent-before-child in index order: depth-first from the roots instead.
        order.clear();
        let mut stack: Vec<usize> = (0..nodes.len()).filter(|&i| parent[i].is_none()).rev().collect();
        while let Some(n) = stack.pop() {
            if wanted.contains(&n) {
                order.push(n);
            }
            stack.extend(nodes[n].children.iter().rev());
        }
    }
    let bone_of: HashMap<usize, usize> = order.iter().enumerate().map(|(b, &n)| (n, b)).collect();
    let bones: Vec<Bone> = order
        .iter()
        .map(|&n| Bone {
            name: nodes[n].name.clone(),
            id: nodes[n].id,
            hash: nodes[n].hash,
            parent: bone_parent(n).and_then(|p| bone_of.get(&p).copied()),
            rest: nodes[n].rest,
        })
        .collect();
    let node_ref = |n: usize| BoneRef {
        name: Some(nodes[n].name.as_str().into()),
        id: nodes[n].id,
        hash: nodes[n].hash,
        index: None,
    };

    let mut clips: Vec<(Option<usize>, Clip)> = Vec::new();
    let mut total_keys = 0u64;
    for (ai, anim) in animations.iter().enumerate() {
        let within = |e: Error| e.within(format!("animation {ai}"));
        let extras = anim.pointer("/extras/animkit");
        let samplers = list(anim, "samplers");
        let mut tracks = Vec::new();
        for (ci, ch) in list(anim, "channels").iter().enumerate() {
            let within = |e: Error| within(e.within(format!("channel {ci}")));
            let Some(node) = ch.pointer("/target/node") else {
                continue;
            };
            let node = index(Some(node), nodes.len(), "target node").map_err(within)?;
            let path = ch.pointer("/target/path").and_then(Value::as_str).unwrap_or("");
            if !matches!(path, "rotation" | "translation" | "scale") {
                continue;
            }
            let si = index(ch.get("sampler"), samplers.len(), "sampler").map_err(within)?;
            let sampler = &samplers[si];
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
                    Values::Rotation(values.chunks_exact(4).map(|c| Quat::from_xyzw(c[0], c[1], c[2], c[3])).collect())
                }
                "translation" => Values::Translation(values.chunks_exact(3).map(Vec3::from_slice).collect()),
                _ => Values::Scale(values.chunks_exact(3).map(Vec3::from_slice).collect()),
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
    Ok(Package {
        name,
        up_axis,
        clips: clips.into_iter().map(|(_, c)| c).collect(),
        skeleton: (!flat && !bones.is_empty()).then_some(Skeleton { bones }),
    })
}

fn values_per_key_mismatch(track: &Track, per_key: usize) -> bool {
    track.values.len() != track.times.len() * per_key
}
