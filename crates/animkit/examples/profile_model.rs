//! Repeats read + to_model of one file, for profilers and quick timings on a busy machine:
//! `profile_model FILE [ITERATIONS] [BATCH]` prints the fastest and the median iteration.
//! Models are dropped outside the timed region, BATCH at a time (default 1): with a batch of many,
//! each model is built in memory the allocator has to fetch afresh, as criterion's
//! `iter_with_large_drop` and a one-shot process do. BATCH 0 drops each model inside the timed
//! region instead, as criterion's plain `iter` does. Uses mimalloc, as the `animkit` binary and
//! the benchmarks do.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: profile_model FILE [ITERATIONS] [BATCH]");
    let n: usize = args.next().map_or(5, |s| s.parse().expect("a number"));
    let batch: usize = args.next().map_or(1, |s| s.parse().expect("a number"));
    let bytes = animkit::Bytes::from(std::fs::read(path).unwrap());
    let mut times = Vec::with_capacity(n);
    let mut alive = Vec::with_capacity(batch);
    for _ in 0..n {
        let start = std::time::Instant::now();
        let model = animkit::read(bytes.clone(), None, &Default::default()).unwrap().to_model().unwrap();
        if batch == 0 {
            drop(std::hint::black_box(model));
            times.push(start.elapsed().as_secs_f64());
            continue;
        }
        times.push(start.elapsed().as_secs_f64());
        alive.push(std::hint::black_box(model));
        if alive.len() == batch {
            alive.clear();
        }
    }
    times.sort_by(f64::total_cmp);
    let mbs = |s: f64| bytes.len() as f64 / s / 1e6;
    let (min, median) = (times[0], times[n / 2]);
    eprintln!(
        "read+to_model: fastest {:.3} ms ({:.0} MB/s), median {:.3} ms ({:.0} MB/s)",
        min * 1e3,
        mbs(min),
        median * 1e3,
        mbs(median)
    );
}
