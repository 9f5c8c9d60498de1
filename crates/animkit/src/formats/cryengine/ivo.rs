//! Star Citizen `#ivo` CAF and DBA (`cryengine.md` §9).

use super::chunkfile::ChunkFile;
use crate::error::{Error, Result};
use crate::formats::Limits;
use crate::model::Package;

pub fn to_model(_file: &ChunkFile, _limits: &Limits) -> Result<Package> {
    Err(Error::unsupported("#ivo animation decoding"))
}
