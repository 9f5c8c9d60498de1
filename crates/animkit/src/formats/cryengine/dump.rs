//! The lossless JSON form of the chunk-file raw layer (`animkit dump` / `pack`).
//!
//! Header fields, every table entry as stored, each chunk's bytes in hexadecimal (embedded header
//! included) and the uncovered bytes ("gaps") at their offsets. `pack` rebuilds exactly these.

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use super::chunkfile::{Chunk, ChunkFile, Container, Gap};
use crate::error::{Error, ErrorKind, Result};
use crate::raw_json::Hex;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpFile {
    container: Container,
    magic: Hex,
    #[serde(default)]
    file_type: u32,
    version: u32,
    table_offset: u32,
    chunks: Vec<DumpChunk>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    gaps: Vec<DumpGap>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DumpChunk {
    /// The type as stored, in hexadecimal (`0xCCCC000D`).
    #[serde(rename = "type")]
    chunk_type: String,
    version: String,
    /// What the type is, for reading the dump (ignored by `pack`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    #[serde(default)]
    id: u32,
    offset: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    size: Option<u32>,
    data: Hex,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DumpGap {
    offset: u64,
    data: Hex,
}

/// The JSON form of a parsed file.
pub fn to_dump(file: &ChunkFile) -> DumpFile {
    DumpFile {
        container: file.container,
        magic: Hex(file.magic.clone()),
        file_type: file.file_type,
        version: file.version,
        table_offset: file.table_offset,
        chunks: file
            .chunks
            .iter()
            .map(|c| DumpChunk {
                chunk_type: format!("0x{:X}", c.chunk_type),
                version: format!("0x{:X}", c.version),
                kind: kind_name(c.kind(file.container)).map(String::from),
                id: c.id,
                offset: c.offset,
                size: c.size,
                data: Hex(c.data.to_vec()),
            })
            .collect(),
        gaps: file.gaps.iter().map(|g| DumpGap { offset: g.offset, data: Hex(g.data.to_vec()) }).collect(),
    }
}

fn kind_name(t: u32) -> Option<&'static str> {
    use super::chunkfile::kind::*;
    Some(match t {
        CONTROLLER => "Controller",
        BONE_NAME_LIST => "BoneNameList",
        TIMING => "Timing",
        COMPILED_BONES => "CompiledBones",
        MOTION_PARAMETERS => "MotionParameters",
        GAH_CAF => "GlobalAnimationHeaderCAF",
        GAH_AIM => "GlobalAnimationHeaderAIM",
        TIMESTAMP => "Timestamp",
        SOURCE_INFO => "SourceInfo",
        BONE_ANIM => "BoneAnim",
        IVO_ANIM_INFO => "IvoAnimInfo",
        IVO_CAF_DATA => "IvoCAFData",
        IVO_DBA_DATA => "IvoDBAData",
        IVO_DBA_META => "IvoDBAMeta",
        _ => return None,
    })
}

fn hex_u32(s: &str, what: &str) -> Result<u32> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    };
    parsed.ok_or_else(|| Error::new(ErrorKind::Invalid, None, format!("{what} {s:?} is not a 32-bit number")))
}

/// Rebuilds the raw layer from its JSON form.
pub fn from_dump(d: DumpFile) -> Result<ChunkFile> {
    let expected_magic = match d.container {
        Container::CryTek744 | Container::CryTek745 => 8,
        Container::CrCh | Container::Ivo => 4,
    };
    if d.magic.0.len() != expected_magic {
        return Err(Error::new(ErrorKind::Invalid, None, format!("magic must be {expected_magic} bytes")));
    }
    let mut chunks = Vec::with_capacity(d.chunks.len());
    for (i, c) in d.chunks.into_iter().enumerate() {
        let within = |e: Error| e.within(format!("chunk {i}"));
        let chunk_type = hex_u32(&c.chunk_type, "type").map_err(within)?;
        let version = hex_u32(&c.version, "version").map_err(within)?;
        chunks.push(Chunk {
            chunk_type,
            version,
            id: c.id,
            offset: c.offset,
            size: c.size,
            data: Bytes::from(c.data.0),
        });
    }
    let gaps = d.gaps.into_iter().map(|g| Gap { offset: g.offset, data: Bytes::from(g.data.0) }).collect();
    Ok(ChunkFile {
        container: d.container,
        magic: d.magic.0,
        file_type: d.file_type,
        version: d.version,
        table_offset: d.table_offset,
        chunks,
        gaps,
    })
}
