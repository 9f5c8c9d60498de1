//! `animkit dump`: lossless JSON of a file's raw structure.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::common::{open, write_output, FormatOptions};

#[derive(clap::Args)]
pub struct Args {
    file: PathBuf,
    /// Write the JSON here instead of to stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// One line instead of indented JSON.
    #[arg(long)]
    compact: bool,
    #[command(flatten)]
    format: FormatOptions,
}

pub fn run(args: Args) -> Result<ExitCode> {
    args.format.check_for(&[&args.file], None)?;
    let doc = open(&args.file, &args.format.read_options(false))?;
    let value = animkit::dump(doc.as_ref())?;
    let mut text =
        if args.compact { serde_json::to_string(&value)? } else { animkit::raw_json::to_pretty_string(&value) };
    text.push('\n');
    match &args.output {
        Some(out) => {
            write_output(out, text.as_bytes(), Some(&args.file), false)?;
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
