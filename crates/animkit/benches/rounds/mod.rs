//! What the round-by-round benchmarks (`skb_hip`, `bfres_gerudo`) share: the corpus file, the
//! thread's CPU time and percentiles.

use std::path::PathBuf;
use std::time::Duration;

/// The bytes of a corpus file (`$ANIMKIT_CORPUS`, default `../shared/corpus`), or `None` when
/// the bench runs without `--bench` (as `cargo test --benches` does) or the file is absent (said
/// on stdout).
pub fn corpus_file(name: &str) -> Option<Vec<u8>> {
    if !std::env::args().any(|a| a == "--bench") {
        return None;
    }
    let root = std::env::var_os("ANIMKIT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    let data = std::fs::read(root.join(name)).ok();
    if data.is_none() {
        println!("{name}: not in the corpus, skipped");
    }
    data
}

/// The calling thread's CPU time.
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The `p` quantile (0 to 1) of `v`, which it sorts.
pub fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}
