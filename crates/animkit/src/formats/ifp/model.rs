//! IFP raw layer → model.
//!
//! Conventions applied at this boundary (`ifp.md` §4):
//! - ANPK stores the **conjugate** quaternion: x, y and z are negated on the way in. ANP2/ANP3
//!   store the engine value.
//! - Compressed frames: quaternion `i16/4096`, translation `i16/1024` m, time `i16/60` s.
//! - Quaternions are kept **as stored** (§6: "order and norms kept; normalise only on request"),
//!   so a rewrite through the model gives back the stored integers and float bits. The engine
//!   interpolates the stored values and normalises only the blended result (§4.1); 396 of 2.79 M
//!   retail ANP3 keys are off unit length by more than 1 %. [`ModelOptions::unit_rotations`]
//!   (`rotations=unit`) normalises them on read (a zero quaternion becomes the identity).
//! - Times stay **absolute** (the authored timeline) unless [`ModelOptions::engine_timeline`]:
//!   the engine plays each sequence from its first key, so a sequence whose first key is not 0
//!   runs `t₀` early in game; that option re-times each sequence to `tᵢ − t₀` (§4.2, §7.2).
//! - [`ModelOptions::in_place_root`] holds the root bone's horizontal position (§7.2): the root
//!   (tag 0, or a tagless bone named `Root`, `Normal` or `player`) carries the clump's motion.
//! - KRTS scale keys are dropped, as every game drops them (§4.4; 12,757 of 12,758 observed are 1),
//!   unless [`ModelOptions::keep_scale`] asks for them (§7.2: "scale channels only on request").
//! - Clip duration is the engine's `CalcTotalTime`: `max(0, max last key time)`.
//! - Rotations slerp (shortest arc), translations and scales lerp; equal times step.
//! - An object with zero frames animates nothing and yields no track.
//! - Bone ids: the stored tag, none for −1 (matched by name, and written back as −1); ANPK's
//!   48-byte form has no tag field, so its ped bones take the §4.5 table's tag (§7.1).
//! - The package is Z-up.

use std::collections::BTreeMap;

use glam::{Quat, Vec3, Vec4};

use super::bones::ped_tag;
use super::raw::*;
use crate::error::{Error, Result};
use crate::format::{ClipSummary, Limits, Summary, TrackSummary};
use crate::model::{BoneRef, Clip, Interpolation, Package, Target, Track, UpAxis, Values};
use crate::text::{latin1_until_nul, NameInterner};

/// How [`to_model`] lays out the keys, from the read parameters `timeline`, `root` and `scale`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ModelOptions {
    /// `timeline=engine`: every sequence starts at 0 (`tᵢ − t₀`), as the game plays it.
    /// The default, `timeline=authored`, keeps the stored times.
    pub engine_timeline: bool,
    /// `root=in-place`: the root bone's X and Y stay at its first key's (Z, the height, is kept),
    /// so a walk walks on the spot. The default, `root=keep`, keeps the root motion.
    pub in_place_root: bool,
    /// `scale=keep`: ANPK KRTS scale keys become scale tracks. The default, `scale=drop`, drops
    /// them as the games do.
    pub keep_scale: bool,
    /// `rotations=unit`: quaternions are normalised (a zero one becomes the identity). The
    /// default, `rotations=stored`, keeps the stored values, which a rewrite reproduces exactly.
    pub unit_rotations: bool,
}

impl ModelOptions {
    /// Reads `timeline=authored|engine`, `root=keep|in-place`, `scale=drop|keep` and
    /// `rotations=stored|unit`; other keys are not IFP's.
    pub(crate) fn from_params(params: &BTreeMap<String, String>) -> Result<Self> {
        let choice = |key, no, yes| choice(params, key, no, yes);
        Ok(ModelOptions {
            engine_timeline: choice("timeline", "authored", "engine")?,
            in_place_root: choice("root", "keep", "in-place")?,
            keep_scale: choice("scale", "drop", "keep")?,
            unit_rotations: choice("rotations", "stored", "unit")?,
        })
    }

    /// Whether [`ModelOptions::apply`] changes keys.
    fn reshapes(self) -> bool {
        self.unit_rotations || self.engine_timeline || self.in_place_root
    }

