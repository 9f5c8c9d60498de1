//! The conversion matrix: every corpus package written as every format animkit writes, read back
//! and compared with the original, clip by clip and track by track, sampled at seven of each
//! track's keys (where the value is the file's, not an interpolation the two engines may do
//! differently). A writer either refuses with a message, or writes a file that reads back through our own
//! reader with the same clips and tracks (or reports what it dropped), playing the same within the
//! target's quantisation. Never an empty file, never a silent drop.
//!
//! Run with `--nocapture` to see the whole matrix: one row per source and target, with the worst
//! rotation (degrees) and translation (source units) difference.

mod common;

use std::path::{Path, PathBuf};

use animkit::convert::OutputOptions;
use animkit::model::rekey::rotation_between;
use animkit::model::{Clip, Interpolation, Package, Skeleton, Target, Track, Values};
use animkit::sample::{sample_segment, sample_track, Sampled, Segment};
use animkit::{Bytes, ReadOptions};

/// Every writable target: the format variant, the spacing of its key times (seconds; 0 where
/// times are stored as floats), and the worst rotation (degrees) a written key may differ by.
const TARGETS: &[(&str, f32, f32)] = &[
    ("anp3", 1.0 / 60.0, 0.05),
    ("anpk", 0.0, 0.01),
    ("skb-le", 0.0, 0.05),
    // V2 keeps x, y, z and rebuilds w = √(1 − x² − y² − z²): near w = 0 a step of 1/32767 in
    // x, y, z moves w by up to √(2/32767), about 0.6° (evilengine.md §3.1); times are 1/30 s frames.
    ("skb-v2-be", 1.0 / 30.0, 0.7),
    ("caf", 1.0 / 30.0, 0.05),
    ("i_caf", 1.0 / 30.0, 0.05),
    ("dba", 1.0 / 30.0, 0.05),
    ("ivo", 1.0 / 30.0, 0.05),
    ("bfres", 1.0 / 30.0, 0.05),
    // Repeated key times (a step) move apart by 0.1 ms: glTF needs increasing times.
    ("glb", 0.0002, 0.01),
    ("model-json", 0.0, 0.0),
];

/// One source: a label and its packages (one per character for archives that hold several).
struct Source {
    label: String,
    packages: Vec<Package>,
}

/// The CryEngine skeleton that names a corpus clip's controllers, by the file's prefix.
fn cry_skeleton(dir: &Path, name: &str) -> Option<PathBuf> {
    let chr = match name.split('_').next()? {
        "ce3" if name.contains("barrel") => "ce3_skeleton_character.chr",
        "ly" => "ly_jack_root.chr",
        "ce5" if name.contains("run_fwd") => "ce5_skelProxy.chr",
        _ => return None,
    };
    Some(dir.join(chr))
}

fn sources() -> Vec<Source> {
    let mut out = Vec::new();
    for folder in ["ifp", "evilengine", "cryengine", "bfres", "nintendo"] {
        let Some(dir) = common::corpus_dir(folder) else { continue };
        for (name, bytes) in common::corpus_files(folder) {
            if name.starts_with("not_") || name.ends_with(".chr") || name == "README.md" {
                continue;
            }
            let mut options = ReadOptions::default();
            if let Some(chr) = cry_skeleton(&dir, &name).filter(|_| folder == "cryengine") {
                options.params.insert("skeleton".into(), chr.display().to_string());
            }
            let path = dir.join(&name);
            let doc = match animkit::read(Bytes::from(bytes), Some(&path), &options) {
                Ok(doc) => doc,
                Err(e) => {
                    eprintln!("{name}: not a source ({e})");
                    continue;
                }
            };
            let packages = doc.packages().unwrap_or_else(|e| panic!("{name}: {e}"));
            let packages: Vec<Package> = packages.into_iter().filter(|p| p.key_count() > 0).collect();
            if !packages.is_empty() {
                out.push(Source { label: format!("{folder}/{name}"), packages });
            }
        }
    }
    out
}

/// What happened to one package written as one target.
enum Outcome {
    /// The writer refused, with this message.
    Refused(String),
    /// Written and read back: the package, and the writer's warnings.
    Written(Package, Vec<String>),
    /// Written, but our own reader refuses it (a defect).
    Unreadable(String),
}

