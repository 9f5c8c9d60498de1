//! Rotation and position value codecs of compressed controllers (`cryengine.md` §4, §5), and
//! the CRC-32 controller ids (§8).
//!
//! Decoding works in `f32` per step as the engine does; the dropped smallest-three component is
//! clamped (`sqrt(max(0, 1 − Σc²))`). Encoders follow §5.2: normalise, drop the first largest
//! component, make it non-negative, round to nearest, clamp; bit 45 of the 48-bit form stays 0.

use glam::Quat;

use super::raw::{words_into, RotationKeys};
use crate::bytes::{Cursor, Endian};
use crate::error::{Error, Result};
use crate::raw_json::F32;

/// `ECompressionFormat` values (§4).
pub mod format {
    /// Four `f32`.
    pub const NO_COMPRESS_QUAT: u8 = 1;
    /// Three `f32`.
    pub const NO_COMPRESS_VEC3: u8 = 2;
    /// `x, y, z` as `i16`; `w` from the unit length.
    pub const SHOT_INT3_QUAT: u8 = 3;
    /// Smallest three, 10 bits each, in a `u32`.
    pub const SMALL_TREE_DWORD_QUAT: u8 = 4;
    /// Smallest three, 15 bits each, in three `u16`.
    pub const SMALL_TREE_48BIT_QUAT: u8 = 5;
    /// Smallest three, 20 bits each, in a `u64`.
    pub const SMALL_TREE_64BIT_QUAT: u8 = 6;
    /// Smallest three, 21, 21 and 20 bits, in a `u64`.
    pub const SMALL_TREE_64BIT_EXT_QUAT: u8 = 8;
}

/// The name of a compression format value.
pub fn format_name(f: u8) -> &'static str {
    match f {
        0 => "NoCompress",
        1 => "NoCompressQuat",
        2 => "NoCompressVec3",
        3 => "ShotInt3Quat",
        4 => "SmallTreeDWORDQuat",
        5 => "SmallTree48BitQuat",
        6 => "SmallTree64BitQuat",
        7 => "PolarQuat",
        8 => "SmallTree64BitExtQuat",
        9 => "AutomaticQuat",
        10 => "NoController",
        _ => "unknown",
    }
}

/// The engine's literal `0.70710678` (equal to `FRAC_1_SQRT_2` in f32).
#[allow(clippy::approx_constant)]
const HALF_SQRT2: f32 = 0.707_106_78;

/// A smallest-three layout: the (width, scale) of each stored component, lowest bits first,
/// and the position of the 2-bit index.
struct SmallTree {
    fields: [(u32, f32); 3],
    index_shift: u32,
}

const DWORD: SmallTree = SmallTree { fields: [(10, 723.0); 3], index_shift: 30 };
const ST48: SmallTree = SmallTree { fields: [(15, 23170.0); 3], index_shift: 46 };
const ST64: SmallTree = SmallTree { fields: [(20, 741_454.0); 3], index_shift: 62 };
const ST64EXT: SmallTree =
    SmallTree { fields: [(21, 1_482_909.0), (21, 1_482_909.0), (20, 741_454.0)], index_shift: 62 };

impl SmallTree {
    #[inline]
    fn decode(&self, v: u64) -> Quat {
        let mut shift = 0u32;
        let [a, b, c] = self.fields.map(|(width, max)| {
            let raw = (v >> shift) & ((1u64 << width) - 1);
            shift += width;
            scaled(raw, max) - HALF_SQRT2
        });
        let d = (1.0 - (a * a + b * b + c * c)).max(0.0).sqrt();
        let [x, y, z, w] = match (v >> self.index_shift) & 3 {
            0 => [d, a, b, c],
            1 => [a, d, b, c],
            2 => [a, b, d, c],
            _ => [a, b, c, d],
        };
        Quat::from_xyzw(x, y, z, w)
    }

    fn encode(&self, q: Quat) -> u64 {
        let c = normalized(q).to_array();
        // The first largest component is dropped.
        let (idx, largest) =
            c.iter()
                .copied()
                .enumerate()
                .fold((0, c[0]), |(bi, bx), (i, x)| if x.abs() > bx.abs() { (i, x) } else { (bi, bx) });
        let sign = if largest < 0.0 { -1.0 } else { 1.0 };
        let mut v = (idx as u64) << self.index_shift;
        let mut shift = 0u32;
        let kept = c.iter().enumerate().filter(|&(comp, _)| comp != idx);
        for ((_, &x), &(width, max)) in kept.zip(&self.fields) {
            let x = x * sign;
            let top = ((1u64 << width) - 1) as f64;
            let raw = ((f64::from(x) + f64::from(HALF_SQRT2)) * f64::from(max) + 0.5).floor().clamp(0.0, top);
            v |= (raw as u64) << shift;
            shift += width;
        }
        v
    }
}

