//! `cargo bench -p animkit-peer-bench`: animkit against rw-parser-rs, the Rust IFP reader, on the
//! same files in one run.
//!
//! Each round times a batch of animkit `read` + `to_model` (the model dropped inside the batch, as a
//! converter does) and then a batch of rw-parser-rs `IfpParser::parse` (its result dropped likewise),
//! alternating, so a change in the machine's speed touches both. Reported: the median time per file
//! of each over the rounds, and the median of the per-round ratios peer / animkit (> 1: animkit is
//! faster), in wall time and in the thread's CPU time (on a shared machine the CPU-time ratio is
//! the steadier one: time spent descheduled counts in neither). Both build every key of every
//! animation into memory.
//!
//! The work is alike but not the same, and the difference is on animkit's side. rw-parser-rs
//! decodes each bone's frames into one array of 44-byte keyframes (time, position, rotation,
//! scale; ANP3 times left in 1/60 s ticks, ANPK quaternions left conjugated) and checks nothing
//! but the length of the input. animkit's read parses and validates the whole file into its
//! exact raw layer (so that it writes back byte for byte), and to_model builds the model:
//! a rotation track and a translation track per bone, each with its own time array, times in
//! seconds, ANPK quaternions conjugated, bone names interned and tags looked up, and every
//! track's times checked to be finite and non-decreasing.
//!
//! Reads `$ANIMKIT_CORPUS` (default `../shared/corpus`): `ifp/sa_ped_anp3.ifp` (San Andreas ANP3)
//! and `ifp/vc_ped_anpk.ifp` (Vice City ANPK).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use animkit::{Bytes, ReadOptions};
use rw_parser_rs::IfpParser;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const ROUNDS: usize = 41;
/// Each batch runs for about this long.
const BATCH: Duration = Duration::from_millis(40);

fn corpus_file(name: &str) -> Option<Vec<u8>> {
    let root = std::env::var_os("ANIMKIT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    std::fs::read(root.join("ifp").join(name)).ok()
}

/// The clip count, as the peer's closure returns its animation count: neither walks the result
/// again (counting keys would touch every track once more).
fn animkit_read(bytes: &Bytes) -> usize {
    let doc = animkit::read(bytes.clone(), None, &ReadOptions::default()).expect("animkit reads the file");
    doc.to_model().expect("animkit converts the file").clips.len()
}

fn peer_read(bytes: &[u8]) -> usize {
    let ifp = IfpParser::new(bytes).parse().expect("rw-parser-rs reads the file");
    ifp.animations.len()
}

/// How many calls of `f` fill about one batch.
fn batch_size(f: &dyn Fn() -> usize) -> usize {
    let start = Instant::now();
    let mut n = 0;
    while start.elapsed() < BATCH / 4 {
        black_box(f());
        n += 1;
    }
    (n * 4).max(1)
}

/// The calling thread's CPU time, in seconds.
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Seconds per call of `f` over one batch of `n` calls: wall time and the thread's CPU time.
fn time(f: &dyn Fn() -> usize, n: usize) -> (f64, f64) {
    let (start, cpu) = (Instant::now(), thread_cpu());
    for _ in 0..n {
        black_box(f());
    }
    let cpu = thread_cpu() - cpu;
    (start.elapsed().as_secs_f64() / n as f64, cpu / n as f64)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // `cargo test --benches` runs benches once with `--bench` absent: do nothing then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    println!(
        "{:<16} {:>7} {:>20} {:>20} {:>7} {:>10}",
        "file", "size", "animkit", "rw-parser-rs", "ratio", "CPU ratio"
    );
    for name in ["sa_ped_anp3.ifp", "vc_ped_anpk.ifp"] {
        let Some(data) = corpus_file(name) else {
            println!("{name}: not in the corpus, skipped");
            continue;
        };
        let bytes = Bytes::from(data.clone());
        let ours = || animkit_read(&bytes);
        let theirs = || peer_read(&data);
        let (n_ours, n_theirs) = (batch_size(&ours), batch_size(&theirs));
        let (mut a, mut b, mut ratio, mut cpu_ratio) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            let ((x, x_cpu), (y, y_cpu)) = (time(&ours, n_ours), time(&theirs, n_theirs));
            a.push(x);
            b.push(y);
            ratio.push(y / x);
            cpu_ratio.push(y_cpu / x_cpu);
        }
        let mb = data.len() as f64 / 1e6;
        let (a, b) = (median(a), median(b));
        println!(
            "{name:<16} {mb:>5.2}MB {:>6.3} ms {:>4.2}GB/s {:>6.3} ms {:>4.2}GB/s {:>6.2}× {:>9.2}×",
            a * 1e3,
            mb / a / 1e3,
            b * 1e3,
            mb / b / 1e3,
            median(ratio),
            median(cpu_ratio)
        );
    }
}