    /// Re-times, flattens and normalises one sequence's keys as asked.
    fn apply(self, bone: &BoneRef, keys: &mut Keys) {
        if self.unit_rotations {
            keys.rotations.iter_mut().for_each(|q| *q = unit(*q));
        }
        if let (true, Some(&t0)) = (self.engine_timeline, keys.times.first()) {
            keys.times.iter_mut().for_each(|t| *t -= t0);
        }
        if let (true, Some(translations)) = (self.in_place_root && is_root(bone), &mut keys.translations) {
            if let Some(&first) = translations.first() {
                translations.iter_mut().for_each(|v| (v.x, v.y) = (first.x, first.y));
            }
        }
    }

    /// Whether a key chunk of this kind yields a scale track.
    fn scale_of(self, kind: KeyKind) -> bool {
        kind == KeyKind::Rts && self.keep_scale
    }
}

/// A two-way setting `key=no|yes` (any case): whether it is `yes`; `no` when absent.
pub(crate) fn choice(params: &BTreeMap<String, String>, key: &str, no: &str, yes: &str) -> Result<bool> {
    match params.get(key).map(|v| v.to_ascii_lowercase()) {
        None => Ok(false),
        Some(v) if v == no => Ok(false),
        Some(v) if v == yes => Ok(true),
        Some(v) => Err(Error::unsupported(format!("{key}={v}: expected {no} or {yes}"))),
    }
}

/// Whether a bone is the ped root, which carries the clump's motion: HAnim tag 0, or without a tag
/// the root's name in any game (`Root` in VC and SA, `Normal` in some SA files, `player` in III).
fn is_root(bone: &BoneRef) -> bool {
    match bone.id {
        Some(id) => id == 0,
        None => bone.name.as_deref().is_some_and(|n| {
            let n = n.trim();
            ["root", "normal", "player"].iter().any(|r| n.eq_ignore_ascii_case(r))
        }),
    }
}

/// Decoded keys of one sequence or object.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Keys {
    pub times: Vec<f32>,
    pub rotations: Vec<Quat>,
    pub translations: Option<Vec<Vec3>>,
    pub scales: Option<Vec<Vec3>>,
}

impl Keys {
    fn with_capacity(n: usize, translation: bool, scale: bool) -> Self {
        Keys {
            times: Vec::with_capacity(n),
            rotations: Vec::with_capacity(n),
            translations: translation.then(|| Vec::with_capacity(n)),
            scales: scale.then(|| Vec::with_capacity(n)),
        }
    }
}

/// The first `M` little-endian i16 fields of a compressed frame, as f32; missing fields are 0.
/// Called on fixed-size frames, so the loop unrolls into plain loads.
#[inline]
fn i16_fields<const M: usize>(frame: &[u8]) -> [f32; M] {
    let mut out = [0.0; M];
    for (o, b) in out.iter_mut().zip(frame.as_chunks::<2>().0) {
        *o = f32::from(i16::from_le_bytes(*b));
    }
    out
}

/// The little-endian f32 fields of an uncompressed frame (up to 11); missing fields are 0.
#[inline]
fn f32_fields(frame: &[u8]) -> [f32; 11] {
    let mut out = [0.0; 11];
    for (o, b) in out.iter_mut().zip(frame.as_chunks::<4>().0) {
        *o = f32::from_le_bytes(*b);
    }
    out
}

/// A quaternion scaled to unit length; a zero (or non-finite) one becomes the identity.
fn unit(q: Quat) -> Quat {
    let v = Vec4::from(q);
    let len = v.length();
    if len > 0.0 && len.is_finite() {
        Quat::from_vec4(v / len)
    } else {
        Quat::IDENTITY
    }
}

/// The scale of a compressed rotation component: `i16 / 4096`, exact in f32 (a power of two).
const ROTATION_STEP: f32 = 1.0 / 4096.0;

/// A compressed time (1/60 s ticks) in seconds: `ticks / 60` correctly rounded to f32. Computed
/// as a product in f64, which rounds to the same f32 for every i16 (an exhaustive test checks
/// it) and is much cheaper than a division.
#[inline]
fn ticks_to_seconds(ticks: f32) -> f32 {
    (f64::from(ticks) * (1.0 / 60.0)) as f32
}

