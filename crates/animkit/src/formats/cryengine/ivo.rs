//! Star Citizen `#ivo` CAF and DBA (`cryengine.md` §9).
//!
//! A CAF holds AnimInfo (0x4733C6ED) and CAFData (0xA9496CB5, one `#caf` block); a DBA holds
//! DBAData (0x194FBC50: `u32 totalSize`, then `#dba` block headers packed back to back, all key
//! data after the last one) and DBAMeta (0xF7351608, one entry and one path per block).
//!
//! Controller entries (24 B) hold a rotation and a position track: `u16 numKeys, u16 flags,
//! u32 timeOffset, u32 dataOffset`, offsets relative to the **start of the entry**; offsets may
//! point past the chunk, so the whole file is read. Flags: low nibble = time format (0 u8,
//! 1 u16, 2 bitmap), high byte = codec (0x80 f32 quat, 0x82 SmallTree48, 0xC0 f32 vec3,
//! 0xC1/0xC2 quantised vec3 with a `scale, offset` header; C2 stores active axes planar).
//! The C2 layout is disputed (§10.1 C1): it is decided once per file, over every track with two
//! or more active axes, planar unless the interleaved readings are four times smoother, so that
//! one writer's file is never read with two layouts; the `ivo_c2` read option forces it, and
//! `info` and `check` report the decision ([`C2Decision`]).
//! Times are frames at the header's fps. Values are absolute local transforms; a non-identity
//! AnimInfo start rotation is reported in the notes, not composed (§10.2 open question 3).

use glam::{Quat, Vec3};

use super::chunkfile::{kind, ChunkFile};
use super::controller::KeyTrack;
use super::dba::{vector_bytes, DbaController};
use super::quat_codecs::{encode_rotations, format, read_rotations};
use super::raw::{pad4, words, Body, IvoAnimInfo, QuatT};
use crate::bytes::{Cursor, Endian, Writer};
use crate::error::{Context, Error, Result};
use crate::raw_json::F32;
use crate::record::Record;
use crate::text::{latin1_until_nul, to_latin1};

crate::record! {
    /// A `#caf` / `#dba` block header (12 bytes): signature, bone count, magic (0xAA55) and
    /// `dataSize` (header, hashes, entries and the block's own key data). The bone hashes
    /// (`u32` each) and controller entries (two [`TrackEntry`] each) follow.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) struct BlockHeader { pub signature: [u8; 4], pub bones: u16, pub magic: u16, pub data_size: u32 }
}

crate::record! {
    /// One track of a controller entry (12 bytes): key count, flags (low nibble the time
    /// format, high byte the codec), time and data offsets from the start of the entry.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub(crate) struct TrackEntry { pub keys: u16, pub flags: u16, pub time_offset: u32, pub data_offset: u32 }
}

crate::record! {
    /// The head of a DBAMeta entry (16 bytes); version 0x902 has a `u32` end frame after it,
    /// then comes the start location (`QuatT`, 28 bytes).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub(crate) struct MetaHead { pub flags: u32, pub fps: u16, pub num_controllers: u16, pub reserved: [u8; 8] }
}

/// One bone's tracks in a block.
#[derive(Debug, Clone, PartialEq)]
pub struct IvoController {
    pub hash: u32,
    pub rotation: Option<KeyTrack<Quat>>,
    pub position: Option<KeyTrack<Vec3>>,
    /// Whether a bitmap's popcount differed from the key count (even spacing was used).
    pub bitmap_fallback: bool,
    /// For a C2 position track whose layout is ambiguous, both readings (see [`C2Layout`]);
    /// `position` holds the one the file's decision chose.
    pub c2: Option<C2Readings>,
}

/// How a C2 track stores its active axes (spec §10.1 C1): planar (all keys of one axis, then the
/// next; recommended, StarBreaker-rs) or interleaved (x, y, z of one key, then the next;
/// Cryengine-Converter). The two differ only with two or more active axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum C2Layout {
    #[default]
    Planar,
    Interleaved,
}

