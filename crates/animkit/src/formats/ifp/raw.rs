//! The exact on-disk structure of IFP files, little-endian. Each structure is declared once: its
//! fields are its JSON dump (serde), and its `read`/`write` pair stands beside it.
//!
//! Everything a byte-identical rewrite needs is here: every size field as stored, whole fixed
//! name buffers (garbage after the NUL included), whole rounded chunk payloads, the ANIM form
//! and its unknown words, key data as the raw little-endian bytes (so −0.0, NaN and odd i16
//! values survive), and the bytes after the last animation. Counts that the games take from the
//! file (`numAnims`, `numObjects`, `numSequences`, `numFrames`) are derived from the vectors, so
//! a hand-edited document cannot contradict itself; only a salvaged (lenient) read of a damaged
//! file keeps a declared animation count that differs.
//!
//! Parsing is driven by the counts, as the games do: the `ANPK`, `DGAN`, `CPAN`, key-chunk and
//! ANP3 header size fields and `frameDataSize` are kept but never followed. Every count is
//! checked against the bytes that remain before anything is allocated for it.
//!
//! Frames stay in the bytes they were read from: each animation keeps one buffer (a shared slice
//! of the input) and its sequences or objects hold ranges of it ([`Nodes`]), so reading a file
//! and dropping it count no reference per sequence.
//!
//! In JSON, frames are arrays of the stored fields in file order: ANP3 types 3/4 as integers
//! `[qx, qy, qz, qw, ticks(, tx, ty, tz)]`, types 1/2 as floats `[qx, qy, qz, qw, time(, tx, ty, tz)]`,
//! ANPK keys as floats `[qx, qy, qz, qw(, tx, ty, tz(, sx, sy, sz)), time]` (conjugated, as stored).

use std::convert::Infallible;
use std::ops::{Deref, DerefMut};

use bytes::Bytes;
use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::bytes::{round_up, Cursor, Endian, Writer};
use crate::error::{Context, Error, ErrorKind, Result};
use crate::raw_json::{FixedName, FourCc, Hex, PaddedName, F32};
use crate::record::Record;
use crate::text::latin1_until_nul;

/// Smallest possible ANPK animation: NAME, DGAN and INFO headers and a 4-byte INFO payload.
const MIN_ANPK_ANIMATION: usize = 28;
/// Smallest possible ANPK object: CPAN and ANIM headers and a 44-byte ANIM payload.
const MIN_ANPK_OBJECT: usize = 60;
const V2_SEQUENCE_HEADER: usize = 36;

/// A whole IFP file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct IfpFile {
    #[serde(flatten)]
    pub body: Body,
    /// Bytes after the last animation: stale data, IMG sector padding, or the unread rest of a
    /// salvaged file.
    #[serde(default, skip_serializing_if = "Hex::is_empty")]
    pub tail: Hex,
    /// When a lenient read stopped at damage: the declared animation count and the error. The
    /// JSON keeps the count alone (`declared_animations`).
    #[serde(default, rename = "declared_animations", skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "serialize_salvage", deserialize_with = "deserialize_salvage")]
    pub salvage: Option<Salvage>,
}

/// What a lenient read could not parse.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Salvage {
    /// The animation count the header declares (more than were parsed).
    pub declared_animations: u32,
    /// Why parsing stopped, with its offset.
    pub error: Error,
    /// Offset of the first byte not parsed (where the tail begins).
    pub stopped_at: usize,
}

/// A salvage record in JSON: the declared animation count.
fn serialize_salvage<S: Serializer>(s: &Option<Salvage>, ser: S) -> Result<S::Ok, S::Error> {
    s.as_ref().map(|s| s.declared_animations).serialize(ser)
}

/// A salvage record from its JSON form, the declared animation count.
fn deserialize_salvage<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Salvage>, D::Error> {
    Ok(Option::<u32>::deserialize(d)?.map(|declared_animations| Salvage {
        declared_animations,
        error: Error::new(ErrorKind::Invalid, None, "salvaged file (from a dump)"),
        stopped_at: 0,
    }))
}

/// The file's body; `"magic"` names its version in JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "magic")]
pub(crate) enum Body {
    /// Version 1 (GTA III, Vice City): chunked.
    #[serde(rename = "ANPK")]
    Anpk(Anpk),
    /// Version 2 (San Andreas): fixed records, 36-byte animation headers.
    #[serde(rename = "ANP3")]
    Anp3(V2),
    /// Version 2 with 28-byte animation headers (no frameDataSize, no flags).
    #[serde(rename = "ANP2")]
    Anp2(V2),
}

/// `$e` with `$b` bound to the body of any version (all have `size`, `block_name` and
/// `animations`).
macro_rules! each_body {
    ($body:expr, $b:ident => $e:expr) => {
        match $body {
            Body::Anpk($b) => $e,
            Body::Anp3($b) | Body::Anp2($b) => $e,
        }
    };
}
pub(crate) use each_body;