/// `raw as f32 / max` for a stored component (`raw` below 2²¹, `max` a [`SmallTree`] scale):
/// the product by the reciprocal in `f64`, rounded once to `f32`, is that same number (the
/// quotient is never within the product's error of a rounding boundary; the test
/// `scaled_is_the_quotient` checks every value) and far cheaper than a division.
#[inline(always)]
fn scaled(raw: u64, max: f32) -> f32 {
    (raw as f64 * (1.0 / f64::from(max))) as f32
}

fn normalized(q: Quat) -> Quat {
    let len = q.length();
    if len > 0.0 && len.is_finite() {
        q / len
    } else {
        Quat::IDENTITY
    }
}

/// Decodes one rotation value of format `f` from the start of `b`. Little-endian.
pub fn decode_rotation(f: u8, b: &[u8]) -> Result<Quat> {
    let mut out = Vec::with_capacity(1);
    read_rotations(&mut Cursor::new(b, Endian::Little), f, 1, &mut out)?;
    out.pop().ok_or_else(|| Error::invalid(0, "no rotation value"))
}

/// Appends `n` rotation keys of format `f` read at the cursor, decoded from the stored words
/// in place: one loop per codec.
pub(crate) fn read_rotations(c: &mut Cursor, f: u8, n: usize, out: &mut Vec<Quat>) -> Result<()> {
    let what = "rotation key";
    match f {
        0 | 1 => words_into(c, n, what, out, |[x, y, z, w]: [F32; 4]| Quat::from_xyzw(x.0, y.0, z.0, w.0)),
        3 => words_into(c, n, what, out, shot_int3),
        4 => words_into(c, n, what, out, |v: u32| DWORD.decode(u64::from(v))),
        5 => words_into(c, n, what, out, |v| ST48.decode(words48(v))),
        6 => words_into(c, n, what, out, |v| ST64.decode(v)),
        8 => words_into(c, n, what, out, |v| ST64EXT.decode(v)),
        f => Err(Error::unsupported(format!("rotation format {f} has no codec")).within("rotation keys")),
    }
}

/// ShotInt3Quat: `x, y, z` × 32767, `w` from the unit length.
#[inline]
fn shot_int3([x, y, z]: [i16; 3]) -> Quat {
    let [x, y, z] = [x, y, z].map(|c| f32::from(c) / 32767.0);
    Quat::from_xyzw(x, y, z, (1.0 - x * x - y * y - z * z).max(0.0).sqrt())
}

/// The 48-bit value of three `u16` storage words, lowest first.
#[inline]
fn words48([a, b, c]: [u16; 3]) -> u64 {
    u64::from(a) | u64::from(b) << 16 | u64::from(c) << 32
}

/// Decodes rotation keys as stored, in bulk: one loop per codec.
pub fn decode_keys(keys: &RotationKeys) -> Vec<Quat> {
    match keys {
        RotationKeys::NoCompress(k) | RotationKeys::NoCompressQuat(k) => {
            k.iter().map(|[x, y, z, w]| Quat::from_xyzw(x.0, y.0, z.0, w.0)).collect()
        }
        RotationKeys::ShotInt3(k) => k.iter().map(|&v| shot_int3(v)).collect(),
        RotationKeys::Dword(k) => k.iter().map(|&v| DWORD.decode(u64::from(v))).collect(),
        RotationKeys::St48(k) => k.iter().map(|&v| ST48.decode(words48(v))).collect(),
        RotationKeys::St64(k) => k.iter().map(|&v| ST64.decode(v)).collect(),
        RotationKeys::St64Ext(k) => k.iter().map(|&v| ST64EXT.decode(v)).collect(),
    }
}

/// Appends `n` rotation keys of format `f` read at the cursor, made [`continuous`].
pub(crate) fn read_continuous(c: &mut Cursor, f: u8, n: usize, out: &mut Vec<Quat>) -> Result<()> {
    let start = out.len();
    read_rotations(c, f, n, out)?;
    if let Some(new) = out.get_mut(start..) {
        make_continuous(new);
    }
    Ok(())
}

