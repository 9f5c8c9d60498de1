//! The exact on-disk structure of IFP files.
//!
//! Everything a byte-identical rewrite needs is here: every size field as stored, whole fixed
//! name buffers (garbage after the NUL included), whole rounded chunk payloads, the ANIM form
//! and its unknown words, key data as the raw little-endian bytes (so −0.0, NaN and odd i16
//! values survive), and the bytes after the last animation. Counts that the games take from the
//! file (`numAnims`, `numObjects`, `numSequences`, `numFrames`) are derived from the vectors, so
//! a hand-edited document cannot contradict itself; only a salvaged (lenient) read of a damaged
//! file keeps a declared animation count that differs.

use bytes::Bytes;

/// A whole IFP file.
#[derive(Debug, Clone, PartialEq)]
pub struct IfpFile {
    pub body: Body,
    /// Bytes after the last animation: stale data, IMG sector padding, or the unread rest of a
    /// salvaged file.
    pub tail: Bytes,
    /// When a lenient read stopped at damage: the declared animation count and the error.
    pub salvage: Option<Salvage>,
}

/// What a lenient read could not parse.
#[derive(Debug, Clone, PartialEq)]
pub struct Salvage {
    /// The animation count the header declares (more than were parsed).
    pub declared_animations: u32,
    /// Why parsing stopped, with its offset.
    pub error: crate::Error,
    /// Offset of the first byte not parsed (where the tail begins).
    pub stopped_at: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// Version 1 (GTA III, Vice City): chunked.
    Anpk(Anpk),
    /// Version 2 (San Andreas): fixed records.
    V2(V2),
}

/// A 4-byte chunk id and its size field, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkHeader {
    pub id: [u8; 4],
    pub size: u32,
}

/// `ANPK`: header `ANPK size`, `INFO size numAnims blockName…`, then the animations.
#[derive(Debug, Clone, PartialEq)]
pub struct Anpk {
    /// The `ANPK` size field (content end − 8 in a consistent file).
    pub size: u32,
    /// The header `INFO` chunk; its size is `4 + strlen(blockName) + 1` in a consistent file.
    pub info: ChunkHeader,
    /// The `INFO` payload after `numAnims`: block name, NUL, padding to the rounded size.
    pub info_rest: Bytes,
    pub animations: Vec<AnpkAnimation>,
}

/// One ANPK animation: `NAME`, `DGAN`, DGAN `INFO`, then one `CPAN` per object.
#[derive(Debug, Clone, PartialEq)]
pub struct AnpkAnimation {
    pub name_chunk: ChunkHeader,
    /// The whole rounded `NAME` payload: name, NUL, padding (sometimes garbage).
    pub name: Bytes,
    pub dgan: ChunkHeader,
    pub info: ChunkHeader,
    /// The DGAN `INFO` payload after `numObjects` (4 "extra" bytes, often non-zero).
    pub info_rest: Bytes,
    pub objects: Vec<AnpkObject>,
}

/// One animated object: `CPAN`, `ANIM`, and a key chunk when it has frames.
#[derive(Debug, Clone, PartialEq)]
pub struct AnpkObject {
    pub cpan: ChunkHeader,
    /// The `ANIM` chunk id. Its size field is 44 or 48, which [`AnimLink`] records.
    pub anim_id: [u8; 4],
    pub name: [u8; 28],
    /// ANIM +32: unknown, 0 in every observed file.
    pub unknown: i32,
    /// ANIM +36: numFrames − 1 in every observed file.
    pub last_frame: i32,
    pub link: AnimLink,
    /// The key chunk; `None` exactly when ANIM numFrames is 0 (no key chunk follows then).
    pub keys: Option<KeyChunk>,
}

/// The words after ANIM +36: the 44-byte form carries a bone tag, the 48-byte form tree links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnimLink {
    /// 44-byte form: the HAnim bone id (−1 = match by name).
    Tag(i32),
    /// 48-byte form: depth-first index of the first child and next sibling (−1 = none).
    Tree { first_child: i32, next_sibling: i32 },
}

/// ANPK key frame layouts: f32 fields, time last; quaternions stored conjugated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// `KR00`: q×4, time (20 bytes).
    R,
    /// `KRT0`: q×4, translation×3, time (32 bytes).
    Rt,
    /// `KRTS`: q×4, translation×3, scale×3, time (44 bytes).
    Rts,
}

impl KeyKind {
    pub fn id(self) -> [u8; 4] {
        match self {
            KeyKind::R => *b"KR00",
            KeyKind::Rt => *b"KRT0",
            KeyKind::Rts => *b"KRTS",
        }
    }

