//! animkit reads, writes, inspects, repairs and converts game animation formats.
//!
//! Three layers (see `DESIGN.md`): each format's exact **raw** document ([`Document`]), which
//! writes back byte for byte; the engine-neutral **model** ([`model::Package`]); and interchange
//! on top of the model. Formats are found through one registry ([`formats::REGISTRY`]).
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
//! let options = OutputOptions { format: Some("anpk".into()), ..Default::default() };
//! animkit::write(&package, "ped_vc.ifp", &options)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The library never panics on input: no unwrap/expect/panic and no unchecked indexing or
// slicing outside tests (`get`, iterators, fixed-size chunks and errors with offsets instead).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]

pub mod bytes;
pub mod containers;
pub mod convert;
pub mod error;
pub mod extract;
pub mod formats;
pub mod interchange;
pub mod io;
pub mod lint;
pub mod model;
pub mod raw_json;
pub mod record;
pub mod sample;
pub mod text;

use std::path::Path;

pub use ::bytes::Bytes;
pub use convert::{convert, write, ConvertOptions, ConvertReport, Destination, FileReport, OutputOptions};
pub use error::{Error, ErrorKind, Result};
pub use formats::{Confidence, Document, Format, ReadOptions, WriteOptions, Written};
pub use model::Package;

/// The README's code examples compile as doctests, so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;

/// The version of the JSON dump envelope written by [`dump`].
pub const DUMP_VERSION: u32 = 1;

/// Finds the format of `bytes`: the most confident probe wins; a tie at the top is an error.
/// `path` (optional) only improves the error message when nothing matches.
pub fn probe(bytes: &[u8], path: Option<&Path>) -> Result<&'static dyn Format> {
    let mut best: Option<(&'static dyn Format, Confidence)> = None;
    let mut tie = false;
    for &format in formats::REGISTRY {
        let c = format.probe(bytes);
        match best {
            _ if c == Confidence::No => {}
            Some((_, b)) if c < b => {}
            Some((_, b)) if c == b => tie = true,
            _ => {
                best = Some((format, c));
                tie = false;
            }
        }
    }
    match best {
        Some((format, _)) if !tie => Ok(format),
        Some((format, _)) => Err(Error::new(
            ErrorKind::Unsupported,
            Some(0),
            format!("more than one format claims this file (first: {}); name one with --from", format.name()),
        )),
        None => Err(unknown_format(bytes, path)),
    }
}

fn unknown_format(bytes: &[u8], path: Option<&Path>) -> Error {
    let ext = path.and_then(|p| p.extension()).and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let magic: String = bytes.iter().take(4).map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
    let mut message = format!("not a format animkit knows (first bytes \"{magic}\")");
    if let Some(ext) = ext {
        for format in formats::REGISTRY.iter().filter(|f| f.extensions().contains(&ext.as_str())) {
            let why = format.explain_reject(bytes).unwrap_or_else(|| "its magic does not match".into());
            message.push_str(&format!("; not {}: {why}", format.name()));
        }
    }
    Error::new(ErrorKind::Unsupported, Some(0), message)
}

/// Reads `bytes` with the format the probe finds. A `skeleton=PATH` read setting, for a format
/// that takes one, is loaded here ([`convert::load_skeleton`]) and handed to the reader as
/// [`ReadOptions::skeleton`]: readers do no file I/O.
pub fn read(bytes: Bytes, path: Option<&Path>, options: &ReadOptions) -> Result<Box<dyn Document>> {
    read_as(probe(&bytes, path)?, bytes, options)
}

/// Reads `bytes` as `format`, loading a `skeleton=PATH` setting as [`read`] does.
pub fn read_as(format: &dyn Format, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
    match skeleton_setting(format, options)? {
        Some(with_skeleton) => format.read(bytes, &with_skeleton),
        None => format.read(bytes, options),
    }
}

/// `options` with the skeleton that its `skeleton=PATH` setting names, when `format` takes that
/// setting and no skeleton was given already.
fn skeleton_setting(format: &dyn Format, options: &ReadOptions) -> Result<Option<ReadOptions>> {
    let Some(skeleton_path) = options.params.get(formats::SKELETON_PARAM) else { return Ok(None) };
    if options.skeleton.is_some() || !format.read_params().iter().any(|p| p.key == formats::SKELETON_PARAM) {
        return Ok(None);
    }
    let mut own = options.clone();
    own.params.remove(formats::SKELETON_PARAM);
    let skeleton = convert::load_skeleton(skeleton_path, &own).map_err(|e| e.within("the skeleton= read setting"))?;
    Ok(Some(ReadOptions { skeleton: Some(std::sync::Arc::new(skeleton)), ..options.clone() }))
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
    Ok(serde_json::json!({
        "animkit_dump": DUMP_VERSION,
        "format": document.format().name(),
        "document": document.dump()?,
    }))
}

/// The inverse of [`dump`].
pub fn pack(value: serde_json::Value) -> Result<Box<dyn Document>> {
    let bad = |m: &str| Error::new(ErrorKind::Invalid, None, m.to_string()).within("JSON dump");
    let serde_json::Value::Object(mut map) = value else { return Err(bad("not a JSON object")) };
    match map.get("animkit_dump").and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(DUMP_VERSION) => {}
        Some(v) => return Err(bad(&format!("dump version {v} is not supported (expected {DUMP_VERSION})"))),
        None => return Err(bad("missing \"animkit_dump\": not an animkit dump")),
    }
    let name = map.get("format").and_then(|v| v.as_str()).ok_or_else(|| bad("missing \"format\""))?;
    let (format, _) = formats::by_name(name).ok_or_else(|| bad(&format!("unknown format \"{name}\"")))?;
    let document = map.remove("document").ok_or_else(|| bad("missing \"document\""))?;
    format.undump(document)
}
