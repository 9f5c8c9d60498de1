//! Zstandard dictionaries (RFC 8878 §5): frames that name a dictionary (its id in the frame
//! header) decode only with it. Tears of the Kingdom compresses with three, kept in the game's
//! `Pack/ZsDic.pack.zs` (a Zstandard SARC of `zs.zsdic`, `pack.zsdic` id 3, `bcett.byml.zsdic`):
//! the read option `zstd_dict=PATH` names a dictionary file, an archive holding dictionaries
//! (that pack), or a folder of either; the front loads them (`convert::read`) and hands them to
//! the reader in [`ReadOptions::zstd_dictionaries`](crate::format::ReadOptions::zstd_dictionaries).

use bytes::Bytes;

use crate::format::Param;

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
