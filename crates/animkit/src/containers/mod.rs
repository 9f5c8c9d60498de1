//! Containers that wrap other files: Yaz0 compression and SARC archives.

pub mod budget;
pub mod sarc;
pub mod yaz0;
