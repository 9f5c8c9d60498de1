//! The DBA track database, controller 0x905 (`cryengine.md` §7; CE5/LY `LoaderDBA.cpp`),
//! little-endian only.
//!
//! Layout: `u32` position, rotation and time track counts and the animation count; the key count
//! of every time track (`u16`), the time tracks per `EKeyTimesFormat` (7 × `u32`); the same for
//! positions and rotations (9 formats each); the blob offset of every time, position and
//! rotation track (`i32`) and the blob's size after the last; in-place databases (negative
//! size) a `u32` padding length and that many bytes; alignment to 4; the blob (tracks grouped by
//! format in enum order, each at its offset; in-place databases keep it at the payload's end and
//! count offsets back from there); then the animation records: `u16` path length, the path,
//! `MotionParams905`, `u16` foot-plant length and bytes, `u16` controller count, and the
//! controller infos (`id`, position time track, position track, rotation time track, rotation
//! track; 0xFFFFFFFF for none) inline, or in-place an `i32` offset to them from the first record.

use serde::{Deserialize, Serialize};

use super::chunks::MotionParams;
use super::keys::{read_vectors, words, KeyTimes, LengthRule, RotationKeys, VectorKeys, Word};
use crate::bytes::{round_up, Cursor, Endian, Writer};
use crate::error::{Context, Error, Result};
use crate::raw_json::Hex;
use crate::record::Record;
use crate::text::{latin1_until_nul, to_latin1};

crate::record! {
    /// One bone of a clip: its controller id and its tracks by index (0xFFFFFFFF: none).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub struct ControllerInfo {
        /// The CRC-32 of the bone name.
        pub controller_id: u32,
        /// The position time track.
        pub position_times: u32,
        /// The position track.
        pub positions: u32,
        /// The rotation time track.
        pub rotation_times: u32,
        /// The rotation track.
        pub rotations: u32,
    }
}

/// Controller infos are read in bulk, as one array.
impl Word for ControllerInfo {
    const SIZE: usize = 20;
    #[inline(always)]
    fn from_bytes(b: &[u8], endian: Endian) -> Self {
        let [controller_id, position_times, positions, rotation_times, rotations] = <[u32; 5]>::from_bytes(b, endian);
        ControllerInfo { controller_id, position_times, positions, rotation_times, rotations }
    }
}

/// One animation record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Animation {
    /// The clip's path (Latin-1); the clip is named after its file stem.
    pub path: String,
    /// The clip's `MotionParams905`.
    pub motion: MotionParams,
    /// The foot-plant bytes.
    #[serde(default, skip_serializing_if = "Hex::is_empty")]
    pub foot_plants: Hex,
    /// The bones.
    pub controllers: Vec<ControllerInfo>,
    /// In-place databases: where the controller infos are, from the first record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info_offset: Option<i32>,
}

/// A track table: each track's key count, tracks per format, each track's blob offset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table<K> {
    /// The stored key count of each track.
    pub key_counts: Vec<u16>,
    /// How many tracks each format has (tracks are grouped by format in enum order).
    pub per_format: Vec<u32>,
    /// Each track's blob offset.
    pub offsets: Vec<i32>,
    /// The tracks.
    pub tracks: Vec<K>,
}

impl<K> Table<K> {
    /// The format of track `i`.
    pub(crate) fn format_of(&self, i: usize) -> Option<u8> {
        let mut end = 0usize;
        let format = self.per_format.iter().position(|&n| {
            end = end.saturating_add(n as usize);
            i < end
        });
        format.and_then(|f| u8::try_from(f).ok())
    }
}

/// A 0x905 payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dba {
    /// Key-time tracks.
    pub times: Table<KeyTimes>,
    /// Position tracks.
    pub positions: Table<VectorKeys>,
    /// Rotation tracks.
    pub rotations: Table<RotationKeys>,
    /// The blob's size in bytes; negative in in-place databases.
    pub blob_size: i32,
    /// In-place databases: the padding after the tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub padding: Option<Hex>,
    /// The clips.
    pub animations: Vec<Animation>,
    /// Bytes after the last record (the corpus DBAs end with 16 zero bytes).
    #[serde(default, skip_serializing_if = "Hex::is_empty")]
    pub tail: Hex,
}

/// The numbers of the three tables, as stored at the payload's start.
struct Counts {
    positions: u32,
    rotations: u32,
    times: u32,
    animations: u32,
}

fn table_head<K>(c: &mut Cursor, n: u32, formats: usize, what: &str) -> Result<Table<K>> {
    let n = c.count(u64::from(n), 2, what)?;
    let key_counts = words(c, n, what)?;
    let per_format = words(c, formats, "tracks per format")?;
    Ok(Table { key_counts, per_format, offsets: Vec::new(), tracks: Vec::new() })
}

impl Dba {
    /// Whether the blob sits at the payload's end, offsets counting back from there.
    pub(crate) fn in_place(&self) -> bool {
        self.blob_size < 0
    }

