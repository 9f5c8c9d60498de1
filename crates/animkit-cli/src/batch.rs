//! Running one job per input file in parallel, with a progress bar and a failure summary.

use std::path::PathBuf;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

/// One input and where its result goes.
pub struct Job {
    pub input: PathBuf,
    pub output: PathBuf,
}

/// Runs `work` on every job (in parallel when there are several), printing each job's messages
/// to stderr. One failure does not stop the others; the exit code is 1 when any failed.
pub fn run<F>(jobs: Vec<Job>, work: F) -> ExitCode
where
    F: Fn(&Job) -> anyhow::Result<Vec<String>> + Sync,
{
    let bar = if jobs.len() > 1 {
        let bar = ProgressBar::new(jobs.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let results: Vec<(usize, anyhow::Result<Vec<String>>)> = jobs
        .par_iter()
        .enumerate()
        .map(|(i, job)| {
            let r = work(job);
            bar.set_message(job.input.display().to_string());
            bar.inc(1);
            (i, r)
        })
        .collect();
    bar.finish_and_clear();
    let mut failed = Vec::new();
    for (i, result) in results {
        let job = &jobs[i];
        match result {
            Ok(messages) => {
                for m in messages {
                    eprintln!("{}: {m}", job.input.display());
                }
            }
            Err(e) => failed.push(format!("{}: {e:#}", job.input.display())),
        }
    }
    if jobs.len() > 1 {
        eprintln!("{} of {} files done, {} failed", jobs.len() - failed.len(), jobs.len(), failed.len());
    }
    for f in &failed {
        eprintln!("failed: {f}");
    }
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Whether `output` names a directory: it exists as one or ends with a path separator.
pub fn is_dir_target(output: &std::path::Path) -> bool {
    output.is_dir() || output.as_os_str().to_string_lossy().ends_with(std::path::MAIN_SEPARATOR)
}