impl IfpFile {
    /// Reads an IFP file. With `lenient`, an animation that cannot be parsed ends the parse
    /// instead of failing it: the animations before it are kept and the rest becomes the tail (so
    /// the file still writes back byte for byte), and [`IfpFile::salvage`] says what happened.
    pub(crate) fn read(data: &Bytes, lenient: bool) -> Result<IfpFile> {
        let mut c = Cursor::new(data, Endian::Little);
        let (body, salvage) = match &c.array::<4>()? {
            b"ANPK" => Anpk::read(data, &mut c, lenient).within(|| "ANPK")?,
            b"ANP3" => V2::read(data, &mut c, V2Version::Anp3, lenient).within(|| "ANP3")?,
            b"ANP2" => V2::read(data, &mut c, V2Version::Anp2, lenient).within(|| "ANP2")?,
            b"ANLF" => {
                let msg = "ANLF (GTA III multi-package) files are not supported: no sample is known";
                return Err(Error::new(ErrorKind::Unsupported, Some(0), msg));
            }
            magic => {
                let text = magic_text(*magic);
                return Err(Error::invalid(0, format!("bad magic {text:?}: not ANPK, ANP2 or ANP3")));
            }
        };
        Ok(IfpFile { body, tail: Hex(c.rest().to_vec()), salvage })
    }

    /// The bytes of the file: every stored field re-emitted as it is, nothing recomputed but the
    /// counts, so an unchanged document gives back its input byte for byte.
    pub(crate) fn write(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(Endian::Little, self.estimated_size());
        let declared = self.salvage.as_ref().map(|s| s.declared_animations);
        w.bytes(&self.magic());
        match &self.body {
            Body::Anpk(anpk) => anpk.write(&mut w, declared),
            Body::Anp3(v2) => v2.write(&mut w, declared, V2Version::Anp3),
            Body::Anp2(v2) => v2.write(&mut w, declared, V2Version::Anp2),
        }
        w.bytes(&self.tail.0);
        w.into_vec()
    }

    fn estimated_size(&self) -> usize {
        let body: usize = match &self.body {
            Body::Anpk(a) => a.animations.iter().flat_map(|a| a.objects.iter()).map(|o| 68 + o.key_len()).sum(),
            Body::Anp3(v) | Body::Anp2(v) => {
                v.animations.iter().flat_map(|a| a.sequences.iter()).map(|s| 36 + s.frames.len).sum()
            }
        };
        body + self.tail.0.len() + 4096
    }

    /// `ANPK`, `ANP2` or `ANP3`.
    pub(crate) fn magic(&self) -> [u8; 4] {
        match &self.body {
            Body::Anpk(_) => *b"ANPK",
            Body::Anp3(_) => *b"ANP3",
            Body::Anp2(_) => *b"ANP2",
        }
    }

    /// The number of animations parsed.
    pub(crate) fn animation_count(&self) -> usize {
        each_body!(&self.body, b => b.animations.len())
    }
}

fn magic_text(magic: [u8; 4]) -> String {
    magic.iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect()
}

/// Parses `count` animations with `parse`; in lenient mode a failure stops the loop and is
/// returned as a salvage record instead of an error.
fn read_animations<T>(
    c: &mut Cursor,
    count: usize,
    lenient: bool,
    mut parse: impl FnMut(&mut Cursor, usize) -> Result<T>,
) -> Result<(Vec<T>, Option<Salvage>)> {
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let start = c.pos();
        match parse(c, i) {
            Ok(a) => out.push(a),
            Err(error) if lenient => {
                c.seek(start)?;
                let salvage = Salvage { declared_animations: count as u32, error, stopped_at: c.offset() };
                return Ok((out, Some(salvage)));
            }
            Err(e) => return Err(e),
        }
    }
    Ok((out, None))
}

crate::record! {
    /// A 4-byte chunk id and its size field, as stored.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub(crate) struct ChunkHeader {
        pub id: FourCc,
        pub size: u32,
    }
}

impl ChunkHeader {
    pub(crate) fn new(id: &[u8; 4], size: u32) -> Self {
        ChunkHeader { id: FourCc(*id), size }
    }
}

/// Reads a chunk whose payload the games read in full: `round_up(size, 4)` bytes, with a size of
/// at least `min`, returned as a cursor over the payload. An `INFO` payload starts with an i32
/// count (`min` 4); a `NAME` payload is the name and its NUL, so an empty name has size 1 (`min`
/// 1: what our writer and the spec's `strlen + 1` give, and what other IFP readers accept). Size
/// 0 would leave the games' name buffer as the previous name.
fn payload_chunk<'a>(c: &mut Cursor<'a>, what: &str, min: u32) -> Result<(ChunkHeader, Cursor<'a>)> {
    let offset = c.offset();
    let header = ChunkHeader::read(c)?;
    if header.size < min {
        return Err(Error::invalid(offset + 4, format!("{what} size {} is less than {min}", header.size)));
    }
    let payload = c.take(round_up(header.size as usize, 4))?;
    Ok((header, Cursor::with_base(payload, offset + 8, Endian::Little)))
}

/// Reads a non-negative `i32` count.
#[inline(always)]
fn signed_count(c: &mut Cursor, what: &str) -> Result<u64> {
    let offset = c.offset();
    let v = c.i32()?;
    u64::try_from(v).map_err(|_| negative_count(offset, what, v))
}

