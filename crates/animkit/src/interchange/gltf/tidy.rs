//! What the import does to files that other tools wrote (Blender's glTF exporter and any tool
//! that behaves like it), after the channels are read. Files animkit wrote itself
//! (`asset.generator` "animkit X.Y.Z") come back as they are.
//!
//! - **Constant rest tracks** (on by default; `keep_constant=true` keeps them): Blender keys every
//!   joint on translation, rotation and scale. A track constant at the bone's rest pose plays
//!   the same as no track in glTF, but in a game format its presence changes meaning (an IFP
//!   translation replaces the bone's offset; a partial clip pins the bones it keys), so such
//!   tracks are dropped, with one summary line ([`crate::model::rest`]).
//! - **Frame rate** (`fps=N`, or the clip's `extras.animkit.frame_rate` when the file kept it):
//!   glTF has no frame rate, and Blender resamples on its scene's frames (24 fps by default), so
//!   key times are snapped to the clip's own frames, with one line giving the largest shift.
//! - **Bone ids**: GTA tags and CryEngine hashes live in node extras, which Blender writes only
//!   with "Include → Custom Properties"; without them one line counts the bones that fall back.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::model::rest::{drop_constant_rest_tracks, DroppedRest};
use crate::model::{Clip, Package, Values};

/// The option keys the glTF import reads from `ReadOptions::params`.
pub const OPTION_KEYS: &[&str] = &["keep_constant", "fps"];

/// Import settings, from `--opt key=value`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ImportOptions {
    /// Keep tracks that are constant and equal to the rest pose (`keep_constant=true`).
    pub keep_constant: bool,
    /// The clips' frame rate when the file does not carry one (`fps=30`): key times are snapped
    /// to its frames.
    pub fps: Option<f32>,
}

impl ImportOptions {
    /// Reads `keep_constant=true|false` and `fps=N` (other keys belong to other formats).
    pub fn from_params(params: &BTreeMap<String, String>) -> Result<ImportOptions> {
        let keep_constant = match params.get("keep_constant").map(String::as_str) {
            None | Some("false") => false,
            Some("true") => true,
            Some(v) => return Err(Error::unsupported(format!("keep_constant={v}: expected true or false"))),
        };
        let fps = match params.get("fps") {
            None => None,
            Some(v) => {
                Some(v.parse::<f32>().ok().filter(|f| f.is_finite() && *f > 0.0 && *f <= 1000.0).ok_or_else(|| {
                    Error::unsupported(format!("fps={v}: expected a frame rate in frames per second (e.g. 30)"))
                })?)
            }
        };
        Ok(ImportOptions { keep_constant, fps })
    }
}

/// Whether `generator` (the file's `asset.generator`) names animkit's own exporter.
pub fn written_by_animkit(generator: Option<&str>) -> bool {
    generator.and_then(|g| g.strip_prefix("animkit ")).is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
}

/// Applies the rules of the module docs to a package imported from another tool's file;
/// returns one line per rule that changed something.
pub fn tidy(package: &mut Package, options: &ImportOptions) -> Vec<String> {
    let mut warnings = Vec::new();
    if !options.keep_constant {
        if let Some(skeleton) = &package.skeleton {
            let mut dropped = DroppedRest::default();
            for clip in &mut package.clips {
                let d = drop_constant_rest_tracks(clip, skeleton);
                dropped.rotation += d.rotation;
                dropped.translation += d.translation;
                dropped.scale += d.scale;
            }
            if let Some(line) = dropped.summary() {
                warnings.push(format!(
                    "{line} (a bone without a track keeps its rest pose; keep_constant=true keeps them)"
                ));
            }
        }
    }
    snap_all(package, options.fps, &mut warnings);
    if let Some(skeleton) = &package.skeleton {
        let bare = skeleton.bones.iter().filter(|b| b.id.is_none() && b.hash.is_none()).count();
        if bare > 0 {
            warnings.push(format!(
                "{bare} of {} bones have no animkit id or hash in their node extras: GTA bone tags become -1 \
                 (matched by name) and CryEngine hashes come from the names; in Blender's glTF exporter tick \
                 Include → Custom Properties to keep them",
                skeleton.bones.len()
            ));
        }
    }
    warnings
}

/// Snaps every clip that has a frame rate (its own, else `fps`) and says by how much at most.
fn snap_all(package: &mut Package, fps: Option<f32>, warnings: &mut Vec<String>) {
    let (mut clips, mut worst, mut merged) = (0, 0f32, 0);
    for clip in &mut package.clips {
        let Some(rate) = clip.frame_rate.or(fps).filter(|r| r.is_finite() && *r > 0.0) else { continue };
        clip.frame_rate = Some(rate);
        let (shift, lost) = snap_clip(clip, rate);
        if shift > 0.0 || lost > 0 {
            clips += 1;
        }
        worst = worst.max(shift);
        merged += lost;
    }
    if clips > 0 {
        let lost = if merged > 0 {
            format!("; {merged} keys that fell on an earlier key's frame dropped")
        } else {
            String::new()
        };
        warnings.push(format!(
            "key times of {clips} clip(s) snapped to their frame rate: largest shift {:.1} ms{lost}",
            worst * 1000.0
        ));
    }
}

