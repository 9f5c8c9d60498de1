//! Helpers shared by the verbs: opening inputs, format options, safe output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use animkit::format::{Format, Param};
use animkit::io::Durability;
use animkit::registry::check_write_params;
use animkit::REGISTRY;
use animkit::{Document, Error, ReadOptions};
use anyhow::{bail, Context, Result};

/// `--opt key=value` settings passed to a format.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct FormatOptions {
    /// A format setting, `key=value` (repeatable): e.g. `overflow=error`, `compression=none`,
    /// `skb_version=1`. `animkit formats --params` lists every format's keys; a key that neither
    /// the inputs' formats read nor the output's writes is an error.
    #[arg(long = "opt", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub opts: Vec<(String, String)>,
    /// A resource limit for each input, `NAME=SIZE` (repeatable): `decoded=2GiB` (bytes
    /// decompressed, all nested containers together), `keys=…` (keys converted), `work=…`.
    /// Defaults: 20× the input's size decoded (at least 256 MiB), a key per 16 of those bytes,
    /// about a second of work per megabyte.
    #[arg(long = "limit", value_name = "NAME=SIZE", value_parser = parse_limit)]
    pub limits: Vec<(String, String)>,
}

fn parse_limit(s: &str) -> Result<(String, String), String> {
    let (name, value) = parse_key_value(s)?;
    animkit::format::Limits::default().set(&name, &value)?;
    Ok((name, value))
}

/// Every key some format reads or writes.
fn known_keys() -> impl Iterator<Item = &'static Param> {
    let per_format = REGISTRY.formats().iter().flat_map(|f| f.read_params().iter().chain(f.write_params()));
    REGISTRY.common_read_params().iter().chain(per_format)
}

fn parse_key_value(s: &str) -> Result<(String, String), String> {
    let (key, value) = s.split_once('=').ok_or_else(|| format!("expected KEY=VALUE, got \"{s}\""))?;
    let key = key.trim();
    if !known_keys().any(|p| p.key == key) {
        let mut keys: Vec<&str> = known_keys().map(|p| p.key).collect();
        keys.sort_unstable();
        keys.dedup();
        return Err(format!(
            "no format takes the option \"{key}\"; valid keys: {} (`animkit formats --params` says which format takes which)",
            keys.join(", ")
        ));
    }
    Ok((key.to_string(), value.trim().to_string()))
}

impl FormatOptions {
    pub fn read_options(&self, lenient: bool) -> ReadOptions {
        ReadOptions::default().with_lenient(lenient).with_limits(self.limits()).with_params(self.params())
    }

    /// The `--limit` settings over the default limits.
    pub fn limits(&self) -> animkit::format::Limits {
        let mut limits = animkit::format::Limits::default();
        for (name, value) in &self.limits {
            // Checked by `parse_limit` already.
            let _ = limits.set(name, value);
        }
        limits
    }

    /// Checks that every key is one that the format of some file in `inputs` reads (with
    /// `reading`) or `output` writes: a verb passes its settings to exactly these. The error names
    /// the key and lists the keys each of them takes. The inputs are probed only when there are
    /// settings; files that cannot be read are left for the verb to report.
    pub fn check_for(&self, inputs: &[&Path], output: Option<&dyn Format>) -> Result<()> {
        if self.opts.is_empty() {
            return Ok(());
        }
        let mut formats: Vec<&'static dyn Format> = Vec::new();
        for format in inputs.iter().filter_map(|path| probe_file(path)) {
            if !formats.iter().any(|f| f.name() == format.name()) {
                formats.push(format);
            }
        }
        for (key, value) in &self.opts {
            let one = BTreeMap::from([(key.clone(), value.clone())]);
            let read = formats.iter().any(|&f| REGISTRY.check_read_params(f, &one).is_ok());
            let written = output.is_some_and(|f| check_write_params(f, &one).is_ok());
            if !read && !written && !formats.is_empty() {
                bail!("{}", not_taken(key, &formats, output));
            }
        }
        Ok(())
    }

    /// The settings as a map.
    pub fn params(&self) -> BTreeMap<String, String> {
        self.opts.iter().cloned().collect()
    }
}

/// The paths of `files` and of `more`, for [`FormatOptions::check_for`].
pub fn paths<'a>(files: &'a [PathBuf], more: Option<&'a PathBuf>) -> Vec<&'a Path> {
    files.iter().chain(more).map(PathBuf::as_path).collect()
}

/// The format the probe finds for the file at `path`, if it can be read.
pub fn probe_file(path: &Path) -> Option<&'static dyn Format> {
    let data = std::fs::read(path).ok()?;
    animkit::probe(&data, Some(path)).ok()
}

