//! Model → glTF 2.0 (JSON document plus one binary buffer).
//!
//! Rules (see the module docs of [`super`] for the whole list):
//! - One animation per clip; channels `rotation` / `translation` / `scale`; times in seconds.
//! - `Slerp`/`Linear` → `LINEAR` (rotations normalised and made hemisphere-continuous first),
//!   `Step` → `STEP`, `CubicSpline` → `CUBICSPLINE` (the model already stores glTF's layout),
//!   `Nlerp` → resampled densely, then `LINEAR` (bound: [`NLERP_TOLERANCE`]).
//! - Times become strictly increasing and ≥ 0 (`keys::strict_times`, `keys::clamp_negative`).
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
//! The JSON is made of the `schema` structs; bone indices come from a
//! validated skeleton, and nothing is indexed unchecked. Key preparation (times, resampling) is
//! in `keys`.

use std::collections::{BTreeSet, HashMap};

use glam::{Affine3A, Quat, Vec3};

use super::json::GltfJson;
use super::keys::{prepare, Prepared};
use super::schema::{
    nums, Accessor, Animation, AnimationPointer, Asset, Attributes, Buffer, BufferView, Channel as GltfChannel,
    ChannelExtras, ChannelTarget, ClipExtras, ExtraTrack, Mesh, Node, NodeExtensions, NodeExtras, NodeVisibility, Num,
    Primitive, RootExtras, Sampler, Scene, Skin, TargetExtensions, ARRAY_BUFFER, FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT,
};

use crate::error::{Error, Result};
use crate::model::{
    Bone, BoneRef, Channel, Clip, Interpolation, Package, Skeleton, Target, Track, Transform, UpAxis, Values,
};

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
/// The `animations` and `accessors` of the JSON are kept as the text of each element, written as
/// soon as it is complete (each animation as its clip is done, each accessor as its keys are), so
/// that no parsed `serde_json::Value` of the whole document ever exists (for the SA `ped.ifp`
/// export it took 14× the memory of its text).
pub struct Exported {
    /// The glTF JSON.
    pub json: GltfJson,
    /// The binary buffer (buffer 0): key times and values.
    pub bin: Vec<u8>,
    /// What the export approximated, one line per kind with counts.
    pub warnings: Vec<String>,
}

impl Exported {
    /// The length of [`Exported::write_json`]'s text.
    pub fn json_len(&self) -> Result<usize> {
        self.json.text_len()
    }

    /// Appends the JSON text.
    pub fn write_json(&self, out: &mut Vec<u8>) -> Result<()> {
        self.json.write(out)
    }

    /// Gives buffer 0 a `data:` URI holding the binary buffer (the `.gltf` variant).
    pub fn embed_bin(&mut self) {
        if self.bin.is_empty() {
            return;
        }
        let uri = format!("data:application/octet-stream;base64,{}", super::base64::base64_encode(&self.bin));
        self.json.buffers = vec![Buffer { byte_length: self.bin.len(), uri: Some(uri) }];
    }
}

/// The glTF JSON and binary buffer being built.
#[derive(Default)]
struct Builder {
    json: GltfJson,
    bin: Vec<u8>,
    /// Animation data goes into one buffer view, the next one when it opens: where it starts
    /// in `bin`, and its view index, while it is open.
    anim_view: Option<(usize, usize)>,
    /// Time accessors by the bits of their times, for sharing.
    times: HashMap<Vec<u32>, usize>,
}

impl Builder {
    fn align(&mut self) {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
    }

    /// The open animation buffer view (opened here when none is): its start and index.
    fn anim_view(&mut self) -> (usize, usize) {
        *self.anim_view.get_or_insert((self.bin.len(), self.json.buffer_views.len()))
    }

    /// Adds an accessor of floats to the shared animation buffer view.
    fn anim_floats(&mut self, floats: &[f32], kind: &str, count: usize, bounds: bool) -> Result<usize> {
        let (start, view) = self.anim_view();
        let offset = self.bin.len() - start;
        let end = self.bin.len() + 4 * floats.len();
        self.bin.resize(end, 0);
        let written = self.bin.get_mut(end - 4 * floats.len()..).unwrap_or_default();
        for (bytes, f) in written.as_chunks_mut::<4>().0.iter_mut().zip(floats) {
            *bytes = f.to_le_bytes();
        }
        let (min, max) = if bounds {
            let min = floats.iter().copied().fold(f32::INFINITY, f32::min);
            let max = floats.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            (Some(vec![Num(min)]), Some(vec![Num(max)]))
        } else {
            (None, None)
        };
        self.json.push_accessor(&Accessor {
            buffer_view: Some(view),
            byte_offset: Some(offset),
            component_type: FLOAT,
            count,
            kind: kind.into(),
            min,
            max,
            ..Default::default()
        })
    }

