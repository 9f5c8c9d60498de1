//! Helpers shared by the verbs: opening inputs, format options, safe output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use animkit::formats::{Format, Param, COMMON_READ_PARAMS, REGISTRY};
use animkit::{Document, Error, ReadOptions};
use anyhow::{bail, Context, Result};

/// `--opt key=value` settings passed to a format.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct FormatOptions {
    /// A format setting, `key=value` (repeatable): e.g. `overflow=error`, `compression=none`,
    /// `skb_version=1`. `animkit formats --params` lists every format's keys; an unknown key is
    /// an error.
    #[arg(long = "opt", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub opts: Vec<(String, String)>,
}

/// Every key some format reads or writes.
fn known_keys() -> impl Iterator<Item = &'static Param> {
    let per_format = REGISTRY.iter().flat_map(|f| f.read_params().iter().chain(f.write_params()));
    COMMON_READ_PARAMS.iter().chain(per_format)
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
        ReadOptions { lenient, params: self.params(), ..Default::default() }
    }

    /// Checks that every key is one `format` writes or some format reads (the input's format,
    /// known once it is read, is checked then); the error lists what `format` writes.
    pub fn check_for_writing(&self, format: &dyn Format) -> Result<()> {
        for (key, value) in &self.opts {
            let writes = format.write_params().iter().any(|p| p.key == key);
            let reads =
                COMMON_READ_PARAMS.iter().chain(REGISTRY.iter().flat_map(|f| f.read_params())).any(|p| p.key == key);
            if !writes && !reads {
                let alone = BTreeMap::from([(key.clone(), value.clone())]);
                animkit::formats::check_write_params(format, &alone)?;
            }
        }
        Ok(())
    }

    /// The settings as a map.
    pub fn params(&self) -> BTreeMap<String, String> {
        self.opts.iter().cloned().collect()
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
    Ok(animkit::convert::load_skeleton(path, options)?)
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