impl C2Layout {
    pub fn name(self) -> &'static str {
        match self {
            C2Layout::Planar => "planar",
            C2Layout::Interleaved => "interleaved",
        }
    }

    /// The value of the `ivo_c2` read option: `planar`, `interleaved`, or `auto` (`None`: decide
    /// per file).
    pub fn from_param(value: &str) -> Result<Option<C2Layout>> {
        match value.to_ascii_lowercase().as_str() {
            "auto" => Ok(None),
            "planar" => Ok(Some(C2Layout::Planar)),
            "interleaved" => Ok(Some(C2Layout::Interleaved)),
            other => Err(Error::unsupported(format!(
                "{C2_LAYOUT_PARAM}={other}: the #ivo C2 layout is planar, interleaved or auto"
            ))),
        }
    }
}

/// The read option that forces the `#ivo` C2 layout: `ivo_c2=planar|interleaved|auto`.
pub const C2_LAYOUT_PARAM: &str = "ivo_c2";

/// Both readings of an ambiguous C2 track (two or more active axes, three or more keys), with
/// each reading's roughness: the sum of |second differences| of the raw values, large for the
/// sawtooth that reading one layout as the other gives.
#[derive(Debug, Clone, PartialEq)]
pub struct C2Readings {
    pub planar: Vec<Vec3>,
    pub interleaved: Vec<Vec3>,
    pub roughness: [u64; 2],
}

/// The layout of the smoother reading, from the `[planar, interleaved]` roughness: interleaved
/// only when that reading is at least four times smoother.
fn smoother([planar, interleaved]: [u64; 2]) -> C2Layout {
    if interleaved.saturating_mul(4) < planar {
        C2Layout::Interleaved
    } else {
        C2Layout::Planar
    }
}

/// The C2 layout used for every ambiguous track of a file, and how it was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct C2Decision {
    pub layout: C2Layout,
    /// Forced by the `ivo_c2` read option rather than decided from the data.
    pub forced: bool,
    /// Ambiguous C2 tracks in the file.
    pub tracks: usize,
    /// Of those, the tracks that alone would look like the other layout.
    pub disagreeing: usize,
}

impl C2Decision {
    /// One line for `info`.
    pub fn describe(&self) -> String {
        let how = if self.forced {
            format!("forced by {C2_LAYOUT_PARAM}={}", self.layout.name())
        } else {
            "decided once for the file".to_string()
        };
        let mut line =
            format!("C2 positions read {} ({how}; {} tracks with several active axes", self.layout.name(), self.tracks);
        if self.disagreeing > 0 {
            let other = if self.layout == C2Layout::Planar { C2Layout::Interleaved } else { C2Layout::Planar };
            line.push_str(&format!(", {} of which alone look {}", self.disagreeing, other.name()));
        }
        line.push(')');
        line
    }
}

/// A `#caf` or `#dba` block.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Block {
    /// The file offset of the header.
    pub offset: usize,
    /// The header as stored.
    pub header: BlockHeader,
    /// One per bone hash.
    pub controllers: Vec<IvoController>,
}

/// A DBAMeta entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MetaEntry {
    /// Flags, frame rate and controller count.
    pub head: MetaHead,
    /// Version 0x902: the end frame.
    pub end_frame: Option<u32>,
    /// The start location.
    pub start: QuatT,
    /// The clip's path (Latin-1).
    pub path: String,
}