    /// Adds an accessor of unsigned bytes (`SCALAR`) to the shared animation buffer view, then
    /// pads it to 4 so the next float accessor stays aligned.
    fn anim_bytes(&mut self, bytes: &[u8]) -> Result<usize> {
        let (start, view) = self.anim_view();
        let offset = self.bin.len() - start;
        self.bin.extend_from_slice(bytes);
        self.align();
        self.json.push_accessor(&Accessor {
            buffer_view: Some(view),
            byte_offset: Some(offset),
            component_type: UNSIGNED_BYTE,
            count: bytes.len(),
            kind: "SCALAR".into(),
            ..Default::default()
        })
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
            let byte_length = self.bin.len() - start;
            self.json.buffer_views.push(BufferView {
                buffer: 0,
                byte_offset: start,
                byte_length,
                ..Default::default()
            });
            self.align();
        }
    }

    /// An accessor in a buffer view of its own (after the animation view, which it closes).
    fn own_view(&mut self, bytes: &[u8], target: Option<u32>, accessor: Accessor) -> Result<usize> {
        self.close_anim();
        self.align();
        let view = BufferView {
            buffer: 0,
            byte_offset: self.bin.len(),
            byte_length: bytes.len(),
            target,
            ..Default::default()
        };
        self.bin.extend_from_slice(bytes);
        self.json.buffer_views.push(view);
        self.json.push_accessor(&Accessor { buffer_view: Some(self.json.buffer_views.len() - 1), ..accessor })
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

/// A node with a name and a local transform (only the parts that are not identity).
fn node_at_rest(name: &str, t: &Transform) -> Node {
    Node {
        name: Some(name.to_string()),
        translation: (t.translation != Vec3::ZERO).then(|| nums(t.translation.to_array())),
        rotation: (t.rotation != Quat::IDENTITY).then(|| nums(t.rotation.to_array())),
        scale: (t.scale != Vec3::ONE).then(|| nums(t.scale.to_array())),
        ..Default::default()
    }
}

/// One of the nodes animkit adds above the bones, known on import by its `role`.
fn helper_node(name: &str, role: &str, rest: &Transform) -> Node {
    let animkit = NodeExtras { role: Some(role.into()), ..Default::default() };
    Node { animkit: Some(animkit), ..node_at_rest(name, rest) }
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

/// The glTF extensions a visibility channel uses.
const VISIBILITY_EXTENSIONS: [&str; 2] = ["KHR_animation_pointer", "KHR_node_visibility"];

/// A `STEP` sampler and channel playing a visibility track on `node`'s `KHR_node_visibility`
/// through `KHR_animation_pointer`, or `None` when the track's times are not glTF key times
/// (strictly increasing, from 0) or it holds no visibility.
fn visibility_channel(
    out: &mut Builder,
    track: &Track,
    node: usize,
    sampler: usize,
) -> Result<Option<(Sampler, GltfChannel)>> {
    let Values::Visibility(states) = &track.values else { return Ok(None) };
    let times_ok = track.times.first().is_some_and(|&t| t >= 0.0) && track.times.is_sorted_by(|a, b| a < b);
    if !times_ok || states.len() != track.times.len() {
        return Ok(None);
    }
    let input = out.anim_times(&track.times)?;
    let output = out.anim_bytes(&states.iter().map(|&v| u8::from(v)).collect::<Vec<u8>>())?;
    let pointer = format!("/nodes/{node}/extensions/KHR_node_visibility/visible");
    let sampler_json = Sampler { input, output, interpolation: Some("STEP".into()) };
    let target = ChannelTarget {
        node: None,
        path: "pointer".into(),
        extensions: Some(TargetExtensions { animation_pointer: Some(AnimationPointer { pointer }) }),
    };
    Ok(Some((sampler_json, GltfChannel { sampler, target, animkit: None })))
}

fn extra_track(index: usize, track: &Track, reason: &str) -> Result<ExtraTrack> {
    let track = serde_json::to_value(track).map_err(|e| Error::unrepresentable(format!("track {index}: {e}")))?;
    Ok(ExtraTrack { index: Some(index), reason: reason.into(), track })
}

fn clip_extras(ci: usize, clip: &Clip) -> ClipExtras {
    ClipExtras {
        clip_index: Some(ci),
        name: Some(clip.name.clone()),
        duration: Some(Num(clip.duration)),
        looping: clip.looping,
        additive: clip.additive.then_some(true),
        frame_rate: clip.frame_rate.map(Num),
        tracks: Vec::new(),
    }
}

/// Exports a package with the glTF write options (`additive=keep|bake`: `additive`).
pub fn export_with(package: &Package, options: &crate::format::WriteOptions) -> Result<Exported> {
    let mode = super::additive::AdditiveMode::from_options(options)?;
    let (package, baked) = super::additive::prepare(package, mode)?;
    let mut exported = export(&package)?;
    exported.warnings.extend(baked);
    Ok(exported)
}

/// What a clip becomes: a glTF animation, or (without any node channel) its extras alone.
enum ClipJson {
    Animation(Animation),
    Empty(ClipExtras),
}

/// Writes the `animations`, each as text as soon as its clip is done; returns the clips without
/// any node channel (kept in the root extras). Bone `b` is node `base + b`; the nodes whose
/// `KHR_node_visibility` a channel animates are added to `visible_nodes`.
fn animations(
    package: &Package,
    skeleton: &Skeleton,
    base: usize,
    out: &mut Builder,
    warnings: &mut Vec<String>,
    visible_nodes: &mut BTreeSet<usize>,
) -> Result<Vec<ClipExtras>> {
    let mut empty_clips = Vec::new();
    for (ci, clip) in package.clips.iter().enumerate() {
        match clip_animation(ci, clip, skeleton, (base, visible_nodes), out, warnings)? {
            ClipJson::Animation(animation) => {
                out.json.push_animation(&animation)?;
            }
            ClipJson::Empty(extras) => empty_clips.push(extras),
        }
    }
    Ok(empty_clips)
}

/// An animation's channels and samplers so far, with what could not be a channel.
#[derive(Default)]
struct ClipParts {
    channels: Vec<GltfChannel>,
    samplers: Vec<Sampler>,
    extra_tracks: Vec<ExtraTrack>,
    /// The track already played on each (bone, channel).
    used: HashMap<(usize, Channel), usize>,
    notes: Vec<String>,
}

/// The glTF path of a transform channel (`None` for any other).
fn channel_path(channel: Channel) -> Option<&'static str> {
    match channel {
        Channel::Rotation => Some("rotation"),
        Channel::Translation => Some("translation"),
        Channel::Scale => Some("scale"),
        _ => None,
    }
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
    out: &mut Builder,
    warnings: &mut Vec<String>,
) -> Result<ClipJson> {
    let mut parts = ClipParts::default();
    for (ti, track) in clip.tracks.iter().enumerate() {
        let bone = match &track.target {
            Target::Bone(r) => skeleton.find(r),
            Target::Material { .. } => None,
        };
        let channel = track.channel();
        let reason = match (bone, channel_path(channel)) {
            (None, _) => Some(format!("{:?} track of a material target", channel)),
            (Some(_), None) => Some(format!("{:?} is not a glTF node channel", channel)),
            (Some(b), Some(_)) => parts.used.get(&(b, channel)).map(|&o| format!("same node and channel as track {o}")),
        };
        match (reason, bone) {
            (Some(reason), _) => {
                let node = bone.filter(|_| channel == Channel::Visibility).map(|b| base + b);
                non_channel_track(ti, track, node, &reason, out, &mut parts, visible_nodes)?
            }
            (None, Some(b)) => node_channel(ti, track, (b, base), skeleton, out, &mut parts)?,
            (None, None) => {}
        }
    }
    let mut extras = clip_extras(ci, clip);
    extras.tracks = parts.extra_tracks;
    if !parts.notes.is_empty() {
        let shown: Vec<_> = parts.notes.iter().take(3).cloned().collect();
        let more = parts.notes.len().saturating_sub(3);
        warnings.push(format!(
            "clip {ci} \"{}\": {}{}",
            clip.name,
            shown.join("; "),
            if more > 0 { format!("; and {more} more") } else { String::new() }
        ));
    }
    if parts.channels.is_empty() {
        warnings.push(format!("clip {ci} \"{}\" has no node channel: kept in extras only", clip.name));
        return Ok(ClipJson::Empty(extras));
    }
    Ok(ClipJson::Animation(Animation {
        name: Some(clip.name.clone()),
        channels: parts.channels,
        samplers: parts.samplers,
        animkit: Some(extras),
    }))
}

/// A track that is no transform channel of its own: kept in the extras, and a visibility track
/// of bone node `node` also played through `KHR_node_visibility`.
fn non_channel_track(
    ti: usize,
    track: &Track,
    node: Option<usize>,
    reason: &str,
    out: &mut Builder,
    parts: &mut ClipParts,
    visible_nodes: &mut BTreeSet<usize>,
) -> Result<()> {
    let played = match node {
        Some(n) => visibility_channel(out, track, n, parts.samplers.len())?.map(|pair| (n, pair)),
        None => None,
    };
    if let Some((n, (sampler, channel))) = played {
        parts.samplers.push(sampler);
        parts.channels.push(channel);
        visible_nodes.insert(n);
    } else {
        parts.notes.push(format!("track {ti} ({}, {:?}): {reason}", track.target.label(), track.channel()));
    }
    parts.extra_tracks.push(extra_track(ti, track, reason)?);
    Ok(())
}

/// A transform track of bone `b` (node `base + b`) as a channel and sampler, or (when its keys
/// cannot be glTF keys) kept in the extras.
fn node_channel(
    ti: usize,
    track: &Track,
    (b, base): (usize, usize),
    skeleton: &Skeleton,
    out: &mut Builder,
    parts: &mut ClipParts,
) -> Result<()> {
    let channel = track.channel();
    let path = channel_path(channel).unwrap_or_default();
    let prepared = match prepare(track) {
        Ok(p) => p,
        Err(reason) => {
            parts.notes.push(format!("track {ti} ({}): {reason}", track.target.label()));
            parts.extra_tracks.push(extra_track(ti, track, &reason)?);
            return Ok(());
        }
    };
    parts.used.insert((b, channel), ti);
    for n in &prepared.notes {
        parts.notes.push(format!("track {ti} ({} {path}): {n}", track.target.label()));
    }
    let input = out.anim_times(&prepared.times)?;
    let count = prepared.values.len() / prepared.comps;
    let kind = if prepared.comps == 4 { "VEC4" } else { "VEC3" };
    let output = out.anim_floats(&prepared.values, kind, count, false)?;
    parts.samplers.push(Sampler { input, output, interpolation: Some(prepared.interpolation.into()) });
    let target = ChannelTarget { node: Some(base + b), path: path.into(), extensions: None };
    let animkit = channel_extras(track, skeleton.bones.get(b), &prepared);
    parts.channels.push(GltfChannel { sampler: parts.samplers.len() - 1, target, animkit });
    Ok(())
}

/// What a channel's extras keep: the track's reference where it differs from its node's, and an
/// interpolation glTF's does not name.
fn channel_extras(track: &Track, bone: Option<&Bone>, prepared: &Prepared) -> Option<ChannelExtras> {
    let target = match (&track.target, bone) {
        (Target::Bone(r), Some(bone)) if *r != node_ref(bone) => Some(r.clone()),
        _ => None,
    };
    let natural = match (prepared.interpolation, track.channel()) {
        ("STEP", _) => Interpolation::Step,
        ("CUBICSPLINE", _) => Interpolation::CubicSpline,
        (_, Channel::Rotation) => Interpolation::Slerp,
        _ => Interpolation::Linear,
    };
    let interpolation = (track.interpolation != natural).then(|| interpolation_name(track.interpolation).to_string());
    (target.is_some() || interpolation.is_some()).then_some(ChannelExtras { target, interpolation })
}

/// The nodes: the Z-up node and the common root when wanted, then one per bone (bone `b` is node
/// `base + b`); and the scene's root nodes.
fn bone_nodes(skeleton: &Skeleton, z_up: bool, common_root: bool) -> Result<(Vec<Node>, Vec<usize>)> {
    let base = usize::from(z_up) + usize::from(common_root);
    let mut nodes = Vec::with_capacity(base + skeleton.bones.len() + 1);
    if z_up {
        let rotation = Transform { rotation: z_up_rotation(), ..Default::default() };
        nodes.push(Node { children: vec![1], ..helper_node(Z_UP_NODE, "up_axis_z", &rotation) });
    }
    if common_root {
        nodes.push(helper_node(COMMON_ROOT_NODE, "common_root", &Transform::default()));
    }
    let mut roots = Vec::new();
    for (i, bone) in skeleton.bones.iter().enumerate() {
        let ids = (bone.id.is_some() || bone.hash.is_some()).then_some(NodeExtras {
            id: bone.id,
            hash: bone.hash,
            role: None,
        });
        nodes.push(Node { animkit: ids, ..node_at_rest(&bone.name, &bone.rest) });
        match bone.parent {
            Some(p) => {
                // A validated skeleton lists parents first, so the parent's node exists.
                let parent = nodes.get_mut(base + p).ok_or_else(|| {
                    Error::unrepresentable(format!("bone {i} '{}': parent {p} is not an earlier bone", bone.name))
                })?;
                parent.children.push(base + i);
            }
            None => roots.push(base + i),
        }
    }
    if common_root {
        // The common root is the node just before the bones (node 1 under Z-up, else node 0).
        if let Some(node) = base.checked_sub(1).and_then(|i| nodes.get_mut(i)) {
            node.children = roots;
        }
        roots = vec![0];
    }
    Ok((nodes, roots))
}

/// The bones' global rest transforms (under the Z-up rotation when `z_up`).
fn global_rest(skeleton: &Skeleton, z_up: bool) -> Vec<Affine3A> {
    let root_xf = if z_up { Affine3A::from_quat(z_up_rotation()) } else { Affine3A::IDENTITY };
    let mut globals: Vec<Affine3A> = Vec::with_capacity(skeleton.bones.len());
    for bone in &skeleton.bones {
        let parent = bone.parent.and_then(|p| globals.get(p)).copied().unwrap_or(root_xf);
        globals.push(parent * affine(&bone.rest));
    }
    globals
}

/// The inverse bind matrices (`MAT4`, column-major) of bones at `globals`, as bytes.
fn inverse_bind_matrices(globals: &[Affine3A]) -> Vec<u8> {
    let mut ibm = Vec::with_capacity(64 * globals.len());
    for g in globals {
        let mut cols = glam::Mat4::from(g.inverse()).to_cols_array();
        // An affine inverse: make the last row exact for the validator.
        cols[3] = 0.0;
        cols[7] = 0.0;
        cols[11] = 0.0;
        cols[15] = 1.0;
        for c in cols {
            ibm.extend_from_slice(&c.to_le_bytes());
        }
    }
    ibm
}

/// The joint-marker mesh: one 1 cm triangle per joint at its rest position, fully weighted to it.
fn marker_mesh(out: &mut Builder, globals: &[Affine3A]) -> Result<Mesh> {
    let mut positions: Vec<f32> = Vec::with_capacity(9 * globals.len());
    for g in globals {
        let p = Vec3::from(g.translation);
        let s = 0.01;
        for v in [p, p + Vec3::new(s, 0.0, 0.0), p + Vec3::new(0.0, s, 0.0)] {
            positions.extend_from_slice(&v.to_array());
        }
    }
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for p in positions.as_chunks::<3>().0 {
        for ((lo, hi), &x) in min.iter_mut().zip(&mut max).zip(p) {
            *lo = lo.min(x);
            *hi = hi.max(x);
        }
    }
    let pos_bytes: Vec<u8> = positions.iter().flat_map(|f| f.to_le_bytes()).collect();
    let count = positions.len() / 3;
    let vertices =
        |component_type, kind: &str| Accessor { component_type, count, kind: kind.into(), ..Default::default() };
    let position = out.own_view(
        &pos_bytes,
        Some(ARRAY_BUFFER),
        Accessor { min: Some(nums(min).to_vec()), max: Some(nums(max).to_vec()), ..vertices(FLOAT, "VEC3") },
    )?;
    let wide = globals.len() > 255;
    let mut joint_bytes = Vec::new();
    let mut weight_bytes = Vec::new();
    for j in 0..globals.len() {
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
    let joints = out.own_view(&joint_bytes, Some(ARRAY_BUFFER), vertices(joint_type, "VEC4"))?;
    let weights = out.own_view(&weight_bytes, Some(ARRAY_BUFFER), vertices(FLOAT, "VEC4"))?;
    Ok(Mesh {
        name: "animkit_joint_markers",
        primitives: vec![Primitive { attributes: Attributes { position, joints, weights } }],
    })
}

/// The skin over every bone node (from node `base`), its carrier mesh and the node holding
/// both, placed as [`place_skinned_mesh`] says.
fn skin(out: &mut Builder, package: &Package, skeleton: &Skeleton, base: usize, roots: &mut Vec<usize>) -> Result<()> {
    let z_up = package.up_axis == UpAxis::Z;
    let joints: Vec<usize> = (0..skeleton.bones.len()).map(|i| base + i).collect();
    if joints.is_empty() {
        return Ok(());
    }
    let globals = global_rest(skeleton, z_up);
    let ibm = Accessor { component_type: FLOAT, count: joints.len(), kind: "MAT4".into(), ..Default::default() };
    let inverse_bind_matrices = Some(out.own_view(&inverse_bind_matrices(&globals), None, ibm)?);
    let mesh = marker_mesh(out, &globals)?;
    out.json.meshes.push(mesh);
    let first_root = roots.first().copied().filter(|_| roots.len() == 1 || z_up);
    let name = if package.name.is_empty() { "skeleton" } else { package.name.as_str() };
    out.json.skins.push(Skin { name: Some(name.into()), joints, inverse_bind_matrices, skeleton: first_root });
    let node = Node { name: Some("animkit_skinned_mesh".into()), mesh: Some(0), skin: Some(0), ..Default::default() };
    out.json.nodes.push(node);
    place_skinned_mesh(&mut out.json.nodes, roots, z_up);
    Ok(())
}

/// Puts the skinned mesh node (the last node) into the scene. Under `UpAxis::Z` it becomes a
/// child of the Z-up node (node 0): the inverse bind matrices hold the Z-up rotation, and
/// Blender's importer, which places the armature by the mesh's parent, applied it twice (the rest
/// pose lay on its back) while the mesh sat at the scene root. Viewers that follow the glTF
/// spec ignore a skinned mesh's parents, so the pose there is unchanged.
fn place_skinned_mesh(nodes: &mut [Node], roots: &mut Vec<usize>, z_up: bool) {
    let mesh = nodes.len() - 1;
    match nodes.first_mut().filter(|_| z_up) {
        Some(z_up_node) => z_up_node.children.push(mesh),
        None => roots.push(mesh),
    }
}

/// Exports a package to glTF JSON and one binary buffer.
pub fn export(package: &Package) -> Result<Exported> {
    let mut warnings: Vec<String> = super::additive::as_is_warning(package).into_iter().collect();
    let (skeleton, synthesized) = skeleton_for(package, &mut warnings)?;
    let z_up = package.up_axis == UpAxis::Z;
    // The validator wants the joints of a skin under one common root (SKIN_NO_COMMON_ROOT): flat
    // nodes and extra root nodes get one, as the Z-up node gives one.
    // Under Z-up, the bones hang from an identity common root below the Z-up node: Blender's
    // importer makes the joints' parent node the armature object and still places the bones by
    // their world transforms, so with the Z-up node as that parent its rotation applied twice
    // (a CryEngine rig lay on its back); with the identity node between, the rig stands.
    let common_root = z_up || skeleton.bones.iter().filter(|b| b.parent.is_none()).count() > 1;
    let base = usize::from(z_up) + usize::from(common_root);
    let mut out = Builder::default();
    let (nodes, mut roots) = bone_nodes(&skeleton, z_up, common_root)?;
    out.json.nodes = nodes;

    let mut visible_nodes = BTreeSet::new();
    let empty_clips = animations(package, &skeleton, base, &mut out, &mut warnings, &mut visible_nodes)?;
    out.close_anim();
    skin(&mut out, package, &skeleton, base, &mut roots)?;
    out.align();
    for &n in &visible_nodes {
        if let Some(node) = out.json.nodes.get_mut(n) {
            let visible = Some(NodeVisibility { visible: true });
            node.extensions = Some(NodeExtensions { node_visibility: visible });
        }
    }
    if !visible_nodes.is_empty() {
        out.json.extensions_used = VISIBILITY_EXTENSIONS.to_vec();
    }

    let Builder { mut json, bin, .. } = out;
    json.asset =
        Asset { version: "2.0".into(), generator: Some(concat!("animkit ", env!("CARGO_PKG_VERSION")).into()) };
    json.scene = Some(0);
    json.animkit = Some(RootExtras {
        version: Some(1),
        name: Some(package.name.clone()),
        up_axis: Some(if z_up { "z" } else { "y" }.into()),
        skeleton: Some(!synthesized),
        empty_clips,
    });
    json.scenes = vec![Scene { name: Some(package.name.clone()), nodes: roots }];
    if !bin.is_empty() {
        json.buffers = vec![Buffer { byte_length: bin.len(), uri: None }];
    }
    Ok(Exported { json, bin, warnings })
}