/// Appends the encoding of `q` in format `f`.
pub fn encode_rotation(f: u8, q: Quat, out: &mut Vec<u8>) -> Result<()> {
    match f {
        0 | 1 => out.extend(q.to_array().iter().flat_map(|c| c.to_le_bytes())),
        3 => {
            let mut q = normalized(q);
            if q.w < 0.0 {
                q = -q;
            }
            let int = |c: f32| (f64::from(c) * 32767.0 + 0.5).floor().clamp(-32767.0, 32767.0) as i16;
            out.extend([q.x, q.y, q.z].iter().flat_map(|&c| int(c).to_le_bytes()));
        }
        4 => out.extend_from_slice(&(DWORD.encode(q) as u32).to_le_bytes()),
        5 => out.extend_from_slice(&ST48.encode(q).to_le_bytes()[..6]),
        6 => out.extend_from_slice(&ST64.encode(q).to_le_bytes()),
        8 => out.extend_from_slice(&ST64EXT.encode(q).to_le_bytes()),
        _ => return Err(unsupported_rotation(f)),
    }
    Ok(())
}

/// The bytes of `values` encoded in format `f`, one after another.
pub(crate) fn encode_rotations(f: u8, values: &[Quat]) -> Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(16 * values.len());
    values.iter().try_for_each(|&q| encode_rotation(f, q, &mut bytes)).map(|()| bytes)
}

/// `values` as stored keys of format `f`.
pub fn encode_keys(f: u8, values: &[Quat]) -> Result<RotationKeys> {
    let bytes = encode_rotations(f, values)?;
    RotationKeys::read(&mut Cursor::new(&bytes, Endian::Little), f, values.len())
}

fn unsupported_rotation(f: u8) -> Error {
    Error::unsupported(format!("rotation format {f} ({}) has no codec", format_name(f)))
}

/// The rotation angle (radians) between `q` and what codec `f` stores for it.
pub fn encoding_error(f: u8, q: Quat) -> Result<f32> {
    let mut bytes = Vec::with_capacity(16);
    encode_rotation(f, q, &mut bytes)?;
    let (q, back) = (q.normalize(), decode_rotation(f, &bytes)?);
    // 4·asin(|q − ±q'|/2) is the angle between unit quaternions, precise for small angles (an
    // acos of the dot product cannot resolve below ~3.5e-4 rad in f32).
    let back = if q.dot(back) < 0.0 { -back } else { back };
    Ok(4.0 * (glam::Vec4::from(q - back).length() / 2.0).min(1.0).asin())
}

/// The controller id of a bone name: the standard CRC-32 of the case-preserved name (§8).
pub fn controller_id(name: &str) -> u32 {
    crc32fast::hash(name.as_bytes())
}

/// How far `|q|²` may be from 1 for a decoded key to be kept as stored (the engine interpolates
/// the stored keys; normalising them would move a dot product of exactly 0 off 0).
const UNIT_TOLERANCE: f32 = 1e-5;

/// Rotation keys that sample as the engine interpolates them (§6).
///
/// Between two keys `a`, `b` the engine's nlerp negates `b` when `(a|b) < 0`, comparing the keys
/// as stored: the hemisphere is chosen at sampling time, pair by pair. Here each key is multiplied
/// by the product of those negations up to it, so no two consecutive keys have a negative dot
/// product (glTF slerp samplers need that) and [`crate::sample::nlerp`] never negates again:
/// every segment is the engine's, or its negation, which is the same rotation. A dot product of
/// exactly 0 negates nothing, in the engine as here. Keys within [`UNIT_TOLERANCE`] of unit length
/// are kept as decoded; others are normalised, and zero or non-finite ones become the identity.
pub(crate) fn continuous(mut values: Vec<glam::Quat>) -> Vec<glam::Quat> {
    make_continuous(&mut values);
    values
}

/// [`continuous`] in place.
fn make_continuous(values: &mut [glam::Quat]) {
    let (mut previous, mut sign) = (None, 1.0f32);
    for v in values {
        let q = *v;
        let q = match q.length_squared() {
            l if (l - 1.0).abs() <= UNIT_TOLERANCE => q,
            l if l > 0.0 && q.is_finite() => q.normalize(),
            _ => glam::Quat::IDENTITY,
        };
        if previous.is_some_and(|p| crate::sample::hemisphere_dot(p, q) < 0.0) {
            sign = -sign;
        }
        previous = Some(q);
        *v = q * sign;
    }
}