impl MetaEntry {
    /// DBAMeta 0x901 (44-byte entries) or 0x902 (a `u32` after the count, 48-byte entries), then
    /// one NUL-terminated path per entry.
    fn read_all(payload: &[u8], base: usize, version: u32) -> Result<Vec<MetaEntry>> {
        let mut c = Cursor::with_base(payload, base, Endian::Little);
        let count = c.u32()?;
        let v902 = version == 0x902;
        if v902 {
            c.skip(4)?;
        }
        let n = c.count(u64::from(count), if v902 { 48 } else { 44 }, "metadata entry")?;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let head = MetaHead::read(&mut c)?;
            let end_frame = if v902 { Some(c.u32()?) } else { None };
            entries.push(MetaEntry { head, end_frame, start: QuatT::read(&mut c)?, path: String::new() });
        }
        let mut paths = c.rest().split(|&b| b == 0);
        for e in &mut entries {
            e.path = latin1_until_nul(paths.next().unwrap_or_default());
        }
        Ok(entries)
    }

    /// DBAMeta 0x901 of entries without an end frame (0x902 alone has them): `count`, 44-byte
    /// entries, NUL-terminated paths, padding to 4.
    pub(crate) fn write_all(entries: &[MetaEntry]) -> Result<Vec<u8>> {
        if entries.iter().any(|e| e.end_frame.is_some()) {
            return Err(Error::unrepresentable("an end frame in DBAMeta 0x901"));
        }
        let mut w = Writer::new(Endian::Little);
        w.u32(entries.len() as u32);
        for e in entries {
            e.head.write(&mut w);
            e.start.write(&mut w);
        }
        for e in entries {
            let path = &e.path;
            w.bytes(&to_latin1(path).ok_or_else(|| Error::unrepresentable(format!("path \"{path}\"")))?);
            w.u8(0);
        }
        pad4(&mut w);
        Ok(w.into_vec())
    }
}

/// A decoded `#ivo` animation file.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct IvoAnimation {
    /// AnimInfo (CAF files).
    pub info: Option<IvoAnimInfo>,
    /// The blocks, in file order.
    pub blocks: Vec<Block>,
    /// DBAMeta entries (DBA files), one per block.
    pub meta: Vec<MetaEntry>,
    /// The C2 layout of the file's ambiguous tracks; `None` when it has none.
    pub c2: Option<C2Decision>,
}

/// The frames of a track's `n` keys in time format `format` (0 `u8`, 1 `u16`, 2 bitmap) at `c`.
fn times(c: &mut Cursor, format: u16, n: usize, fallback: &mut bool) -> Result<Vec<f32>> {
    match format {
        0 => Ok(words::<u8>(c, n, "key time")?.into_iter().map(f32::from).collect()),
        1 => Ok(words::<u16>(c, n, "key time")?.into_iter().map(f32::from).collect()),
        2 => {
            let (start, end) = (c.u16()?, c.u16()?);
            let span = end.checked_sub(start).ok_or_else(|| {
                Error::invalid(c.offset(), format!("time bitmap end {end} is before its start {start}"))
            })?;
            let span = usize::from(span) + 1;
            let bytes = c.take(span.div_ceil(8))?;
            let set = |b: &usize| bytes.get(b / 8).is_some_and(|&x| x & (1 << (b % 8)) != 0);
            let out: Vec<f32> = (0..span).filter(set).map(|b| f32::from(start) + b as f32).collect();
            if out.len() == n {
                return Ok(out);
            }
            // §9.5: fall back to even spacing over [start, end] and report it.
            *fallback = true;
            let (s, e) = (f32::from(start), f32::from(end));
            Ok((0..n).map(|i| if n > 1 { s + (e - s) * i as f32 / (n - 1) as f32 } else { s }).collect())
        }
        f => Err(unsupported(c, format!("#ivo time format {f}"))),
    }
}

/// `what` is not supported, at the cursor's offset.
fn unsupported(c: &Cursor, what: String) -> Error {
    Error::unsupported(what).within(format!("at {}", c.offset()))
}

/// The rotation codecs and their `ECompressionFormat`.
const ROTATION_CODECS: [(u16, u8); 2] = [(0x80, format::NO_COMPRESS_QUAT), (0x82, format::SMALL_TREE_48BIT_QUAT)];

/// `n` rotation keys of codec `codec` (0x80 f32, 0x82 SmallTree48) at `c`, decoded in place.
fn rotations(c: &mut Cursor, codec: u16, n: usize) -> Result<Vec<Quat>> {
    let Some(&(_, format)) = ROTATION_CODECS.iter().find(|r| r.0 == codec) else {
        return Err(unsupported(c, format!("#ivo rotation codec 0x{codec:02X}")));
    };
    let mut out = Vec::with_capacity(n);
    read_rotations(c, format, n, &mut out).map(|()| out)
}

