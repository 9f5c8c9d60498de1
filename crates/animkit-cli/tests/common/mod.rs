//! Shared helpers for the CLI tests: running the binary, the repository and corpus, temp dirs.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `animkit` binary with `args`.
pub fn animkit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_animkit")).args(args).output().expect("runs")
}

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The example IFP in the repository.
pub fn example() -> String {
    repo().join("examples/walk_cycle.ifp").display().to_string()
}

/// A corpus file, or `None` (skip) when the corpus is absent outside CI.
pub fn corpus(dir: &str, name: &str) -> Option<String> {
    let root = std::env::var_os("ANIMKIT_CORPUS").map(PathBuf::from).unwrap_or_else(|| repo().join("../shared/corpus"));
    let path = root.join(dir).join(name);
    if path.is_file() {
        return Some(path.display().to_string());
    }
    assert!(std::env::var("CI").map_or(true, |v| v != "true"), "corpus file {} missing under CI", path.display());
    eprintln!("SKIPPED: {} not found", path.display());
    None
}

/// A fresh, empty temp dir `animkit-cli-{name}-{pid}` (each test binary is its own process).
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("animkit-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The exit code, or -1 when killed by a signal.
pub fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

/// Asserts exit code 0 (showing stderr otherwise) and returns stderr.
pub fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{err}");
    err
}
