//! The fixed-layout chunk structures (`cryengine.md` §2, §3, §9.3), each declared once: the
//! declaration reads and writes the chunk in its byte order (the chunk version's big-endian flag,
//! §1.5) and is the chunk's JSON form in `animkit dump`.
//!
//! A file is read with every payload as [`Body::Bytes`]; the model and lint decode the structures
//! they need (`Chunk::structure`), and the dump shows each chunk as its structure when its type
//! and version have one that writes the payload back byte for byte (`ChunkFile::structured`).
//! Any other payload (`#ivo` key blocks, chunks of other types, a structure with trailing bytes
//! or non-zero padding) stays bytes, hexadecimal in the dump.

mod bones;
mod chunks;
mod compressed;
mod dba;
mod keys;

use bytes::Bytes;
use serde::{Deserialize, Serialize};

pub(crate) use bones::BONE_SIZE;
pub use bones::{BonePhysics, CompiledBone};
pub use chunks::{
    EmbeddedHeader, FootPlants, GlobalAnimationHeaderCaf, IvoAnimInfo, MotionParams, PqLogKey, PqsKey, Quat4, QuatT,
    TimingRange, TimingSamples, Vec3f,
};
pub use compressed::{Channel, Compressed};
pub use dba::{Animation as DbaAnimation, ControllerInfo, Dba, Table};
pub(crate) use keys::{pad4, read_vectors, records, words, words_into, LengthRule};
pub use keys::{KeyTimes, RotationKeys, VectorKeys};

use crate::bytes::{Cursor, Endian, Writer};
use crate::error::{Context, Error, Result};
use crate::raw_json::Hex;
use crate::record::Record;
use crate::text::{latin1_until_nul, to_latin1};

/// Chunk type numbers in the new (0x746) numbering.
pub mod kind {
    /// MeshMorphTarget.
    pub const MESH_MORPH_TARGET: u32 = 0x1011;
    /// BoneInitialPos.
    pub const BONE_INITIAL_POS: u32 = 0x1012;
    /// SourceInfo.
    pub const SOURCE_INFO: u32 = 0x1013;
    /// BoneAnim.
    pub const BONE_ANIM: u32 = 0x1003;
    /// BoneNameList (version 0x745).
    pub const BONE_NAME_LIST: u32 = 0x1005;
    /// Controller (versions 0x827–0x833; 0x905 is a DBA).
    pub const CONTROLLER: u32 = 0x100D;
    /// Timing (0x918, 0x919).
    pub const TIMING: u32 = 0x100E;
    /// CompiledBones (0x800).
    pub const COMPILED_BONES: u32 = 0x2000;
    /// SpeedInfo / MotionParameters (0x925).
    pub const MOTION_PARAMETERS: u32 = 0x3002;
    /// Timestamp.
    pub const TIMESTAMP: u32 = 0x3006;
    /// GlobalAnimationHeaderCAF (0x971).
    pub const GAH_CAF: u32 = 0x3007;
    /// GlobalAnimationHeaderAIM.
    pub const GAH_AIM: u32 = 0x3008;
    /// `#ivo` AnimInfo (0x901).
    pub const IVO_ANIM_INFO: u32 = 0x4733_C6ED;
    /// `#ivo` CAFData: one `#caf` block.
    pub const IVO_CAF_DATA: u32 = 0xA949_6CB5;
    /// `#ivo` DBAData: `u32 totalSize`, then `#dba` blocks.
    pub const IVO_DBA_DATA: u32 = 0x194F_BC50;
    /// `#ivo` DBAMeta: one entry and one path per block.
    pub const IVO_DBA_META: u32 = 0xF735_1608;
}

/// A chunk's payload: a declared structure, or its bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum Body {
    /// MotionParameters 0x925.
    MotionParameters(Box<MotionParams>),
    /// GlobalAnimationHeaderCAF 0x971.
    GlobalAnimationHeaderCaf(Box<GlobalAnimationHeaderCaf>),
    /// Timing 0x918.
    TimingRange(Box<TimingRange>),
    /// Timing 0x919.
    TimingSamples(TimingSamples),
    /// BoneNameList 0x745: `i32 count`, NUL-terminated Latin-1 names, then `tail` (normally the
    /// list's closing NUL).
    BoneNameList {
        /// The stored count.
        count: i32,
        /// The names, Latin-1.
        names: Vec<String>,
        /// The bytes after the last name's NUL.
        tail: Hex,
    },
    /// Controller 0x827 (`flags: None`) or 0x830 (Lumberyard, with a flags word).
    PqLog {
        /// The stored key count.
        num_keys: u32,
        /// The CRC-32 of the bone name.
        controller_id: u32,
        /// The 0x830 flags word.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        flags: Option<u32>,
        /// The keys.
        keys: Vec<PqLogKey>,
    },
    /// Controller 0x833: one PQS key per frame from frame 0.
    Pqs {
        /// The stored key count.
        num_keys: u32,
        /// The CRC-32 of the bone name.
        controller_id: u32,
        /// The keys.
        keys: Vec<PqsKey>,
    },
    /// Controller 0x829, 0x831 or 0x832: compressed keys.
    Compressed(Box<Compressed>),
    /// Controller 0x905: a DBA track database.
    Dba(Box<Dba>),
    /// CompiledBones 0x800.
    CompiledBones {
        /// `char reserved[32]`.
        reserved: [u8; 32],
        /// The bones.
        bones: Vec<CompiledBone>,
    },
    /// `#ivo` AnimInfo 0x901.
    IvoAnimInfo(Box<IvoAnimInfo>),
    /// Any other payload, as stored.
    Bytes {
        /// The payload, hexadecimal in the dump.
        #[serde(with = "crate::raw_json::hex_bytes")]
        hex: Bytes,
    },
}

