//! The lossless JSON form of the FRES raw layer (`animkit dump` / `pack`): the header fields,
//! then every part in file order. Index groups list their nodes with the stored offsets (the
//! resolved `key` is informational and ignored by `pack`); subfiles and other bytes are hex.

use serde::{Deserialize, Serialize};

use super::dict::{Node, ResDict};
use super::fres::{FresFile, Header, Part, HEADER_SIZE};
use super::strings::{name_at, PoolStringDump};
use crate::raw_json::Hex;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpFile {
    header: Header,
    parts: Vec<DumpPart>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum DumpPart {
    Dict {
        group: usize,
        size: u32,
        nodes: Vec<DumpNode>,
    },
    Subfile {
        group: usize,
        index: usize,
        bytes: Hex,
    },
    Strings(Vec<PoolStringDump>),
    Bytes(Hex),
}

#[derive(Serialize, Deserialize)]
struct DumpNode {
    #[serde(flatten)]
    node: Node,
    /// The name the node points at (informational).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    key: Option<String>,
}

pub fn to_dump(file: &FresFile, data: &[u8]) -> DumpFile {
    let mut pos = HEADER_SIZE;
    let parts = file
        .parts
        .iter()
        .map(|p| {
            let at = pos;
            pos += p.byte_len();
            match p {
                Part::Dict { group, dict } => DumpPart::Dict {
                    group: *group,
                    size: dict.size,
                    nodes: dict
                        .nodes
                        .iter()
                        .enumerate()
                        .map(|(i, n)| {
                            let field = (at + 8 + 16 * i + 8) as i64;
                            let key = (n.name != 0)
                                .then(|| name_at(data, field + i64::from(n.name)).ok())
                                .flatten();
                            DumpNode { node: *n, key }
                        })
                        .collect(),
                },
                Part::Subfile {
                    group,
                    index,
                    bytes,
                } => DumpPart::Subfile {
                    group: *group,
                    index: *index,
                    bytes: Hex(bytes.clone()),
                },
                Part::Strings(pool) => {
                    DumpPart::Strings(pool.iter().map(PoolStringDump::from).collect())
                }
                Part::Bytes(b) => DumpPart::Bytes(Hex(b.clone())),
            }
        })
        .collect();
    DumpFile {
        header: file.header.clone(),
        parts,
    }
}

pub fn from_dump(d: DumpFile) -> FresFile {
    let parts = d
        .parts
        .into_iter()
        .map(|p| match p {
            DumpPart::Dict { group, size, nodes } => Part::Dict {
                group,
                dict: ResDict {
                    size,
                    nodes: nodes.into_iter().map(|n| n.node).collect(),
                },
            },
            DumpPart::Subfile {
                group,
                index,
                bytes,
            } => Part::Subfile {
                group,
                index,
                bytes: bytes.0,
            },
            DumpPart::Strings(s) => Part::Strings(s.into_iter().map(Into::into).collect()),
            DumpPart::Bytes(b) => Part::Bytes(b.0),
        })
        .collect();
    FresFile {
        header: d.header,
        parts,
    }
}
