//! Key-time formats of compressed controllers (`EKeyTimesFormat`, `cryengine.md` §4). Values are
//! frame numbers (30 fps in compressed CAFs).
//!
//! StartStop and Bitset tracks have two possible byte lengths (§10 C12): the CE5 loader advances
//! `elementSize × numKeys`, the Lumberyard writer stores the raw length (two elements for
//! StartStop; three header words plus the bit words for Bitset). The raw layer keeps what is
//! stored (`raw::KeyTimes`); this module turns it into frames.
//!
//! Bitset: `u16 start, u16 end, u16 keyCount`, then words; bit `j` of word `i` is a key at
//! `start + 16i + j`; `end` is inclusive and the third word is the key count (§13).

use super::raw::KeyTimes;
use crate::error::{Error, Result};

/// `f32` frames.
pub const F32: u8 = 0;
/// `u16` frames.
pub const UINT16: u8 = 1;
/// `u8` frames.
pub const BYTE: u8 = 2;
/// First and last frame as `f32`: one key on every frame between.
pub const F32_START_STOP: u8 = 3;
/// First and last frame as `u16`.
pub const UINT16_START_STOP: u8 = 4;
/// First and last frame as `u8`.
pub const BYTE_START_STOP: u8 = 5;
/// `u16 start, end, count`, then a bit per frame.
pub const BITSET: u8 = 6;

/// The name of a key-time format value.
pub fn name(f: u8) -> &'static str {
    match f {
        0 => "F32",
        1 => "UINT16",
        2 => "Byte",
        3 => "F32StartStop",
        4 => "UINT16StartStop",
        5 => "ByteStartStop",
        6 => "Bitset",
        255 => "NoFormat",
        _ => "unknown",
    }
}

/// The frames of `n` keys whose times `t` holds; `at` is the track's offset for errors.
/// StartStop puts a key on every frame from start to stop; Bitset one on every set bit up to its
/// (inclusive) end, and its count field must agree.
pub fn frames(t: &KeyTimes, n: usize, at: usize) -> Result<Vec<f32>> {
    let mut out = Vec::with_capacity(n);
    append_frames(t, n, at, &mut out)?;
    Ok(out)
}

/// Appends the [`frames`] of `n` keys to `out` (on error, some may have been appended).
pub(crate) fn append_frames(t: &KeyTimes, n: usize, at: usize, out: &mut Vec<f32>) -> Result<()> {
    let first = out.len();
    match t {
        KeyTimes::F32(v) => out.extend(v.iter().map(|x| x.0)),
        KeyTimes::Uint16(v) => out.extend(v.iter().map(|&x| f32::from(x))),
        KeyTimes::Byte(v) => out.extend(v.iter().map(|&x| f32::from(x))),
        KeyTimes::F32StartStop(v) => start_stop(v.iter().map(|x| x.0), n, at, out)?,
        KeyTimes::Uint16StartStop(v) => start_stop(v.iter().map(|&x| x.into()), n, at, out)?,
        KeyTimes::ByteStartStop(v) => start_stop(v.iter().map(|&x| x.into()), n, at, out)?,
        KeyTimes::Bitset { start, end, count, words } => {
            for (i, &w) in words.iter().enumerate() {
                let mut bits = w;
                while bits != 0 {
                    let frame = usize::from(*start) + 16 * i + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if frame <= usize::from(*end) {
                        out.push(frame as f32);
                    }
                }
            }
            let found = out.len() - first;
            if usize::from(*count) != found {
                return Err(Error::invalid(at, format!("bitset holds {found} keys, its count field says {count}")));
            }
        }
    }
    let found = out.len() - first;
    if found != n {
        return Err(Error::invalid(at, format!("{found} key times for {n} keys")));
    }
    Ok(())
}

/// Appends the frames `start, start + 1, …` of a StartStop track of `n` keys ending at `stop`
/// (its first two elements).
fn start_stop(mut ends: impl Iterator<Item = f32>, n: usize, at: usize, out: &mut Vec<f32>) -> Result<()> {
    let (Some(start), Some(stop)) = (ends.next(), ends.next()) else {
        return Err(Error::invalid(at, "a start/stop track without its two frames"));
    };
    let span = stop - start;
    if !(span.is_finite() && span >= 0.0 && (span + 1.0 - n as f32).abs() < 0.5) {
        return Err(Error::invalid(at, format!("start/stop {start}..{stop} does not hold {n} keys")));
    }
    out.extend((0..n).map(|i| start + i as f32));
    Ok(())
}

