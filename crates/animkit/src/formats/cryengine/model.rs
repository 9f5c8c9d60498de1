//! Chunk file → model (`cryengine.md` §6, §8).
//!
//! - A CAF / i_caf becomes one clip; a DBA one clip per animation record; a `.chr` a package
//!   with a [`Skeleton`] (bones in file order, `hash` = controller id, local bind pose).
//! - Key times: `(frame − start)/fps`, fps 30 unless a Timing 0x919 chunk states another rate;
//!   `start` is the MotionParameters start frame (compressed CAFs; PQLog/PQS keys already start
//!   at 0).
//! - Rotations [`Interpolation::Nlerp`] (the engine's nlerp with hemisphere flip), with the
//!   engine's pairwise flips folded into the keys once ([`continuous`]); positions and scales
//!   [`Interpolation::Linear`].
//! - Tracks target `BoneRef { hash: controller id, name }`; names come from a BoneNameList
//!   (name *i* belongs to controller chunk *i*), else stay unset until [`name_tracks`] applies a
//!   skeleton.
//! - Duration: MotionParameters `(end − start)/30`, else GAHCAF `totalDuration`, else Timing
//!   0x919 `(count − 1)/rate`, else the last key. Additive (asset flag 0x001) and cycle (0x002)
//!   flags map to `additive` and `looping`. The package is Z-up, metres.

use super::chunkfile::{kind, Chunk, ChunkFile, Container};
use super::controller::{self, Controller, FLAG_ADDITIVE, FLAG_CYCLE};
use super::quat_codecs::continuous;
use super::raw::{Body, GlobalAnimationHeaderCaf, MotionParams, TimingSamples};
use super::{dba, ivo, skeleton};
use crate::bytes::Endian;
use crate::error::{Context, Error, ErrorKind, Result};
use crate::format::Limits;
use crate::model::{BoneRef, Clip, Interpolation, Package, Skeleton, Target, Track, UpAxis, Values};
use crate::text::latin1_until_nul;

/// Everything the model, `info` and `check` need from a classic chunk file, decoded in one walk.
#[derive(Debug, Default)]
pub struct Contents {
    pub controllers: Vec<Controller>,
    /// The chunk index of each controller.
    pub controller_chunks: Vec<usize>,
    /// The BoneNameList's chunk index and names.
    pub bone_names: Option<(usize, Vec<String>)>,
    pub motion: Option<MotionParams>,
    /// GlobalAnimationHeaderCAF chunks: one in a CAF, one per clip in an `.img`.
    pub gahs: Vec<GlobalAnimationHeaderCaf>,
    /// Timing 0x919: the `.i_caf` sample rate (0x918 gives nothing the model uses).
    pub timing: Option<TimingSamples>,
    /// The skeleton of a CompiledBones chunk.
    pub bones: Option<Skeleton>,
    pub dba: Option<dba::Dba>,
    /// Chunks that do not decode, with their index (lenient decoding only).
    pub undecoded: Vec<(usize, Error)>,
}

/// Decodes the chunks the model uses; unknown chunks are skipped. With `lenient`, chunks that
/// do not decode are kept in `undecoded` instead of failing (lint reports them).
pub fn contents_with(file: &ChunkFile, lenient: bool) -> Result<Contents> {
    let mut out = Contents::default();
    // Most chunks of an animation are controllers: reserved once rather than grown.
    out.controllers.reserve(file.chunks.len());
    out.controller_chunks.reserve(file.chunks.len());
    for (i, ch) in file.chunks.iter().enumerate() {
        match add_chunk(&mut out, i, ch, file.container) {
            Err(e) if lenient => out.undecoded.push((i, e)),
            r => r.within(|| ch.label(i))?,
        }
    }
    Ok(out)
}