/// Decodes an ANP2/ANP3 sequence's frames: one loop per array and frame type over fixed-size
/// frames, so the loops are branch-free, need no bounds checks, and fill arrays allocated once
/// at their exact length.
#[inline]
pub(crate) fn decode_v2(kind: FrameType, bytes: &[u8]) -> Keys {
    #[inline(always)]
    fn decode<const N: usize>(frames: &[u8], float: bool, translation: bool) -> Keys {
        let (frames, _) = frames.as_chunks::<N>();
        if float {
            // x y z w time [tx ty tz]
            let fields = || frames.iter().map(|f| f32_fields(f));
            Keys {
                times: fields().map(|[_, _, _, _, t, ..]| t).collect(),
                rotations: fields().map(|[x, y, z, w, ..]| Quat::from_xyzw(x, y, z, w)).collect(),
                translations: translation
                    .then(|| fields().map(|[_, _, _, _, _, x, y, z, ..]| Vec3::new(x, y, z)).collect()),
                scales: None,
            }
        } else {
            // x y z w time [tx ty tz], all i16
            let times = frames.iter().map(|f| {
                let [.., t] = i16_fields::<5>(f);
                ticks_to_seconds(t)
            });
            let rotations = frames.iter().map(|f| {
                let [x, y, z, w] = i16_fields(f);
                Quat::from_xyzw(x, y, z, w) * ROTATION_STEP
            });
            let translations = frames.iter().map(|f| {
                let [.., x, y, z] = i16_fields::<8>(f);
                Vec3::new(x, y, z) / 1024.0
            });
            Keys {
                times: times.collect(),
                rotations: rotations.collect(),
                translations: translation.then(|| translations.collect()),
                scales: None,
            }
        }
    }
    match kind {
        FrameType::Rot => decode::<20>(bytes, true, false),
        FrameType::RotTrans => decode::<32>(bytes, true, true),
        FrameType::RotCompressed => decode::<10>(bytes, false, false),
        FrameType::RotTransCompressed => decode::<16>(bytes, false, true),
    }
}

/// Decodes an ANPK key chunk, conjugating the stored quaternions; KRTS scales only if `keep_scale`.
pub(crate) fn decode_anpk(kind: KeyKind, bytes: &[u8], keep_scale: bool) -> Keys {
    /// Frames of `N` bytes: x y z w [tx ty tz [sx sy sz]] time, all f32. One pass per array
    /// over fixed-size frames, so each loop is branch-free.
    fn decode<const N: usize>(frames: &[u8], keys: &mut Keys) {
        let fields = || frames.as_chunks::<N>().0.iter().map(|f| f32_fields(f));
        keys.rotations.extend(fields().map(|[x, y, z, w, ..]| Quat::from_xyzw(-x, -y, -z, w)));
        keys.times.extend(fields().map(|v| v.get(N / 4 - 1).copied().unwrap_or_default()));
        if let Some(t) = &mut keys.translations {
            t.extend(fields().map(|[_, _, _, _, x, y, z, ..]| Vec3::new(x, y, z)));
        }
        if let Some(s) = &mut keys.scales {
            s.extend(fields().map(|[.., x, y, z, _]| Vec3::new(x, y, z)));
        }
    }
    let n = bytes.len() / kind.size();
    let mut keys = Keys::with_capacity(n, kind != KeyKind::R, kind == KeyKind::Rts && keep_scale);
    match kind {
        KeyKind::R => decode::<20>(bytes, &mut keys),
        KeyKind::Rt => decode::<32>(bytes, &mut keys),
        KeyKind::Rts => decode::<44>(bytes, &mut keys),
    }
    keys
}

/// Checks that key times are finite and never decrease. The common, valid case is one
/// branch-free pass (NaN fails `a <= b`; sorted times between two finite ends are finite); the
/// message is built only on failure.
fn check_times(times: &[f32]) -> Result<(), String> {
    let sorted = times.iter().zip(times.iter().skip(1)).fold(true, |ok, (a, b)| ok & (a <= b));
    let finite_ends = times.first().is_none_or(|t| t.is_finite()) && times.last().is_none_or(|t| t.is_finite());
    if sorted && finite_ends {
        return Ok(());
    }
    let mut previous = f32::NEG_INFINITY;
    for (i, &t) in times.iter().enumerate() {
        if !t.is_finite() {
            return Err(format!("key {i} has time {t}"));
        }
        if t < previous {
            return Err(format!("key times decrease at key {i} ({t} after {previous})"));
        }
        previous = t;
    }
    Ok(())
}

