//! Tracks that hold a bone at its rest pose, and quaternion sign continuity.
//!
//! In glTF (and in every engine that falls back to the skeleton's pose) a bone without a track
//! stays at its rest pose, so a track that is constant and equal to the rest pose says nothing.
//! Where a track is present it can change meaning, though: an IFP translation replaces the
//! bone's offset, a partial (layered) clip whose other bones carry such tracks pins them.
//! Tools that key every joint on every channel (Blender's glTF exporter) produce them in bulk;
//! [`drop_constant_rest_tracks`] removes them and counts what it removed.

use glam::{Quat, Vec3, Vec4};

use super::{Channel, Clip, Interpolation, Skeleton, Transform, Values};

/// The largest difference of a rotation component (either quaternion sign) from the rest
/// rotation for a track to count as the rest pose.
pub const ROTATION_TOLERANCE: f32 = 1e-5;
/// The same for translations and scales, relative to the size of the value (at least 1).
pub const VECTOR_TOLERANCE: f32 = 1e-5;

/// How many tracks [`drop_constant_rest_tracks`] removed, per channel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DroppedRest {
    pub rotation: usize,
    pub translation: usize,
    pub scale: usize,
}

impl DroppedRest {
    pub fn total(&self) -> usize {
        self.rotation + self.translation + self.scale
    }

    /// One line for a modder, or `None` when nothing was dropped.
    pub fn summary(&self) -> Option<String> {
        if self.total() == 0 {
            return None;
        }
        let parts: Vec<String> =
            [("rotation", self.rotation), ("translation", self.translation), ("scale", self.scale)]
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(what, n)| format!("{n} {what}"))
                .collect();
        Some(format!("dropped {} constant tracks equal to the rest pose: {}", self.total(), parts.join(", ")))
    }
}

/// The rest pose of bone `index` of `skeleton`: what a writer whose format keys every bone
/// (EvilEngine SKB) stores for a channel without a track. Identity without a skeleton or bone.
pub fn rest_pose(skeleton: Option<&Skeleton>, index: usize) -> Transform {
    skeleton.and_then(|s| s.bones.get(index)).map_or_else(Transform::default, |b| b.rest)
}

fn rotation_at_rest(q: Quat, rest: Quat) -> bool {
    let (q, r) = (Vec4::from(q), Vec4::from(rest));
    (q - r).abs().max_element().min((q + r).abs().max_element()) <= ROTATION_TOLERANCE
}

fn vector_at_rest(v: Vec3, rest: Vec3) -> bool {
    (v - rest).abs().max_element() <= VECTOR_TOLERANCE * rest.abs().max_element().max(1.0)
}

/// Whether every key value of `values` is the rest value (cubic tracks: every value key, with
/// zero tangents). Non-transform channels are never "at rest".
fn constant_at_rest(values: &Values, interpolation: Interpolation, rest: &Transform) -> bool {
    let cubic = interpolation == Interpolation::CubicSpline;
    // For cubic tracks, values 0 and 2 of each key are tangents: they must vanish.
    let role = |i: usize| if cubic { i % 3 } else { 1 };
    match values {
        Values::Rotation(v) => v.iter().enumerate().all(|(i, &q)| match role(i) {
            1 => rotation_at_rest(q, rest.rotation),
            _ => Vec4::from(q).abs().max_element() <= ROTATION_TOLERANCE,
        }),
        Values::Translation(v) => v.iter().enumerate().all(|(i, &x)| match role(i) {
            1 => vector_at_rest(x, rest.translation),
            _ => vector_at_rest(x, Vec3::ZERO),
        }),
        Values::Scale(v) => v.iter().enumerate().all(|(i, &x)| match role(i) {
            1 => vector_at_rest(x, rest.scale),
            _ => vector_at_rest(x, Vec3::ZERO),
        }),
        _ => false,
    }
}

