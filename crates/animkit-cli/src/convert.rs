//! `animkit convert`: any format to any format, through the model (the library's
//! [`animkit::convert`] does the work; this verb turns arguments into its options and prints).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Mutex, PoisonError};

use animkit::convert::{self as library, ConvertOptions, Destination, Job, OutputOptions, PreparedFile};
use animkit::format::Format;
use animkit::io::Durability;
use animkit::registry::check_write_params;
use animkit::ReadOptions;
use anyhow::{bail, Result};

use crate::batch::Done;
use crate::common::{load_skeleton, paths, probe_file, write_output_with, FormatOptions};

#[derive(clap::Args)]
#[command(after_help = "Into a directory, each input gives DIR/STEM.EXT, or DIR/STEM_CHARACTER.EXT per character \
for archives whose clips bind to several skeletons (a HIP with several characters). When two inputs would \
give one path (a/x.ifp and b/x.ifp), every input's folder relative to the inputs' common ancestor is mirrored \
under DIR (DIR/a/x.glb, DIR/b/x.glb); when paths still collide, the inputs' extensions are kept as well \
(x.bfres.glb, x.sbfres.glb); a path that collides even then is an error before anything is written.\n\n\
A conversion that would write nothing (no track survives, or the input holds no animation) fails; one that \
drops some clips or tracks warns with counts.")]
pub struct Args {
    /// Input files.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Output file, or a directory (existing, or ending in `/`; needed with several inputs).
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
    /// Print every warning the writer gave (one per track), not only the summary by cause.
    #[arg(short, long)]
    verbose: bool,
    #[command(flatten)]
    format: FormatOptions,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let file = match Destination::of(&args.output) {
        Destination::File(path) if args.inputs.len() > 1 => bail!(
            "{} inputs need a directory to write into: \"{}\" is not one (an existing directory, or a path ending in /)",
            args.inputs.len(),
            path.display()
        ),
        Destination::File(path) => Some(path),
        _ => None,
    };
    let (format, _) = library::output_format(args.to.as_deref(), file.as_deref())?;
    args.format.check_for(&paths(&args.inputs, args.skeleton.as_ref()), Some(format))?;
    let skeleton = args.skeleton.as_deref().map(|p| load_skeleton(p, &args.format.read_options(false))).transpose()?;
    let options = ConvertOptions::default()
        .with_read(ReadOptions::default().with_limits(args.format.limits()))
        .with_output(args.to.clone().map(OutputOptions::to).unwrap_or_default())
        .with_clips(args.clips.iter().cloned())
        .with_skeleton(skeleton)
        .with_rest_offsets(args.rest_offsets)
        .with_params(args.format.params());
    let jobs = match file {
        Some(path) => {
            let destination = Destination::File(path.clone());
            vec![Job { input: args.inputs[0].clone(), destination, files: vec![path] }]
        }
        None => library::plan(&args.inputs, &args.output, &options)?,
    };
    // A batch syncs its outputs once at the end (see `animkit::io` for why); the input itself
    // (`--in-place`) is always synced as it is replaced.
    let batch = Batch {
        durability: if jobs.len() > 1 { Durability::Deferred } else { Durability::Synced },
        written: Mutex::new(Vec::new()),
    };
    let convert =
        |job: &Job, done: &mut Done| convert_one(job, &for_input(&options, &job.input, format), &args, &batch, done);
    let code = crate::batch::run_jobs(&jobs, |job| &job.input, convert);
    let written = batch.written.into_inner().unwrap_or_else(PoisonError::into_inner);
    if batch.durability == Durability::Deferred {
        if let Err(e) = animkit::io::sync_written(&written) {
            eprintln!("failed: syncing the {} files written to disk: {e}", written.len());
            return Ok(ExitCode::from(1));
        }
    }
    Ok(code)
}

/// How a run writes its files, and the files written so far.
struct Batch {
    durability: Durability,
    written: Mutex<Vec<PathBuf>>,
}

/// The options for one input: of the settings, those its format reads or `output` writes (the
/// inputs of one batch may be of several formats, each taking its own).
fn for_input<'a>(options: &'a ConvertOptions, input: &Path, output: &dyn Format) -> Cow<'a, ConvertOptions> {
    let Some(format) = Some(options).filter(|o| !o.params.is_empty()).and_then(|_| probe_file(input)) else {
        return Cow::Borrowed(options);
    };
    let mut options = options.clone();
    options.params.retain(|key, value| {
        let one = BTreeMap::from([(key.clone(), value.clone())]);
        animkit::REGISTRY.check_read_params(format, &one).is_ok() || check_write_params(output, &one).is_ok()
    });
    Cow::Owned(options)
}

/// Converts one input and writes its files, noting each in `done` as it is written.
fn convert_one(job: &Job, options: &ConvertOptions, args: &Args, batch: &Batch, done: &mut Done) -> Result<()> {
    let prepared = job.prepare(options)?;
    done.messages.extend(prepared.notes);
    done.messages.extend(prepared.warnings.iter().map(|w| format!("warning: {w}")));
    let split = prepared.files.len() > 1 || prepared.files.iter().any(|f| f.report.character.is_some());
    for file in &prepared.files {
        write_file(file, &job.input, args.in_place, batch.durability)?;
        batch.written.lock().unwrap_or_else(PoisonError::into_inner).push(file.report.path.clone());
        done.written += 1;
        let report = &file.report;
        let name = if split { format!("{}: ", report.path.display()) } else { String::new() };
        if split {
            let bound = if report.with_skeleton { "with its skeleton" } else { "without a skeleton" };
            done.messages.push(format!("{}: {} clips {bound}", report.path.display(), report.input.clips));
        }
        let lines = if args.verbose { &report.details } else { &report.warnings };
        done.messages.extend(report.losses.iter().chain(lines).map(|w| format!("warning: {name}{w}")));
    }
    Ok(())
}

/// Writes one prepared file, creating its folder; never over the input unless `in_place`.
fn write_file(file: &PreparedFile, input: &Path, in_place: bool, durability: Durability) -> Result<()> {
    let path = &file.report.path;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("creating {}: {e}", dir.display()))?;
    }
    write_output_with(path, &file.data, Some(input), in_place, durability)?;
    Ok(())
}