/// Whether a 0x831 payload is CE2's `{numKeys, id}` and PQLog keys rather than Lumberyard's
/// compressed controller: its size is exactly that.
fn is_ce2_pqlog(c: &Cursor) -> bool {
    let n = c.clone().u32().ok().and_then(|n| u64::from(n).checked_mul(28)?.checked_add(8));
    n == Some(c.remaining() as u64)
}

/// BoneNameList 0x745 as `(count, names, tail)`.
fn bone_names(c: &mut Cursor) -> Result<(i32, Vec<String>)> {
    let count = c.i32()?;
    let n = c.count(u64::try_from(count).unwrap_or(u64::MAX), 1, "bone name")?;
    let mut names = Vec::with_capacity(n);
    for i in 0..n {
        let rest = c.rest();
        let len = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| Error::invalid(c.offset(), format!("bone name {i} has no NUL")).within("bone name list"))?;
        names.push(latin1_until_nul(c.take(len + 1)?));
    }
    Ok((count, names))
}

impl Body {
    /// The declared structure of a chunk of type `kind` (new numbering) and `version` (flag
    /// masked), read from `payload`; `Ok(None)` for a chunk without one. Trailing bytes are
    /// left unread: [`Body::read`] keeps such a chunk as bytes.
    pub(crate) fn decode(kind: u32, version: u32, c: &mut Cursor) -> Result<Option<Body>> {
        Ok(Some(match (kind, version) {
            (kind::MOTION_PARAMETERS, 0x925) => Body::MotionParameters(Box::new(MotionParams::read(c)?)),
            (kind::GAH_CAF, 0x971) => Body::GlobalAnimationHeaderCaf(Box::new(Record::read(c)?)),
            (kind::TIMING, 0x918) => Body::TimingRange(Box::new(TimingRange::read(c)?)),
            (kind::TIMING, 0x919) => Body::TimingSamples(TimingSamples::read(c)?),
            (kind::BONE_NAME_LIST, 0x745) => {
                let (count, names) = bone_names(c)?;
                let tail = c.take(c.remaining())?.to_vec();
                Body::BoneNameList { count, names, tail: Hex(tail) }
            }
            (kind::CONTROLLER, 0x827 | 0x830) => {
                let [num_keys, controller_id] = [c.u32()?, c.u32()?];
                let flags = if version == 0x830 { Some(c.u32()?) } else { None };
                Body::PqLog { num_keys, controller_id, flags, keys: words(c, num_keys as usize, "PQLog key")? }
            }
            // CE2 used 0x831 for `{numKeys, id}` and PQLog keys (§10 C11): told apart by size.
            (kind::CONTROLLER, 0x831) if is_ce2_pqlog(c) => return Body::decode(kind::CONTROLLER, 0x827, c),
            (kind::CONTROLLER, 0x829 | 0x831 | 0x832) => Body::Compressed(Box::new(Compressed::read(version, c)?)),
            (kind::CONTROLLER, 0x905) if c.endian() == Endian::Little => Body::Dba(Box::new(Dba::read(c)?)),
            (kind::CONTROLLER, 0x905) => {
                return Err(Error::new(
                    crate::error::ErrorKind::Unsupported,
                    Some(c.offset() as u64),
                    "big-endian DBA 0x905 (chunk version bit set): the engine's DBA loader rejects it too",
                ))
            }
            (kind::COMPILED_BONES, 0x800) => {
                let reserved = c.array()?;
                let n = c.remaining() / BONE_SIZE;
                Body::CompiledBones { reserved, bones: records(c, n, BONE_SIZE, "compiled bone")? }
            }
            (kind::CONTROLLER, 0x833) => {
                let [num_keys, controller_id] = [c.u32()?, c.u32()?];
                Body::Pqs { num_keys, controller_id, keys: words(c, num_keys as usize, "PQS key")? }
            }
            (kind::IVO_ANIM_INFO, 0x901) => Body::IvoAnimInfo(Box::new(IvoAnimInfo::read(c)?)),
            _ => return Ok(None),
        }))
    }

