//! animkit reads, writes, inspects, repairs and converts game animation formats.
//!
//! Three layers (see `DESIGN.md`): each format's exact **raw** document ([`Document`]), which
//! writes back byte for byte; the engine-neutral **model** ([`model::Package`]); and interchange
//! on top of the model. Formats are found through one registry ([`REGISTRY`]), a value of
//! [`registry::Registry`]; the traits every format implements are in [`mod@format`].
//!
//! ```no_run
//! let doc = animkit::open("ped.ifp")?;
//! let package = doc.to_model()?;
//! for clip in &package.clips {
//!     println!("{} {:.2}s {} tracks", clip.name, clip.duration, clip.tracks.len());
//! }
//! assert_eq!(doc.write()?, std::fs::read("ped.ifp")?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Converting and writing are one call each ([`convert()`], [`write()`]); see [`mod@convert`]:
//!
//! ```no_run
//! use animkit::{ConvertOptions, OutputOptions};
//! let report = animkit::convert("ped.ifp", "ped.glb", &ConvertOptions::default())?;
//! for file in &report.files {
//!     println!("{}: {} tracks, {} warnings", file.path.display(), file.input.tracks, file.warnings.len());
//! }
//! let package = animkit::open("ped.ifp")?.to_model()?;
//! let options = OutputOptions::to("anpk");
//! animkit::write(&package, "ped_vc.ifp", &options)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The library never panics on input: no unwrap/expect/panic and no unchecked indexing or
// slicing outside tests (`get`, iterators, fixed-size chunks and errors with offsets instead).
#![warn(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]

mod budget;
mod builtin;
pub mod bytes;
pub mod containers;
pub mod convert;
mod entry_path;
mod error;
pub mod extract;
pub mod format;
// Each format folder documents its public items as it moves to the shape of `DESIGN.md` (one raw
// layer per structure); the lint is on everywhere else.
pub mod formats;
pub mod interchange;
pub mod io;
pub mod lint;
pub mod model;
pub mod raw_json;
pub(crate) mod record;
pub mod registry;
pub mod sample;
pub(crate) mod text;

// `crate::record!` for the format folders (the macro is the crate's own).
pub(crate) use record::record;

use std::path::Path;

pub use ::bytes::Bytes;
pub use builtin::{REGISTRY, SARC, YAZ0, ZSTD};
pub use convert::{convert, read_as, write, ConvertOptions, ConvertReport, Destination, FileReport, OutputOptions};
pub use error::{Error, ErrorKind, Result};
pub use format::{Confidence, Document, Format, ReadOptions, WriteOptions, Written};
pub use model::Package;
pub use registry::DUMP_VERSION;

/// The README's code examples compile as doctests, so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;

/// Finds the format of `bytes` in [`REGISTRY`]: the most confident probe wins; a tie at the top
/// is an error. `path` (optional) only improves the error message when nothing matches.
pub fn probe(bytes: &[u8], path: Option<&Path>) -> Result<&'static dyn Format> {
    REGISTRY.probe(bytes, path)
}

/// Reads `bytes` with the format the probe finds. A `skeleton=PATH` read setting, for a format
/// that takes one, is loaded here ([`convert::load_skeleton`]) and handed to the reader as
/// [`ReadOptions::skeleton`]: readers do no file I/O.
pub fn read(bytes: Bytes, path: Option<&Path>, options: &ReadOptions) -> Result<Box<dyn Document>> {
    read_as(probe(&bytes, path)?, bytes, options)
}

/// Reads the file at `path` with default options.
pub fn open(path: impl AsRef<Path>) -> Result<Box<dyn Document>> {
    open_with(path, &ReadOptions::default())
}

/// Reads the file at `path`.
pub fn open_with(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Box<dyn Document>> {
    let path = path.as_ref();
    let data = std::fs::read(path).map_err(|e| Error::from(e).within(path.display().to_string()))?;
    read(Bytes::from(data), Some(path), options)
}

/// The lossless JSON dump of a document, wrapped in an envelope that names its format.
pub fn dump(document: &dyn Document) -> Result<serde_json::Value> {
    REGISTRY.dump(document)
}

/// The inverse of [`dump`].
pub fn pack(value: serde_json::Value) -> Result<Box<dyn Document>> {
    REGISTRY.pack(value)
}