/// The number of keys of a DBA time track, which states it in its own data: StartStop
/// `stop − start + 1`, Bitset its count field; other formats the table's key count `stored`.
pub fn key_count(t: &KeyTimes, stored: usize) -> usize {
    let span = |a: f32, b: f32| if b >= a && b - a < 1e6 { (b - a) as usize + 1 } else { 0 };
    match t {
        KeyTimes::F32StartStop(v) => span(v.first().map_or(0.0, |x| x.0), v.get(1).map_or(-1.0, |x| x.0)),
        KeyTimes::Uint16StartStop(v) => {
            span(v.first().map_or(0.0, |&x| x.into()), v.get(1).map_or(-1.0, |&x| x.into()))
        }
        KeyTimes::ByteStartStop(v) => span(v.first().map_or(0.0, |&x| x.into()), v.get(1).map_or(-1.0, |&x| x.into())),
        KeyTimes::Bitset { count, .. } => usize::from(*count),
        _ => stored,
    }
}

/// The smallest format that holds `frames` exactly: Byte when every frame is a whole number
/// below 256, UINT16 below 65536, else F32.
pub fn smallest(frames: &[f32]) -> u8 {
    let whole = frames.iter().all(|f| f.fract() == 0.0 && *f >= 0.0);
    match frames.iter().copied().fold(0f32, f32::max) {
        max if whole && max < 256.0 => BYTE,
        max if whole && max < 65536.0 => UINT16,
        _ => F32,
    }
}

