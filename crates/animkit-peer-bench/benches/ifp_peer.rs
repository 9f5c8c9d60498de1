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
//! With `--proto`, a third contender runs in the same rounds: animkit's raw read followed by
//! the prototype model of `src/proto.rs` (one struct of arrays per clip, bones by plain name)
//! instead of animkit's model, to measure what that model change would give; and, to split the
//! time, animkit's raw read alone and the prototype's decoding alone (without animkit's read).
//!
//! With `--once`, each side reads each file once, untimed: for counting instructions, e.g.
//! `valgrind --tool=callgrind --toggle-collect='*animkit_read*' target/release/deps/ifp_peer-* --bench --once sa_ped_anp3.ifp`
//! (file names choose among the files).
//!
//! With `--profile`, animkit alone reads and converts each chosen file for about five seconds,
//! untimed: for a sampling profiler, e.g. `perf record -g target/release/deps/ifp_peer-* --bench --profile sa_ped_anp3.ifp`.
//!
//! Reads `$ANIMKIT_CORPUS` (default `../shared/corpus`): `ifp/sa_ped_anp3.ifp` (San Andreas ANP3)
//! and `ifp/vc_ped_anpk.ifp` (Vice City ANPK).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use animkit::{Bytes, ReadOptions};
use animkit_peer_bench::proto;
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
/// again (counting keys would touch every track once more). Never inlined, so that a profiler can
/// count each side alone (`--once`).
#[inline(never)]
fn animkit_read(bytes: &Bytes) -> usize {
    let doc = animkit::read(bytes.clone(), None, &ReadOptions::default()).expect("animkit reads the file");
    doc.to_model().expect("animkit converts the file").clips.len()
}

/// animkit's raw read, then the prototype model of [`proto`] instead of animkit's: the clip count.
#[inline(never)]
fn proto_read(bytes: &Bytes) -> usize {
    let doc = animkit::read(bytes.clone(), None, &ReadOptions::default()).expect("animkit reads the file");
    let package = proto::to_proto(bytes);
    drop(doc);
    package.clips.len()
}

/// animkit's raw read alone (the document dropped): the length of its version label.
#[inline(never)]
fn raw_read(bytes: &Bytes) -> usize {
    let doc = animkit::read(bytes.clone(), None, &ReadOptions::default()).expect("animkit reads the file");
    doc.version().len()
}

#[inline(never)]
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

/// Checks that the prototype holds the keys animkit's model holds, bit for bit (times, rotations,
/// translations, bone names, clip durations); returns the number of keys.
fn proto_agrees(model: &animkit::model::Package, proto: &proto::ProtoPackage) -> usize {
    use animkit::model::Values;
    assert_eq!(model.clips.len(), proto.clips.len());
    let mut keys = 0;
    for (clip, p) in model.clips.iter().zip(&proto.clips) {
        assert_eq!((&clip.name, clip.duration.to_bits()), (&p.name, p.duration.to_bits()));
        let mut tracks = clip.tracks.iter();
        for bone in &p.bones {
            let (start, end) = (bone.start as usize, bone.end as usize);
            let rotation = tracks.next().expect("a rotation track per bone");
            let name = rotation.target.bone().and_then(|b| b.name.as_deref());
            assert_eq!(name, Some(proto.names[bone.name as usize].as_str()));
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&rotation.times), bits(&p.times[start..end]), "{} times", clip.name);
            let Values::Rotation(q) = &rotation.values else { panic!("rotation first") };
            assert!(q
                .iter()
                .zip(&p.rotations[start..end])
                .all(|(a, b)| a.to_array().map(f32::to_bits) == b.to_array().map(f32::to_bits)));
            if let Some(t0) = bone.translations {
                let translation = tracks.next().expect("a translation track");
                let Values::Translation(t) = &translation.values else { panic!("translation second") };
                let (t0, n) = (t0 as usize, end - start);
                assert!(t
                    .iter()
                    .zip(&p.translations[t0..t0 + n])
                    .all(|(a, b)| a.to_array().map(f32::to_bits) == b.to_array().map(f32::to_bits)));
                assert_eq!(t.len(), n);
            }
            keys += end - start;
        }
        assert!(tracks.next().is_none(), "{}: every track matched", clip.name);
    }
    keys
}