/// Appends the tracks of one sequence: rotation, then translation and scale when present.
// Inlined into the decode loop, the decoded keys move into their tracks through registers
// instead of a stack copy (−4 % of read + to_model).
#[inline(always)]
fn push_tracks(tracks: &mut Vec<Track>, bone: BoneRef, keys: Keys) {
    let Keys { times, rotations, translations, scales } = keys;
    let target = Target::Bone(bone);
    let rotation = |target, times| Track {
        target,
        interpolation: Interpolation::Slerp,
        times,
        values: Values::Rotation(rotations),
    };
    let linear = |target, times, values| Track { target, interpolation: Interpolation::Linear, times, values };
    match (translations, scales) {
        (None, None) => tracks.push(rotation(target, times)),
        (Some(t), None) => {
            tracks.push(rotation(target.clone(), times.clone()));
            tracks.push(linear(target, times, Values::Translation(t)));
        }
        (None, Some(s)) => {
            tracks.push(rotation(target.clone(), times.clone()));
            tracks.push(linear(target, times, Values::Scale(s)));
        }
        (Some(t), Some(s)) => {
            tracks.push(rotation(target.clone(), times.clone()));
            tracks.push(linear(target.clone(), times.clone(), Values::Translation(t)));
            tracks.push(linear(target, times, Values::Scale(s)));
        }
    }
}

/// An animation as the model reads it, the same way in both versions: its nodes are sequences
/// (ANP2/ANP3) or objects (ANPK).
trait Animation {
    type Node;
    /// The interner of the nodes' fixed name buffers.
    type Names: Default;
    /// What a node is called in messages.
    const NODE: &'static str;
    fn name(&self) -> &[u8];
    fn nodes(&self) -> &[Self::Node];
    /// The bone a node animates; `index` is the node's index in the animation.
    fn bone(node: &Self::Node, index: usize, names: &mut Self::Names) -> BoneRef;
    /// A node's key count.
    fn key_count(node: &Self::Node) -> usize;
    /// The bytes of a node's frames: at least [`Animation::MIN_FRAME`] per key.
    fn frame_bytes(node: &Self::Node) -> usize;
    /// The smallest frame, in bytes.
    const MIN_FRAME: usize;
    /// The number of tracks a node yields: 0 when it animates nothing, else a rotation track and
    /// the translation and scale tracks it has.
    fn track_count(node: &Self::Node, options: ModelOptions) -> usize;
    fn keys(&self, node: &Self::Node, options: ModelOptions) -> Keys;
}

impl Animation for V2Animation {
    type Node = V2Sequence;
    type Names = NameInterner<24>;
    const NODE: &'static str = "sequence";
    fn name(&self) -> &[u8] {
        &self.name.0
    }
    fn nodes(&self) -> &[V2Sequence] {
        &self.sequences
    }
    /// The sequence's name, and its tag unless −1. The name is remembered under the tag, or
    /// without one under the sequence's index: animations of one file name a bone alike, but
    /// not always in the same order (in SA `ped.ifp`, a name matches the one last seen with
    /// the same tag for 93 % of the sequences, with the same index for 58 %).
    #[inline]
    fn bone(seq: &V2Sequence, index: usize, names: &mut NameInterner<24>) -> BoneRef {
        let id = (seq.bone_tag != -1).then_some(seq.bone_tag);
        let key = id.map_or(index, |tag| tag as usize);
        BoneRef { name: Some(names.name_at(key, &seq.name.0)), id, ..Default::default() }
    }
    #[inline]
    fn key_count(seq: &V2Sequence) -> usize {
        seq.frame_count()
    }
    #[inline]
    fn frame_bytes(seq: &V2Sequence) -> usize {
        seq.frames.len
    }
    /// Type 3 (`RotCompressed`).
    const MIN_FRAME: usize = 10;
    #[inline]
    fn track_count(seq: &V2Sequence, _: ModelOptions) -> usize {
        usize::from(seq.frames.len > 0) * (1 + usize::from(seq.frame_type.has_translation()))
    }
    #[inline(always)]
    fn keys(&self, seq: &V2Sequence, _: ModelOptions) -> Keys {
        decode_v2(seq.frame_type, self.sequences.of(seq))
    }
}