    pub fn from_id(id: [u8; 4]) -> Option<Self> {
        match &id {
            b"KR00" => Some(KeyKind::R),
            b"KRT0" => Some(KeyKind::Rt),
            b"KRTS" => Some(KeyKind::Rts),
            _ => None,
        }
    }

    /// Bytes per frame.
    pub fn frame_size(self) -> usize {
        match self {
            KeyKind::R => 20,
            KeyKind::Rt => 32,
            KeyKind::Rts => 44,
        }
    }
}

/// The key chunk of an object with frames.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyChunk {
    pub kind: KeyKind,
    /// The key chunk's size field (numFrames × frame size in a consistent file).
    pub size: u32,
    /// numFrames × frame size bytes of little-endian f32 fields.
    pub frames: Bytes,
}

impl AnimLink {
    /// The ANIM chunk size of this form.
    pub fn anim_size(self) -> u32 {
        match self {
            AnimLink::Tag(_) => 44,
            AnimLink::Tree { .. } => 48,
        }
    }
}

impl KeyChunk {
    pub fn frame_count(&self) -> usize {
        self.frames.len() / self.kind.frame_size()
    }
}

/// `ANP2`/`ANP3`: a 36-byte header, then animations of fixed records.
#[derive(Debug, Clone, PartialEq)]
pub struct V2 {
    pub version: V2Version,
    /// The header size field, never used by the games.
    pub size: u32,
    pub block_name: [u8; 24],
    pub animations: Vec<V2Animation>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum V2Version {
    /// `ANP2`: 28-byte animation headers (no frameDataSize, no flags).
    Anp2,
    /// `ANP3`: 36-byte animation headers.
    Anp3,
}

impl V2Version {
    pub fn magic(self) -> [u8; 4] {
        match self {
            V2Version::Anp2 => *b"ANP2",
            V2Version::Anp3 => *b"ANP3",
        }
    }

    pub fn animation_header_size(self) -> usize {
        match self {
            V2Version::Anp2 => 28,
            V2Version::Anp3 => 36,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct V2Animation {
    pub name: [u8; 24],
    /// Σ numFrames × frame size as stored (ANP3 only; 0 for ANP2).
    pub frame_data_size: u32,
    /// Bit 0 = compressed (ANP3 only; 0 for ANP2).
    pub flags: u32,
    pub sequences: Vec<V2Sequence>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct V2Sequence {
    pub name: [u8; 24],
    pub frame_type: FrameType,
    pub bone_tag: i32,
    /// numFrames × frame size bytes, copied verbatim.
    pub frames: Bytes,
}

impl V2Sequence {
    pub fn frame_count(&self) -> usize {
        self.frames.len() / self.frame_type.size()
    }
}

/// ANP2/ANP3 frame layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameType {
    /// f32 q×4, f32 time (20 bytes).
    Rot = 1,
    /// f32 q×4, f32 time, f32 translation×3 (32 bytes): time comes before translation.
    RotTrans = 2,
    /// i16 q×4 (/4096), i16 time (1/60 s) (10 bytes).
    RotCompressed = 3,
    /// i16 q×4, i16 time, i16 translation×3 (/1024 m) (16 bytes).
    RotTransCompressed = 4,
}

impl FrameType {
    pub fn from_u32(v: u32) -> Option<Self> {
        match v {
            1 => Some(FrameType::Rot),
            2 => Some(FrameType::RotTrans),
            3 => Some(FrameType::RotCompressed),
            4 => Some(FrameType::RotTransCompressed),
            _ => None,
        }
    }

    /// Bytes per frame.
    pub fn size(self) -> usize {
        match self {
            FrameType::Rot => 20,
            FrameType::RotTrans => 32,
            FrameType::RotCompressed => 10,
            FrameType::RotTransCompressed => 16,
        }
    }

    pub fn compressed(self) -> bool {
        matches!(self, FrameType::RotCompressed | FrameType::RotTransCompressed)
    }

    pub fn has_translation(self) -> bool {
        matches!(self, FrameType::RotTrans | FrameType::RotTransCompressed)
    }
}

impl IfpFile {
    /// `ANPK`, `ANP2` or `ANP3`.
    pub fn magic(&self) -> [u8; 4] {
        match &self.body {
            Body::Anpk(_) => *b"ANPK",
            Body::V2(v2) => v2.version.magic(),
        }
    }

    pub fn animation_count(&self) -> usize {
        match &self.body {
            Body::Anpk(a) => a.animations.len(),
            Body::V2(v) => v.animations.len(),
        }
    }
}