/// The largest error (radians of rotation) the codec `f` may introduce.
#[cfg(test)]
pub(crate) fn max_error(f: u8) -> f32 {
    match f {
        0 | 1 => 1e-6,
        // w = sqrt(1 − Σc²) amplifies the x, y, z rounding when w is near 0.
        3 => 0.02,
        4 => 2.0 / 723.0 * 2.0,
        5 => 2.0 / 23170.0 * 2.0,
        _ => 2.0 / 741_454.0 * 2.0 + 1e-6,
    }
}

/// The rotation angle between two unit quaternions (q and −q are equal).
#[cfg(test)]
pub(crate) fn angle_between(a: Quat, b: Quat) -> f32 {
    // atan2 stays accurate for tiny angles where acos(dot) loses precision in f32.
    let d = a * b.conjugate();
    2.0 * d.xyz().length().atan2(d.w.abs())
}

#[cfg(test)]
mod tests {
    #[test]
    fn encoding_error_is_the_angle_to_the_stored_rotation() {
        use super::format::*;
        // Floats store the identity exactly; the packed codecs within their resolution (the
        // 10-bit DWORD codec cannot hit 0 exactly: its code range is centred between two codes).
        assert!(super::encoding_error(NO_COMPRESS_QUAT, Quat::IDENTITY).unwrap() < 1e-6);
        for f in [SHOT_INT3_QUAT, SMALL_TREE_DWORD_QUAT, SMALL_TREE_48BIT_QUAT, SMALL_TREE_64BIT_QUAT] {
            let e = super::encoding_error(f, Quat::IDENTITY).unwrap();
            assert!(e < 5e-3, "codec {f}: {e}");
        }
        // 40° about a skew axis: floats are exact, SmallTree48 (15-bit components) is within 1e-4 rad.
        let q = Quat::from_axis_angle(glam::Vec3::new(1.0, 2.0, -0.5).normalize(), 40f32.to_radians());
        assert!(super::encoding_error(NO_COMPRESS_QUAT, q).unwrap() < 1e-6);
        let e = super::encoding_error(SMALL_TREE_48BIT_QUAT, q).unwrap();
        assert!(e > 0.0 && e < 1e-4, "{e}");
    }

    use super::*;

    // Expected values computed independently from the spec's math (§5.2, strict f32 per step):
    //   K=0.70710678; f32=lambda x: struct.unpack('<f',struct.pack('<f',x))[0]
    //   enc(q,widths,maxes,shift): idx=first largest |q|; negate if q[idx]<0;
    //       raw=clamp(floor((c+K)*max+0.5)); v|=raw<<s
    //   dec(v,...): c=f32(f32(raw/max)-K); w=sqrt(max(0,1-Σc²))
    //   q=(1,2,3,4)/sqrt(30):
    //     dword   83 1e bc f8               -> 0.1822432 0.364_815_8 0.5473884 0.730_796
    //     st48    86 50 86 b0 64 dc         -> 0.1825781 0.3651418 0.5477055 0.7303118
    //     st64    ca 10 4a 19 c2 5e 32 ce   -> 0.1825749 0.3651486 0.5477223 0.7302967
    //     st64ext 94 21 34 65 08 7b c9 f8   -> 0.1825743 0.3651485 0.5477223 0.7302969
    //     shotint3: floor(c*32767+0.5) as i16 LE -> 5e 17 bd 2e 1b 46 -> 5982/32767, 11965/32767,
    //       17947/32767, w = 0.7303022
    //   identity: dword ff fd f7 df -> (-0.0003294 x3, 0.9999998); st48 00 40 00 20 00 d0 -> (1.45e-5 x3, 1);
    //     st64 ff ff f7 ff 7f ff ff c7; st64ext ff ff ef ff ff fd ff df -> (~0, ~0, ~0, 1)
    fn hex(s: &str) -> Vec<u8> {
        s.split_whitespace().map(|h| u8::from_str_radix(h, 16).unwrap()).collect()
    }

    fn q1234() -> Quat {
        Quat::from_xyzw(1.0, 2.0, 3.0, 4.0) / 30f32.sqrt()
    }

    fn close(a: Quat, b: [f32; 4], tol: f32) {
        let b = Quat::from_array(b);
        let d = if a.dot(b) < 0.0 { -a } else { a };
        assert!((d - b).length() < tol, "{a:?} vs {b:?}");
    }

    #[test]
    fn scaled_is_the_quotient() {
        for layout in [DWORD, ST48, ST64, ST64EXT] {
            for (width, max) in layout.fields {
                for raw in 0..1u64 << width {
                    assert_eq!(scaled(raw, max).to_bits(), (raw as f32 / max).to_bits(), "{raw} / {max}");
                }
            }
        }
    }

