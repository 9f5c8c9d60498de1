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