/// `package` written as `target` through the library's [`animkit::convert::encode`] (which refuses
/// an output that would hold nothing), then read back with our own reader.
fn convert(package: &Package, target: &str) -> Outcome {
    let (format, _) = animkit::REGISTRY.by_name(target).unwrap();
    let path = format!("matrix.{}", format.extensions().first().unwrap());
    let options = OutputOptions::to(target);
    let file = match animkit::convert::encode(package, &path, &options) {
        Ok(file) => file,
        Err(e) => return Outcome::Refused(e.to_string()),
    };
    assert!(!file.data.is_empty(), "{target}: an empty file");
    let warnings: Vec<String> = file.report.losses.iter().chain(&file.report.warnings).cloned().collect();
    match format.read(Bytes::from(file.data), &ReadOptions::default()).and_then(|d| d.to_model()) {
        Ok(back) => Outcome::Written(back, warnings),
        Err(e) => Outcome::Unreadable(e.to_string()),
    }
}

/// The track of `clip` that animates what `track` animates, on the same channel. A bone known by
/// name in the original may come back known only by its CryEngine CRC-32 (DBA, #ivo), or only by
/// its index in the original's skeleton (SKB).
fn counterpart<'a>(track: &Track, clip: &'a Clip, skeleton: Option<&Skeleton>) -> Option<&'a Track> {
    clip.tracks.iter().find(|t| {
        t.channel() == track.channel()
            && match (&t.target, &track.target) {
                (Target::Bone(theirs), Target::Bone(ours)) => {
                    theirs.matches(ours)
                        || theirs.index.is_some_and(|i| skeleton.and_then(|s| s.find(ours)) == Some(i as usize))
                        || theirs.name.as_deref() == Some(ours.label().as_str())
                        || match (theirs.hash, ours.name.as_deref()) {
                            (Some(hash), Some(name)) => [name.to_string(), name.to_lowercase()]
                                .iter()
                                .any(|n| crc32fast::hash(n.as_bytes()) == hash),
                            _ => false,
                        }
                }
                (a, b) => a == b,
            }
    })
}

/// The rotation angle between two samples (degrees; [`rotation_between`] works from the chord
/// between the quaternions in f64, exact for small angles where `acos` of a dot product is not),
/// or the largest component difference of other channels.
fn difference(a: Sampled, b: Sampled) -> (f32, f32) {
    match (a, b) {
        (Sampled::Rotation(p), Sampled::Rotation(q)) => (rotation_between(p, q).to_degrees(), 0.0),
        (Sampled::Translation(p), Sampled::Translation(q)) | (Sampled::Scale(p), Sampled::Scale(q)) => {
            (0.0, (p - q).abs().max_element())
        }
        (Sampled::Scalar(p), Sampled::Scalar(q)) => (0.0, (p - q).abs()),
        (Sampled::TextureIndex(p), Sampled::TextureIndex(q)) => (0.0, if p == q { 0.0 } else { f32::INFINITY }),
        (Sampled::Visibility(p), Sampled::Visibility(q)) => (0.0, if p == q { 0.0 } else { f32::INFINITY }),
        _ => (f32::INFINITY, f32::INFINITY),
    }
}

/// The largest extent of a translation or scale track's values on one axis: quantising writers
/// spread their steps over it (a 16-bit curve over the 43,000 units of Super Mario Odyssey's root
/// motion has steps of about a unit), so differences are compared relative to it beyond one unit.
fn span(track: &Track) -> f32 {
    let (Values::Translation(v) | Values::Scale(v)) = &track.values else { return 0.0 };
    // A cubic track stores (in-tangent, value, out-tangent) per key: the values only.
    let (skip, step) = if track.interpolation == Interpolation::CubicSpline { (1, 3) } else { (0, 1) };
    let values = || v.iter().skip(skip).step_by(step).copied();
    let lo = values().fold(glam::Vec3::splat(f32::INFINITY), glam::Vec3::min);
    let hi = values().fold(glam::Vec3::splat(f32::NEG_INFINITY), glam::Vec3::max);
    (hi - lo).max_element().max(0.0)
}

