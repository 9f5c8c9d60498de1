//! `animkit info`: what is in a file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use animkit::format::Summary;
use animkit::ReadOptions;
use anyhow::Result;
use serde::Serialize;

use crate::common::{open, paths, print_json_line, FormatOptions};

#[derive(clap::Args)]
pub struct Args {
    /// Files to describe.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per file, one per line (JSON Lines).
    #[arg(long)]
    json: bool,
    /// List every track of every clip (text output).
    #[arg(long, short)]
    verbose: bool,
    #[command(flatten)]
    format: FormatOptions,
}

#[derive(Serialize)]
struct FileInfo {
    file: String,
    format: &'static str,
    version: String,
    notes: Vec<String>,
    #[serde(flatten)]
    summary: Summary,
}

/// Describes every file (on every core; output in the order the files were named).
pub fn run(args: Args) -> Result<ExitCode> {
    args.format.check_for(&paths(&args.files, None), None)?;
    let mut code = ExitCode::SUCCESS;
    let options = args.format.read_options(false);
    crate::ordered::for_each(
        &args.files,
        |path| describe(path, &options),
        |info| {
            match info {
                Ok(info) if args.json => print_json_line(&info)?,
                Ok(info) => print_text(&info, args.verbose),
                Err(e) => {
                    eprintln!("animkit: {e}");
                    code = ExitCode::from(2);
                }
            }
            Ok(())
        },
    )?;
    Ok(code)
}

fn describe(path: &Path, options: &ReadOptions) -> Result<FileInfo, animkit::Error> {
    let doc = open(path, options)?;
    Ok(FileInfo {
        file: path.display().to_string(),
        format: doc.format().name(),
        version: doc.version(),
        notes: doc.notes(),
        summary: doc.summary()?,
    })
}

fn print_text(info: &FileInfo, verbose: bool) {
    let clips = &info.summary.clips;
    let tracks: usize = clips.iter().map(|c| c.tracks.len()).sum();
    let keys: usize = clips.iter().flat_map(|c| &c.tracks).map(|t| t.keys).sum();
    println!("{}: {} {}, {} clips, {tracks} tracks, {keys} keys", info.file, info.format, info.version, clips.len());
    for note in &info.notes {
        println!("  note: {note}");
    }
    if let Some(n) = info.summary.skeleton_bones {
        println!("  skeleton: {n} bones");
    }
    for clip in clips {
        let keys: usize = clip.tracks.iter().map(|t| t.keys).sum();
        println!("  {:<28} {:>8.3} s {:>4} tracks {:>6} keys", clip.name, clip.duration_s, clip.tracks.len(), keys);
        if verbose {
            for t in &clip.tracks {
                println!(
                    "      {:<24} {:<12} {:<12} {:>5} keys",
                    t.target,
                    format!("{:?}", t.channel).to_lowercase(),
                    format!("{:?}", t.interpolation).to_lowercase(),
                    t.keys
                );
            }
        }
    }
}