impl Animation for AnpkAnimation {
    type Node = AnpkObject;
    type Names = NameInterner<28>;
    const NODE: &'static str = "object";
    fn name(&self) -> &[u8] {
        &self.name.0
    }
    fn nodes(&self) -> &[AnpkObject] {
        &self.objects
    }
    /// The object's name, and the 44-byte form's tag unless −1 (a bone matched by name). The
    /// 48-byte form stores no tag: its ped bones get theirs from the §4.5 name table, which is
    /// what a tagged format (ANP3) needs to find them (§7.1). The name is remembered under the
    /// object's index (in VC `ped.ifp`, 74 % of the objects have the name last seen at theirs).
    fn bone(obj: &AnpkObject, index: usize, names: &mut NameInterner<28>) -> BoneRef {
        let name = names.name_at(index, &obj.name.0);
        let id = match obj.link {
            AnimLink::Tag(tag) => (tag != -1).then_some(tag),
            AnimLink::Tree { .. } => ped_tag(&name),
        };
        BoneRef { name: Some(name), id, ..Default::default() }
    }
    #[inline]
    fn key_count(obj: &AnpkObject) -> usize {
        obj.frame_count()
    }
    #[inline]
    fn frame_bytes(obj: &AnpkObject) -> usize {
        obj.key_len()
    }
    /// `KR00`.
    const MIN_FRAME: usize = 20;
    #[inline]
    fn track_count(obj: &AnpkObject, options: ModelOptions) -> usize {
        obj.keys.as_ref().map_or(0, |k| 1 + usize::from(k.id != KeyKind::R) + usize::from(options.scale_of(k.id)))
    }
    #[inline(always)]
    fn keys(&self, obj: &AnpkObject, options: ModelOptions) -> Keys {
        let bytes = self.objects.of(obj);
        obj.keys.as_ref().map_or_else(Keys::default, |k| decode_anpk(k.id, bytes, options.keep_scale))
    }
}

/// The number of tracks an animation yields (so its track list is allocated once, exactly).
fn track_count<A: Animation>(anim: &A, options: ModelOptions) -> usize {
    anim.nodes().iter().map(|n| A::track_count(n, options)).sum()
}

/// What `info` shows, one clip decoded at a time (so the whole model is never in memory): the
/// summary of [`to_model`]'s result, also for a file whose key times it would refuse.
pub(crate) fn summary(file: &IfpFile, options: ModelOptions) -> Result<Summary> {
    fn summaries<A: Animation>(animations: &[A], options: ModelOptions) -> Result<Vec<ClipSummary>> {
        let mut names = A::Names::default();
        let summary = |(ai, anim)| {
            let Clip { name, duration, tracks, .. } = clip(anim, ai, &mut names, options, false)?;
            let tracks =
                tracks.iter().map(|t| TrackSummary::new(&t.target, t.channel(), t.interpolation, t.key_count()));
            Ok(ClipSummary { name, duration_s: duration, tracks: tracks.collect() })
        };
        animations.iter().enumerate().map(summary).collect()
    }
    let clips = each_body!(&file.body, b => summaries(&b.animations, options)?);
    Ok(Summary { clips, skeleton_bones: None })
}

/// Converts a parsed file to the model.
pub(crate) fn to_model(file: &IfpFile, limits: &Limits, options: ModelOptions) -> Result<Package> {
    let (name, clips) = each_body!(&file.body, b => (&b.block_name.0[..], clips(&b.animations, limits, options)?));
    Ok(Package { name: latin1_until_nul(name), up_axis: UpAxis::Z, clips, skeleton: None })
}

/// Decodes every animation into a clip, within the key limit.
fn clips<A: Animation>(animations: &[A], limits: &Limits, options: ModelOptions) -> Result<Vec<Clip>> {
    check_key_limit(animations, limits)?;
    let mut names = A::Names::default();
    let mut clips = Vec::with_capacity(animations.len());
    for (ai, anim) in animations.iter().enumerate() {
        clips.push(clip(anim, ai, &mut names, options, true)?);
    }
    Ok(clips)
}

/// Fails when the animations hold more keys than the limit. Their frame bytes bound the key count
/// ([`Animation::MIN_FRAME`] bytes or more per key), so the common case sums lengths and never
/// divides; the keys are counted only when that bound exceeds the limit.
fn check_key_limit<A: Animation>(animations: &[A], limits: &Limits) -> Result<()> {
    let nodes = || animations.iter().flat_map(|a| a.nodes());
    let bytes: u64 = nodes().map(|n| A::frame_bytes(n) as u64).sum();
    if bytes / A::MIN_FRAME as u64 <= limits.max_keys {
        return Ok(());
    }
    let total_keys: u64 = nodes().map(|n| A::key_count(n) as u64).sum();
    if total_keys > limits.max_keys {
        let msg = format!("{total_keys} keys exceed the limit of {}", limits.max_keys);
        return Err(Error::new(crate::ErrorKind::Limit, None, msg));
    }
    Ok(())
}

