//! Running one job per input file in parallel, with a progress bar and a summary that counts the
//! files written and the inputs that failed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

/// One input and where its result goes.
pub struct Job {
    pub input: PathBuf,
    pub output: PathBuf,
}

/// What a job did, kept as it goes so that a job failing half-way still counts what it wrote.
#[derive(Default)]
pub struct Done {
    /// Messages for stderr, each printed after the input's name.
    pub messages: Vec<String>,
    /// The files written.
    pub written: usize,
}

/// Runs `work` on every job, one file written per job that succeeds (see [`run_jobs`]).
pub fn run<F>(jobs: Vec<Job>, work: F) -> ExitCode
where
    F: Fn(&Job) -> anyhow::Result<Vec<String>> + Sync,
{
    run_jobs(
        &jobs,
        |job| &job.input,
        |job, done| {
            done.messages = work(job)?;
            done.written += 1;
            Ok(())
        },
    )
}

/// Runs `work` on every job (in parallel when there are several), printing each job's messages
/// to stderr after the name `input` gives. One failure does not stop the others; the exit code
/// is 1 when any failed. The summary (several jobs, or a job writing several files) counts the
/// inputs done and failed and the files written.
pub fn run_jobs<J, I, F>(jobs: &[J], input: I, work: F) -> ExitCode
where
    J: Sync,
    I: Fn(&J) -> &Path + Sync,
    F: Fn(&J, &mut Done) -> anyhow::Result<()> + Sync,
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
    let results: Vec<(Done, anyhow::Result<()>)> = jobs
        .par_iter()
        .map(|job| {
            let mut done = Done::default();
            let r = work(job, &mut done);
            bar.set_message(input(job).display().to_string());
            bar.inc(1);
            (done, r)
        })
        .collect();
    bar.finish_and_clear();
    let mut failed = Vec::new();
    let mut written = 0;
    for (job, (done, result)) in jobs.iter().zip(results) {
        let name = input(job).display();
        for m in done.messages {
            eprintln!("{name}: {m}");
        }
        written += done.written;
        if let Err(e) = result {
            failed.push(format!("{name}: {e:#}"));
        }
    }
    let succeeded = jobs.len() - failed.len();
    if jobs.len() > 1 || written != succeeded {
        let files = if written == 1 { "file" } else { "files" };
        eprintln!("{succeeded} of {} files done, {} failed; {written} {files} written", jobs.len(), failed.len());
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
