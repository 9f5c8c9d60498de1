//! Helpers shared by the verbs: opening inputs, format options, safe output.

use std::path::{Path, PathBuf};

use animkit::{Document, Error, Package, ReadOptions};
use anyhow::{bail, Context, Result};

/// `--opt key=value` settings passed to a format.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct FormatOptions {
    /// A format setting, `key=value` (repeatable): e.g. `overflow=error`, `compression=none`,
    /// `skb_version=1`.
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
    animkit::formats::Limits::default().set(&name, &value)?;
    Ok((name, value))
}

fn parse_key_value(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| format!("expected KEY=VALUE, got \"{s}\""))
}

impl FormatOptions {
    pub fn read_options(&self, lenient: bool) -> ReadOptions {
        let mut limits = animkit::formats::Limits::default();
        for (name, value) in &self.limits {
            // Checked by `parse_limit` already.
            let _ = limits.set(name, value);
        }
        ReadOptions { lenient, limits, params: self.opts.iter().cloned().collect(), ..Default::default() }
    }
}

/// Where a rewrite of an input goes: `-o OUT`, or the input itself with `--in-place`.
#[derive(clap::Args, Debug, Clone)]
pub struct Destination {
    /// The file to write (with several inputs, a directory).
    #[arg(short, long, required_unless_present = "in_place")]
    pub output: Option<PathBuf>,
    /// Rewrite the input itself, keeping a backup `NAME.bak`.
    #[arg(long)]
    pub in_place: bool,
}

/// Reads and parses a file with the format the probe finds.
pub fn open(path: &Path, options: &ReadOptions) -> Result<Box<dyn Document>, Error> {
    animkit::open_with(path, options).map_err(|e| e.within(path.display().to_string()))
}

/// Reads an archive (a format whose documents hold entries: HIP/HOP, SARC, Yaz0).
pub fn open_archive(path: &Path, format: &FormatOptions) -> Result<Box<dyn Document>> {
    let doc = open(path, &format.read_options(false))?;
    if !doc.format().capabilities().archive {
        bail!("{} is a {} file, not an archive", path.display(), doc.format().name());
    }
    Ok(doc)
}

/// Reads the skeleton of a file (any format that carries one).
pub fn load_skeleton(path: &Path, options: &ReadOptions) -> Result<animkit::model::Skeleton> {
    let package: Package = open(path, options)?.to_model()?;
    package.skeleton.with_context(|| format!("{} holds no skeleton", path.display()))
}

/// Writes `data` to `out` atomically. Refuses to replace `input` unless `in_place`, and then
/// keeps a backup of it first.
pub fn write_output(out: &Path, data: &[u8], input: Option<&Path>, in_place: bool) -> Result<Option<PathBuf>> {
    let mut backup = None;
    if let Some(input) = input {
        if animkit::io::same_file(input, out) {
            if !in_place {
                bail!("refusing to overwrite the input {} (use --in-place, which keeps a backup)", out.display());
            }
            let path = animkit::io::backup_path(out);
            std::fs::copy(out, &path).with_context(|| format!("backing up {}", out.display()))?;
            backup = Some(path);
        }
    }
    animkit::io::write_atomic(out, data).with_context(|| format!("writing {}", out.display()))?;
    Ok(backup)
}

/// Prints a JSON value as one line.
pub fn print_json_line(value: &impl serde::Serialize) -> Result<()> {
    println!("{}", serde_json::to_string(value)?);
    Ok(())
}
