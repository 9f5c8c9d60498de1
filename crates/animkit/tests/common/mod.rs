//! Shared helpers for corpus tests.
//!
//! The corpus is read from `$ANIMKIT_CORPUS`, defaulting to `../shared/corpus` beside the
//! repository. Without it a corpus test prints that it skipped; under CI (`CI=true`) a missing
//! corpus is a failure, so a green CI run always means the real files were tested.

#![allow(dead_code)]

use std::path::PathBuf;

pub mod counting_alloc;
pub mod gltf;

/// The corpus sub-folder `name` (e.g. `"ifp"`), or `None` (after saying so) when absent outside CI.
pub fn corpus_dir(name: &str) -> Option<PathBuf> {
    let root = std::env::var_os("ANIMKIT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    let dir = root.join(name);
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("corpus folder {} is missing; CI must run with the corpus", dir.display());
    }
    eprintln!("SKIPPED: corpus folder {} not found (set ANIMKIT_CORPUS)", dir.display());
    None
}

/// Every file in the corpus sub-folder `name`, sorted, with its bytes.
pub fn corpus_files(name: &str) -> Vec<(String, Vec<u8>)> {
    let Some(dir) = corpus_dir(name) else { return Vec::new() };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus folder readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

/// One corpus file's bytes, or `None` when the corpus is absent outside CI.
pub fn corpus_file(dir: &str, name: &str) -> Option<Vec<u8>> {
    let path = corpus_dir(dir)?.join(name);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}
