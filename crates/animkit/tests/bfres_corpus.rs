//! BFRES corpus tests: every file (the `.sbfres` after Yaz0) reads, writes back byte-identically,
//! dumps and packs identically, and truncation gives an error, never a panic.

mod common;

use animkit::formats::bfres::{fres, Bfres};
use animkit::{Bytes, Format, ReadOptions};

fn files() -> Vec<(String, Vec<u8>)> {
    common::corpus_files("bfres")
        .into_iter()
        .map(|(name, data)| {
            if name.ends_with(".sbfres") {
                let (dec, _) =
                    animkit::containers::yaz0::decode(&data, &Default::default()).unwrap();
                (name, dec)
            } else {
                (name, data)
            }
        })
        .collect()
}

#[test]
fn every_file_round_trips_byte_for_byte() {
    let files = files();
    let mut n = 0;
    for (name, data) in &files {
        let doc = Bfres
            .read(Bytes::from(data.clone()), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(doc.write().unwrap() == *data, "{name}: write differs");
        let dumped = animkit::dump(doc.as_ref()).unwrap();
        let text = serde_json::to_string(&dumped).unwrap();
        let packed = animkit::pack(serde_json::from_str(&text).unwrap()).unwrap();
        assert!(
            packed.write().unwrap() == *data,
            "{name}: dump/pack differs"
        );
        let file = fres::read(data).unwrap();
        assert!(
            file.parts
                .iter()
                .any(|p| matches!(p, fres::Part::Strings(_))),
            "{name}: pool not parsed"
        );
        let subfiles = file
            .parts
            .iter()
            .filter(|p| matches!(p, fres::Part::Subfile { .. }))
            .count();
        eprintln!("{name}: {} parts, {subfiles} subfiles", file.parts.len());
        let findings = doc.lint();
        assert!(findings.is_empty(), "{name}: {findings:?}");
        n += 1;
    }
    eprintln!("{n} BFRES files round-trip");
}

#[test]
fn truncation_is_an_error() {
    for (name, data) in files() {
        let step = (data.len() / 300).max(1);
        for cut in (0..data.len()).step_by(step) {
            let r = fres::read(&data[..cut]);
            if let Ok(doc) = Bfres.read(Bytes::from(data[..cut].to_vec()), &ReadOptions::default())
            {
                // A cut inside trailing opaque bytes may still parse; the model must not panic.
                let _ = doc.to_model();
            } else {
                assert!(r.is_err(), "{name} cut at {cut}");
            }
        }
    }
}

fn doc(name: &str) -> Option<Box<dyn animkit::Document>> {
    let data = files().into_iter().find(|f| f.0 == name)?.1;
    Some(Bfres.read(Bytes::from(data), &ReadOptions::default()).unwrap())
}

#[test]
fn every_file_converts_to_the_model() {
    for (name, data) in files() {
        let doc = Bfres.read(Bytes::from(data), &ReadOptions::default()).unwrap();
        let p = doc.to_model().unwrap_or_else(|e| panic!("{name}: {e}"));
        for clip in &p.clips {
            for t in &clip.tracks {
                t.validate().unwrap_or_else(|e| panic!("{name} {} {}: {e}", clip.name, t.target.label()));
            }
        }
        let kinds: Vec<_> = p.clips.iter().map(|c| c.tracks.len()).collect();
        eprintln!(
            "{name}: {} clips, {} tracks, {} keys, skeleton {:?}",
            p.clips.len(),
            kinds.iter().sum::<usize>(),
            p.key_count(),
            p.skeleton.as_ref().map(|s| s.bones.len())
        );
    }
}

#[test]
fn bass_color_selects_the_three_albedo_variants() {
    let Some(doc) = doc("Animal_Bass.bfres") else { return };
    let p = doc.to_model().unwrap();
    let clip = p.clip("Bass_Color").expect("FTXP clip");
    assert_eq!(clip.tracks.len(), 1);
    let t = &clip.tracks[0];
    assert_eq!(t.target, animkit::model::Target::Material { material: "Mt_Body".into(), property: "_a0".into() });
    let animkit::model::Values::TextureIndex { textures, .. } = &t.values else { panic!("not a texture track") };
    assert_eq!(textures, &["Bass_Alb.0", "Bass_Alb.1", "Bass_Alb.2"]);
    for (frame, want) in [(0.0f32, 0u32), (0.5, 0), (1.0, 1), (1.5, 1), (2.0, 2)] {
        let s = animkit::sample::sample_track(t, frame / 30.0).unwrap();
        assert_eq!(s, animkit::sample::Sampled::TextureIndex(want), "frame {frame}");
    }
    assert_eq!(clip.looping, Some(false));
    assert!((clip.duration - 2.0 / 30.0).abs() < 1e-6);
}
