//! What a clip read from an FSKA or FSHU remembers of its storage ([`StoredFska`],
//! [`StoredFshu`], kept in the clip's [`crate::model::Stored`]), so that writing it back as BFRES
//! keeps the curves of every FSKA channel that did not change (their key frames, curve types, key
//! types, scale and offset), the bone flags, user data and bones without channels of an FSKA that
//! did not change at all, and an unchanged FSHU as it was.
//!
//! Re-encoding instead would fit new curves to the model's keys, which are cubic quaternion keys
//! at the union of the angle curves' frames for Euler rotations ([`super::euler`]): an unchanged
//! Breath of the Wild file grows by 20–130 % that way, and its keys move by up to a step.
//!
//! A track is unchanged when its interpolation, times and values are bit for bit those the reader
//! gave (a fingerprint of them is kept per track). The curves are kept only when they mean the
//! same thing where they are written: the same frame rate (the track's times are frames / fps),
//! the same frame count (wrap modes repeat curves up to it), and for rotations the same rotation
//! mode (Euler angles or quaternion components).

use std::hash::{Hash, Hasher};

use super::fshu::Fshu;
use super::fska::{BoneAnim, Fska, RotateMode};
use crate::model::{Channel, Clip, Target, Track, Values};

/// A subfile as read, with what identifies the tracks its clip was given.
#[derive(Debug)]
pub(crate) struct StoredSubfile<T> {
    /// The subfile as read.
    pub(crate) subfile: T,
    /// The frame rate the clip was read at.
    pub(crate) fps: f32,
    /// Per track of the clip as read, in order: target, channel, fingerprint.
    tracks: Vec<(String, Channel, u64)>,
}

/// An FSKA as read.
pub(crate) type StoredFska = StoredSubfile<Fska>;

/// An FSHU as read, with its index group (3 shader param, 4 colour, 5 texture SRT): written
/// again as it was when none of its clip's tracks changed.
pub(crate) type StoredFshu = StoredSubfile<(usize, Fshu)>;

/// The channels an FSKA stores: bone rotation, translation and scale.
fn bone_channel(track: &Track) -> Option<(String, Channel)> {
    match (&track.target, &track.values) {
        (Target::Bone(b), Values::Rotation(_) | Values::Translation(_) | Values::Scale(_)) => {
            Some((b.label(), track.channel()))
        }
        _ => None,
    }
}

/// A hash of a track's interpolation, times and values (their bits). FxHash adds each word and
/// multiplies by an odd constant, so a change to any one value always changes the hash; values go
/// in two to a word, at two instructions a word (SipHash took a quarter of reading a large file).
fn fingerprint(track: &Track) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    track.interpolation.hash(&mut h);
    let mut floats = |v: &[f32]| {
        let (pairs, rest) = v.as_chunks::<2>();
        pairs.iter().for_each(|[a, b]| h.write_u64(u64::from(a.to_bits()) | u64::from(b.to_bits()) << 32));
        rest.iter().for_each(|x| h.write_u32(x.to_bits()));
    };
    floats(&track.times);
    match &track.values {
        Values::Rotation(q) => q.iter().for_each(|q| floats(&q.to_array())),
        Values::Translation(v) | Values::Scale(v) => v.iter().for_each(|v| floats(&v.to_array())),
        Values::Scalar(v) => floats(v),
        Values::TextureIndex { indices, textures } => (indices, textures).hash(&mut h),
        Values::Visibility(v) => v.hash(&mut h),
    }
    h.finish()
}

/// The tracks of a clip as `(target, channel, fingerprint)`, in order.
fn identify(clip: &Clip) -> Vec<(String, Channel, u64)> {
    clip.tracks.iter().map(|t| (t.target.label(), t.channel(), fingerprint(t))).collect()
}

/// Keeps `subfile`, what `clip` was read from at `fps` ([`StoredFska`], [`StoredFshu`]), in the clip.
pub(crate) fn remember<T: std::fmt::Debug + Send + Sync + 'static>(clip: &mut Clip, subfile: T, fps: f32) {
    let tracks = identify(clip);
    clip.stored = crate::model::Stored::new(StoredSubfile { subfile, fps, tracks });
}

