//! `animkit sample`: a clip's evaluated pose at given times.

use std::path::PathBuf;
use std::process::ExitCode;

use animkit::model::Target;
use animkit::sample::{sample, Sampled};
use anyhow::{Context, Result};

use crate::common::{load_skeleton, open, paths, print_json_line, FormatOptions};

#[derive(clap::Args)]
pub struct Args {
    file: PathBuf,
    /// The clip's name (or its index in the file).
    #[arg(long)]
    clip: String,
    /// Time in seconds (repeatable). A looping clip wraps it; the end of a loop shows the last key.
    #[arg(long = "time", required = true, allow_negative_numbers = true, value_parser = parse_time)]
    times: Vec<f32>,
    /// One JSON object per time, one per line.
    #[arg(long)]
    json: bool,
    /// A file holding the skeleton whose bone names label the targets (an extracted `.anm` names
    /// its bones only by index; its `.dff` names them).
    #[arg(long)]
    skeleton: Option<PathBuf>,
    #[command(flatten)]
    format: FormatOptions,
}

/// A `--time` value: a finite number of seconds.
fn parse_time(s: &str) -> Result<f32, String> {
    let t: f32 = s.parse().map_err(|_| format!("\"{s}\" is not a number of seconds"))?;
    animkit::sample::check_time(t).map_err(|e| e.message)
}

fn components(v: &Sampled) -> Vec<f64> {
    match *v {
        Sampled::Rotation(q) => q.to_array().map(f64::from).to_vec(),
        Sampled::Translation(t) | Sampled::Scale(t) => t.to_array().map(f64::from).to_vec(),
        Sampled::Scalar(s) => vec![f64::from(s)],
        Sampled::TextureIndex(i) => vec![f64::from(i)],
        Sampled::Visibility(b) => vec![if b { 1.0 } else { 0.0 }],
        _ => Vec::new(),
    }
}

fn channel(v: &Sampled) -> &'static str {
    match v {
        Sampled::Rotation(_) => "rotation",
        Sampled::Translation(_) => "translation",
        Sampled::Scale(_) => "scale",
        Sampled::Scalar(_) => "scalar",
        Sampled::TextureIndex(_) => "texture_index",
        Sampled::Visibility(_) => "visibility",
        _ => "unknown",
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    args.format.check_for(&paths(std::slice::from_ref(&args.file), args.skeleton.as_ref()), None)?;
    let options = args.format.read_options(false);
    let package = open(&args.file, &options)?.to_model()?;
    let skeleton = match &args.skeleton {
        Some(path) => Some(load_skeleton(path, &options)?),
        None => package.skeleton.clone(),
    };
    // The skeleton's name for a bone target, else the target's own label.
    let label = |target: &Target| match (target.bone(), &skeleton) {
        (Some(bone), Some(s)) if bone.name.is_none() => {
            s.find(bone).and_then(|i| s.bones.get(i)).map_or_else(|| target.label(), |b| b.name.clone())
        }
        _ => target.label(),
    };
    let clip = package
        .clip(&args.clip)
        .or_else(|| args.clip.parse::<usize>().ok().and_then(|i| package.clips.get(i)))
        .with_context(|| format!("no clip \"{}\" in {}", args.clip, args.file.display()))?;
    for &t in &args.times {
        let pose = sample(clip, t);
        if args.json {
            let entries: Vec<_> = pose
                .iter()
                .map(|e| serde_json::json!({"target": label(&e.target), "channel": channel(&e.value), "value": components(&e.value)}))
                .collect();
            print_json_line(&serde_json::json!({"clip": clip.name, "time": t, "pose": entries}))?;
            continue;
        }
        println!("{} at {t} s:", clip.name);
        for e in &pose {
            let values: Vec<String> = components(&e.value).iter().map(|v| format!("{v:>10.6}")).collect();
            println!("  {:<24} {:<12} {}", label(&e.target), channel(&e.value), values.join(" "));
        }
    }
    Ok(ExitCode::SUCCESS)
}
