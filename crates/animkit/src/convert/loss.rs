//! What a conversion lost: the clips and tracks that went in against those the written document
//! holds (read back from it), and the writer's warnings grouped so that one cause dropping many
//! tracks reads as one line with a count, not one line per track.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::format::Summary;
use crate::model::Package;

/// The most groups of writer warnings shown; the rest are counted.
const MAX_GROUPS: usize = 8;

/// How much animation a package or a written file holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Counts {
    /// Clips.
    pub clips: usize,
    /// Animation tracks.
    pub tracks: usize,
    /// Keys over all tracks.
    pub keys: usize,
}

impl Counts {
    /// The counts of a package.
    pub fn of(package: &Package) -> Counts {
        Counts {
            clips: package.clips.len(),
            tracks: package.clips.iter().map(|c| c.tracks.len()).sum(),
            keys: package.key_count(),
        }
    }

    /// The counts of a document summary.
    pub fn of_summary(summary: &Summary) -> Counts {
        let tracks = summary.clips.iter().flat_map(|c| &c.tracks);
        Counts { clips: summary.clips.len(), tracks: tracks.clone().count(), keys: tracks.map(|t| t.keys).sum() }
    }
}

/// Fails when the package holds nothing to convert: no track, and no skeleton an output could
/// carry instead. Checked before building, so the message is the same for every format.
pub(crate) fn check_input(package: &Package) -> Result<()> {
    let input = Counts::of(package);
    if input.tracks == 0 && package.skeleton.is_none() {
        return Err(Error::unrepresentable(format!(
            "nothing to convert: the input holds {} clip(s), no animation track and no skeleton",
            input.clips
        )));
    }
    Ok(())
}

/// Fails when the written file would hold nothing, and returns the loss lines otherwise.
///
/// `kept` is what the written file holds (`None` when the format cannot be read back, e.g. CSV);
/// `skeleton_kept`: the written file carries a skeleton; `reasons`: the writer's warnings,
/// already grouped. A skeleton is suggested when the package has none and the writer dropped
/// tracks for want of a bone index (SKB binds tracks by index).
pub(crate) fn check(
    package: &Package,
    kept: Option<Counts>,
    skeleton_kept: bool,
    reasons: &[String],
) -> Result<Vec<String>> {
    let input = Counts::of(package);
    let unbound = package.skeleton.is_none() && reasons.iter().any(|r| r.contains("bone index"));
    let hint =
        if unbound { " (the input has no skeleton: pass one with --skeleton to give tracks bone indices)" } else { "" };
    if input.tracks == 0 && !skeleton_kept {
        return Err(Error::unrepresentable(format!(
            "nothing to convert: the input holds {} clip(s) and no animation track, and the output keeps no skeleton",
            input.clips
        )));
    }
    let Some(kept) = kept else { return Ok(Vec::new()) };
    if input.tracks > 0 && kept.tracks == 0 {
        let why = if reasons.is_empty() { String::new() } else { format!(": {}", reasons.join("; ")) };
        return Err(Error::unrepresentable(format!(
            "the output would hold none of the {} tracks{why}{hint}",
            input.tracks
        )));
    }
    let mut lines = Vec::new();
    if kept.clips < input.clips {
        let pick = if kept.clips == 1 { " (the format holds one: pick it with --clip)" } else { "" };
        lines.push(format!("{} of {} clips dropped{pick}", input.clips - kept.clips, input.clips));
    }
    if kept.tracks < input.tracks {
        let with = if kept.clips < input.clips { ", those of the dropped clips included" } else { "" };
        lines.push(format!("{} of {} tracks dropped{with}{hint}", input.tracks - kept.tracks, input.tracks));
    }
    Ok(lines)
}

/// The writer's warnings with the names of `package`'s clips and tracks and any numbers blanked,
/// grouped by what remains: each group is its first warning and how many more are like it.
pub(crate) fn group(warnings: &[String], package: &Package) -> Vec<String> {
    let mut names: Vec<String> = package
        .clips
        .iter()
        .flat_map(|c| std::iter::once(c.name.clone()).chain(c.tracks.iter().map(|t| t.target.label())))
        .filter(|n| !n.is_empty())
        .collect();
    names.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    names.dedup();
    let mut groups: Vec<(String, &String, usize)> = Vec::new();
    for w in warnings {
        let shape = shape(w, &names);
        match groups.iter_mut().find(|(s, _, _)| *s == shape) {
            Some(group) => group.2 += 1,
            None => groups.push((shape, w, 1)),
        }
    }
    let hidden: usize = groups.iter().skip(MAX_GROUPS).map(|g| g.2).sum();
    let mut lines: Vec<String> = groups
        .iter()
        .take(MAX_GROUPS)
        .map(|(_, first, n)| if *n > 1 { format!("{first} (and {} more like it)", n - 1) } else { first.to_string() })
        .collect();
    if hidden > 0 {
        lines.push(format!("{hidden} more warnings of other kinds (the verbose report lists every one)"));
    }
    lines
}

