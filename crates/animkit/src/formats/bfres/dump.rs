//! The lossless JSON form of a Wii U FRES (`animkit dump` / `pack`): the header fields, then
//! every part in file order, each the serde form of its raw structure. Index groups list their
//! nodes with the stored offsets (the resolved `key` is informational and ignored by `pack`);
//! an animation subfile is its parsed structure ([`Fska`], [`Ftxp`], [`Fshu`], [`Fvis`]) when
//! writing that back gives its bytes exactly, else hex, as are the other bytes.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::dict::{Node, ResDict};
use super::fres::{
    FresFile, Header, Part, G_FSHU_COLOUR, G_FSHU_PARAM, G_FSHU_SRT, G_FSKA, G_FTXP, G_FVIS_BONE, G_FVIS_MAT,
    HEADER_SIZE,
};
use super::fshu::{self, write_fshu, Fshu};
use super::fska::{self, write_fska, Fska};
use super::ftxp::{self, write_ftxp, Ftxp};
use super::fvis::{self, write_fvis, Fvis};
use super::layout::Out;
use super::platform::{name_at, Platform};
use super::strings::PoolString;
use crate::error::{Error, ErrorKind, Result};
use crate::raw_json::Hex;

/// A whole file: header and parts.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpFile {
    header: Header,
    parts: Vec<DumpPart>,
}

/// One part of the file, in file order.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum DumpPart {
    Dict { group: usize, size: u32, nodes: Vec<DumpNode> },
    Subfile { group: usize, index: usize, bytes: Hex },
    Fska { group: usize, index: usize, fska: Fska },
    Ftxp { group: usize, index: usize, ftxp: Ftxp },
    Fshu { group: usize, index: usize, fshu: Fshu },
    Fvis { group: usize, index: usize, fvis: Fvis },
    Strings(Vec<PoolString>),
    Bytes(Hex),
}

/// A group node; a key beside the node's fields other than `key` is refused, not ignored.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DumpNode {
    #[serde(flatten)]
    node: Node,
    /// The name the node points at (informational: read, then ignored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key: Option<String>,
}

/// The dump of `file`, whose bytes are `data`.
pub fn to_dump(file: &FresFile, data: &[u8]) -> DumpFile {
    let (positions, pool) = layout(&file.parts);
    let version = file.header.version;
    let parts = file
        .parts
        .iter()
        .zip(positions)
        .map(|(p, at)| match p {
            Part::Dict { group, dict } => DumpPart::Dict {
                group: *group,
                size: dict.size,
                nodes: dict
                    .nodes
                    .iter()
                    .enumerate()
                    .map(|(i, n)| {
                        let field = (at + 8 + 16 * i + 8) as i64;
                        let key = (n.name != 0).then(|| name_at(data, field + i64::from(n.name)).ok()).flatten();
                        DumpNode { node: *n, key }
                    })
                    .collect(),
            },
            Part::Subfile { group, index, bytes } => structured(data, version, (*group, *index), at, bytes, &pool)
                .unwrap_or_else(|| DumpPart::Subfile { group: *group, index: *index, bytes: Hex(bytes.clone()) }),
            Part::Strings(pool) => DumpPart::Strings(pool.clone()),
            Part::Bytes(b) => DumpPart::Bytes(Hex(b.clone())),
        })
        .collect();
    DumpFile { header: file.header.clone(), parts }
}

/// The file a dump describes: a structured subfile is written once to measure it, then at its
/// position with its names resolved against the string pool.
pub fn from_dump(d: DumpFile) -> Result<FresFile> {
    let version = d.header.version;
    let mut staged = Vec::with_capacity(d.parts.len());
    for p in d.parts {
        staged.push(match p.write_subfile(version, 0, |_| Some(0)).transpose()? {
            Some(bytes) => {
                let (group, index) = p.place();
                (Some(p), Part::Subfile { group, index, bytes })
            }
            None => (None, p.into_part()),
        });
    }
    let (positions, pool) = layout(staged.iter().map(|s| &s.1));
    let mut parts = Vec::with_capacity(staged.len());
    for ((structured, part), at) in staged.into_iter().zip(positions) {
        let Some(p) = structured else {
            parts.push(part);
            continue;
        };
        let (group, index) = p.place();
        let bytes = p.write_subfile(version, at, |n| pool.get(n).copied()).transpose().map_err(|e| {
            Error::new(ErrorKind::Invalid, None, format!("{e} (add new names to the string pool)"))
                .within(format!("group {group} entry {index}"))
        })?;
        parts.push(Part::Subfile { group, index, bytes: bytes.unwrap_or_default() });
    }
    Ok(FresFile { header: d.header, parts })
}

