//! Controller chunks (type 0x100D) and the CAF header chunks (`cryengine.md` §2, §3, §5.5, §5.6).
//!
//! Decoded controllers hold key times in **frames** and values in the model's convention:
//! quaternions active (glTF), positions in metres. PQLog (0x827, 0x830) rotations are stored as
//! `log(conj(q))` (§13) and positions in centimetres; their tick times become
//! `(t − t₀)/160` frames. 0x833 keys carry no time: key *i* is frame *i*.
//!
//! Big-endian chunks (§1.5: the flag bit in the chunk version) are read for every controller
//! version. For the compressed controllers 0x829 / 0x831 / 0x832 the spec does not say how the
//! codecs are byte-swapped; this reader assumes what CryEngine's per-struct `SwapEndian` does:
//! every scalar of the descriptor is swapped at its width (`u32` id and flags, `u16` key counts,
//! `u8` formats as they are); key times per element (Byte none, UINT16 `u16`, F32 `f32`,
//! StartStop at its element width, Bitset `u16` header and bit words); positions and scales
//! `f32`×3; rotations per storage word: NoCompressQuat `f32`×4, ShotInt3Quat `i16`×3,
//! SmallTreeDWORDQuat `u32`, SmallTree48BitQuat `u16`×3, SmallTree64BitQuat and
//! SmallTree64BitExtQuat `u64`. After swapping each word to native order the bit-level decoding is
//! the little-endian one. Big-endian DBA 0x905 stays unsupported.

use glam::{Quat, Vec3};

use super::chunkfile::kind;
use super::quat_codecs::{decode_position_endian, decode_rotations, position_size, rotation_size};
use super::raw::{Body, Quat4, Vec3f};
use super::time_formats::{self, LengthRule};
use crate::bytes::{round_up, Cursor, Endian};
use crate::error::{Context, Error, Result};

/// Key times (frames) and values of one channel.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeyTrack<T> {
    /// Key times in frames.
    pub frames: Vec<f32>,
    /// One value per key.
    pub values: Vec<T>,
}

/// Formats of one compressed channel, for `info` and lint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChannelFormat {
    /// `ECompressionFormat` of the values (§4).
    pub value_format: u8,
    /// `EKeyTimesFormat` of the key times (§4).
    pub time_format: u8,
    /// 0 = reuse the rotation time track, 1 = own track (positions); 2 = own (scale).
    pub keys_info: u8,
}

/// A decoded controller.
#[derive(Debug, Clone, PartialEq)]
pub struct Controller {
    /// The controller id: the CRC-32 of the bone name.
    pub id: u32,
    /// The chunk version (0x827 … 0x833).
    pub version: u32,
    /// Rotation keys (active, glTF convention).
    pub rotation: Option<KeyTrack<Quat>>,
    /// Position keys in metres.
    pub position: Option<KeyTrack<Vec3>>,
    /// Scale keys (0x832, 0x833).
    pub scale: Option<KeyTrack<Vec3>>,
    /// Compressed controllers: rotation, position and scale formats.
    pub formats: Option<[ChannelFormat; 3]>,
    /// Which StartStop/Bitset length rule made the arrays end at the chunk's end.
    pub length_rule: Option<LengthRule>,
    /// Whether tracks are aligned to 4 bytes.
    pub aligned: bool,
    /// 0x831 (Lumberyard) flags word.
    pub flags: Option<u32>,
}

/// PQLog / PQS tick rate: 160 ticks per frame.
pub const TICKS_PER_FRAME: i64 = 160;

/// `exp` of a log-quaternion (`Cry_Quat.h`): `(sin|v|·v/|v|, cos|v|)`.
pub fn exp_log(v: Vec3) -> Quat {
    let a = v.length();
    if a <= 0.0 || !a.is_finite() {
        return Quat::IDENTITY;
    }
    let s = a.sin() / a;
    Quat::from_xyzw(v.x * s, v.y * s, v.z * s, a.cos())
}

