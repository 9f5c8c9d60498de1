//! Lossless JSON of the SKB raw layer (`animkit dump` / `pack`).
//!
//! Counts are array lengths (BoneCount is stored because a T = 1 animation has no offsets rows).
//! Keys are arrays of the stored integers in file order: V1 `[TimeIndex, qx, qy, qz, qw, tx, ty,
//! tz]`, V2 `[Frame, TranIndex, qx, qy, qz]`. V1 times are float seconds, V2 times frames.
//! Offsets are rows (one per time interval) of B key indices.

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use super::hip::{Adbg, Ahdr, Block, BlockBody, Hip, Lhdr};
use super::skb::{Body, KeyV1, KeyV2, Skb, SkbVersion};
use crate::bytes::Endian;
use crate::error::{Error, ErrorKind, Result};
use crate::raw_json::{FourCc, Hex, F32};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkbDump {
    pub version: SkbVersion,
    pub endian: Endian,
    pub flags: u32,
    pub bone_count: u16,
    pub scale: [F32; 3],
    pub keys: Vec<Vec<i32>>,
    /// V1: seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<Vec<F32>>,
    /// V2: frames at 30 fps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<Vec<u16>>,
    /// V2 translation table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tran: Option<Vec<[i16; 3]>>,
    #[serde(default, skip_serializing_if = "Hex::is_empty")]
    pub pad_times: Hex,
    #[serde(default, skip_serializing_if = "Hex::is_empty")]
    pub pad_tran: Hex,
    #[serde(default, skip_serializing_if = "Hex::is_empty")]
    pub pad_offsets: Hex,
    pub offsets: Vec<Vec<u16>>,
    #[serde(default, skip_serializing_if = "Hex::is_empty")]
    pub tail: Hex,
}

pub fn to_dump(skb: &Skb) -> SkbDump {
    let b = usize::from(skb.bone_count).max(1);
    let offsets = if skb.bone_count == 0 {
        vec![Vec::new(); skb.rows()]
    } else {
        skb.offsets.chunks(b).map(<[u16]>::to_vec).collect()
    };
    let mut d = SkbDump {
        version: skb.version(),
        endian: skb.endian,
        flags: skb.flags,
        bone_count: skb.bone_count,
        scale: skb.scale.map(F32),
        keys: Vec::new(),
        times: None,
        frames: None,
        tran: None,
        pad_times: Hex::default(),
        pad_tran: Hex::default(),
        pad_offsets: Hex::default(),
        offsets,
        tail: Hex(skb.tail.to_vec()),
    };
    match &skb.body {
        Body::V1 { keys, times } => {
            d.keys = keys
                .iter()
                .map(|k| {
                    let mut v = vec![i32::from(k.time_index)];
                    v.extend(k.quat.iter().map(|&c| i32::from(c)));
                    v.extend(k.tran.iter().map(|&c| i32::from(c)));
                    v
                })
                .collect();
            d.times = Some(times.iter().map(|&t| F32(t)).collect());
        }
        Body::V2 { keys, times, tran, pad_times, pad_tran, pad_offsets } => {
            d.keys = keys
                .iter()
                .map(|k| {
                    let mut v = vec![i32::from(k.frame), i32::from(k.tran_index)];
                    v.extend(k.quat.iter().map(|&c| i32::from(c)));
                    v
                })
                .collect();
            d.frames = Some(times.clone());
            d.tran = Some(tran.clone());
            d.pad_times = Hex(pad_times.clone());
            d.pad_tran = Hex(pad_tran.clone());
            d.pad_offsets = Hex(pad_offsets.clone());
        }
    }
    d
}

fn bad(message: String) -> Error {
    Error::new(ErrorKind::Invalid, None, message).within("SKB dump")
}

fn int<T: TryFrom<i32>>(v: i32, k: usize) -> Result<T> {
    T::try_from(v).map_err(|_| bad(format!("key {k}: value {v} is out of range")))
}

