//! DBA track database: controller 0x905 (`cryengine.md` §7; CE5/LY `LoaderDBA.cpp`).
//!
//! Tracks are grouped by format in enum order; time, position and rotation tracks are shared by
//! all clips of the database, which refer to them by index in their controller infos. The writer
//! shares them too: identical tracks (same format and bytes) are stored once, as CryEngine's
//! compiler does; without that a corpus DBA rewritten from the model grew by 39 %.

use std::collections::HashMap;
use std::ops::Range;

use glam::{Quat, Vec3};

use super::controller::KeyTrack;
use super::quat_codecs::{encode_rotations, read_continuous};
use super::raw::{self, records, MotionParams};
use super::time_formats;
use crate::bytes::{round_up, Cursor, Endian, Writer};
use crate::error::{Context, Error, Result};
use crate::raw_json::F32;

/// One clip of the database (read, or to write with [`to_raw`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DbaAnimation {
    pub path: String,
    pub motion: MotionParams,
    pub controllers: Vec<DbaController>,
}

/// One bone's channels in a clip. Read from a database, its rotations are sign-continuous as the
/// model holds them ([`super::quat_codecs::continuous`]), made so once per shared track.
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

const NONE: u32 = 0xFFFF_FFFF;

/// The decoded tracks of one kind, all in one buffer: fewer allocations than one per track.
#[derive(Default)]
struct Decoded<T> {
    values: Vec<T>,
    /// Where each track's values are in `values`, or why they do not decode.
    ranges: Vec<std::result::Result<Range<usize>, Box<Error>>>,
}

impl<T: Clone> Decoded<T> {
    /// Room for tracks of these stored key counts.
    fn reserve(&mut self, counts: &[u16]) {
        self.values.reserve(counts.iter().map(|&n| usize::from(n)).sum());
        self.ranges.reserve(counts.len());
    }

    /// Appends the next track's values by `decode`; an error is kept, for a clip that uses the
    /// track, and returned.
    fn push(&mut self, decode: impl FnOnce(&mut Vec<T>) -> Result<()>) -> Result<()> {
        let start = self.values.len();
        let range = decode(&mut self.values).map(|()| start..self.values.len()).map_err(Box::new);
        let result = range.as_ref().map(drop).map_err(|e| Error::clone(e));
        self.ranges.push(range);
        result
    }

    /// The values of track `i`.
    fn get(&self, i: u32, what: &str, at: usize) -> Result<Vec<T>> {
        let range = self
            .ranges
            .get(i as usize)
            .ok_or_else(|| Error::invalid(at, format!("{what} track {i} does not exist")))?;
        let range = range.as_ref().map_err(|e| Error::clone(e).within(format!("{what} track {i}")))?;
        Ok(self.values.get(range.clone()).unwrap_or_default().to_vec())
    }

    /// A channel of a clip: time track `times`, value track `values` of this kind (`NONE`: none).
    fn channel(&self, times: &Decoded<f32>, (t, v): (u32, u32), what: &str, at: usize) -> Result<Option<KeyTrack<T>>> {
        if t == NONE || v == NONE {
            return Ok(None);
        }
        let (frames, values) = (times.get(t, "time", at)?, self.get(v, what, at)?);
        if frames.len() != values.len() {
            return Err(Error::invalid(at, format!("{} {what} keys, {} times", values.len(), frames.len())));
        }
        Ok(Some(KeyTrack { frames, values }))
    }
}

/// The clips of a 0x905 payload as [`read`] gives them, from its raw form.
pub fn from_raw(raw: &raw::Dba, at: usize) -> Result<Dba> {
    let mut w = Writer::new(Endian::Little);
    raw.write(&mut w)?;
    read(&w.into_vec(), at)
}