fn add_chunk(out: &mut Contents, i: usize, ch: &Chunk, container: Container) -> Result<()> {
    let (version, endian) = ch.version_and_endian(container);
    let is_controller = ch.kind(container) == kind::CONTROLLER;
    if let (Body::Bytes { hex }, true, 0x905, Endian::Little) = (&ch.body, is_controller, version, endian) {
        // Decoded straight from the payload, without the raw layer's track arrays.
        out.dba = Some(dba::read(hex, ch.payload_offset())?);
        return Ok(());
    }
    match ch.structure(container)?.as_ref() {
        Body::MotionParameters(m) => out.motion = Some(**m),
        Body::GlobalAnimationHeaderCaf(g) => out.gahs.push(**g),
        Body::TimingSamples(t) => out.timing = Some(*t),
        Body::BoneNameList { names, .. } => out.bone_names = Some((i, names.clone())),
        Body::CompiledBones { bones, .. } => out.bones = Some(skeleton::to_skeleton(bones)?),
        Body::Dba(d) => out.dba = Some(dba::from_raw(d, ch.payload_offset())?),
        body => match controller::from_body(version, body, ch.payload_offset()) {
            Some(c) => {
                out.controllers.push(c?);
                out.controller_chunks.push(i);
            }
            None if is_controller => {
                return Err(
                    Error::unsupported(format!("controller version 0x{version:X}")).within(format!("at {}", ch.offset))
                )
            }
            None => {}
        },
    }
    Ok(())
}

/// Appends the tracks of one controller, its key arrays moved into them: frames become
/// seconds `(frame − start)/fps` in place.
fn push_tracks(tracks: &mut Vec<Track>, target: Target, ctrl: Controller, start: f32, fps: f32) {
    let times = |mut f: Vec<f32>| {
        f.iter_mut().for_each(|x| *x = (*x - start) / fps);
        f
    };
    if let Some(r) = ctrl.rotation.filter(|r| !r.frames.is_empty()) {
        let values = Values::Rotation(r.values);
        tracks.push(Track {
            target: target.clone(),
            interpolation: Interpolation::Nlerp,
            times: times(r.frames),
            values,
        });
    }
    if let Some(p) = ctrl.position.filter(|p| !p.frames.is_empty()) {
        let values = Values::Translation(p.values);
        tracks.push(Track {
            target: target.clone(),
            interpolation: Interpolation::Linear,
            times: times(p.frames),
            values,
        });
    }
    if let Some(s) = ctrl.scale.filter(|s| !s.frames.is_empty()) {
        let values = Values::Scale(s.values);
        tracks.push(Track { target, interpolation: Interpolation::Linear, times: times(s.frames), values });
    }
}

/// The tracks of one clip's controllers (CAF, DBA animation or `#ivo` block), in order, their key
/// arrays moved into them: frames become `(frame − start)/fps` seconds, rotations are made
/// [`continuous`] (a DBA's, version 0x905, already are), controller *i* takes bone name *i*.
/// The keys count against the limit.
fn clip_tracks(
    controllers: impl ExactSizeIterator<Item = Controller>,
    names: Option<&[String]>,
    (start, fps): (f32, f32),
    keys: &mut u64,
    limits: &Limits,
) -> Result<Vec<Track>> {
    let mut tracks = Vec::with_capacity(2 * controllers.len());
    for (i, mut ctrl) in controllers.enumerate() {
        *keys += key_count(&ctrl) as u64;
        if *keys > limits.max_keys {
            return Err(Error::new(ErrorKind::Limit, None, format!("more than {} keys", limits.max_keys)));
        }
        if let Some(r) = ctrl.rotation.as_mut().filter(|_| ctrl.version != 0x905) {
            r.values = continuous(std::mem::take(&mut r.values));
        }
        push_tracks(&mut tracks, bone(ctrl.id, names.and_then(|n| n.get(i))), ctrl, start, fps);
    }
    Ok(tracks)
}

/// The key count of a controller.
fn key_count(ctrl: &Controller) -> usize {
    ctrl.rotation.as_ref().map_or(0, |t| t.frames.len())
        + ctrl.position.as_ref().map_or(0, |t| t.frames.len())
        + ctrl.scale.as_ref().map_or(0, |t| t.frames.len())
}

/// The target of a controller's tracks.
fn bone(id: u32, name: Option<&String>) -> Target {
    Target::Bone(BoneRef { name: name.map(|n| n.as_str().into()), hash: Some(id), ..Default::default() })
}

