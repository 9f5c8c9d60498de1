//! `cargo bench -p animkit --bench skb_hip`: read + to_model of `evilengine/bfbb_gc_boot.HIP`
//! (BFBB GameCube, 127 SKB1 `ANIM` assets bound to their skeletons), round by round.
//!
//! Each round is one read + to_model with the package dropped inside the round, as a converter
//! does. Reported over the rounds: wall time (min, median, 90th percentile), the thread's CPU time
//! (median, 90th percentile) and the page faults (total), and how many rounds took page faults
//! with their CPU median beside the others'. On a shared machine the wall time spreads with the
//! other processes' load while the CPU time does not: comparing the two says whether slow rounds
//! are ours or the machine's. A round faults when the allocator has given the memory of the
//! previous rounds back to the system (mimalloc does so `MIMALLOC_PURGE_DELAY` ms after a free,
//! 1,000 by default; set it to 0 or 10 to see rounds that fault). Throughput is in bytes of the
//! ANIM assets. Reads `$ANIMKIT_CORPUS` (default `../shared/corpus`).

use std::hint::black_box;
use std::time::Instant;

use animkit::{Bytes, ReadOptions};
use rounds::{percentile, thread_cpu};

mod rounds;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const ROUNDS: usize = 400;

/// Minor + major page faults of the process so far.
fn page_faults() -> i64 {
    // SAFETY: an all-zero rusage is valid, and getrusage fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    usage.ru_minflt + usage.ru_majflt
}

/// One round: read + to_model, the package dropped; the clip count. Never inlined, so that
/// `valgrind --tool=callgrind --toggle-collect='*read_and_convert*'` counts the rounds alone.
#[inline(never)]
fn read_and_convert(bytes: &Bytes, options: &ReadOptions) -> usize {
    let doc = animkit::read(bytes.clone(), None, options).expect("the HIP reads");
    doc.to_model().expect("the HIP converts").clips.len()
}

fn main() {
    let Some(data) = rounds::corpus_file("evilengine/bfbb_gc_boot.HIP") else {
        return;
    };
    let bytes = Bytes::from(data);
    let options = ReadOptions::default();
    let doc = animkit::read(bytes.clone(), None, &options).expect("the HIP reads");
    let entries = doc.entries().expect("the HIP lists its assets");
    let anim_bytes: usize = entries.iter().filter(|e| e.kind == "ANIM").map(|e| e.data.len()).sum();
    let round = || read_and_convert(&bytes, &options);
    for _ in 0..20 {
        black_box(round());
    }
    let (mut wall, mut cpu) = (Vec::with_capacity(ROUNDS), Vec::with_capacity(ROUNDS));
    // The CPU times of the rounds that took page faults, and of the others.
    let (mut faulted, mut clean) = (Vec::new(), Vec::new());
    let faults = page_faults();
    for _ in 0..ROUNDS {
        let (w, c, f) = (Instant::now(), thread_cpu(), page_faults());
        black_box(round());
        let ms = (thread_cpu() - c).as_secs_f64() * 1e3;
        wall.push(w.elapsed().as_secs_f64() * 1e3);
        cpu.push(ms);
        if page_faults() > f { &mut faulted } else { &mut clean }.push(ms);
    }
    let faults = page_faults() - faults;
    let cpu_median = percentile(&mut cpu, 0.5);
    let median = |v: &mut Vec<f64>| if v.is_empty() { "-".to_string() } else { format!("{:.3}", percentile(v, 0.5)) };
    println!(
        "bfbb_gc_boot.HIP read+to_model, {} ANIM bytes, {ROUNDS} rounds: wall min {:.3} ms, median {:.3} ms, p90 {:.3} ms; \
         CPU median {cpu_median:.3} ms ({:.2} GB/s), p90 {:.3} ms; {faults} page faults in {} rounds \
         (their CPU median {} ms, the others' {} ms)",
        anim_bytes,
        percentile(&mut wall, 0.0),
        percentile(&mut wall, 0.5),
        percentile(&mut wall, 0.9),
        anim_bytes as f64 / cpu_median / 1e6,
        percentile(&mut cpu, 0.9),
        faulted.len(),
        median(&mut faulted),
        median(&mut clean),
    );
}
