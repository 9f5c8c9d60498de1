//! glTF 2.0 → model. See the module docs of [`super`] for the rules.
//!
//! Every index and count from the file is checked before use: accessor ranges against their
//! buffer view and buffer, node references against the node list, the node graph for cycles and
//! second parents. Allocation is bounded by the bytes an accessor really covers.

use std::collections::{BTreeSet, HashMap};

use super::export::{COMMON_ROOT_NODE, Z_UP_NODE};
use super::json::GltfJson;
use super::schema::{
    BufferView, Channel, ChannelExtras, ClipExtras, Node, Num, RootExtras, Sampler, BYTE, FLOAT, SHORT, UNSIGNED_BYTE,
    UNSIGNED_INT, UNSIGNED_SHORT,
};
use super::skin::{self, SkinChoice};
use super::tidy::{self, ImportOptions};
use crate::error::{Error, ErrorKind, Result};
use crate::format::Limits;
use crate::model::rest::make_rotations_continuous;
use crate::model::{Bone, BoneRef, Clip, Interpolation, Package, Skeleton, Target, Track, Transform, UpAxis, Values};
use bytes::Bytes;
use glam::{Mat4, Quat, Vec3};

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Invalid, None, message)
}

/// The element of `items` at index `i`, or an error naming `what`.
fn lookup<'a, T>(items: &'a [T], i: usize, what: &str) -> Result<&'a T> {
    items.get(i).ok_or_else(|| invalid(format!("{what}: index {i} out of range ({})", items.len())))
}

fn floats<const N: usize>(values: [Num; N]) -> [f32; N] {
    values.map(|x| x.0)
}