/// Snaps the key times of one clip to `1/rate` s frames: (largest shift in s, keys dropped
/// because an earlier key of their track took the same frame).
fn snap_clip(clip: &mut Clip, rate: f32) -> (f32, usize) {
    let (mut worst, mut lost) = (0f32, 0);
    for track in &mut clip.tracks {
        let per_key = track.values.len().checked_div(track.times.len()).unwrap_or(1).max(1);
        let mut keep = Vec::with_capacity(track.times.len());
        let mut last: Option<f32> = None;
        for t in &mut track.times {
            let snapped = (f64::from(*t) * f64::from(rate)).round() as f32 / rate;
            worst = worst.max((snapped - *t).abs());
            *t = snapped;
            keep.push(last != Some(snapped));
            last = Some(snapped);
        }
        if keep.iter().all(|&k| k) {
            continue;
        }
        lost += keep.iter().filter(|&&k| !k).count();
        let mut flags = keep.iter();
        track.times.retain(|_| flags.next().copied().unwrap_or(true));
        retain_keys(&mut track.values, per_key, &keep);
    }
    if clip.duration < clip.last_key_time() {
        clip.duration = clip.last_key_time();
    }
    (worst, lost)
}

/// Keeps the values of the keys flagged in `keep` (`per_key` values per key).
fn retain_keys(values: &mut Values, per_key: usize, keep: &[bool]) {
    fn apply<T>(v: &mut Vec<T>, per_key: usize, keep: &[bool]) {
        let mut i = 0;
        v.retain(|_| {
            let k = keep.get(i / per_key).copied().unwrap_or(true);
            i += 1;
            k
        });
    }
    match values {
        Values::Rotation(v) => apply(v, per_key, keep),
        Values::Translation(v) | Values::Scale(v) => apply(v, per_key, keep),
        Values::Scalar(v) => apply(v, per_key, keep),
        Values::TextureIndex { indices, .. } => apply(indices, per_key, keep),
        Values::Visibility(v) => apply(v, per_key, keep),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BoneRef, Interpolation, Target, Track};

    #[test]
    fn blender_24_fps_times_snap_to_30_fps_frames() {
        // Frame k at 24 fps is k/24 s; its nearest 30 fps frame is round(k·30/24)/30.
        let times: Vec<f32> = (0..=24).map(|k| k as f32 / 24.0).collect();
        let track = Track {
            target: Target::Bone(BoneRef::named("a")),
            interpolation: Interpolation::Linear,
            values: Values::Scalar(times.clone()),
            times,
        };
        let mut clip = Clip { tracks: vec![track], duration: 1.0, ..Default::default() };
        let (shift, lost) = snap_clip(&mut clip, 30.0);
        assert_eq!(lost, 0);
        // k = 2: 1/12 s = 2.5 frames at 30 fps → 3/30 s (half away from zero), half a frame:
        // 1/60 s, the most any time can move.
        assert!((shift - 1.0 / 60.0).abs() < 1e-6, "{shift}");
        assert!((clip.tracks[0].times[2] - 0.1).abs() < 1e-7);
        // Two keys on one frame: the second goes.
        let mut clip = Clip {
            tracks: vec![Track {
                target: Target::Bone(BoneRef::named("a")),
                interpolation: Interpolation::Linear,
                times: vec![0.0, 0.01, 0.04],
                values: Values::Scalar(vec![1.0, 2.0, 3.0]),
            }],
            ..Default::default()
        };
        assert_eq!(snap_clip(&mut clip, 30.0).1, 1);
        assert_eq!(clip.tracks[0].values, Values::Scalar(vec![1.0, 3.0]));
    }

    #[test]
    fn options_are_checked() {
        let params = |k: &str, v: &str| BTreeMap::from([(k.to_string(), v.to_string())]);
        assert!(ImportOptions::from_params(&params("keep_constant", "true")).unwrap().keep_constant);
        assert!(ImportOptions::from_params(&params("keep_constant", "yes")).is_err());
        assert_eq!(ImportOptions::from_params(&params("fps", "30")).unwrap().fps, Some(30.0));
        assert!(ImportOptions::from_params(&params("fps", "-1")).is_err());
        assert!(written_by_animkit(Some("animkit 0.1.0")));
        assert!(!written_by_animkit(Some("Khronos glTF Blender I/O v4.5.47")));
        assert!(!written_by_animkit(Some("animkit test (by hand)")));
    }
}
