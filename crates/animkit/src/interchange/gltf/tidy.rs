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
//!   glTF has no frame rate; Blender samples on its scene's frames and writes `frame / fps` in
//!   f32, so key times within [`SNAP_FRACTION`] of a frame of the clip's rate are snapped to it
//!   (one line gives the largest shift). Keys between frames (a 30 fps clip exported from a
//!   24 fps scene) stay where they are: moving a sample by up to half a frame would add its
//!   motion over that time to the error (1° and 10 mm at 60°/s and 0.6 m/s). One line counts
//!   them and names the fix (set Blender's scene frame rate to the clip's before exporting).
//! - **Bone ids**: GTA tags and CryEngine hashes live in node extras, which Blender writes only
//!   with "Include → Custom Properties"; without them one line counts the bones that fall back.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::model::rest::{drop_constant_rest_tracks, DroppedRest};
use crate::model::{Clip, Package, Values};

/// How close to a frame (as a fraction of a frame) a key time must be to be snapped to it.
pub const SNAP_FRACTION: f64 = 0.05;

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

/// What [`snap_clip`] did.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Snapped {
    /// The largest shift of a snapped key, in seconds.
    worst: f32,
    /// Keys dropped because an earlier key of their track took the same frame.
    merged: usize,
    /// Keys left between frames.
    between: usize,
}

/// Snaps every clip that has a frame rate (its own, else `fps`) and says by how much at most.
fn snap_all(package: &mut Package, fps: Option<f32>, warnings: &mut Vec<String>) {
    let (mut clips, mut total) = (0, Snapped::default());
    let mut rates: Vec<f32> = Vec::new();
    for clip in &mut package.clips {
        let Some(rate) = clip.frame_rate.or(fps).filter(|r| r.is_finite() && *r > 0.0) else { continue };
        clip.frame_rate = Some(rate);
        let s = snap_clip(clip, rate);
        if s.worst > 0.0 || s.merged > 0 {
            clips += 1;
        }
        total.worst = total.worst.max(s.worst);
        total.merged += s.merged;
        total.between += s.between;
        if s.between > 0 && !rates.contains(&rate) {
            rates.push(rate);
        }
    }
    if clips > 0 {
        let merged = match total.merged {
            0 => String::new(),
            n => format!("; {n} keys that fell on an earlier key's frame dropped"),
        };
        warnings.push(format!(
            "key times of {clips} clip(s) snapped to their frames: largest shift {:.4} ms{merged}",
            total.worst * 1000.0
        ));
    }
    if total.between > 0 {
        let rates = rates.iter().map(|r| r.to_string()).collect::<Vec<_>>().join("/");
        warnings.push(format!(
            "{} keys lie between the clips' {rates} fps frames (the file was sampled at another rate) and stay \
             where they are; in Blender, set the scene frame rate to {rates} fps before exporting",
            total.between
        ));
    }
}

/// Snaps the key times of one clip that lie within [`SNAP_FRACTION`] of a `1/rate` s frame.
fn snap_clip(clip: &mut Clip, rate: f32) -> Snapped {
    let mut out = Snapped::default();
    for track in &mut clip.tracks {
        let per_key = track.values.len().checked_div(track.times.len()).unwrap_or(1).max(1);
        let mut keep = Vec::with_capacity(track.times.len());
        let mut last: Option<f32> = None;
        for t in &mut track.times {
            let frames = f64::from(*t) * f64::from(rate);
            if (frames - frames.round()).abs() <= SNAP_FRACTION {
                let snapped = (frames.round() / f64::from(rate)) as f32;
                out.worst = out.worst.max((snapped - *t).abs());
                *t = snapped;
            } else {
                out.between += 1;
            }
            keep.push(last != Some(*t));
            last = Some(*t);
        }
        if keep.iter().all(|&k| k) {
            continue;
        }
        out.merged += keep.iter().filter(|&&k| !k).count();
        let mut flags = keep.iter();
        track.times.retain(|_| flags.next().copied().unwrap_or(true));
        retain_keys(&mut track.values, per_key, &keep);
    }
    if clip.duration < clip.last_key_time() {
        clip.duration = clip.last_key_time();
    }
    out
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
    fn times_near_frames_snap_and_others_stay() {
        // Frame k at 24 fps is k/24 s = 1.25·k frames at 30 fps: on a frame when 4 divides k, a
        // quarter or half a frame off otherwise (k = 1, 2, 3: 1.25, 2.5, 3.75 frames).
        let times: Vec<f32> = (0..=24).map(|k| k as f32 / 24.0).collect();
        let track = Track {
            target: Target::Bone(BoneRef::named("a")),
            interpolation: Interpolation::Linear,
            values: Values::Scalar(times.clone()),
            times,
        };
        let mut clip = Clip { tracks: vec![track], duration: 1.0, ..Default::default() };
        let before = clip.clone();
        let s = snap_clip(&mut clip, 30.0);
        assert_eq!((s.merged, s.between), (0, 18));
        assert!(s.worst < 1e-7, "{s:?}");
        assert_eq!(clip.tracks[0].times, before.tracks[0].times);
        // f32 noise of a frame time (0.033333 for 1/30) snaps.
        clip.tracks[0].times = vec![0.0, 0.033_333, 0.066_667, 0.1];
        clip.tracks[0].values = Values::Scalar(vec![0.0; 4]);
        let s = snap_clip(&mut clip, 30.0);
        assert_eq!(clip.tracks[0].times, [0.0, 1.0 / 30.0, 2.0 / 30.0, 0.1]);
        assert!(s.worst > 0.0 && s.worst < 1e-6, "{s:?}");
        // Two keys on one frame: the second goes.
        let mut clip = Clip {
            tracks: vec![Track {
                target: Target::Bone(BoneRef::named("a")),
                interpolation: Interpolation::Linear,
                times: vec![0.0, 0.001, 1.0 / 30.0],
                values: Values::Scalar(vec![1.0, 2.0, 3.0]),
            }],
            ..Default::default()
        };
        assert_eq!(snap_clip(&mut clip, 30.0).merged, 1);
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
