//! Model → CAF.

use super::chunkfile::ChunkFile;
use crate::error::{Error, Result};
use crate::formats::WriteOptions;
use crate::model::Package;

pub fn from_model(_package: &Package, _options: &WriteOptions) -> Result<(ChunkFile, Vec<String>)> {
    Err(Error::unsupported("CryEngine writing"))
}