#[cold]
fn negative_count(offset: usize, what: &str, v: i32) -> Error {
    Error::invalid(offset, format!("negative {what} count {v}"))
}

/// `ANPK`: header `ANPK size`, `INFO size numAnims blockName…`, then the animations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Anpk {
    /// The `ANPK` size field (content end − 8 in a consistent file).
    pub size: u32,
    /// The header `INFO` chunk; its size is `4 + strlen(blockName) + 1` in a consistent file.
    pub info: ChunkHeader,
    /// The `INFO` payload after `numAnims`: block name, NUL, padding to the rounded size.
    pub block_name: PaddedName,
    pub animations: Vec<AnpkAnimation>,
}

impl Anpk {
    fn read(data: &Bytes, c: &mut Cursor, lenient: bool) -> Result<(Body, Option<Salvage>)> {
        let size = c.u32()?;
        let (info, mut p) = payload_chunk(c, "INFO", 4).within(|| "header INFO")?;
        let declared = signed_count(&mut p, "animation")?;
        let block_name = PaddedName(p.rest().to_vec());
        let count = c.count(declared, MIN_ANPK_ANIMATION, "animation")?;
        let (animations, salvage) = read_animations(c, count, lenient, |c, i| {
            AnpkAnimation::read(data, c).within(|| format!("animation {i}"))
        })?;
        Ok((Body::Anpk(Anpk { size, info, block_name, animations }), salvage))
    }

    fn write(&self, w: &mut Writer, declared: Option<u32>) {
        w.u32(self.size);
        self.info.write(w);
        w.u32(declared.unwrap_or(self.animations.len() as u32));
        w.bytes(&self.block_name.0);
        self.animations.iter().for_each(|a| a.write(w));
    }
}

/// One ANPK animation: `NAME`, `DGAN`, DGAN `INFO`, then one `CPAN` per object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AnpkAnimation {
    pub name_chunk: ChunkHeader,
    /// The whole rounded `NAME` payload: name, NUL, padding (sometimes garbage).
    pub name: PaddedName,
    pub dgan: ChunkHeader,
    pub info: ChunkHeader,
    /// The DGAN `INFO` payload after `numObjects` (4 "extra" bytes, often non-zero).
    pub info_extra: Hex,
    pub objects: Nodes<AnpkObject>,
}

impl AnpkAnimation {
    fn read(data: &Bytes, c: &mut Cursor) -> Result<Self> {
        let (name_chunk, name) = payload_chunk(c, "NAME", 1)?;
        let name = PaddedName(name.rest().to_vec());
        let (dgan, info, info_extra, objects) = (|| {
            let dgan = ChunkHeader::read(c)?;
            let (info, mut p) = payload_chunk(c, "INFO", 4).within(|| "DGAN INFO")?;
            let declared = signed_count(&mut p, "object")?;
            let info_extra = Hex(p.rest().to_vec());
            let count = c.count(declared, MIN_ANPK_OBJECT, "object")?;
            let objects =
                Nodes::read(data, c, count, |c, base, i| AnpkObject::read(c, base).within(|| format!("object {i}")))?;
            Ok((dgan, info, info_extra, objects))
        })()
        .within(|| format!("\"{}\"", latin1_until_nul(&name.0)))?;
        Ok(AnpkAnimation { name_chunk, name, dgan, info, info_extra, objects })
    }

    fn write(&self, w: &mut Writer) {
        self.name_chunk.write(w);
        w.bytes(&self.name.0);
        self.dgan.write(w);
        self.info.write(w);
        w.u32(self.objects.len() as u32);
        w.bytes(&self.info_extra.0);
        self.objects.iter().for_each(|o| o.write(w, self.objects.of(o)));
    }
}

/// One animated object: `CPAN`, `ANIM` (name\[28\], numFrames, unknown, last frame, link), and a
/// key chunk when it has frames.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AnpkObject<F = Frames> {
    pub cpan: ChunkHeader,
    /// The `ANIM` chunk id. Its size field is 44 or 48, which [`AnimLink`] records.
    pub anim_id: FourCc,
    pub name: FixedName<28>,
    /// ANIM +32: unknown, 0 in every observed file.
    pub unknown: i32,
    /// ANIM +36: numFrames − 1 in every observed file.
    pub last_frame: i32,
    #[serde(flatten)]
    pub link: AnimLink,
    /// The key chunk; `None` exactly when ANIM numFrames is 0 (no key chunk follows then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<KeyChunk<F>>,
}

