//! Parsing IFP bytes into the raw layer.
//!
//! Parsing is driven by the counts, as the games do: `numAnims`, `numObjects`/`numSequences` and
//! `numFrames` decide what follows; the `ANPK`, `DGAN`, `CPAN`, key-chunk and ANP3 header size
//! fields and `frameDataSize` are kept but never followed. Every count is checked against the
//! bytes that remain before anything is allocated for it.

use bytes::Bytes;

use super::raw::*;
use crate::bytes::{round_up, Cursor, Endian};
use crate::error::{Context, Error, ErrorKind, Result};
use crate::text::latin1_until_nul;

/// Smallest possible ANPK animation: NAME, DGAN and INFO headers and a 4-byte INFO payload.
const MIN_ANPK_ANIMATION: usize = 28;
/// Smallest possible ANPK object: CPAN and ANIM headers and a 44-byte ANIM payload.
const MIN_ANPK_OBJECT: usize = 60;
const V2_SEQUENCE_HEADER: usize = 36;

/// Reads an IFP file. With `lenient`, an animation that cannot be parsed ends the parse instead
/// of failing it: the animations before it are kept and the rest becomes the tail (so the file
/// still writes back byte for byte), and [`IfpFile::salvage`] says what happened.
pub fn read(data: &Bytes, lenient: bool) -> Result<IfpFile> {
    let mut c = Cursor::new(data, Endian::Little);
    let magic = c.array::<4>()?;
    match &magic {
        b"ANPK" => read_anpk(data, &mut c, lenient).within(|| "ANPK"),
        b"ANP3" => read_v2(data, &mut c, V2Version::Anp3, lenient).within(|| "ANP3"),
        b"ANP2" => read_v2(data, &mut c, V2Version::Anp2, lenient).within(|| "ANP2"),
        b"ANLF" => Err(Error::new(
            ErrorKind::Unsupported,
            Some(0),
            "ANLF (GTA III multi-package) files are not supported: no sample is known",
        )),
        _ => Err(Error::invalid(0, format!("bad magic {:?}: not ANPK, ANP2 or ANP3", magic_text(magic)))),
    }
}

fn magic_text(magic: [u8; 4]) -> String {
    magic.iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect()
}

/// Parses `count` animations with `parse`; in lenient mode a failure stops the loop and is
/// returned as a salvage record instead of an error.
fn parse_animations<T>(
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

fn read_v2(data: &Bytes, c: &mut Cursor, version: V2Version, lenient: bool) -> Result<IfpFile> {
    let size = c.u32()?;
    let block_name = c.array::<24>()?;
    let declared = c.u32()?;
    let count = c.count(u64::from(declared), version.animation_header_size(), "animation")?;
    let (animations, salvage) = parse_animations(c, count, lenient, |c, i| {
        let start = c.offset();
        read_v2_animation(data, c, version).within(|| {
            let name = data.get(start..start + 24).map(latin1_until_nul).unwrap_or_default();
            format!("animation {i} \"{name}\"")
        })
    })?;
    let tail = data.slice(c.offset()..);
    Ok(IfpFile { body: Body::V2(V2 { version, size, block_name, animations }), tail, salvage })
}

fn read_v2_animation(data: &Bytes, c: &mut Cursor, version: V2Version) -> Result<V2Animation> {
    let name = c.array::<24>()?;
    let num_sequences = c.u32()?;
    let (frame_data_size, flags) = match version {
        V2Version::Anp3 => (c.u32()?, c.u32()?),
        V2Version::Anp2 => (0, 0),
    };
    let count = c.count(u64::from(num_sequences), V2_SEQUENCE_HEADER, "sequence")?;
    let mut sequences = Vec::with_capacity(count);
    for i in 0..count {
        let sequence = read_v2_sequence(data, c).within(|| format!("sequence {i}"))?;
        sequences.push(sequence);
    }
    Ok(V2Animation { name, frame_data_size, flags, sequences })
}

/// Reads one sequence: a 36-byte header (name\[24\], frame type, numFrames, bone tag), taken
/// at once, then its frames.
fn read_v2_sequence(data: &Bytes, c: &mut Cursor) -> Result<V2Sequence> {
    let header_offset = c.offset();
    let header = c.array::<V2_SEQUENCE_HEADER>()?;
    // Constant offsets inside a fixed array: the lookups fold away.
    let word = |at: usize| header.get(at..).and_then(|b| b.first_chunk()).map_or(0, |b| u32::from_le_bytes(*b));
    let name = header.first_chunk::<24>().copied().unwrap_or_default();
    let (raw_type, num_frames, bone_tag) = (word(24), word(28), word(32));
    let frame_type = FrameType::from_u32(raw_type).ok_or_else(|| {
        Error::invalid(header_offset + 24, format!("unknown frame type {raw_type} (expected 1 to 4)"))
    })?;
    let n = c.count(u64::from(num_frames), frame_type.size(), "frame")?;
    let frames = data.slice_ref(c.take(n * frame_type.size())?);
    Ok(V2Sequence { name, frame_type, bone_tag: bone_tag as i32, frames })
}

fn chunk_header(c: &mut Cursor) -> Result<ChunkHeader> {
    Ok(ChunkHeader { id: c.array::<4>()?, size: c.u32()? })
}

/// Reads a chunk whose payload the games read in full: `round_up(size, 4)` bytes, with a size of
/// at least `min`. An `INFO` payload starts with an i32 count (`min` 4); a `NAME` payload is the
/// name and its NUL, so an empty name has size 1 (`min` 1: what our writer and the spec's
/// `strlen + 1` give, and what other IFP readers accept). Size 0 would leave the games' name
/// buffer as the previous name.
fn payload_chunk<'a>(c: &mut Cursor<'a>, what: &str, min: u32) -> Result<(ChunkHeader, &'a [u8])> {
    let offset = c.offset();
    let header = chunk_header(c)?;
    if header.size < min {
        return Err(Error::invalid(offset + 4, format!("{what} size {} is less than {min}", header.size)));
    }
    let payload = c.take(round_up(header.size as usize, 4))?;
    Ok((header, payload))
}

