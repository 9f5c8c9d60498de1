//! Output safety: whatever happens to the process while it writes, the output path holds its old
//! content or the complete new content (or nothing, when there was no old file) — never a part.
//!
//! - The CLI converting a large generated file is SIGKILLed at random moments, many times.
//! - A write failure is injected with `RLIMIT_FSIZE` (`ulimit -f`, SIGXFSZ ignored so `write`
//!   fails with EFBIG): the command fails, the old file survives and no temporary file is left.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use animkit::{Format, Package, WriteOptions};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("animkit-safety-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A large package (about 600,000 keys) built from JSON, so this crate needs no math library.
fn big_package() -> Package {
    let clips: Vec<serde_json::Value> = (0..60)
        .map(|c| {
            let tracks: Vec<serde_json::Value> = (0..25)
                .map(|b| {
                    let n = 400;
                    let times: Vec<f32> = (0..n).map(|k| k as f32 / 30.0).collect();
                    let rot: Vec<[f32; 4]> = (0..n)
                        .map(|k| {
                            let a = (k + b + c) as f32 * 0.01;
                            [a.sin(), 0.0, 0.0, a.cos()]
                        })
                        .collect();
                    serde_json::json!({
                        "target": {"bone": {"name": format!("bone{b}"), "id": b}},
                        "interpolation": "linear",
                        "times": times,
                        "values": {"rotation": rot},
                    })
                })
                .collect();
            serde_json::json!({"name": format!("clip{c}"), "duration": 399.0 / 30.0, "tracks": tracks})
        })
        .collect();
    serde_json::from_value(serde_json::json!({"name": "big", "up_axis": "Z", "clips": clips})).unwrap()
}

fn write_big_input(dir: &Path) -> PathBuf {
    let written = animkit::formats::ifp::Ifp.from_model(&big_package(), &WriteOptions::default()).unwrap();
    let path = dir.join("big.ifp");
    std::fs::write(&path, written.document.write().unwrap()).unwrap();
    path
}

fn convert(input: &Path, output: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_animkit"));
    cmd.arg("convert").arg(input).arg("-o").arg(output).stdout(Stdio::null()).stderr(Stdio::null());
    cmd
}

/// Files in `dir` other than the ones named.
fn others(dir: &Path, known: &[&Path]) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| !known.iter().any(|k| k == p))
        .collect()
}

