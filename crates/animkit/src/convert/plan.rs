//! Batch output paths that never collide, computed before anything is written.
//!
//! Each input of a batch converted into a directory `DIR` goes to `DIR/STEM.EXT`, or
//! `DIR/STEM_CHARACTER.EXT` per character. The first of these layouts in which no two files share
//! a path is used, for every input alike:
//!
//! 1. flat: `DIR/x.glb`;
//! 2. each input's folder relative to the inputs' common ancestor directory mirrored under `DIR`
//!    (`a/x.ifp`, `b/x.ifp` → `DIR/a/x.glb`, `DIR/b/x.glb`);
//! 3. mirrored, and the input's extension kept (`x.bfres`, `x.sbfres` → `DIR/x.bfres.glb`,
//!    `DIR/x.sbfres.glb`).
//!
//! When paths still collide (one file named twice), planning fails, so nothing is written. Paths
//! are compared ignoring ASCII case, as a case-insensitive file system would.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Component, Display, Path, PathBuf};

use crate::builtin::REGISTRY;
use crate::error::{Error, Result};
use crate::format::{Confidence, Format};

use super::characters;
use super::options::{ConvertOptions, Destination};
use super::prepare::{open_input, output_format, output_name, prepare, same_path, Prepared};

/// How many leading bytes decide whether an input may split per character.
const PROBE_BYTES: u64 = 4096;

/// One input of a batch, where it is written and the files it gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The input file.
    pub input: PathBuf,
    /// A [`Destination::Prefix`]: `DIR/STEM`, or as the layout rule gives.
    pub destination: Destination,
    /// The files [`super::prepare`] will build for this input (an input that cannot be read is
    /// planned as `STEM.EXT`; its job fails when it runs).
    pub files: Vec<PathBuf>,
}

impl Job {
    /// Builds this job's files ([`super::prepare`]); a file the plan did not foresee (the input
    /// changed since planning) is an error, so a job never writes outside its plan.
    pub fn prepare(&self, options: &ConvertOptions) -> Result<Prepared> {
        let prepared = prepare(&self.input, &self.destination, options)?;
        let planned = |path: &Path| self.files.iter().any(|p| same_path(p, path));
        if let Some(f) = prepared.files.iter().find(|f| !planned(&f.report.path)) {
            return Err(Error::unsupported(format!(
                "{} was not planned for {} (did the input change?); nothing written",
                f.report.path.display(),
                self.input.display()
            )));
        }
        Ok(prepared)
    }
}

/// The jobs that convert every input into the directory `dir`, with output paths that never
/// collide (see the module docs for the rule). Reads the inputs that may split per character.
pub fn plan(inputs: &[PathBuf], dir: &Path, options: &ConvertOptions) -> Result<Vec<Job>> {
    let (format, variant) = output_format(options.output.format.as_deref(), None)?;
    let characters: Vec<Vec<String>> = inputs.iter().map(|i| characters_of(i, options, format)).collect();
    let parents: Vec<PathBuf> = inputs.iter().map(|i| absolute_parent(i)).collect();
    let root = common_ancestor(&parents);
    let mirrored: Vec<PathBuf> = parents.iter().map(|p| dir.join(p.strip_prefix(&root).unwrap_or(p))).collect();
    let name = |input: &PathBuf, whole: bool| {
        let name = if whole { input.file_name() } else { input.file_stem() };
        name.map_or_else(|| OsString::from("out"), OsString::from)
    };
    let layouts: [Vec<PathBuf>; 3] = [
        inputs.iter().map(|i| dir.join(name(i, false))).collect(),
        inputs.iter().zip(&mirrored).map(|(i, d)| d.join(name(i, false))).collect(),
        inputs.iter().zip(&mirrored).map(|(i, d)| d.join(name(i, true))).collect(),
    ];
    let mut last = None;
    for prefixes in layouts {
        let jobs: Vec<Job> = inputs
            .iter()
            .zip(prefixes)
            .zip(&characters)
            .map(|((input, prefix), characters)| Job {
                input: input.clone(),
                files: files(&prefix, characters, format, variant),
                destination: Destination::Prefix(prefix),
            })
            .collect();
        match collision(&jobs) {
            None => return Ok(jobs),
            Some((a, b, path)) => last = Some(format!("{} and {} would both be written to {}", a, b, path)),
        }
    }
    let why = last.unwrap_or_default();
    Err(Error::unsupported(format!("{why}: convert them separately or rename one")))
}

