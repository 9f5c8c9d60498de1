//! Reading with a skeleton: a `skeleton=PATH` read setting is loaded here, before the reader
//! runs, and handed to it as [`ReadOptions::skeleton`], so no reader opens files itself.

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;

use crate::builtin::REGISTRY;
use crate::error::{Error, Result};
use crate::format::{Document, Format, ReadOptions, SKELETON_PARAM};
use crate::model::Skeleton;

/// Reads the skeleton of a file (any format that carries one), for
/// [`ConvertOptions::skeleton`](super::ConvertOptions::skeleton).
pub fn load_skeleton(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Skeleton> {
    let path = path.as_ref();
    let package = REGISTRY.open(path, options).map_err(|e| e.within(path.display().to_string()))?.to_model()?;
    package.skeleton.ok_or_else(|| Error::unsupported(format!("{} holds no skeleton", path.display())))
}

/// Reads `bytes` as `format`, loading a `skeleton=PATH` setting first when `format` takes one.
pub fn read_as(format: &'static dyn Format, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
    match skeleton_setting(format, options)? {
        Some(with_skeleton) => format.read(bytes, &with_skeleton),
        None => format.read(bytes, options),
    }
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