/// Removes the bone tracks of `clip` that are constant and equal to their bone's rest pose in
/// `skeleton` (tolerances [`ROTATION_TOLERANCE`], [`VECTOR_TOLERANCE`]). Tracks of bones the
/// skeleton does not hold, and tracks without keys, stay.
pub fn drop_constant_rest_tracks(clip: &mut Clip, skeleton: &Skeleton) -> DroppedRest {
    let mut dropped = DroppedRest::default();
    clip.tracks.retain(|track| {
        let Some(rest) = track.target.bone().and_then(|b| skeleton.find(b)).and_then(|i| skeleton.bones.get(i)) else {
            return true;
        };
        if track.values.is_empty() || !constant_at_rest(&track.values, track.interpolation, &rest.rest) {
            return true;
        }
        match track.channel() {
            Channel::Rotation => dropped.rotation += 1,
            Channel::Translation => dropped.translation += 1,
            Channel::Scale => dropped.scale += 1,
            _ => return true,
        }
        false
    });
    dropped
}

/// Makes rotation keys sign-continuous: each key (for a cubic track, each value with its two
/// tangents) is negated when it lies in the other hemisphere from the previous key's value
/// (`q` and `−q` are the same rotation). Returns how many keys were negated.
pub fn make_rotations_continuous(values: &mut [Quat], interpolation: Interpolation) -> usize {
    let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
    let mut previous: Option<Quat> = None;
    let mut flipped = 0;
    for key in values.chunks_mut(per_key) {
        // The key's value: the middle of a cubic key, the only value otherwise.
        let Some(&value) = key.get(per_key / 2) else { continue };
        if previous.is_some_and(|p| p.dot(value) < 0.0) {
            key.iter_mut().for_each(|q| *q = -*q);
            flipped += 1;
        }
        previous = key.get(per_key / 2).copied();
    }
    flipped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Bone, BoneRef, Target, Track};

    fn track(name: &str, values: Values) -> Track {
        let n = values.len();
        let interpolation =
            if matches!(values, Values::Rotation(_)) { Interpolation::Slerp } else { Interpolation::Linear };
        Track {
            target: Target::Bone(BoneRef::named(name)),
            interpolation,
            times: (0..n).map(|i| i as f32).collect(),
            values,
        }
    }

    #[test]
    fn only_tracks_constant_at_the_rest_pose_are_dropped() {
        let rest =
            Transform { translation: Vec3::new(0.0, 2.0, 0.0), rotation: Quat::from_rotation_x(0.5), scale: Vec3::ONE };
        let skeleton = Skeleton { bones: vec![Bone { name: "Spine".into(), rest, ..Default::default() }] };
        let q = rest.rotation;
        let mut clip = Clip {
            tracks: vec![
                // −q is the rest rotation too; 1e-6 off is within the tolerance.
                track("Spine", Values::Rotation(vec![q, -q, q * Quat::from_rotation_y(1e-6)])),
                track("Spine", Values::Translation(vec![Vec3::new(0.0, 2.0, 0.0); 3])),
                track("Spine", Values::Scale(vec![Vec3::ONE; 2])),
                // Moves by 1e-3: kept.
                track("Spine", Values::Translation(vec![Vec3::new(0.0, 2.0, 0.0), Vec3::new(0.0, 2.001, 0.0)])),
                // Constant, but not the rest: kept.
                track("Spine", Values::Rotation(vec![Quat::IDENTITY; 2])),
                // Not in the skeleton: kept.
                track("Other", Values::Scale(vec![Vec3::ONE])),
            ],
            ..Default::default()
        };
        let dropped = drop_constant_rest_tracks(&mut clip, &skeleton);
        assert_eq!(dropped, DroppedRest { rotation: 1, translation: 1, scale: 1 });
        assert_eq!(clip.tracks.len(), 3);
        assert_eq!(
            dropped.summary().unwrap(),
            "dropped 3 constant tracks equal to the rest pose: 1 rotation, 1 translation, 1 scale"
        );
    }

    #[test]
    fn rotations_are_made_sign_continuous() {
        let a = Quat::from_rotation_z(0.1);
        let b = Quat::from_rotation_z(0.2);
        let mut keys = vec![a, -b, b, -a];
        assert_eq!(make_rotations_continuous(&mut keys, Interpolation::Slerp), 2);
        assert_eq!(keys, [a, b, b, a]);
        // Cubic: the tangents follow their value.
        let t = Quat::from_xyzw(0.0, 0.0, 0.1, 0.0);
        let mut keys = vec![t, a, t, t, -b, t];
        assert_eq!(make_rotations_continuous(&mut keys, Interpolation::CubicSpline), 1);
        assert_eq!(keys, [t, a, t, -t, b, -t]);
    }
}