impl DumpPart {
    /// A structured subfile's group and entry index (`(0, 0)` for other parts).
    fn place(&self) -> (usize, usize) {
        match self {
            DumpPart::Fska { group, index, .. }
            | DumpPart::Ftxp { group, index, .. }
            | DumpPart::Fshu { group, index, .. }
            | DumpPart::Fvis { group, index, .. } => (*group, *index),
            _ => (0, 0),
        }
    }

    /// A structured subfile's bytes when placed at `at`, names found by `find`; `None` for the
    /// other parts.
    fn write_subfile(&self, version: u32, at: usize, find: impl Fn(&str) -> Option<usize>) -> Option<Result<Vec<u8>>> {
        let mut o = Out::new(at, super::platform::Platform::WiiU { version });
        let written = match self {
            DumpPart::Fska { fska, .. } => write_fska(&mut o, fska),
            DumpPart::Ftxp { ftxp, .. } => write_ftxp(&mut o, ftxp),
            DumpPart::Fshu { fshu, .. } => write_fshu(&mut o, fshu),
            DumpPart::Fvis { fvis, .. } => write_fvis(&mut o, fvis),
            _ => return None,
        };
        Some(written.and_then(|()| o.resolve(find)).map(|()| o.into_vec()))
    }

    /// The part a plain (not structured) dump part stands for.
    fn into_part(self) -> Part {
        match self {
            DumpPart::Dict { group, size, nodes } => {
                Part::Dict { group, dict: ResDict { size, nodes: nodes.into_iter().map(|n| n.node).collect() } }
            }
            DumpPart::Subfile { group, index, bytes } => Part::Subfile { group, index, bytes: bytes.0 },
            DumpPart::Strings(s) => Part::Strings(s),
            DumpPart::Bytes(b) => Part::Bytes(b.0),
            structured => {
                let (group, index) = structured.place();
                Part::Subfile { group, index, bytes: Vec::new() }
            }
        }
    }
}

/// A structured form of the subfile at `at` when writing it back gives exactly `bytes`.
fn structured(
    data: &[u8],
    version: u32,
    (group, index): (usize, usize),
    at: usize,
    bytes: &[u8],
    pool: &HashMap<String, usize>,
) -> Option<DumpPart> {
    let wiiu = Platform::WiiU { version };
    let part = match group {
        G_FSKA => DumpPart::Fska { group, index, fska: fska::read(data, at, wiiu).ok()? },
        G_FTXP => DumpPart::Ftxp { group, index, ftxp: ftxp::read(data, at, wiiu).ok()? },
        G_FSHU_PARAM | G_FSHU_COLOUR | G_FSHU_SRT => {
            DumpPart::Fshu { group, index, fshu: fshu::read(data, at, wiiu).ok()? }
        }
        G_FVIS_BONE | G_FVIS_MAT => DumpPart::Fvis { group, index, fvis: fvis::read(data, at, wiiu).ok()? },
        _ => return None,
    };
    let written = part.write_subfile(version, at, |s| pool.get(s).copied())?.ok()?;
    (written == bytes).then_some(part)
}

/// The position of every part, and of every pool string's first character.
fn layout<'a>(parts: impl IntoIterator<Item = &'a Part>) -> (Vec<usize>, HashMap<String, usize>) {
    let (mut positions, mut pool) = (Vec::new(), HashMap::new());
    let mut pos = HEADER_SIZE;
    for part in parts {
        positions.push(pos);
        if let Part::Strings(strings) = part {
            let mut p = pos;
            for s in strings {
                pool.entry(String::from_utf8_lossy(&s.text).into_owned()).or_insert(p + 4);
                p += s.byte_len();
            }
        }
        pos += part.byte_len();
    }
    (positions, pool)
}
