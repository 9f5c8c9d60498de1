//! BFRES model → file → model: corpus animations survive within quantisation, FTXP exactly.

mod common;

use animkit::formats::bfres::Bfres;
use animkit::model::{Channel, Package, Values};
use animkit::sample::{sample_track, Sampled};
use animkit::{Bytes, Format, ReadOptions, WriteOptions};

fn model_of(data: Vec<u8>) -> Package {
    Bfres.read(Bytes::from(data), &ReadOptions::default()).unwrap().to_model().unwrap()
}

fn rewrite(p: &Package, params: &[(&str, &str)]) -> Package {
    let mut o = WriteOptions::default();
    for (k, v) in params {
        o.params.insert(k.to_string(), v.to_string());
    }
    let written = Bfres.from_model(p, &o).unwrap();
    let bytes = written.document.write().unwrap();
    // The rotation mode asked for is the one written.
    use animkit::formats::bfres::{fres, fska};
    let file = fres::read(&bytes).unwrap();
    for (_, at) in fres::entries(&bytes, &file.header, fres::G_FSKA).unwrap() {
        let a =
            fska::read(&bytes, at, animkit::formats::bfres::platform::Platform::WiiU { version: file.header.version })
                .unwrap();
        // Euler XYZ unless quaternions are asked for (BotW stores Euler, §7.1).
        let euler = !params.contains(&("rotation", "quat"));
        assert_eq!(a.rotate_mode() == fska::RotateMode::EulerXyz, euler);
    }
    // The new file reads back, writes back byte for byte and lints clean.
    let again = Bfres.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap();
    assert_eq!(again.write().unwrap(), bytes);
    assert!(again.lint().is_empty(), "{:?}", again.lint());
    again.to_model().unwrap()
}

fn compare(a: &Package, b: &Package) -> (usize, f32) {
    let (mut n, mut worst) = (0, 0f32);
    for ca in &a.clips {
        // FSKA, FSHU and FVIS clips may share a name: look in every clip of that name.
        let same: Vec<_> = b.clips.iter().filter(|c| c.name == ca.name).collect();
        assert!(!same.is_empty(), "clip {} missing", ca.name);
        for cb in &same {
            assert!((ca.duration - cb.duration).abs() < 1e-5);
        }
        let frames = (ca.duration * 30.0).round() as i32;
        for ta in &ca.tracks {
            let tb = same
                .iter()
                .flat_map(|c| &c.tracks)
                .find(|t| t.target == ta.target && t.channel() == ta.channel())
                .unwrap_or_else(|| panic!("{} {} {:?} missing", ca.name, ta.target.label(), ta.channel()));
            for h in 0..=2 * frames {
                let t = h as f32 / 60.0;
                let (sa, sb) = (sample_track(ta, t).unwrap(), sample_track(tb, t).unwrap());
                let err = match (sa, sb) {
                    (Sampled::Rotation(x), Sampled::Rotation(y)) => 1.0 - x.dot(y).abs(),
                    (Sampled::Translation(x), Sampled::Translation(y)) | (Sampled::Scale(x), Sampled::Scale(y)) => {
                        (x - y).abs().max_element() / x.abs().max_element().max(1.0)
                    }
                    (Sampled::TextureIndex(x), Sampled::TextureIndex(y)) => (x != y) as u8 as f32,
                    (Sampled::Visibility(x), Sampled::Visibility(y)) => (x != y) as u8 as f32,
                    (Sampled::Scalar(x), Sampled::Scalar(y)) => (x - y).abs() / x.abs().max(1.0),
                    (x, y) => panic!("{x:?} vs {y:?}"),
                };
                worst = worst.max(err);
                n += 1;
                assert!(err < 2e-4, "{} {} {:?} t={t}: {sa:?} vs {sb:?}", ca.name, ta.target.label(), ta.channel());
            }
        }
    }
    (n, worst)
}

#[test]
fn fska_survives_the_model_in_both_rotation_modes() {
    let Some(data) = common::corpus_file("bfres", "Animal_Bass_Animation.bfres") else {
        return;
    };
    let a = model_of(data);
    for mode in ["quat", "euler"] {
        let b = rewrite(&a, &[("rotation", mode)]);
        let (n, worst) = compare(&a, &b);
        eprintln!("rotation={mode}: {n} samples, worst relative error {worst:e}");
    }
}

#[test]
fn ftxp_survives_the_model_exactly() {
    let Some(data) = common::corpus_file("bfres", "Animal_Bass.bfres") else {
        return;
    };
    let a = model_of(data);
    let b = rewrite(&a, &[]);
    let (ta, tb) = (&a.clip("Bass_Color").unwrap().tracks, &b.clip("Bass_Color").unwrap().tracks);
    assert_eq!(ta, tb);
    assert_eq!(ta[0].channel(), Channel::TextureIndex);
    let Values::TextureIndex { indices, .. } = &tb[0].values else { unreachable!() };
    assert_eq!(indices, &[0, 1, 2]);
}