/// `warning` with every whole-word occurrence of `names` (longest first) replaced by `…` and
/// every run of digits (and hex digits after `0x`) by `#`.
fn shape(warning: &str, names: &[String]) -> String {
    let mut s = warning.to_string();
    for name in names {
        s = replace_word(&s, name);
    }
    let mut out = String::with_capacity(s.len());
    let mut in_number = false;
    for c in s.chars() {
        let digit = c.is_ascii_digit() || (in_number && (c.is_ascii_hexdigit() || c == 'x'));
        if !digit {
            out.push(c);
        } else if !in_number {
            out.push('#');
        }
        in_number = digit;
    }
    out
}

/// `s` with whole-word occurrences of `word` replaced by `…`.
fn replace_word(s: &str, word: &str) -> String {
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(word) {
        let (before, after) = rest.split_at(at);
        let tail = after.get(word.len()..).unwrap_or_default();
        out.push_str(before);
        if is_word(before.chars().next_back()) || is_word(tail.chars().next()) {
            out.push_str(word);
        } else {
            out.push('…');
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BoneRef, Clip, Interpolation, Target, Track, Values};

    fn package(bones: &[&str]) -> Package {
        let track = |b: &str| Track {
            target: Target::Bone(BoneRef::named(b)),
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0],
            values: Values::Translation(vec![glam::Vec3::ZERO; 2]),
        };
        let clip = Clip {
            name: "walk".into(),
            duration: 1.0,
            tracks: bones.iter().map(|b| track(b)).collect(),
            ..Default::default()
        };
        Package { clips: vec![clip], ..Default::default() }
    }

    #[test]
    fn one_cause_for_many_tracks_is_one_line_with_a_count() {
        let p = package(&["Bip01", "Bip01 Spine", "L Thigh"]);
        let w: Vec<String> = ["Bip01", "Bip01 Spine", "L Thigh"]
            .iter()
            .map(|b| format!("clip \"walk\": track {b} has no bone index; skipped"))
            .chain(["rotations encoded as st48: largest error 1.2e-4 rad over 30 keys".to_string()])
            .collect();
        let lines = group(&w, &p);
        assert_eq!(
            lines,
            [
                "clip \"walk\": track Bip01 has no bone index; skipped (and 2 more like it)",
                "rotations encoded as st48: largest error 1.2e-4 rad over 30 keys",
            ]
        );
    }

    #[test]
    fn names_inside_words_are_not_blanked() {
        assert_eq!(replace_word("arm armature arm.", "arm"), "… armature ….");
        assert_eq!(shape("0x0001ABCD (x) has 12 keys", &[]), "# (x) has # keys");
    }

    #[test]
    fn losing_every_track_fails_and_partial_loss_is_counted() {
        let p = package(&["a", "b", "c", "d"]);
        let none = Counts { clips: 1, tracks: 0, keys: 0 };
        let e = check(&p, Some(none), false, &["track a has no bone index".into()]).unwrap_err();
        assert!(e.message.contains("none of the 4 tracks: track a has no bone index"), "{e}");
        assert!(e.message.contains("pass one with --skeleton"), "{e}");
        let some = Counts { clips: 1, tracks: 3, keys: 6 };
        assert_eq!(check(&p, Some(some), false, &[]).unwrap(), ["1 of 4 tracks dropped"]);
        assert!(check(&p, Some(Counts::of(&p)), false, &[]).unwrap().is_empty());
    }

    #[test]
    fn nothing_to_convert_fails_unless_a_skeleton_is_written() {
        let empty = Package::default();
        assert!(check_input(&empty).unwrap_err().message.contains("nothing to convert"));
        let rig = Package { skeleton: Some(Default::default()), ..Default::default() };
        assert!(check_input(&rig).is_ok());
        assert!(check(&rig, Some(Counts::default()), false, &[]).unwrap_err().message.contains("keeps no skeleton"));
        assert!(check(&rig, Some(Counts::default()), true, &[]).unwrap().is_empty());
    }

    #[test]
    fn dropped_clips_are_counted_with_their_tracks() {
        let mut p = package(&["a", "b"]);
        p.clips.push(p.clips[0].clone());
        let kept = Counts { clips: 1, tracks: 2, keys: 4 };
        let lines = check(&p, Some(kept), false, &[]).unwrap();
        assert_eq!(
            lines,
            [
                "1 of 2 clips dropped (the format holds one: pick it with --clip)",
                "2 of 4 tracks dropped, those of the dropped clips included"
            ]
        );
    }
}
