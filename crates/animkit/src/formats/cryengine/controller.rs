//! Controller chunks (type 0x100D) and the CAF header chunks (`cryengine.md` §2, §3, §5.5, §5.6).
//!
//! Decoded controllers hold key times in **frames** and values in the model's convention:
//! quaternions active (glTF), positions in metres. PQLog (0x827, 0x830) rotations are stored as
//! `log(conj(q))` (§13) and positions in centimetres; their tick times become
//! `(t − t₀)/160` frames. 0x833 keys carry no time: key *i* is frame *i*.

use glam::{Quat, Vec3};

use super::quat_codecs::decode_keys;
use super::raw::{Body, Compressed, KeyTimes};
use super::time_formats;
use crate::error::{Context, Error, Result};
use crate::raw_json::F32;

/// Key times (frames) and values of one channel.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeyTrack<T> {
    /// Key times in frames.
    pub frames: Vec<f32>,
    /// One value per key.
    pub values: Vec<T>,
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
    /// Compressed controllers: the rotation channel's `ECompressionFormat` and `EKeyTimesFormat`
    /// (§4), for `info` and lint.
    pub rotation_formats: Option<(u8, u8)>,
}

impl Controller {
    /// An uncompressed controller with rotation and position keys.
    pub fn keyed(id: u32, version: u32, rotation: Option<KeyTrack<Quat>>, position: Option<KeyTrack<Vec3>>) -> Self {
        Controller { id, version, rotation, position, scale: None, rotation_formats: None }
    }
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

/// The controller of a controller body of chunk version `version` in the model's convention
/// (`None` for a body that is no controller); `at` is the payload's offset for errors. PQLog
/// (0x827/0x830) rotations are stored as `log(conj(q))` and positions in centimetres; tick times
/// become `(t − t₀)/160` frames (§5.5; ticks off a frame keep their fraction); PQS (0x833) key
/// *i* is frame *i*.
pub fn from_body(version: u32, body: &Body, at: usize) -> Option<Result<Controller>> {
    Some(Ok(match body {
        Body::Compressed(k) => return Some(from_compressed(version, k, at)),
        Body::PqLog { controller_id, flags, keys, .. } => {
            let t0 = keys.first().map_or(0, |k| i64::from(k.time));
            let frames: Vec<f32> =
                keys.iter().map(|k| ((i64::from(k.time) - t0) as f64 / TICKS_PER_FRAME as f64) as f32).collect();
            let rotation = track(&frames, keys, |k| exp_log(k.rot_log.to_vec3()).conjugate());
            let position = track(&frames, keys, |k| k.position.to_vec3() / 100.0);
            let version = if flags.is_some() { 0x830 } else { 0x827 };
            Controller::keyed(*controller_id, version, Some(rotation), Some(position))
        }
        Body::Pqs { controller_id, keys, .. } => {
            let frames: Vec<f32> = (0..keys.len()).map(|i| i as f32).collect();
            let rotation = track(&frames, keys, |k| k.rotation.to_quat());
            let position = track(&frames, keys, |k| k.position.to_vec3() / 100.0);
            let scale = Some(track(&frames, keys, |k| k.scale.to_vec3()));
            Controller { scale, ..Controller::keyed(*controller_id, 0x833, Some(rotation), Some(position)) }
        }
        _ => return None,
    }))
}

/// A track of one value per key, taken from `keys` by `value`, at `frames`.
fn track<K, T>(frames: &[f32], keys: &[K], value: impl Fn(&K) -> T) -> KeyTrack<T> {
    KeyTrack { frames: frames.to_vec(), values: keys.iter().map(value).collect() }
}

/// The controller of a compressed controller's keys: rotations decoded from their codec, key
/// times in frames, each channel checked against the times it uses.
pub fn from_compressed(version: u32, k: &Compressed, at: usize) -> Result<Controller> {
    let rot = &k.rotation;
    let rotation_formats = Some((rot.format, rot.time_format));
    let mut out = Controller { rotation_formats, ..Controller::keyed(k.controller_id, version, None, None) };
    let times = |t: Option<&KeyTimes>, n: usize, what: &str| -> Result<Vec<f32>> {
        let t = t.ok_or_else(|| Error::invalid(at, format!("{what} keys have no key times")))?;
        time_formats::frames(t, n, at).within(|| format!("{what} times"))
    };
    let rot_frames = match rot.keys.len() {
        0 => Vec::new(),
        n => times(rot.times.as_ref(), n, "rotation")?,
    };
    let shared = |frames: &[f32], n: usize, what: &str| -> Result<Vec<f32>> {
        if frames.len() == n {
            Ok(frames.to_vec())
        } else {
            Err(Error::invalid(at, format!("{n} {what} keys share the {} key times of another channel", frames.len())))
        }
    };
    let p = &k.position;
    let pos_frames = match (p.keys.len(), p.keys_info) {
        (0, _) => Vec::new(),
        (n, Some(1)) => times(p.times.as_ref(), n, "position")?,
        (n, _) => shared(&rot_frames, n, "position")?,
    };
    if let Some(s) = k.scale.as_ref().filter(|s| !s.keys.is_empty()) {
        let n = s.keys.len();
        let frames = match s.keys_info {
            Some(2) => times(s.times.as_ref(), n, "scale")?,
            Some(1) => shared(&pos_frames, n, "scale")?,
            _ => shared(&rot_frames, n, "scale")?,
        };
        out.scale = Some(KeyTrack { frames, values: s.keys.iter().map(vec3).collect() });
    }
    if !p.keys.is_empty() {
        out.position = Some(KeyTrack { frames: pos_frames, values: p.keys.iter().map(vec3).collect() });
    }
    if !rot.keys.is_empty() {
        out.rotation = Some(KeyTrack { frames: rot_frames, values: decode_keys(&rot.keys) });
    }
    Ok(out)
}

/// A stored vector.
fn vec3(v: &[F32; 3]) -> Vec3 {
    Vec3::new(v[0].0, v[1].0, v[2].0)
}

/// Asset flag: the clip is additive.
pub const FLAG_ADDITIVE: u32 = 0x001;
/// Asset flag: the clip loops.
pub const FLAG_CYCLE: u32 = 0x002;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_quaternions_follow_the_spec() {
        const H: f32 = std::f32::consts::FRAC_1_SQRT_2;
        // §5.6: rotLog (0, 0, π/4) → exp = (0, 0, H, H).
        let q = exp_log(Vec3::new(0.0, 0.0, std::f32::consts::FRAC_PI_4));
        assert!((q - Quat::from_xyzw(0.0, 0.0, H, H)).length() < 1e-4);
        assert!((log_quat(exp_log(Vec3::new(0.1, -0.2, 0.3))) - Vec3::new(0.1, -0.2, 0.3)).length() < 1e-4);
    }
}
