//! Model → IFP raw layer, in canonical form (`ifp.md` §6 and §7).
//!
//! Tracks are grouped per bone into one sequence (ANP3) or object (ANPK) whose frames carry a
//! rotation and, when the bone has a translation track, a translation. Where the model's tracks
//! of a bone do not share their key times and a linear rule, they are resampled at the union of
//! their key times; a step becomes two keys at the same time (which the engine plays as a step);
//! a cubic track adds samples on a 1/60 s grid. Encoding of compressed frames: time
//! `round_half_away(t·60)`, rotation `round_half_away(q·4096)`, translation
//! `round_half_away(v·1024)`, each checked against the i16 range (a value that rounds to one
//! step past it saturates). Rounding to nearest keeps every key within half a step of the model
//! value; values decoded from i16 frames encode back to the same integers (the engine's own
//! encoder truncates, `ifp.md` §4.3, which costs up to a whole step).
//!
//! Quaternions are written as the model holds them: no normalisation (§6 "order and norms kept").
//! Bone tags: the track's id, else −1 (matched by name, §4.5). A stored −1 stays −1; a reader
//! that knows no tag for a bone (ANPK's 48-byte form) gives the model the §4.5 table's tag.

use glam::{Quat, Vec3};

use super::canonical::{canonicalize, padded_name, until_nul};
use super::model::choice;
use super::raw::*;
use crate::error::{Error, Result};
use crate::format::WriteOptions;
use crate::model::{BoneRef, Channel, Clip, Interpolation, Package, Skeleton, Target, Track};
use crate::raw_json::{FixedName, FourCc, Hex};
use crate::sample::{sample_track, sample_track_left, Sampled};
use crate::text::fixed_name;

/// Options for writing IFP from the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BuildOptions {
    /// `ANP3` or `ANPK`.
    pub anpk: bool,
    /// ANP3 only: write float frames (types 1/2) for every animation.
    pub uncompressed: bool,
    /// `overflow=error`: a value that does not fit a compressed (i16) frame fails the write; by
    /// default that animation is written with float frames (types 1/2, flags 0) and a warning.
    pub overflow_error: bool,
}

impl BuildOptions {
    /// Reads `variant` (`anp3`, `anpk`) and the params `compression=auto|none` and
    /// `overflow=uncompressed|error` (any case).
    pub(crate) fn from_write_options(o: &WriteOptions) -> Result<Self> {
        let anpk = match o.variant.as_deref() {
            None | Some("anp3") | Some("ifp") => false,
            Some("anpk") => true,
            Some(v) => return Err(Error::unsupported(format!("unknown IFP variant \"{v}\" (anp3 or anpk)"))),
        };
        let uncompressed = choice(&o.params, "compression", "auto", "none")?;
        let overflow_error = choice(&o.params, "overflow", "uncompressed", "error")?;
        Ok(BuildOptions { anpk, uncompressed, overflow_error })
    }
}

/// One engine frame before encoding.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Frame {
    time: f32,
    rotation: Quat,
    translation: Option<Vec3>,
    scale: Option<Vec3>,
}

/// The frames of one bone.
struct BoneFrames {
    bone: BoneRef,
    frames: Vec<Frame>,
}

/// The tracks of one bone.
#[derive(Default)]
struct BoneTracks<'a> {
    rotation: Option<&'a Track>,
    translation: Option<&'a Track>,
    scale: Option<&'a Track>,
}

impl<'a> BoneTracks<'a> {
    fn all(&self) -> impl Iterator<Item = &'a Track> {
        [self.rotation, self.translation, self.scale].into_iter().flatten()
    }
}