/// Encodes frames in format `f`. StartStop requires consecutive integer frames; Bitset and the
/// integer formats integer frames in range. Bitset and StartStop are written with their raw
/// length (Lumberyard).
pub fn encode(f: u8, frames: &[f32]) -> Result<KeyTimes> {
    let int = |x: f32, max: f32| -> Result<u32> {
        if x.fract() == 0.0 && (0.0..=max).contains(&x) {
            Ok(x as u32)
        } else {
            Err(Error::unrepresentable(format!("key frame {x} in time format {}", name(f))))
        }
    };
    let u16s = |v: &[f32]| v.iter().map(|&x| int(x, 65535.0).map(|x| x as u16)).collect::<Result<Vec<u16>>>();
    let u8s = |v: &[f32]| v.iter().map(|&x| int(x, 255.0).map(|x| x as u8)).collect::<Result<Vec<u8>>>();
    let ends: Vec<f32> = match (frames.first(), frames.last()) {
        (Some(&a), Some(&b)) => vec![a, b],
        _ => Vec::new(),
    };
    if (3..=5).contains(&f) && frames.iter().enumerate().any(|(i, &x)| Some(x) != frames.first().map(|a| a + i as f32))
    {
        return Err(Error::unrepresentable("start/stop times need one key on every frame"));
    }
    Ok(match f {
        F32 => KeyTimes::F32(frames.iter().map(|&x| crate::raw_json::F32(x)).collect()),
        UINT16 => KeyTimes::Uint16(u16s(frames)?),
        BYTE => KeyTimes::Byte(u8s(frames)?),
        F32_START_STOP => KeyTimes::F32StartStop(ends.into_iter().map(crate::raw_json::F32).collect()),
        UINT16_START_STOP => KeyTimes::Uint16StartStop(u16s(&ends)?),
        BYTE_START_STOP => KeyTimes::ByteStartStop(u8s(&ends)?),
        BITSET => {
            let frames = u16s(frames)?;
            let (start, end) = (frames.first().copied().unwrap_or(0), frames.last().copied().unwrap_or(0));
            let count = u16::try_from(frames.len()).map_err(|_| Error::unrepresentable("more than 65535 keys"))?;
            let mut words = vec![0u16; (usize::from(end.saturating_sub(start)) + 1).div_ceil(16)];
            for x in frames {
                let bit = usize::from(x.wrapping_sub(start));
                if let Some(w) = words.get_mut(bit / 16) {
                    *w |= 1 << (bit % 16);
                }
            }
            KeyTimes::Bitset { start, end, count, words }
        }
        _ => return Err(Error::unsupported(format!("key-time format {f}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::{Cursor, Endian, Writer};
    use crate::formats::cryengine::raw::LengthRule;

    /// The bytes of `frames` encoded in format `f`.
    fn encode_bytes(f: u8, frames: &[f32]) -> Result<Vec<u8>> {
        let mut w = Writer::new(Endian::Little);
        encode(f, frames)?.write(&mut w);
        Ok(w.into_vec())
    }

    /// The frames of `n` keys of format `f` stored at the start of `data` (raw length).
    fn decode(f: u8, n: usize, data: &[u8], base: usize) -> Result<Vec<f32>> {
        let t = KeyTimes::read(&mut Cursor::with_base(data, base, Endian::Little), f, n, LengthRule::Raw)?;
        frames(&t, n, base)
    }

    /// The bytes a track of `n` keys of format `f` at the start of `data` takes under `rule`.
    fn stored_len(f: u8, n: usize, rule: LengthRule, data: &[u8]) -> Option<usize> {
        let mut c = Cursor::new(data, Endian::Little);
        KeyTimes::read(&mut c, f, n, rule).ok().map(|_| c.pos())
    }

    #[test]
    fn decodes_every_format() {
        // Hand-built from §4: F32 [0.0, 2.5]; u16 [0, 300]; u8 [0, 7].
        let f32s: Vec<u8> = [0f32, 2.5].iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(decode(F32, 2, &f32s, 0).unwrap(), [0.0, 2.5]);
        assert_eq!(decode(UINT16, 2, &[0, 0, 0x2C, 0x01], 0).unwrap(), [0.0, 300.0]);
        assert_eq!(decode(BYTE, 2, &[0, 7], 0).unwrap(), [0.0, 7.0]);
        // StartStop {3, 6}: keys on 3, 4, 5, 6.
        assert_eq!(decode(BYTE_START_STOP, 4, &[3, 6], 0).unwrap(), [3.0, 4.0, 5.0, 6.0]);
        assert_eq!(decode(UINT16_START_STOP, 4, &[3, 0, 6, 0], 0).unwrap(), [3.0, 4.0, 5.0, 6.0]);
        let ss: Vec<u8> = [3f32, 6.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(decode(F32_START_STOP, 4, &ss, 0).unwrap(), [3.0, 4.0, 5.0, 6.0]);
        assert!(decode(BYTE_START_STOP, 3, &[3, 6], 0).is_err());
        // Bitset start 2, end 19 (inclusive), 4 keys; word 0 = bits 0, 1, 13 -> 0x2003; word 1 = bit 1
        // (frame 2 + 16 + 1 = 19) -> keys 2, 3, 15, 19.
        let bs = [2, 0, 19, 0, 4, 0, 0x03, 0x20, 0x02, 0x00];
        assert_eq!(decode(BITSET, 4, &bs, 0).unwrap(), [2.0, 3.0, 15.0, 19.0]);
        assert_eq!(stored_len(BITSET, 4, LengthRule::Raw, &bs), Some(10));
        assert_eq!(stored_len(BITSET, 4, LengthRule::PerKey, &bs), Some(8));
        assert_eq!(stored_len(BYTE_START_STOP, 4, LengthRule::Raw, &[3, 6]), Some(2));
        assert_eq!(stored_len(BYTE_START_STOP, 4, LengthRule::PerKey, &[3, 6, 0, 0]), Some(4));
        assert!(decode(BITSET, 5, &bs, 0).is_err());
        assert!(decode(BITSET, 4, &bs[..9], 0).is_err());
    }

    #[test]
    fn encode_round_trips() {
        let frames = [2.0, 3.0, 15.0, 19.0];
        for f in [F32, UINT16, BYTE, BITSET] {
            let b = encode_bytes(f, &frames).unwrap();
            assert_eq!(decode(f, 4, &b, 0).unwrap(), frames, "{f}");
        }
        assert_eq!(encode_bytes(BITSET, &frames).unwrap(), [2, 0, 19, 0, 4, 0, 0x03, 0x20, 0x02, 0x00]);
        let run = [4.0, 5.0, 6.0];
        for f in [F32_START_STOP, UINT16_START_STOP, BYTE_START_STOP] {
            assert_eq!(decode(f, 3, &encode_bytes(f, &run).unwrap(), 0).unwrap(), run);
        }
        assert!(encode(BYTE, &[256.0]).is_err());
        assert!(encode(UINT16, &[1.5]).is_err());
        assert!(encode(BYTE_START_STOP, &[1.0, 3.0]).is_err());
    }
}
