//! `animkit info`: what is in a file.

use std::path::PathBuf;
use std::process::ExitCode;

use animkit::model::{Interpolation, Package, Target};
use anyhow::Result;
use serde::Serialize;

use crate::common::{open, print_json_line, FormatOptions};

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
struct FileInfo<'a> {
    file: String,
    format: &'static str,
    version: String,
    notes: Vec<String>,
    clips: Vec<ClipInfo<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skeleton_bones: Option<usize>,
}

#[derive(Serialize)]
struct ClipInfo<'a> {
    name: &'a str,
    duration_s: f32,
    tracks: Vec<TrackInfo<'a>>,
}

#[derive(Serialize)]
struct TrackInfo<'a> {
    target: String,
    #[serde(flatten)]
    bone: Option<&'a animkit::model::BoneRef>,
    channel: animkit::model::Channel,
    interpolation: Interpolation,
    keys: usize,
}

fn describe<'a>(package: &'a Package) -> Vec<ClipInfo<'a>> {
    package
        .clips
        .iter()
        .map(|c| ClipInfo {
            name: &c.name,
            duration_s: c.duration,
            tracks: c
                .tracks
                .iter()
                .map(|t| TrackInfo {
                    target: t.target.label(),
                    bone: match &t.target {
                        Target::Bone(b) => Some(b),
                        Target::Material { .. } => None,
                    },
                    channel: t.channel(),
                    interpolation: t.interpolation,
                    keys: t.key_count(),
                })
                .collect(),
        })
        .collect()
}

pub fn run(args: Args) -> Result<ExitCode> {
    let mut code = ExitCode::SUCCESS;
    let options = args.format.read_options(false);
    for path in &args.files {
        let result = open(path, &options).and_then(|doc| Ok((doc.to_model()?, doc)));
        let (package, doc) = match result {
            Ok(v) => v,
            Err(e) => {
                eprintln!("animkit: {e}");
                code = ExitCode::from(2);
                continue;
            }
        };
        let info = FileInfo {
            file: path.display().to_string(),
            format: doc.format().name(),
            version: doc.version(),
            notes: doc.notes(),
            clips: describe(&package),
            skeleton_bones: package.skeleton.as_ref().map(|s| s.bones.len()),
        };
        if args.json {
            print_json_line(&info)?;
        } else {
            print_text(&info, args.verbose);
        }
    }
    Ok(code)
}

fn print_text(info: &FileInfo, verbose: bool) {
    let tracks: usize = info.clips.iter().map(|c| c.tracks.len()).sum();
    let keys: usize = info.clips.iter().flat_map(|c| &c.tracks).map(|t| t.keys).sum();
    println!(
        "{}: {} {}, {} clips, {tracks} tracks, {keys} keys",
        info.file,
        info.format,
        info.version,
        info.clips.len()
    );
    for note in &info.notes {
        println!("  note: {note}");
    }
    if let Some(n) = info.skeleton_bones {
        println!("  skeleton: {n} bones");
    }
    for clip in &info.clips {
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
