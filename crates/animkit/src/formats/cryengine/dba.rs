//! DBA track database: controller 0x905 (`cryengine.md` §7; CE5/LY `LoaderDBA.cpp`).
//!
//! Tracks are grouped by format in enum order; time, position and rotation tracks are shared by
//! all clips of the database, which refer to them by index in their controller infos. The writer
//! shares them too: identical tracks (same format and bytes) are stored once, as CryEngine's
//! compiler does; without that a corpus DBA rewritten from the model grew by 39 %.

use std::collections::HashMap;

use glam::{Quat, Vec3};

use super::controller::KeyTrack;
use super::quat_codecs::{decode_position, decode_rotations, position_size, rotation_size};
use super::raw::MotionParams;
use super::time_formats;
use crate::bytes::{round_up, Cursor, Endian};
use crate::error::{Context, Error, Result};
use crate::record::Record;
use crate::text::latin1_until_nul;

/// One clip of the database.
#[derive(Debug, Clone, PartialEq)]
pub struct DbaAnimation {
    pub path: String,
    pub motion: MotionParams,
    pub controllers: Vec<DbaController>,
}

/// One bone's channels in a clip.
#[derive(Debug, Clone, PartialEq)]
pub struct DbaController {
    pub id: u32,
    pub rotation: Option<KeyTrack<Quat>>,
    pub position: Option<KeyTrack<Vec3>>,
}

/// The decoded database.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dba {
    pub animations: Vec<DbaAnimation>,
    pub time_formats: Vec<u8>,
    pub in_place: bool,
}

/// The format of track `i` given per-format counts (tracks grouped by format in enum order).
fn format_of(i: usize, counts: &[u32]) -> Option<u8> {
    let mut acc = 0usize;
    for (f, &n) in counts.iter().enumerate() {
        acc += n as usize;
        if i < acc {
            return Some(f as u8);
        }
    }
    None
}

const NONE: u32 = 0xFFFF_FFFF;

/// Parses a 0x905 payload (embedded header stripped); `base` is its absolute offset.
pub fn parse(payload: &[u8], base: usize, endian: Endian) -> Result<Dba> {
    if endian == Endian::Big {
        return Err(Error::new(
            crate::error::ErrorKind::Unsupported,
            Some(base as u64),
            "big-endian DBA 0x905 (chunk version bit set): the engine's DBA loader rejects it too",
        ));
    }
    parse_inner(payload, base).within(|| "DBA 0x905")
}

/// The track tables of a 0x905 payload: key counts, per-format counts and blob offsets of the
/// time, position and rotation tracks.
struct Tables {
    kt_sizes: Vec<u16>,
    kt_counts: Vec<u32>,
    pos_sizes: Vec<u16>,
    pos_counts: Vec<u32>,
    rot_sizes: Vec<u16>,
    rot_counts: Vec<u32>,
    kt_offsets: Vec<i32>,
    pos_offsets: Vec<i32>,
    rot_offsets: Vec<i32>,
}

/// The shared track data and how to find a track in it.
struct Blob<'a> {
    tables: Tables,
    data: &'a [u8],
    /// Absolute offset of `data`.
    at: usize,
    /// Offsets count back from the blob's end (in-place databases).
    in_place: bool,
    /// Absolute offset of the payload, for errors.
    base: usize,
}

fn tables(c: &mut Cursor) -> Result<(Tables, u32)> {
    let num_pos = c.u32()?;
    let num_rot = c.u32()?;
    let num_time = c.u32()?;
    let num_anims = c.u32()?;
    fn u16s(c: &mut Cursor, n: u32, what: &str) -> Result<Vec<u16>> {
        let n = c.count(u64::from(n), 2, what)?;
        (0..n).map(|_| c.u16()).collect()
    }
    fn u32s(c: &mut Cursor, n: usize) -> Result<Vec<u32>> {
        (0..n).map(|_| c.u32()).collect()
    }
    fn i32s(c: &mut Cursor, n: u64, what: &str) -> Result<Vec<i32>> {
        let n = c.count(n, 4, what)?;
        (0..n).map(|_| c.i32()).collect()
    }
    let tables = Tables {
        kt_sizes: u16s(c, num_time, "time track")?,
        kt_counts: u32s(c, 7)?,
        pos_sizes: u16s(c, num_pos, "position track")?,
        pos_counts: u32s(c, 9)?,
        rot_sizes: u16s(c, num_rot, "rotation track")?,
        rot_counts: u32s(c, 9)?,
        kt_offsets: i32s(c, u64::from(num_time), "time offset")?,
        pos_offsets: i32s(c, u64::from(num_pos), "position offset")?,
        rot_offsets: i32s(c, u64::from(num_rot) + 1, "rotation offset")?,
    };
    Ok((tables, num_anims))
}