/// The texture a texture-pattern sample shows (writers may renumber a track's texture list).
fn texture(track: &Track, sampled: Sampled) -> Option<&str> {
    match (&track.values, sampled) {
        (Values::TextureIndex { textures, .. }, Sampled::TextureIndex(i)) => {
            textures.get(i as usize).map(String::as_str)
        }
        _ => None,
    }
}

/// Compared clip by clip (in order): tracks found, tracks missing, worst rotation and translation.
#[derive(Default)]
struct Comparison {
    tracks: usize,
    missing: usize,
    rotation: f32,
    translation: f32,
}

/// Compares `back` with `original` at seven of each written track's keys. A writer either samples
/// the original at its key times or moves the original's keys onto its time grid (`step` seconds
/// apart), so a written key at `t` is compared with the original at `t` and with every original key
/// within half a step of `t`, and the closest counts: what is left is value quantisation.
fn compare(original: &Package, back: &Package, step: f32) -> Comparison {
    let mut c = Comparison::default();
    // Each clip's counterpart: the first one not yet taken with its name (a writer may leave out
    // a clip, e.g. an empty visibility animation, which shifts the rest), else the one at its index.
    let mut taken = vec![false; back.clips.len()];
    for (i, clip) in original.clips.iter().enumerate().filter(|(_, c)| !c.tracks.is_empty()) {
        let by_name = back.clips.iter().enumerate().position(|(j, o)| o.name == clip.name && !taken[j]);
        let Some(j) = by_name.or((i < back.clips.len()).then_some(i)) else { continue };
        taken[j] = true;
        let other = &back.clips[j];
        for track in &clip.tracks {
            c.tracks += 1;
            let Some(theirs) = counterpart(track, other, original.skeleton.as_ref()) else {
                c.missing += 1;
                continue;
            };
            let last = theirs.times.len().saturating_sub(1);
            for &t in (0..7).filter_map(|i| theirs.times.get(i * last / 6)) {
                let Some(written) = sample_track(theirs, t) else { continue };
                // The original at `t`, and each of its keys near `t` as stored (at a step, two keys
                // share a time and either may be the one written there).
                let near = track.times.iter().enumerate().filter(|(_, &s)| (s - t).abs() <= step / 2.0 + 1e-5);
                let closest = std::iter::once(sample_track(track, t))
                    .chain(near.map(|(i, _)| sample_segment(track, Segment { a: i, b: i, u: 0.0, length: 0.0 })))
                    .flatten()
                    .map(|o| match (texture(track, o), texture(theirs, written)) {
                        (Some(a), Some(b)) => (0.0, if a == b { 0.0 } else { f32::INFINITY }),
                        _ => difference(o, written),
                    })
                    .fold((f32::INFINITY, f32::INFINITY), |a, b| if b.0 + b.1 < a.0 + a.1 { b } else { a });
                c.rotation = c.rotation.max(closest.0);
                c.translation = c.translation.max(closest.1 / span(track).max(1.0));
            }
        }
    }
    c
}

/// Targets whose files hold one clip: written clip by clip.
const ONE_CLIP: &[&str] = &["skb-le", "skb-v2-be", "caf", "i_caf", "ivo"];

/// The packages a source becomes for `target`: as they are, or one per clip.
fn inputs<'a>(packages: &'a [Package], target: &str) -> Vec<(String, std::borrow::Cow<'a, Package>)> {
    let split = ONE_CLIP.contains(&target);
    let mut out = Vec::new();
    for (i, package) in packages.iter().enumerate() {
        let character = if packages.len() > 1 { format!(" [{i}]") } else { String::new() };
        if !split {
            out.push((character, std::borrow::Cow::Borrowed(package)));
            continue;
        }
        for clip in &package.clips {
            let one = Package { clips: vec![clip.clone()], ..package.clone() };
            out.push((format!("{character} {}", clip.name), std::borrow::Cow::Owned(one)));
        }
    }
    out
}

/// The worst figures of one target over every source.
#[derive(Default)]
struct Column {
    written: usize,
    refused: usize,
    tracks: usize,
    missing: usize,
    rotation: f32,
    translation: f32,
    /// Where the worst rotation and translation are.
    worst: (String, String),
}