impl AnpkObject {
    /// Reads an object; its frames become a range of the animation's bytes, which begin at `base`.
    #[inline]
    fn read(c: &mut Cursor, base: usize) -> Result<Self> {
        let cpan = ChunkHeader::read(c)?;
        let anim = ChunkHeader::read(c)?;
        if anim.size != 44 && anim.size != 48 {
            return Err(Error::invalid(c.offset() - 4, format!("ANIM size {} is neither 44 nor 48", anim.size)));
        }
        let AnimFields { name, frame_count, unknown, last_frame } = AnimFields::read(c)?;
        let num_frames =
            u64::try_from(frame_count).map_err(|_| negative_count(c.offset() - 12, "frame", frame_count))?;
        let link = match anim.size {
            44 => AnimLink::Tag(c.i32()?),
            _ => AnimLink::Tree { first_child: c.i32()?, next_sibling: c.i32()? },
        };
        let keys = if num_frames == 0 {
            None
        } else {
            let key_offset = c.offset();
            let header = ChunkHeader::read(c)?;
            let kind = KeyKind::try_from(header.id).map_err(|m| Error::invalid(key_offset, m))?;
            Some(KeyChunk { size: header.size, id: kind, frames: Frames::read(c, base, kind, num_frames)? })
        };
        Ok(AnpkObject { cpan, anim_id: anim.id, name, unknown, last_frame, link, keys })
    }

    /// Writes the object, with `frames`, the bytes of its key chunk.
    fn write(&self, w: &mut Writer, frames: &[u8]) {
        self.cpan.write(w);
        ChunkHeader { id: self.anim_id, size: self.link.anim_size() }.write(w);
        let frame_count = self.frame_count() as i32;
        AnimFields { name: self.name, frame_count, unknown: self.unknown, last_frame: self.last_frame }.write(w);
        match self.link {
            AnimLink::Tag(tag) => w.i32(tag),
            AnimLink::Tree { first_child, next_sibling } => {
                w.i32(first_child);
                w.i32(next_sibling);
            }
        }
        // A key chunk without frames is no key chunk: numFrames 0 says none follows.
        if let Some(keys) = self.keys.as_ref().filter(|k| k.frames.len > 0) {
            ChunkHeader { id: keys.id.into(), size: keys.size }.write(w);
            w.bytes(frames);
        }
    }

    /// numFrames: the frames of the key chunk.
    pub(crate) fn frame_count(&self) -> usize {
        self.keys.as_ref().map_or(0, |k| k.frames.count(k.id))
    }

    /// The length of the key chunk's frames in bytes (0 without one).
    pub(crate) fn key_len(&self) -> usize {
        self.keys.as_ref().map_or(0, |k| k.frames.len)
    }
}

impl Node for AnpkObject {
    type Kind = KeyKind;
    type With<F> = AnpkObject<F>;
    fn frames(&self) -> Option<&Frames> {
        self.keys.as_ref().map(|k| &k.frames)
    }
    fn map<F, G, E>(o: &AnpkObject<F>, f: impl FnOnce(KeyKind, &F) -> Result<G, E>) -> Result<AnpkObject<G>, E> {
        let keys = o.keys.as_ref().map(|k| Ok(KeyChunk { size: k.size, id: k.id, frames: f(k.id, &k.frames)? }));
        let (cpan, anim_id, name, unknown, last_frame, link) =
            (o.cpan, o.anim_id, o.name, o.unknown, o.last_frame, o.link);
        Ok(AnpkObject { cpan, anim_id, name, unknown, last_frame, link, keys: keys.transpose()? })
    }
}

crate::record! {
    /// The `ANIM` payload before its link words: name, numFrames, ANIM +32, ANIM +36.
    struct AnimFields {
        name: FixedName<28>,
        frame_count: i32,
        unknown: i32,
        last_frame: i32,
    }
}

/// The words after ANIM +36: the 44-byte form carries a bone tag, the 48-byte form tree links.
/// In JSON, `"bone_tag": tag` or `"tree": {"first_child": …, "next_sibling": …}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AnimLink {
    /// 44-byte form: the HAnim bone id (−1 = match by name).
    #[serde(rename = "bone_tag")]
    Tag(i32),
    /// 48-byte form: depth-first index of the first child and next sibling (−1 = none).
    Tree { first_child: i32, next_sibling: i32 },
}

impl AnimLink {
    pub(crate) fn anim_size(self) -> u32 {
        match self {
            AnimLink::Tag(_) => 44,
            AnimLink::Tree { .. } => 48,
        }
    }
}

/// The key chunk of an object with frames.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KeyChunk<F = Frames> {
    /// The key chunk's size field (numFrames × frame size in a consistent file).
    pub size: u32,
    /// The chunk id: the frames' layout.
    pub id: KeyKind,
    pub frames: F,
}

/// A frame layout: its size and its field type.
pub(crate) trait Layout: Copy {
    /// Bytes per frame.
    fn size(self) -> usize;
    /// Whether the fields are i16 (else f32).
    fn compressed(self) -> bool;
    /// Whole frames in `len` bytes.
    fn frames_in(self, len: usize) -> usize {
        len / self.size()
    }
}

/// ANPK key frame layouts: f32 fields, time last; quaternions stored conjugated. The
/// discriminant is the frame size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "FourCc", into = "FourCc")]
pub(crate) enum KeyKind {
    /// `KR00`: q×4, time.
    R = 20,
    /// `KRT0`: q×4, translation×3, time.
    Rt = 32,
    /// `KRTS`: q×4, translation×3, scale×3, time.
    Rts = 44,
}

impl From<KeyKind> for FourCc {
    fn from(kind: KeyKind) -> FourCc {
        FourCc(match kind {
            KeyKind::R => *b"KR00",
            KeyKind::Rt => *b"KRT0",
            KeyKind::Rts => *b"KRTS",
        })
    }
}

