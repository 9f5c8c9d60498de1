//! Additive clips in glTF, which has no additive blending.
//!
//! An additive clip (`Clip::additive`) holds each bone's change from a reference pose, not the
//! pose: played as it is, it puts the bones near the origin and the identity. CryEngine applies an
//! additive clip to a bone's pose as CE5 `SampleAddAnimFull` does for a clip sampled alone: the
//! delta rotation on the left, `q = q_add · q_rest` (the compiled clip stores
//! `q(f) · q(0)⁻¹`, `cryengine.md` §13), translations added, `t = t_add + t_rest`, and scales
//! multiplied.
//!
//! The write option `additive=` chooses what the export does:
//! - `keep` (default): the clips are exported as they are, with one warning line naming them;
//! - `bake`: with a skeleton, each bound track is composed with its bone's rest pose as above,
//!   so the clip plays as absolute poses on the rest pose. Tracks that match no bone stay deltas
//!   (counted in a warning). Without a skeleton `bake` fails.

use std::borrow::Cow;

use glam::{Quat, Vec3};

use crate::error::{Error, Result};
use crate::format::WriteOptions;
use crate::model::{Interpolation, Package, Skeleton, Target, Track, Transform, Values};

/// The write option choosing what happens to additive clips: `additive=keep|bake`.
pub const ADDITIVE_PARAM: &str = "additive";

/// What to do with additive clips.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AdditiveMode {
    /// Export the deltas as they are (with a warning).
    #[default]
    Keep,
    /// Compose them with the rest pose.
    Bake,
}

impl AdditiveMode {
    /// The mode the `additive=` write option asks for.
    pub fn from_options(options: &WriteOptions) -> Result<AdditiveMode> {
        match options.param(ADDITIVE_PARAM) {
            None | Some("keep") => Ok(AdditiveMode::Keep),
            Some("bake") => Ok(AdditiveMode::Bake),
            Some(other) => Err(Error::unsupported(format!("{ADDITIVE_PARAM}={other} (keep or bake)"))),
        }
    }
}

/// Up to three names, then how many more.
fn some_names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    let shown: Vec<String> = names.iter().take(3).map(|n| format!("\"{n}\"")).collect();
    match names.len().saturating_sub(3) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// The warning for additive clips exported as they are, if the package has any.
pub fn as_is_warning(package: &Package) -> Option<String> {
    let additive = package.clips.iter().filter(|c| c.additive);
    let n = additive.clone().count();
    (n > 0).then(|| {
        format!(
            "{n} of {} clips are additive ({}): exported as they are, as changes from a reference pose that glTF \
             plays as absolute poses; write with {ADDITIVE_PARAM}=bake and a skeleton to apply them to the rest pose",
            package.clips.len(),
            some_names(additive.map(|c| c.name.as_str()))
        )
    })
}

/// The package to export: with [`AdditiveMode::Bake`], its additive clips composed with the rest
/// pose, and a warning line saying so.
pub fn prepare(package: &Package, mode: AdditiveMode) -> Result<(Cow<'_, Package>, Option<String>)> {
    if mode == AdditiveMode::Keep || !package.clips.iter().any(|c| c.additive) {
        return Ok((Cow::Borrowed(package), None));
    }
    let skeleton = package.skeleton.as_ref().ok_or_else(|| {
        Error::unrepresentable(format!(
            "{ADDITIVE_PARAM}=bake needs a skeleton whose rest pose the additive clips apply to (give one with --skeleton)"
        ))
    })?;
    let mut baked = package.clone();
    let (mut clips, mut unbound) = (Vec::new(), 0usize);
    for clip in baked.clips.iter_mut().filter(|c| c.additive) {
        for track in &mut clip.tracks {
            if !bake_track(track, skeleton) {
                unbound += 1;
            }
        }
        clip.additive = false;
        clips.push(clip.name.clone());
    }
    let plural = if clips.len() == 1 { "" } else { "s" };
    let names = some_names(clips.iter().map(String::as_str));
    let mut note = format!("baked {} additive clip{plural} onto the rest pose ({names})", clips.len());
    if unbound > 0 {
        note.push_str(&format!("; {unbound} tracks that match no bone stay changes from a reference pose"));
    }
    Ok((Cow::Owned(baked), Some(note)))
}

