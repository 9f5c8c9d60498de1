//! `animkit convert`: any format to any format, through the model.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use animkit::formats::{by_extension, by_name, Format};
use animkit::model::{Bone, BoneRef, Package, Skeleton, Target};
use animkit::WriteOptions;
use anyhow::{anyhow, bail, Context, Result};

use crate::batch::{is_dir_target, Job};
use crate::common::{load_skeleton, open, write_output, FormatOptions};

#[derive(clap::Args)]
pub struct Args {
    /// Input files.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Output file, or a directory (existing, or ending in `/`) for one output per input.
    #[arg(short, long)]
    output: PathBuf,
    /// Output format or variant (`ifp`, `anp3`, `anpk`, `glb`…); default: from the output extension.
    #[arg(long)]
    to: Option<String>,
    /// A file holding the skeleton to bind tracks to (any format that carries one).
    #[arg(long)]
    skeleton: Option<PathBuf>,
    /// The translation keys are offsets from the skeleton's rest pose (GTA III and Vice City
    /// non-skinned objects): add each bone's rest translation. Needs --skeleton.
    #[arg(long, requires = "skeleton")]
    rest_offsets: bool,
    /// Convert only this clip (by name, any case; repeatable). Every named clip must exist.
    #[arg(long = "clip", value_name = "NAME")]
    clips: Vec<String>,
    /// Allow the output to replace the input (a backup `NAME.bak` is kept).
    #[arg(long)]
    in_place: bool,
    #[command(flatten)]
    format: FormatOptions,
}

/// The output format and variant, from `--to` or else the output's extension.
fn target(to: Option<&str>, output: &Path) -> Result<(&'static dyn Format, Option<&'static str>)> {
    if let Some(name) = to {
        return by_name(name).ok_or_else(|| anyhow!("unknown output format \"{name}\" (see `animkit formats`)"));
    }
    let ext = output.extension().and_then(|e| e.to_str()).unwrap_or_default();
    by_extension(ext).ok_or_else(|| anyhow!("cannot tell the output format from \"{}\"; use --to", output.display()))
}

/// The extension of files written as `format`/`variant`.
fn extension(format: &dyn Format, variant: Option<&str>) -> &'static str {
    format
        .extensions()
        .iter()
        .find(|&&e| Some(e) == variant)
        .or_else(|| format.extensions().first())
        .copied()
        .unwrap_or("out")
}