/// Builds an IFP file from the model; returns it with warnings about what was approximated.
pub(crate) fn from_model(package: &Package, options: BuildOptions) -> Result<(IfpFile, Vec<String>)> {
    let mut warnings = Vec::new();
    let block = fixed_name::<24>(&package.name).ok_or_else(|| {
        Error::unrepresentable(format!("package name \"{}\" is not 1–23 Latin-1 bytes", package.name))
    })?;
    let mut clips = Vec::with_capacity(package.clips.len());
    for clip in &package.clips {
        let bones = clip_frames(clip, package.skeleton.as_ref(), &mut warnings)
            .map_err(|e| e.within(format!("clip \"{}\"", clip.name)))?;
        clips.push((clip, bones));
    }
    let mut body = if options.anpk {
        let animations = clips.iter().map(|(clip, bones)| anpk_animation(clip, bones)).collect::<Result<_>>()?;
        let (info, block_name) = (ChunkHeader::new(b"INFO", 0), padded_name(until_nul(&block)));
        Body::Anpk(Anpk { size: 0, info, block_name, animations })
    } else {
        let animations = clips.iter().map(|(clip, bones)| anp3_animation(clip, bones, options, &mut warnings));
        Body::Anp3(V2 { size: 0, block_name: FixedName(block), animations: animations.collect::<Result<_>>()? })
    };
    canonicalize(&mut body);
    Ok((IfpFile { body, tail: Hex::default(), salvage: None }, warnings))
}

/// `name` in an `N`-byte buffer; the games keep 23 bytes and a NUL of any name (`ifp.md` §4.5).
fn name_bytes<const N: usize>(name: &str, what: &str) -> Result<[u8; N]> {
    fixed_name::<N>(name).ok_or_else(|| {
        Error::unrepresentable(format!("{what} name \"{name}\" does not fit {} Latin-1 bytes and a NUL", N - 1))
    })
}

fn bone_name(bone: &BoneRef) -> String {
    bone.name.as_deref().map_or_else(|| bone.label(), str::to_string)
}

/// Groups a clip's tracks per bone and turns each group into engine frames.
fn clip_frames(clip: &Clip, skeleton: Option<&Skeleton>, warnings: &mut Vec<String>) -> Result<Vec<BoneFrames>> {
    let mut groups: Vec<(BoneRef, BoneTracks)> = Vec::new();
    let mut skipped = 0;
    for track in &clip.tracks {
        track.validate().map_err(|m| Error::unrepresentable(m).within(format!("track {}", track.target.label())))?;
        let Target::Bone(bone) = &track.target else {
            skipped += 1;
            continue;
        };
        let i = groups.iter().position(|(b, _)| b == bone).unwrap_or_else(|| {
            groups.push((bone.clone(), BoneTracks::default()));
            groups.len() - 1
        });
        let Some((_, tracks)) = groups.get_mut(i) else {
            continue;
        };
        let slot = match track.channel() {
            Channel::Rotation => &mut tracks.rotation,
            Channel::Translation => &mut tracks.translation,
            Channel::Scale => &mut tracks.scale,
            _ => {
                skipped += 1;
                continue;
            }
        };
        if slot.is_some() {
            warnings.push(format!(
                "clip \"{}\": second {:?} track of {} ignored",
                clip.name,
                track.channel(),
                bone.label()
            ));
        } else if track.key_count() > 0 {
            *slot = Some(track);
        }
    }
    if skipped > 0 {
        warnings
            .push(format!("clip \"{}\": {skipped} non-transform track(s) dropped: IFP animates bones only", clip.name));
    }
    let animated = groups.into_iter().filter(|(_, tracks)| tracks.all().next().is_some());
    let frames_of = |(bone, tracks): (BoneRef, BoneTracks)| {
        let rest = skeleton
            .and_then(|s| s.find(&bone).and_then(|i| s.bones.get(i)))
            .map_or(Quat::IDENTITY, |b| b.rest.rotation);
        BoneFrames { frames: bone_frames(&tracks, rest, clip, &bone, warnings), bone }
    };
    Ok(animated.map(frames_of).collect())
}

/// Whether a track can be copied key for key into engine frames (linear rule, no cubic tangents).
fn is_linear(track: &Track) -> bool {
    matches!(track.interpolation, Interpolation::Linear | Interpolation::Slerp | Interpolation::Nlerp)
}