impl StoredFshu {
    /// The FSHU `clip` was read from and its index group, renamed as the clip, when every track
    /// of the clip is one read, unchanged, its frame count and looping too, written at `fps`.
    pub(crate) fn unchanged(clip: &Clip, fps: f32, frame_count: i32) -> Option<(usize, Fshu)> {
        let s = clip.stored.get::<StoredFshu>()?;
        let (group, fshu) = &s.subfile;
        let looping = clip.looping == Some(fshu.flags & 4 != 0);
        let same = s.fps == fps && fshu.frame_count == frame_count && looping && identify(clip) == s.tracks;
        same.then(|| (*group, Fshu { name: clip.name.clone(), ..fshu.clone() }))
    }
}

/// One channel's storage: its base value (when the bone stores one) and its curves.
pub(crate) struct KeptChannel<'a> {
    pub(crate) base: Option<&'a [f32]>,
    pub(crate) curves: &'a [super::curve::Curve],
}

impl StoredFska {
    /// The record of `clip` when its curves can be written at `fps` for `frame_count` frames.
    pub(crate) fn of(clip: &Clip, fps: f32, frame_count: i32) -> Option<&StoredFska> {
        clip.stored.get::<StoredFska>().filter(|s| s.fps == fps && s.subfile.frame_count == frame_count)
    }

    /// Whether the clip's bone tracks are the ones read, all of them, in order.
    pub(crate) fn whole(&self, clip: &Clip) -> bool {
        identify(clip) == self.tracks
    }

    /// The rotation mode of the FSKA read.
    pub(crate) fn euler(&self) -> bool {
        self.subfile.rotate_mode() == RotateMode::EulerXyz
    }

    /// Whether `track` is one the clip was read with, unchanged.
    pub(crate) fn unchanged(&self, track: &Track) -> bool {
        let Some((bone, channel)) = bone_channel(track) else { return false };
        let print = fingerprint(track);
        self.tracks.iter().any(|(b, c, f)| *b == bone && *c == channel && *f == print)
    }

    /// The stored bone animation called `name`.
    pub(crate) fn bone(&self, name: &str) -> Option<&BoneAnim> {
        self.subfile.bones.iter().find(|b| b.name == name)
    }

    /// The stored base and curves of `track`'s channel when the track is unchanged (and, for a
    /// rotation, the FSKA being written stores rotations as the one read did: `euler`).
    pub(crate) fn channel(&self, track: &Track, euler: bool) -> Option<KeptChannel<'_>> {
        let (bone, channel) = bone_channel(track)?;
        if !self.unchanged(track) || (channel == Channel::Rotation && euler != self.euler()) {
            return None;
        }
        let b = self.bone(&bone)?;
        let (base, targets) = match channel {
            Channel::Scale => (b.scale.as_ref().map(|v| &v[..]), 0x04..=0x0C),
            Channel::Rotation => (b.rotate.as_ref().map(|v| &v[..]), 0x20..=0x2C),
            _ => (b.translate.as_ref().map(|v| &v[..]), 0x10..=0x18),
        };
        // Curves follow the flag-bit order (§7.1): scale, rotation, translation.
        let first = b.curves.iter().position(|c| targets.contains(&c.target)).unwrap_or(0);
        let count = b.curves.iter().filter(|c| targets.contains(&c.target)).count();
        Some(KeptChannel { base, curves: b.curves.get(first..first + count)? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BoneRef, Interpolation};
    use glam::Vec3;

    fn track(x: f32) -> Track {
        Track {
            target: Target::Bone(BoneRef::named("a")),
            interpolation: Interpolation::CubicSpline,
            times: vec![0.0],
            values: Values::Translation(vec![Vec3::ZERO, Vec3::X * x, Vec3::ZERO]),
        }
    }

    #[test]
    fn a_changed_value_changes_the_fingerprint() {
        assert_eq!(fingerprint(&track(1.0)), fingerprint(&track(1.0)));
        assert_ne!(fingerprint(&track(1.0)), fingerprint(&track(1.0 + f32::EPSILON)));
        let mut step = track(1.0);
        step.interpolation = Interpolation::Step;
        assert_ne!(fingerprint(&track(1.0)), fingerprint(&step));
    }
}
