//! BFRES → model → BFRES for every Wii U BFRES of the corpus (`bfres/`, Yaz0 included, and the
//! Wii U payloads of the `nintendo/` archives; the Switch files there are skipped: animkit writes
//! BFRES for Wii U only). Unchanged, the file written is no larger than the input (whole file, and
//! the animation subfiles alone, both within 2 %), and every track samples as the input's, read by
//! the same reader, at several times per clip: exactly, as FSKA and FSHU curves are kept and FTXP
//! and FVIS keys are integers and bits; the tracks read back are bit for bit the input's. An
//! edited clip writes its edited track anew and keeps every other track's curves.
//!
//! The sizes of the animation subfiles come from the file's own header and index groups
//! (spec §2), parsed here independently of animkit: each subfile runs from its start to the next
//! structure the header reaches (another subfile, an index group, the string pool).

mod common;

use animkit::formats::bfres::Bfres;
use animkit::model::{Clip, Package, Track, Values};
use animkit::sample::{sample_track, Sampled};
use animkit::{Bytes, Format, ReadOptions, WriteOptions};
use glam::{Quat, Vec3};

fn be32(data: &[u8], at: usize) -> i64 {
    i64::from(i32::from_be_bytes(data[at..at + 4].try_into().unwrap()))
}

/// The bytes of the animation subfiles (index groups 2–8: FSKA, FSHU ×3, FTXP, FVIS ×2) of a
/// Wii U BFRES: header group offsets at `0x20 + 4g` and the pool offset at `0x1C`, both
/// self-relative; an index group is `u32 size; i32 count` and `count + 1` nodes of 16 bytes whose
/// data offset (self-relative) is at `+12`.
fn animation_bytes(data: &[u8]) -> usize {
    let mut starts = vec![(data.len(), false), ((0x1C + be32(data, 0x1C)) as usize, false)];
    for g in 0..12 {
        let rel = be32(data, 0x20 + 4 * g);
        if rel == 0 {
            continue;
        }
        let dict = (0x20 + 4 * g as i64 + rel) as usize;
        starts.push((dict, false));
        let count = be32(data, dict + 4) as usize;
        for node in 1..=count {
            let field = dict + 8 + 16 * node + 12;
            starts.push(((field as i64 + be32(data, field)) as usize, (2..=8).contains(&g)));
        }
    }
    starts.sort_unstable();
    starts.windows(2).filter(|w| w[0].1).map(|w| w[1].0 - w[0].0).sum()
}

/// The Wii U BFRES bytes of a corpus file: itself, or its Yaz0 payload; `None` for anything else
/// (Switch files, SARC archives, Zstandard packs).
fn wii_u_bfres(data: &[u8]) -> Option<Vec<u8>> {
    let data = if data.starts_with(b"Yaz0") {
        animkit::containers::yaz0::decode(data, &Default::default()).ok()?.0
    } else {
        data.to_vec()
    };
    (data.starts_with(b"FRES") && data.get(8..10) == Some(&[0xFE, 0xFF])).then_some(data)
}

/// How far apart two samples are: the rotation angle (radians) between two rotations, the
/// difference relative to the magnitude (at least 1) for vectors and scalars, 0/1 for indices and
/// visibility.
fn difference(a: Sampled, b: Sampled) -> f32 {
    match (a, b) {
        (Sampled::Rotation(x), Sampled::Rotation(y)) => {
            let (x, y) = (x.normalize(), y.normalize());
            let chord = (x - y * x.dot(y).signum()).length();
            4.0 * (chord / 2.0).min(1.0).asin()
        }
        (Sampled::Translation(x), Sampled::Translation(y)) | (Sampled::Scale(x), Sampled::Scale(y)) => {
            (x - y).abs().max_element() / x.abs().max_element().max(1.0)
        }
        (Sampled::Scalar(x), Sampled::Scalar(y)) => (x - y).abs() / x.abs().max(1.0),
        (Sampled::TextureIndex(x), Sampled::TextureIndex(y)) => f32::from(u8::from(x != y)),
        (Sampled::Visibility(x), Sampled::Visibility(y)) => f32::from(u8::from(x != y)),
        (x, y) => panic!("{x:?} vs {y:?}"),
    }
}

