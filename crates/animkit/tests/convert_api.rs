//! The one-call API: `animkit::write` and `animkit::convert` with packages built here, checked
//! options, and conversions that would lose everything failing instead of writing.

mod common;

use std::path::{Path, PathBuf};

use animkit::convert::{Destination, OutputOptions};
use animkit::model::{Bone, BoneRef, Clip, Interpolation, Package, Skeleton, Target, Track, Values};
use animkit::{ConvertOptions, Format, ReadOptions, WriteOptions};
use glam::{Quat, Vec3};

/// A fresh temp dir for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("animkit-convert-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// "wave": the arm turns 0°, 30°, 60° about X at 0, 0.5, 1 s and moves up 0, 0.25, 0.5.
fn wave() -> Package {
    let times = vec![0.0, 0.5, 1.0];
    let arm = || Target::Bone(BoneRef::named("Arm"));
    let rotations = [0f32, 30.0, 60.0].iter().map(|d| Quat::from_rotation_x(d.to_radians())).collect();
    let translations = [0f32, 0.25, 0.5].iter().map(|y| Vec3::new(0.0, *y, 0.0)).collect();
    let track = |values| Track { target: arm(), interpolation: Interpolation::Linear, times: times.clone(), values };
    let clip = Clip {
        name: "wave".into(),
        duration: 1.0,
        tracks: vec![track(Values::Rotation(rotations)), track(Values::Translation(translations))],
        ..Default::default()
    };
    Package { clips: vec![clip], ..Default::default() }
}

fn to(format: &str) -> OutputOptions {
    OutputOptions::to(format)
}

/// The times and values of the rotation (or else translation) track of `package`'s first clip.
fn keys(package: &Package, rotation: bool) -> (Vec<f32>, Vec<[f32; 4]>) {
    let track = package.clips[0]
        .tracks
        .iter()
        .find(|t| matches!(t.values, Values::Rotation(_)) == rotation)
        .expect("track of the channel");
    let values = match &track.values {
        Values::Rotation(q) => q.iter().map(|q| q.to_array()).collect(),
        Values::Translation(v) => v.iter().map(|v| [v.x, v.y, v.z, 0.0]).collect(),
        other => panic!("unexpected {:?}", other.channel()),
    };
    (track.times.clone(), values)
}

fn assert_close(a: &[[f32; 4]], b: &[[f32; 4]], tolerance: f32) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        let same = x.iter().zip(y).all(|(p, q)| (p - q).abs() <= tolerance);
        let negated = x.iter().zip(y).all(|(p, q)| (p + q).abs() <= tolerance);
        assert!(same || negated, "{x:?} vs {y:?} (tolerance {tolerance})");
    }
}