    /// The body of a payload: its declared structure when that covers it exactly and writes it
    /// back byte for byte (compressed controllers and DBAs may hold padding that is not zero or
    /// a layout the writer does not produce), else bytes.
    pub(crate) fn read(kind: u32, version: u32, payload: Bytes, base: usize, endian: Endian) -> Body {
        let mut c = Cursor::with_base(&payload, base, endian);
        match Body::decode(kind, version, &mut c) {
            Ok(Some(body @ (Body::Compressed(_) | Body::Dba(_)))) => match body.to_bytes(endian) {
                Ok(b) if b == payload => body,
                _ => Body::Bytes { hex: payload },
            },
            Ok(Some(body)) if c.remaining() == 0 => body,
            _ => Body::Bytes { hex: payload },
        }
    }

    /// Appends the payload's bytes.
    pub(crate) fn write(&self, w: &mut Writer) -> Result<()> {
        match self {
            Body::MotionParameters(m) => m.write(w),
            Body::GlobalAnimationHeaderCaf(g) => g.write(w),
            Body::TimingRange(t) => t.write(w),
            Body::TimingSamples(t) => t.write(w),
            Body::BoneNameList { count, names, tail } => {
                w.i32(*count);
                for name in names {
                    let latin1 = to_latin1(name).ok_or_else(|| {
                        Error::unrepresentable(format!("bone name \"{name}\" is not Latin-1 without NUL"))
                    })?;
                    w.bytes(&latin1);
                    w.u8(0);
                }
                w.bytes(&tail.0);
            }
            Body::PqLog { num_keys, controller_id, flags, keys } => {
                [num_keys, controller_id].into_iter().chain(flags).for_each(|&v| w.u32(v));
                keys.iter().for_each(|k| k.write(w));
            }
            Body::Pqs { num_keys, controller_id, keys } => {
                [num_keys, controller_id].into_iter().for_each(|&v| w.u32(v));
                keys.iter().for_each(|k| k.write(w));
            }
            Body::Compressed(k) => k.write(w)?,
            Body::Dba(d) => d.write(w)?,
            Body::CompiledBones { reserved, bones } => {
                w.bytes(reserved);
                bones.iter().for_each(|b| b.write(w));
            }
            Body::IvoAnimInfo(i) => i.write(w),
            Body::Bytes { hex } => w.bytes(hex),
        }
        Ok(())
    }

    /// The payload's bytes in byte order `endian`.
    pub(crate) fn to_bytes(&self, endian: Endian) -> Result<Bytes> {
        if let Body::Bytes { hex } = self {
            return Ok(hex.clone());
        }
        let mut w = Writer::new(endian);
        self.write(&mut w).within(|| "chunk payload")?;
        Ok(Bytes::from(w.into_vec()))
    }
}

/// `u32` chunk types and versions as `"0x…"` strings in the dump (a number is read too).
pub(crate) mod hex_u32 {
    use serde::{de, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("0x{v:X}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Num(u32),
            Text(String),
        }
        match Repr::deserialize(d)? {
            Repr::Num(v) => Ok(v),
            Repr::Text(s) => {
                let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                    Some(h) => u32::from_str_radix(h, 16).ok(),
                    None => s.parse().ok(),
                };
                parsed.ok_or_else(|| de::Error::custom(format!("{s:?} is not a 32-bit number")))
            }
        }
    }
}

impl From<Vec<u8>> for Body {
    fn from(bytes: Vec<u8>) -> Body {
        Body::Bytes { hex: Bytes::from(bytes) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size<T: Record>(value: &T) -> usize {
        let mut w = Writer::new(Endian::Little);
        value.write(&mut w);
        w.len()
    }

    #[test]
    fn structures_have_the_sizes_of_the_spec() {
        // §2: MotionParams905 132 B, GlobalAnimationHeaderCAF 404 B, Timing 0x918 52 B and
        // 0x919 12 B; §3: PQLog keys 28 B, PQS keys 40 B; §9.3: AnimInfo 48 B.
        let zeros = [0u8; 404];
        let mut c = Cursor::new(&zeros, Endian::Little);
        assert_eq!(size(&MotionParams::read(&mut c).unwrap()), 132);
        let mut c = Cursor::new(&zeros, Endian::Little);
        assert_eq!(size(&GlobalAnimationHeaderCaf::read(&mut c).unwrap()), 404);
        assert_eq!(c.remaining(), 0);
        let mut c = Cursor::new(&zeros, Endian::Little);
        assert_eq!(size(&TimingRange::read(&mut c).unwrap()), 52);
        assert_eq!(size(&TimingSamples::read(&mut c).unwrap()), 12);
        assert_eq!(size(&PqLogKey::read(&mut c).unwrap()), 28);
        assert_eq!(size(&PqsKey::read(&mut c).unwrap()), 40);
        assert_eq!(size(&IvoAnimInfo::read(&mut c).unwrap()), 48);
    }
}