/// Sum of |second differences| of one axis read through `value(k)`: large for a sawtooth.
fn roughness(n: usize, value: impl Fn(usize) -> u16) -> u64 {
    (1..n.saturating_sub(1))
        .map(|k| (i64::from(value(k + 1)) - 2 * i64::from(value(k)) + i64::from(value(k - 1))).unsigned_abs())
        .sum()
}

/// Position keys at `c` (C2 read planar), and both C2 readings when the layout is ambiguous.
fn positions(c: &mut Cursor, codec: u16, n: usize) -> Result<(Vec<Vec3>, Option<C2Readings>)> {
    if codec == 0xC0 {
        let keys = words::<[F32; 3]>(c, n, "position key")?;
        return Ok((keys.into_iter().map(|[x, y, z]| Vec3::new(x.0, y.0, z.0)).collect(), None));
    }
    if !matches!(codec, 0xC1 | 0xC2) {
        return Err(unsupported(c, format!("#ivo position codec 0x{codec:02X}")));
    }
    let [scale, offset] = [<[F32; 3]>::read(c)?, <[F32; 3]>::read(c)?].map(|v| v.map(|x| x.0));
    // The active axes with their scale and offset.
    let axes: Vec<(usize, f32, f32)> =
        (0..3).zip(scale).zip(offset).filter(|((_, s), _)| s.abs() < 3e38).map(|((a, s), o)| (a, s, o)).collect();
    // The `n` keys with each active axis `a` decoded from its stored value `read(a, k)`, each
    // inactive axis at its offset; n is a u16 key count: the allocations are bounded.
    let decode = |read: &dyn Fn(usize, usize) -> u16| {
        let mut out = vec![Vec3::from(offset); n];
        for (a, &(axis, s, o)) in axes.iter().enumerate() {
            for (k, v) in out.iter_mut().enumerate() {
                // `axis` < 3: it enumerates the three components above.
                v[axis] = f32::from(read(a, k)) * s + o;
            }
        }
        out
    };
    if codec == 0xC1 {
        // C1: `u16 x, y, z` per key.
        let raw = words::<[u16; 3]>(c, n, "position key")?;
        let stored = |a: usize, k: usize| axes.get(a).and_then(|&(axis, ..)| raw.get(k)?.get(axis)).copied();
        return Ok((decode(&|a, k| stored(a, k).unwrap_or(0)), None));
    }
    let m = axes.len();
    let raw: Vec<u16> = words(c, n * m, "position value")?;
    let planar = |a: usize, k: usize| raw.get(a * n + k).copied().unwrap_or(0);
    let interleaved = |a: usize, k: usize| raw.get(k * m + a).copied().unwrap_or(0);
    let values = decode(&planar);
    if m < 2 || n < 3 {
        return Ok((values, None));
    }
    let rough = |read: &dyn Fn(usize, usize) -> u16| (0..m).map(|a| roughness(n, |k| read(a, k))).sum::<u64>();
    let readings = C2Readings {
        planar: values.clone(),
        interleaved: decode(&interleaved),
        roughness: [rough(&planar), rough(&interleaved)],
    };
    Ok((values, Some(readings)))
}

/// Chooses one C2 layout for every ambiguous track of the file (`forced`, else the layout whose
/// readings are smoother over all of them, interleaved only when four times smoother) and
/// puts that reading into each track.
fn decide_c2(blocks: &mut [Block], forced: Option<C2Layout>) -> Option<C2Decision> {
    let tracks = || blocks.iter().flat_map(|b| &b.controllers).filter_map(|k| k.c2.as_ref());
    let count = tracks().count();
    if count == 0 {
        return None;
    }
    let total = tracks()
        .fold([0u64; 2], |acc, r| [acc[0].saturating_add(r.roughness[0]), acc[1].saturating_add(r.roughness[1])]);
    let layout = forced.unwrap_or(smoother(total));
    let disagreeing = tracks().filter(|r| smoother(r.roughness) != layout).count();
    for ctrl in blocks.iter_mut().flat_map(|b| b.controllers.iter_mut()) {
        if let (Some(r), Some(p)) = (&ctrl.c2, &mut ctrl.position) {
            p.values = match layout {
                C2Layout::Planar => r.planar.clone(),
                C2Layout::Interleaved => r.interleaved.clone(),
            };
        }
    }
    Some(C2Decision { layout, forced: forced.is_some(), tracks: count, disagreeing })
}

