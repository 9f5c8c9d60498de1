//! `cargo bench -p animkit-cli --bench batch`: `info`, `check` and `convert` (to GLB) over a
//! game-sized set of CAF files, through the `animkit` binary with every file in one invocation.
//!
//! The files are made by animkit's own CryEngine writer in a temporary directory (removed at the
//! end; nothing is committed): 40-bone clips of 3 KiB to 2 MiB, sizes log-uniform in 3–64 KiB for
//! 97 % of them and in 64 KiB–2 MiB for the rest, so that a few large clips carry about half the
//! bytes, as in a game's animation folder. Each verb's wall time, files per second and CPU per
//! file (user + system of the child process, all threads) are printed.
//!
//! Settings (environment): `ANIMKIT_BATCH_FILES` (default 8400), `ANIMKIT_BATCH_BIN` (time another
//! `animkit` binary, e.g. a build from before a change), `ANIMKIT_BATCH_VERBS` (default
//! `info,check,convert`), `ANIMKIT_BATCH_DIR` (make the files there, or take those an earlier run
//! made there, and keep them: for timing two binaries on the same files, or profiling one).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use animkit::model::{BoneRef, Clip, Interpolation, Package, Target, Track, Values};
use animkit::WriteOptions;
use glam::{Quat, Vec3};
use rayon::prelude::*;

const BONES: usize = 40;
const FPS: f32 = 30.0;

/// A deterministic value in [0, 1) for file `i` and stream `k` (SplitMix64).
fn unit(i: u64, k: u64) -> f64 {
    let mut z = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ k.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as f64 / 2f64.powi(64)
}

/// The size file `i` aims at (see the module docs).
fn target_size(i: u64) -> f64 {
    let (lo, hi): (f64, f64) = if unit(i, 1) < 0.97 { (3072.0, 65536.0) } else { (65536.0, 2097152.0) };
    lo * (hi / lo).powf(unit(i, 2))
}

/// A clip of `keys` keys per track: every bone rotates, the first eight also move.
fn clip(i: u64, keys: usize) -> Package {
    let times: Vec<f32> = (0..keys).map(|k| k as f32 / FPS).collect();
    let mut tracks = Vec::new();
    for b in 0..BONES {
        let target = Target::Bone(BoneRef::named(format!("Bip01 bone{b:02}")));
        let phase = unit(i, 10 + b as u64) as f32 * 6.0;
        let rotations = times
            .iter()
            .map(|t| Quat::from_rotation_y(0.02 * b as f32) * Quat::from_rotation_x((t * 2.0 + phase).sin()));
        tracks.push(Track {
            target: target.clone(),
            interpolation: Interpolation::Nlerp,
            times: times.clone(),
            values: Values::Rotation(rotations.collect()),
        });
        if b < 8 {
            let positions = times.iter().map(|t| Vec3::new((t + phase).cos(), 0.1 * b as f32, t * 0.5));
            tracks.push(Track {
                target,
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values: Values::Translation(positions.collect()),
            });
        }
    }
    let duration = times.last().copied().unwrap_or(0.0);
    let clip = Clip { name: format!("clip{i:05}"), duration, tracks, frame_rate: Some(FPS), ..Default::default() };
    Package { name: format!("clip{i:05}"), clips: vec![clip], ..Default::default() }
}

fn caf_bytes(package: &Package) -> Vec<u8> {
    let (format, variant) = animkit::REGISTRY.by_name("caf").expect("the CryEngine writer");
    let mut options = WriteOptions::default();
    options.variant = variant.map(str::to_string);
    format.from_model(package, &options).expect("writing a CAF").document.write().expect("CAF bytes")
}

/// Writes `count` CAF files into `dir` (keeping those there already); returns their paths and
/// total size.
fn generate(count: u64, dir: &Path) -> (Vec<PathBuf>, u64) {
    std::fs::create_dir_all(dir).expect("temporary directory");
    // Bytes per key of the whole clip, from two sizes (the writer's size is linear in keys).
    let (small, large) = (caf_bytes(&clip(0, 100)).len() as f64, caf_bytes(&clip(0, 200)).len() as f64);
    let per_key = (large - small) / 100.0;
    let fixed = small - 100.0 * per_key;
    let sizes: Vec<u64> = (0..count)
        .into_par_iter()
        .map(|i| {
            let path = dir.join(format!("{i:05}.caf"));
            if let Ok(meta) = std::fs::metadata(&path) {
                return meta.len();
            }
            let keys = ((target_size(i) - fixed) / per_key).max(2.0) as usize;
            let bytes = caf_bytes(&clip(i, keys));
            std::fs::write(&path, &bytes).expect("writing a CAF");
            bytes.len() as u64
        })
        .collect();
    ((0..count).map(|i| dir.join(format!("{i:05}.caf"))).collect(), sizes.iter().sum())
}

/// CPU time (user + system) of the waited-for children so far.
#[cfg(unix)]
fn children_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init()
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

#[cfg(not(unix))]
fn children_cpu() -> Duration {
    Duration::ZERO
}

/// Runs the binary once; returns wall time and CPU time.
fn run(bin: &Path, args: &[String]) -> (Duration, Duration) {
    let cpu0 = children_cpu();
    let start = Instant::now();
    let status =
        Command::new(bin).args(args).stdout(Stdio::null()).stderr(Stdio::null()).status().expect("running animkit");
    let wall = start.elapsed();
    assert!(status.code().is_some_and(|c| c <= 1), "animkit {} failed: {status}", args[0]);
    (wall, children_cpu() - cpu0)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` and `cargo test --benches` ask for the list only.
    }
    let count: u64 = std::env::var("ANIMKIT_BATCH_FILES").ok().and_then(|v| v.parse().ok()).unwrap_or(8400);
    let bin = std::env::var_os("ANIMKIT_BATCH_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_animkit")), PathBuf::from);
    let verbs = std::env::var("ANIMKIT_BATCH_VERBS").unwrap_or_else(|_| "info,check,convert".into());
    let kept = std::env::var_os("ANIMKIT_BATCH_DIR").map(PathBuf::from);
    let root =
        kept.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("animkit-batch-{}", std::process::id())));
    let start = Instant::now();
    let (files, bytes) = generate(count, &root.join("caf"));
    println!(
        "{count} CAF files, {:.1} MiB ({:.1} KiB mean), made in {:.1?}; {} threads; {}",
        bytes as f64 / 1048576.0,
        bytes as f64 / count as f64 / 1024.0,
        start.elapsed(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        bin.display()
    );
    let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    for verb in verbs.split(',') {
        let mut args = vec![verb.to_string()];
        args.extend(paths.iter().cloned());
        if verb == "convert" {
            args.extend(["--to".into(), "glb".into(), "-o".into(), format!("{}/", root.join("glb").display())]);
        }
        let (wall, cpu) = run(&bin, &args);
        println!(
            "{verb:>8}: {:>7.2} s wall, {:>8.0} files/s, {:>6.3} ms CPU per file ({:.2} s CPU)",
            wall.as_secs_f64(),
            count as f64 / wall.as_secs_f64(),
            cpu.as_secs_f64() * 1e3 / count as f64,
            cpu.as_secs_f64()
        );
    }
    match kept {
        Some(_) => {
            let _ = std::fs::remove_dir_all(root.join("glb"));
        }
        None => {
            let _ = std::fs::remove_dir_all(&root);
        }
    }
}