    /// Reads a 0x905 payload (the cursor covers it from its start).
    pub(crate) fn read(c: &mut Cursor) -> Result<Dba> {
        Dba::read_with(c, |blob, d| {
            let (mut times, mut positions, mut rotations) = (vec![], vec![], vec![]);
            blob.each(&d.times, "time", |c, f, n| KeyTimes::read(c, f, n, LengthRule::Raw).map(|k| times.push(k)))?;
            blob.each(&d.positions, "position", |c, f, n| {
                read_vectors(c, f, n, "position").map(|k| positions.push(k))
            })?;
            blob.each(&d.rotations, "rotation", |c, f, n| RotationKeys::read(c, f, n).map(|k| rotations.push(k)))?;
            (d.times.tracks, d.positions.tracks, d.rotations.tracks) = (times, positions, rotations);
            Ok(())
        })
    }

    /// Reads a 0x905 payload, its tables without their tracks: `tracks` reads them from the blob
    /// (before the animation records, as they are stored).
    pub(crate) fn read_with(c: &mut Cursor, tracks: impl FnOnce(&Blob, &mut Dba) -> Result<()>) -> Result<Dba> {
        let payload = c.data();
        let base = c.offset();
        let n = Counts { positions: c.u32()?, rotations: c.u32()?, times: c.u32()?, animations: c.u32()? };
        let mut times: Table<KeyTimes> = table_head(c, n.times, 7, "time track")?;
        let mut positions: Table<VectorKeys> = table_head(c, n.positions, 9, "position track")?;
        let mut rotations: Table<RotationKeys> = table_head(c, n.rotations, 9, "rotation track")?;
        times.offsets = words(c, times.key_counts.len(), "time offset")?;
        positions.offsets = words(c, positions.key_counts.len(), "position offset")?;
        rotations.offsets = words(c, rotations.key_counts.len(), "rotation offset")?;
        let blob_size = c.i32()?;
        let padding = match blob_size < 0 {
            true => Some(c.u32()? as usize),
            false => None,
        };
        c.seek(round_up(c.pos(), 4))?;
        let blob_len = blob_size.unsigned_abs() as usize;
        let (blob, blob_at, padding) = match padding {
            Some(len) => {
                let start = payload.len().checked_sub(blob_len).ok_or_else(|| {
                    Error::invalid(base, format!("in-place blob of {blob_len} bytes larger than the chunk"))
                })?;
                let padding = Hex(c.take(len)?.to_vec());
                (payload.get(start..).unwrap_or_default(), base + start, Some(padding))
            }
            None => {
                let at = c.offset();
                let b = c.take(round_up(blob_len, 4))?;
                (b.get(..blob_len).unwrap_or_default(), at, None)
            }
        };
        let blob = Blob { data: blob, at: blob_at, in_place: padding.is_some() };
        let mut dba = Dba { times, positions, rotations, blob_size, padding, animations: vec![], tail: Hex::default() };
        tracks(&blob, &mut dba)?;
        dba.animations = animations(c, n.animations, dba.in_place())?;
        // In-place databases keep their blob (and the controller infos) after the records.
        if !dba.in_place() {
            dba.tail = Hex(c.take(c.remaining())?.to_vec());
        }
        Ok(dba)
    }

    /// Appends the payload's bytes (little-endian).
    pub(crate) fn write(&self, w: &mut Writer) -> Result<()> {
        let start = w.len();
        let (t, p, r) = (&self.times, &self.positions, &self.rotations);
        for n in [p.key_counts.len(), r.key_counts.len(), t.key_counts.len(), self.animations.len()] {
            w.u32(n as u32);
        }
        for (keys, per_format) in
            [(&t.key_counts, &t.per_format), (&p.key_counts, &p.per_format), (&r.key_counts, &r.per_format)]
        {
            keys.iter().for_each(|&k| w.u16(k));
            per_format.iter().for_each(|&n| w.u32(n));
        }
        t.offsets.iter().chain(&p.offsets).chain(&r.offsets).for_each(|&o| w.i32(o));
        w.i32(self.blob_size);
        if let Some(padding) = &self.padding {
            w.u32(padding.0.len() as u32);
        }
        w.fill(0, round_up(w.len() - start, 4) - (w.len() - start));
        let blob = self.blob()?;
        match &self.padding {
            Some(padding) => w.bytes(&padding.0),
            None => {
                w.bytes(&blob);
                w.fill(0, round_up(blob.len(), 4) - blob.len());
            }
        }
        let records_start = w.len();
        for (i, a) in self.animations.iter().enumerate() {
            a.write(w).within(|| format!("animation {i}"))?;
        }
        if self.padding.is_some() {
            // In place: each clip's controller infos at their offset from the first record.
            for a in &self.animations {
                let at = usize::try_from(records_start as i64 + i64::from(a.info_offset.unwrap_or(0)))
                    .ok()
                    .filter(|&at| at >= w.len())
                    .ok_or_else(|| Error::unrepresentable("controller infos that overlap other data"))?;
                w.fill(0, at - w.len());
                a.controllers.iter().for_each(|i| i.write(w));
            }
            w.bytes(&blob);
        }
        w.bytes(&self.tail.0);
        Ok(())
    }