/// The clips of a 0x905 payload (little-endian) with their keys decoded; `at` is its offset.
/// The tracks are decoded straight from the blob as the raw layer reads them (and fail as it
/// does), each once (clips share them), rotations made
/// [`continuous`](super::quat_codecs::continuous); key times that do not decode fail only when
/// a clip uses them.
pub fn read(payload: &[u8], at: usize) -> Result<Dba> {
    let (mut times, mut positions, mut rotations) = (Decoded::default(), Decoded::default(), Decoded::default());
    let raw = raw::Dba::read_with(&mut Cursor::with_base(payload, at, Endian::Little), |blob, d| {
        times.reserve(&d.times.key_counts);
        blob.each(&d.times, "time", |c, f, n| {
            let t = raw::KeyTimes::read(c, f, n, raw::LengthRule::Raw)?;
            let n = time_formats::key_count(&t, n);
            // An error is kept for the clips that use the track.
            let _ = times.push(|out| time_formats::append_frames(&t, n, at, out));
            Ok(())
        })?;
        positions.reserve(&d.positions.key_counts);
        blob.each(&d.positions, "position", |c, f, n| match f {
            0 | 2 => positions
                .push(|out| raw::words_into(c, n, "position", out, |[x, y, z]: [F32; 3]| Vec3::new(x.0, y.0, z.0))),
            // The raw layer's error: a format without a codec.
            _ => raw::read_vectors(c, f, n, "position").map(drop),
        })?;
        rotations.reserve(&d.rotations.key_counts);
        blob.each(&d.rotations, "rotation", |c, f, n| rotations.push(|out| read_continuous(c, f, n, out)))
    })?;
    let time_formats = (0..raw.times.key_counts.len()).filter_map(|i| raw.times.format_of(i)).collect();
    let in_place = raw.in_place();
    let mut animations = Vec::with_capacity(raw.animations.len());
    for (a, anim) in raw.animations.into_iter().enumerate() {
        let mut controllers = Vec::with_capacity(anim.controllers.len());
        for (k, info) in anim.controllers.iter().enumerate() {
            let controller = || -> Result<DbaController> {
                let rotation = rotations.channel(&times, (info.rotation_times, info.rotations), "rotation", at)?;
                let position = positions.channel(&times, (info.position_times, info.positions), "position", at)?;
                Ok(DbaController { id: info.controller_id, rotation, position })
            };
            let c = controller().within(|| format!("animation {a}, controller {k} (0x{:08X})", info.controller_id));
            controllers.push(c?);
        }
        animations.push(DbaAnimation { path: anim.path, motion: anim.motion, controllers });
    }
    Ok(Dba { animations, time_formats, in_place })
}

/// One encoded track: format, key count, little-endian bytes.
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
    /// Each track and its index (in the order of first use).
    index: HashMap<T, u32>,
}

impl Pool {
    /// The index of `track`, added unless an identical one is already there.
    fn add(&mut self, track: T) -> u32 {
        let next = self.index.len() as u32;
        *self.index.entry(track).or_insert(next)
    }

    /// The table of the pooled tracks grouped by format (then in the order of first use), each
    /// read back into its stored form at its offset in `blob` (aligned to 4); and the new index
    /// of every old one.
    fn table<K>(
        self,
        formats: usize,
        blob: &mut Vec<u8>,
        read: impl Fn(&mut Cursor, u8, usize) -> Result<K>,
    ) -> Result<(raw::Table<K>, Vec<u32>)> {
        let mut sorted: Vec<(T, u32)> = self.index.into_iter().collect();
        sorted.sort_unstable_by_key(|(t, old)| (t.format, *old));
        let mut table =
            raw::Table { key_counts: vec![], per_format: vec![0; formats], offsets: vec![], tracks: vec![] };
        let mut remap = vec![0u32; sorted.len()];
        for (new, (t, old)) in sorted.into_iter().enumerate() {
            if let Some(slot) = remap.get_mut(old as usize) {
                *slot = new as u32;
            }
            if let Some(n) = table.per_format.get_mut(usize::from(t.format)) {
                *n += 1;
            }
            let keys =
                u16::try_from(t.keys).map_err(|_| Error::unrepresentable("a DBA track holds at most 65535 keys"))?;
            table.key_counts.push(keys);
            let offset =
                i32::try_from(blob.len()).map_err(|_| Error::unrepresentable("a DBA blob larger than 2 GiB"))?;
            table.offsets.push(offset);
            table.tracks.push(read(&mut Cursor::new(&t.bytes, Endian::Little), t.format, t.keys)?);
            blob.extend_from_slice(&t.bytes);
            blob.resize(round_up(blob.len(), 4), 0);
        }
        Ok((table, remap))
    }
}

