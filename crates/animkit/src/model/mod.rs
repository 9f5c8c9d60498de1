//! The engine-neutral model every format converts to and from.
//!
//! A [`Package`] holds [`Clip`]s; a clip holds [`Track`]s; a track targets one thing (a bone or a
//! material property) and carries one channel of keys. Conventions, for every format:
//!
//! - **Times** are seconds, non-decreasing. Two keys at the same time make a step.
//! - **Quaternions** are `x y z w`, active (they rotate vectors), Hamilton, relative to the
//!   parent: the glTF convention. Each format converts its own convention at its boundary, but
//!   keeps the stored values otherwise: quantised keys are not always unit length (GTA, EvilEngine
//!   SKB), and are normalised only where the engine does it, or on request, so that a rewrite in
//!   the same format gives back the stored keys. Consumers that need unit quaternions (glTF)
//!   normalise.
//! - **Units** are the source's (metres for GTA and CryEngine); the package says which axis is up.
//! - **Cubic** tracks store three values per key, as glTF does: in-tangent, value, out-tangent,
//!   with tangents in units per second.

mod bone_ref;
pub mod rekey;
pub(crate) mod rest;
mod skeleton;
mod stored;

pub use bone_ref::BoneRef;
pub use skeleton::{Bone, Skeleton, Transform};
pub use stored::Stored;

use std::sync::Arc;

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

/// A set of clips read from one file, with an optional skeleton.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Package {
    /// The package's own name (IFP block name, archive name), empty when the format has none.
    pub name: String,
    /// Which axis points up in the source's coordinate system.
    pub up_axis: UpAxis,
    /// The clips, in file order.
    pub clips: Vec<Clip>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The hierarchy the tracks bind to, when the file has one (or one was given).
    pub skeleton: Option<Skeleton>,
}

/// The up axis of a source coordinate system. glTF is Y-up; exporters add one correcting node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum UpAxis {
    #[default]
    /// Y up (glTF).
    Y,
    /// Z up (GTA, CryEngine, Blender).
    Z,
}

/// One animation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Clip {
    /// The clip's name.
    pub name: String,
    /// Length in seconds as the engine computes it (not always the last key time).
    pub duration: f32,
    /// Whether the clip loops, when the file says so; `None` when looping is decided elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub looping: Option<bool>,
    /// True when the keys are relative to a reference pose rather than absolute local transforms.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub additive: bool,
    /// The source's frame rate, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_rate: Option<f32>,
    /// The animated channels.
    pub tracks: Vec<Track>,
    /// How the source file stored the clip, for an exact rewrite in the same format ([`Stored`]);
    /// empty for clips not read from a file, and ignored by every other format.
    #[serde(skip)]
    pub stored: Stored,
}

/// One animated channel of one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Track {
    /// What the track animates.
    pub target: Target,
    /// How values between keys are computed.
    pub interpolation: Interpolation,
    /// Key times in seconds, non-decreasing.
    pub times: Vec<f32>,
    /// Key values: one per time, or three per time (in-tangent, value, out-tangent) for
    /// [`Interpolation::CubicSpline`].
    pub values: Values,
}

/// What a track animates.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Target {
    /// A bone or node of a hierarchy.
    Bone(BoneRef),
    /// A property of a material: a texture sampler, a texture transform component, visibility.
    ///
    /// The names are shared (`Arc<str>`): a material has many animated properties.
    Material {
        /// The material's name.
        material: Arc<str>,
        /// The property: a texture sampler's name, or `parameter.component` of a shader parameter.
        property: Arc<str>,
    },
}

/// The key values of a track, one variant per channel kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Values {
    /// Unit quaternions `x y z w`, glTF convention.
    Rotation(Vec<Quat>),
    /// Translations in the format's units.
    Translation(Vec<Vec3>),
    /// Scale factors per axis.
    Scale(Vec<Vec3>),
    /// Plain numbers (a texture transform component, a material parameter).
    Scalar(Vec<f32>),
    /// Indices into `textures`. The texture list is shared: a texture-pattern animation gives
    /// every track the same one.
    TextureIndex {
        /// Indices into `textures`, one per key.
        indices: Vec<u32>,
        /// The texture names the indices point into.
        textures: Arc<[String]>,
    },
    /// Whether the target is shown, per key.
    Visibility(Vec<bool>),
}