    #[test]
    fn decode_spec_vectors() {
        let cases: [(u8, &str, [f32; 4]); 5] = [
            (4, "83 1E BC F8", [0.1822432, 0.364_815_8, 0.5473884, 0.730_796]),
            (5, "86 50 86 B0 64 DC", [0.1825781, 0.3651418, 0.5477055, 0.7303118]),
            (6, "CA 10 4A 19 C2 5E 32 CE", [0.1825749, 0.3651486, 0.5477223, 0.7302967]),
            (8, "94 21 34 65 08 7B C9 F8", [0.1825743, 0.3651485, 0.5477223, 0.7302969]),
            (3, "5E 17 BD 2E 1B 46", [0.1825617, 0.365_154, 0.5477157, 0.7303022]),
        ];
        let identities: [(u8, &str, [f32; 4]); 5] = [
            (4, "FF FD F7 DF", [-0.0003294, -0.0003294, -0.0003294, 0.999_999_8]),
            (5, "00 40 00 20 00 D0", [1.45e-5, 1.45e-5, 1.45e-5, 1.0]),
            (6, "FF FF F7 FF 7F FF FF C7", [0.0, 0.0, 0.0, 1.0]),
            (8, "FF FF EF FF FF FD FF DF", [0.0, 0.0, 0.0, 1.0]),
            (3, "00 00 00 00 00 00", [0.0, 0.0, 0.0, 1.0]),
        ];
        for (q, tolerance, vectors) in [(q1234(), 1e-5, cases), (Quat::IDENTITY, 1e-6, identities)] {
            for (f, bytes, expect) in vectors {
                close(decode_rotation(f, &hex(bytes)).unwrap(), expect, tolerance);
                assert_eq!(encode_rotations(f, &[q]).unwrap(), hex(bytes), "format {f}, {q:?}");
            }
        }
        // Worked example of §5.2: index 3, raws 20614, 24844, 29074.
        let v = 0xDC64_B086_5086u64;
        assert_eq!(v >> 46, 3);
        assert_eq!([v & 0x7FFF, (v >> 15) & 0x7FFF, (v >> 30) & 0x7FFF], [20614, 24844, 29074]);
        close(
            decode_rotation(1, &hex("00 00 80 3F 00 00 00 00 00 00 00 00 00 00 00 00")).unwrap(),
            [1.0, 0.0, 0.0, 0.0],
            1e-9,
        );
        assert!(decode_rotation(7, &[0; 16]).is_err());
        assert!(decode_rotation(5, &[0; 5]).is_err());
    }

    #[test]
    fn crc32_controller_ids() {
        // zlib.crc32 of the names (Python): the §8 vectors.
        assert_eq!(controller_id("Bip01"), 0x7856_1A24);
        assert_eq!(controller_id("bip01"), 0xB997_3520);
        assert_eq!(controller_id("Hips"), 0xDED1_0611);
        assert_eq!(controller_id("World"), 0xFBB6_3E47);
        assert_eq!(controller_id("L_UpperLeg"), 0x1253_AE20);
    }

    #[test]
    fn encoders_round_trip_random_quaternions() {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        let mut rnd = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut worst = [0f32; 9];
        for _ in 0..100_000 {
            // Uniform random rotation (Shoemake).
            let (u1, u2, u3) = (rnd(), rnd(), rnd());
            let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
            let t2 = std::f64::consts::TAU * u2;
            let t3 = std::f64::consts::TAU * u3;
            let q = Quat::from_xyzw(
                (a * t2.sin()) as f32,
                (a * t2.cos()) as f32,
                (b * t3.sin()) as f32,
                (b * t3.cos()) as f32,
            );
            for f in [1u8, 3, 4, 5, 6, 8] {
                let out = encode_rotations(f, &[q]).unwrap();
                assert_eq!(out.len(), [16, 16, 0, 6, 4, 6, 8, 0, 8][f as usize]);
                if f == 5 {
                    assert_eq!(out[5] & 0x20, 0, "bit 45 must stay clear");
                }
                let back = decode_rotation(f, &out).unwrap();
                let e = angle_between(back.normalize(), q);
                worst[f as usize] = worst[f as usize].max(e);
                assert!(e <= max_error(f), "format {f}: error {e} for {q:?}");
            }
        }
        assert!(worst[5] > 0.0 && worst[5] < 1.3e-4, "{worst:?}");
    }
}