/// A cursor at the absolute offset `at` of the whole-file buffer `buf`.
fn at(buf: &[u8], at: usize) -> Result<Cursor<'_>> {
    let mut c = Cursor::new(buf, Endian::Little);
    c.seek(at)?;
    Ok(c)
}

/// The controller of the entry at `entry` (its two tracks read from `c`): offsets count from
/// the entry, so the keys may lie anywhere in `buf`.
fn controller(buf: &[u8], c: &mut Cursor, hash: u32) -> Result<IvoController> {
    let entry = c.offset();
    let [rot, pos] = [TrackEntry::read(c)?, TrackEntry::read(c)?];
    let mut ctrl = IvoController { hash, rotation: None, position: None, bitmap_fallback: false, c2: None };
    let mut frames = |t: &TrackEntry| -> Result<Vec<f32>> {
        let n = usize::from(t.keys);
        if t.time_offset == 0 {
            return Ok((0..n).map(|k| k as f32).collect());
        }
        let mut c = at(buf, entry + t.time_offset as usize)?;
        times(&mut c, t.flags & 0xF, n, &mut ctrl.bitmap_fallback).within(|| "key times")
    };
    let present = |t: &TrackEntry| t.flags != 0 && t.keys != 0;
    let rot_frames = if present(&rot) { Some(frames(&rot)?) } else { None };
    let pos_frames = if present(&pos) { Some(frames(&pos)?) } else { None };
    let data = |t: &TrackEntry| at(buf, entry + t.data_offset as usize);
    if let Some(frames) = rot_frames {
        let values = data(&rot).and_then(|mut c| rotations(&mut c, rot.flags >> 8, frames.len()));
        ctrl.rotation = Some(KeyTrack { frames, values: values.within(|| "rotation keys")? });
    }
    if let Some(frames) = pos_frames {
        let read = data(&pos).and_then(|mut c| positions(&mut c, pos.flags >> 8, frames.len()));
        let (values, readings) = read.within(|| "position keys")?;
        (ctrl.c2, ctrl.position) = (readings, Some(KeyTrack { frames, values }));
    }
    Ok(ctrl)
}

/// Reads the block at `offset` of the whole-file buffer `buf`.
fn block(buf: &[u8], offset: usize, signature: &[u8; 4]) -> Result<Block> {
    let mut c = at(buf, offset)?;
    let header = BlockHeader::read(&mut c)?;
    if &header.signature != signature {
        let expected = String::from_utf8_lossy(signature);
        return Err(Error::invalid(offset, format!("expected a {expected} block")));
    }
    let n = usize::from(header.bones);
    c.count(n as u64, 28, "bone")?;
    let hashes: Vec<u32> = words(&mut c, n, "bone hash")?;
    let mut controllers = Vec::with_capacity(n);
    for (i, &hash) in hashes.iter().enumerate() {
        controllers.push(controller(buf, &mut c, hash).within(|| format!("controller {i} (0x{hash:08X})"))?);
    }
    Ok(Block { offset, header, controllers })
}

