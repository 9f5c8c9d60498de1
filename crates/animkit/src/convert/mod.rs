//! Conversion in one call, for every front (the CLI, the Python package): read a file, pick clips,
//! bind a skeleton, split or merge characters, build the output format from the model, check
//! what was lost, write atomically.
//!
//! - [`convert`]: one input to one output file, or into a directory, `STEM.EXT`, or one
//!   `STEM_CHARACTER.EXT` per character for archives whose clips bind to several skeletons (a HIP
//!   with several characters). One output file from such an archive merges the characters when
//!   the output format carries skeletons (bones named `CHARACTER/BONE`).
//! - [`write()`]: a package to a file, the format named or taken from the extension.
//! - [`plan`]: the output paths of a batch, computed before anything is written (see [`plan`]
//!   for the rule that keeps them apart); [`prepare`] builds a job's files in memory, so a front
//!   may write them its own way.
//!
//! Options are checked: each format declares the `key=value` settings it reads and writes
//! ([`crate::Format::read_params`], [`crate::Format::write_params`]); any other key is an error
//! that lists the valid ones.
//!
//! Nothing empty is written: a conversion whose input holds no animation track (and whose output
//! keeps no skeleton either), or whose output would hold none of the input's tracks, fails and says
//! why. The written document is read back and its clips and tracks counted against the input's;
//! partial losses are counted ([`FileReport::losses`]), and the writer's per-track warnings are
//! grouped (one line and a count per cause; [`FileReport::details`] keeps every one). A format that adds
//! tracks (SKB writes every bone up to the highest index) can hide a drop from the counts; its
//! warnings still name it. Outputs animkit cannot read back (CSV) are not counted; the CSV writer
//! itself refuses a table without rows.

mod characters;
mod loss;
mod options;
mod plan;
mod prepare;
mod read;

use std::path::Path;

use crate::error::Result;
use crate::model::Package;

pub use loss::Counts;
pub use options::{ConvertOptions, Destination, OutputOptions};
pub use plan::{plan, Job};
use prepare::{encode_as, io_error};
pub use prepare::{output_format, prepare, ConvertReport, FileReport, Prepared, PreparedFile};
pub use read::{load_skeleton, read_as};

/// Converts `input` to `output`: a file, or a directory (existing, or ending in `/`) for
/// `STEM.EXT` or one file per character. Refuses to overwrite the input.
pub fn convert(input: impl AsRef<Path>, output: impl AsRef<Path>, options: &ConvertOptions) -> Result<ConvertReport> {
    prepare(input.as_ref(), &Destination::of(output), options)?.write()
}

/// Writes `package` to `path` atomically, in the format `options` names or else the one of the
/// path's extension, and reports what it holds and lost. Fails rather than write an empty file.
pub fn write(package: &Package, path: impl AsRef<Path>, options: &OutputOptions) -> Result<FileReport> {
    let file = encode(package, path, options)?;
    crate::io::write_atomic(&file.report.path, &file.data).map_err(|e| io_error(e, &file.report.path))?;
    Ok(file.report)
}

/// Builds the bytes [`write()`] would write, without writing them.
pub fn encode(package: &Package, path: impl AsRef<Path>, options: &OutputOptions) -> Result<PreparedFile> {
    let path = path.as_ref();
    let (format, variant) = output_format(options.format.as_deref(), Some(path))?;
    encode_as(package, path, format, variant, &options.params)
}