impl TryFrom<FourCc> for KeyKind {
    type Error = String;
    #[inline]
    fn try_from(id: FourCc) -> Result<Self, String> {
        let all = [KeyKind::R, KeyKind::Rt, KeyKind::Rts];
        all.into_iter()
            .find(|&kind| FourCc::from(kind) == id)
            .ok_or_else(|| format!("unknown key chunk id {:?}", magic_text(id.0)))
    }
}

impl Layout for KeyKind {
    fn size(self) -> usize {
        self as usize
    }
    fn compressed(self) -> bool {
        false
    }
}

/// `ANP2`/`ANP3`: a 36-byte header (magic, size, block name\[24\], numAnims), then animations of
/// fixed records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct V2 {
    /// The header size field, never used by the games.
    pub size: u32,
    pub block_name: FixedName<24>,
    pub animations: Vec<V2Animation>,
}

crate::record! {
    /// The ANP2/ANP3 header after the magic.
    struct V2Header {
        size: u32,
        block_name: FixedName<24>,
        animation_count: u32,
    }
}

impl V2 {
    fn read(data: &Bytes, c: &mut Cursor, version: V2Version, lenient: bool) -> Result<(Body, Option<Salvage>)> {
        let V2Header { size, block_name, animation_count } = V2Header::read(c)?;
        let count = c.count(u64::from(animation_count), version.animation_header_size(), "animation")?;
        let (animations, salvage) = read_animations(c, count, lenient, |c, i| {
            let start = c.offset();
            V2Animation::read(data, c, version).within(|| {
                let name = data.get(start..start + 24).map(latin1_until_nul).unwrap_or_default();
                format!("animation {i} \"{name}\"")
            })
        })?;
        let v2 = V2 { size, block_name, animations };
        Ok((if version == V2Version::Anp3 { Body::Anp3(v2) } else { Body::Anp2(v2) }, salvage))
    }

    fn write(&self, w: &mut Writer, declared: Option<u32>, version: V2Version) {
        let animation_count = declared.unwrap_or(self.animations.len() as u32);
        V2Header { size: self.size, block_name: self.block_name, animation_count }.write(w);
        self.animations.iter().for_each(|a| a.write(w, version));
    }
}

/// `ANP2` or `ANP3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum V2Version {
    /// `ANP2`: 28-byte animation headers (no frameDataSize, no flags).
    Anp2,
    /// `ANP3`: 36-byte animation headers.
    Anp3,
}

impl V2Version {
    /// Bytes of an animation header: name\[24\], numSequences (and frameDataSize, flags in ANP3).
    pub(crate) fn animation_header_size(self) -> usize {
        match self {
            V2Version::Anp2 => 28,
            V2Version::Anp3 => 36,
        }
    }
}

/// One ANP2/ANP3 animation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct V2Animation {
    pub name: FixedName<24>,
    /// Σ numFrames × frame size as stored (ANP3 only; 0 for ANP2).
    #[serde(default)]
    pub frame_data_size: u32,
    /// Bit 0 = compressed (ANP3 only; 0 for ANP2).
    #[serde(default)]
    pub flags: u32,
    pub sequences: Nodes<V2Sequence>,
}

impl V2Animation {
    fn read(data: &Bytes, c: &mut Cursor, version: V2Version) -> Result<Self> {
        let name = FixedName::read(c)?;
        let num_sequences = c.u32()?;
        let (frame_data_size, flags) = match version {
            V2Version::Anp3 => (c.u32()?, c.u32()?),
            V2Version::Anp2 => (0, 0),
        };
        let count = c.count(u64::from(num_sequences), V2_SEQUENCE_HEADER, "sequence")?;
        let sequences = Self::read_sequences(data, c, count)?;
        Ok(V2Animation { name, frame_data_size, flags, sequences })
    }

    /// Reads `count` sequences. Sound ones are taken straight from the bytes
    /// ([`V2Sequence::parse`]); from the first that is not, the checked reader takes over and
    /// says what is wrong, so a damaged file fails as it would sequence by sequence.
    #[inline]
    fn read_sequences(data: &Bytes, c: &mut Cursor, count: usize) -> Result<Nodes<V2Sequence>> {
        let base = c.offset();
        let bytes = c.rest();
        let mut list = Vec::with_capacity(count);
        let mut end = 0;
        while list.len() < count {
            let Some((seq, next)) = V2Sequence::parse(bytes, end) else { break };
            list.push(seq);
            end = next;
        }
        c.skip(end)?;
        for i in list.len()..count {
            list.push(V2Sequence::read(c, base).within(|| format!("sequence {i}"))?);
        }
        Ok(Nodes::of_input(list, data, base, c.offset()))
    }

    fn write(&self, w: &mut Writer, version: V2Version) {
        self.name.write(w);
        w.u32(self.sequences.len() as u32);
        if version == V2Version::Anp3 {
            w.u32(self.frame_data_size);
            w.u32(self.flags);
        }
        self.sequences.iter().for_each(|s| s.write(w, self.sequences.of(s)));
    }
}