fn bone_frames(tracks: &BoneTracks, rest: Quat, clip: &Clip, bone: &BoneRef, warnings: &mut Vec<String>) -> Vec<Frame> {
    let first = tracks.all().next().map(|t| &t.times);
    if tracks.all().all(|t| Some(&t.times) == first && is_linear(t)) {
        // Same times and a linear rule: copy keys by index, so repeated times keep both values.
        let n = first.map_or(0, Vec::len);
        return (0..n).map(|i| key_frame(tracks, i, rest)).collect();
    }
    warnings.push(format!("clip \"{}\": {} resampled to shared key times", clip.name, bone.label()));
    let sample =
        |track: &Track, t: f32, left: bool| if left { sample_track_left(track, t) } else { sample_track(track, t) };
    let vec3 = |track: Option<&Track>, t: f32, left: bool| match track.and_then(|tr| sample(tr, t, left)) {
        Some(Sampled::Translation(v) | Sampled::Scale(v)) => Some(v),
        _ => None,
    };
    let frame = |time: f32, left: bool| Frame {
        time,
        rotation: match tracks.rotation.and_then(|r| sample(r, time, left)) {
            Some(Sampled::Rotation(q)) => q,
            _ => rest,
        },
        translation: vec3(tracks.translation, time, left),
        scale: vec3(tracks.scale, time, left),
    };
    let events = event_times(tracks).into_iter();
    events.flat_map(|(t, left)| [left.then(|| frame(t, true)), Some(frame(t, false))]).flatten().collect()
}

/// The frame made of key `i` of every track (all tracks share their times).
fn key_frame(tracks: &BoneTracks, i: usize, rest: Quat) -> Frame {
    use crate::model::Values;
    let time = tracks.all().next().and_then(|t| t.times.get(i).copied()).unwrap_or(0.0);
    let vec3 = |t: Option<&Track>| match t.map(|t| &t.values) {
        Some(Values::Translation(v) | Values::Scale(v)) => v.get(i).copied(),
        _ => None,
    };
    let rotation = match tracks.rotation.map(|t| &t.values) {
        Some(Values::Rotation(v)) => v.get(i).copied().unwrap_or(rest),
        _ => rest,
    };
    Frame { time, rotation, translation: vec3(tracks.translation), scale: vec3(tracks.scale) }
}

/// The union of the tracks' key times (plus a 1/60 s grid over cubic tracks, whose keys are
/// moved onto it), each with whether the value just before it differs (a step key or a repeated
/// time): then the frame list gets an extra key at the same time holding the left value.
fn event_times(tracks: &BoneTracks) -> Vec<(f32, bool)> {
    let mut times: Vec<f32> = Vec::new();
    for track in tracks.all() {
        if track.interpolation != Interpolation::CubicSpline {
            times.extend_from_slice(&track.times);
        } else if let (Some(&a), Some(&b)) = (track.times.first(), track.times.last()) {
            // A cubic track's own keys between grid points (a BFRES rotation keyed at a quarter
            // frame) go to the nearest tick, the only times a compressed frame can hold.
            times.extend(track.times.iter().map(|&t| (t * 60.0).round() / 60.0));
            let steps = ((b - a) * 60.0).floor() as usize;
            times.extend((1..steps).map(|k| a + k as f32 / 60.0));
        }
    }
    times.sort_by(f32::total_cmp);
    times.dedup();
    times
        .into_iter()
        .map(|t| {
            let left = tracks.all().any(|tr| {
                let i = tr.times.partition_point(|&x| x < t);
                let repeated = tr.times.get(i + 1) == Some(&t);
                let step_key = tr.interpolation == Interpolation::Step && i > 0 && tr.times.get(i) == Some(&t);
                repeated || step_key
            });
            (t, left)
        })
        .collect()
}

/// `round_half_away(t·60)` as i16 ticks.
fn ticks(t: f32) -> Option<i16> {
    let v = (f64::from(t) * 60.0).round();
    (v >= f64::from(i16::MIN) && v <= f64::from(i16::MAX)).then_some(v as i16)
}