/// The track of `package` on the target and channel of `track` in a clip called `clip`.
fn counterpart<'a>(package: &'a Package, clip: &str, track: &Track) -> &'a Track {
    package
        .clips
        .iter()
        .filter(|c| c.name == clip)
        .flat_map(|c| &c.tracks)
        .find(|t| t.target == track.target && t.channel() == track.channel())
        .unwrap_or_else(|| panic!("{clip} {} {:?} missing", track.target.label(), track.channel()))
}

/// The worst difference between `track` and `other` at 17 times over `clip` (whole frames at
/// 30 fps and the midpoints between them).
fn worst(clip: &Clip, track: &Track, other: &Track) -> f32 {
    (0..=16)
        .map(|k| {
            let frames = (clip.duration * 30.0 * k as f32 / 16.0).floor() + if k % 2 == 1 { 0.5 } else { 0.0 };
            let t = (frames / 30.0).min(clip.duration);
            difference(sample_track(track, t).unwrap(), sample_track(other, t).unwrap())
        })
        .fold(0.0, f32::max)
}

/// Per file: tracks compared, tracks read back bit for bit, worst FSKA and worst other difference.
struct Comparison {
    tracks: usize,
    identical: usize,
    worst_fska: f32,
    worst_other: f32,
}

/// Compares every track of `a` (the input as read) with its counterpart in `b` (the output as
/// read); FSKA tracks are the bone transform channels.
fn compare(a: &Package, b: &Package) -> Comparison {
    let mut c = Comparison { tracks: 0, identical: 0, worst_fska: 0.0, worst_other: 0.0 };
    for clip in &a.clips {
        for ta in &clip.tracks {
            let tb = counterpart(b, &clip.name, ta);
            let d = worst(clip, ta, tb);
            let bone = matches!(ta.values, Values::Rotation(_) | Values::Translation(_) | Values::Scale(_));
            let slot = if bone { &mut c.worst_fska } else { &mut c.worst_other };
            *slot = slot.max(d);
            c.tracks += 1;
            c.identical += usize::from(ta == tb);
        }
    }
    c
}

/// Every Wii U BFRES of the corpus, by folder and name, with its (decompressed) bytes.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for folder in ["bfres", "nintendo"] {
        for (name, data) in common::corpus_files(folder) {
            match wii_u_bfres(&data) {
                Some(bfres) => files.push((format!("{folder}/{name}"), bfres)),
                None => eprintln!("{folder}/{name}: skipped (no Wii U BFRES inside)"),
            }
        }
    }
    files
}

#[test]
fn an_unchanged_rewrite_is_no_larger_and_samples_as_the_input() {
    let mut table = vec![format!(
        "{:<48} {:>9} {:>9} {:>6} {:>9} {:>9} {:>6} {:>7} {:>9} {:>9}",
        "file", "in", "out", "ratio", "anim in", "anim out", "ratio", "tracks", "FSKA err", "other err"
    )];
    let files = corpus();
    for (name, data) in &files {
        let doc = Bfres.read(Bytes::from(data.clone()), &ReadOptions::default()).unwrap();
        let a = doc.to_model().unwrap();
        let out = Bfres.from_model(&a, &WriteOptions::default()).unwrap().document.write().unwrap();
        let b = Bfres.read(Bytes::from(out.clone()), &ReadOptions::default()).unwrap().to_model().unwrap();
        let (anim_in, anim_out) = (animation_bytes(data), animation_bytes(&out));
        let c = compare(&a, &b);
        table.push(format!(
            "{name:<48} {:>9} {:>9} {:>6.3} {anim_in:>9} {anim_out:>9} {:>6.3} {:>3}/{:<3} {:>9.2e} {:>9.2e}",
            data.len(),
            out.len(),
            out.len() as f64 / data.len() as f64,
            anim_out as f64 / anim_in as f64,
            c.identical,
            c.tracks,
            c.worst_fska,
            c.worst_other,
        ));
        assert!(out.len() as f64 <= 1.02 * data.len() as f64, "{name}: {} → {} bytes", data.len(), out.len());
        assert!(anim_out as f64 <= 1.02 * anim_in as f64, "{name}: animations {anim_in} → {anim_out} bytes");
        // FSKA and FSHU curves are kept; FTXP and FVIS keys are exact (integers and bits).
        assert_eq!((c.worst_fska, c.worst_other), (0.0, 0.0), "{name}: samples differ");
        assert_eq!(c.identical, c.tracks, "{name}: every track reads back bit for bit");
    }
    eprintln!("{}", table.join("\n"));
    assert!(files.len() >= 4 || files.is_empty(), "{} Wii U BFRES found", files.len());
}

