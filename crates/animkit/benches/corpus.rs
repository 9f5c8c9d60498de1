//! `cargo bench`: read, to_model, write and sample over the real corpus.
//!
//! Throughput is in bytes of the input file, so MB/s figures compare directly with file sizes.
//! Reads `$ANIMKIT_CORPUS` (default `../shared/corpus`); with no corpus it benchmarks nothing.
//!
//! The allocator is mimalloc, the one the `animkit` binary ships with, so the figures are what the
//! tool does. A model is many small key arrays: with glibc's malloc, `read+to_model` of
//! `ifp/sa_ped_anp3.ifp` takes about 1.5× as long (measured 2026-11-22).

use std::path::PathBuf;
use std::time::Duration;

use animkit::{Bytes, ReadOptions};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn corpus() -> Vec<(String, Bytes)> {
    let root = std::env::var_os("ANIMKIT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    let mut files = Vec::new();
    for dir in ["ifp", "evilengine", "cryengine", "bfres"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            let bytes = Bytes::from(std::fs::read(&p).unwrap());
            // Only files the registry reads (the corpus also holds deliberate non-matches).
            if animkit::read(bytes.clone(), Some(&p), &ReadOptions::default()).is_ok() {
                files.push((format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()), bytes));
            }
        }
    }
    files
}

fn benches(c: &mut Criterion) {
    let options = ReadOptions::default();
    for (name, bytes) in corpus() {
        let mut g = c.benchmark_group(name.as_str());
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.sample_size(20).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
        g.bench_function("read", |b| b.iter(|| animkit::read(bytes.clone(), None, &options).unwrap()));
        let doc = animkit::read(bytes.clone(), None, &options).unwrap();
        // Construction only: dropping the result is not part of reading it.
        g.bench_function("read+to_model", |b| {
            b.iter_with_large_drop(|| animkit::read(bytes.clone(), None, &options).unwrap().to_model().unwrap())
        });
        // The same with the model dropped inside the loop, as a batch converter does: the allocator
        // reuses the memory, so no fresh pages, but the drop is timed.
        g.bench_function("read+to_model+drop", |b| {
            b.iter(|| animkit::read(bytes.clone(), None, &options).unwrap().to_model().unwrap().clips.len())
        });
        g.bench_function("write", |b| b.iter(|| doc.write().unwrap()));
        if let Ok(package) = doc.to_model() {
            // Sample every clip at its midpoint: a full pose per clip.
            g.bench_function("sample_all_clips", |b| {
                b.iter(|| {
                    package.clips.iter().map(|c| animkit::sample::sample(c, c.duration * 0.5).len()).sum::<usize>()
                })
            });
        }
        g.finish();
    }
}

criterion_group!(corpus_benches, benches);
criterion_main!(corpus_benches);
