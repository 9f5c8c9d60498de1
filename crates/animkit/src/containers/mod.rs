//! Containers that wrap other files: Yaz0 and Zstandard compression, SARC archives.

pub mod budget;
pub mod payload;
pub mod sarc;
pub mod yaz0;
pub mod zstd;
pub mod zstd_dict;