/// Reads the tables and locates the blob: after the tables (aligned to 4), or at the payload's
/// end when the total size is negative (in-place), with a padding length after the tables.
fn blob<'a>(c: &mut Cursor<'a>, payload: &'a [u8], base: usize) -> Result<(Blob<'a>, u32)> {
    let (tables, num_anims) = tables(c)?;
    let total = *tables.rot_offsets.last().unwrap_or(&0);
    let in_place = total < 0;
    let padding_len = if in_place { c.u32()? as usize } else { 0 };
    c.seek(round_up(c.pos(), 4))?;
    let blob_len = total.unsigned_abs() as usize;
    let (data, at) = if in_place {
        let start = payload
            .len()
            .checked_sub(blob_len)
            .ok_or_else(|| Error::invalid(base, "in-place blob larger than the chunk"))?;
        c.skip(padding_len)?;
        (payload.get(start..).unwrap_or_default(), base + start)
    } else {
        let at = c.offset();
        let b = c.take(round_up(blob_len, 4))?;
        (b.get(..blob_len).unwrap_or_default(), at)
    };
    Ok((Blob { tables, data, at, in_place, base }, num_anims))
}

impl Blob<'_> {
    /// The blob offset of track `i` in `offsets`.
    fn track(&self, offsets: &[i32], i: usize) -> Result<usize> {
        let o = *offsets.get(i).ok_or_else(|| Error::invalid(self.base, format!("track {i} does not exist")))?;
        let o = if self.in_place { i64::from(o) + self.data.len() as i64 } else { i64::from(o) };
        usize::try_from(o).ok().filter(|&o| o <= self.data.len()).ok_or_else(|| {
            Error::invalid(self.at, format!("track {i} offset {o} is outside the {}-byte blob", self.data.len()))
        })
    }

    /// The key count of a StartStop time track: `stop − start + 1`.
    fn start_stop_keys(&self, f: u8, data: &[u8], at: usize) -> Result<usize> {
        let e = time_formats::element_size(f).unwrap_or(1);
        let rd = |k: usize| -> Option<f32> {
            let b = data.get(k * e..k * e + e)?;
            Some(match f {
                3 => f32::from_le_bytes(*b.first_chunk()?),
                4 => f32::from(u16::from_le_bytes(*b.first_chunk()?)),
                _ => f32::from(*b.first()?),
            })
        };
        match (rd(0), rd(1)) {
            (Some(a), Some(z)) if z >= a && (z - a) < 1e6 => Ok((z - a) as usize + 1),
            _ => Err(Error::invalid(self.at + at, "bad start/stop time track")),
        }
    }

    /// Time track `i` in frames.
    fn times(&self, i: u32) -> Result<Vec<f32>> {
        let i = i as usize;
        let t = &self.tables;
        let f = format_of(i, &t.kt_counts)
            .ok_or_else(|| Error::invalid(self.base, format!("time track {i} has no format")))?;
        let at = self.track(&t.kt_offsets, i)?;
        let data = self.data.get(at..).unwrap_or_default();
        let n = match f {
            time_formats::BITSET => {
                let Some(&[_, _, _, _, lo, hi]) = data.first_chunk::<6>() else {
                    return Err(Error::truncated(self.at + at, 6, data.len()));
                };
                usize::from(u16::from_le_bytes([lo, hi]))
            }
            3..=5 => self.start_stop_keys(f, data, at)?,
            _ => usize::from(*t.kt_sizes.get(i).unwrap_or(&0)),
        };
        time_formats::decode(f, n, data, self.at + at).within(|| format!("time track {i}"))
    }

    /// Value track `i` (rotation or position): format, bytes, key count.
    fn values(&self, i: u32, rotation: bool) -> Result<(u8, &[u8], usize)> {
        let i = i as usize;
        let t = &self.tables;
        let (counts, sizes, offsets) = if rotation {
            (&t.rot_counts, &t.rot_sizes, &t.rot_offsets)
        } else {
            (&t.pos_counts, &t.pos_sizes, &t.pos_offsets)
        };
        let f =
            format_of(i, counts).ok_or_else(|| Error::invalid(self.base, format!("value track {i} has no format")))?;
        let n = usize::from(
            *sizes.get(i).ok_or_else(|| Error::invalid(self.base, format!("value track {i} does not exist")))?,
        );
        let at = self.track(offsets, i)?;
        let e = if rotation { rotation_size(f) } else { position_size(f) }
            .ok_or_else(|| Error::unsupported(format!("value format {f} in track {i}")))?;
        let data =
            self.data.get(at..at + n * e).ok_or_else(|| Error::truncated(self.at + at, n * e, self.data.len() - at))?;
        Ok((f, data, n))
    }

    /// One bone's channels from its controller info `[pos time, pos, rot time, rot]`.
    fn controller(&self, id: u32, [pt, pv, rt, rv]: [u32; 4]) -> Result<DbaController> {
        let keys = |frames: &[f32], n: usize, what: &str| {
            if frames.len() == n {
                Ok(())
            } else {
                Err(Error::invalid(self.at, format!("{n} {what} keys, {} times", frames.len())))
            }
        };
        let mut rotation = None;
        if rt != NONE && rv != NONE {
            let frames = self.times(rt)?;
            let (f, data, n) = self.values(rv, true)?;
            keys(&frames, n, "rotation")?;
            rotation = Some(KeyTrack { frames, values: decode_rotations(f, data, Endian::Little)? });
        }
        let mut position = None;
        if pt != NONE && pv != NONE {
            let frames = self.times(pt)?;
            let (f, data, n) = self.values(pv, false)?;
            keys(&frames, n, "position")?;
            let e = position_size(f).unwrap_or(12);
            let values = data.chunks_exact(e).map(|b| decode_position(f, b)).collect::<Result<Vec<_>>>()?;
            position = Some(KeyTrack { frames, values });
        }
        Ok(DbaController { id, rotation, position })
    }
}