pub fn run(args: Args) -> Result<ExitCode> {
    let dir_mode = args.inputs.len() > 1 || is_dir_target(&args.output);
    let (format, variant) = if dir_mode {
        target(Some(args.to.as_deref().context("--to is needed when writing into a directory")?), &args.output)?
    } else {
        target(args.to.as_deref(), &args.output)?
    };
    if !format.capabilities().from_model {
        bail!("{} cannot be written from the model yet", format.name());
    }
    let read_options = args.format.read_options(false);
    let skeleton = args.skeleton.as_deref().map(|p| load_skeleton(p, &read_options)).transpose()?;
    let write_options =
        WriteOptions { variant: variant.map(str::to_string), params: args.format.opts.iter().cloned().collect() };
    let jobs: Vec<Job> = if dir_mode {
        std::fs::create_dir_all(&args.output).with_context(|| format!("creating {}", args.output.display()))?;
        let ext = extension(format, variant);
        args.inputs
            .iter()
            .map(|input| {
                let stem = input.file_stem().unwrap_or_default();
                Job { input: input.clone(), output: args.output.join(stem).with_extension(ext) }
            })
            .collect()
    } else {
        vec![Job { input: args.inputs[0].clone(), output: args.output.clone() }]
    };
    Ok(crate::batch::run(jobs, |job| {
        let doc = open(&job.input, &read_options)?;
        let mut messages = Vec::new();
        // Archives that carry skeletons, whose clips bind to different ones (a HIP with several
        // characters), give one package per skeleton: into a directory, one file each (`boot_spongebob.glb`…).
        let caps = doc.format().capabilities();
        let mut packages =
            if skeleton.is_none() && caps.archive && caps.skeleton { doc.packages()? } else { Vec::new() };
        select_clips(&mut packages, &args.clips)?;
        packages.retain(|p| !p.clips.is_empty());
        if dir_mode && packages.len() > 1 {
            let stem = job.output.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            let ext = job.output.extension().unwrap_or_default().to_string_lossy().into_owned();
            for package in &packages {
                let name: String = package
                    .name
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' })
                    .collect();
                let out = job.output.with_file_name(format!("{stem}_{name}.{ext}"));
                let written = format.from_model(package, &write_options)?;
                write_output(&out, &written.document.write()?, Some(&job.input), args.in_place)?;
                let bound = if package.skeleton.is_some() { "with its skeleton" } else { "without a skeleton" };
                messages.push(format!("{}: {} clips {bound}", out.display(), package.clips.len()));
                messages.extend(written.warnings.into_iter().map(|w| format!("warning: {}: {w}", out.display())));
            }
            return Ok(messages);
        }
        if packages.len() > 1 && format.capabilities().skeleton {
            // One file that carries skeletons: every character's bones, prefixed with its name.
            let names: Vec<String> = packages.iter().map(|p| p.name.clone()).collect();
            let package = merge_characters(packages);
            messages.push(format!(
                "{} skeletons ({}) merged: bones are named CHARACTER/BONE; -o DIR/ writes one file per skeleton",
                names.len(),
                names.join(", ")
            ));
            let written = format.from_model(&package, &write_options)?;
            write_output(&job.output, &written.document.write()?, Some(&job.input), args.in_place)?;
            messages.extend(written.warnings.into_iter().map(|w| format!("warning: {w}")));
            return Ok(messages);
        }
        if packages.len() > 1 {
            let names: Vec<&str> = packages.iter().map(|p| p.name.as_str()).collect();
            messages.push(format!(
                "warning: the clips bind to {} different skeletons ({}); only those of the package skeleton are bound in one file: convert into a directory (-o DIR/) for one file per skeleton",
                packages.len(),
                names.join(", ")
            ));
        }
        let mut package = match packages.pop() {
            // The clips picked bind to one character: that package carries its skeleton.
            Some(one) if packages.is_empty() && !args.clips.is_empty() => one,
            _ => {
                let (package, read_warnings) = doc.to_model_with_warnings()?;
                messages.extend(read_warnings.into_iter().map(|w| format!("warning: {w}")));
                package
            }
        };
        select_clips(std::slice::from_mut(&mut package), &args.clips)?;
        if let Some(s) = &skeleton {
            package.skeleton = Some(s.clone());
        }
        if args.rest_offsets {
            let tracks = package.add_rest_translations();
            messages.push(format!("{}: rest translation added to {tracks} translation tracks", job.input.display()));
        }
        let written = format.from_model(&package, &write_options)?;
        write_output(&job.output, &written.document.write()?, Some(&job.input), args.in_place)?;
        messages.extend(written.warnings.into_iter().map(|w| format!("warning: {w}")));
        Ok(messages)
    }))
}

/// Keeps only the clips named by `--clip` (any case), or all when none is named; a name that no
/// clip has is an error.
fn select_clips(packages: &mut [Package], names: &[String]) -> Result<()> {
    if names.is_empty() || packages.is_empty() {
        return Ok(());
    }
    let named = |clip: &animkit::model::Clip| names.iter().any(|n| clip.name.eq_ignore_ascii_case(n));
    if let Some(missing) =
        names.iter().find(|n| !packages.iter().flat_map(|p| &p.clips).any(|c| c.name.eq_ignore_ascii_case(n)))
    {
        bail!("no clip \"{missing}\"");
    }
    for p in packages {
        p.clips.retain(named);
    }
    Ok(())
}

/// Packages of different characters as one: the skeletons side by side (bones renamed
/// `CHARACTER/BONE`, parents shifted), every track re-targeted by that name. Tracks whose bone is
/// not in their package's skeleton keep `CHARACTER/LABEL` (the exporter makes them root nodes).
fn merge_characters(packages: Vec<Package>) -> Package {
    let mut bones: Vec<Bone> = Vec::new();
    let mut clips = Vec::new();
    let up_axis = packages.first().map(|p| p.up_axis).unwrap_or_default();
    for p in packages {
        let offset = bones.len();
        if let Some(s) = &p.skeleton {
            for b in &s.bones {
                bones.push(Bone {
                    name: format!("{}/{}", p.name, b.name),
                    parent: b.parent.map(|x| x + offset),
                    ..b.clone()
                });
            }
        }
        for mut clip in p.clips {
            for track in &mut clip.tracks {
                if let Target::Bone(r) = &mut track.target {
                    let name = match p.skeleton.as_ref().and_then(|s| s.find(r)) {
                        Some(i) => bones[offset + i].name.clone(),
                        None => format!("{}/{}", p.name, r.label()),
                    };
                    *r = BoneRef::named(name);
                }
            }
            clips.push(clip);
        }
    }
    Package { name: String::new(), up_axis, clips, skeleton: (!bones.is_empty()).then_some(Skeleton { bones }) }
}