/// The inverse of [`exp_log`]: `q.xyz · atan2(|q.xyz|, w)/|q.xyz|`.
pub fn log_quat(q: Quat) -> Vec3 {
    let v = q.xyz();
    let s = v.length();
    if s <= 0.0 {
        return Vec3::ZERO;
    }
    v * (s.atan2(q.w) / s)
}

/// Parses a controller chunk payload (embedded header already stripped). `base` is the payload's
/// absolute offset.
pub fn parse(version: u32, payload: &[u8], base: usize, endian: Endian) -> Result<Controller> {
    parse_inner(version, payload, base, endian).within(|| format!("controller 0x{version:X}"))
}

fn parse_inner(version: u32, payload: &[u8], base: usize, endian: Endian) -> Result<Controller> {
    let mut c = Cursor::with_base(payload, base, endian);
    let uncompiled = match version {
        0x827 | 0x830 | 0x833 => version,
        // CE2 used 0x831 for `{numKeys, id}` + PQLog keys (§10 C11): tell by size.
        0x831
            if c.clone().u32().ok().and_then(|n| u64::from(n).checked_mul(28)?.checked_add(8))
                == Some(payload.len() as u64) =>
        {
            0x827
        }
        0x829 | 0x831 | 0x832 => return parse_compressed(version, payload, base, endian),
        _ => return Err(Error::unsupported(format!("controller version 0x{version:X}")).within(format!("at {base}"))),
    };
    let body = Body::decode(kind::CONTROLLER, uncompiled, &mut c)?;
    body.as_ref().and_then(from_body).ok_or_else(|| Error::invalid(base, "not an uncompiled controller"))
}

/// The controller of an uncompiled controller body (PQLog 0x827/0x830, PQS 0x833) in the
/// model's convention: PQLog rotations are stored as `log(conj(q))` and positions in
/// centimetres; tick times become `(t − t₀)/160` frames (§5.5; ticks off a frame keep their
/// fraction); PQS key *i* is frame *i*.
pub fn from_body(body: &Body) -> Option<Controller> {
    let v = |v: &Vec3f| Vec3::new(v.x.0, v.y.0, v.z.0);
    let bare = |id, version| Controller {
        id,
        version,
        rotation: None,
        position: None,
        scale: None,
        formats: None,
        length_rule: None,
        aligned: false,
        flags: None,
    };
    Some(match body {
        Body::PqLog { controller_id, flags, keys, .. } => {
            let t0 = keys.first().map_or(0, |k| i64::from(k.time));
            let (mut frames, mut rotations, mut positions) =
                (Vec::with_capacity(keys.len()), Vec::with_capacity(keys.len()), Vec::with_capacity(keys.len()));
            for k in keys {
                frames.push(((i64::from(k.time) - t0) as f64 / TICKS_PER_FRAME as f64) as f32);
                rotations.push(exp_log(v(&k.rot_log)).conjugate());
                positions.push(v(&k.position) / 100.0);
            }
            Controller {
                rotation: Some(KeyTrack { frames: frames.clone(), values: rotations }),
                position: Some(KeyTrack { frames, values: positions }),
                flags: *flags,
                ..bare(*controller_id, if flags.is_some() { 0x830 } else { 0x827 })
            }
        }
        Body::Pqs { controller_id, keys, .. } => {
            let frames: Vec<f32> = (0..keys.len()).map(|i| i as f32).collect();
            let q = |q: &Quat4| Quat::from_xyzw(q.x.0, q.y.0, q.z.0, q.w.0);
            Controller {
                rotation: Some(KeyTrack {
                    frames: frames.clone(),
                    values: keys.iter().map(|k| q(&k.rotation)).collect(),
                }),
                position: Some(KeyTrack {
                    frames: frames.clone(),
                    values: keys.iter().map(|k| v(&k.position) / 100.0).collect(),
                }),
                scale: Some(KeyTrack { frames, values: keys.iter().map(|k| v(&k.scale)).collect() }),
                ..bare(*controller_id, 0x833)
            }
        }
        _ => return None,
    })
}

