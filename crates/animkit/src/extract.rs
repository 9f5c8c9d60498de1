//! Where an archive's entries go when extracted: every entry gets a safe, unique relative path
//! before anything is written, so an extraction never overwrites one entry with another and never
//! stops half-way on a bad name.
//!
//! Entry names come from the archives as they are: SARC members are paths (`Actor/Pack/x.bfres`),
//! HIP assets and IFP animations may repeat a name, an unnamed SARC member is `member_N` (which a
//! real member may also be called), and names decoded from undecodable bytes can coincide.
//! [`plan`] applies the rules of [`unique_paths`], in entry order, and reports every path that
//! differs from the entry's name with the reason.

use std::path::PathBuf;

pub use crate::entry_path::{unique_paths, Renamed};
use crate::format::Entry;

/// One entry and the path, relative to the output folder, it is written to.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The entry as the archive gives it.
    pub entry: Entry,
    /// Folders separated by `/`; never absolute, never `..`, unique in the plan.
    pub path: String,
    /// Set when `path` differs from the entry's name.
    pub renamed: Option<Renamed>,
}

/// Safe, unique paths for `entries`, in their order (see the module docs for the rules).
pub fn plan(entries: Vec<Entry>) -> Vec<Planned> {
    let paths = unique_paths(entries.iter().map(|e| e.name.as_str()));
    entries.into_iter().zip(paths).map(|(entry, (path, renamed))| Planned { entry, path, renamed }).collect()
}

impl Planned {
    /// The path as a relative [`PathBuf`] (folders as components).
    pub fn relative_path(&self) -> PathBuf {
        self.path.split('/').collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> Entry {
        Entry { name: name.to_string(), kind: String::new(), data: Default::default() }
    }

    fn paths(names: &[&str]) -> Vec<String> {
        plan(names.iter().map(|n| entry(n)).collect()).into_iter().map(|p| p.path).collect()
    }

    #[test]
    fn duplicates_get_numbered_suffixes_in_order() {
        assert_eq!(paths(&["a.anm", "a.anm", "A.ANM", "a_2.anm"]), ["a.anm", "a_2.anm", "A_3.ANM", "a_2_2.anm"]);
        assert_eq!(paths(&["member_0", "x", "member_0"]), ["member_0", "x", "member_0_2"]);
    }

    #[test]
    fn folders_are_kept_and_a_file_never_takes_a_folder_path() {
        assert_eq!(paths(&["Actor/Pack/x.bfres", "Actor", "actor/y"]), ["Actor/Pack/x.bfres", "Actor_2", "actor/y"]);
    }

    #[test]
    fn unsafe_parts_become_portable() {
        assert_eq!(
            paths(&["../../etc/passwd", "/abs//x", ".hidden", "a\\b:c", "CON.txt", "dots. ", "", "."]),
            ["__/__/etc/passwd", "abs/x", "_hidden", "a_b_c", "_CON.txt", "dots__", "unnamed", "_"]
        );
        let planned = plan(vec![entry("ok.anm"), entry("../x"), entry("ok.anm")]);
        let why: Vec<_> = planned.iter().map(|p| p.renamed).collect();
        assert_eq!(why, [None, Some(Renamed::Unsafe), Some(Renamed::Duplicate)]);
    }
}
