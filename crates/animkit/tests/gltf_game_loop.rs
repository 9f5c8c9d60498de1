//! The Blender loop: a game clip exported to GLB, imported back and written in its own game format
//! again plays as the same clip written directly. The glTF leg may add float noise only: the loop's
//! distance from the original, sampled at every key and between keys, stays within 1e-4 of the
//! direct write's (which is the format's own quantisation).

mod common;

use animkit::model::{Clip, Package, Track};
use animkit::sample::{sample_track, Sampled};
use animkit::{Bytes, ReadOptions, WriteOptions};
use glam::Vec4;

fn gltf_loop(package: &Package) -> Package {
    let (glb, _) = common::gltf::export_glb(package);
    let gltf = animkit::REGISTRY.by_name("gltf").unwrap().0;
    gltf.read(Bytes::from(glb), &ReadOptions::default()).unwrap().to_model().unwrap()
}

/// `package` written as `variant` and read back.
fn rewrite(package: &Package, variant: &str, params: &[(&str, &str)]) -> Package {
    let (format, variant) = animkit::REGISTRY.by_name(variant).unwrap();
    let mut options = WriteOptions::default();
    options.variant = variant.map(str::to_string);
    options.params = params.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect();
    let written = format.from_model(package, &options).unwrap_or_else(|e| panic!("{variant:?}: {e}"));
    let bytes = written.document.write().unwrap();
    format.read(Bytes::from(bytes), &ReadOptions::default()).unwrap().to_model().unwrap()
}

fn difference(a: Sampled, b: Sampled) -> f32 {
    match (a, b) {
        (Sampled::Rotation(p), Sampled::Rotation(q)) => {
            let (p, q) = (Vec4::from(p), Vec4::from(q));
            (p - q).abs().max_element().min((p + q).abs().max_element())
        }
        (Sampled::Translation(p), Sampled::Translation(q)) | (Sampled::Scale(p), Sampled::Scale(q)) => {
            (p - q).abs().max_element()
        }
        (a, b) => panic!("different channels: {a:?} {b:?}"),
    }
}

/// The largest difference between `clip`'s tracks and their counterparts in `other` (same bone by
/// `pick`, same channel), sampled at every key time of `clip` and halfway between keys.
fn distance(clip: &Clip, other: &Clip, pick: &dyn Fn(&Track, &Track) -> bool) -> f32 {
    let mut worst = 0.0f32;
    for track in &clip.tracks {
        let theirs =
            other.tracks.iter().find(|t| t.channel() == track.channel() && pick(track, t)).unwrap_or_else(|| {
                panic!("{}: no {:?} track for {}", clip.name, track.channel(), track.target.label())
            });
        let halves = track.times.windows(2).map(|w| (w[0] + w[1]) / 2.0);
        for t in track.times.iter().copied().chain(halves) {
            let (Some(a), Some(b)) = (sample_track(track, t), sample_track(theirs, t)) else { continue };
            worst = worst.max(difference(a, b));
        }
    }
    worst
}

fn same_index(a: &Track, b: &Track) -> bool {
    a.target.bone().and_then(|x| x.index) == b.target.bone().and_then(|x| x.index)
}

fn same_bone(a: &Track, b: &Track) -> bool {
    matches!((a.target.bone(), b.target.bone()), (Some(x), Some(y)) if x.matches(y))
}

/// EvilEngine: every clip of BFBB's SpongeBob (bound to his HAnim skeleton), as SKB V1 big-endian.
#[test]
fn hip_clips_survive_the_gltf_loop() {
    let Some(dir) = common::corpus_dir("evilengine") else { return };
    let doc = animkit::open(dir.join("bfbb_gc_boot.HIP")).unwrap();
    let package = doc.packages().unwrap().into_iter().find(|p| p.name == "spongebob").unwrap();
    assert_eq!(package.clips.len(), 109);
    let (mut direct_worst, mut loop_worst) = (0.0f32, 0.0f32);
    for clip in &package.clips {
        let one = Package { clips: vec![clip.clone()], ..package.clone() };
        let direct = rewrite(&one, "skb-be", &[]);
        let looped = rewrite(&gltf_loop(&one), "skb-be", &[]);
        let d = distance(clip, &direct.clips[0], &same_index);
        let l = distance(clip, &looped.clips[0], &same_index);
        assert!(l <= d + 1e-4, "{}: loop {l}, direct {d}", clip.name);
        (direct_worst, loop_worst) = (direct_worst.max(d), loop_worst.max(l));
    }
    eprintln!("{} clips: direct {direct_worst}, loop {loop_worst}", package.clips.len());
}

/// CryEngine: every CAF and i_caf with its `.chr` skeleton (corpus README pairs), as compiled CAF.
#[test]
fn cryengine_animations_survive_the_gltf_loop() {
    let Some(dir) = common::corpus_dir("cryengine") else { return };
    let mut files = 0;
    for (name, bytes) in common::corpus_files("cryengine") {
        let chr = match name.split('_').next() {
            Some("ce3") => "ce3_skeleton_character.chr",
            Some("ly") => "ly_jack_root.chr",
            Some("ce5") => "ce5_skelProxy.chr",
            _ => continue,
        };
        if !(name.ends_with(".caf") || name.ends_with(".i_caf")) {
            continue;
        }
        let mut options = ReadOptions::default();
        options.params.insert("skeleton".into(), dir.join(chr).display().to_string());
        let doc = animkit::read(Bytes::from(bytes), Some(std::path::Path::new(&name)), &options).unwrap();
        let package = doc.to_model().unwrap();
        let direct = rewrite(&package, "caf", &[]);
        let looped = rewrite(&gltf_loop(&package), "caf", &[]);
        for (clip, (d, l)) in package.clips.iter().zip(direct.clips.iter().zip(&looped.clips)) {
            let (d, l) = (distance(clip, d, &same_bone), distance(clip, l, &same_bone));
            eprintln!("{name} {}: direct {d}, loop {l}", clip.name);
            assert!(l <= d + 1e-4, "{name} {}: loop {l}, direct {d}", clip.name);
        }
        files += 1;
    }
    assert_eq!(files, 8);
}

/// BFRES: every skeletal animation (FSKA) of the corpus with its skeleton, as Wii U BFRES.
#[test]
fn bfres_skeletal_animations_survive_the_gltf_loop() {
    let Some(dir) = common::corpus_dir("bfres") else { return };
    let bass = animkit::open(dir.join("Animal_Bass.bfres")).unwrap().to_model().unwrap().skeleton;
    for name in ["Animal_Bass_Animation.bfres", "Npc_Gerudo_Queen_Animation.bfres"] {
        let mut package = animkit::open(dir.join(name)).unwrap().to_model().unwrap();
        if package.skeleton.is_none() {
            package.skeleton = bass.clone();
        }
        package.clips.retain(|c| c.tracks.iter().all(|t| t.target.bone().is_some()));
        assert!(!package.clips.is_empty(), "{name}");
        let direct = rewrite(&package, "bfres", &[]);
        let looped = rewrite(&gltf_loop(&package), "bfres", &[]);
        let (mut dw, mut lw) = (0.0f32, 0.0f32);
        for clip in &package.clips {
            let d = distance(clip, direct.clip(&clip.name).unwrap(), &same_bone);
            let l = distance(clip, looped.clip(&clip.name).unwrap(), &same_bone);
            assert!(l <= d + 1e-4, "{name} {}: loop {l}, direct {d}", clip.name);
            (dw, lw) = (dw.max(d), lw.max(l));
        }
        eprintln!("{name}: {} clips, direct {dw}, loop {lw}", package.clips.len());
    }
}