/// The channel kind of a track, without its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Channel {
    /// A rotation.
    Rotation,
    /// A translation.
    Translation,
    /// A scale.
    Scale,
    /// A plain number.
    Scalar,
    /// A texture index.
    TextureIndex,
    /// Visibility.
    Visibility,
}

/// How values between keys are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Interpolation {
    /// Hold each key until the next.
    Step,
    /// Component-wise linear interpolation (for rotations, this is the same as `Slerp`).
    Linear,
    /// Shortest-arc spherical interpolation of quaternions.
    Slerp,
    /// Linear interpolation of quaternions on the shorter arc, then normalised (CryEngine).
    Nlerp,
    /// Cubic Hermite spline with explicit tangents (glTF `CUBICSPLINE`).
    CubicSpline,
}

impl Values {
    /// The channel kind these values belong to.
    pub fn channel(&self) -> Channel {
        match self {
            Values::Rotation(_) => Channel::Rotation,
            Values::Translation(_) => Channel::Translation,
            Values::Scale(_) => Channel::Scale,
            Values::Scalar(_) => Channel::Scalar,
            Values::TextureIndex { .. } => Channel::TextureIndex,
            Values::Visibility(_) => Channel::Visibility,
        }
    }

    /// The number of stored values (three per key for cubic tracks).
    pub fn len(&self) -> usize {
        match self {
            Values::Rotation(v) => v.len(),
            Values::Translation(v) | Values::Scale(v) => v.len(),
            Values::Scalar(v) => v.len(),
            Values::TextureIndex { indices, .. } => indices.len(),
            Values::Visibility(v) => v.len(),
        }
    }

    /// Whether the track has no key.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Track {
    /// The channel kind of the track.
    pub fn channel(&self) -> Channel {
        self.values.channel()
    }

    /// The number of keys.
    pub fn key_count(&self) -> usize {
        self.times.len()
    }

    /// Checks the invariants every format relies on: values per key, non-decreasing finite times.
    pub fn validate(&self) -> Result<(), String> {
        let per_key = if self.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        if self.values.len() != self.times.len() * per_key {
            return Err(format!(
                "{} values for {} keys ({} per key expected)",
                self.values.len(),
                self.times.len(),
                per_key
            ));
        }
        if let Some(t) = self.times.iter().find(|t| !t.is_finite()) {
            return Err(format!("key time {t} is not finite"));
        }
        if let Some(i) = self.times.iter().zip(self.times.iter().skip(1)).position(|(a, b)| b < a) {
            return Err(format!("key times decrease at key {}", i + 1));
        }
        Ok(())
    }
}

impl Target {
    /// A short human-readable label: the bone name, else `#id`, else the hash in hex, else the index.
    pub fn label(&self) -> String {
        match self {
            Target::Bone(b) => b.label(),
            Target::Material { material, property } => format!("{material}.{property}"),
        }
    }

    /// The bone, when the target is one.
    pub fn bone(&self) -> Option<&BoneRef> {
        match self {
            Target::Bone(b) => Some(b),
            Target::Material { .. } => None,
        }
    }
}

impl Package {
    /// The clip called `name` (exact, then case-insensitive).
    pub fn clip(&self, name: &str) -> Option<&Clip> {
        self.clips
            .iter()
            .find(|c| c.name == name)
            .or_else(|| self.clips.iter().find(|c| c.name.eq_ignore_ascii_case(name)))
    }

    /// The total number of keys over all tracks.
    pub fn key_count(&self) -> usize {
        self.clips.iter().flat_map(|c| &c.tracks).map(Track::key_count).sum()
    }

    /// For sources whose translation keys are offsets from the rest pose (GTA III and Vice City
    /// non-skinned objects: the engine adds the node's rest translation, `ifp.md` §4.4): adds each
    /// bound bone's rest translation to its translation keys, making them the absolute local
    /// positions every other consumer expects. Cubic tangents are rates and stay. Returns how many
    /// tracks changed; none without a skeleton.
    pub fn add_rest_translations(&mut self) -> usize {
        let Some(skeleton) = &self.skeleton else { return 0 };
        let mut changed = 0;
        for track in self.clips.iter_mut().flat_map(|c| &mut c.tracks) {
            let Values::Translation(values) = &mut track.values else { continue };
            let Some(bone) = track.target.bone().and_then(|b| skeleton.find(b)) else { continue };
            let Some(rest) = skeleton.bones.get(bone).map(|b| b.rest.translation) else { continue };
            let cubic = track.interpolation == Interpolation::CubicSpline;
            for (i, v) in values.iter_mut().enumerate() {
                // Cubic tracks store in-tangent, value, out-tangent: only the value moves.
                if !cubic || i % 3 == 1 {
                    *v += rest;
                }
            }
            changed += 1;
        }
        changed
    }
}

