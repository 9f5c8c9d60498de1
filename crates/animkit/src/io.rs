//! Safe output: files are written to a temporary file in the same directory and renamed over the
//! target, so the target holds either its old content or the complete new content, never a part.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `data` to `path` atomically (temporary file in the same directory, fsync, rename).
pub fn write_atomic(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.animkit-{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(data)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The path of the backup kept when a file is rewritten in place: `NAME.bak`, or `NAME.bak.N`
/// when that exists already.
pub fn backup_path(path: &Path) -> PathBuf {
    let base = path.as_os_str().to_string_lossy().into_owned();
    let first = PathBuf::from(format!("{base}.bak"));
    if !first.exists() {
        return first;
    }
    (1..).map(|n| PathBuf::from(format!("{base}.bak.{n}"))).find(|p| !p.exists()).unwrap_or(first)
}

/// Whether two paths name the same existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_content_and_leaves_no_temp() {
        let dir = std::env::temp_dir().join(format!("animkit-io-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let target = dir.join("out.bin");
        write_atomic(&target, b"old").unwrap();
        write_atomic(&target, b"new content").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new content");
        let leftovers: Vec<_> = fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).collect();
        assert_eq!(leftovers.len(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn failed_write_keeps_the_old_file() {
        let dir = std::env::temp_dir().join(format!("animkit-io-fail-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let target = dir.join("keep.bin");
        fs::write(&target, b"old").unwrap();
        // Renaming a file over a directory fails: the old content must survive untouched.
        let blocked = dir.join("sub");
        fs::create_dir_all(blocked.join("x")).unwrap();
        assert!(write_atomic(&blocked, b"new").is_err());
        assert_eq!(fs::read(&target).unwrap(), b"old");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
        fs::remove_dir_all(&dir).unwrap();
    }
}