/// Animation `ai` as a clip; with `check`, its key times must be finite and never decrease.
#[inline(always)]
fn clip<A: Animation>(anim: &A, ai: usize, names: &mut A::Names, options: ModelOptions, check: bool) -> Result<Clip> {
    let name = latin1_until_nul(anim.name());
    let mut tracks = Vec::with_capacity(track_count(anim, options));
    // The clip's length, `max(0, last key times)`, taken from the keys before they move into
    // their tracks (a pass over the tracks afterwards would load each time array again).
    let mut duration = 0.0f32;
    for (ni, node) in anim.nodes().iter().enumerate().filter(|(_, n)| A::track_count(n, options) > 0) {
        let bone = A::bone(node, ni, names);
        let mut keys = anim.keys(node, options);
        if options.reshapes() {
            options.apply(&bone, &mut keys);
        }
        if check {
            check_times(&keys.times).map_err(|m| {
                let at = format!("animation {ai} \"{name}\"");
                Error::new(crate::ErrorKind::Invalid, None, m).within(format!("{} {ni}", A::NODE)).within(at)
            })?;
        }
        duration = keys.times.last().map_or(duration, |&t| duration.max(t));
        push_tracks(&mut tracks, bone, keys);
    }
    Ok(Clip { name, duration, tracks, ..Default::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_conversion_is_the_correctly_rounded_quotient() {
        for t in i16::MIN..=i16::MAX {
            assert_eq!(ticks_to_seconds(f32::from(t)), f32::from(t) / 60.0, "{t} ticks");
        }
    }

    #[test]
    fn rotations_are_kept_as_stored_unless_unit_is_asked() {
        // Type 3 frame (4096, 0, 0, 4096, tick 6): stored q = (1, 0, 0, 1), |q| = √2.
        let mut frame = Vec::new();
        for v in [4096i16, 0, 0, 4096, 6] {
            frame.extend_from_slice(&v.to_le_bytes());
        }
        let keys = decode_v2(FrameType::RotCompressed, &frame);
        assert_eq!(keys.rotations, vec![Quat::from_xyzw(1.0, 0.0, 0.0, 1.0)]);
        assert_eq!(keys.times, vec![0.1]);
        let mut unit_keys = keys.clone();
        ModelOptions { unit_rotations: true, ..Default::default() }.apply(&BoneRef::named("b"), &mut unit_keys);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert!(Vec4::from(unit_keys.rotations[0]).abs_diff_eq(Vec4::new(h, 0.0, 0.0, h), 1e-7));
        assert_eq!(unit(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)), Quat::IDENTITY);
    }

    #[test]
    fn the_key_limit_counts_keys_exactly() {
        // ANP3, one animation, two type 4 sequences (16-byte frames) of 1 and 2 keys: 48 frame
        // bytes bound the count at 4 keys of the smallest frame; there are 3.
        let frames = [0u8; 32];
        let bytes = crate::formats::ifp::raw::tests::anp3(&[(4, 1, &frames[..16]), (4, 2, &frames)]);
        let file = IfpFile::read(&bytes, false).unwrap();
        let with_limit = |max_keys| to_model(&file, &Limits { max_keys, ..Default::default() }, Default::default());
        assert!(with_limit(4).is_ok() && with_limit(3).is_ok());
        assert!(with_limit(2).unwrap_err().to_string().contains("3 keys exceed the limit of 2"));
    }

    #[test]
    fn times_must_be_finite_and_non_decreasing() {
        assert!(check_times(&[]).is_ok());
        assert!(check_times(&[0.0, 0.0, 0.5, 1.0]).is_ok());
        assert_eq!(check_times(&[0.0, f32::NAN, 1.0]).unwrap_err(), "key 1 has time NaN");
        assert_eq!(check_times(&[f32::NEG_INFINITY, 0.0]).unwrap_err(), "key 0 has time -inf");
        assert_eq!(check_times(&[0.0, f32::INFINITY]).unwrap_err(), "key 1 has time inf");
        assert_eq!(check_times(&[0.0, 1.0, 0.5]).unwrap_err(), "key times decrease at key 2 (0.5 after 1)");
    }
}