/// One clip record: path, `MotionParams905`, foot plants, and its controller infos (inline, or
/// at an offset from the first record in in-place databases).
fn animation(c: &mut Cursor, blob: &Blob, payload: &[u8], records_start: usize) -> Result<DbaAnimation> {
    let len = c.u16()?;
    let path = latin1_until_nul(c.take(usize::from(len))?);
    let motion = MotionParams::read(c)?;
    let fp = c.u16()?;
    c.skip(usize::from(fp))?;
    let n = c.u16()?;
    let mut infos = Cursor::with_base(payload, blob.base, Endian::Little);
    if blob.in_place {
        let off = c.i32()?;
        let at = usize::try_from(records_start as i64 + i64::from(off))
            .map_err(|_| Error::invalid(c.offset(), "negative controller info offset"))?;
        infos.seek(at)?;
    } else {
        infos.seek(c.pos())?;
        c.skip(c.count(u64::from(n), 20, "controller info")? * 20)?;
    }
    let n = infos.count(u64::from(n), 20, "controller info")?;
    let mut controllers = Vec::with_capacity(n);
    for k in 0..n {
        let id = infos.u32()?;
        let info = [infos.u32()?, infos.u32()?, infos.u32()?, infos.u32()?];
        controllers.push(blob.controller(id, info).within(|| format!("controller {k} (0x{id:08X})"))?);
    }
    Ok(DbaAnimation { path, motion, controllers })
}

fn parse_inner(payload: &[u8], base: usize) -> Result<Dba> {
    let mut c = Cursor::with_base(payload, base, Endian::Little);
    let (blob, num_anims) = blob(&mut c, payload, base)?;
    let records_start = c.pos();
    let n_anims = c.count(u64::from(num_anims), 2 + 132 + 2 + 2, "animation")?;
    let mut animations = Vec::with_capacity(n_anims);
    for a in 0..n_anims {
        animations.push(animation(&mut c, &blob, payload, records_start).within(|| format!("animation {a}"))?);
    }
    let t = &blob.tables;
    let time_formats = (0..t.kt_sizes.len()).filter_map(|i| format_of(i, &t.kt_counts)).collect();
    Ok(Dba { animations, time_formats, in_place: blob.in_place })
}

/// Channels of one bone of one clip for [`write()`]: frames and values.
pub struct WriteController {
    pub id: u32,
    pub rotation: Option<KeyTrack<Quat>>,
    pub position: Option<KeyTrack<Vec3>>,
}

/// One clip for [`write()`].
pub struct WriteAnimation {
    pub path: String,
    pub motion: MotionParams,
    pub controllers: Vec<WriteController>,
}