/// The key-time track of `frames` in the smallest format that holds them.
fn time_track(frames: &[f32]) -> Result<T> {
    let format = time_formats::smallest(frames);
    let mut w = Writer::new(Endian::Little);
    time_formats::encode(format, frames)?.write(&mut w);
    Ok(T { format, keys: frames.len(), bytes: w.into_vec() })
}

/// Positions as NoCompressVec3 keys: `x, y, z` as little-endian `f32`.
pub(crate) fn vector_bytes(values: &[Vec3]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_array()).flat_map(f32::to_le_bytes).collect()
}

/// The pools of a database's tracks and every clip's controller infos (indices into the pools).
fn pool(anims: &[DbaAnimation], rot_format: u8) -> Result<([Pool; 3], Vec<Vec<raw::ControllerInfo>>)> {
    let [mut times, mut poss, mut rots] = [Pool::default(), Pool::default(), Pool::default()];
    let mut infos = Vec::with_capacity(anims.len());
    for a in anims {
        let mut list = Vec::with_capacity(a.controllers.len());
        for c in &a.controllers {
            let mut info = raw::ControllerInfo {
                controller_id: c.id,
                position_times: NONE,
                positions: NONE,
                rotation_times: NONE,
                rotations: NONE,
            };
            if let Some(p) = c.position.as_ref().filter(|p| !p.frames.is_empty()) {
                info.position_times = times.add(time_track(&p.frames)?);
                info.positions = poss.add(T { format: 2, keys: p.values.len(), bytes: vector_bytes(&p.values) });
            }
            if let Some(r) = c.rotation.as_ref().filter(|r| !r.frames.is_empty()) {
                info.rotation_times = times.add(time_track(&r.frames)?);
                let bytes = encode_rotations(rot_format, &r.values)?;
                info.rotations = rots.add(T { format: rot_format, keys: r.values.len(), bytes });
            }
            list.push(info);
        }
        infos.push(list);
    }
    Ok(([times, poss, rots], infos))
}