pub fn from_dump(d: SkbDump) -> Result<Skb> {
    let rows = match d.version {
        SkbVersion::V1 => d.times.as_ref().map_or(0, Vec::len),
        SkbVersion::V2 => d.frames.as_ref().map_or(0, Vec::len),
    }
    .saturating_sub(1);
    if d.offsets.len() != rows || d.offsets.iter().any(|r| r.len() != usize::from(d.bone_count)) {
        return Err(bad(format!("offsets must be {rows} rows of {} entries", d.bone_count)));
    }
    let offsets: Vec<u16> = d.offsets.into_iter().flatten().collect();
    let body = match d.version {
        SkbVersion::V1 => {
            let mut keys = Vec::with_capacity(d.keys.len());
            for (k, v) in d.keys.iter().enumerate() {
                let [ti, qx, qy, qz, qw, tx, ty, tz] = v[..] else {
                    return Err(bad(format!("V1 key {k} needs 8 values")));
                };
                keys.push(KeyV1 {
                    time_index: int(ti, k)?,
                    quat: [int(qx, k)?, int(qy, k)?, int(qz, k)?, int(qw, k)?],
                    tran: [int(tx, k)?, int(ty, k)?, int(tz, k)?],
                });
            }
            let times = d.times.ok_or_else(|| bad("V1 needs \"times\"".into()))?.into_iter().map(|t| t.0).collect();
            Body::V1 { keys, times }
        }
        SkbVersion::V2 => {
            let mut keys = Vec::with_capacity(d.keys.len());
            for (k, v) in d.keys.iter().enumerate() {
                let [frame, tran_index, qx, qy, qz] = v[..] else {
                    return Err(bad(format!("V2 key {k} needs 5 values")));
                };
                keys.push(KeyV2 {
                    frame: int(frame, k)?,
                    tran_index: int(tran_index, k)?,
                    quat: [int(qx, k)?, int(qy, k)?, int(qz, k)?],
                });
            }
            Body::V2 {
                keys,
                times: d.frames.ok_or_else(|| bad("V2 needs \"frames\"".into()))?,
                tran: d.tran.unwrap_or_default(),
                pad_times: d.pad_times.0,
                pad_tran: d.pad_tran.0,
                pad_offsets: d.pad_offsets.0,
            }
        }
    };
    let skb = Skb {
        endian: d.endian,
        flags: d.flags,
        bone_count: d.bone_count,
        scale: d.scale.map(|s| s.0),
        body,
        offsets,
        tail: Bytes::from(d.tail.0),
    };
    super::skb::check_counts(&skb).map_err(|e| e.within("SKB dump"))?;
    Ok(skb)
}

/// A NUL-terminated string padded to even length: plain text when canonical, else hex.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
pub enum EvenString {
    Text(String),
    Raw { hex: Hex },
}

fn canonical_even(name: &[u8]) -> Vec<u8> {
    let mut b = name.to_vec();
    b.push(0);
    if b.len() % 2 == 1 {
        b.push(0);
    }
    b
}

impl EvenString {
    fn from_bytes(b: &[u8]) -> Self {
        let name = crate::text::latin1_until_nul(b);
        match crate::text::to_latin1(&name) {
            Some(enc) if canonical_even(&enc) == b => EvenString::Text(name),
            _ => EvenString::Raw { hex: Hex(b.to_vec()) },
        }
    }

    fn into_bytes(self) -> Result<Vec<u8>> {
        match self {
            EvenString::Text(s) => crate::text::to_latin1(&s)
                .map(|b| canonical_even(&b))
                .ok_or_else(|| bad(format!("{s:?} is not Latin-1 without NUL"))),
            EvenString::Raw { hex } => Ok(hex.0),
        }
    }
}

/// One block of a HIP/HOP archive.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockDump {
    pub id: FourCc,
    #[serde(flatten)]
    pub body: BodyDump,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodyDump {
    Raw(Hex),
    Container {
        children: Vec<BlockDump>,
        #[serde(default, skip_serializing_if = "Hex::is_empty")]
        tail: Hex,
    },
    Ahdr {
        asset_id: u32,
        kind: FourCc,
        offset: i32,
        size: i32,
        plus: i32,
        flags: i32,
        children: Vec<BlockDump>,
        #[serde(default, skip_serializing_if = "Hex::is_empty")]
        tail: Hex,
    },
    Lhdr {
        layer_type: u32,
        asset_ids: Vec<u32>,
        children: Vec<BlockDump>,
        #[serde(default, skip_serializing_if = "Hex::is_empty")]
        tail: Hex,
    },
    Adbg {
        align: i32,
        name: EvenString,
        source: EvenString,
        checksum: u32,
        #[serde(default, skip_serializing_if = "Hex::is_empty")]
        tail: Hex,
    },
}

