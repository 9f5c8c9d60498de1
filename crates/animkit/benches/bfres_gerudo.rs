//! `cargo bench -p animkit --bench bfres_gerudo`: read + to_model of
//! `bfres/Npc_Gerudo_Queen_Animation.bfres` (Breath of the Wild, Wii U: 111 FSKA with Euler XYZ
//! rotations, 9,774 bone animations, 14,617 curves; 2.95 MB), round by round.
//!
//! Each round is one read + to_model with the package dropped inside the round, as a converter
//! does. Reported over the rounds: wall time (min, median, 90th percentile) and the thread's CPU
//! time (median, 90th percentile), with the throughput of the CPU median in bytes of the file. On a
//! shared machine the wall time spreads with the other processes' load while the CPU time does
//! not. For instruction counts run `valgrind --tool=callgrind --toggle-collect='*read_and_convert*'`
//! on the bench binary with `--bench`. Reads `$ANIMKIT_CORPUS` (default `../shared/corpus`).

use std::hint::black_box;
use std::time::Instant;

use animkit::{Bytes, ReadOptions};
use rounds::{percentile, thread_cpu};

mod rounds;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const FILE: &str = "bfres/Npc_Gerudo_Queen_Animation.bfres";

/// Rounds measured (set `BFRES_ROUNDS` to change; 1 under callgrind).
const ROUNDS: usize = 100;

/// One round: read + to_model, the package dropped; the model key count. Never inlined, so that
/// callgrind's `--toggle-collect='*read_and_convert*'` counts the rounds alone.
#[inline(never)]
fn read_and_convert(bytes: &Bytes, options: &ReadOptions) -> usize {
    let doc = animkit::read(bytes.clone(), None, options).expect("the BFRES reads");
    let package = doc.to_model().expect("the BFRES converts");
    package.clips.iter().flat_map(|c| &c.tracks).map(|t| t.times.len()).sum()
}

fn main() {
    let Some(data) = rounds::corpus_file(FILE) else {
        return;
    };
    let rounds = std::env::var("BFRES_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(ROUNDS).max(1);
    let bytes = Bytes::from(data);
    let options = ReadOptions::default();
    let keys = read_and_convert(&bytes, &options);
    let (mut wall, mut cpu) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for _ in 0..rounds {
        let (w, c) = (Instant::now(), thread_cpu());
        black_box(read_and_convert(&bytes, &options));
        cpu.push((thread_cpu() - c).as_secs_f64() * 1e3);
        wall.push(w.elapsed().as_secs_f64() * 1e3);
    }
    let cpu_median = percentile(&mut cpu, 0.5);
    println!(
        "{FILE} read+to_model, {} bytes, {keys} model keys, {rounds} rounds: wall min {:.3} ms, median {:.3} ms, \
         p90 {:.3} ms; CPU median {cpu_median:.3} ms ({:.0} MB/s, {:.0} ns per key), p90 {:.3} ms",
        bytes.len(),
        percentile(&mut wall, 0.0),
        percentile(&mut wall, 0.5),
        percentile(&mut wall, 0.9),
        bytes.len() as f64 / cpu_median / 1e3,
        cpu_median * 1e6 / keys as f64,
        percentile(&mut cpu, 0.9),
    );
}