/// One ANP2/ANP3 sequence: a 36-byte header (name\[24\], frame type, numFrames, bone tag), then
/// its frames.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct V2Sequence<F = Frames> {
    pub name: FixedName<24>,
    /// The HAnim bone id (−1 = match by name).
    pub bone_tag: i32,
    /// The frames' layout.
    pub frame_type: FrameType,
    pub frames: F,
}

crate::record! {
    /// The 36-byte header of an ANP2/ANP3 sequence.
    struct SequenceHeader {
        name: FixedName<24>,
        frame_type: u32,
        frame_count: u32,
        bone_tag: i32,
    }
}

impl V2Sequence {
    /// Reads the header at once (over a fixed array, the record's bounds checks fold away), then
    /// the frames, a range of the animation's bytes, which begin at `base`.
    #[inline]
    fn read(c: &mut Cursor, base: usize) -> Result<Self> {
        let at = c.offset();
        let header = c.array::<V2_SEQUENCE_HEADER>()?;
        let SequenceHeader { name, frame_type, frame_count, bone_tag } =
            SequenceHeader::read(&mut Cursor::with_base(&header, at, Endian::Little))?;
        let kind = FrameType::try_from(frame_type).map_err(|m| Error::invalid(at + 24, m))?;
        let frames = Frames::read(c, base, kind, u64::from(frame_count))?;
        Ok(V2Sequence { name, bone_tag, frame_type: kind, frames })
    }

    /// The sequence whose header is at `at` in `bytes` (the animation's bytes) and the offset
    /// after its frames; `None` unless the header is whole, its frame type known and its frames
    /// within `bytes` (what [`V2Sequence::read`] checks, in one pass with no error to build).
    #[inline(always)]
    fn parse(bytes: &[u8], at: usize) -> Option<(Self, usize)> {
        let header: &[u8; V2_SEQUENCE_HEADER] = bytes.get(at..)?.first_chunk()?;
        let (name, fields) = header.split_first_chunk::<24>()?;
        let [frame_type, frame_count, bone_tag] = *fields.as_chunks::<4>().0 else {
            return None;
        };
        let kind = FrameType::from_u32(u32::from_le_bytes(frame_type))?;
        let start = at + V2_SEQUENCE_HEADER;
        let len = usize::try_from(u32::from_le_bytes(frame_count)).ok()?.checked_mul(kind.size())?;
        let end = start.checked_add(len).filter(|&end| end <= bytes.len())?;
        let seq = V2Sequence {
            name: FixedName(*name),
            bone_tag: i32::from_le_bytes(bone_tag),
            frame_type: kind,
            frames: Frames { start, len },
        };
        Some((seq, end))
    }

    /// Writes the sequence, with `frames`, the bytes of its frames.
    fn write(&self, w: &mut Writer, frames: &[u8]) {
        let (frame_type, frame_count) = (self.frame_type as u32, self.frame_count() as u32);
        SequenceHeader { name: self.name, frame_type, frame_count, bone_tag: self.bone_tag }.write(w);
        w.bytes(frames);
    }

    /// numFrames.
    #[inline]
    pub(crate) fn frame_count(&self) -> usize {
        self.frames.count(self.frame_type)
    }
}

impl Node for V2Sequence {
    type Kind = FrameType;
    type With<F> = V2Sequence<F>;
    fn frames(&self) -> Option<&Frames> {
        Some(&self.frames)
    }
    fn map<F, G, E>(s: &V2Sequence<F>, f: impl FnOnce(FrameType, &F) -> Result<G, E>) -> Result<V2Sequence<G>, E> {
        let (name, bone_tag, frame_type) = (s.name, s.bone_tag, s.frame_type);
        Ok(V2Sequence { name, bone_tag, frame_type, frames: f(frame_type, &s.frames)? })
    }
}

/// ANP2/ANP3 frame layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub(crate) enum FrameType {
    /// f32 q×4, f32 time (20 bytes).
    Rot = 1,
    /// f32 q×4, f32 time, f32 translation×3 (32 bytes): time comes before translation.
    RotTrans = 2,
    /// i16 q×4 (/4096), i16 time (1/60 s) (10 bytes).
    RotCompressed = 3,
    /// i16 q×4, i16 time, i16 translation×3 (/1024 m) (16 bytes).
    RotTransCompressed = 4,
}

impl From<FrameType> for u32 {
    fn from(t: FrameType) -> u32 {
        t as u32
    }
}

impl TryFrom<u32> for FrameType {
    type Error = String;
    fn try_from(v: u32) -> Result<Self, String> {
        FrameType::from_u32(v).ok_or_else(|| format!("unknown frame type {v} (expected 1 to 4)"))
    }
}

impl FrameType {
    /// The frame type stored as `v`, if known.
    #[inline]
    fn from_u32(v: u32) -> Option<Self> {
        match v {
            1 => Some(FrameType::Rot),
            2 => Some(FrameType::RotTrans),
            3 => Some(FrameType::RotCompressed),
            4 => Some(FrameType::RotTransCompressed),
            _ => None,
        }
    }

    pub(crate) fn has_translation(self) -> bool {
        matches!(self, FrameType::RotTrans | FrameType::RotTransCompressed)
    }
}