/// Says that no format of `reads` reads `key` and `write` does not write it, with what they take.
fn not_taken(key: &str, reads: &[&'static dyn Format], write: Option<&dyn Format>) -> String {
    let takes = |params: &[Param]| {
        let list: Vec<String> = params.iter().map(|p| format!("{}={}", p.key, p.values)).collect();
        if list.is_empty() {
            "no settings".to_string()
        } else {
            list.join(", ")
        }
    };
    let mut actions: Vec<String> = reads.iter().map(|f| format!("reading {}", f.name())).collect();
    let reading = |f: &dyn Format| {
        if f.capabilities().archive && f.read_params().is_empty() {
            "its entries' formats' settings".to_string()
        } else {
            takes(&[f.read_params(), REGISTRY.common_read_params()].concat())
        }
    };
    let mut valid: Vec<String> = reads.iter().map(|&f| format!("reading {} takes {}", f.name(), reading(f))).collect();
    if let Some(f) = write {
        actions.push(format!("writing {}", f.name()));
        valid.push(format!("writing {} takes {}", f.name(), takes(f.write_params())));
    }
    format!("--opt \"{key}\" is not a setting of {}: {}", actions.join(" or "), valid.join("; "))
}

/// Where a rewrite of an input goes: `-o OUT`, or the input itself with `--in-place`.
#[derive(clap::Args, Debug, Clone)]
pub struct Destination {
    /// The file to write (with several inputs, a directory).
    #[arg(short, long, required_unless_present = "in_place")]
    pub output: Option<PathBuf>,
    /// Rewrite the input itself, keeping a backup `NAME.bak` (or `NAME.bak.N`). A symbolic link
    /// is followed: the file it points to is rewritten (the link stays a link) and the backup sits
    /// beside that file. A file whose content would not change is left alone (no backup).
    #[arg(long)]
    pub in_place: bool,
}

/// Reads and parses a file with the format the probe finds.
pub fn open(path: &Path, options: &ReadOptions) -> Result<Box<dyn Document>, Error> {
    animkit::open_with(path, options).map_err(|e| e.within(path.display().to_string()))
}

/// Reads an archive (a format whose documents hold entries: HIP/HOP, SARC, Yaz0, Zstandard).
pub fn open_archive(path: &Path, format: &FormatOptions) -> Result<Box<dyn Document>> {
    format.check_for(&[path], None)?;
    let doc = open(path, &format.read_options(false))?;
    if !doc.format().capabilities().archive {
        bail!("{} is a {} file, not an archive", path.display(), doc.format().name());
    }
    Ok(doc)
}

/// Reads the skeleton of a file (any format that carries one).
pub fn load_skeleton(path: &Path, options: &ReadOptions) -> Result<animkit::model::Skeleton> {
    Ok(animkit::convert::load_skeleton(path, options)?)
}

/// What [`write_output`] did.
#[derive(Debug)]
pub struct Written {
    /// The file written: the output, or with `--in-place` on a symbolic link, the file it points to.
    pub path: PathBuf,
    /// The copy of the old content kept beside it (`--in-place`).
    pub backup: Option<PathBuf>,
    /// The file held these bytes already: nothing was written and no backup made.
    pub unchanged: bool,
}

impl Written {
    /// What to tell the user beyond "done".
    pub fn messages(&self, out: &Path) -> Vec<String> {
        let mut messages = Vec::new();
        if self.unchanged {
            messages.push(format!("unchanged: {} already holds this content", self.path.display()));
        } else if self.path != out {
            messages.push(format!("wrote {} (the file the link {} points to)", self.path.display(), out.display()));
        }
        if let Some(b) = &self.backup {
            messages.push(format!("backup kept at {}", b.display()));
        }
        messages
    }
}

/// Writes `data` to `out` atomically (see [`animkit::io`]: a symbolic link at `out` is replaced,
/// not followed). Refuses to replace `input` unless `in_place`; then a symbolic link is resolved
/// (the file it points to is rewritten, the link stays) and a backup of the old content is kept
/// beside that file. Nothing is written when the file holds `data` already.
pub fn write_output(out: &Path, data: &[u8], input: Option<&Path>, in_place: bool) -> Result<Written> {
    write_output_with(out, data, input, in_place, Durability::Synced)
}

/// [`write_output`], synced as `durability` says; a file that replaces the input is always
/// synced before the rename (see [`animkit::io`] for the policy).
pub fn write_output_with(
    out: &Path,
    data: &[u8],
    input: Option<&Path>,
    in_place: bool,
    durability: Durability,
) -> Result<Written> {
    let replaces_input = input.is_some_and(|input| animkit::io::same_file(input, out));
    if replaces_input && !in_place {
        bail!("refusing to overwrite the input {} (use --in-place, which keeps a backup)", out.display());
    }
    let is_link = std::fs::symlink_metadata(out).is_ok_and(|m| m.file_type().is_symlink());
    let path = if replaces_input && is_link {
        std::fs::canonicalize(out).with_context(|| format!("resolving the link {}", out.display()))?
    } else {
        out.to_path_buf()
    };
    if holds(&path, data).with_context(|| format!("reading {}", path.display()))? {
        return Ok(Written { path, backup: None, unchanged: true });
    }
    let backup = if replaces_input {
        let backup = animkit::io::write_backup(&path).with_context(|| format!("backing up {}", path.display()))?;
        Some(backup)
    } else {
        None
    };
    let durability = if replaces_input { Durability::Synced } else { durability };
    animkit::io::write_atomic_with(&path, data, durability).with_context(|| format!("writing {}", path.display()))?;
    Ok(Written { path, backup, unchanged: false })
}

/// Whether `path` is a regular file (not a link) whose content is `data`.
pub fn holds(path: &Path, data: &[u8]) -> std::io::Result<bool> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() && meta.len() == data.len() as u64 => Ok(std::fs::read(path)? == data),
        Ok(_) => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Prints a JSON value as one line.
pub fn print_json_line(value: &impl serde::Serialize) -> Result<()> {
    println!("{}", serde_json::to_string(value)?);
    Ok(())
}