/// A 0x905 database (not in-place): time tracks grouped by format (F32, UINT16, Byte),
/// positions NoCompressVec3, rotations in `rot_format`; each track aligned to 4 in the blob;
/// identical tracks stored once and shared.
pub fn to_raw(anims: &[DbaAnimation], rot_format: u8) -> Result<raw::Dba> {
    let ([times, poss, rots], infos) = pool(anims, rot_format)?;
    let mut blob = Vec::new();
    let (times, tm) = times.table(7, &mut blob, |c, f, n| raw::KeyTimes::read(c, f, n, raw::LengthRule::Raw))?;
    let (positions, pm) = poss.table(9, &mut blob, |c, _, n| records(c, n, 12, "position"))?;
    let (rotations, rm) = rots.table(9, &mut blob, raw::RotationKeys::read)?;
    // Every index in `infos` was taken from the length of its pool.
    let map = |v: &mut u32, m: &[u32]| *v = m.get(*v as usize).copied().unwrap_or(NONE);
    let mut animations = Vec::with_capacity(anims.len());
    for (a, mut controllers) in anims.iter().zip(infos) {
        for i in &mut controllers {
            map(&mut i.position_times, &tm);
            map(&mut i.positions, &pm);
            map(&mut i.rotation_times, &tm);
            map(&mut i.rotations, &rm);
        }
        let (path, motion, foot_plants) = (a.path.clone(), a.motion, Default::default());
        animations.push(raw::DbaAnimation { path, motion, foot_plants, controllers, info_offset: None });
    }
    let blob_size = i32::try_from(blob.len()).map_err(|_| Error::unrepresentable("a DBA blob larger than 2 GiB"))?;
    Ok(raw::Dba { times, positions, rotations, blob_size, padding: None, animations, tail: Default::default() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::cryengine::quat_codecs::{continuous, decode_keys};
    use crate::record::Record;

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// The frames and values of a controller's rotation and position, each track decoded alone
    /// (rotations made continuous), as bits.
    fn alone(raw: &raw::Dba, info: &raw::ControllerInfo) -> [Option<(Vec<u32>, Vec<u32>)>; 2] {
        let frames = |i: u32| {
            let t = &raw.times.tracks[i as usize];
            let n = time_formats::key_count(t, raw.times.key_counts[i as usize].into());
            bits(&time_formats::frames(t, n, 0).unwrap())
        };
        let rotation = (info.rotations != NONE).then(|| {
            let q = continuous(decode_keys(&raw.rotations.tracks[info.rotations as usize]));
            (frames(info.rotation_times), bits(&q.iter().flat_map(|q| q.to_array()).collect::<Vec<_>>()))
        });
        let position = (info.positions != NONE).then(|| {
            let p: Vec<f32> =
                raw.positions.tracks[info.positions as usize].iter().flat_map(|v| v.map(|c| c.0)).collect();
            (frames(info.position_times), bits(&p))
        });
        [rotation, position]
    }

    /// Tracks decoded once and shared between clips give every clip the keys each track
    /// decoded alone gives, bit for bit.
    #[test]
    fn shared_tracks_decode_as_each_alone() {
        let q = |i: usize| Quat::from_euler(glam::EulerRot::XYZ, i as f32 * 0.7, 1.0 - i as f32 * 0.9, 0.2 * i as f32);
        let track = |n: usize, step: f32| KeyTrack {
            frames: (0..n).map(|f| f as f32 * step).collect::<Vec<f32>>(),
            values: (0..n).map(|f| (f as f32 * step, f)).collect::<Vec<_>>(),
        };
        let controller = |id: u32, n: usize, step: f32| {
            let t = track(n, step);
            DbaController {
                id,
                rotation: Some(KeyTrack {
                    frames: t.frames.clone(),
                    values: t.values.iter().map(|&(_, i)| q(i)).collect(),
                }),
                position: id.is_multiple_of(2).then(|| KeyTrack {
                    frames: t.frames,
                    values: t.values.iter().map(|&(x, _)| Vec3::splat(x)).collect(),
                }),
            }
        };
        // Clips 0 and 2 share every track; clip 1 shares some; frames in Byte, UINT16 and F32.
        let clips: Vec<DbaAnimation> =
            [[(2, 1.0), (6, 1.0), (9, 300.0)], [(6, 1.0), (4, 2.5), (3, 1.0)], [(2, 1.0), (6, 1.0), (9, 300.0)]]
                .iter()
                .enumerate()
                .map(|(a, keys)| DbaAnimation {
                    path: format!("clip{a}.caf"),
                    motion: MotionParams::read(&mut Cursor::new(&[0; 132], Endian::Little)).unwrap(),
                    controllers: keys.iter().enumerate().map(|(k, &(n, step))| controller(k as u32, n, step)).collect(),
                })
                .collect();
        for format in [5, 8, 1] {
            let raw = to_raw(&clips, format).unwrap();
            assert!(raw.rotations.tracks.len() < 9, "tracks are shared");
            let dba = from_raw(&raw, 0).unwrap();
            for (a, anim) in dba.animations.iter().enumerate() {
                for (c, info) in anim.controllers.iter().zip(&raw.animations[a].controllers) {
                    let rotation = c.rotation.as_ref().map(|r| {
                        (bits(&r.frames), bits(&r.values.iter().flat_map(|q| q.to_array()).collect::<Vec<_>>()))
                    });
                    let position = c.position.as_ref().map(|p| {
                        (bits(&p.frames), bits(&p.values.iter().flat_map(|v| v.to_array()).collect::<Vec<_>>()))
                    });
                    assert_eq!([rotation, position], alone(&raw, info), "format {format}, clip {a}");
                }
            }
        }
    }
}
