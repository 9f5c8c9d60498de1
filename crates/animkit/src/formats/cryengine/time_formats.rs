//! Key-time formats of compressed controllers (`EKeyTimesFormat`, `cryengine.md` §4). Values are
//! frame numbers (30 fps in compressed CAFs).
//!
//! StartStop and Bitset tracks have two possible byte lengths (§10 C12): the CE5 loader advances
//! `elementSize × numKeys`, the Lumberyard writer stores the raw length (two elements for
//! StartStop; three header words plus the bit words for Bitset). [`stored_len`] gives both; the
//! controller reader picks the one whose arrays end at the chunk's end.
//!
//! Bitset: `u16 start, u16 end, u16 keyCount`, then words; bit `j` of word `i` is a key at
//! `start + 16i + j`; `end` is inclusive and the third word is the key count (§13).

use crate::bytes::{Cursor, Endian};
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

/// The size of one element of format `f`.
pub fn element_size(f: u8) -> Option<usize> {
    match f {
        0 | 3 => Some(4),
        1 | 4 | 6 => Some(2),
        2 | 5 => Some(1),
        _ => None,
    }
}

/// How the byte length of a StartStop or Bitset track is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthRule {
    /// `elementSize × numKeys` (CE5 loader).
    PerKey,
    /// The bytes actually used (Lumberyard writer).
    Raw,
}

/// The bytes a time track of `n` keys occupies under `rule`; for Bitset with [`LengthRule::Raw`]
/// the header at `data` is needed (`None` when it is not there).
pub fn stored_len(f: u8, n: usize, rule: LengthRule, data: &[u8]) -> Option<usize> {
    stored_len_endian(f, n, rule, data, Endian::Little)
}

/// [`stored_len`] with the Bitset header words in byte order `endian`.
pub fn stored_len_endian(f: u8, n: usize, rule: LengthRule, data: &[u8], endian: Endian) -> Option<usize> {
    let e = element_size(f)?;
    match (f, rule) {
        (0..=2, _) | (_, LengthRule::PerKey) => e.checked_mul(n),
        (3..=5, LengthRule::Raw) => Some(2 * e),
        (_, LengthRule::Raw) => {
            let word = |i: usize| -> Option<u16> {
                let b = [*data.get(i)?, *data.get(i + 1)?];
                Some(match endian {
                    Endian::Little => u16::from_le_bytes(b),
                    Endian::Big => u16::from_be_bytes(b),
                })
            };
            let (start, end) = (word(0)?, word(2)?);
            let span = usize::from(end.checked_sub(start)?) + 1;
            Some(2 * (3 + span.div_ceil(16)))
        }
    }
}

/// Decodes `n` key times (frames) of format `f` from the start of `data`. `base` is the absolute
/// offset of `data` for error messages.
pub fn decode(f: u8, n: usize, data: &[u8], base: usize) -> Result<Vec<f32>> {
    decode_endian(f, n, data, base, Endian::Little)
}

/// [`decode`] in byte order `endian`: every element (f32, u16; Bitset header and bit words) is
/// read at its own width.
pub fn decode_endian(f: u8, n: usize, data: &[u8], base: usize, endian: Endian) -> Result<Vec<f32>> {
    let mut c = Cursor::with_base(data, base, endian);
    let e = element_size(f).ok_or_else(|| Error::invalid(base, format!("unknown key-time format {f}")))?;
    match f {
        0..=2 => {
            let n = c.count(n as u64, e, "key time")?;
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                out.push(match f {
                    0 => c.f32()?,
                    1 => f32::from(c.u16()?),
                    _ => f32::from(c.u8()?),
                });
            }
            Ok(out)
        }
        3..=5 => {
            let read = |c: &mut Cursor| -> Result<f32> {
                Ok(match f {
                    3 => c.f32()?,
                    4 => f32::from(c.u16()?),
                    _ => f32::from(c.u8()?),
                })
            };
            let start = read(&mut c)?;
            let stop = read(&mut c)?;
            let span = stop - start;
            if !(span.is_finite() && span >= 0.0 && (span + 1.0 - n as f32).abs() < 0.5 || n == 0) {
                return Err(Error::invalid(base, format!("start/stop {start}..{stop} does not hold {n} keys")));
            }
            Ok((0..n).map(|i| start + i as f32).collect())
        }
        _ => {
            let start = c.u16()?;
            let end = c.u16()?;
            let count = c.u16()?;
            let span = usize::from(
                end.checked_sub(start)
                    .ok_or_else(|| Error::invalid(base, format!("bitset end {end} is before its start {start}")))?,
            ) + 1;
            let words = c.count(span.div_ceil(16) as u64, 2, "bitset word")?;
            let mut out = Vec::with_capacity(n.min(span));
            for i in 0..words {
                let w = c.u16()?;
                for j in 0..16 {
                    if w & (1 << j) != 0 {
                        let frame = usize::from(start) + 16 * i + j;
                        if frame <= usize::from(end) {
                            out.push(frame as f32);
                        }
                    }
                }
            }
            if out.len() != n || usize::from(count) != n {
                return Err(Error::invalid(
                    base,
                    format!("bitset holds {} keys (count field {count}), the track has {n}", out.len()),
                ));
            }
            Ok(out)
        }
    }
}