/// A whole archive.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HipDump {
    pub blocks: Vec<BlockDump>,
    #[serde(default, skip_serializing_if = "Hex::is_empty")]
    pub tail: Hex,
}

fn blocks_dump(blocks: &[Block]) -> Vec<BlockDump> {
    blocks.iter().map(block_dump).collect()
}

fn block_dump(b: &Block) -> BlockDump {
    let body = match &b.body {
        BlockBody::Raw(r) => BodyDump::Raw(Hex(r.to_vec())),
        BlockBody::Children { children, tail } => {
            BodyDump::Container { children: blocks_dump(children), tail: Hex(tail.to_vec()) }
        }
        BlockBody::Ahdr(a) => BodyDump::Ahdr {
            asset_id: a.asset_id,
            kind: FourCc(a.kind),
            offset: a.offset,
            size: a.size,
            plus: a.plus,
            flags: a.flags,
            children: blocks_dump(&a.children),
            tail: Hex(a.tail.to_vec()),
        },
        BlockBody::Lhdr(l) => BodyDump::Lhdr {
            layer_type: l.layer_type,
            asset_ids: l.asset_ids.clone(),
            children: blocks_dump(&l.children),
            tail: Hex(l.tail.to_vec()),
        },
        BlockBody::Adbg(d) => BodyDump::Adbg {
            align: d.align,
            name: EvenString::from_bytes(&d.name),
            source: EvenString::from_bytes(&d.source),
            checksum: d.checksum,
            tail: Hex(d.tail.to_vec()),
        },
    };
    BlockDump { id: FourCc(b.id), body }
}

pub fn hip_to_dump(hip: &Hip) -> HipDump {
    HipDump { blocks: blocks_dump(&hip.blocks), tail: Hex(hip.tail.to_vec()) }
}

fn blocks_from(d: Vec<BlockDump>) -> Result<Vec<Block>> {
    d.into_iter().map(block_from).collect()
}

fn block_from(d: BlockDump) -> Result<Block> {
    let body = match d.body {
        BodyDump::Raw(r) => BlockBody::Raw(Bytes::from(r.0)),
        BodyDump::Container { children, tail } => {
            BlockBody::Children { children: blocks_from(children)?, tail: Bytes::from(tail.0) }
        }
        BodyDump::Ahdr { asset_id, kind, offset, size, plus, flags, children, tail } => BlockBody::Ahdr(Ahdr {
            asset_id,
            kind: kind.0,
            offset,
            size,
            plus,
            flags,
            children: blocks_from(children)?,
            tail: Bytes::from(tail.0),
        }),
        BodyDump::Lhdr { layer_type, asset_ids, children, tail } => {
            BlockBody::Lhdr(Lhdr { layer_type, asset_ids, children: blocks_from(children)?, tail: Bytes::from(tail.0) })
        }
        BodyDump::Adbg { align, name, source, checksum, tail } => BlockBody::Adbg(Adbg {
            align,
            name: Bytes::from(name.into_bytes()?),
            source: Bytes::from(source.into_bytes()?),
            checksum,
            tail: Bytes::from(tail.0),
        }),
    };
    Ok(Block { id: d.id.0, body })
}

pub fn hip_from_dump(d: HipDump) -> Result<Hip> {
    Ok(Hip { blocks: blocks_from(d.blocks)?, tail: Bytes::from(d.tail.0) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::evilengine::skb::{read, tests::*, write};

    #[test]
    fn dump_round_trips_both_versions() {
        for bytes in [v1_sample(Endian::Big), v2_sample(Endian::Little)] {
            let (skb, _) = read(&Bytes::from(bytes.clone()), None).unwrap();
            let json = serde_json::to_string(&to_dump(&skb)).unwrap();
            let back = from_dump(serde_json::from_str(&json).unwrap()).unwrap();
            assert_eq!(write(&back), bytes);
        }
    }

    #[test]
    fn hip_dump_round_trips() {
        use crate::formats::evilengine::hip;
        let bytes = hip::tests::tiny_hip(b"abc");
        let h = hip::read(&Bytes::from(bytes.clone())).unwrap();
        let json = serde_json::to_string(&hip_to_dump(&h)).unwrap();
        assert!(json.contains("\"source\":\"ab.anm\""), "{json}");
        let back = hip_from_dump(serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(hip::write(&back), bytes);
    }
}