fn stem(path: &str) -> String {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    file.rsplit_once('.').map_or(file, |(s, _)| s).to_string()
}

/// The file stem of `path`, or `fallback` when it is empty.
fn stem_or(path: &str, fallback: impl FnOnce() -> String) -> String {
    Some(stem(path)).filter(|s| !s.is_empty()).unwrap_or_else(fallback)
}

/// A clip named `name` with asset flags `flags` (cycle: looping; additive) and its duration 0.
fn clip(name: String, flags: Option<u32>, fps: f32, tracks: Vec<Track>) -> Clip {
    let (looping, additive) = (flags.map(|f| f & FLAG_CYCLE != 0), flags.is_some_and(|f| f & FLAG_ADDITIVE != 0));
    Clip { name, looping, additive, frame_rate: Some(fps), tracks, ..Default::default() }
}

/// How to decode what a file leaves open (the CryEngine read options).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Decoding {
    /// Leave out controllers and other chunks that do not decode instead of failing (lint
    /// reports them).
    pub lenient: bool,
    /// The `#ivo` C2 position layout (`ivo_c2=`); `None` decides it once per file.
    pub c2_layout: Option<ivo::C2Layout>,
}

/// Converts a chunk file, decoding as `decoding` says.
pub fn to_model_with(file: &ChunkFile, limits: &Limits, decoding: Decoding) -> Result<Package> {
    if file.container == Container::Ivo {
        return ivo_to_model(file, limits, decoding.c2_layout);
    }
    let mut c = contents_with(file, decoding.lenient)?;
    let mut package = Package { up_axis: UpAxis::Z, skeleton: c.bones.take(), ..Default::default() };
    let mut keys = 0u64;
    for a in c.dba.as_mut().map(|d| std::mem::take(&mut d.animations)).unwrap_or_default() {
        let m = &a.motion;
        let controllers = a.controllers.into_iter().map(|k| Controller::keyed(k.id, 0x905, k.rotation, k.position));
        let tracks = clip_tracks(controllers, None, (m.start as f32, 30.0), &mut keys, limits)?;
        let duration = ((i64::from(m.end) - i64::from(m.start)) as f32 / 30.0).max(0.0);
        package.clips.push(Clip { duration, ..clip(stem(&a.path), Some(m.asset_flags), 30.0, tracks) });
    }
    if !c.controllers.is_empty() {
        let controllers = std::mem::take(&mut c.controllers);
        package.clips.push(caf_clip(&c, controllers, limits, &mut keys)?);
    } else if c.dba.is_none() {
        package.clips.extend(header_only_clips(&c, limits)?);
    }
    if let Some(skel) = &package.skeleton {
        name_tracks(&mut package.clips, skel);
    }
    Ok(package)
}

/// Converts an `#ivo` CAF or DBA to the model (C2 layout as in [`ivo::parse`]).
fn ivo_to_model(file: &ChunkFile, limits: &Limits, c2_layout: Option<ivo::C2Layout>) -> Result<Package> {
    let anim = ivo::parse(file, c2_layout)?;
    let mut package = Package { up_axis: UpAxis::Z, ..Default::default() };
    let mut keys = 0u64;
    for (i, b) in anim.blocks.into_iter().enumerate() {
        let m = anim.meta.get(i);
        let fps = match (anim.info, m) {
            (Some(info), _) if info.fps > 0 => f32::from(info.fps),
            (_, Some(m)) if m.head.fps > 0 => f32::from(m.head.fps),
            _ => 30.0,
        };
        let controllers = b.controllers.into_iter().map(|k| Controller::keyed(k.hash, 0x900, k.rotation, k.position));
        let tracks = clip_tracks(controllers, None, (0.0, fps), &mut keys, limits)?;
        let name = stem_or(m.map_or("", |m| &m.path), || format!("animation_{i}"));
        let mut clip = clip(name, None, fps, tracks);
        let end = anim.info.map(|x| x.end_frame).or(m.and_then(|m| m.end_frame));
        clip.duration = match end {
            Some(e) if e > 0 => e as f32 / fps,
            _ => clip.last_key_time(),
        };
        package.clips.push(clip);
    }
    Ok(package)
}