#[test]
fn a_package_written_as_ifp_and_glb_reads_back() {
    let dir = temp_dir("write");
    let package = wave();
    let (times, rotations) = keys(&package, true);
    let (_, translations) = keys(&package, false);
    // ANP3 stores rotations in 1/4096 and translations in 1/1024 steps; glTF stores f32.
    for (name, turn, step) in [("wave.ifp", 1.0 / 4096.0, 1.0 / 1024.0), ("wave.glb", 0.0, 0.0)] {
        let path = dir.join(name);
        let report = animkit::write(&package, &path, &OutputOptions::default()).unwrap();
        assert_eq!(report.path, path);
        assert_eq!((report.input.clips, report.input.tracks, report.input.keys), (1, 2, 6));
        assert_eq!(report.kept.map(|k| k.tracks), Some(2), "{name}");
        assert!(report.losses.is_empty(), "{name}: {:?}", report.losses);
        let back = animkit::open(&path).unwrap().to_model().unwrap();
        assert_eq!(back.clips[0].name, "wave");
        assert_eq!(keys(&back, true).0, times, "{name}");
        assert_close(&keys(&back, true).1, &rotations, turn);
        assert_close(&keys(&back, false).1, &translations, step);
    }
    // The format named wins over the extension: ANPK, GTA III / Vice City.
    let anpk = dir.join("vc.ifp");
    assert_eq!(animkit::write(&package, &anpk, &to("anpk")).unwrap().variant, Some("anpk"));
    assert_eq!(&std::fs::read(&anpk).unwrap()[..4], b"ANPK");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unknown_option_is_an_error_that_lists_the_valid_keys() {
    let dir = temp_dir("options");
    let mut bad = to("ifp");
    bad.params.insert("overflw".into(), "error".into());
    let e = animkit::write(&wave(), dir.join("x.ifp"), &bad).unwrap_err();
    assert!(e.message.contains("unknown option \"overflw\" for writing ifp"), "{e}");
    assert!(e.message.contains("compression=auto|none") && e.message.contains("overflow=uncompressed|error"), "{e}");
    assert!(!dir.join("x.ifp").exists());
    // Read settings are checked against the input's format.
    let input = dir.join("in.ifp");
    animkit::write(&wave(), &input, &OutputOptions::default()).unwrap();
    let mut options = ConvertOptions::default();
    options.read.params.insert("timelime".into(), "engine".into());
    let e = animkit::convert(&input, dir.join("out.glb"), &options).unwrap_err();
    assert!(e.message.contains("for reading ifp") && e.message.contains("timeline=authored|engine"), "{e}");
    assert!(!dir.join("out.glb").exists());
    // Every format's declared keys are the ones its code reads: a declared key with a bad value
    // reaches the format, which names it.
    options.read.params = [("timeline".to_string(), "sideways".to_string())].into();
    let e = animkit::convert(&input, dir.join("out.glb"), &options).unwrap_err();
    assert!(e.message.contains("timeline=sideways"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn writing_no_track_at_all_fails_and_says_what_to_pass() {
    let dir = temp_dir("empty");
    // SKB binds tracks by bone index; without a skeleton, named tracks have none.
    let path = dir.join("wave.anm");
    let e = animkit::write(&wave(), &path, &to("skb-le")).unwrap_err();
    assert!(e.message.contains("none of the 2 tracks"), "{e}");
    assert!(e.message.contains("2 of 2 tracks dropped") && e.message.contains("SKB bone index"), "{e}");
    assert!(e.message.contains("--skeleton"), "{e}");
    assert!(!path.exists());
    // A package with nothing in it.
    let e = animkit::write(&Package::default(), dir.join("none.glb"), &OutputOptions::default()).unwrap_err();
    assert!(e.message.contains("nothing to convert"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A CAF made here from a clip without tracks (its chunks, no controller) converts to nothing:
/// the conversion fails instead of writing an empty GLB.
#[test]
fn a_cryengine_file_without_controllers_does_not_become_an_empty_glb() {
    let dir = temp_dir("cry");
    let empty = Package {
        clips: vec![Clip { name: "idle".into(), duration: 1.0, ..Default::default() }],
        ..Default::default()
    };
    let cry = animkit::REGISTRY.by_name("cryengine").unwrap().0;
    let caf = cry.from_model(&empty, &WriteOptions::default()).unwrap().document.write().unwrap();
    let input = dir.join("idle.caf");
    std::fs::write(&input, caf).unwrap();
    let summary = animkit::open(&input).unwrap().summary().unwrap();
    assert_eq!(summary.clips.iter().map(|c| c.tracks.len()).sum::<usize>(), 0, "the CAF has no track");
    let out = dir.join("idle.glb");
    let e = animkit::convert(&input, &out, &ConvertOptions::default()).unwrap_err();
    assert!(e.message.contains("nothing to convert") && e.message.contains("no animation track"), "{e}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// ANP3 has no scale: the scale track is dropped, counted, and the writer's reason kept.
#[test]
fn a_partial_loss_is_counted() {
    let dir = temp_dir("partial");
    let mut package = wave();
    let scale = Track {
        target: Target::Bone(BoneRef::named("Arm")),
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0],
        values: Values::Scale(vec![Vec3::ONE, Vec3::splat(2.0)]),
    };
    package.clips[0].tracks.push(scale);
    let report = animkit::write(&package, dir.join("w.ifp"), &OutputOptions::default()).unwrap();
    assert_eq!(report.losses, ["1 of 3 tracks dropped"]);
    assert!(report.details.iter().any(|w| w.contains("scale of Arm dropped")), "{:?}", report.details);
    assert!(
        report.warnings.iter().any(|w| w.contains("scale of Arm dropped: ANP3 has no scale")),
        "{:?}",
        report.warnings
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn convert_picks_clips_and_refuses_to_overwrite_its_input() {
    let dir = temp_dir("convert");
    let mut package = wave();
    let mut walk = package.clips[0].clone();
    walk.name = "walk".into();
    package.clips.push(walk);
    let input = dir.join("two.ifp");
    animkit::write(&package, &input, &OutputOptions::default()).unwrap();
    let options = ConvertOptions::default().with_clips(["WALK"]);
    let report = animkit::convert(&input, dir.join("walk.glb"), &options).unwrap();
    assert_eq!(report.input_format, "ifp");
    assert_eq!(report.files.len(), 1);
    let back = animkit::open(dir.join("walk.glb")).unwrap().to_model().unwrap();
    assert_eq!(back.clips.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["walk"]);
    // Into a directory: STEM.EXT, the format named.
    let into = ConvertOptions::to("glb");
    let report = animkit::convert(&input, format!("{}/", dir.join("out").display()), &into).unwrap();
    assert_eq!(report.files[0].path, dir.join("out").join("two.glb"));
    let e = animkit::convert(&input, &input, &ConvertOptions::default()).unwrap_err();
    assert!(e.message.contains("refusing to overwrite the input"), "{e}");
    assert_eq!(animkit::open(&input).unwrap().to_model().unwrap().clips.len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn weaponsprint_to_skb_without_a_skeleton_fails() {
    let Some(dir) = common::corpus_dir("ifp") else { return };
    let out = temp_dir("weaponsprint");
    let target = out.join("w.anm");
    let options = ConvertOptions::to("skb-le");
    let e = animkit::convert(dir.join("weaponsprint_anp3.ifp"), &target, &options).unwrap_err();
    assert!(e.message.contains("none of the 36 tracks") && e.message.contains("36 of 36 tracks dropped"), "{e}");
    assert!(e.message.contains("--skeleton"), "{e}");
    assert!(!target.exists());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_hip_with_several_characters_splits_into_a_directory() {
    let Some(dir) = common::corpus_dir("evilengine") else { return };
    let out = temp_dir("hip");
    let hip = dir.join("bfbb_gc_boot.HIP");
    let options = ConvertOptions::to("glb");
    let planned = animkit::convert::plan(std::slice::from_ref(&hip), &out, &options).unwrap();
    assert_eq!(planned[0].destination, Destination::Prefix(out.join("bfbb_gc_boot")));
    let report = animkit::convert(&hip, format!("{}/", out.display()), &options).unwrap();
    let written: Vec<&Path> = report.files.iter().map(|f| f.path.as_path()).collect();
    let names: Vec<String> = written.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(planned[0].files.iter().map(PathBuf::as_path).collect::<Vec<_>>(), written);
    assert_eq!(names.len(), 5, "{names:?}");
    let spongebob = report.files.iter().find(|f| f.character.as_deref() == Some("spongebob")).unwrap();
    assert_eq!((spongebob.input.clips, spongebob.with_skeleton), (109, true));
    assert!(names.contains(&"bfbb_gc_boot_spongebob.glb".to_string()));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_read_key_is_not_a_write_key() {
    let dir = temp_dir("split");
    let input = dir.join("in.ifp");
    animkit::write(&wave(), &input, &OutputOptions::default()).unwrap();
    let options = ConvertOptions::default().with_output(OutputOptions::default().with_param("timeline", "engine"));
    let e = animkit::convert(&input, dir.join("x.glb"), &options).unwrap_err();
    assert!(e.message.contains("unknown option \"timeline\" for writing gltf"), "{e}");
    let ifp: &dyn Format = animkit::REGISTRY.by_name("ifp").unwrap().0;
    assert!(ifp.read_params().iter().any(|p| p.key == "timeline"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A skeleton alone (a model file without animation) is worth a glTF, which keeps it; a BFRES
/// written from it would hold nothing, so that fails.
#[test]
fn a_skeleton_alone_converts_only_where_the_output_keeps_it() {
    let dir = temp_dir("skeleton");
    let bone = |name: &str, parent| Bone { name: name.into(), parent, ..Default::default() };
    let rig = Package {
        skeleton: Some(Skeleton { bones: vec![bone("Root", None), bone("Arm", Some(0))] }),
        ..Default::default()
    };
    let report = animkit::write(&rig, dir.join("rig.glb"), &OutputOptions::default()).unwrap();
    assert_eq!(report.kept.map(|k| k.tracks), Some(0));
    let back = animkit::open(dir.join("rig.glb")).unwrap().to_model().unwrap();
    assert_eq!(back.skeleton.map(|s| s.bones.len()), Some(2));
    let e = animkit::write(&rig, dir.join("rig.bfres"), &OutputOptions::default()).unwrap_err();
    assert!(e.message.contains("nothing to convert") && e.message.contains("keeps no skeleton"), "{e}");
    assert!(!dir.join("rig.bfres").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every declared key is one its format's code reads: a bogus value for a key with a closed set
/// of values (or a number) reaches the format, whose error names it.
#[test]
fn declared_keys_reach_their_format() {
    let dir = temp_dir("declared");
    let checked = |values: &str| values.contains('|') && values != "true|false" || values == "NUMBER";
    let mut tried = 0;
    for format in animkit::REGISTRY.formats().iter().filter(|f| f.capabilities().from_model) {
        for param in format.write_params().iter().filter(|p| checked(p.values)) {
            let mut options = to(format.name());
            options.params.insert(param.key.into(), "bogus".into());
            let path = dir.join(format!("x.{}", format.extensions()[0]));
            let e = animkit::write(&wave(), &path, &options).unwrap_err();
            assert!(e.message.contains("bogus"), "{} {}: {e}", format.name(), param.key);
            tried += 1;
        }
    }
    for (ext, format) in [("ifp", "ifp"), ("bfres", "bfres")] {
        let input = dir.join(format!("in.{ext}"));
        animkit::write(&wave(), &input, &OutputOptions::default()).unwrap();
        let declared = animkit::REGISTRY.by_name(format).unwrap().0.read_params();
        for param in declared.iter().filter(|p| checked(p.values)) {
            let mut options = ConvertOptions::default();
            options.read.params.insert(param.key.into(), "bogus".into());
            let e = animkit::convert(&input, dir.join("out.glb"), &options).unwrap_err();
            assert!(e.message.contains("bogus"), "{format} {}: {e}", param.key);
            tried += 1;
        }
    }
    assert_eq!(tried, 13, "ifp 2 + 4, cryengine 2, bfres 3 + 1, gltf 1: a key skipped would go unchecked");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ConvertOptions::params` (the CLI's `--opt`) go to whichever side takes them.
#[test]
fn shared_settings_go_where_they_are_taken() {
    let dir = temp_dir("shared");
    let input = dir.join("in.ifp");
    animkit::write(&wave(), &input, &OutputOptions::default()).unwrap();
    // fps is a BFRES write key (IFP does not read it): keys at 60 frames per second.
    let mut options = ConvertOptions::default();
    options.params.insert("fps".into(), "60".into());
    let out = dir.join("out.bfres");
    animkit::convert(&input, &out, &options).unwrap();
    let at = |fps: &str| {
        let read = ReadOptions::default().with_params([("fps".to_string(), fps.to_string())].into());
        animkit::open_with(&out, &read).unwrap().to_model().unwrap().clips[0].duration
    };
    assert_eq!((at("60"), at("30")), (1.0, 2.0), "60 frames: 1 s at 60 fps, 2 s at 30");
    // And BFRES to BFRES: read and written at 60, the seconds stay.
    let again = dir.join("again.bfres");
    animkit::convert(&out, &again, &options).unwrap();
    let read = ReadOptions::default().with_params(options.params.clone());
    assert_eq!(animkit::open_with(&again, &read).unwrap().to_model().unwrap().clips[0].duration, 1.0);
    // A key neither side takes names both.
    options.params = [("fsp".to_string(), "60".to_string())].into();
    let e = animkit::convert(&input, dir.join("x.glb"), &options).unwrap_err();
    assert!(e.message.contains("for reading ifp") && e.message.contains("for writing gltf"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