/// Decodes the animation chunks of an `#ivo` file; the C2 layout is `c2_layout`, or decided
/// once for the whole file when `None` (spec §10.1 C1).
pub(crate) fn parse(file: &ChunkFile, c2_layout: Option<C2Layout>) -> Result<IvoAnimation> {
    let buf = file.write()?;
    let mut out = IvoAnimation::default();
    for (i, ch) in file.chunks.iter().enumerate() {
        let base = ch.offset as usize;
        let (version, _) = ch.version_and_endian(file.container);
        let r: Result<()> = (|| {
            match ch.chunk_type {
                kind::IVO_ANIM_INFO => {
                    if let Body::IvoAnimInfo(info) = ch.structure(file.container)?.as_ref() {
                        out.info = Some(**info);
                    }
                }
                kind::IVO_CAF_DATA => out.blocks.push(block(&buf, base, b"#caf")?),
                kind::IVO_DBA_DATA => {
                    let mut at = base + 4;
                    while buf.get(at..at + 4) == Some(b"#dba") {
                        let b = block(&buf, at, b"#dba")?;
                        at += 12 + 28 * b.controllers.len();
                        out.blocks.push(b);
                    }
                }
                kind::IVO_DBA_META => out.meta = MetaEntry::read_all(&ch.payload(file.container)?, base, version)?,
                _ => {}
            }
            Ok(())
        })();
        r.within(|| format!("#ivo chunk {i} (type 0x{:08X})", ch.chunk_type))?;
    }
    out.c2 = decide_c2(&mut out.blocks, c2_layout);
    Ok(out)
}

/// The time format (0 `u8`, 1 `u16`) and bytes of whole `frames`.
fn ivo_times(frames: &[f32], w: &mut Writer) -> Result<u16> {
    if !frames.iter().all(|f| f.fract() == 0.0 && *f >= 0.0) {
        return Err(Error::unrepresentable("#ivo key times are whole frames"));
    }
    if frames.iter().all(|&f| f < 256.0) {
        frames.iter().for_each(|&f| w.u8(f as u8));
        Ok(0)
    } else if frames.iter().all(|&f| f < 65536.0) {
        frames.iter().for_each(|&f| w.u16(f as u16));
        Ok(1)
    } else {
        Err(Error::unrepresentable("#ivo key frames above 65535"))
    }
}

/// Appends one track's times and values (encoded by `values`) to `pool`, each padded to 4, and
/// returns its entry (all zero for a track without keys); `entry` is the entry's offset in the
/// same numbering as `pool_at` (the pool's start).
fn write_track<T>(
    pool: &mut Writer,
    (pool_at, entry): (usize, usize),
    codec: u16,
    track: Option<&KeyTrack<T>>,
    values: impl FnOnce(&[T]) -> Result<Vec<u8>>,
) -> Result<TrackEntry> {
    let Some(KeyTrack { frames, values: keys }) = track.filter(|t| !t.frames.is_empty()) else {
        return Ok(TrackEntry::default());
    };
    let rel = |w: &Writer| {
        u32::try_from(pool_at + w.len() - entry).map_err(|_| Error::unrepresentable("#ivo offsets above 4 GiB"))
    };
    let count =
        u16::try_from(frames.len()).map_err(|_| Error::unrepresentable("more than 65535 keys in an #ivo track"))?;
    let time_offset = rel(pool)?;
    let time_format = ivo_times(frames, pool)?;
    pad4(pool);
    let data_offset = rel(pool)?;
    pool.bytes(&values(keys)?);
    pad4(pool);
    Ok(TrackEntry { keys: count, flags: codec << 8 | 0x40 | time_format, time_offset, data_offset })
}