/// One encoded track of the blob.
#[derive(PartialEq, Eq, Hash)]
struct T {
    format: u8,
    keys: usize,
    bytes: Vec<u8>,
}

/// The tracks of one kind (time, position or rotation), each stored once: CryEngine's compiler
/// shares identical tracks between the clips of a database, which refer to them by index.
#[derive(Default)]
struct Pool {
    tracks: Vec<T>,
    index: HashMap<T, u32>,
}

impl Pool {
    /// The index of `track`, added unless an identical one is already there.
    fn add(&mut self, track: T) -> u32 {
        if let Some(&i) = self.index.get(&track) {
            return i;
        }
        let i = self.tracks.len() as u32;
        self.tracks.push(T { format: track.format, keys: track.keys, bytes: track.bytes.clone() });
        self.index.insert(track, i);
        i
    }
}

/// Builds a 0x905 payload (not in-place): time tracks grouped by format (F32, UINT16, Byte),
/// positions NoCompressVec3, rotations in `rot_format`; each track aligned to 4 in the blob;
/// identical tracks stored once and shared.
pub fn write(anims: &[WriteAnimation], rot_format: u8) -> Result<Vec<u8>> {
    use super::quat_codecs::{encode_position, encode_rotation};
    let (mut times, mut poss, mut rots) = (Pool::default(), Pool::default(), Pool::default());
    // Per controller: (id, pos time, pos, rot time, rot) as indices into the unsorted lists.
    let mut infos: Vec<Vec<[u32; 5]>> = Vec::new();
    let time_track = |frames: &[f32]| -> Result<T> {
        let whole = frames.iter().all(|f| f.fract() == 0.0 && *f >= 0.0);
        let format = if whole && frames.iter().all(|&f| f < 256.0) {
            time_formats::BYTE
        } else if whole && frames.iter().all(|&f| f < 65536.0) {
            time_formats::UINT16
        } else {
            time_formats::F32
        };
        Ok(T { format, keys: frames.len(), bytes: time_formats::encode(format, frames)? })
    };
    for a in anims {
        let mut list = Vec::new();
        for c in &a.controllers {
            let mut info = [c.id, NONE, NONE, NONE, NONE];
            if let Some(p) = c.position.as_ref().filter(|p| !p.frames.is_empty()) {
                info[1] = times.add(time_track(&p.frames)?);
                let mut bytes = Vec::new();
                p.values.iter().for_each(|&v| encode_position(v, &mut bytes));
                info[2] = poss.add(T { format: 2, keys: p.values.len(), bytes });
            }
            if let Some(r) = c.rotation.as_ref().filter(|r| !r.frames.is_empty()) {
                info[3] = times.add(time_track(&r.frames)?);
                let mut bytes = Vec::new();
                for &q in &r.values {
                    encode_rotation(rot_format, q, &mut bytes)?;
                }
                info[4] = rots.add(T { format: rot_format, keys: r.values.len(), bytes });
            }
            list.push(info);
        }
        infos.push(list);
    }
    let (times, poss, rots) = (times.tracks, poss.tracks, rots.tracks);
    if [&times, &poss, &rots].iter().any(|l| l.iter().any(|t| t.keys > 0xFFFF)) {
        return Err(Error::unrepresentable("a DBA track holds at most 65535 keys"));
    }
    // Group by format (stable), keeping each track's old index.
    fn order(tracks: &[T]) -> Vec<(usize, &T)> {
        let mut sorted: Vec<(usize, &T)> = tracks.iter().enumerate().collect();
        sorted.sort_by_key(|(_, t)| t.format);
        sorted
    }
    let (times, poss, rots) = (order(&times), order(&poss), order(&rots));
    // The new index of every old index.
    let remap = |sorted: &[(usize, &T)]| {
        let mut m = vec![0u32; sorted.len()];
        for (new, &(old, _)) in sorted.iter().enumerate() {
            if let Some(slot) = m.get_mut(old) {
                *slot = new as u32;
            }
        }
        m
    };
    let (tm, pm, rm) = (remap(&times), remap(&poss), remap(&rots));
    let mut out = Vec::new();
    let w32 = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    for n in [poss.len(), rots.len(), times.len(), anims.len()] {
        w32(&mut out, n as u32);
    }
    let counts = |tracks: &[(usize, &T)], n: usize| {
        let mut c = vec![0u32; n];
        for (_, t) in tracks {
            if let Some(x) = c.get_mut(usize::from(t.format)) {
                *x += 1;
            }
        }
        c
    };
    for (_, t) in &times {
        out.extend_from_slice(&(t.keys as u16).to_le_bytes());
    }
    counts(&times, 7).into_iter().for_each(|c| w32(&mut out, c));
    for (_, t) in &poss {
        out.extend_from_slice(&(t.keys as u16).to_le_bytes());
    }
    counts(&poss, 9).into_iter().for_each(|c| w32(&mut out, c));
    for (_, t) in &rots {
        out.extend_from_slice(&(t.keys as u16).to_le_bytes());
    }
    counts(&rots, 9).into_iter().for_each(|c| w32(&mut out, c));
    let mut blob = Vec::new();
    let offsets = |tracks: &[(usize, &T)], blob: &mut Vec<u8>| -> Vec<i32> {
        tracks
            .iter()
            .map(|(_, t)| {
                let at = blob.len() as i32;
                blob.extend_from_slice(&t.bytes);
                blob.resize(round_up(blob.len(), 4), 0);
                at
            })
            .collect()
    };
    let kt_off = offsets(&times, &mut blob);
    let pos_off = offsets(&poss, &mut blob);
    let rot_off = offsets(&rots, &mut blob);
    if blob.len() > i32::MAX as usize {
        return Err(Error::unrepresentable("a DBA blob larger than 2 GiB"));
    }
    for o in kt_off.iter().chain(&pos_off).chain(&rot_off) {
        out.extend_from_slice(&o.to_le_bytes());
    }
    out.extend_from_slice(&(blob.len() as i32).to_le_bytes());
    out.resize(round_up(out.len(), 4), 0);
    out.extend_from_slice(&blob);
    for (a, list) in anims.iter().zip(&infos) {
        let path = crate::text::to_latin1(&a.path)
            .filter(|p| p.len() <= 0xFFFF)
            .ok_or_else(|| Error::unrepresentable(format!("clip path \"{}\"", a.path)))?;
        out.extend_from_slice(&(path.len() as u16).to_le_bytes());
        out.extend_from_slice(&path);
        let mut motion = crate::bytes::Writer::new(Endian::Little);
        a.motion.write(&mut motion);
        out.extend_from_slice(&motion.into_vec());
        out.extend_from_slice(&0u16.to_le_bytes());
        let n = u16::try_from(list.len()).map_err(|_| Error::unrepresentable("more than 65535 bones in a clip"))?;
        out.extend_from_slice(&n.to_le_bytes());
        for info in list {
            // Every old index in `infos` was taken from the length of its track list above.
            let map = |v: u32, m: &[u32]| -> Result<u32> {
                if v == NONE {
                    return Ok(NONE);
                }
                m.get(v as usize).copied().ok_or_else(|| Error::invalid(0, format!("track {v} was never built")))
            };
            for v in [info[0], map(info[1], &tm)?, map(info[2], &pm)?, map(info[3], &tm)?, map(info[4], &rm)?] {
                w32(&mut out, v);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-built 0x905 payload following §7 item by item: one clip, one bone with a position
    /// track (f32, Byte times 0, 5, 10) and a rotation track (SmallTree48 `86 50 86 B0 64 DC`
    /// = (1,2,3,4)/√30, Bitset times start 0, end 10, count 3, word 0x0421 = bits 0, 5, 10).
    fn payload(in_place: bool) -> Vec<u8> {
        let mut blob = vec![0u8, 5, 10, 0]; // Byte times, padded
        for w in [0u16, 10, 3, 0x0421] {
            blob.extend(w.to_le_bytes());
        }
        for v in [1f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0] {
            blob.extend(v.to_le_bytes());
        }
        for _ in 0..3 {
            blob.extend([0x86, 0x50, 0x86, 0xB0, 0x64, 0xDC]);
        }
        assert_eq!(blob.len(), 66);
        let rel = |o: i32| if in_place { o - 66 } else { o };
        let mut p = Vec::new();
        for w in [1u32, 1, 2, 1] {
            p.extend(w.to_le_bytes());
        }
        for s in [3u16, 4] {
            p.extend(s.to_le_bytes());
        }
        for n in [0u32, 0, 1, 0, 0, 0, 1] {
            p.extend(n.to_le_bytes());
        }
        p.extend(3u16.to_le_bytes());
        for n in [0u32, 0, 1, 0, 0, 0, 0, 0, 0] {
            p.extend(n.to_le_bytes());
        }
        p.extend(3u16.to_le_bytes());
        for n in [0u32, 0, 0, 0, 0, 1, 0, 0, 0] {
            p.extend(n.to_le_bytes());
        }
        for o in [rel(0), rel(4), rel(12), rel(48), if in_place { -66 } else { 66 }] {
            p.extend(o.to_le_bytes());
        }
        if in_place {
            p.extend(0u32.to_le_bytes()); // paddingLen
        }
        p.resize(round_up(p.len(), 4), 0);
        if !in_place {
            p.extend(&blob);
            p.extend([0, 0]);
        }
        let records = p.len();
        p.extend(8u16.to_le_bytes());
        p.extend(b"anim.caf");
        let mut motion = Vec::new();
        for w in [2u32, 0, 1] {
            motion.extend(w.to_le_bytes());
        }
        motion.extend((1.0f32 / 30.0).to_le_bytes());
        motion.extend(0i32.to_le_bytes());
        motion.extend(10i32.to_le_bytes());
        motion.resize(132, 0);
        p.extend(motion);
        p.extend(0u16.to_le_bytes());
        p.extend(1u16.to_le_bytes());
        let info: Vec<u8> = [0x7856_1A24u32, 0, 0, 1, 0].iter().flat_map(|w| w.to_le_bytes()).collect();
        if in_place {
            let off = (p.len() + 4 - records) as i32;
            p.extend(off.to_le_bytes());
            p.extend(info);
            p.extend(&blob);
        } else {
            p.extend(info);
        }
        p
    }

    /// Two clips with the same bone motion, whose rotation and position share their frames: one
    /// time, one position and one rotation track in all (§7 item 1 counts), both clips decoding
    /// to the same keys.
    #[test]
    fn identical_tracks_are_stored_once() {
        let frames = vec![0.0, 4.0, 9.0];
        let controller = || WriteController {
            id: 0x7856_1A24,
            rotation: Some(KeyTrack {
                frames: frames.clone(),
                values: vec![Quat::IDENTITY, Quat::from_rotation_z(0.5), Quat::from_rotation_x(1.0)],
            }),
            position: Some(KeyTrack { frames: frames.clone(), values: vec![Vec3::X, Vec3::Y, Vec3::Z] }),
        };
        let anims: Vec<WriteAnimation> = ["a.caf", "b.caf"]
            .iter()
            .map(|p| WriteAnimation {
                path: p.to_string(),
                motion: MotionParams::read(&mut Cursor::new(&[0; 132], Endian::Little)).unwrap(),
                controllers: vec![controller()],
            })
            .collect();
        let payload = write(&anims, 1).unwrap();
        let counts: Vec<u32> =
            payload.chunks_exact(4).take(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
        assert_eq!(counts, [1, 1, 1, 2], "positions, rotations, times, animations");
        let dba = parse(&payload, 0, Endian::Little).unwrap();
        assert_eq!(dba.animations[0].controllers, dba.animations[1].controllers);
        assert_eq!(dba.animations[1].controllers[0].position.as_ref().unwrap().values, [Vec3::X, Vec3::Y, Vec3::Z]);
    }

    #[test]
    fn hand_built_database_decodes() {
        for in_place in [false, true] {
            let p = payload(in_place);
            let dba = parse(&p, 0, Endian::Little).unwrap();
            assert_eq!(dba.in_place, in_place);
            assert_eq!(dba.time_formats, [2, 6]);
            let a = &dba.animations[0];
            assert_eq!(a.path, "anim.caf");
            assert_eq!((a.motion.start, a.motion.end, a.motion.asset_flags), (0, 10, 2));
            let c = &a.controllers[0];
            assert_eq!(c.id, 0x7856_1A24);
            let pos = c.position.as_ref().unwrap();
            assert_eq!(pos.frames, [0.0, 5.0, 10.0]);
            assert_eq!(pos.values[2], Vec3::new(7.0, 8.0, 9.0));
            let rot = c.rotation.as_ref().unwrap();
            assert_eq!(rot.frames, [0.0, 5.0, 10.0]);
            assert!((rot.values[0].x - 0.182_578).abs() < 1e-5);
            for cut in 0..p.len() {
                let _ = parse(&p[..cut], 0, Endian::Little);
            }
            assert!(parse(&p[..p.len() - 1], 0, Endian::Little).is_err());
        }
    }
}
