//! `animkit replace`: put a file back into an archive, the inverse of `extract`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::common::{open_archive, write_output, Destination, FormatOptions};

#[derive(clap::Args)]
pub struct Args {
    /// The archive: HIP/HOP, SARC, Yaz0 (`.szs`, `.sbfres`) or Zstandard (`.zs`).
    archive: PathBuf,
    /// The entry to replace, as `extract` names it; inside a nested archive, its path
    /// (`Bass.sarc/Animal_Bass.bfres`). A Yaz0 file passes the name on to the archive it holds.
    entry: String,
    /// The file to put in its place. An entry animkit reads must get a file of the same format.
    file: PathBuf,
    #[command(flatten)]
    destination: Destination,
    #[command(flatten)]
    format: FormatOptions,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let doc = open_archive(&args.archive, &args.format)?;
    let data = std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let size = data.len();
    let replaced = doc.with_entry(&args.entry, animkit::Bytes::from(data))?.write()?;
    let out = args.destination.output.as_ref().unwrap_or(&args.archive);
    let written = write_output(out, &replaced, Some(&args.archive), args.destination.in_place)?;
    println!("{}\t{size} bytes\t{}\t{} bytes", args.entry, out.display(), replaced.len());
    for m in written.messages(out) {
        eprintln!("{m}");
    }
    Ok(ExitCode::SUCCESS)
}
