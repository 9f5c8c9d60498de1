//! Chunk file → model.

use super::chunkfile::ChunkFile;
use crate::error::{Error, Result};
use crate::formats::Limits;
use crate::model::Package;

pub fn to_model(_file: &ChunkFile, _limits: &Limits) -> Result<Package> {
    Err(Error::unsupported("CryEngine model conversion"))
}

pub fn notes(file: &ChunkFile) -> Vec<String> {
    vec![format!("{} chunks", file.chunks.len())]
}
