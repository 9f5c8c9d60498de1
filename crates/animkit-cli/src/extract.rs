//! `animkit extract`: the assets inside an archive, one file each.
//!
//! Every asset's path is planned before the first write ([`animkit::extract::plan`]): names that
//! repeat get `_2`, `_3`… suffixes, unsafe names are made safe, folders in member names become
//! folders, and every renaming is reported. Nothing is written through a link inside the output
//! folder, and no existing file is replaced by different content without `--overwrite`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use animkit::extract::{plan, Planned, Renamed};
use anyhow::{bail, Context, Result};

use crate::common::{holds, open_archive, write_output, FormatOptions};

#[derive(clap::Args)]
pub struct Args {
    archive: PathBuf,
    /// The directory to write the assets into.
    #[arg(short, long)]
    output: PathBuf,
    /// Replace files in the output directory that hold something else (without it, extract
    /// refuses and writes nothing).
    #[arg(long)]
    overwrite: bool,
    #[command(flatten)]
    format: FormatOptions,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let doc = open_archive(&args.archive, &args.format)?;
    let planned = plan(doc.entries()?);
    if planned.is_empty() {
        bail!("{} holds no assets to extract", args.archive.display());
    }
    for p in &planned {
        refuse_links(&args.output, &p.relative_path())?;
    }
    if !args.overwrite {
        refuse_overwriting(&args.output, &planned)?;
    }
    let mut unchanged = 0;
    for p in &planned {
        let path = args.output.join(p.relative_path());
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
        }
        unchanged += usize::from(write_output(&path, &p.entry.data, None, false)?.unchanged);
        println!("{}\t{}\t{} bytes", p.entry.kind, p.path, p.entry.data.len());
    }
    report_renamed(&planned);
    let already = if unchanged > 0 { format!(" ({unchanged} held this content already)") } else { String::new() };
    eprintln!("{} assets written to {}{already}", planned.len(), args.output.display());
    Ok(ExitCode::SUCCESS)
}

/// Fails, naming the first few, when files of the plan exist in `output` with other content
/// (a file holding the asset's bytes already is left as it is).
fn refuse_overwriting(output: &Path, planned: &[Planned]) -> Result<()> {
    let mut taken = Vec::new();
    for p in planned {
        let path = output.join(p.relative_path());
        let exists = path.symlink_metadata().is_ok();
        if exists && !holds(&path, &p.entry.data).with_context(|| format!("reading {}", path.display()))? {
            taken.push(p.path.clone());
        }
    }
    if taken.is_empty() {
        return Ok(());
    }
    let (files, hold, them) = if taken.len() == 1 { ("file", "holds", "it") } else { ("files", "hold", "them") };
    bail!(
        "refusing to overwrite {} existing {files} in {} that {hold} something else: {}; nothing was \
         written (use --overwrite to replace {them})",
        taken.len(),
        output.display(),
        first_few(&taken),
    )
}

/// The first five of `items`, and how many more there are.
fn first_few(items: &[String]) -> String {
    let shown = items.iter().take(5).map(String::as_str).collect::<Vec<_>>().join(", ");
    match items.len().saturating_sub(5) {
        0 => shown,
        more => format!("{shown}, and {more} more"),
    }
}

/// Fails when a folder on the way from `output` to `relative` exists as a symbolic link, so an
/// extraction cannot be steered outside the output folder.
fn refuse_links(output: &Path, relative: &Path) -> Result<()> {
    let mut at = output.to_path_buf();
    for part in relative.parent().into_iter().flat_map(Path::components) {
        at.push(part);
        if at.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
            bail!("refusing to extract through the symbolic link {}", at.display());
        }
    }
    Ok(())
}

/// Says which assets were written under another name than the archive's, a few by name.
fn report_renamed(planned: &[Planned]) {
    for (why, label) in [(Renamed::Duplicate, "repeat an earlier name"), (Renamed::Unsafe, "were unsafe as paths")] {
        let renamed: Vec<&Planned> = planned.iter().filter(|p| p.renamed == Some(why)).collect();
        if renamed.is_empty() {
            continue;
        }
        let shown: Vec<String> = renamed.iter().map(|p| format!("\"{}\" → {}", p.entry.name, p.path)).collect();
        eprintln!("{} asset names {label}, written as: {}", renamed.len(), first_few(&shown));
    }
}