/// Writes `#caf`/`#dba` blocks (§9.7): all block headers, hashes and entries first, then the
/// key data pool; arrays padded to 4; flags keep bit 0x40; `dataSize` = header, hashes, entries
/// and the block's own data; magic 0xAA55. Offsets are relative to each entry, so the bytes can
/// go anywhere in the chunk. Rotations in `rot_format`: f32 or SmallTree48.
pub(crate) fn write_blocks(blocks: &[Vec<DbaController>], signature: &[u8; 4], rot_format: u8) -> Result<Vec<u8>> {
    let Some(&(rot_codec, _)) = ROTATION_CODECS.iter().find(|r| r.1 == rot_format) else {
        return Err(Error::unsupported(format!("#ivo rotations are f32 or SmallTree48, not format {rot_format}")));
    };
    let headers: usize = blocks.iter().map(|b| 12 + 28 * b.len()).sum();
    let mut head = Writer::new(Endian::Little);
    let mut pool = Writer::new(Endian::Little);
    for bones in blocks {
        let n = u16::try_from(bones.len()).map_err(|_| Error::unrepresentable("more than 65535 bones in a block"))?;
        let pool_before = pool.len();
        let first_entry = head.len() + 12 + 4 * bones.len();
        let mut entries = Vec::with_capacity(2 * bones.len());
        for (i, b) in bones.iter().enumerate() {
            let entry = first_entry + 24 * i;
            let rotations = |q: &[Quat]| encode_rotations(rot_format, q);
            entries.push(write_track(&mut pool, (headers, entry), rot_codec, b.rotation.as_ref(), rotations)?);
            entries.push(write_track(&mut pool, (headers, entry), 0xC0, b.position.as_ref(), |p| Ok(vector_bytes(p)))?);
        }
        let data_size = u32::try_from(12 + 28 * bones.len() + pool.len() - pool_before)
            .map_err(|_| Error::unrepresentable("an #ivo block above 4 GiB"))?;
        BlockHeader { signature: *signature, bones: n, magic: 0xAA55, data_size }.write(&mut head);
        bones.iter().for_each(|b| head.u32(b.id));
        entries.iter().for_each(|e| e.write(&mut head));
    }
    let mut out = head.into_vec();
    out.extend_from_slice(&pool.into_vec());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Limits;
    use crate::formats::cryengine::chunkfile;
    use crate::formats::cryengine::model::{to_model_with, Decoding};
    use bytes::Bytes;

    /// §9.8: `BEHR_LaserCannon_S2.dba` with every published byte; the unpublished ones (C2 header
    /// after scale.x, Y stream, metadata fields after numCtrl) are filled with the §9.5 example
    /// values: scale (FLT_MAX, 0.0001, FLT_MAX), offset (0.25, −0.5, 1.0), Y stream 0, 5000, 10000, 0.
    fn behr() -> Vec<u8> {
        let hex = |s: &str| s.split_whitespace().map(|h| u8::from_str_radix(h, 16).unwrap()).collect::<Vec<u8>>();
        let mut f = hex("23 69 76 6F 00 09 00 00 02 00 00 00 10 00 00 00");
        f.extend(hex("50 BC 4F 19 00 09 00 00 30 00 00 00 00 00 00 00"));
        f.extend(hex("08 16 35 F7 01 09 00 00 80 00 00 00 00 00 00 00"));
        f.extend(hex("4C 00 00 00 23 64 62 61 01 00 55 AA 4C 00 00 00 B7 37 61 9A"));
        f.extend([0; 12]);
        f.extend(hex("04 00 40 C2 18 00 00 00 1C 00 00 00 00 01 0D 10 FF FF 7F 7F"));
        for v in [1e-4f32, f32::MAX, 0.25, -0.5, 1.0] {
            f.extend(v.to_le_bytes());
        }
        for y in [0u16, 5000, 10000, 0] {
            f.extend(y.to_le_bytes());
        }
        assert_eq!(f.len(), 0x80);
        f.extend(hex("01 00 00 00 02 00 00 00 1E 00 01 00"));
        f.extend([0; 8]);
        for v in [0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0] {
            f.extend(v.to_le_bytes());
        }
        assert_eq!(f.len(), 0xB0);
        f.extend(b"animations/spaceships/weapons/behr/behr_lasercannon_s2/behr_lasercannon_s2_recoil.caf\0");
        assert_eq!(f.len(), 0x106);
        f.extend([0, 0]);
        f
    }

    #[test]
    fn c2_positions_give_both_readings_and_a_guess() {
        // Constructed C2 data: x and y active (scale 1, offset 0), z inactive (FLT_MAX scale,
        // offset 7). x_k = 100 + 10k and y_k = 5000 − 20k for 8 keys: smooth ramps, so either
        // layout read the other way round jumps between ~100 and ~5000 every key.
        let n = 8;
        let (xs, ys): (Vec<u16>, Vec<u16>) = (0..n).map(|k| (100 + 10 * k, 5000 - 20 * k)).unzip();
        let header = |out: &mut Vec<u8>| {
            for v in [1.0f32, 1.0, f32::MAX, 0.0, 0.0, 7.0] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        };
        let (mut planar, mut interleaved) = (Vec::new(), Vec::new());
        header(&mut planar);
        header(&mut interleaved);
        for v in xs.iter().chain(&ys) {
            planar.extend_from_slice(&v.to_le_bytes());
        }
        for (x, y) in xs.iter().zip(&ys) {
            interleaved.extend_from_slice(&x.to_le_bytes());
            interleaved.extend_from_slice(&y.to_le_bytes());
        }
        let expect: Vec<Vec3> = xs.iter().zip(&ys).map(|(&x, &y)| Vec3::new(f32::from(x), f32::from(y), 7.0)).collect();
        let (got, readings) = positions(&mut Cursor::new(&planar, Endian::Little), 0xC2, n as usize).unwrap();
        let readings = readings.unwrap();
        assert_eq!((&got, &readings.planar, smoother(readings.roughness)), (&expect, &expect, C2Layout::Planar));
        let (_, readings) = positions(&mut Cursor::new(&interleaved, Endian::Little), 0xC2, n as usize).unwrap();
        let readings = readings.unwrap();
        assert_eq!((&readings.interleaved, smoother(readings.roughness)), (&expect, C2Layout::Interleaved));
    }

    #[test]
    fn behr_laser_cannon_test_vector() {
        let bytes = behr();
        assert_eq!(bytes.len(), 264);
        // 12 + 4 + 24 + 4 + (24 + 4 × 2) = 76: one active axis, dataSize includes the header.
        assert_eq!(12 + 4 + 24 + 4 + (24 + 4 * 2), 76);
        let file = chunkfile::read(&Bytes::from(bytes.clone()), false).unwrap();
        assert_eq!(file.write().unwrap(), bytes);
        assert_eq!(file.chunks.len(), 2);
        let anim = parse(&file, None).unwrap();
        assert_eq!(anim.blocks.len(), 1);
        let b = &anim.blocks[0];
        assert_eq!((b.header.magic, b.header.data_size, b.offset), (0xAA55, 76, 0x34));
        let c = &b.controllers[0];
        assert_eq!(c.hash, 0x9A61_37B7);
        assert!(c.rotation.is_none());
        let p = c.position.as_ref().unwrap();
        assert_eq!(p.frames, [0.0, 1.0, 13.0, 16.0]);
        assert_eq!(p.values[0], Vec3::new(0.25, -0.5, 1.0));
        assert!((p.values[1] - Vec3::new(0.25, 0.0, 1.0)).length() < 1e-6);
        assert!((p.values[2] - Vec3::new(0.25, 0.5, 1.0)).length() < 1e-6);
        assert_eq!(anim.meta.len(), 1);
        let head = anim.meta[0].head;
        assert_eq!((head.flags, head.fps, head.num_controllers), (2, 30, 1));
        assert_eq!(anim.meta[0].path.len(), 85);
        let pkg = to_model_with(&file, &Limits::default(), Decoding::default()).unwrap();
        assert_eq!(pkg.clips[0].name, "behr_lasercannon_s2_recoil");
        assert_eq!(pkg.clips[0].tracks[0].times, [0.0, 1.0 / 30.0, 13.0 / 30.0, 16.0 / 30.0]);
        let decodes_or_fails = |b: Vec<u8>| {
            if let Ok(f) = chunkfile::read(&Bytes::from(b), false) {
                let _ = to_model_with(&f, &Limits::default(), Decoding::default());
            }
        };
        for cut in 0..bytes.len() {
            decodes_or_fails(bytes[..cut].to_vec());
        }
        // Every single-byte corruption decodes or fails cleanly.
        for i in 0..bytes.len() {
            for v in [0u8, 0x7F, 0xFF] {
                let mut b = bytes.clone();
                b[i] = v;
                decodes_or_fails(b);
            }
        }
    }
}