/// What one contender did over the rounds: its time per file and the per-round ratios
/// peer / contender.
#[derive(Default)]
struct Tally {
    wall: Vec<f64>,
    ratio: Vec<f64>,
    cpu_ratio: Vec<f64>,
}

fn main() {
    // `cargo test --benches` runs benches once with `--bench` absent: do nothing then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let once = std::env::args().any(|a| a == "--once");
    let proto = std::env::args().any(|a| a == "--proto");
    println!(
        "{:<16} {:>7} {:<10} {:>20} {:>20} {:>7} {:>10}",
        "file", "size", "reader", "time", "rw-parser-rs", "ratio", "CPU ratio"
    );
    // File names on the command line choose among the files (all by default).
    let chosen: Vec<String> = std::env::args().filter(|a| a.ends_with(".ifp")).collect();
    for name in ["sa_ped_anp3.ifp", "vc_ped_anpk.ifp"] {
        if !chosen.is_empty() && !chosen.iter().any(|c| c == name) {
            continue;
        }
        let Some(data) = corpus_file(name) else {
            println!("{name}: not in the corpus, skipped");
            continue;
        };
        let bytes = Bytes::from(data.clone());
        let ours = || animkit_read(&bytes);
        let theirs = || peer_read(&data);
        let prototype = || proto_read(&bytes);
        let raw_only = || raw_read(&bytes);
        let proto_only = || proto::to_proto(&bytes).clips.len();
        if std::env::args().any(|a| a == "--profile") {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(5) {
                black_box(ours());
            }
            continue;
        }
        if once {
            let p = if proto { black_box(prototype()) } else { 0 };
            if proto {
                let model = animkit::read(bytes.clone(), None, &ReadOptions::default()).and_then(|d| d.to_model());
                let keys = proto_agrees(&model.expect("animkit converts the file"), &proto::to_proto(&bytes));
                println!("{name}: the prototype holds animkit's {keys} keys, value for value");
            }
            println!("{name}: {} clips, {} animations, {p} prototype clips", black_box(ours()), black_box(theirs()));
            continue;
        }
        let mut contenders: Vec<(&str, &dyn Fn() -> usize)> = vec![("animkit", &ours)];
        if proto {
            contenders.push(("prototype", &prototype));
            contenders.push(("raw read", &raw_only));
            contenders.push(("proto only", &proto_only));
        }
        let sizes: Vec<usize> = contenders.iter().map(|(_, f)| batch_size(*f)).collect();
        let n_theirs = batch_size(&theirs);
        let mut tallies: Vec<Tally> = contenders.iter().map(|_| Tally::default()).collect();
        let mut peer = Vec::new();
        for _ in 0..ROUNDS {
            for ((_, f), (n, tally)) in contenders.iter().zip(sizes.iter().zip(tallies.iter_mut())) {
                let ((x, x_cpu), (y, y_cpu)) = (time(*f, *n), time(&theirs, n_theirs));
                tally.wall.push(x);
                tally.ratio.push(y / x);
                tally.cpu_ratio.push(y_cpu / x_cpu);
                peer.push(y);
            }
        }
        let mb = data.len() as f64 / 1e6;
        let b = median(peer);
        for ((reader, _), tally) in contenders.iter().zip(tallies) {
            let a = median(tally.wall);
            println!(
                "{name:<16} {mb:>5.2}MB {reader:<10} {:>6.3} ms {:>4.2}GB/s {:>6.3} ms {:>4.2}GB/s {:>6.2}× {:>9.2}×",
                a * 1e3,
                mb / a / 1e3,
                b * 1e3,
                mb / b / 1e3,
                median(tally.ratio),
                median(tally.cpu_ratio)
            );
        }
    }
}
