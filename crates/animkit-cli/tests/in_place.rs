//! `--in-place` and the output path: the rewritten file keeps its mode, a symbolic link is followed
//! to the file it points to (the link stays), content that would not change is not rewritten, and
//! temporary files a crash left behind are cleared.
//!
//! The damaged input is the example IFP with 16 bytes of stale data appended: `repair` removes
//! them (check reports them as fixable trailing bytes), so the repaired file is the example itself.

#![cfg(unix)]

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::{animkit, example, ok, temp_dir};

/// The example IFP followed by stale bytes, at `path` with `mode`. Returns the example's bytes.
fn damaged_copy(path: &Path, mode: u32) -> Vec<u8> {
    let clean = std::fs::read(example()).unwrap();
    let mut damaged = clean.clone();
    damaged.extend_from_slice(b"STALE DATA 16 B.");
    std::fs::write(path, &damaged).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    clean
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn in_place_keeps_the_files_mode() {
    let dir = temp_dir("mode600");
    let file = dir.join("walk.ifp");
    let clean = damaged_copy(&file, 0o600);
    let damaged = std::fs::read(&file).unwrap();
    let err = ok(&animkit(&["repair", "--in-place", arg(&file)]));
    assert!(err.contains("removed 16 bytes") && err.contains("backup kept"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), clean);
    assert_eq!(mode(&file), 0o600, "the repaired file");
    assert_eq!(std::fs::read(dir.join("walk.ifp.bak")).unwrap(), damaged);
    assert_eq!(mode(&dir.join("walk.ifp.bak")), 0o600, "the backup");
    assert_eq!(names(&dir), ["walk.ifp", "walk.ifp.bak"]);
}

#[test]
fn in_place_on_a_symlink_repairs_the_file_it_points_to() {
    let dir = temp_dir("symlink");
    std::fs::create_dir_all(dir.join("real")).unwrap();
    let real = dir.join("real/walk.ifp");
    let clean = damaged_copy(&real, 0o640);
    let damaged = std::fs::read(&real).unwrap();
    let link = dir.join("walk.ifp");
    std::os::unix::fs::symlink("real/walk.ifp", &link).unwrap();
    let err = ok(&animkit(&["repair", "--in-place", arg(&link)]));
    assert!(err.contains("points to"), "{err}");
    let link_meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(link_meta.file_type().is_symlink(), "the link is still a link");
    assert_eq!(std::fs::read_link(&link).unwrap(), PathBuf::from("real/walk.ifp"));
    assert_eq!(std::fs::read(&real).unwrap(), clean, "the file it points to is repaired");
    assert_eq!(mode(&real), 0o640);
    assert_eq!(std::fs::read(dir.join("real/walk.ifp.bak")).unwrap(), damaged, "backup beside the real file");
    assert_eq!(names(&dir), ["real", "walk.ifp"]);
    assert_eq!(names(&dir.join("real")), ["walk.ifp", "walk.ifp.bak"]);
}

#[test]
fn an_unchanged_file_is_not_rewritten_and_gets_no_backup() {
    let dir = temp_dir("same-bytes");
    let file = dir.join("walk.ifp");
    std::fs::copy(example(), &file).unwrap();
    let long_ago = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    std::fs::File::options().write(true).open(&file).unwrap().set_modified(long_ago).unwrap();
    let before = std::fs::metadata(&file).unwrap();
    let err = ok(&animkit(&["repair", "--in-place", arg(&file)]));
    assert!(err.contains("unchanged: "), "{err}");
    let after = std::fs::metadata(&file).unwrap();
    assert_eq!((after.ino(), after.modified().unwrap()), (before.ino(), long_ago), "the file was rewritten");
    assert_eq!(names(&dir), ["walk.ifp"], "no backup");

    // The same with `-o`: writing an output again with the same content leaves it alone.
    let out = dir.join("walk.ifp.out");
    let err = ok(&animkit(&["repair", arg(&file), "-o", arg(&out)]));
    assert!(!err.contains("unchanged: "), "a new output is written: {err}");
    let err = ok(&animkit(&["repair", arg(&file), "-o", arg(&out)]));
    assert!(err.contains("unchanged: "), "the same output again: {err}");
}

#[test]
fn an_output_path_that_is_a_link_is_replaced_not_followed() {
    let dir = temp_dir("outlink");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let out = dir.join("out.glb");
    std::os::unix::fs::symlink(&victim, &out).unwrap();
    ok(&animkit(&["convert", &example(), "-o", arg(&out)]));
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(std::fs::symlink_metadata(&out).unwrap().is_file());
    assert!(std::fs::read(&out).unwrap().starts_with(b"glTF"));
}

#[test]
fn temporary_files_a_crash_left_are_cleared() {
    let dir = temp_dir("stale");
    let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
    let stale = dir.join(".out.glb.0123456789abcdef.animkit.tmp");
    let recent = dir.join(".out.glb.fedcba9876543210.animkit.tmp");
    for p in [&stale, &recent] {
        std::fs::write(p, vec![0u8; 4096]).unwrap();
    }
    std::fs::File::options().write(true).open(&stale).unwrap().set_modified(an_hour_ago).unwrap();
    ok(&animkit(&["convert", &example(), "-o", arg(&dir.join("out.glb"))]));
    assert_eq!(names(&dir), [".out.glb.fedcba9876543210.animkit.tmp", "out.glb"], "a recent one may be in use");
}