/// The files of one job: `PREFIX.EXT`, or one per character.
fn files(prefix: &Path, characters: &[String], format: &dyn Format, variant: Option<&str>) -> Vec<PathBuf> {
    if characters.is_empty() {
        return vec![output_name(prefix, None, format, variant)];
    }
    characters.iter().map(|c| output_name(prefix, Some(c), format, variant)).collect()
}

/// The first two inputs whose files share a path, and that path.
fn collision(jobs: &[Job]) -> Option<(Display<'_>, Display<'_>, Display<'_>)> {
    let mut seen: HashMap<String, &Job> = HashMap::new();
    for job in jobs {
        for file in &job.files {
            let key = file.as_os_str().to_string_lossy().to_ascii_lowercase();
            if let Some(other) = seen.insert(key, job) {
                return Some((other.input.display(), job.input.display(), file.display()));
            }
        }
    }
    None
}

/// The characters `input` splits into (sanitised names); none when it is written as one file.
fn characters_of(input: &Path, options: &ConvertOptions, format: &dyn Format) -> Vec<String> {
    split_characters(input, options, format).unwrap_or_default()
}

/// [`characters_of`], `None` also when `input` cannot be read (its job then fails with the reason).
fn split_characters(input: &Path, options: &ConvertOptions, format: &dyn Format) -> Option<Vec<String>> {
    if options.skeleton.is_some() {
        return None;
    }
    let mut prefix = Vec::new();
    std::fs::File::open(input).ok()?.take(PROBE_BYTES).read_to_end(&mut prefix).ok()?;
    let splits = |f: &&&dyn Format| f.capabilities().archive && f.capabilities().skeleton;
    if !REGISTRY.formats().iter().filter(splits).any(|f| f.probe(&prefix) != Confidence::No) {
        return None;
    }
    let (doc, _) = open_input(input, options, format).ok()?;
    let parts = characters::parts(doc.as_ref(), options, true, format.capabilities().skeleton).ok()?;
    Some(parts.parts.into_iter().filter_map(|p| p.character).collect())
}

/// The absolute folder of `path`, with `.` and `..` resolved by name.
fn absolute_parent(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.pop();
    out
}

/// The longest folder every path of `paths` lies in.
fn common_ancestor(paths: &[PathBuf]) -> PathBuf {
    let mut iter = paths.iter();
    let Some(first) = iter.next() else { return PathBuf::new() };
    let mut common: Vec<Component> = first.components().collect();
    for p in iter {
        let shared = common.iter().zip(p.components()).take_while(|(a, b)| **a == *b).count();
        common.truncate(shared);
    }
    common.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_ancestor_of_sibling_folders() {
        let paths = [PathBuf::from("/g/anim/a"), PathBuf::from("/g/anim/b/c"), PathBuf::from("/g/anim/a")];
        assert_eq!(common_ancestor(&paths), PathBuf::from("/g/anim"));
        assert_eq!(absolute_parent(Path::new("/g/x/../y/./f.ifp")), PathBuf::from("/g/y"));
    }

    #[test]
    fn same_named_inputs_are_mirrored_and_a_duplicate_is_refused() {
        let options = ConvertOptions::to("glb");
        let inputs = [PathBuf::from("/no/such/a/x.ifp"), PathBuf::from("/no/such/b/x.ifp")];
        let jobs = plan(&inputs, Path::new("out"), &options).unwrap();
        let files: Vec<&PathBuf> = jobs.iter().flat_map(|j| &j.files).collect();
        assert_eq!(files, [&PathBuf::from("out/a/x.glb"), &PathBuf::from("out/b/x.glb")]);
        let flat = plan(&[PathBuf::from("/no/a/x.ifp"), PathBuf::from("/no/b/y.ifp")], Path::new("out"), &options);
        assert_eq!(flat.unwrap()[1].files, [PathBuf::from("out/y.glb")]);
        let kinds = [PathBuf::from("/no/a/x.ifp"), PathBuf::from("/no/a/X.caf")];
        let files: Vec<PathBuf> =
            plan(&kinds, Path::new("out"), &options).unwrap().into_iter().flat_map(|j| j.files).collect();
        assert_eq!(files, [PathBuf::from("out/x.ifp.glb"), PathBuf::from("out/X.caf.glb")]);
        let twice = [PathBuf::from("/no/a/x.ifp"), PathBuf::from("/no/a/X.IFP")];
        let e = plan(&twice, Path::new("out"), &options).unwrap_err();
        assert!(e.message.contains("would both be written to out/X.IFP.glb"), "{e}");
    }
}
