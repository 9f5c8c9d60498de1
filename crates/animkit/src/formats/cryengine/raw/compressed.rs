//! Compressed controllers 0x829 (CE3), 0x831 (Lumberyard) and 0x832 (CE5) (`cryengine.md` §3):
//! a descriptor, then the key arrays in the order rotation values, rotation times, position
//! values, position times (when the positions have their own), scale values, scale times, each
//! aligned to 4 when the controller says so (0x832 always).
//!
//! Descriptor: `u32 id`, 0x831 `u32 flags`, `u16` rotation and position key counts, 0x832 a
//! `u16` scale key count, then `u8` formats per channel (rotation: value, time; position and
//! scale: value, keys info, time), 0x829/0x831 a `u8` aligned flag, two bytes of padding. Keys
//! info 0 shares the rotation times, 1 gives positions their own (scale: 1 shares the position
//! times, 2 its own). A channel without keys has no arrays.

use serde::{Deserialize, Serialize};

use super::keys::{read_vectors, KeyTimes, LengthRule, RotationKeys, VectorKeys};
use crate::bytes::{round_up, Cursor, Writer};
use crate::error::{Context, Error, Result};
use crate::raw_json::Hex;

/// One channel's formats and key arrays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Channel<K> {
    /// `ECompressionFormat` of the values.
    pub format: u8,
    /// Positions and scales: whose key times they use (see the module docs); `None` for
    /// rotations, which have no such byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys_info: Option<u8>,
    /// `EKeyTimesFormat` of the times.
    pub time_format: u8,
    /// The values; their number is the channel's key count.
    pub keys: K,
    /// The channel's own key times; `None` when it shares another channel's or has no keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<KeyTimes>,
}

/// A compressed controller as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compressed {
    /// The CRC-32 of the bone name.
    pub controller_id: u32,
    /// The 0x831 flags word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<u32>,
    /// Rotation keys.
    pub rotation: Channel<RotationKeys>,
    /// Position keys.
    pub position: Channel<VectorKeys>,
    /// 0x832 scale keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Channel<VectorKeys>>,
    /// The 0x829/0x831 aligned byte (non-zero: arrays aligned to 4); `None` in 0x832.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aligned: Option<u8>,
    /// The descriptor's last two bytes.
    pub pad: [u8; 2],
    /// Bytes after the last array (alignment padding the chunk's size includes).
    #[serde(default, skip_serializing_if = "Hex::is_empty")]
    pub tail: Hex,
}

/// A channel's descriptor entry: key count, value format, keys info, time format.
type Entry = (usize, u8, Option<u8>, u8);

impl Compressed {
    /// Reads a controller of `version` (0x829, 0x831, 0x832) covering the whole payload under
    /// `c`: of the two StartStop/Bitset length rules (§10 C12), the one whose last array ends
    /// at the payload's end (within alignment), else the CE5 one.
    pub(crate) fn read(version: u32, c: &mut Cursor) -> Result<Compressed> {
        let start = c.clone();
        let per_key = Compressed::read_with(version, c, LengthRule::PerKey);
        if matches!(&per_key, Ok(k) if k.tail.0.len() < 4) {
            return per_key;
        }
        let mut again = start.clone();
        match Compressed::read_with(version, &mut again, LengthRule::Raw) {
            Ok(k) if k.tail.0.len() < 4 => {
                *c = again;
                Ok(k)
            }
            _ => per_key,
        }
    }

    fn read_with(version: u32, c: &mut Cursor, rule: LengthRule) -> Result<Compressed> {
        let controller_id = c.u32()?;
        let flags = if version == 0x831 { Some(c.u32()?) } else { None };
        let scaled = version == 0x832;
        let [nr, np, ns] = [c.u16()?, c.u16()?, if scaled { c.u16()? } else { 0 }].map(usize::from);
        let rot = (nr, c.u8()?, None, c.u8()?);
        let pos = (np, c.u8()?, Some(c.u8()?), c.u8()?);
        let (scl, aligned) =
            if scaled { ((ns, c.u8()?, Some(c.u8()?), c.u8()?), None) } else { ((0, 0, None, 0), Some(c.u8()?)) };
        let pad = c.array()?;
        let align = if aligned.is_none_or(|a| a != 0) { 4 } else { 1 };
        let mut arrays = Arrays { c, align, rule };
        // Rotations always have their own times; positions with keys info 1; scales with 2.
        let rotation = arrays.channel(rot, true, RotationKeys::read).within(|| "rotation keys")?;
        let vectors = |what| move |c: &mut Cursor, f, n| read_vectors(c, f, n, what);
        let position = arrays.channel(pos, pos.2 == Some(1), vectors("position")).within(|| "position keys")?;
        let scale = match scaled {
            true => Some(arrays.channel(scl, scl.2 == Some(2), vectors("scale")).within(|| "scale keys")?),
            false => None,
        };
        let c = arrays.c;
        let tail = Hex(c.take(c.remaining())?.to_vec());
        Ok(Compressed { controller_id, flags, rotation, position, scale, aligned, pad, tail })
    }

