//! Corpus tests for CryEngine CAF / i_caf / DBA / CHR.

mod common;

use animkit::formats::cryengine::{model, CryDocument, CryEngine};
use animkit::{Bytes, Confidence, Format, ReadOptions};

const DIR: &str = "cryengine";

fn real_files() -> Vec<(String, Vec<u8>)> {
    common::corpus_files(DIR)
        .into_iter()
        .filter(|(n, _)| !n.starts_with("not_cryengine") && !n.starts_with("README"))
        .collect()
}

#[test]
fn every_file_round_trips_byte_identically() {
    let files = real_files();
    for (name, bytes) in &files {
        assert_eq!(CryEngine.probe(bytes), Confidence::Certain, "{name}");
        let doc = CryEngine
            .read(Bytes::from(bytes.clone()), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(doc.write().unwrap() == *bytes, "{name}: write differs");
    }
    eprintln!("{} CryEngine files round-tripped", files.len());
}

#[test]
fn dump_and_pack_round_trip() {
    for (name, bytes) in real_files() {
        let doc = CryEngine.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap();
        let json = animkit::dump(doc.as_ref()).unwrap();
        let text = serde_json::to_string(&json).unwrap();
        let back = animkit::pack(serde_json::from_str(&text).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(back.write().unwrap() == bytes, "{name}: pack differs");
    }
}

#[test]
fn cal3d_file_is_rejected_with_a_reason() {
    let Some(bytes) = common::corpus_file(DIR, "not_cryengine_cal3d_walk.caf") else {
        return;
    };
    assert_eq!(CryEngine.probe(&bytes), Confidence::No);
    let why = CryEngine.explain_reject(&bytes).unwrap();
    assert!(why.contains("Cal3D"), "{why}");
    let err = animkit::read(Bytes::from(bytes), Some(std::path::Path::new("walk.caf")), &ReadOptions::default())
        .err()
        .unwrap();
    assert!(err.to_string().contains("Cal3D"), "{err}");
}

#[test]
fn truncation_gives_errors_not_panics() {
    for (name, bytes) in real_files() {
        let doc = CryEngine.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap();
        let file = &doc.as_any().downcast_ref::<CryDocument>().unwrap().file;
        // Cuts inside trailing padding leave a valid file; every cut before the last chunk's end fails.
        let needed = file.chunks.iter().map(|c| c.offset as usize + c.data.len()).max().unwrap_or(0);
        let step = (bytes.len() / 97).max(1);
        let mut cut = 0;
        while cut < bytes.len() {
            if let Ok(doc) = CryEngine.read(Bytes::from(bytes[..cut].to_vec()), &ReadOptions::default()) {
                assert!(cut >= needed, "{name}: cut at {cut} read without error");
                let _ = doc.to_model();
            }
            cut += step;
        }
    }
}

#[test]
fn debug_print_models() {
    for (name, bytes) in real_files() {
        let doc = CryEngine.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap();
        match doc.to_model() {
            Ok(p) => {
                eprintln!("{name}: {:?} skel={:?}", doc.notes(), p.skeleton.as_ref().map(|s| s.bones.len()));
                for c in &p.clips {
                    let first = c.tracks.iter().filter_map(|t| t.times.first()).fold(f32::MAX, |a, &b| a.min(b));
                    eprintln!(
                        "  clip {} dur {} tracks {} first {} last {} add {} loop {:?}",
                        c.name,
                        c.duration,
                        c.tracks.len(),
                        first,
                        c.last_key_time(),
                        c.additive,
                        c.looping
                    );
                }
            }
            Err(e) => eprintln!("{name}: ERROR {e}"),
        }
    }
}

fn model_of(name: &str) -> Option<animkit::Package> {
    let bytes = common::corpus_file(DIR, name)?;
    let doc = CryEngine.read(Bytes::from(bytes), &ReadOptions::default()).unwrap();
    Some(doc.to_model().unwrap_or_else(|e| panic!("{name}: {e}")))
}

#[test]
fn every_controller_gets_a_name_from_the_matching_skeleton() {
    for (caf, chr, expected) in [
        ("ce3_barrel_cutscene_0829.caf", "ce3_skeleton_character.chr", 78),
        ("ly_enemy_ambient_idle1_0831.caf", "ly_jack_root.chr", 61),
        ("ly_jack_shoot_0831.caf", "ly_jack_root.chr", 7),
        ("ce5_run_fwd_3p_0832.caf", "ce5_skelProxy.chr", 40),
    ] {
        let (Some(mut clip_pkg), Some(skel_pkg)) = (model_of(caf), model_of(chr)) else { return };
        let skeleton = skel_pkg.skeleton.expect("skeleton");
        assert!(skeleton.validate().is_ok());
        model::name_tracks(&mut clip_pkg.clips, &skeleton);
        let clip = &clip_pkg.clips[0];
        let mut ids: Vec<u32> = clip.tracks.iter().filter_map(|t| t.target.bone().and_then(|b| b.hash)).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), expected, "{caf}");
        for t in &clip.tracks {
            let b = t.target.bone().unwrap();
            let name = b.name.as_deref().unwrap_or_else(|| panic!("{caf}: 0x{:08X} unnamed", b.hash.unwrap()));
            assert_eq!(animkit::formats::cryengine::quat_codecs::controller_id(name), b.hash.unwrap());
        }
    }
}
