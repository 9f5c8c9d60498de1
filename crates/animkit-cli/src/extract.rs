//! `animkit extract`: the assets inside an archive, one file each.
//!
//! Every asset's path is planned before the first write ([`animkit::extract::plan`]): names that
//! repeat get `_2`, `_3`… suffixes, unsafe names are made safe, folders in member names become
//! folders, and every renaming is reported. Nothing is written through a link inside the output
//! folder.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use animkit::extract::{plan, Planned, Renamed};
use anyhow::{bail, Context, Result};

use crate::common::{open_archive, write_output, FormatOptions};

#[derive(clap::Args)]
pub struct Args {
    archive: PathBuf,
    /// The directory to write the assets into.
    #[arg(short, long)]
    output: PathBuf,
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
    for p in &planned {
        let path = args.output.join(p.relative_path());
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
        }
        write_output(&path, &p.entry.data, None, false)?;
        println!("{}\t{}\t{} bytes", p.entry.kind, p.path, p.entry.data.len());
    }
    report_renamed(&planned);
    eprintln!("{} assets written to {}", planned.len(), args.output.display());
    Ok(ExitCode::SUCCESS)
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
        let shown: Vec<String> = renamed.iter().take(5).map(|p| format!("\"{}\" → {}", p.entry.name, p.path)).collect();
        let more = if renamed.len() > shown.len() {
            format!(", and {} more", renamed.len() - shown.len())
        } else {
            String::new()
        };
        eprintln!("{} asset names {label}, written as: {}{more}", renamed.len(), shown.join(", "));
    }
}