/// The clips of a file with animation headers but no controller (an `.img` of
/// GlobalAnimationHeaderCAF chunks, a CAF stripped of its keys): one per header, each with no
/// tracks, so a conversion can see that there is nothing to play ([`super::survey`] says so in
/// `info` and `check`).
fn header_only_clips(c: &Contents, limits: &Limits) -> Result<Vec<Clip>> {
    if c.gahs.len() > 1 {
        return Ok(c
            .gahs
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let duration = if g.total_duration.0.is_finite() { g.total_duration.0.max(0.0) } else { 0.0 };
                let name = stem_or(&latin1_until_nul(&g.path.0), || format!("animation_{i}"));
                Clip { duration, ..clip(name, Some(g.flags), 30.0, Vec::new()) }
            })
            .collect());
    }
    // Timing alone is no animation header: geometry and skeleton files carry one too.
    if c.motion.is_none() && c.gahs.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![caf_clip(c, Vec::new(), limits, &mut 0)?])
}

/// The frame rate and start frame of a CAF's key times.
fn caf_timebase(c: &Contents, controllers: &[Controller]) -> (f32, f32) {
    let fps = match &c.timing {
        Some(t) if t.rate.0.is_finite() && t.rate.0 > 0.0 => t.rate.0,
        _ => 30.0,
    };
    let compressed =
        controllers.iter().any(|k| matches!(k.version, 0x829 | 0x831 | 0x832) && k.rotation_formats.is_some());
    let start = match (&c.motion, c.gahs.first()) {
        _ if !compressed => 0.0,
        (Some(m), _) => m.start as f32,
        (None, Some(g)) if g.start_sec.0.is_finite() => g.start_sec.0 * 30.0,
        _ => 0.0,
    };
    (fps, start)
}

fn caf_clip(c: &Contents, controllers: Vec<Controller>, limits: &Limits, keys: &mut u64) -> Result<Clip> {
    let (fps, start) = caf_timebase(c, &controllers);
    let names = c.bone_names.as_ref().map(|(_, names)| names.as_slice());
    let tracks = clip_tracks(controllers.into_iter(), names, (start, fps), keys, limits)?;
    let gah = c.gahs.first();
    let flags = c.motion.map(|m| m.asset_flags).or(gah.map(|g| g.flags));
    let name = stem_or(&gah.map(|g| latin1_until_nul(&g.path.0)).unwrap_or_default(), || "animation".into());
    let mut clip = clip(name, flags, fps, tracks);
    clip.duration = match (&c.motion, gah, &c.timing) {
        (Some(m), _, _) if m.end >= m.start => (i64::from(m.end) - i64::from(m.start)) as f32 / 30.0,
        (_, Some(g), _) if g.total_duration.0.is_finite() && g.total_duration.0 > 0.0 => g.total_duration.0,
        (_, _, Some(t)) if t.rate.0 > 0.0 && t.samples >= 1 => (t.samples - 1) as f32 / t.rate.0,
        _ => clip.last_key_time(),
    };
    Ok(clip)
}

/// Names every track whose hash matches a skeleton bone (case-preserved CRC-32 controller ids;
/// the byte-swapped id some tools write is tried too, §10.3). Unmatched hashes stay.
pub fn name_tracks(clips: &mut [Clip], skeleton: &Skeleton) {
    use super::quat_codecs::controller_id as crc;
    let matchers: [fn(&crate::model::Bone, u32) -> bool; 4] = [
        |bone, h| bone.hash == Some(h),
        |bone, h| bone.hash == Some(h.swap_bytes()),
        |bone, h| crc(&bone.name) == h,
        |bone, h| crc(&bone.name.to_lowercase()) == h,
    ];
    let unnamed = clips.iter_mut().flat_map(|c| &mut c.tracks).filter_map(|t| match &mut t.target {
        Target::Bone(b) if b.name.is_none() => Some(b),
        _ => None,
    });
    for b in unnamed {
        let Some(h) = b.hash else { continue };
        if let Some(bone) = matchers.iter().find_map(|m| skeleton.bones.iter().find(|bone| m(bone, h))) {
            b.name = Some(bone.name.as_str().into());
        }
    }
}
