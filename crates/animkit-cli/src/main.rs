//! `animkit`: read, write, inspect, repair and convert game animation files.
//!
//! Data goes to stdout, messages to stderr. Exit codes: 0 success, 1 findings or failures,
//! 2 bad usage or unreadable input.

mod batch;
mod check;
mod common;
mod convert;
mod dump;
mod extract;
mod formats;
mod info;
mod ordered;
mod pack;
mod repair;
mod replace;
mod sample;
mod view;

use std::process::ExitCode;

/// mimalloc: a model is tens of thousands of small key arrays, which glibc's malloc allocates and
/// frees at several times the cost (measured on `read + to_model`, see the corpus benchmark).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "animkit", version, about = "Read, write, inspect, repair and convert game animation files")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the supported formats and what each can do.
    Formats(formats::Args),
    /// Show what is in files: format, version, clips, tracks, keys, duration, quirks.
    Info(info::Args),
    /// Write the lossless JSON of a file's raw structure.
    Dump(dump::Args),
    /// Rebuild a file from its JSON dump (the exact inverse of dump).
    Pack(pack::Args),
    /// Convert files between formats (glTF included).
    Convert(convert::Args),
    /// Report every problem in files, with offsets and severities.
    ///
    /// Exit code 0 when no file has an error (warnings and notes allowed), 1 when one has (with
    /// --strict, a warning too), 2 when a file cannot be read or is of no format animkit knows.
    Check(check::Args),
    /// Rewrite files canonically, fixing what check reports as fixable.
    Repair(repair::Args),
    /// Evaluate a clip's pose at a time, as the game computes it.
    Sample(sample::Args),
    /// Take the assets out of an archive.
    Extract(extract::Args),
    /// Put a file back into an archive, as the entry extract named (the inverse of extract).
    Replace(replace::Args),
    /// Preview files in a browser: a local page (127.0.0.1 only) or one self-contained HTML file.
    View(view::Args),
}

/// Lets a closed pipe (`animkit info … | head`) end the process quietly, as Unix tools do,
/// instead of making `println!` panic.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called once at start-up, before any other thread exists; SIG_DFL is always valid.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP remove the temporary files of the writes in progress
/// (see [`animkit::io::abandon_writes`]), then end the process with 128 + the signal's number
/// (130, 143, 129), as a shell reports a process a signal ended.
fn remove_temp_files_on_signals() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            Ok(signals) => signals,
            Err(e) => {
                eprintln!("animkit: warning: no signal handler ({e}): an interrupted write may leave a temporary file");
                return;
            }
        };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                animkit::io::abandon_writes();
                std::process::exit(128 + signal);
            }
        });
    }
}

fn main() -> ExitCode {
    restore_default_sigpipe();
    remove_temp_files_on_signals();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Formats(a) => formats::run(a),
        Command::Info(a) => info::run(a),
        Command::Dump(a) => dump::run(a),
        Command::Pack(a) => pack::run(a),
        Command::Convert(a) => convert::run(a),
        Command::Check(a) => check::run(a),
        Command::Repair(a) => repair::run(a),
        Command::Sample(a) => sample::run(a),
        Command::Extract(a) => extract::run(a),
        Command::Replace(a) => replace::run(a),
        Command::View(a) => view::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("animkit: {e:#}");
            ExitCode::from(2)
        }
    }
}