/// The descriptor of a compressed controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Descriptor {
    /// The controller id.
    pub id: u32,
    /// The 0x831 flags word.
    pub flags: Option<u32>,
    /// Rotation key count.
    pub num_rot: u16,
    /// Position key count.
    pub num_pos: u16,
    /// Scale key count (0x832).
    pub num_scl: u16,
    /// Rotation formats.
    pub rot: ChannelFormat,
    /// Position formats.
    pub pos: ChannelFormat,
    /// Scale formats (0x832).
    pub scl: ChannelFormat,
    /// Whether the key arrays are aligned to 4 bytes.
    pub aligned: bool,
    /// The descriptor's length in bytes.
    pub size: usize,
}

fn descriptor(version: u32, c: &mut Cursor) -> Result<Descriptor> {
    let mut d = Descriptor { id: c.u32()?, ..Default::default() };
    if version == 0x831 {
        d.flags = Some(c.u32()?);
    }
    d.num_rot = c.u16()?;
    d.num_pos = c.u16()?;
    if version == 0x832 {
        d.num_scl = c.u16()?;
    }
    d.rot.value_format = c.u8()?;
    d.rot.time_format = c.u8()?;
    d.pos.value_format = c.u8()?;
    d.pos.keys_info = c.u8()?;
    d.pos.time_format = c.u8()?;
    if version == 0x832 {
        d.aligned = true;
        d.scl.value_format = c.u8()?;
        d.scl.keys_info = c.u8()?;
        d.scl.time_format = c.u8()?;
    } else {
        d.aligned = c.u8()? != 0;
    }
    c.skip(2)?;
    d.size = c.pos();
    Ok(d)
}

/// Reads one compressed controller with a StartStop/Bitset length rule; returns it and the end of
/// the last array before alignment.
fn read_compressed(
    d: &Descriptor,
    version: u32,
    payload: &[u8],
    base: usize,
    rule: LengthRule,
    endian: Endian,
) -> Result<(Controller, usize)> {
    let align = if d.aligned { 4 } else { 1 };
    let mut pos = d.size;
    let mut end = pos;
    let slice = |pos: usize, len: usize| -> Result<&[u8]> {
        payload
            .get(pos..)
            .and_then(|r| r.get(..len))
            .ok_or_else(|| Error::truncated(base + pos.min(payload.len()), len, payload.len().saturating_sub(pos)))
    };
    let times = |pos: &mut usize, end: &mut usize, f: u8, n: usize, what: &str| -> Result<Vec<f32>> {
        let rest = payload.get(*pos..).unwrap_or_default();
        let len = time_formats::stored_len_endian(f, n, rule, rest, endian)
            .ok_or_else(|| Error::invalid(base + *pos, format!("{what} time format {f} has no size")))?;
        let bytes = slice(*pos, len)?;
        let frames =
            time_formats::decode_endian(f, n, bytes, base + *pos, endian).within(|| format!("{what} times"))?;
        *end = *pos + len;
        *pos += round_up(len, align);
        Ok(frames)
    };
    let mut rotation = None;
    let mut rot_frames = Vec::new();
    if d.num_rot > 0 {
        let n = usize::from(d.num_rot);
        let size = rotation_size(d.rot.value_format).ok_or_else(|| {
            Error::unsupported(format!("rotation format {} has no codec", d.rot.value_format)).within("rotation keys")
        })?;
        let bytes = slice(pos, n * size).within(|| "rotation keys")?;
        let values = decode_rotations(d.rot.value_format, bytes, endian)?;
        end = pos + n * size;
        pos += round_up(n * size, align);
        rot_frames = times(&mut pos, &mut end, d.rot.time_format, n, "rotation")?;
        rotation = Some(KeyTrack { frames: rot_frames.clone(), values });
    }
    let mut position = None;
    let mut pos_frames = Vec::new();
    if d.num_pos > 0 {
        let n = usize::from(d.num_pos);
        let size = position_size(d.pos.value_format).ok_or_else(|| {
            Error::unsupported(format!("position format {} has no codec", d.pos.value_format)).within("position keys")
        })?;
        let bytes = slice(pos, n * size).within(|| "position keys")?;
        let mut values = Vec::with_capacity(n);
        for k in bytes.chunks_exact(size) {
            values.push(decode_position_endian(d.pos.value_format, k, endian)?);
        }
        end = pos + n * size;
        pos += round_up(n * size, align);
        pos_frames = if d.pos.keys_info == 1 {
            times(&mut pos, &mut end, d.pos.time_format, n, "position")?
        } else if rot_frames.len() == n {
            rot_frames.clone()
        } else {
            return Err(Error::invalid(
                base,
                format!("{n} position keys share the {} rotation key times", rot_frames.len()),
            ));
        };
        position = Some(KeyTrack { frames: pos_frames.clone(), values });
    }
    let mut scale = None;
    if d.num_scl > 0 {
        let n = usize::from(d.num_scl);
        let size = position_size(d.scl.value_format).ok_or_else(|| {
            Error::unsupported(format!("scale format {} has no codec", d.scl.value_format)).within("scale keys")
        })?;
        let bytes = slice(pos, n * size).within(|| "scale keys")?;
        let mut values = Vec::with_capacity(n);
        for k in bytes.chunks_exact(size) {
            values.push(decode_position_endian(d.scl.value_format, k, endian)?);
        }
        end = pos + n * size;
        pos += round_up(n * size, align);
        let frames = match d.scl.keys_info {
            2 => times(&mut pos, &mut end, d.scl.time_format, n, "scale")?,
            0 if rot_frames.len() == n => rot_frames.clone(),
            1 if pos_frames.len() == n => pos_frames.clone(),
            k => return Err(Error::invalid(base, format!("{n} scale keys cannot share key times (keys info {k})"))),
        };
        scale = Some(KeyTrack { frames, values });
    }
    let _ = pos;
    Ok((
        Controller {
            id: d.id,
            version,
            rotation,
            position,
            scale,
            formats: Some([d.rot, d.pos, d.scl]),
            length_rule: Some(rule),
            aligned: d.aligned,
            flags: d.flags,
        },
        end,
    ))
}