/// Reads a non-negative `i32` count.
fn signed_count(c: &mut Cursor, what: &str) -> Result<u64> {
    let offset = c.offset();
    let v = c.i32()?;
    u64::try_from(v).map_err(|_| Error::invalid(offset, format!("negative {what} count {v}")))
}

fn read_anpk(data: &Bytes, c: &mut Cursor, lenient: bool) -> Result<IfpFile> {
    let size = c.u32()?;
    let (info, payload) = payload_chunk(c, "INFO", 4).within(|| "header INFO")?;
    let mut p = Cursor::with_base(payload, c.offset() - payload.len(), Endian::Little);
    let declared = signed_count(&mut p, "animation")?;
    let info_rest = data.slice_ref(p.rest());
    let count = c.count(declared, MIN_ANPK_ANIMATION, "animation")?;
    let (animations, salvage) =
        parse_animations(c, count, lenient, |c, i| read_anpk_animation(data, c).within(|| format!("animation {i}")))?;
    let tail = data.slice(c.offset()..);
    let body = Body::Anpk(Anpk { size, info, info_rest, animations });
    Ok(IfpFile { body, tail, salvage })
}

fn read_anpk_animation(data: &Bytes, c: &mut Cursor) -> Result<AnpkAnimation> {
    let (name_chunk, name) = payload_chunk(c, "NAME", 1)?;
    let name = data.slice_ref(name);
    let result = (|| {
        let dgan = chunk_header(c)?;
        let (info, payload) = payload_chunk(c, "INFO", 4).within(|| "DGAN INFO")?;
        let mut p = Cursor::with_base(payload, c.offset() - payload.len(), Endian::Little);
        let declared = signed_count(&mut p, "object")?;
        let info_rest = data.slice_ref(p.rest());
        let count = c.count(declared, MIN_ANPK_OBJECT, "object")?;
        let mut objects = Vec::with_capacity(count);
        for i in 0..count {
            objects.push(read_anpk_object(data, c).within(|| format!("object {i}"))?);
        }
        Ok(AnpkAnimation { name_chunk, name: name.clone(), dgan, info, info_rest, objects })
    })();
    result.within(|| format!("\"{}\"", latin1_until_nul(&name)))
}

fn read_anpk_object(data: &Bytes, c: &mut Cursor) -> Result<AnpkObject> {
    let cpan = chunk_header(c)?;
    let anim_offset = c.offset();
    let anim = chunk_header(c)?;
    if anim.size != 44 && anim.size != 48 {
        return Err(Error::invalid(anim_offset + 4, format!("ANIM size {} is neither 44 nor 48", anim.size)));
    }
    let name = c.array::<28>()?;
    let frames_offset = c.offset();
    let num_frames = c.i32()?;
    let unknown = c.i32()?;
    let last_frame = c.i32()?;
    let link = if anim.size == 44 {
        AnimLink::Tag(c.i32()?)
    } else {
        AnimLink::Tree { first_child: c.i32()?, next_sibling: c.i32()? }
    };
    let num_frames = u64::try_from(num_frames)
        .map_err(|_| Error::invalid(frames_offset, format!("negative frame count {num_frames}")))?;
    let keys = if num_frames == 0 {
        None
    } else {
        let key_offset = c.offset();
        let header = chunk_header(c)?;
        let kind = KeyKind::from_id(header.id)
            .ok_or_else(|| Error::invalid(key_offset, format!("unknown key chunk id {:?}", magic_text(header.id))))?;
        let n = c.count(num_frames, kind.frame_size(), "frame")?;
        let frames = data.slice_ref(c.take(n * kind.frame_size())?);
        Some(KeyChunk { kind, size: header.size, frames })
    };
    Ok(AnpkObject { cpan, anim_id: anim.id, name, unknown, last_frame, link, keys })
}