/// The package of `data` with one key of one track of clip `clip` changed by `edit`: the middle
/// key of the first track of that channel whose values change. Returns the package and the
/// edited track's index.
fn edited(a: &Package, clip: &str, edit: impl Fn(&mut Values, usize)) -> (Package, usize) {
    let mut package = a.clone();
    let clip = package.clips.iter_mut().find(|c| c.name == clip).unwrap();
    let mut probe = Values::Scalar(Vec::new());
    edit(&mut probe, 0);
    let (index, track) = clip
        .tracks
        .iter_mut()
        .enumerate()
        .find(|(_, t)| t.channel() == probe.channel() && t.times.len() > 4)
        .expect("an animated track of that channel");
    let before = track.values.clone();
    edit(&mut track.values, 3 * (track.times.len() / 2) + 1);
    assert_ne!(track.values, before);
    (package, index)
}

/// Writes `package`, edited from `a` in track `index` of clip "Wait", and checks what is read back:
/// the edited track as edited, the tracks of that clip for which `may_change` holds within
/// quantisation, and every other track bit for bit. Returns the size written.
fn check_edit(what: &str, a: &Package, package: &Package, index: usize, may_change: impl Fn(&Track) -> bool) -> usize {
    let written = Bfres.from_model(package, &WriteOptions::default()).unwrap();
    let out = written.document.write().unwrap().len();
    let b = written.document.to_model().unwrap();
    let clip = package.clips.iter().find(|c| c.name == "Wait").unwrap();
    let track = &clip.tracks[index];
    let d = worst(clip, track, counterpart(&b, "Wait", track));
    assert_ne!(counterpart(&b, "Wait", track), &a.clips.iter().find(|c| c.name == "Wait").unwrap().tracks[index]);
    assert!(d < 1e-4, "{what}: the edited track is written as edited ({d})");
    let c = compare(package, &b);
    assert!(c.worst_fska < 1e-4, "{what}: {}", c.worst_fska);
    for other in &package.clips {
        for t in &other.tracks {
            let kept = counterpart(&b, &other.name, t) == t;
            let may = other.name == "Wait" && (std::ptr::eq(t, track) || may_change(t));
            assert!(kept || may, "{what}: {} {} {:?} changed", other.name, t.target.label(), t.channel());
        }
    }
    eprintln!(
        "{what}: {out} bytes; edited track within {d:.2e}; {}/{} tracks read back bit for bit, the rest within {:.2e}",
        c.identical, c.tracks, c.worst_fska
    );
    out
}

/// One key of one clip of `Animal_Bass_Animation.bfres` edited through the model. A translation
/// key: that track is encoded anew and every other keeps its curves. A rotation key turned by
/// 0.01 rad (with its tangents): Euler angle curves through the edited keys part from the
/// track by 0.1° between keys, more than `rotation=auto` allows, so the clip's rotations are
/// written as quaternion curves (FSKA stores one rotation mode per animation); its translations
/// and scales and every other clip keep their curves.
#[test]
fn an_edited_track_is_encoded_anew_and_the_others_kept() {
    let Some(data) = common::corpus_file("bfres", "Animal_Bass_Animation.bfres") else { return };
    let a = Bfres.read(Bytes::from(data), &ReadOptions::default()).unwrap().to_model().unwrap();
    let unchanged = Bfres.from_model(&a, &WriteOptions::default()).unwrap().document.write().unwrap().len();
    let nudge_translation = |v: &mut Values, k: usize| match v {
        Values::Translation(v) => v[k] += Vec3::new(0.05, -0.02, 0.01),
        other => *other = Values::Translation(Vec::new()),
    };
    let (package, index) = edited(&a, "Wait", nudge_translation);
    let out = check_edit("translation key edited", &a, &package, index, |_| false);
    assert!(out <= unchanged + 256, "{unchanged} → {out}");
    let turn_rotation = |v: &mut Values, k: usize| match v {
        // The key turned with its tangents, as an editor rotates a key.
        Values::Rotation(v) => v[k - 1..=k + 1].iter_mut().for_each(|q| *q = Quat::from_rotation_x(0.01) * *q),
        other => *other = Values::Rotation(Vec::new()),
    };
    let (package, index) = edited(&a, "Wait", turn_rotation);
    let rotation = |t: &Track| matches!(t.values, Values::Rotation(_));
    let out = check_edit("rotation key edited", &a, &package, index, rotation);
    assert!(out <= unchanged + 2048, "{unchanged} → {out}");
}