    /// Appends the controller's bytes; fails when a channel's keys disagree with its formats.
    pub(crate) fn write(&self, w: &mut Writer) -> Result<()> {
        let count = |n: usize| {
            let id = self.controller_id;
            u16::try_from(n)
                .map_err(|_| Error::unrepresentable(format!("controller 0x{id:08X} has more than 65535 keys")))
        };
        w.u32(self.controller_id);
        if let Some(f) = self.flags {
            w.u32(f);
        }
        w.u16(count(self.rotation.keys.len())?);
        w.u16(count(self.position.keys.len())?);
        if let Some(s) = &self.scale {
            w.u16(count(s.keys.len())?);
        }
        let (r, p) = (&self.rotation, &self.position);
        w.bytes(&[r.format, r.time_format, p.format, p.keys_info.unwrap_or(0), p.time_format]);
        match (&self.scale, self.aligned) {
            (Some(s), _) => w.bytes(&[s.format, s.keys_info.unwrap_or(0), s.time_format]),
            (None, a) => w.u8(a.unwrap_or(0)),
        }
        w.bytes(&self.pad);
        if !r.keys.is_empty() && r.keys.format() != r.format {
            return Err(mismatch("rotation keys", r.keys.format(), r.format));
        }
        let align = if self.aligned.is_none_or(|a| a != 0) { 4 } else { 1 };
        put_channel(w, align, r, r.keys.len(), "rotation", RotationKeys::write)?;
        let vectors = |k: &VectorKeys, w: &mut Writer| k.iter().for_each(|v| crate::record::Record::write(v, w));
        put_channel(w, align, p, p.keys.len(), "position", vectors)?;
        if let Some(s) = &self.scale {
            put_channel(w, align, s, s.keys.len(), "scale", vectors)?;
        }
        w.bytes(&self.tail.0);
        Ok(())
    }
}

fn mismatch(what: &str, stored: u8, declared: u8) -> Error {
    Error::unrepresentable(format!("{what} of format {stored} in a channel of format {declared}"))
}

/// Appends a channel of `n` keys as [`Arrays::channel`] reads it: its values, then its own
/// times, each aligned to `align`; nothing without keys.
fn put_channel<K>(
    w: &mut Writer,
    align: usize,
    ch: &Channel<K>,
    n: usize,
    what: &str,
    write: impl Fn(&K, &mut Writer),
) -> Result<()> {
    if n == 0 {
        let times = ch.times.as_ref().map(|_| Error::unrepresentable(format!("{what} key times without keys")));
        return times.map_or(Ok(()), Err);
    }
    let pad = |w: &mut Writer| w.fill(0, round_up(w.len(), align) - w.len());
    pad(w);
    write(&ch.keys, w);
    if let Some(t) = &ch.times {
        if t.format() != ch.time_format {
            return Err(mismatch(&format!("{what} time keys"), t.format(), ch.time_format));
        }
        pad(w);
        t.write(w);
    }
    Ok(())
}

/// The reader of the key arrays, each aligned (the 16- or 20-byte descriptor leaves the first
/// one aligned).
struct Arrays<'c, 'a> {
    c: &'c mut Cursor<'a>,
    align: usize,
    rule: LengthRule,
}

impl Arrays<'_, '_> {
    fn next(&mut self) -> Result<()> {
        self.c.seek(round_up(self.c.pos(), self.align))
    }

    /// A channel: its values, then its times when it has its own (`own`).
    fn channel<K: Default>(
        &mut self,
        (n, format, keys_info, time_format): Entry,
        own: bool,
        read: impl Fn(&mut Cursor, u8, usize) -> Result<K>,
    ) -> Result<Channel<K>> {
        if n == 0 {
            return Ok(Channel { format, keys_info, time_format, keys: K::default(), times: None });
        }
        self.next()?;
        let keys = read(self.c, format, n)?;
        let times = if own {
            self.next()?;
            Some(KeyTimes::read(self.c, time_format, n, self.rule).within(|| "key times")?)
        } else {
            None
        };
        Ok(Channel { format, keys_info, time_format, keys, times })
    }
}
