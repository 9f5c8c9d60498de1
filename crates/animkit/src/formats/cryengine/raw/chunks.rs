//! The fixed-layout chunk structures (`cryengine.md` §2, §3, §9.3) and the uncompiled
//! controllers' keys, each declared once.

use serde::{Deserialize, Serialize};

use super::keys::Word;
use crate::bytes::Endian;
use crate::raw_json::{FixedName, F32};

crate::record! {
    /// Three `f32`.
    #[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
    pub struct Vec3f {
        /// x.
        pub x: F32,
        /// y.
        pub y: F32,
        /// z.
        pub z: F32,
    }
}

crate::record! {
    /// A quaternion as stored: `x, y, z, w`.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    pub struct Quat4 {
        /// x.
        pub x: F32,
        /// y.
        pub y: F32,
        /// z.
        pub z: F32,
        /// w.
        pub w: F32,
    }
}

impl Vec3f {
    /// The vector in glam's form.
    pub fn to_vec3(self) -> glam::Vec3 {
        glam::Vec3::new(self.x.0, self.y.0, self.z.0)
    }

    /// The stored form of `v`.
    pub fn from_vec3(v: glam::Vec3) -> Vec3f {
        Vec3f { x: F32(v.x), y: F32(v.y), z: F32(v.z) }
    }
}

/// The identity.
impl Default for Quat4 {
    fn default() -> Self {
        QuatT::IDENTITY.rotation
    }
}

impl Quat4 {
    /// The quaternion in glam's form.
    pub fn to_quat(self) -> glam::Quat {
        glam::Quat::from_xyzw(self.x.0, self.y.0, self.z.0, self.w.0)
    }
}

crate::record! {
    /// `QuatT`: a rotation and a translation (28 bytes); the default is the identity.
    #[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
    pub struct QuatT {
        /// The rotation.
        pub rotation: Quat4,
        /// The translation.
        pub translation: Vec3f,
    }
}

impl QuatT {
    /// No rotation, no translation.
    pub const IDENTITY: QuatT = QuatT {
        rotation: Quat4 { x: F32(0.0), y: F32(0.0), z: F32(0.0), w: F32(1.0) },
        translation: Vec3f { x: F32(0.0), y: F32(0.0), z: F32(0.0) },
    };
}

crate::record! {
    /// The foot-plant times of a locomotion clip (32 bytes; −10000 = unset).
    #[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
    pub struct FootPlants {
        /// Left heel down.
        pub l_heel_start: F32,
        /// Left heel up.
        pub l_heel_end: F32,
        /// Left toe down.
        pub l_toe0_start: F32,
        /// Left toe up.
        pub l_toe0_end: F32,
        /// Right heel down.
        pub r_heel_start: F32,
        /// Right heel up.
        pub r_heel_end: F32,
        /// Right toe down.
        pub r_toe0_start: F32,
        /// Right toe up.
        pub r_toe0_end: F32,
    }
}

impl FootPlants {
    /// Every time `value` (−10000: unset).
    pub fn all(value: f32) -> FootPlants {
        let v = F32(value);
        FootPlants {
            l_heel_start: v,
            l_heel_end: v,
            l_toe0_start: v,
            l_toe0_end: v,
            r_heel_start: v,
            r_heel_end: v,
            r_toe0_start: v,
            r_toe0_end: v,
        }
    }
}

crate::record! {
    /// `MotionParams905` (132 bytes): MotionParameters 0x925 and each DBA 0x905 clip record.
    /// Asset flags: 0x001 additive, 0x002 cycle, 0x4000 aim pose. Frames are at 30 fps.
    #[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
    pub struct MotionParams {
        /// The asset flags.
        pub asset_flags: u32,
        /// −1 (0xFFFFFFFF) when unset.
        pub compression: u32,
        /// CE5 ignores it (1).
        pub ticks_per_frame: i32,
        /// CE5 ignores it (1/30).
        pub secs_per_tick: F32,
        /// The first frame.
        pub start: i32,
        /// The last frame.
        pub end: i32,
        /// Locomotion speed (m/s).
        pub move_speed: F32,
        /// Turn speed (rad/s).
        pub turn_speed: F32,
        /// The clip's total turn (rad).
        pub asset_turn: F32,
        /// Distance travelled (m).
        pub distance: F32,
        /// Ground slope (rad).
        pub slope: F32,
        /// The root's location at the first frame.
        pub start_location: QuatT,
        /// The root's location at the last frame.
        pub end_location: QuatT,
        /// The foot plants.
        pub foot_plants: FootPlants,
    }
}