impl Layout for FrameType {
    fn size(self) -> usize {
        match self {
            FrameType::Rot => 20,
            FrameType::RotTrans => 32,
            FrameType::RotCompressed => 10,
            FrameType::RotTransCompressed => 16,
        }
    }
    fn compressed(self) -> bool {
        matches!(self, FrameType::RotCompressed | FrameType::RotTransCompressed)
    }
    /// One arm per layout, so that each division is by a constant (a multiply, not a divide
    /// instruction: SA `ped.ifp` counts the frames of 7,340 sequences twice per conversion).
    #[inline]
    fn frames_in(self, len: usize) -> usize {
        match self {
            FrameType::Rot => len / FrameType::Rot.size(),
            FrameType::RotTrans => len / FrameType::RotTrans.size(),
            FrameType::RotCompressed => len / FrameType::RotCompressed.size(),
            FrameType::RotTransCompressed => len / FrameType::RotTransCompressed.size(),
        }
    }
}

/// A node of an animation whose frames are a range of the animation's bytes: an ANP2/ANP3
/// sequence or an ANPK object.
pub(crate) trait Node {
    /// Its frame layout.
    type Kind: Layout;
    /// The node with frames of type `F`: `Self` holds [`Frames`], JSON holds [`Rows`].
    type With<F>;
    /// Its frames; `None` for an ANPK object without a key chunk.
    fn frames(&self) -> Option<&Frames>;
    /// `node` with its frames (if any) turned into `G` by `f`, which is given their layout.
    fn map<F, G, E>(node: &Self::With<F>, f: impl FnOnce(Self::Kind, &F) -> Result<G, E>) -> Result<Self::With<G>, E>;
}

/// The sequences or objects of one animation and the bytes their frames are ranges of: the
/// input's slice from the first node to the end of the animation when read, the frames back to
/// back when built. In JSON, the list of nodes with their frames inline.
#[derive(Debug, Clone)]
pub(crate) struct Nodes<N> {
    list: Vec<N>,
    data: Bytes,
}

impl<N: Node> Nodes<N> {
    /// Nodes whose frames are ranges of `data`.
    pub(crate) fn new(list: Vec<N>, data: Vec<u8>) -> Self {
        Nodes { list, data: Bytes::from(data) }
    }

    /// Reads `count` nodes with `parse`, which gets the cursor, the offset where the animation's
    /// bytes begin and the node index.
    #[inline]
    fn read(
        data: &Bytes,
        c: &mut Cursor,
        count: usize,
        mut parse: impl FnMut(&mut Cursor, usize, usize) -> Result<N>,
    ) -> Result<Self> {
        let base = c.offset();
        let mut list = Vec::with_capacity(count);
        for i in 0..count {
            list.push(parse(c, base, i)?);
        }
        Ok(Nodes::of_input(list, data, base, c.offset()))
    }

    /// Nodes whose frames are ranges of the input `data` from offset `start` to `end`.
    #[inline]
    fn of_input(list: Vec<N>, data: &Bytes, start: usize, end: usize) -> Self {
        let bytes = data.get(start..end).unwrap_or_default();
        Nodes { list, data: data.slice_ref(bytes) }
    }

    /// The frame bytes of `node` (none without frames).
    #[inline]
    pub(crate) fn of(&self, node: &N) -> &[u8] {
        node.frames().map_or(&[], |f| f.slice(&self.data))
    }
}

impl<N> Deref for Nodes<N> {
    type Target = Vec<N>;
    fn deref(&self) -> &Vec<N> {
        &self.list
    }
}

impl<N> DerefMut for Nodes<N> {
    fn deref_mut(&mut self) -> &mut Vec<N> {
        &mut self.list
    }
}

/// Equal nodes with equal frame bytes, wherever in their buffers the frames lie.
impl<N: Node + PartialEq> PartialEq for Nodes<N> {
    fn eq(&self, other: &Self) -> bool {
        self.list == other.list && self.list.iter().zip(&other.list).all(|(a, b)| self.of(a) == other.of(b))
    }
}

/// In JSON, each node with its frames inline, taken from the animation's bytes.
impl<K: Layout, N: Node<Kind = K, With<Frames> = N>> Serialize for Nodes<N>
where
    for<'a> N::With<Rows<'a, K>>: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let rows = |kind, f: &Frames| Ok::<_, Infallible>(Rows(kind, f.slice(&self.data)));
        s.collect_seq(self.list.iter().map(|n| {
            let Ok(json) = N::map(n, rows);
            json
        }))
    }
}

/// From JSON, the frames of each node appended to the animation's bytes.
impl<'de, K: Layout, N: Node<Kind = K, With<Frames> = N>> Deserialize<'de> for Nodes<N>
where
    N::With<Vec<Vec<serde_json::Value>>>: DeserializeOwned,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let json = Vec::<N::With<Vec<Vec<serde_json::Value>>>>::deserialize(d)?;
        let mut data = Vec::new();
        let mut frames = |kind, rows: &Vec<_>| Ok(Frames::push(&frame_bytes(kind, rows)?, &mut data));
        let list = json.iter().map(|j| N::map(j, &mut frames)).collect::<Result<_, String>>();
        Ok(Nodes::new(list.map_err(de::Error::custom)?, data))
    }
}