#[test]
fn every_corpus_package_through_every_writer() {
    let sources = sources();
    let mut defects = Vec::new();
    for &(target, step, max_rotation) in TARGETS {
        let mut column = Column::default();
        for source in &sources {
            for (part, package) in inputs(&source.packages, target) {
                let label = format!("{}{part}", source.label);
                match convert(&package, target) {
                    Outcome::Refused(why) => {
                        column.refused += 1;
                        eprintln!("{target:10} {label}: refused: {why}");
                    }
                    Outcome::Unreadable(why) => {
                        defects.push(format!("{label} → {target}: our own output does not read back: {why}"));
                    }
                    Outcome::Written(back, warnings) => {
                        column.written += 1;
                        let c = compare(&package, &back, step);
                        column.tracks += c.tracks;
                        column.missing += c.missing;
                        if c.rotation > column.rotation {
                            column.rotation = c.rotation;
                            column.worst.0 = label.clone();
                        }
                        if c.translation > column.translation {
                            column.translation = c.translation;
                            column.worst.1 = label.clone();
                        }
                        if back.key_count() == 0 {
                            defects.push(format!("{label} → {target}: written with no keys, no error"));
                        } else if (c.missing > 0 || back.clips.len() != package.clips.len()) && warnings.is_empty() {
                            defects.push(format!(
                                "{label} → {target}: {} of {} clips and {} of {} tracks written, without a warning",
                                back.clips.len(),
                                package.clips.len(),
                                c.tracks - c.missing,
                                c.tracks
                            ));
                        }
                        if c.rotation > max_rotation {
                            defects.push(format!("{label} → {target}: rotation off by {:.3}°", c.rotation));
                        }
                        // Translations within 5 mm (source units), or 0.5 % of a track's extent.
                        if c.translation > 0.005 {
                            defects.push(format!("{label} → {target}: translation off by {}", c.translation));
                        }
                    }
                }
            }
        }
        eprintln!(
            "{target:10} written {:5} refused {:4} tracks {:6}/{:6} worst rotation {:8.4}° ({}) translation {:.5} ({})",
            column.written,
            column.refused,
            column.tracks - column.missing,
            column.tracks,
            column.rotation,
            column.worst.0,
            column.translation,
            column.worst.1
        );
    }
    eprintln!("{} defects", defects.len());
    assert!(defects.is_empty(), "{}", defects.join("\n"));
}

/// Between keys too: a GTA clip (slerp, sparse keys) written as CAF (nlerp) plays the same at 400
/// times, and a BFRES clip (cubic, a key per frame) at every 30 fps frame the CAF can hold, keys
/// being added where the engines part (countrye's pole swung up to 7.9° apart at mid-segment; SMO's
/// cubic root motion by hundreds of units between its keys before).
#[test]
fn caf_plays_like_the_source_between_keys() {
    let cases = [
        ("ifp", "countrye_object_anim.ifp", None, 400.0f32),
        ("nintendo", "smo_mariocap_bonevis.szs", Some("SpinCapJumpStart"), 0.0),
    ];
    for (folder, name, clip_name, uniform) in cases {
        let Some(dir) = common::corpus_dir(folder) else { return };
        let package = animkit::open(dir.join(name)).unwrap().to_model().unwrap();
        let clip = match clip_name {
            Some(n) => package.clip(n).unwrap().clone(),
            None => package.clips[0].clone(),
        };
        let one = Package { clips: vec![clip.clone()], ..package.clone() };
        let Outcome::Written(back, _) = convert(&one, "caf") else { panic!("{name}: not written") };
        let frames = (clip.duration * 30.0).round() as usize;
        let mut times: Vec<f32> = (0..=frames).map(|f| f as f32 / 30.0).collect();
        times.extend((0..=uniform as usize).map(|i| clip.duration * i as f32 / uniform.max(1.0)));
        let (mut rotation, mut translation) = (0.0f32, 0.0f32);
        for track in &clip.tracks {
            let theirs = counterpart(track, &back.clips[0], None).unwrap();
            for &t in &times {
                let (r, d) = difference(sample_track(track, t).unwrap(), sample_track(theirs, t).unwrap());
                rotation = rotation.max(r);
                translation = translation.max(d / span(track).max(1.0));
            }
        }
        eprintln!("{name}: worst {rotation:.4}° and {translation:.6} of the extent between keys");
        assert!(rotation < 0.02 && translation < 1e-3, "{name}: {rotation}° {translation}");
    }
}
