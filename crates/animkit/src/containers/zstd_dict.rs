//! Zstandard dictionaries (RFC 8878 §5): frames that name a dictionary (its id in the frame
//! header) decode only with it. Tears of the Kingdom compresses with three, kept in the game's
//! `Pack/ZsDic.pack.zs` (a Zstandard SARC of `zs.zsdic`, `pack.zsdic` id 3, `bcett.byml.zsdic`):
//! the read option `zstd_dict=PATH` loads them from a dictionary file, an archive holding
//! dictionaries (that pack), or a folder of either.

use std::path::Path;

use bytes::Bytes;

use crate::error::{Error, ErrorKind, Result};
use crate::format::{Param, ReadOptions};
use crate::registry::Registry;

/// The read option naming the dictionaries.
pub const PARAM: Param = Param {
    key: "zstd_dict",
    values: "PATH",
    description:
        "Zstandard dictionaries: a .zsdic, an archive of them (Tears of the Kingdom's ZsDic.pack.zs) or a folder",
};

/// The magic of a dictionary file (little-endian `0xEC30A437`).
pub const MAGIC: [u8; 4] = [0x37, 0xA4, 0x30, 0xEC];

/// The id of the dictionary `raw`, when it is one.
pub fn id(raw: &[u8]) -> Option<u32> {
    (raw.get(..4)? == MAGIC).then(|| raw.get(4..8)?.try_into().ok().map(u32::from_le_bytes))?
}

/// The dictionaries the options name (none without the option); an archive of them is read
/// through `registry`.
pub fn load(registry: &Registry, options: &ReadOptions) -> Result<Vec<Bytes>> {
    match options.params.get(PARAM.key) {
        Some(path) => load_path(registry, Path::new(path)).map_err(|e| e.within(format!("--opt {}={path}", PARAM.key))),
        None => Ok(Vec::new()),
    }
}

fn load_path(registry: &Registry, path: &Path) -> Result<Vec<Bytes>> {
    let io = |e: std::io::Error| Error::new(ErrorKind::Io, None, format!("{}: {e}", path.display()));
    if path.is_dir() {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(path).map_err(io)? {
            found.extend(load_path(registry, &entry.map_err(io)?.path())?);
        }
        return Ok(found);
    }
    let bytes = Bytes::from(std::fs::read(path).map_err(io)?);
    if id(&bytes).is_some() {
        return Ok(vec![bytes]);
    }
    let archive = registry.read(bytes, Some(path), &ReadOptions::default())?;
    Ok(archive.entries()?.into_iter().map(|e| e.data).filter(|d| id(d).is_some()).collect())
}

/// What to say when a frame names dictionary `wanted` and `loaded` does not hold it.
pub fn missing(wanted: u32, loaded: &[Bytes]) -> String {
    let have: Vec<String> = loaded.iter().filter_map(|d| id(d)).map(|i| i.to_string()).collect();
    let have = if have.is_empty() { "none is loaded".to_string() } else { format!("loaded: {}", have.join(", ")) };
    format!(
        "the frame needs Zstandard dictionary {wanted} ({have}); Tears of the Kingdom keeps its dictionaries in \
         Pack/ZsDic.pack.zs: pass --opt {}=PATH (that file, a .zsdic, or a folder of them)",
        PARAM.key
    )
}