/// Encodes frames in format `f`. StartStop requires consecutive integer frames; Bitset and the
/// integer formats integer frames in range. Bitset and StartStop are written with their raw
/// length (Lumberyard).
pub fn encode(f: u8, frames: &[f32]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let int = |x: f32, max: f32| -> Result<u32> {
        if x.fract() == 0.0 && (0.0..=max).contains(&x) {
            Ok(x as u32)
        } else {
            Err(Error::unrepresentable(format!("key frame {x} in time format {}", name(f))))
        }
    };
    match f {
        0 => frames.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        1 => {
            for &x in frames {
                out.extend_from_slice(&(int(x, 65535.0)? as u16).to_le_bytes());
            }
        }
        2 => {
            for &x in frames {
                out.push(int(x, 255.0)? as u8);
            }
        }
        3..=5 => {
            let (Some(&a), Some(&b)) = (frames.first(), frames.last()) else { return Ok(out) };
            if frames.iter().enumerate().any(|(i, &x)| x != a + i as f32) {
                return Err(Error::unrepresentable("start/stop times need one key on every frame"));
            }
            for x in [a, b] {
                match f {
                    3 => out.extend_from_slice(&x.to_le_bytes()),
                    4 => out.extend_from_slice(&(int(x, 65535.0)? as u16).to_le_bytes()),
                    _ => out.push(int(x, 255.0)? as u8),
                }
            }
        }
        6 => {
            let (Some(&a), Some(&b)) = (frames.first(), frames.last()) else { return Ok(out) };
            let (start, end) = (int(a, 65535.0)?, int(b, 65535.0)?);
            let count = u16::try_from(frames.len()).map_err(|_| Error::unrepresentable("more than 65535 keys"))?;
            let mut words = vec![0u16; (end.saturating_sub(start) as usize + 1).div_ceil(16)];
            for &x in frames {
                let bit = (int(x, 65535.0)? - start) as usize;
                if let Some(w) = words.get_mut(bit / 16) {
                    *w |= 1 << (bit % 16);
                }
            }
            for w in [start as u16, end as u16, count].into_iter().chain(words) {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        _ => return Err(Error::unsupported(format!("key-time format {f}"))),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(stored_len(BYTE_START_STOP, 4, LengthRule::Raw, &[]), Some(2));
        assert!(decode(BITSET, 5, &bs, 0).is_err());
        assert!(decode(BITSET, 4, &bs[..9], 0).is_err());
    }

    #[test]
    fn encode_round_trips() {
        let frames = [2.0, 3.0, 15.0, 19.0];
        for f in [F32, UINT16, BYTE, BITSET] {
            let b = encode(f, &frames).unwrap();
            assert_eq!(decode(f, 4, &b, 0).unwrap(), frames, "{f}");
        }
        assert_eq!(encode(BITSET, &frames).unwrap(), [2, 0, 19, 0, 4, 0, 0x03, 0x20, 0x02, 0x00]);
        let run = [4.0, 5.0, 6.0];
        for f in [F32_START_STOP, UINT16_START_STOP, BYTE_START_STOP] {
            assert_eq!(decode(f, 3, &encode(f, &run).unwrap(), 0).unwrap(), run);
        }
        assert!(encode(BYTE, &[256.0]).is_err());
        assert!(encode(UINT16, &[1.5]).is_err());
        assert!(encode(BYTE_START_STOP, &[1.0, 3.0]).is_err());
    }
}
