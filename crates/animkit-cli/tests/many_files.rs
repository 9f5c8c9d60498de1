//! `info` and `check` over many files work on every core and report in the order the files were
//! named.

mod common;

use common::{animkit, example, temp_dir};

/// `count` copies of the example under distinct names, with one unreadable name among them.
fn many(count: usize) -> Vec<String> {
    let dir = temp_dir("many-files");
    let bytes = std::fs::read(example()).unwrap();
    let mut paths: Vec<String> = (0..count)
        .map(|i| {
            let p = dir.join(format!("copy_{i:03}.ifp"));
            std::fs::write(&p, &bytes).unwrap();
            p.display().to_string()
        })
        .collect();
    // Shuffled deterministically, so input order is not the directory order.
    paths.sort_by_key(|p| p.bytes().rev().map(u64::from).sum::<u64>() % 17);
    paths.insert(count / 2, dir.join("missing.ifp").display().to_string());
    paths
}

/// The file each output line names, in order (first occurrence only).
fn files_in(output: &[u8], paths: &[String]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for line in String::from_utf8_lossy(output).lines() {
        if let Some(p) = paths.iter().find(|p| line.starts_with(&format!("{p}:")) || line.contains(&format!("\"{p}\"")))
        {
            if seen.last() != Some(p) {
                seen.push(p.clone());
            }
        }
    }
    seen
}

#[test]
fn info_and_check_report_in_input_order() {
    let paths = many(150);
    let readable: Vec<String> = paths.iter().filter(|p| !p.ends_with("missing.ifp")).cloned().collect();
    let mut args: Vec<&str> = vec!["info"];
    args.extend(paths.iter().map(String::as_str));
    let o = animkit(&args);
    assert_eq!(o.status.code(), Some(2), "the missing file makes the exit code 2");
    assert_eq!(files_in(&o.stdout, &paths), readable);
    args[0] = "check";
    let o = animkit(&args);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(files_in(&o.stdout, &paths), readable);
    args.insert(1, "--json");
    let o = animkit(&args);
    assert_eq!(files_in(&o.stdout, &paths), readable);
}