/// Composes one track with its bone's rest pose; `false` when it targets no bone of `skeleton`.
/// The maps are linear, so cubic tangents transform with the values (translation tangents are
/// unchanged by the offset).
fn bake_track(track: &mut Track, skeleton: &Skeleton) -> bool {
    let Target::Bone(r) = &track.target else { return false };
    let Some(Transform { translation, rotation, scale }) =
        skeleton.find(r).and_then(|i| skeleton.bones.get(i)).map(|b| b.rest)
    else {
        return false;
    };
    let cubic = track.interpolation == Interpolation::CubicSpline;
    let is_value = |i: usize| !cubic || i % 3 == 1;
    match &mut track.values {
        // q_add · q_rest: the delta on the left.
        Values::Rotation(v) => v.iter_mut().for_each(|q: &mut Quat| *q *= rotation),
        Values::Translation(v) => v
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| is_value(*i))
            .for_each(|(_, t): (usize, &mut Vec3)| *t += translation),
        Values::Scale(v) => v.iter_mut().for_each(|s: &mut Vec3| *s *= scale),
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Bone, BoneRef, Clip};

    fn package(additive: bool) -> Package {
        let rest = Transform {
            translation: Vec3::new(0.0, 1.0, 0.0),
            rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            scale: Vec3::new(2.0, 2.0, 2.0),
        };
        let bone = Target::Bone(BoneRef::named("arm"));
        let track = |values, interpolation| Track { target: bone.clone(), interpolation, times: vec![0.0], values };
        Package {
            clips: vec![Clip {
                name: "wave_add".into(),
                duration: 1.0,
                additive,
                tracks: vec![
                    track(
                        Values::Rotation(vec![Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)]),
                        Interpolation::Nlerp,
                    ),
                    track(
                        Values::Translation(vec![Vec3::X, Vec3::new(1.0, 0.0, 0.0), Vec3::X]),
                        Interpolation::CubicSpline,
                    ),
                    track(Values::Scale(vec![Vec3::new(1.0, 0.5, 1.0)]), Interpolation::Linear),
                    Track {
                        target: Target::Bone(BoneRef::named("tail")),
                        ..track(Values::Rotation(vec![Quat::IDENTITY]), Interpolation::Nlerp)
                    },
                ],
                ..Default::default()
            }],
            skeleton: Some(Skeleton { bones: vec![Bone { name: "arm".into(), rest, ..Default::default() }] }),
            ..Default::default()
        }
    }

    /// By hand, with s = √½: q_add = (s, 0, 0, s) (90° about X), q_rest = (0, 0, s, s) (90° about
    /// Z); q_add · q_rest has w = s·s − (s,0,0)·(0,0,s) = ½ and xyz = s(0,0,s) + s(s,0,0) +
    /// (s,0,0)×(0,0,s) = (½, 0, ½) + (0, −½, 0), so (½, −½, ½, ½). Translation (1, 0, 0) + (0, 1, 0);
    /// the cubic tangents (1, 0, 0) stay; scale (1, ½, 1) × 2.
    #[test]
    fn bake_composes_each_bone_with_its_rest_pose() {
        let source = package(true);
        let (baked, note) = prepare(&source, AdditiveMode::Bake).unwrap();
        let clip = &baked.clips[0];
        assert!(!clip.additive);
        let Values::Rotation(q) = &clip.tracks[0].values else { panic!() };
        assert!(q[0].abs_diff_eq(Quat::from_xyzw(0.5, -0.5, 0.5, 0.5), 1e-6), "{:?}", q[0]);
        assert_eq!(clip.tracks[1].values, Values::Translation(vec![Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::X]));
        assert_eq!(clip.tracks[2].values, Values::Scale(vec![Vec3::new(2.0, 1.0, 2.0)]));
        assert_eq!(clip.tracks[3].values, Values::Rotation(vec![Quat::IDENTITY]), "an unbound track stays");
        let note = note.unwrap();
        assert!(note.contains("baked 1 additive clip onto") && note.contains("1 tracks that match no bone"), "{note}");
        assert!(as_is_warning(&baked).is_none());
    }

    #[test]
    fn keep_warns_and_bake_needs_a_skeleton() {
        let p = package(true);
        let (kept, note) = prepare(&p, AdditiveMode::Keep).unwrap();
        assert!(matches!(kept, Cow::Borrowed(_)) && note.is_none());
        let warning = as_is_warning(&p).unwrap();
        assert!(warning.starts_with("1 of 1 clips are additive (\"wave_add\")"), "{warning}");
        assert!(as_is_warning(&package(false)).is_none());
        let bare = Package { skeleton: None, ..p };
        assert!(prepare(&bare, AdditiveMode::Bake).unwrap_err().to_string().contains("needs a skeleton"));
        let mut options = WriteOptions::default();
        options.params.insert("additive".into(), "sideways".into());
        assert!(AdditiveMode::from_options(&options).is_err());
    }
}