/// Reads an accessor as floats (`comps` per element), decoding normalised integers.
pub fn read_accessor(json: &GltfJson, buffers: &[Option<Bytes>], i: usize) -> Result<(Vec<f32>, usize)> {
    let acc = json.accessor(i)?;
    let within = |e: Error| e.within(format!("accessor {i}"));
    let comps = match acc.kind.as_str() {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        other => return Err(within(Error::unsupported(format!("accessor type \"{other}\"")))),
    };
    let ctype = acc.component_type;
    let csize = match ctype {
        BYTE | UNSIGNED_BYTE => 1,
        SHORT | UNSIGNED_SHORT => 2,
        UNSIGNED_INT | FLOAT => 4,
        _ => return Err(within(invalid(format!("componentType {ctype}")))),
    };
    if acc.sparse.is_some() {
        return Err(within(Error::unsupported("sparse accessors")));
    }
    let normalized = acc.normalized.unwrap_or(false);
    let elem = comps * csize;
    let n = acc.count;
    let Some(vi) = acc.buffer_view else {
        // No buffer view: all zeros. Bound the allocation like any other.
        if n.saturating_mul(comps) > (1 << 26) {
            return Err(within(invalid("count too large")));
        }
        return Ok((vec![0.0; n * comps], comps));
    };
    let (view, slice) = view_bytes(json, buffers, vi).map_err(within)?;
    let vo = view.byte_offset;
    let stride = view.byte_stride.unwrap_or(elem);
    if stride < elem {
        return Err(within(invalid(format!("byteStride {stride} is below the element size {elem}"))));
    }
    let ao = acc.byte_offset.unwrap_or(0);
    let too_short = || {
        within(Error::new(
            ErrorKind::Truncated,
            Some(vo as u64),
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
    if ctype == FLOAT && stride == elem && n > 0 {
        // Packed floats (every accessor animkit writes): one pass over the bytes.
        let bytes = slice.get(ao..).and_then(|b| b.get(..n * elem)).ok_or_else(too_short)?;
        return Ok((bytes.as_chunks::<4>().0.iter().map(|&b| f32::from_le_bytes(b)).collect(), comps));
    }
    let mut out = Vec::with_capacity(n * comps);
    // Element `e` starts at `ao + e * stride` (stride ≥ elem ≥ 1); the check above covers them all.
    let elements = slice.get(ao..).unwrap_or_default().chunks(stride).take(n);
    for element in elements {
        let element = element.get(..elem).ok_or_else(too_short)?;
        for b in element.chunks_exact(csize) {
            // `csize` follows from `ctype`, so every component decodes.
            let v = component(ctype, b, normalized)
                .ok_or_else(|| within(invalid(format!("componentType {ctype} with {} bytes", b.len()))))?;
            out.push(v);
        }
    }
    if out.len() != n * comps {
        return Err(too_short());
    }
    Ok((out, comps))
}

/// One component of type `ctype` (glTF 2.0 §3.11: a normalised signed integer is `c / max`,
/// clamped at -1; unsigned `c / max`); `None` when `bytes` is not its size.
fn component(ctype: u32, bytes: &[u8], normalized: bool) -> Option<f32> {
    let (x, max) = match (ctype, bytes) {
        (FLOAT, &[b0, b1, b2, b3]) => return Some(f32::from_le_bytes([b0, b1, b2, b3])),
        (UNSIGNED_INT, &[b0, b1, b2, b3]) => return Some(u32::from_le_bytes([b0, b1, b2, b3]) as f32),
        (BYTE, &[b0]) => (f32::from(b0 as i8), 127.0),
        (UNSIGNED_BYTE, &[b0]) => (f32::from(b0), 255.0),
        (SHORT, &[b0, b1]) => (f32::from(i16::from_le_bytes([b0, b1])), 32767.0),
        (UNSIGNED_SHORT, &[b0, b1]) => (f32::from(u16::from_le_bytes([b0, b1])), 65535.0),
        _ => return None,
    };
    Some(if normalized { (x / max).max(-1.0) } else { x })
}

/// Buffer view `vi` and its bytes.
fn view_bytes<'a>(json: &'a GltfJson, buffers: &'a [Option<Bytes>], vi: usize) -> Result<(&'a BufferView, &'a [u8])> {
    let view = lookup(&json.buffer_views, vi, "bufferView")?;
    let bi = view.buffer;
    let data = lookup(buffers, bi, "buffer").map_err(|e| e.within(format!("bufferView {vi}")))?;
    let data =
        data.as_deref().ok_or_else(|| Error::unsupported(format!("buffer {bi} is external and was not loaded")))?;
    let (vo, vl) = (view.byte_offset, view.byte_length);
    let slice = vo.checked_add(vl).and_then(|end| data.get(vo..end)).ok_or_else(|| {
        Error::new(ErrorKind::Truncated, Some(vo as u64), format!("bufferView {vi} runs past buffer {bi}"))
    })?;
    Ok((view, slice))
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

fn node_info(i: usize, node: &Node, count: usize) -> Result<NodeInfo> {
    let name = node.name.clone().unwrap_or_else(|| format!("node_{i}"));
    let rest = if let Some(m) = node.matrix {
        let (scale, rotation, translation) = Mat4::from_cols_array(&floats(m)).to_scale_rotation_translation();
        Transform { translation, rotation, scale }
    } else {
        Transform {
            translation: node.translation.map_or(Vec3::ZERO, |t| Vec3::from(floats(t))),
            rotation: node.rotation.map_or(Quat::IDENTITY, |q| Quat::from_array(floats(q))),
            scale: node.scale.map_or(Vec3::ONE, |s| Vec3::from(floats(s))),
        }
    };
    if let Some(&c) = node.children.iter().find(|&&c| c >= count) {
        return Err(invalid(format!("child: index {c} out of range ({count})")).within(format!("node {i}")));
    }
    let ours = node.animkit.as_ref();
    let (mut id, mut hash) = (ours.and_then(|o| o.id), ours.and_then(|o| o.hash));
    // Without the extras (Blender without custom properties), a nameless bone's label gives its
    // hash or id back: a compiled CAF's `0x16F4F95B` is that CRC-32, not a name to hash.
    let labelled = ours.is_none() && {
        (id, hash) = label_identity(&name);
        id.is_some() || hash.is_some()
    };
    // By role, or by name when a tool dropped the extras (Blender without custom properties).
    let role = ours.and_then(|o| o.role.as_deref());
    let z_up = role == Some("up_axis_z") || name == Z_UP_NODE;
    let common_root = role == Some("common_root") || name == COMMON_ROOT_NODE;
    Ok(NodeInfo { name, rest, children: node.children.clone(), id, hash, labelled, z_up, common_root })
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

fn clip_from_extras(extras: Option<&ClipExtras>, fallback_name: String, tracks: Vec<Track>) -> Clip {
    let duration = extras
        .and_then(|e| e.duration)
        .map_or_else(|| tracks.iter().filter_map(|t| t.times.last().copied()).fold(0.0, f32::max), |d| d.0);
    Clip {
        name: extras.and_then(|e| e.name.clone()).unwrap_or(fallback_name),
        duration,
        looping: extras.and_then(|e| e.looping),
        additive: extras.and_then(|e| e.additive).unwrap_or(false),
        frame_rate: extras.and_then(|e| e.frame_rate).map(|f| f.0),
        tracks,
        ..Default::default()
    }
}

/// The tracks kept in `extras.animkit.tracks`, with their original indices.
fn extra_tracks(extras: Option<&ClipExtras>) -> Result<Vec<(Option<usize>, Track)>> {
    let mut out = Vec::new();
    for (k, e) in extras.into_iter().flat_map(|e| &e.tracks).enumerate() {
        let track: Track =
            serde_json::from_value(e.track.clone()).map_err(|err| invalid(format!("extras track {k}: {err}")))?;
        track.validate().map_err(|m| invalid(format!("extras track {k}: {m}")))?;
        out.push((e.index, track));
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

/// The node graph: each node's facts and parent, checked to be a forest.
struct NodeTree {
    nodes: Vec<NodeInfo>,
    parent: Vec<Option<usize>>,
}

impl NodeTree {
    /// The nodes of `json`; an error for a child index out of range, a node with two parents
    /// and a cycle.
    fn new(json: &GltfJson) -> Result<NodeTree> {
        let count = json.nodes.len();
        let nodes: Vec<NodeInfo> =
            json.nodes.iter().enumerate().map(|(i, n)| node_info(i, n, count)).collect::<Result<_>>()?;
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
        if let Some(n) = first_outside_trees(&nodes, &parent) {
            return Err(invalid(format!("node {n} is in a cycle or under one (it has no root)")));
        }
        Ok(NodeTree { nodes, parent })
    }

    fn parent_of(&self, n: usize) -> Option<usize> {
        self.parent.get(n).copied().flatten()
    }

    /// A node by an index taken from `parent`, a child list or a checked channel.
    fn node(&self, n: usize) -> Result<&NodeInfo> {
        lookup(&self.nodes, n, "node")
    }

    /// The first root node `pick` accepts.
    fn root(&self, pick: fn(&NodeInfo) -> bool) -> Option<usize> {
        self.nodes.iter().zip(&self.parent).position(|(n, p)| pick(n) && p.is_none())
    }

    /// The nearest ancestor of `n` in `wanted`.
    fn bone_parent(&self, n: usize, wanted: &BTreeSet<usize>) -> Option<usize> {
        let mut at = n;
        while let Some(p) = self.parent_of(at) {
            if wanted.contains(&p) {
                return Some(p);
            }
            at = p;
        }
        None
    }

    /// The transform of the nodes above root bone `n` that are not bones (Blender's armature
    /// object), without our Z-up and common-root nodes, which the import removes.
    fn above_root(&self, n: usize) -> Result<Transform> {
        let mut total = Transform::default();
        let mut at = n;
        while let Some(p) = self.parent_of(at) {
            let node = self.node(p)?;
            if !node.z_up && !node.common_root {
                total = node.rest.then(&total);
            }
            at = p;
        }
        Ok(total)
    }
}

/// The nodes that become bones: the joints of the skin (when there is one), else the animated
/// nodes and their ancestors; never our Z-up or common-root node.
fn wanted_nodes(json: &GltfJson, tree: &NodeTree, skin: Option<&SkinChoice>) -> Result<BTreeSet<usize>> {
    let mut wanted: BTreeSet<usize> = skin.iter().flat_map(|s| s.joints.iter().copied()).collect();
    if skin.is_none() {
        for ai in 0..json.animation_count() {
            for ch in json.animation(ai)?.channels {
                let Some(n) = ch.target.node else { continue };
                lookup(&tree.nodes, n, "channel target node").map_err(|e| e.within(format!("animation {ai}")))?;
                if ch.target.path != "weights" {
                    wanted.insert(n);
                }
            }
        }
        // Each walk stops at an ancestor already wanted, so all of them together are linear.
        for n in wanted.clone() {
            let mut at = n;
            while let Some(p) = tree.parent_of(at) {
                if !wanted.insert(p) {
                    break;
                }
                at = p;
            }
        }
    }
    for helper in [tree.root(|n| n.z_up), tree.root(|n| n.common_root)].into_iter().flatten() {
        wanted.remove(&helper);
    }
    Ok(wanted)
}

/// The bone nodes in bone order: the skin's joint order, or node order, when parents come first
/// in it; else depth-first from the roots.
fn bone_order(
    tree: &NodeTree,
    wanted: &BTreeSet<usize>,
    skin: Option<&SkinChoice>,
    warnings: &mut Vec<String>,
) -> Result<Vec<usize>> {
    let order: Vec<usize> = match skin {
        Some(SkinChoice { joints, .. }) => joints.iter().copied().filter(|j| wanted.contains(j)).collect(),
        None => wanted.iter().copied().collect(),
    };
    let position: HashMap<usize, usize> = order.iter().enumerate().map(|(b, &n)| (n, b)).collect();
    let rank = |n: usize| position.get(&n).copied().unwrap_or(usize::MAX);
    if !order.iter().any(|&n| tree.bone_parent(n, wanted).is_some_and(|p| rank(p) > rank(n))) {
        return Ok(order);
    }
    if skin.is_some() {
        warnings.push("the skin lists a joint before its parent: bones are numbered depth-first".into());
    }
    let mut order = Vec::with_capacity(wanted.len());
    let mut stack: Vec<usize> =
        tree.parent.iter().enumerate().filter(|(_, p)| p.is_none()).map(|(i, _)| i).rev().collect();
    while let Some(n) = stack.pop() {
        if wanted.contains(&n) {
            order.push(n);
        }
        stack.extend(tree.node(n)?.children.iter().rev());
    }
    Ok(order)
}

/// The bones of the nodes in `order`, parents from the node tree.
fn bones(tree: &NodeTree, order: &[usize], wanted: &BTreeSet<usize>) -> Result<Vec<Bone>> {
    let bone_of: HashMap<usize, usize> = order.iter().enumerate().map(|(b, &n)| (n, b)).collect();
    order
        .iter()
        .map(|&n| {
            let node = tree.node(n)?;
            let parent = tree.bone_parent(n, wanted);
            Ok(Bone {
                name: node.name.clone(),
                id: node.id,
                hash: node.hash,
                parent: parent.and_then(|p| bone_of.get(&p).copied()),
                rest: match parent {
                    Some(_) => node.rest,
                    None => tree.above_root(n)?.then(&node.rest),
                },
            })
        })
        .collect()
}

/// The bone reference a node gives a track without extras.
fn node_ref(node: &NodeInfo) -> BoneRef {
    BoneRef { name: (!node.labelled).then(|| node.name.as_str().into()), id: node.id, hash: node.hash, index: None }
}

/// What reading the channels needs, and what it counts.
struct ChannelReader<'a> {
    json: &'a GltfJson,
    buffers: &'a [Option<Bytes>],
    limits: &'a Limits,
    tree: &'a NodeTree,
    /// The bone nodes, when a skin defines them (channels on other nodes are skipped).
    joints: Option<&'a BTreeSet<usize>>,
    total_keys: u64,
    /// Names of nodes whose channels were skipped as they are not joints.
    not_joints: BTreeSet<String>,
}

impl ChannelReader<'_> {
    /// Animation `ai` as a clip, with its `extras.animkit.clip_index`.
    fn clip(&mut self, ai: usize) -> Result<(Option<usize>, Clip)> {
        let anim = self.json.animation(ai)?;
        let within = |e: Error| e.within(format!("animation {ai}"));
        let mut tracks = Vec::new();
        for (ci, ch) in anim.channels.iter().enumerate() {
            let track = self.track(ch, &anim.samplers).map_err(|e| within(e.within(format!("channel {ci}"))))?;
            tracks.extend(track);
        }
        let extras = anim.animkit.as_ref();
        let tracks = merge(tracks, extra_tracks(extras).map_err(within)?);
        let name = anim.name.clone().unwrap_or_else(|| format!("animation_{ai}"));
        Ok((extras.and_then(|e| e.clip_index), clip_from_extras(extras, name, tracks)))
    }

    /// The track of a transform channel on a bone node (`None` for other channels).
    fn track(&mut self, ch: &Channel, samplers: &[Sampler]) -> Result<Option<Track>> {
        let Some(node_index) = ch.target.node else { return Ok(None) };
        let node = lookup(&self.tree.nodes, node_index, "target node")?;
        let path = ch.target.path.as_str();
        if !matches!(path, "rotation" | "translation" | "scale") {
            return Ok(None);
        }
        if self.joints.is_some_and(|j| !j.contains(&node_index)) {
            self.not_joints.insert(node.name.clone());
            return Ok(None);
        }
        let sampler = lookup(samplers, ch.sampler, "sampler")?;
        let (times, tc) = read_accessor(self.json, self.buffers, sampler.input)?;
        if tc != 1 {
            return Err(invalid("sampler input is not SCALAR"));
        }
        self.total_keys += times.len() as u64;
        if self.total_keys > self.limits.max_keys {
            return Err(Error::new(ErrorKind::Limit, None, format!("more than {} keys", self.limits.max_keys)));
        }
        let (values, vc) = read_accessor(self.json, self.buffers, sampler.output)?;
        let glinterp = sampler.interpolation.as_deref().unwrap_or("LINEAR");
        let extras = ch.animkit.as_ref();
        let (interpolation, per_key) = interpolation(glinterp, path, extras)?;
        let want = if path == "rotation" { 4 } else { 3 };
        if vc != want {
            return Err(invalid(format!("{path} output has {vc} components")));
        }
        let values = match path {
            "rotation" => {
                let mut q: Vec<Quat> = values.as_chunks::<4>().0.iter().map(|&q| Quat::from_array(q)).collect();
                make_rotations_continuous(&mut q, interpolation);
                Values::Rotation(q)
            }
            "translation" => Values::Translation(values.as_chunks::<3>().0.iter().map(|&v| Vec3::from(v)).collect()),
            _ => Values::Scale(values.as_chunks::<3>().0.iter().map(|&v| Vec3::from(v)).collect()),
        };
        let target = extras.and_then(|e| e.target.clone()).unwrap_or_else(|| node_ref(node));
        let track = Track { target: Target::Bone(target), interpolation, times, values };
        if track.values.len() != track.times.len() * per_key {
            let (v, k) = (track.values.len(), track.times.len());
            return Err(invalid(format!("{v} output values for {k} keys ({glinterp})")));
        }
        track.validate().map_err(invalid)?;
        Ok(Some(track))
    }
}

/// The model interpolation of a sampler's and values per key; the channel's extras name the
/// model's where glTF's `LINEAR` stands for several.
fn interpolation(glinterp: &str, path: &str, extras: Option<&ChannelExtras>) -> Result<(Interpolation, usize)> {
    Ok(match glinterp {
        "STEP" => (Interpolation::Step, 1),
        "CUBICSPLINE" => (Interpolation::CubicSpline, 3),
        "LINEAR" => match extras.and_then(|e| e.interpolation.as_deref()) {
            Some("linear") => (Interpolation::Linear, 1),
            Some("slerp") => (Interpolation::Slerp, 1),
            Some("nlerp") => (Interpolation::Nlerp, 1),
            _ if path == "rotation" => (Interpolation::Slerp, 1),
            _ => (Interpolation::Linear, 1),
        },
        other => return Err(invalid(format!("interpolation \"{other}\""))),
    })
}

/// The clips: one per animation, and those kept in the root extras as clips without any node
/// channel, in their `clip_index` order.
fn clips(reader: &mut ChannelReader, ours: Option<&RootExtras>) -> Result<Vec<Clip>> {
    let mut clips = (0..reader.json.animation_count()).map(|ai| reader.clip(ai)).collect::<Result<Vec<_>>>()?;
    for (k, e) in ours.into_iter().flat_map(|o| &o.empty_clips).enumerate() {
        let tracks = merge(Vec::new(), extra_tracks(Some(e)).map_err(|err| err.within(format!("empty clip {k}")))?);
        clips.push((e.clip_index, clip_from_extras(Some(e), format!("clip_{k}"), tracks)));
    }
    clips.sort_by_key(|(i, _)| i.unwrap_or(usize::MAX));
    Ok(clips.into_iter().map(|(_, c)| c).collect())
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
    let tree = NodeTree::new(json)?;
    let skin = skin::choose(json, tree.nodes.len())?;
    warnings.extend(skin.as_ref().and_then(|s| s.note.clone()));
    let wanted = wanted_nodes(json, &tree, skin.as_ref())?;
    let order = bone_order(&tree, &wanted, skin.as_ref(), &mut warnings)?;
    let bones = bones(&tree, &order, &wanted)?;
    let ours = json.animkit.as_ref();
    let mut reader = ChannelReader {
        json,
        buffers,
        limits,
        tree: &tree,
        joints: skin.as_ref().map(|_| &wanted),
        total_keys: 0,
        not_joints: BTreeSet::new(),
    };
    let clips = clips(&mut reader, ours)?;
    if !reader.not_joints.is_empty() {
        let names: Vec<&str> = reader.not_joints.iter().map(String::as_str).take(4).collect();
        warnings.push(format!(
            "channels of {} node(s) that are not joints of the skin skipped ({}{})",
            reader.not_joints.len(),
            names.join(", "),
            if reader.not_joints.len() > names.len() { ", …" } else { "" }
        ));
    }
    let name = ours.and_then(|o| o.name.clone()).or_else(|| json.scenes.first().and_then(|s| s.name.clone()));
    let flat = ours.and_then(|o| o.skeleton) == Some(false);
    let mut package = Package {
        name: name.unwrap_or_default(),
        up_axis: if tree.root(|n| n.z_up).is_some() { UpAxis::Z } else { UpAxis::Y },
        clips,
        skeleton: (!flat && !bones.is_empty()).then_some(Skeleton { bones }),
    };
    if !tidy::written_by_animkit(json.asset.generator.as_deref()) {
        warnings.extend(tidy::tidy(&mut package, options));
    }
    Ok(Imported { package, warnings })
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
                {"bufferView": 2, "count": 2, "type": "SCALAR", "componentType": 5126},
                {"bufferView": 2, "byteOffset": 8, "count": 0, "type": "VEC3", "componentType": 5126},
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
        // Packed floats (the bits of u32 7 as the second), and none.
        assert_eq!(read(8).unwrap(), (vec![1.0, f32::from_bits(7)], 1));
        assert_eq!(read(9).unwrap(), (vec![], 3));
        // No buffer view 4, no accessor 10.
        assert!(read(7).is_err());
        assert!(read(10).is_err());
    }
}