impl Clip {
    /// The last key time over all tracks (0 for a clip without keys).
    pub fn last_key_time(&self) -> f32 {
        self.tracks.iter().filter_map(|t| t.times.last().copied()).fold(0.0, f32::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rest_translations_are_added_to_bound_translation_keys() {
        let rest = |x: f32| Transform { translation: Vec3::new(x, 2.0, 3.0), ..Default::default() };
        let bone = |name: &str, x: f32| Bone { name: name.into(), rest: rest(x), ..Default::default() };
        let skeleton = Skeleton { bones: vec![bone("door", 10.0), bone("hinge", 20.0)] };
        let translation = |name: &str, interpolation, values: Vec<Vec3>| Track {
            target: Target::Bone(BoneRef::named(name)),
            interpolation,
            times: vec![0.0; values.len() / if interpolation == Interpolation::CubicSpline { 3 } else { 1 }],
            values: Values::Translation(values),
        };
        let clip = Clip {
            tracks: vec![
                translation("DOOR", Interpolation::Linear, vec![Vec3::ZERO, Vec3::X]),
                translation("hinge", Interpolation::CubicSpline, vec![Vec3::ONE, Vec3::Y, Vec3::ONE]),
                translation("elsewhere", Interpolation::Linear, vec![Vec3::Z]),
                track(vec![0.0], 1, Interpolation::Linear),
            ],
            ..Default::default()
        };
        let mut package = Package { clips: vec![clip.clone()], ..Default::default() };
        assert_eq!(package.add_rest_translations(), 0, "no skeleton, nothing to add");
        package.skeleton = Some(skeleton);
        assert_eq!(package.add_rest_translations(), 2);
        let values = |i: usize| package.clips[0].tracks[i].values.clone();
        assert_eq!(values(0), Values::Translation(vec![Vec3::new(10.0, 2.0, 3.0), Vec3::new(11.0, 2.0, 3.0)]));
        assert_eq!(values(1), Values::Translation(vec![Vec3::ONE, Vec3::new(20.0, 3.0, 3.0), Vec3::ONE]));
        assert_eq!(values(2), clip.tracks[2].values);
        assert_eq!(values(3), clip.tracks[3].values);
    }

    /// A file of 9,000 tracks builds 9,000 of these in fresh memory: their size is part of the
    /// cost of every read (the shared names and texture lists keep it at 112 bytes, not 128).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_track_is_112_bytes() {
        assert_eq!(std::mem::size_of::<Track>(), 112);
    }

    fn track(times: Vec<f32>, n: usize, interpolation: Interpolation) -> Track {
        Track { target: Target::Bone(BoneRef::named("a")), interpolation, times, values: Values::Scalar(vec![0.0; n]) }
    }

    #[test]
    fn validate_checks_counts_and_order() {
        assert!(track(vec![0.0, 1.0], 2, Interpolation::Linear).validate().is_ok());
        assert!(track(vec![0.0, 1.0], 6, Interpolation::CubicSpline).validate().is_ok());
        assert!(track(vec![0.0, 1.0], 3, Interpolation::Linear).validate().is_err());
        assert!(track(vec![1.0, 0.0], 2, Interpolation::Linear).validate().is_err());
        assert!(track(vec![0.0, f32::NAN], 2, Interpolation::Linear).validate().is_err());
    }

    #[test]
    fn bone_refs_match_by_strongest_key() {
        let tagged = BoneRef { name: Some("Pelvis".into()), id: Some(1), ..Default::default() };
        let sa = BoneRef { name: Some(" Pelvis".into()), id: Some(1), ..Default::default() };
        assert!(tagged.matches(&sa));
        assert!(BoneRef::named(" pelvis").matches(&BoneRef::named("Pelvis")));
        let other = BoneRef { name: Some("Pelvis".into()), id: Some(2), ..Default::default() };
        assert!(!tagged.matches(&other));
    }
}
