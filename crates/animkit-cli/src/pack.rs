//! `animkit pack`: the exact inverse of `dump`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::common::write_output;

#[derive(clap::Args)]
pub struct Args {
    /// A JSON dump written by `animkit dump`.
    input: PathBuf,
    /// The file to write.
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let text = std::fs::read_to_string(&args.input).with_context(|| format!("reading {}", args.input.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", args.input.display()))?;
    let doc = animkit::pack(value).map_err(|e| e.within(args.input.display().to_string()))?;
    write_output(&args.output, &doc.write()?, Some(&args.input), false)?;
    Ok(ExitCode::SUCCESS)
}