/// A small deterministic generator (xorshift), so a failure can be replayed.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn sigkill_mid_write_leaves_old_or_complete_output() {
    let dir = temp_dir("kill");
    let input = write_big_input(&dir);
    let output = dir.join("out.glb");

    // The complete output, and how long an uninterrupted run takes.
    let start = Instant::now();
    assert!(convert(&input, &output).status().unwrap().success());
    let full = start.elapsed();
    let complete = std::fs::read(&output).unwrap();
    assert!(complete.len() > 1 << 20, "output is large: {} bytes", complete.len());
    std::fs::remove_file(&output).unwrap();

    let old = b"the old output".to_vec();
    let runs = 24;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let (mut absent, mut kept_old, mut got_new) = (0, 0, 0);
    for run in 0..runs {
        // Half the runs start without an output file, half with an old one.
        let had_old = run % 2 == 1;
        if had_old {
            std::fs::write(&output, &old).unwrap();
        } else {
            let _ = std::fs::remove_file(&output);
        }
        // Kill at a random moment within (and a little past) an uninterrupted run.
        let at = Duration::from_micros(xorshift(&mut seed) % (full.as_micros() as u64 * 5 / 4 + 1));
        let mut child = convert(&input, &output).spawn().unwrap();
        std::thread::sleep(at);
        let _ = child.kill(); // SIGKILL on Unix
        let _ = child.wait();
        match std::fs::read(&output) {
            Err(_) => {
                assert!(!had_old, "run {run} (killed after {at:?}): the old output vanished");
                absent += 1;
            }
            Ok(bytes) if bytes == old => kept_old += 1,
            Ok(bytes) => {
                assert!(
                    bytes == complete,
                    "run {run} (killed after {at:?}): partial output of {} bytes (complete: {})",
                    bytes.len(),
                    complete.len()
                );
                got_new += 1;
            }
        }
    }
    eprintln!(
        "{runs} runs killed within {full:?}: {absent} without output, {kept_old} kept the old file, {got_new} complete"
    );
    // A killed process cannot remove its temporary file; no temporary is ever the output path.
    let leftovers = others(&dir, &[&input, &output]);
    assert!(leftovers.iter().all(|p| p.file_name().unwrap().to_string_lossy().ends_with(".tmp")), "{leftovers:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `animkit convert INPUT -o OUTPUT` where files over 32 KiB cannot be written (`ulimit -f
/// 64`): with SIGXFSZ ignored (inherited across exec) the write fails with EFBIG and the CLI takes
/// its error path.
fn convert_with_file_size_limit(input: &Path, output: &Path) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 64 && exec \"$0\" convert \"$1\" -o \"$2\"")
        .arg(env!("CARGO_BIN_EXE_animkit"))
        .arg(input)
        .arg(output)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn injected_write_failure_keeps_old_output_and_leaves_no_temp() {
    let dir = temp_dir("efbig");
    let input = write_big_input(&dir);
    let output = dir.join("out.glb");
    let old = b"the old output".to_vec();
    std::fs::write(&output, &old).unwrap();
    let status = convert_with_file_size_limit(&input, &output);
    assert!(!status.status.success(), "the write must fail");
    let stderr = String::from_utf8_lossy(&status.stderr);
    assert!(stderr.contains("out.glb"), "the error names the output: {stderr}");
    assert_eq!(std::fs::read(&output).unwrap(), old, "the old output survives");
    assert!(others(&dir, &[&input, &output]).is_empty(), "no temporary file is left");

    // Without an old file: nothing at the output path afterwards.
    std::fs::remove_file(&output).unwrap();
    assert!(!convert_with_file_size_limit(&input, &output).status.success());
    assert!(!output.exists(), "no partial output");
    assert!(others(&dir, &[&input]).is_empty(), "no temporary file is left");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The names in `dir` of our temporary files (`.NAME.RANDOM.animkit.tmp`).
fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".animkit.tmp"))
        .collect()
}

/// SIGTERM while the temporary file exists (watched for in a tight loop): the CLI removes it and
/// exits with 143; the output is the old one (or the complete new one, when the rename came first). Runs until a few kills landed mid-write.
#[cfg(unix)]
#[test]
fn sigterm_mid_write_leaves_no_temporary_file() {
    let dir = temp_dir("term");
    let input = write_big_input(&dir);
    let output = dir.join("out.glb");
    assert!(convert(&input, &output).status().unwrap().success());
    let complete = std::fs::read(&output).unwrap();
    let old = b"the old output".to_vec();
    let (mut mid_write, mut runs) = (0, 0);
    while mid_write < 3 && runs < 40 {
        runs += 1;
        std::fs::write(&output, &old).unwrap();
        let mut child = convert(&input, &output).spawn().unwrap();
        let started = Instant::now();
        let mut seen = false;
        while !seen && started.elapsed() < Duration::from_secs(60) && child.try_wait().unwrap().is_none() {
            seen = !temp_files(&dir).is_empty();
        }
        // SAFETY: kill(2) on our own child's pid, which has not been reaped yet.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
        let status = child.wait().unwrap();
        assert!(temp_files(&dir).is_empty(), "run {run}: a temporary file remains: {:?}", temp_files(&dir), run = runs);
        let now = std::fs::read(&output).unwrap();
        assert!(now == old || now == complete, "run {runs}: {} bytes, neither old nor complete", now.len());
        match status.code() {
            // Ended by the signal before or after the rename.
            Some(143) => mid_write += usize::from(seen && now == old),
            code => assert_eq!(code, Some(0), "run {runs}: {status:?}"),
        }
    }
    eprintln!("{runs} runs, {mid_write} ended by SIGTERM while the temporary file existed");
    assert!(mid_write >= 3, "only {mid_write} of {runs} SIGTERMs landed mid-write");
    std::fs::remove_dir_all(&dir).unwrap();
}