/// Frames as stored: numFrames × frame size little-endian bytes at `start` in the animation's
/// bytes ([`Nodes`]); the node holds their layout. Two are equal when their lengths are; the
/// bytes are compared by [`Nodes`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frames {
    /// Offset in the animation's bytes.
    pub start: usize,
    /// Length in bytes (numFrames × frame size).
    pub len: usize,
}

impl PartialEq for Frames {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
    }
}

impl Frames {
    /// Reads `count` frames of `kind`, checked against the bytes that remain, as a range of the
    /// animation's bytes, which begin at `base`.
    #[inline]
    fn read(c: &mut Cursor, base: usize, kind: impl Layout, count: u64) -> Result<Self> {
        let n = c.count(count, kind.size(), "frame")?;
        let start = c.offset() - base;
        let len = c.take(n * kind.size())?.len();
        Ok(Frames { start, len })
    }

    /// Frames holding `bytes`, appended to the animation's bytes `data`.
    pub(crate) fn push(bytes: &[u8], data: &mut Vec<u8>) -> Self {
        let start = data.len();
        data.extend_from_slice(bytes);
        Frames { start, len: bytes.len() }
    }

    /// numFrames, for frames of `kind`.
    #[inline]
    pub(crate) fn count(&self, kind: impl Layout) -> usize {
        kind.frames_in(self.len)
    }

    /// The frames' bytes in `data`, the animation's bytes.
    #[inline]
    fn slice<'a>(&self, data: &'a [u8]) -> &'a [u8] {
        data.get(self.start..self.start + self.len).unwrap_or_default()
    }
}

/// Frames in JSON: their layout and bytes, serialized as one array of numbers per frame.
pub(crate) struct Rows<'a, K>(K, &'a [u8]);

impl<K: Layout> Serialize for Rows<'_, K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.1.chunks_exact(self.0.size()).map(|f| Row(f, self.0.compressed())))
    }
}

/// One frame's fields in JSON: i16 or f32 (bit-exact) numbers.
struct Row<'a>(&'a [u8], bool);

impl Serialize for Row<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.1 {
            true => s.collect_seq(self.0.as_chunks::<2>().0.iter().map(|b| i16::from_le_bytes(*b))),
            false => s.collect_seq(self.0.as_chunks::<4>().0.iter().map(|b| F32(f32::from_le_bytes(*b)))),
        }
    }
}

/// The bytes of frames of `kind` from their JSON form, one array of numbers per frame.
fn frame_bytes(kind: impl Layout, rows: &[Vec<serde_json::Value>]) -> Result<Vec<u8>, String> {
    let per_frame = kind.size() / if kind.compressed() { 2 } else { 4 };
    let mut bytes = Vec::with_capacity(rows.len() * kind.size());
    for (k, row) in rows.iter().enumerate() {
        if row.len() != per_frame {
            return Err(format!("frame {k} has {} values, expected {per_frame}", row.len()));
        }
        for v in row {
            if kind.compressed() {
                let i = v.as_i64().and_then(|i| i16::try_from(i).ok());
                bytes.extend_from_slice(&i.ok_or_else(|| format!("frame {k}: {v} is not an i16"))?.to_le_bytes());
            } else {
                let F32(f) = F32::deserialize(v).map_err(|e| format!("frame {k}: {e}"))?;
                bytes.extend_from_slice(&f.to_le_bytes());
            }
        }
    }
    Ok(bytes)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An ANP3 file with one animation of the given sequences (frame type, numFrames, frames).
    pub(crate) fn anp3(sequences: &[(u32, u32, &[u8])]) -> Bytes {
        let mut w = Writer::new(Endian::Little);
        w.bytes(b"ANP3");
        w.u32(0);
        w.bytes(&[b'b'; 24]);
        w.u32(1);
        w.bytes(&[b'a'; 24]);
        w.u32(sequences.len() as u32);
        w.u32(0);
        w.u32(1);
        for &(frame_type, frame_count, frames) in sequences {
            w.bytes(&[b's'; 24]);
            w.u32(frame_type);
            w.u32(frame_count);
            w.i32(-1);
            w.bytes(frames);
        }
        Bytes::from(w.into_vec())
    }

    #[test]
    fn a_damaged_sequence_fails_where_it_is_with_the_checked_readers_message() {
        let frame = [0u8; 10];
        let ok = anp3(&[(3, 1, &frame), (3, 1, &frame)]);
        assert_eq!(IfpFile::read(&ok, false).unwrap().write(), ok.to_vec());
        let bad_type = anp3(&[(3, 1, &frame), (7, 1, &frame)]);
        let e = IfpFile::read(&bad_type, false).unwrap_err().to_string();
        assert!(e.contains("sequence 1") && e.contains("unknown frame type 7"), "{e}");
        let short = anp3(&[(3, 1, &frame), (3, 2, &frame)]);
        let e = IfpFile::read(&short, false).unwrap_err().to_string();
        assert!(e.contains("sequence 1") && e.contains("frame count 2 needs at least 20 bytes"), "{e}");
    }
}
