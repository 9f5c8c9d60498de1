//! Lossless JSON of the SKB raw layer (`animkit dump` / `pack`).
//!
//! Counts are array lengths (BoneCount is stored because a T = 1 animation has no offsets rows).
//! Keys are arrays of the stored integers in file order: V1 `[TimeIndex, qx, qy, qz, qw, tx, ty,
//! tz]`, V2 `[Frame, TranIndex, qx, qy, qz]`. V1 times are float seconds, V2 times frames.
//! Offsets are rows (one per time interval) of B key indices.

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use super::skb::{Body, KeyV1, KeyV2, Skb, SkbVersion};
use crate::bytes::Endian;
use crate::error::{Error, ErrorKind, Result};
use crate::raw_json::{Hex, F32};

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
        Body::V2 {
            keys,
            times,
            tran,
            pad_times,
            pad_tran,
            pad_offsets,
        } => {
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
    if d.offsets.len() != rows
        || d.offsets
            .iter()
            .any(|r| r.len() != usize::from(d.bone_count))
    {
        return Err(bad(format!(
            "offsets must be {rows} rows of {} entries",
            d.bone_count
        )));
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
            let times = d
                .times
                .ok_or_else(|| bad("V1 needs \"times\"".into()))?
                .into_iter()
                .map(|t| t.0)
                .collect();
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
}
