//! Corpus tests for CryEngine CAF / i_caf / DBA / CHR.

mod common;

use animkit::formats::cryengine::{CryDocument, CryEngine};
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
