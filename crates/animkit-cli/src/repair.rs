//! `animkit repair`: a canonical rewrite that fixes what `check` reports as fixable.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::batch::{is_dir_target, Job};
use crate::common::{open, paths, write_output, Destination, FormatOptions};

#[derive(clap::Args)]
pub struct Args {
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    #[command(flatten)]
    destination: Destination,
    #[command(flatten)]
    format: FormatOptions,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let jobs: Vec<Job> = match &args.destination.output {
        None => args.inputs.iter().map(|i| Job { input: i.clone(), output: i.clone() }).collect(),
        Some(out) if args.inputs.len() > 1 || is_dir_target(out) => {
            std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
            args.inputs
                .iter()
                .map(|i| Job { input: i.clone(), output: out.join(i.file_name().unwrap_or_default()) })
                .collect()
        }
        Some(out) => vec![Job { input: args.inputs[0].clone(), output: out.clone() }],
    };
    if jobs.is_empty() {
        bail!("nothing to repair");
    }
    args.format.check_for(&paths(&args.inputs, None), None)?;
    let options = args.format.read_options(true);
    Ok(crate::batch::run(jobs, |job| {
        let doc = open(&job.input, &options)?;
        let repaired = doc.repair()?;
        let written =
            write_output(&job.output, &repaired.document.write()?, Some(&job.input), args.destination.in_place)?;
        let mut messages = repaired.changes;
        if messages.is_empty() {
            messages.push("nothing to change".into());
        }
        messages.extend(written.messages(&job.output));
        Ok(messages)
    }))
}
