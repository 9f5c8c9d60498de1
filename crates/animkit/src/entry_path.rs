//! Safe, unique relative paths for an archive's entry names: the rules extraction applies, and
//! the names archives give their entries so that `extract` writes each entry under the name
//! `replace` knows it by.
//!
//! 1. `/` separates folders. Each part is made portable: control characters and `\ : * ? " < > |`
//!    become `_`; `.` and `..` become `_` and `__`; a leading `.` (a hidden file) becomes `_`;
//!    trailing dots and spaces become `_`; Windows device names (`CON`, `NUL`, `COM1`…) get a `_`
//!    prefix. Empty parts are dropped; a name with no part left is `unnamed`.
//! 2. Paths are compared without regard to case (Windows and macOS folders ignore it), and a file
//!    may not take the path of a folder another entry needs. The second and later holders of a path
//!    get `_2`, `_3`… before the extension (`open.caf`, `open_2.caf`).

use std::collections::HashSet;

/// Why an entry's path differs from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Renamed {
    /// The name had characters or parts that are unsafe or not portable in a path.
    Unsafe,
    /// Another entry (or a folder of one) already had the path.
    Duplicate,
}

/// Safe, unique paths for `names`, in their order, each with the reason it differs from its name
/// (the rules of the module docs). Archives use it to name their entries, so that `extract`
/// writes each entry under the name `replace` knows it by.
pub fn unique_paths<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<(String, Option<Renamed>)> {
    let named: Vec<(&str, String)> = names.into_iter().map(|n| (n, safe_path(n))).collect();
    let folders: HashSet<String> = named.iter().flat_map(|(_, p)| folders_of(p)).collect();
    let mut taken: HashSet<String> = HashSet::new();
    named
        .into_iter()
        .map(|(name, path)| {
            let unique = (1..)
                .map(|n| with_suffix(&path, n))
                .find(|p| !folders.contains(&p.to_lowercase()) && !taken.contains(&p.to_lowercase()))
                .unwrap_or_else(|| path.clone());
            taken.insert(unique.to_lowercase());
            let renamed = if unique != path {
                Some(Renamed::Duplicate)
            } else if unique != name {
                Some(Renamed::Unsafe)
            } else {
                None
            };
            (unique, renamed)
        })
        .collect()
}

/// `name` as a safe relative path: portable parts joined by `/`.
fn safe_path(name: &str) -> String {
    let parts: Vec<String> = name.split('/').filter(|p| !p.is_empty()).map(safe_part).collect();
    if parts.is_empty() {
        "unnamed".to_string()
    } else {
        parts.join("/")
    }
}

/// One path part made portable (rule 1 of the module docs).
fn safe_part(part: &str) -> String {
    match part {
        "." => return "_".into(),
        ".." => return "__".into(),
        _ => {}
    }
    let mut out: String =
        part.chars().map(|c| if c.is_control() || "\\:*?\"<>|".contains(c) { '_' } else { c }).collect();
    if out.starts_with('.') {
        out.replace_range(..1, "_");
    }
    let kept = out.trim_end_matches(['.', ' ']).len();
    let trailing = out.len() - kept;
    out.truncate(kept);
    out.extend(std::iter::repeat_n('_', trailing));
    if is_device_name(&out) {
        out.insert(0, '_');
    }
    out
}

/// Windows device names, which no file may have (with any extension).
fn is_device_name(part: &str) -> bool {
    let stem = part.split('.').next().unwrap_or(part).to_ascii_uppercase();
    matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || (stem.len() == 4
            && (stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.ends_with(|c: char| c.is_ascii_digit() && c != '0'))
}

/// The lower-case folders `path` lies in (`a/b/c` → `a`, `a/b`).
fn folders_of(path: &str) -> Vec<String> {
    path.match_indices('/').filter_map(|(i, _)| path.get(..i)).map(str::to_lowercase).collect()
}

/// `path` with `_n` before the file name's extension; `path` itself for `n == 1`.
fn with_suffix(path: &str, n: usize) -> String {
    if n == 1 {
        return path.to_string();
    }
    let file_start = path.rfind('/').map_or(0, |i| i + 1);
    let dot = path.get(file_start..).and_then(|file| file.rfind('.')).filter(|&dot| dot > 0);
    match dot.and_then(|dot| path.split_at_checked(file_start + dot)) {
        Some((stem, extension)) => format!("{stem}_{n}{extension}"),
        None => format!("{path}_{n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_goes_before_the_extension_of_the_file_not_a_folder() {
        assert_eq!(with_suffix("a.b/c", 2), "a.b/c_2");
        assert_eq!(with_suffix(".x", 3), ".x_3");
        assert_eq!(with_suffix("d/e.tar", 2), "d/e_2.tar");
    }
}