    /// The blob: every track at its offset, zero between.
    fn blob(&self) -> Result<Vec<u8>> {
        let len = self.blob_size.unsigned_abs() as usize;
        let mut blob = vec![0u8; len];
        let mut place = |offset: i32, write: &dyn Fn(&mut Writer)| -> Result<()> {
            let mut w = Writer::new(crate::bytes::Endian::Little);
            write(&mut w);
            let at = if self.in_place() { i64::from(offset) + len as i64 } else { i64::from(offset) };
            let bytes = w.into_vec();
            usize::try_from(at)
                .ok()
                .and_then(|at| blob.get_mut(at..at.checked_add(bytes.len())?))
                .ok_or_else(|| Error::unrepresentable(format!("a track at blob offset {offset} outside the blob")))?
                .copy_from_slice(&bytes);
            Ok(())
        };
        for (o, k) in self.times.offsets.iter().zip(&self.times.tracks) {
            place(*o, &|w| k.write(w))?;
        }
        for (o, k) in self.positions.offsets.iter().zip(&self.positions.tracks) {
            place(*o, &|w| k.iter().for_each(|v| v.write(w)))?;
        }
        for (o, k) in self.rotations.offsets.iter().zip(&self.rotations.tracks) {
            place(*o, &|w| k.write(w))?;
        }
        Ok(blob)
    }
}

/// The shared track data.
pub(crate) struct Blob<'a> {
    data: &'a [u8],
    /// Absolute offset of `data`.
    at: usize,
    /// Offsets count back from the blob's end.
    in_place: bool,
}

impl Blob<'_> {
    /// Calls `read` on each track of `table` in order, with a cursor at its offset, its format
    /// and its stored key count.
    pub(crate) fn each<T>(
        &self,
        table: &Table<T>,
        what: &str,
        mut read: impl FnMut(&mut Cursor, u8, usize) -> Result<()>,
    ) -> Result<()> {
        for (i, (&o, &n)) in table.offsets.iter().zip(&table.key_counts).enumerate() {
            let mut track = || -> Result<()> {
                let f = table.format_of(i).ok_or_else(|| Error::invalid(self.at, "the track has no format"))?;
                let o = if self.in_place { i64::from(o) + self.data.len() as i64 } else { i64::from(o) };
                let at = usize::try_from(o).ok().filter(|&o| o <= self.data.len()).ok_or_else(|| {
                    Error::invalid(self.at, format!("offset {o} is outside the {}-byte blob", self.data.len()))
                })?;
                let mut c =
                    Cursor::with_base(self.data.get(at..).unwrap_or_default(), self.at + at, Default::default());
                read(&mut c, f, usize::from(n))
            };
            track().within(|| format!("{what} track {i}"))?;
        }
        Ok(())
    }
}

/// The animation records after the blob.
fn animations(c: &mut Cursor, n: u32, in_place: bool) -> Result<Vec<Animation>> {
    let records_start = c.pos();
    let n = c.count(u64::from(n), 2 + 132 + 2 + 2, "animation")?;
    let mut out = Vec::with_capacity(n);
    for a in 0..n {
        out.push(Animation::read(c, records_start, in_place).within(|| format!("animation {a}"))?);
    }
    Ok(out)
}

impl Animation {
    fn read(c: &mut Cursor, records_start: usize, in_place: bool) -> Result<Animation> {
        let len = c.u16()?;
        let path = latin1_until_nul(c.take(usize::from(len))?);
        let motion = MotionParams::read(c)?;
        let fp = c.u16()?;
        let foot_plants = Hex(c.take(usize::from(fp))?.to_vec());
        let n = c.u16()?;
        let (controllers, info_offset) = if in_place {
            let off = c.i32()?;
            let mut infos = c.clone();
            let at = usize::try_from(records_start as i64 + i64::from(off))
                .map_err(|_| Error::invalid(c.offset(), "negative controller info offset"))?;
            infos.seek(at)?;
            (words(&mut infos, usize::from(n), "controller info")?, Some(off))
        } else {
            (words(c, usize::from(n), "controller info")?, None)
        };
        Ok(Animation { path, motion, foot_plants, controllers, info_offset })
    }

    fn write(&self, w: &mut Writer) -> Result<()> {
        let path = to_latin1(&self.path)
            .and_then(|p| u16::try_from(p.len()).ok().map(|n| (n, p)))
            .ok_or_else(|| Error::unrepresentable(format!("clip path \"{}\"", self.path)))?;
        w.u16(path.0);
        w.bytes(&path.1);
        self.motion.write(w);
        let fp = u16::try_from(self.foot_plants.0.len()).map_err(|_| Error::unrepresentable("foot plants"))?;
        w.u16(fp);
        w.bytes(&self.foot_plants.0);
        let n = u16::try_from(self.controllers.len())
            .map_err(|_| Error::unrepresentable("more than 65535 bones in a clip"))?;
        w.u16(n);
        match self.info_offset {
            Some(off) => w.i32(off),
            None => self.controllers.iter().for_each(|i| i.write(w)),
        }
        Ok(())
    }
}
