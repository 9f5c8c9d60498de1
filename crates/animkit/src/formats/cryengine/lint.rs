//! `check` and `repair` for CryEngine chunk files.

use super::chunkfile::ChunkFile;
use crate::error::Result;
use crate::lint::Finding;

pub fn lint(_file: &ChunkFile) -> Vec<Finding> {
    Vec::new()
}

pub fn repair(file: &ChunkFile) -> Result<(ChunkFile, Vec<String>)> {
    Ok((file.clone(), Vec::new()))
}
