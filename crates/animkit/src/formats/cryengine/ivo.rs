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
use super::quat_codecs::decode_rotation;
use super::raw::Body;
use crate::bytes::{Cursor, Endian};
use crate::error::{Context, Error, Result};
use crate::text::latin1_until_nul;

/// AnimInfo 0x901 (48 B).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AnimInfo {
    pub flags: u32,
    pub fps: u16,
    pub num_bones: u16,
    pub end_frame: u32,
    pub start_rotation: Quat,
    pub start_position: Vec3,
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

impl C2Readings {
    /// The layout this track alone looks like: interleaved only when that reading is at least
    /// four times smoother.
    pub fn guess(&self) -> C2Layout {
        let [planar, interleaved] = self.roughness;
        if interleaved.saturating_mul(4) < planar {
            C2Layout::Interleaved
        } else {
            C2Layout::Planar
        }
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
            line.push_str(&format!(", {} of which alone look {}", self.disagreeing, other(self.layout).name()));
        }
        line.push(')');
        line
    }
}

fn other(layout: C2Layout) -> C2Layout {
    match layout {
        C2Layout::Planar => C2Layout::Interleaved,
        C2Layout::Interleaved => C2Layout::Planar,
    }
}

/// A `#caf` or `#dba` block.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub offset: usize,
    pub magic: u16,
    pub data_size: u32,
    pub controllers: Vec<IvoController>,
}

/// A DBAMeta entry.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MetaEntry {
    pub flags: u32,
    pub fps: u16,
    pub num_controllers: u16,
    pub end_frame: Option<u32>,
    pub start_rotation: Quat,
    pub start_position: Vec3,
    pub path: String,
}

/// A decoded `#ivo` animation file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IvoAnimation {
    pub info: Option<AnimInfo>,
    pub blocks: Vec<Block>,
    pub meta: Vec<MetaEntry>,
    /// The C2 layout of the file's ambiguous tracks; `None` when it has none.
    pub c2: Option<C2Decision>,
}

fn times_at(buf: &[u8], at: usize, format: u16, n: usize, fallback: &mut bool) -> Result<Vec<f32>> {
    let mut c = Cursor::new(buf, Endian::Little);
    c.seek(at)?;
    match format {
        0 => {
            let n = c.count(n as u64, 1, "key time")?;
            (0..n).map(|_| c.u8().map(f32::from)).collect()
        }
        1 => {
            let n = c.count(n as u64, 2, "key time")?;
            (0..n).map(|_| c.u16().map(f32::from)).collect()
        }
        2 => {
            let start = c.u16()?;
            let end = c.u16()?;
            let span = usize::from(
                end.checked_sub(start)
                    .ok_or_else(|| Error::invalid(at, format!("time bitmap end {end} is before its start {start}")))?,
            ) + 1;
            let bytes = c.take(span.div_ceil(8))?;
            let mut out = Vec::with_capacity(n.min(span));
            for b in 0..span {
                if bytes.get(b / 8).is_some_and(|&x| x & (1 << (b % 8)) != 0) {
                    out.push(f32::from(start) + b as f32);
                }
            }
            if out.len() != n {
                // §9.5: fall back to even spacing over [start, end] and report it.
                *fallback = true;
                let (s, e) = (f32::from(start), f32::from(end));
                out = (0..n).map(|i| if n > 1 { s + (e - s) * i as f32 / (n - 1) as f32 } else { s }).collect();
            }
            Ok(out)
        }
        f => Err(Error::unsupported(format!("#ivo time format {f}")).within(format!("at {at}"))),
    }
}

fn f32_at(c: &mut Cursor) -> Result<f32> {
    c.f32()
}

fn rotations_at(buf: &[u8], at: usize, codec: u16, n: usize) -> Result<Vec<Quat>> {
    let mut c = Cursor::new(buf, Endian::Little);
    c.seek(at)?;
    let size = match codec {
        0x80 => 16,
        0x82 => 6,
        x => return Err(Error::unsupported(format!("#ivo rotation codec 0x{x:02X}")).within(format!("at {at}"))),
    };
    let n = c.count(n as u64, size, "rotation key")?;
    let fmt = if codec == 0x80 { 1 } else { 5 };
    (0..n).map(|_| decode_rotation(fmt, c.take(size)?)).collect()
}

