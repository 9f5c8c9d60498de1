//! Read settings that name files are loaded here, before the reader runs, so no reader opens
//! files itself: `skeleton=PATH` becomes [`ReadOptions::skeleton`], `zstd_dict=PATH`
//! [`ReadOptions::zstd_dictionaries`].

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;

use crate::builtin::REGISTRY;
use crate::containers::zstd_dict;
use crate::error::{Error, ErrorKind, Result};
use crate::format::{Document, Format, ReadOptions, SKELETON_PARAM};
use crate::model::Skeleton;

/// Reads the skeleton of a file (any format that carries one), for
/// [`ConvertOptions::skeleton`](super::ConvertOptions::skeleton).
pub fn load_skeleton(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Skeleton> {
    let path = path.as_ref();
    let package = REGISTRY.open(path, options).map_err(|e| e.within(path.display().to_string()))?.to_model()?;
    package.skeleton.ok_or_else(|| Error::unsupported(format!("{} holds no skeleton", path.display())))
}

/// Reads `bytes` as `format`, loading the files its read settings name first (`skeleton=PATH`
/// when `format` takes it, `zstd_dict=PATH`).
pub fn read_as(format: &'static dyn Format, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
    let mut loaded = skeleton_setting(format, options)?;
    if let Some(dictionaries) = dictionary_setting(options)? {
        loaded.get_or_insert_with(|| options.clone()).zstd_dictionaries = dictionaries;
    }
    format.read(bytes, loaded.as_ref().unwrap_or(options))
}

/// `options` with the skeleton that its `skeleton=PATH` setting names, when `format` takes that
/// setting and no skeleton was given already.
fn skeleton_setting(format: &dyn Format, options: &ReadOptions) -> Result<Option<ReadOptions>> {
    let Some(skeleton_path) = options.params.get(SKELETON_PARAM) else { return Ok(None) };
    if options.skeleton.is_some() || !format.read_params().iter().any(|p| p.key == SKELETON_PARAM) {
        return Ok(None);
    }
    let mut own = options.clone();
    own.params.remove(SKELETON_PARAM);
    let skeleton = load_skeleton(skeleton_path, &own).map_err(|e| e.within("the skeleton= read setting"))?;
    Ok(Some(ReadOptions { skeleton: Some(Arc::new(skeleton)), ..options.clone() }))
}

/// The Zstandard dictionaries a `zstd_dict=PATH` setting names, unless some were given already.
fn dictionary_setting(options: &ReadOptions) -> Result<Option<Arc<[Bytes]>>> {
    let Some(path) = options.params.get(zstd_dict::PARAM.key) else { return Ok(None) };
    if !options.zstd_dictionaries.is_empty() {
        return Ok(None);
    }
    let within = |e: Error| e.within(format!("--opt {}={path}", zstd_dict::PARAM.key));
    Ok(Some(load_dictionaries(Path::new(path)).map_err(within)?.into()))
}

/// The dictionaries in a dictionary file, an archive of them, or a folder of either.
fn load_dictionaries(path: &Path) -> Result<Vec<Bytes>> {
    let io = |e: std::io::Error| Error::new(ErrorKind::Io, None, format!("{}: {e}", path.display()));
    if path.is_dir() {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(path).map_err(io)? {
            found.extend(load_dictionaries(&entry.map_err(io)?.path())?);
        }
        return Ok(found);
    }
    let bytes = Bytes::from(std::fs::read(path).map_err(io)?);
    if zstd_dict::id(&bytes).is_some() {
        return Ok(vec![bytes]);
    }
    let archive = REGISTRY.read(bytes, Some(path), &ReadOptions::default())?;
    Ok(archive.entries()?.into_iter().map(|e| e.data).filter(|d| zstd_dict::id(d).is_some()).collect())
}
