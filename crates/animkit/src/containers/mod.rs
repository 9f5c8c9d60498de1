//! Containers that wrap other files: Yaz0 and Zstandard compression, SARC archives. Each is
//! made with the registry it reads the files it holds through ([`crate::registry::Registry`]).

pub(crate) mod payload;
pub mod sarc;
pub mod yaz0;
pub mod zstd;
pub(crate) mod zstd_dict;