#[test]
fn generated_clip_round_trips() {
    use animkit::model::{BoneRef, Clip, Interpolation, Target, Track};
    use glam::{Quat, Vec3};
    let times: Vec<f32> = (0..=40).map(|i| i as f32 / 30.0).collect();
    let rot: Vec<Quat> = times.iter().map(|t| Quat::from_rotation_y(t * 3.0) * Quat::from_rotation_x(*t)).collect();
    let tr: Vec<Vec3> = times.iter().map(|t| Vec3::new(t.sin(), 2.0 * t, -t * t)).collect();
    let bone = Target::Bone(BoneRef::named("Arm"));
    let clip = Clip {
        name: "Wave".into(),
        duration: 40.0 / 30.0,
        looping: Some(true),
        frame_rate: Some(30.0),
        tracks: vec![
            Track {
                target: bone.clone(),
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values: Values::Rotation(rot),
            },
            Track { target: bone, interpolation: Interpolation::Linear, times, values: Values::Translation(tr) },
        ],
        ..Default::default()
    };
    let mut clip = clip;
    // A held (step) scalar and translation: written as held segments, read back as steps.
    let steps: Vec<f32> = vec![0.0, 10.0 / 30.0, 25.0 / 30.0];
    let mat = Target::Material { material: "Mt".into(), property: "tex_srt0.translate_x".into() };
    clip.tracks.push(Track {
        target: mat,
        interpolation: Interpolation::Step,
        times: steps.clone(),
        values: Values::Scalar(vec![0.0, 0.5, -0.25]),
    });
    let leg = Target::Bone(BoneRef::named("Leg"));
    let tv = vec![Vec3::ZERO, Vec3::new(1.0, 0.0, 2.0), Vec3::new(-1.0, 3.0, 2.0)];
    clip.tracks.push(Track {
        target: leg,
        interpolation: Interpolation::Step,
        times: steps,
        values: Values::Translation(tv),
    });
    let a = Package { name: "gen".into(), clips: vec![clip], ..Default::default() };
    for mode in ["quat", "euler"] {
        let b = rewrite(&a, &[("rotation", mode)]);
        let (n, worst) = compare(&a, &b);
        eprintln!("generated, rotation={mode}: {n} samples, worst {worst:e}");
    }
}

#[test]
fn large_retail_file_survives_the_model() {
    let Some(data) = common::corpus_file("bfres", "Npc_Gerudo_Queen_Animation.bfres") else {
        return;
    };
    let mut a = model_of(data);
    // Every 4th skeletal clip keeps the debug-build test fast; all of them convert.
    let mut i = 0;
    a.clips.retain(|c| {
        i += 1;
        i % 4 == 1 || !c.tracks.iter().any(|t| t.channel() == Channel::Rotation)
    });
    let b = rewrite(&a, &[("rotation", "euler")]);
    let (n, worst) = compare(&a, &b);
    eprintln!("{} retail clips: {n} samples, worst relative error {worst:e}", a.clips.len());
}

/// Quaternion keys whose signs alternate (`q`, `-q'`, ...), as a Blender glTF export gives: the
/// same rotations, so the written curves must not flip through zero between keys. Checked at
/// quarter frames against slerp of the original keys (shortest path, sign-independent).
#[test]
fn alternating_quaternion_signs_stay_continuous() {
    use animkit::model::{BoneRef, Clip, Interpolation, Target, Track};
    use glam::Quat;
    let times: Vec<f32> = (0..=12).map(|i| i as f32 * 2.0 / 30.0).collect();
    let rot: Vec<Quat> = times
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let q = Quat::from_rotation_z(t * 2.0) * Quat::from_rotation_x(*t);
            if i % 2 == 1 {
                -q
            } else {
                q
            }
        })
        .collect();
    let bone = Target::Bone(BoneRef::named("Spine"));
    let track = Track {
        target: bone,
        interpolation: Interpolation::Linear,
        times: times.clone(),
        values: Values::Rotation(rot),
    };
    let clip = Clip {
        name: "Flip".into(),
        duration: 24.0 / 30.0,
        looping: Some(false),
        frame_rate: Some(30.0),
        tracks: vec![track.clone()],
        ..Default::default()
    };
    let a = Package { name: "gen".into(), clips: vec![clip], ..Default::default() };
    for mode in ["quat", "euler"] {
        let b = rewrite(&a, &[("rotation", mode)]);
        let tb = &b.clip("Flip").unwrap().tracks[0];
        for h in 0..=96 {
            let t = h as f32 / 120.0;
            let (Some(Sampled::Rotation(x)), Some(Sampled::Rotation(y))) =
                (sample_track(&track, t), sample_track(tb, t))
            else {
                panic!("rotation samples")
            };
            let angle = 2.0 * x.dot(y).abs().min(1.0).acos();
            assert!(angle < 2e-3, "rotation={mode} t={t}: {angle} rad apart");
        }
    }
}
