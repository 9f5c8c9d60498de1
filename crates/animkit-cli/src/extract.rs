//! `animkit extract`: the assets inside an archive, one file each.

use std::path::PathBuf;
use std::process::ExitCode;

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
    let entries = doc.entries()?;
    std::fs::create_dir_all(&args.output).with_context(|| format!("creating {}", args.output.display()))?;
    for e in &entries {
        let name = std::path::Path::new(&e.name);
        if name.components().count() != 1 || e.name.starts_with('.') {
            bail!("refusing the unsafe asset name \"{}\"", e.name);
        }
        write_output(&args.output.join(name), &e.data, None, false)?;
        println!("{}\t{}\t{} bytes", e.kind, e.name, e.data.len());
    }
    eprintln!("{} assets written to {}", entries.len(), args.output.display());
    Ok(ExitCode::SUCCESS)
}