/// `round_half_away(v·scale)` as i16. A value within half a step past either end of the range
/// saturates to that end; anything further (or NaN) is `None`.
fn fixed(v: f32, scale: f32) -> Option<i16> {
    let x = f64::from(v) * f64::from(scale);
    let (min, max) = (f64::from(i16::MIN), f64::from(i16::MAX));
    (x >= min - 0.5 && x <= max + 0.5).then(|| x.round().clamp(min, max) as i16)
}

/// A frame's fields in ANP2/ANP3 order: q×4, time, and translation×3 when `translation`.
fn v2_fields(f: &Frame, translation: bool) -> impl Iterator<Item = f32> {
    let t = f.translation.unwrap_or(Vec3::ZERO).to_array().into_iter().take(if translation { 3 } else { 0 });
    f.rotation.to_array().into_iter().chain([f.time]).chain(t)
}

/// Encodes frames as compressed type 3/4 bytes, or says which value does not fit.
fn encode_compressed(frames: &[Frame], translation: bool) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(frames.len() * if translation { 16 } else { 10 });
    for (k, f) in frames.iter().enumerate() {
        for (i, c) in v2_fields(f, translation).enumerate() {
            let (v, what, unit, limit) = match i {
                0..=3 => (fixed(c, 4096.0), "rotation component", "", "7.99"),
                4 => (ticks(c), "time", " s", "546.1"),
                _ => (fixed(c, 1024.0), "translation", " m", "31.999"),
            };
            let v = v.ok_or_else(|| format!("key {k}: {what} {c}{unit} exceeds ±{limit}{unit}"))?;
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    Ok(out)
}

/// Encodes frames as float type 1/2 bytes (time before translation).
fn encode_float(frames: &[Frame], translation: bool) -> Vec<u8> {
    frames.iter().flat_map(|f| v2_fields(f, translation)).flat_map(f32::to_le_bytes).collect()
}

/// A frame's fields in ANPK order: the conjugate q×4, translation×3 and scale×3 as `kind` holds
/// them, time.
fn anpk_fields(f: &Frame, kind: KeyKind) -> impl Iterator<Item = f32> {
    let (q, t, s) = (f.rotation, f.translation.unwrap_or(Vec3::ZERO), f.scale.unwrap_or(Vec3::ONE));
    let vectors = t.to_array().into_iter().chain(s.to_array()).take(kind.size() / 4 - 5);
    [-q.x, -q.y, -q.z, q.w].into_iter().chain(vectors).chain([f.time])
}

/// One clip as an ANP3 animation: compressed frames unless asked otherwise or a value overflows
/// them (then float frames and a warning, or an error with `overflow=error`).
fn anp3_animation(
    clip: &Clip,
    bones: &[BoneFrames],
    options: BuildOptions,
    warnings: &mut Vec<String>,
) -> Result<V2Animation> {
    let within = |e: Error| e.within(format!("clip \"{}\"", clip.name));
    for b in bones.iter().filter(|b| b.frames.iter().any(|f| f.scale.is_some_and(|s| !s.abs_diff_eq(Vec3::ONE, 1e-4))))
    {
        warnings.push(format!("clip \"{}\": scale of {} dropped: ANP3 has no scale", clip.name, b.bone.label()));
    }
    let translation = |b: &BoneFrames| b.frames.iter().any(|f| f.translation.is_some());
    let encode = |b: &BoneFrames| encode_compressed(&b.frames, translation(b)).map_err(|why| (b.bone.label(), why));
    let encoded = match (!options.uncompressed).then(|| bones.iter().map(encode).collect::<Result<Vec<_>, _>>()) {
        None => None,
        Some(Ok(encoded)) => Some(encoded),
        Some(Err((bone, why))) if options.overflow_error => {
            let msg = format!("{bone}: {why} (compressed frames); write with overflow=uncompressed");
            return Err(within(Error::unrepresentable(msg)));
        }
        Some(Err((bone, why))) => {
            warnings.push(format!("clip \"{}\": {bone}: {why}; animation written uncompressed", clip.name));
            None
        }
    };
    let compressed = encoded.is_some();
    let encoded = encoded.unwrap_or_else(|| bones.iter().map(|b| encode_float(&b.frames, translation(b))).collect());
    let (mut sequences, mut data) = (Vec::with_capacity(bones.len()), Vec::new());
    for (b, bytes) in bones.iter().zip(encoded) {
        let kind = match (compressed, translation(b)) {
            (true, false) => FrameType::RotCompressed,
            (true, true) => FrameType::RotTransCompressed,
            (false, false) => FrameType::Rot,
            (false, true) => FrameType::RotTrans,
        };
        let name = FixedName(name_bytes::<24>(&bone_name(&b.bone), "bone").map_err(within)?);
        let frames = Frames::push(&bytes, &mut data);
        sequences.push(V2Sequence { name, bone_tag: b.bone.id.unwrap_or(-1), frame_type: kind, frames });
    }
    let name = FixedName(name_bytes::<24>(&clip.name, "animation")?);
    Ok(V2Animation { name, frame_data_size: 0, flags: 0, sequences: Nodes::new(sequences, data) })
}

/// One clip as an ANPK animation: KRTS, KRT0 or KR00 keys per bone, as its frames carry scale
/// and translation.
fn anpk_animation(clip: &Clip, bones: &[BoneFrames]) -> Result<AnpkAnimation> {
    let name = name_bytes::<24>(&clip.name, "animation")?;
    let (mut objects, mut data) = (Vec::with_capacity(bones.len()), Vec::new());
    for b in bones {
        let obj_name = name_bytes::<28>(&bone_name(&b.bone), "bone")
            .and_then(|n| name_bytes::<24>(&bone_name(&b.bone), "bone").map(|_| n))
            .map_err(|e| e.within(format!("clip \"{}\"", clip.name)))?;
        let kind = if b.frames.iter().any(|f| f.scale.is_some()) {
            KeyKind::Rts
        } else if b.frames.iter().any(|f| f.translation.is_some()) {
            KeyKind::Rt
        } else {
            KeyKind::R
        };
        let bytes: Vec<u8> = b.frames.iter().flat_map(|f| anpk_fields(f, kind)).flat_map(f32::to_le_bytes).collect();
        let n = b.frames.len() as i32;
        let keys = (n > 0).then(|| KeyChunk { size: 0, id: kind, frames: Frames::push(&bytes, &mut data) });
        objects.push(AnpkObject {
            cpan: ChunkHeader::new(b"CPAN", 0),
            anim_id: FourCc(*b"ANIM"),
            name: FixedName(obj_name),
            unknown: 0,
            last_frame: n - 1,
            link: AnimLink::Tag(b.bone.id.unwrap_or(-1)),
            keys,
        });
    }
    Ok(AnpkAnimation {
        name_chunk: ChunkHeader::new(b"NAME", 0),
        name: padded_name(until_nul(&name)),
        dgan: ChunkHeader::new(b"DGAN", 0),
        info: ChunkHeader::new(b"INFO", 8),
        info_extra: Hex(vec![0; 4]),
        objects: Nodes::new(objects, data),
    })
}

#[cfg(test)]
mod tests {
    use super::fixed;

    #[test]
    fn fixed_rounds_to_nearest_and_saturates_half_a_step_past_the_range() {
        assert_eq!(fixed(0.99987, 4096.0), Some(4095)); // 4095.47 → 4095
        assert_eq!(fixed(0.99990, 4096.0), Some(4096)); // 4095.59 → 4096 (truncation gave 4095)
        assert_eq!(fixed(-0.00020, 4096.0), Some(-1)); // −0.82 → −1 (truncation gave 0)
        assert_eq!(fixed(1.5 / 1024.0, 1024.0), Some(2)); // a tie rounds away from zero
        assert_eq!(fixed(32767.5 / 1024.0, 1024.0), Some(32767));
        assert_eq!(fixed(-32768.5 / 1024.0, 1024.0), Some(-32768));
        assert_eq!(fixed(32767.6 / 1024.0, 1024.0), None);
        assert_eq!(fixed(f32::NAN, 1024.0), None);
    }
}