fn parse_compressed(version: u32, payload: &[u8], base: usize, endian: Endian) -> Result<Controller> {
    let mut c = Cursor::with_base(payload, base, endian);
    let d = descriptor(version, &mut c)?;
    // §10 C12: keep the length rule whose last array ends at the chunk's end (± alignment).
    let fits = |end: usize| end <= payload.len() && payload.len() - end < 4;
    let per_key = read_compressed(&d, version, payload, base, LengthRule::PerKey, endian);
    if let Ok((ctrl, end)) = &per_key {
        if fits(*end) {
            return Ok(ctrl.clone());
        }
    }
    let raw = read_compressed(&d, version, payload, base, LengthRule::Raw, endian);
    match (per_key, raw) {
        (_, Ok((ctrl, end))) if fits(end) => Ok(ctrl),
        (Ok((ctrl, _)), _) => Ok(ctrl),
        (Err(e), _) => Err(e),
    }
}

/// Asset flag: the clip is additive.
pub const FLAG_ADDITIVE: u32 = 0x001;
/// Asset flag: the clip loops.
pub const FLAG_CYCLE: u32 = 0x002;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pqlog_example_from_the_spec() {
        const H: f32 = std::f32::consts::FRAC_1_SQRT_2;
        // §5.6: rotLog (0, 0, π/4) → exp = (0, 0, H, H) → rotation (0, 0, −H, H).
        let q = exp_log(Vec3::new(0.0, 0.0, std::f32::consts::FRAC_PI_4));
        assert!((q - Quat::from_xyzw(0.0, 0.0, H, H)).length() < 1e-4);
        let mut chunk = Vec::new();
        for w in [2u32, 0x7856_1A24] {
            chunk.extend_from_slice(&w.to_le_bytes());
        }
        // Keys at ticks 0 and 320 (frame 2, §5.5), position 150 cm.
        for (t, l) in [(0i32, 0.0f32), (320, std::f32::consts::FRAC_PI_4)] {
            chunk.extend_from_slice(&t.to_le_bytes());
            for v in [150.0f32, 0.0, 0.0, 0.0, 0.0, l] {
                chunk.extend_from_slice(&v.to_le_bytes());
            }
        }
        let ctrl = parse(0x827, &chunk, 0, Endian::Little).unwrap();
        let rot = ctrl.rotation.unwrap();
        assert_eq!(rot.frames, [0.0, 2.0]);
        assert!((rot.values[1] - Quat::from_xyzw(0.0, 0.0, -H, H)).length() < 1e-4);
        assert_eq!(ctrl.position.unwrap().values[0], Vec3::new(1.5, 0.0, 0.0));
        assert!(parse(0x827, &chunk[..chunk.len() - 1], 0, Endian::Little).is_err());
        assert!((log_quat(exp_log(Vec3::new(0.1, -0.2, 0.3))) - Vec3::new(0.1, -0.2, 0.3)).length() < 1e-4);
    }

    #[test]
    fn compressed_layouts_follow_the_descriptor_tables() {
        // 0x831 (LY), tracks aligned: id, flags, 2 rot keys (ST48, Byte times), 3 pos keys (f32,
        // own UINT16 times). Arrays: rot 12 B, times 2 B + 2 pad, pos 36 B, times 6 B + 2 pad.
        let st48 = [0x86u8, 0x50, 0x86, 0xB0, 0x64, 0xDC];
        let mut p = Vec::new();
        p.extend(0x7856_1A24u32.to_le_bytes());
        p.extend(0x55u32.to_le_bytes());
        p.extend(2u16.to_le_bytes());
        p.extend(3u16.to_le_bytes());
        p.extend([5, 2, 2, 1, 1, 1, 0, 0]);
        assert_eq!(p.len(), 20);
        p.extend(st48);
        p.extend(st48);
        p.extend([0, 4, 0, 0]);
        for v in [1f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0] {
            p.extend(v.to_le_bytes());
        }
        p.extend([0, 0, 2, 0, 4, 0]); // UINT16 0, 2, 4; the size leaves out the last 2 pad bytes
        let c = parse(0x831, &p, 0, Endian::Little).unwrap();
        assert_eq!(c.flags, Some(0x55));
        assert!(c.aligned);
        assert_eq!(c.rotation.as_ref().unwrap().frames, [0.0, 4.0]);
        let pos = c.position.unwrap();
        assert_eq!(pos.frames, [0.0, 2.0, 4.0]);
        assert_eq!(pos.values[1], Vec3::new(4.0, 5.0, 6.0));
        // The same controller as 0x829 without alignment: 16-byte descriptor, arrays packed.
        let mut q = Vec::new();
        q.extend(0x7856_1A24u32.to_le_bytes());
        q.extend(2u16.to_le_bytes());
        q.extend(3u16.to_le_bytes());
        q.extend([5, 2, 2, 0, 0, 0, 0, 0]); // positions reuse the rotation times: need 3 = 2 → error
        q.extend(st48);
        q.extend(st48);
        q.extend([0, 4]);
        q.extend([0u8; 36]);
        assert!(parse(0x829, &q, 0, Endian::Little).is_err());
        q[6] = 2; // 2 position keys sharing the rotation times
        q.truncate(16 + 12 + 2 + 24);
        let c = parse(0x829, &q, 0, Endian::Little).unwrap();
        assert!(!c.aligned);
        assert_eq!(c.position.unwrap().frames, [0.0, 4.0]);
        // A track with 0 keys and zero format bytes is absent (§13).
        let mut r = q[..16].to_vec();
        r[4..8].copy_from_slice(&[0, 0, 0, 0]);
        let c = parse(0x829, &r, 0, Endian::Little).unwrap();
        assert!(c.rotation.is_none() && c.position.is_none());
    }
}