/// Sum of |second differences| of one axis read through `value(k)`: large for a sawtooth.
fn roughness(n: usize, value: impl Fn(usize) -> u16) -> u64 {
    (1..n.saturating_sub(1))
        .map(|k| (i64::from(value(k + 1)) - 2 * i64::from(value(k)) + i64::from(value(k - 1))).unsigned_abs())
        .sum()
}

/// Position keys (C2 read planar), and both C2 readings when the layout is ambiguous.
fn positions_at(buf: &[u8], at: usize, codec: u16, n: usize) -> Result<(Vec<Vec3>, Option<C2Readings>)> {
    let mut c = Cursor::new(buf, Endian::Little);
    c.seek(at)?;
    match codec {
        0xC0 => {
            let n = c.count(n as u64, 12, "position key")?;
            let keys = (0..n).map(|_| Ok(Vec3::new(f32_at(&mut c)?, f32_at(&mut c)?, f32_at(&mut c)?)));
            Ok((keys.collect::<Result<_>>()?, None))
        }
        0xC1 | 0xC2 => {
            let scale = [c.f32()?, c.f32()?, c.f32()?];
            let offset = [c.f32()?, c.f32()?, c.f32()?];
            let active = scale.map(|s| s.abs() < 3e38);
            if codec == 0xC1 {
                return Ok((c1_positions(&mut c, n, scale, offset, active)?, None));
            }
            // The active axes with their scale and offset.
            let axes: Vec<(usize, f32, f32)> = (0..3)
                .zip(active)
                .zip(scale.iter().zip(offset))
                .filter(|&((_, on), _)| on)
                .map(|((axis, _), (&s, o))| (axis, s, o))
                .collect();
            let m = axes.len();
            c.count((n * m) as u64, 2, "position value")?;
            let raw: Vec<u16> = (0..n * m).map(|_| c.u16()).collect::<Result<_>>()?;
            let planar = |a: usize, k: usize| raw.get(a * n + k).copied().unwrap_or(0);
            let interleaved = |a: usize, k: usize| raw.get(k * m + a).copied().unwrap_or(0);
            // n is a u16 key count: the allocations are bounded.
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
        x => Err(Error::unsupported(format!("#ivo position codec 0x{x:02X}")).within(format!("at {at}"))),
    }
}

/// C1 keys: `u16 x, y, z` per key; an inactive axis keeps its offset.
fn c1_positions(c: &mut Cursor, n: usize, scale: [f32; 3], offset: [f32; 3], active: [bool; 3]) -> Result<Vec<Vec3>> {
    c.count(n as u64, 6, "position key")?;
    let mut out = vec![Vec3::from(offset); n];
    for v in out.iter_mut() {
        let mut xyz = v.to_array();
        for (((x, &on), &s), &o) in xyz.iter_mut().zip(&active).zip(&scale).zip(&offset) {
            let raw = f32::from(c.u16()?);
            if on {
                *x = raw * s + o;
            }
        }
        *v = Vec3::from_array(xyz);
    }
    Ok(out)
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
    let [planar, interleaved] = tracks()
        .fold([0u64; 2], |acc, r| [acc[0].saturating_add(r.roughness[0]), acc[1].saturating_add(r.roughness[1])]);
    let decided = if interleaved.saturating_mul(4) < planar { C2Layout::Interleaved } else { C2Layout::Planar };
    let layout = forced.unwrap_or(decided);
    let disagreeing = tracks().filter(|r| r.guess() != layout).count();
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

/// A located track: frames, codec, absolute data offset, key count.
type TrackRef = (Vec<f32>, u16, usize, usize);

/// Reads the block at `at` of the whole-file buffer `buf`.
fn block(buf: &[u8], at: usize, sig: &[u8; 4]) -> Result<Block> {
    let mut c = Cursor::new(buf, Endian::Little);
    c.seek(at)?;
    if c.take(4)? != sig {
        return Err(Error::invalid(at, format!("expected a {} block", String::from_utf8_lossy(sig))));
    }
    let n = usize::from(c.u16()?);
    let magic = c.u16()?;
    let data_size = c.u32()?;
    c.count(n as u64, 28, "bone")?;
    let hashes: Vec<u32> = (0..n).map(|_| c.u32()).collect::<Result<_>>()?;
    let mut controllers = Vec::with_capacity(n);
    for (i, &hash) in hashes.iter().enumerate() {
        let entry = c.offset();
        let ctrl = (|| -> Result<IvoController> {
            let mut fallback = false;
            let mut tracks: [Option<TrackRef>; 2] = [None, None];
            for slot in &mut tracks {
                let n = usize::from(c.u16()?);
                let flags = c.u16()?;
                let time_off = c.u32()? as usize;
                let data_off = c.u32()? as usize;
                if flags == 0 || n == 0 {
                    continue;
                }
                let times = if time_off == 0 {
                    (0..n).map(|k| k as f32).collect()
                } else {
                    times_at(buf, entry + time_off, flags & 0xF, n, &mut fallback).within(|| "key times")?
                };
                *slot = Some((times, flags >> 8, entry + data_off, n));
            }
            let [rot, pos] = tracks;
            let rotation = match rot {
                Some((frames, codec, at, n)) => {
                    Some(KeyTrack { frames, values: rotations_at(buf, at, codec, n).within(|| "rotation keys")? })
                }
                None => None,
            };
            let mut c2 = None;
            let position = match pos {
                Some((frames, codec, at, n)) => {
                    let (values, readings) = positions_at(buf, at, codec, n).within(|| "position keys")?;
                    c2 = readings;
                    Some(KeyTrack { frames, values })
                }
                None => None,
            };
            Ok(IvoController { hash, rotation, position, bitmap_fallback: fallback, c2 })
        })()
        .within(|| format!("controller {i} (0x{hash:08X})"))?;
        controllers.push(ctrl);
    }
    Ok(Block { offset: at, magic, data_size, controllers })
}

fn quat(c: &mut Cursor) -> Result<Quat> {
    Ok(Quat::from_xyzw(c.f32()?, c.f32()?, c.f32()?, c.f32()?))
}

fn vec3(c: &mut Cursor) -> Result<Vec3> {
    Ok(Vec3::new(c.f32()?, c.f32()?, c.f32()?))
}

fn meta(payload: &[u8], base: usize, version: u32) -> Result<Vec<MetaEntry>> {
    let mut c = Cursor::with_base(payload, base, Endian::Little);
    let count = c.u32()?;
    if version == 0x902 {
        c.skip(4)?;
    }
    let size = if version == 0x902 { 48 } else { 44 };
    let n = c.count(u64::from(count), size, "metadata entry")?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        let mut e = MetaEntry { flags: c.u32()?, fps: c.u16()?, num_controllers: c.u16()?, ..Default::default() };
        c.skip(8)?;
        if version == 0x902 {
            e.end_frame = Some(c.u32()?);
        }
        e.start_rotation = quat(&mut c)?;
        e.start_position = vec3(&mut c)?;
        entries.push(e);
    }
    let mut rest = c.rest();
    for e in &mut entries {
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        e.path = latin1_until_nul(rest.get(..end).unwrap_or_default());
        rest = rest.get(end + 1..).unwrap_or_default();
    }
    Ok(entries)
}

/// Decodes the animation chunks of an `#ivo` file; the C2 layout is `c2_layout`, or decided
/// once for the whole file when `None` (spec §10.1 C1).
pub fn parse(file: &ChunkFile, c2_layout: Option<C2Layout>) -> Result<IvoAnimation> {
    let buf = file.write()?;
    let mut out = IvoAnimation::default();
    for (i, ch) in file.chunks.iter().enumerate() {
        let base = ch.offset as usize;
        let (version, _) = ch.version_and_endian(file.container);
        let r: Result<()> = (|| {
            match ch.chunk_type {
                kind::IVO_ANIM_INFO => {
                    if let Body::IvoAnimInfo(i) = ch.structure(file.container)?.as_ref() {
                        let (q, p) = (i.start_rotation, i.start_position);
                        out.info = Some(AnimInfo {
                            flags: i.flags,
                            fps: i.fps,
                            num_bones: i.num_bones,
                            end_frame: i.end_frame,
                            start_rotation: Quat::from_xyzw(q.x.0, q.y.0, q.z.0, q.w.0),
                            start_position: Vec3::new(p.x.0, p.y.0, p.z.0),
                        });
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
                kind::IVO_DBA_META => out.meta = meta(&ch.payload(file.container)?, base, version)?,
                _ => {}
            }
            Ok(())
        })();
        r.within(|| format!("#ivo chunk {i} (type 0x{:08X})", ch.chunk_type))?;
    }
    out.c2 = decide_c2(&mut out.blocks, c2_layout);
    Ok(out)
}

/// One bone for [`write_blocks`]: hash and key tracks (frames).
pub struct WriteBone {
    pub hash: u32,
    pub rotation: Option<KeyTrack<Quat>>,
    pub position: Option<KeyTrack<Vec3>>,
}

fn ivo_times(frames: &[f32]) -> Result<(u16, Vec<u8>)> {
    let whole = frames.iter().all(|f| f.fract() == 0.0 && *f >= 0.0);
    if !whole {
        return Err(Error::unrepresentable("#ivo key times are whole frames"));
    }
    if frames.iter().all(|&f| f < 256.0) {
        Ok((0, frames.iter().map(|&f| f as u8).collect()))
    } else if frames.iter().all(|&f| f < 65536.0) {
        Ok((1, frames.iter().flat_map(|&f| (f as u16).to_le_bytes()).collect()))
    } else {
        Err(Error::unrepresentable("#ivo key frames above 65535"))
    }
}

fn pad4(v: &mut Vec<u8>) {
    v.resize(crate::bytes::round_up(v.len(), 4), 0);
}

/// Writes `#caf`/`#dba` blocks (§9.7): all block headers, hashes and entries first, then the
/// key data pool; arrays padded to 4; flags keep bit 0x40; `dataSize` = header, hashes, entries
/// and the block's own data; magic 0xAA55. Offsets are relative to each entry, so the bytes can
/// go anywhere in the chunk.
pub fn write_blocks(blocks: &[Vec<WriteBone>], sig: &[u8; 4], rot_codec: u16) -> Result<Vec<u8>> {
    let headers: usize = blocks.iter().map(|b| 12 + 28 * b.len()).sum();
    let mut head = Vec::with_capacity(headers);
    let mut pool = Vec::new();
    for bones in blocks {
        let n = u16::try_from(bones.len()).map_err(|_| Error::unrepresentable("more than 65535 bones in a block"))?;
        let start = head.len();
        head.extend_from_slice(sig);
        head.extend_from_slice(&n.to_le_bytes());
        head.extend_from_slice(&0xAA55u16.to_le_bytes());
        head.extend_from_slice(&0u32.to_le_bytes());
        for b in bones {
            head.extend_from_slice(&b.hash.to_le_bytes());
        }
        let pool_before = pool.len();
        for b in bones {
            let entry = head.len();
            let mut track = |n: usize, flags: u16, times: Vec<u8>, data: Vec<u8>, head: &mut Vec<u8>| -> Result<()> {
                let n =
                    u16::try_from(n).map_err(|_| Error::unrepresentable("more than 65535 keys in an #ivo track"))?;
                let rel = |abs: usize| {
                    u32::try_from(abs - entry).map_err(|_| Error::unrepresentable("#ivo offsets above 4 GiB"))
                };
                let t = headers + pool.len();
                pool.extend_from_slice(&times);
                pad4(&mut pool);
                let d = headers + pool.len();
                pool.extend_from_slice(&data);
                pad4(&mut pool);
                head.extend_from_slice(&n.to_le_bytes());
                head.extend_from_slice(&flags.to_le_bytes());
                head.extend_from_slice(&rel(t)?.to_le_bytes());
                head.extend_from_slice(&rel(d)?.to_le_bytes());
                Ok(())
            };
            match b.rotation.as_ref().filter(|r| !r.frames.is_empty()) {
                Some(r) => {
                    let (tf, times) = ivo_times(&r.frames)?;
                    let mut data = Vec::new();
                    for &q in &r.values {
                        super::quat_codecs::encode_rotation(if rot_codec == 0x80 { 1 } else { 5 }, q, &mut data)?;
                    }
                    track(r.values.len(), rot_codec << 8 | 0x40 | tf, times, data, &mut head)?;
                }
                None => head.extend_from_slice(&[0; 12]),
            }
            match b.position.as_ref().filter(|p| !p.frames.is_empty()) {
                Some(p) => {
                    let (tf, times) = ivo_times(&p.frames)?;
                    let data = p.values.iter().flat_map(|v| v.to_array()).flat_map(f32::to_le_bytes).collect();
                    track(p.values.len(), 0xC0 << 8 | 0x40 | tf, times, data, &mut head)?;
                }
                None => head.extend_from_slice(&[0; 12]),
            }
        }
        let size = u32::try_from(12 + 28 * bones.len() + pool.len() - pool_before)
            .map_err(|_| Error::unrepresentable("an #ivo block above 4 GiB"))?;
        // The dataSize field written as 0 at `start + 8` above (as `Writer::patch_u32`).
        if let Some(field) = head.get_mut(start + 8..start + 12) {
            field.copy_from_slice(&size.to_le_bytes());
        }
    }
    head.extend_from_slice(&pool);
    Ok(head)
}

/// DBAMeta 0x901 for the blocks: `count`, 44-byte entries, NUL-terminated paths, padding to 4.
pub fn dba_meta(entries: &[(u16, String)]) -> Result<Vec<u8>> {
    let mut v = (entries.len() as u32).to_le_bytes().to_vec();
    for (n, _) in entries {
        v.extend_from_slice(&0u32.to_le_bytes());
        v.extend_from_slice(&30u16.to_le_bytes());
        v.extend_from_slice(&n.to_le_bytes());
        v.extend_from_slice(&[0; 8]);
        for f in [0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0] {
            v.extend_from_slice(&f.to_le_bytes());
        }
    }
    for (_, path) in entries {
        let p = crate::text::to_latin1(path).ok_or_else(|| Error::unrepresentable(format!("path \"{path}\"")))?;
        v.extend_from_slice(&p);
        v.push(0);
    }
    pad4(&mut v);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Limits;
    use crate::formats::cryengine::chunkfile;
    use crate::formats::cryengine::model::{to_model_with, Decoding};
    use crate::model::Values;
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
        let (got, readings) = positions_at(&planar, 0, 0xC2, n as usize).unwrap();
        let readings = readings.unwrap();
        assert_eq!((&got, &readings.planar, readings.guess()), (&expect, &expect, C2Layout::Planar));
        let (_, readings) = positions_at(&interleaved, 0, 0xC2, n as usize).unwrap();
        let readings = readings.unwrap();
        assert_eq!((&readings.interleaved, readings.guess()), (&expect, C2Layout::Interleaved));
    }

    #[test]
    fn behr_laser_cannon_test_vector() {
        let bytes = behr();
        assert_eq!(bytes.len(), 264);
        // 12 + 4 + 24 + 4 + (24 + 4 × 2) = 76: one active axis, dataSize includes the header.
        assert_eq!(12 + 4 + 24 + 4 + (24 + 4 * 2), 76);
        let file = chunkfile::read(&Bytes::from(bytes.clone())).unwrap();
        assert_eq!(file.write().unwrap(), bytes);
        assert_eq!(file.chunks.len(), 2);
        let anim = parse(&file, None).unwrap();
        assert_eq!(anim.blocks.len(), 1);
        let b = &anim.blocks[0];
        assert_eq!((b.magic, b.data_size, b.offset), (0xAA55, 76, 0x34));
        let c = &b.controllers[0];
        assert_eq!(c.hash, 0x9A61_37B7);
        assert!(c.rotation.is_none());
        let p = c.position.as_ref().unwrap();
        assert_eq!(p.frames, [0.0, 1.0, 13.0, 16.0]);
        assert_eq!(p.values[0], Vec3::new(0.25, -0.5, 1.0));
        assert!((p.values[1] - Vec3::new(0.25, 0.0, 1.0)).length() < 1e-6);
        assert!((p.values[2] - Vec3::new(0.25, 0.5, 1.0)).length() < 1e-6);
        assert_eq!(anim.meta.len(), 1);
        assert_eq!((anim.meta[0].flags, anim.meta[0].fps, anim.meta[0].num_controllers), (2, 30, 1));
        assert_eq!(anim.meta[0].path.len(), 85);
        let pkg = to_model_with(&file, &Limits::default(), Decoding::default()).unwrap();
        assert_eq!(pkg.clips[0].name, "behr_lasercannon_s2_recoil");
        assert_eq!(pkg.clips[0].tracks[0].times, [0.0, 1.0 / 30.0, 13.0 / 30.0, 16.0 / 30.0]);
        for cut in 0..bytes.len() {
            if let Ok(f) = chunkfile::read(&Bytes::from(bytes[..cut].to_vec())) {
                let _ = to_model_with(&f, &Limits::default(), Decoding::default());
            }
        }
        // Every single-byte corruption decodes or fails cleanly.
        for i in 0..bytes.len() {
            for v in [0u8, 0x7F, 0xFF] {
                let mut b = bytes.clone();
                b[i] = v;
                if let Ok(f) = chunkfile::read(&Bytes::from(b)) {
                    let _ = to_model_with(&f, &Limits::default(), Decoding::default());
                }
            }
        }
    }

    #[test]
    fn caf_with_bitmap_times_and_smalltree48() {
        // AnimInfo (fps 30, 1 bone, endFrame 16) + CAFData: one bone with rotation 0x8242
        // (bitmap `00 00 10 00 03 20 01` → frames 0, 1, 13, 16; §9.5) and position 0xC140.
        let mut f = b"#ivo".to_vec();
        for w in [0x900u32, 2, 16] {
            f.extend(w.to_le_bytes());
        }
        f.extend([0xED, 0xC6, 0x33, 0x47, 0x01, 0x09, 0, 0, 0x30, 0, 0, 0, 0, 0, 0, 0]);
        f.extend([0xB5, 0x6C, 0x49, 0xA9, 0x00, 0x09, 0, 0, 0x60, 0, 0, 0, 0, 0, 0, 0]);
        f.extend(0u32.to_le_bytes());
        f.extend(30u16.to_le_bytes());
        f.extend(1u16.to_le_bytes());
        f.extend(0u32.to_le_bytes());
        f.extend(16u32.to_le_bytes());
        for v in [0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0] {
            f.extend(v.to_le_bytes());
        }
        assert_eq!(f.len(), 0x60);
        f.extend(b"#caf");
        f.extend(1u16.to_le_bytes());
        f.extend(0xFFFFu16.to_le_bytes());
        f.extend(0u32.to_le_bytes());
        f.extend(crate::formats::cryengine::quat_codecs::controller_id("Bip01").to_le_bytes());
        let entry = f.len(); // 0x70
                             // rotation: 4 keys, flags 0x8242, times at entry+24, data at entry+32
        f.extend(4u16.to_le_bytes());
        f.extend(0x8242u16.to_le_bytes());
        f.extend(24u32.to_le_bytes());
        f.extend(32u32.to_le_bytes());
        // position: 2 keys, flags 0xC140, times 0 (0..n-1), data at entry+56
        f.extend(2u16.to_le_bytes());
        f.extend(0xC140u16.to_le_bytes());
        f.extend(0u32.to_le_bytes());
        f.extend(56u32.to_le_bytes());
        assert_eq!(f.len(), entry + 24);
        f.extend([0, 0, 0x10, 0, 0x03, 0x20, 0x01, 0]);
        // (1,2,3,4)/√30 in SmallTree48 (§5.2 vector) four times.
        for _ in 0..4 {
            f.extend([0x86, 0x50, 0x86, 0xB0, 0x64, 0xDC]);
        }
        assert_eq!(f.len(), entry + 56);
        for v in [1.0f32, f32::MAX, 2.0, 0.5, 7.0, -1.0] {
            f.extend(v.to_le_bytes());
        }
        for xyz in [[0u16, 9, 0], [4, 9, 1]] {
            for v in xyz {
                f.extend(v.to_le_bytes());
            }
        }
        let file = chunkfile::read(&Bytes::from(f.clone())).unwrap();
        assert_eq!(file.write().unwrap(), f);
        let pkg = to_model_with(&file, &Limits::default(), Decoding::default()).unwrap();
        let clip = &pkg.clips[0];
        assert!((clip.duration - 16.0 / 30.0).abs() < 1e-6);
        assert_eq!(clip.tracks[0].times, [0.0, 1.0 / 30.0, 13.0 / 30.0, 16.0 / 30.0]);
        let Values::Rotation(q) = &clip.tracks[0].values else { panic!() };
        assert!((q[0].x - 0.182_578).abs() < 1e-5);
        let Values::Translation(p) = &clip.tracks[1].values else { panic!() };
        // x = u16 × 1 + 0.5; y inactive → offset 7; z = u16 × 2 − 1.
        assert_eq!(p[0], Vec3::new(0.5, 7.0, -1.0));
        assert_eq!(p[1], Vec3::new(4.5, 7.0, 1.0));
        assert_eq!(clip.tracks[1].times, [0.0, 1.0 / 30.0]);
    }
}