crate::record! {
    /// GlobalAnimationHeaderCAF 0x971 (404 bytes). The clip is named after `path`'s file stem.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    pub struct GlobalAnimationHeaderCaf {
        /// The asset flags (as in [`MotionParams`]).
        pub flags: u32,
        /// The clip's file path, NUL-padded.
        pub path: FixedName<256>,
        /// CRC-32 of `path`.
        pub path_crc: u32,
        /// CRC-32 of the DBA's path; 0 when the clip is not in a DBA.
        pub dba_path_crc: u32,
        /// The foot plants.
        pub foot_plants: FootPlants,
        /// Start time (seconds).
        pub start_sec: F32,
        /// End time (seconds).
        pub end_sec: F32,
        /// Duration (seconds).
        pub total_duration: F32,
        /// The number of controllers.
        pub controllers: u32,
        /// The root's location at the start.
        pub start_location: QuatT,
        /// The root locator's last key.
        pub last_locator_key: QuatT,
        /// Root velocity (m/s).
        pub velocity: Vec3f,
        /// Distance travelled (m).
        pub distance: F32,
        /// Speed (m/s).
        pub speed: F32,
        /// Ground slope (rad).
        pub slope: F32,
        /// Turn speed (rad/s).
        pub turn_speed: F32,
        /// The clip's total turn (rad).
        pub asset_turn: F32,
    }
}

crate::record! {
    /// Timing 0x918 (52 bytes); `start`/`end` count frames in `.i_caf` files (§10 C8).
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    pub struct TimingRange {
        /// Seconds per tick.
        pub secs_per_tick: F32,
        /// Ticks per frame.
        pub ticks_per_frame: i32,
        /// The range's name, NUL-padded.
        pub name: FixedName<32>,
        /// The first frame.
        pub start: i32,
        /// The last frame.
        pub end: i32,
        /// The number of sub-ranges.
        pub sub_ranges: i32,
    }
}

crate::record! {
    /// Timing 0x919 (12 bytes, `.i_caf`).
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    pub struct TimingSamples {
        /// The number of samples (frames).
        pub samples: i32,
        /// Samples per second.
        pub rate: F32,
        /// The first sample's time (seconds).
        pub start_sec: F32,
    }
}

crate::record! {
    /// A PQLog key (28 bytes): time in ticks (160 a frame), position in centimetres, and the
    /// rotation as `log(conj(q))` (§5.6).
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    pub struct PqLogKey {
        /// Ticks.
        pub time: i32,
        /// Centimetres.
        pub position: Vec3f,
        /// `log(conj(q))`.
        pub rot_log: Vec3f,
    }
}

crate::record! {
    /// A PQS key of controller 0x833 (40 bytes): position in centimetres, rotation, scale.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    pub struct PqsKey {
        /// Centimetres.
        pub position: Vec3f,
        /// The rotation.
        pub rotation: Quat4,
        /// The scale.
        pub scale: Vec3f,
    }
}

// Keys fill whole chunks: they are read in bulk ([`words`](super::keys::words)), with one
// bounds check for all of them.
impl Word for PqLogKey {
    const SIZE: usize = 28;
    #[inline(always)]
    fn from_bytes(b: &[u8], endian: Endian) -> Self {
        let [t, x, y, z, lx, ly, lz] = <[F32; 7]>::from_bytes(b, endian);
        // The first word is an `i32`: its bits, as read in the chunk's byte order.
        PqLogKey { time: t.0.to_bits() as i32, position: Vec3f { x, y, z }, rot_log: Vec3f { x: lx, y: ly, z: lz } }
    }
}

impl Word for PqsKey {
    const SIZE: usize = 40;
    #[inline(always)]
    fn from_bytes(b: &[u8], endian: Endian) -> Self {
        let [px, py, pz, x, y, z, w, sx, sy, sz] = <[F32; 10]>::from_bytes(b, endian);
        let position = Vec3f { x: px, y: py, z: pz };
        PqsKey { position, rotation: Quat4 { x, y, z, w }, scale: Vec3f { x: sx, y: sy, z: sz } }
    }
}

crate::record! {
    /// `#ivo` AnimInfo 0x901 (48 bytes).
    #[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
    pub struct IvoAnimInfo {
        /// Flags.
        pub flags: u32,
        /// Frames per second (key times count frames).
        pub fps: u16,
        /// The number of bones.
        pub num_bones: u16,
        /// Reserved.
        pub reserved: u32,
        /// The last frame.
        pub end_frame: u32,
        /// The start rotation (reported, not composed into the keys).
        pub start_rotation: Quat4,
        /// The start position.
        pub start_position: Vec3f,
        /// Padding.
        pub pad: u32,
    }
}

crate::record! {
    /// The 16-byte copy of a chunk's table entry that starts most chunks of 0x744/0x745 files
    /// (§1.3); `offset` may differ from the table's.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub struct EmbeddedHeader {
        /// The chunk type (old numbering).
        pub chunk_type: u32,
        /// The chunk version.
        pub version: u32,
        /// The chunk's offset as the writer recorded it.
        pub offset: u32,
        /// The chunk id.
        pub id: u32,
    }
}
