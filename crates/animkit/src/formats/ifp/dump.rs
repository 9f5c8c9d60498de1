//! The lossless JSON form of the IFP raw layer (`animkit dump` / `pack`).
//!
//! Every stored field appears once; counts are the lengths of arrays. Frames are arrays of the
//! stored fields in file order: ANP3 types 3/4 as integers `[qx, qy, qz, qw, ticks(, tx, ty, tz)]`,
//! types 1/2 as floats `[qx, qy, qz, qw, time(, tx, ty, tz)]`, ANPK keys as floats
//! `[qx, qy, qz, qw(, tx, ty, tz(, sx, sy, sz)), time]` (conjugated, as stored).

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use super::raw::*;
use crate::error::{Error, ErrorKind, Result};
use crate::raw_json::{FixedName, FourCc, Hex, PaddedName, F32};

#[derive(Serialize, Deserialize)]
pub struct DumpFile {
    #[serde(flatten)]
    body: DumpBody,
    /// Bytes after the last animation.
    #[serde(default, skip_serializing_if = "Hex::is_empty")]
    tail: Hex,
    /// Only for a salvaged file: the animation count its header declares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    declared_animations: Option<u32>,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "magic")]
enum DumpBody {
    #[serde(rename = "ANPK")]
    Anpk(AnpkDump),
    #[serde(rename = "ANP3")]
    Anp3(V2Dump),
    #[serde(rename = "ANP2")]
    Anp2(V2Dump),
}

#[derive(Serialize, Deserialize)]
struct Chunk {
    id: FourCc,
    size: u32,
}

#[derive(Serialize, Deserialize)]
struct AnpkDump {
    size: u32,
    info: Chunk,
    block_name: PaddedName,
    animations: Vec<AnpkAnimDump>,
}

#[derive(Serialize, Deserialize)]
struct AnpkAnimDump {
    name_chunk: Chunk,
    name: PaddedName,
    dgan: Chunk,
    info: Chunk,
    info_extra: Hex,
    objects: Vec<AnpkObjectDump>,
}

#[derive(Serialize, Deserialize)]
struct AnpkObjectDump {
    cpan: Chunk,
    anim_id: FourCc,
    name: FixedName<28>,
    unknown: i32,
    last_frame: i32,
    /// 44-byte ANIM form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bone_tag: Option<i32>,
    /// 48-byte ANIM form: `[first_child, next_sibling]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tree: Option<[i32; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    keys: Option<KeysDump>,
}

#[derive(Serialize, Deserialize)]
struct KeysDump {
    id: FourCc,
    size: u32,
    frames: Vec<Vec<F32>>,
}

#[derive(Serialize, Deserialize)]
struct V2Dump {
    size: u32,
    block_name: FixedName<24>,
    animations: Vec<V2AnimDump>,
}

#[derive(Serialize, Deserialize)]
struct V2AnimDump {
    name: FixedName<24>,
    #[serde(default)]
    frame_data_size: u32,
    #[serde(default)]
    flags: u32,
    sequences: Vec<V2SeqDump>,
}

#[derive(Serialize, Deserialize)]
struct V2SeqDump {
    name: FixedName<24>,
    frame_type: u32,
    bone_tag: i32,
    frames: FramesDump,
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum FramesDump {
    Int(Vec<Vec<i32>>),
    Float(Vec<Vec<F32>>),
}

fn chunk(h: &ChunkHeader) -> Chunk {
    Chunk { id: FourCc(h.id), size: h.size }
}

fn header(c: &Chunk) -> ChunkHeader {
    ChunkHeader { id: c.id.0, size: c.size }
}

fn floats(bytes: &[u8], per_frame: usize) -> Vec<Vec<F32>> {
    bytes
        .chunks_exact(per_frame * 4)
        .map(|f| f.as_chunks::<4>().0.iter().map(|&c| F32(f32::from_le_bytes(c))).collect())
        .collect()
}

fn ints(bytes: &[u8], per_frame: usize) -> Vec<Vec<i32>> {
    bytes
        .chunks_exact(per_frame * 2)
        .map(|f| f.as_chunks::<2>().0.iter().map(|&c| i32::from(i16::from_le_bytes(c))).collect())
        .collect()
}

/// The JSON form of a parsed file.
pub fn to_dump(file: &IfpFile) -> DumpFile {
    let body = match &file.body {
        Body::Anpk(a) => DumpBody::Anpk(AnpkDump {
            size: a.size,
            info: chunk(&a.info),
            block_name: PaddedName(a.info_rest.to_vec()),
            animations: a
                .animations
                .iter()
                .map(|an| AnpkAnimDump {
                    name_chunk: chunk(&an.name_chunk),
                    name: PaddedName(an.name.to_vec()),
                    dgan: chunk(&an.dgan),
                    info: chunk(&an.info),
                    info_extra: Hex(an.info_rest.to_vec()),
                    objects: an.objects.iter().map(object_dump).collect(),
                })
                .collect(),
        }),
        Body::V2(v) => {
            let d = V2Dump {
                size: v.size,
                block_name: FixedName(v.block_name),
                animations: v
                    .animations
                    .iter()
                    .map(|an| V2AnimDump {
                        name: FixedName(an.name),
                        frame_data_size: an.frame_data_size,
                        flags: an.flags,
                        sequences: an
                            .sequences
                            .iter()
                            .map(|s| V2SeqDump {
                                name: FixedName(s.name),
                                frame_type: s.frame_type as u32,
                                bone_tag: s.bone_tag,
                                frames: if s.frame_type.compressed() {
                                    FramesDump::Int(ints(&s.frames, s.frame_type.size() / 2))
                                } else {
                                    FramesDump::Float(floats(&s.frames, s.frame_type.size() / 4))
                                },
                            })
                            .collect(),
                    })
                    .collect(),
            };
            match v.version {
                V2Version::Anp3 => DumpBody::Anp3(d),
                V2Version::Anp2 => DumpBody::Anp2(d),
            }
        }
    };
    DumpFile {
        body,
        tail: Hex(file.tail.to_vec()),
        declared_animations: file.salvage.as_ref().map(|s| s.declared_animations),
    }
}

fn object_dump(o: &AnpkObject) -> AnpkObjectDump {
    let (bone_tag, tree) = match o.link {
        AnimLink::Tag(t) => (Some(t), None),
        AnimLink::Tree { first_child, next_sibling } => (None, Some([first_child, next_sibling])),
    };
    AnpkObjectDump {
        cpan: chunk(&o.cpan),
        anim_id: FourCc(o.anim_id),
        name: FixedName(o.name),
        unknown: o.unknown,
        last_frame: o.last_frame,
        bone_tag,
        tree,
        keys: o.keys.as_ref().map(|k| KeysDump {
            id: FourCc(k.kind.id()),
            size: k.size,
            frames: floats(&k.frames, k.kind.frame_size() / 4),
        }),
    }
}

fn bad(message: String) -> Error {
    Error::new(ErrorKind::Invalid, None, message)
}

/// Packs frames given as arrays of numbers; `compressed` frames are i16, others f32.
fn pack_frames(frames: FramesDump, per_frame: usize, compressed: bool) -> Result<Bytes> {
    let mut out = Vec::new();
    let rows: Vec<Vec<f64>> = match frames {
        FramesDump::Int(rows) => rows.into_iter().map(|r| r.into_iter().map(f64::from).collect()).collect(),
        FramesDump::Float(rows) if !compressed => {
            for (k, row) in rows.iter().enumerate() {
                if row.len() != per_frame {
                    return Err(bad(format!("frame {k} has {} values, expected {per_frame}", row.len())));
                }
                row.iter().for_each(|v| out.extend_from_slice(&v.0.to_le_bytes()));
            }
            return Ok(Bytes::from(out));
        }
        FramesDump::Float(_) => return Err(bad("compressed frames must hold integers".into())),
    };
    for (k, row) in rows.iter().enumerate() {
        if row.len() != per_frame {
            return Err(bad(format!("frame {k} has {} values, expected {per_frame}", row.len())));
        }
        for &v in row {
            if compressed {
                let i = i16::try_from(v as i64).map_err(|_| bad(format!("frame {k}: {v} is outside the i16 range")))?;
                out.extend_from_slice(&i.to_le_bytes());
            } else {
                out.extend_from_slice(&(v as f32).to_le_bytes());
            }
        }
    }
    Ok(Bytes::from(out))
}

/// The parsed file a JSON dump describes.
pub fn from_dump(dump: DumpFile) -> Result<IfpFile> {
    let body = match dump.body {
        DumpBody::Anpk(a) => {
            let mut animations = Vec::with_capacity(a.animations.len());
            for (ai, an) in a.animations.into_iter().enumerate() {
                let mut objects = Vec::with_capacity(an.objects.len());
                for (oi, o) in an.objects.into_iter().enumerate() {
                    let at = |e: Error| e.within(format!("object {oi}")).within(format!("animation {ai}"));
                    let link = match (o.bone_tag, o.tree) {
                        (Some(t), None) => AnimLink::Tag(t),
                        (None, Some([first_child, next_sibling])) => AnimLink::Tree { first_child, next_sibling },
                        _ => return Err(at(bad("exactly one of bone_tag and tree is needed".into()))),
                    };
                    let keys = match o.keys {
                        None => None,
                        Some(k) => {
                            let kind = KeyKind::from_id(k.id.0).ok_or_else(|| at(bad("unknown key id".into())))?;
                            let frames =
                                pack_frames(FramesDump::Float(k.frames), kind.frame_size() / 4, false).map_err(at)?;
                            (!frames.is_empty()).then_some(KeyChunk { kind, size: k.size, frames })
                        }
                    };
                    objects.push(AnpkObject {
                        cpan: header(&o.cpan),
                        anim_id: o.anim_id.0,
                        name: o.name.0,
                        unknown: o.unknown,
                        last_frame: o.last_frame,
                        link,
                        keys,
                    });
                }
                animations.push(AnpkAnimation {
                    name_chunk: header(&an.name_chunk),
                    name: Bytes::from(an.name.0),
                    dgan: header(&an.dgan),
                    info: header(&an.info),
                    info_rest: Bytes::from(an.info_extra.0),
                    objects,
                });
            }
            Body::Anpk(Anpk { size: a.size, info: header(&a.info), info_rest: Bytes::from(a.block_name.0), animations })
        }
        DumpBody::Anp3(v) => Body::V2(v2_from_dump(v, V2Version::Anp3)?),
        DumpBody::Anp2(v) => Body::V2(v2_from_dump(v, V2Version::Anp2)?),
    };
    let salvage = dump.declared_animations.map(|declared_animations| Salvage {
        declared_animations,
        error: Error::new(ErrorKind::Invalid, None, "salvaged file (from a dump)"),
        stopped_at: 0,
    });
    Ok(IfpFile { body, tail: Bytes::from(dump.tail.0), salvage })
}

fn v2_from_dump(v: V2Dump, version: V2Version) -> Result<V2> {
    let mut animations = Vec::with_capacity(v.animations.len());
    for (ai, an) in v.animations.into_iter().enumerate() {
        let mut sequences = Vec::with_capacity(an.sequences.len());
        for (si, s) in an.sequences.into_iter().enumerate() {
            let at = |e: Error| e.within(format!("sequence {si}")).within(format!("animation {ai}"));
            let frame_type = FrameType::from_u32(s.frame_type)
                .ok_or_else(|| at(bad(format!("unknown frame type {}", s.frame_type))))?;
            let per_frame = frame_type.size() / if frame_type.compressed() { 2 } else { 4 };
            let frames = pack_frames(s.frames, per_frame, frame_type.compressed()).map_err(at)?;
            sequences.push(V2Sequence { name: s.name.0, frame_type, bone_tag: s.bone_tag, frames });
        }
        animations.push(V2Animation {
            name: an.name.0,
            frame_data_size: an.frame_data_size,
            flags: an.flags,
            sequences,
        });
    }
    Ok(V2 { version, size: v.size, block_name: v.block_name.0, animations })
}
