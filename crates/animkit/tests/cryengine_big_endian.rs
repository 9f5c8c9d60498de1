//! Big-endian compressed controllers 0x829 / 0x831 / 0x832 (§1.5: the chunk version's flag bit
//! says the payload is big-endian). The spec does not define the byte order of the codecs; the
//! reader follows CryEngine's per-struct `SwapEndian`: each storage word is swapped at its own
//! width. This test's builder does the swapping itself (word widths written out here, not taken
//! from the decoder): the same controller is built little- and big-endian, both must decode to the
//! same keys, and those keys must be the encoded ones within the codec's error.

use animkit::formats::cryengine::chunkfile::{kind, ChunkFile, Container};
use animkit::formats::cryengine::quat_codecs::{angle_between, encode_rotation, max_error};
use animkit::formats::cryengine::time_formats;
use animkit::model::{BoneRef, Package, Target, Values};
use animkit::{Bytes, ReadOptions};
use glam::{EulerRot, Quat, Vec3};

const BIP01: u32 = 0x7856_1A24;

/// Appends little-endian bytes `le`, with every `width`-byte word reversed when `big`.
fn put(out: &mut Vec<u8>, le: &[u8], width: usize, big: bool) {
    assert_eq!(le.len() % width, 0);
    for w in le.chunks(width) {
        if big {
            out.extend(w.iter().rev());
        } else {
            out.extend_from_slice(w);
        }
    }
}

/// Storage word width of each rotation codec (CryEngine's `SwapEndian` per struct).
fn rot_word(f: u8) -> usize {
    match f {
        1 => 4, // NoCompressQuat: f32 ×4
        3 => 2, // ShotInt3Quat: i16 ×3
        4 => 4, // SmallTreeDWORDQuat: u32
        5 => 2, // SmallTree48BitQuat: u16 ×3
        6 => 8, // SmallTree64BitQuat: u64
        8 => 8, // SmallTree64BitExtQuat: u64
        _ => unreachable!(),
    }
}

/// Element width of each key-time format.
fn time_word(f: u8) -> usize {
    match f {
        0 | 3 => 4,
        1 | 4 | 6 => 2,
        _ => 1,
    }
}

fn pad(out: &mut Vec<u8>, aligned: bool) {
    while aligned && !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

/// Frames a time format can hold: StartStop needs a key on every frame; the others get gaps
/// (and F32 a fraction).
fn frames(tf: u8, n: usize) -> Vec<f32> {
    match tf {
        3..=5 => (0..n).map(|i| 2.0 + i as f32).collect(),
        0 => (0..n).map(|i| (i * i) as f32 + 0.5).collect(),
        _ => (0..n).map(|i| (i * 3 + i / 2) as f32).collect(),
    }
}

struct Spec {
    version: u32,
    rot_format: u8,
    rot_time: u8,
    pos_time: u8,
    aligned: bool,
}

fn quats(n: usize) -> Vec<Quat> {
    (0..n)
        .map(|i| Quat::from_euler(EulerRot::XYZ, 0.3 * i as f32 - 0.7, 0.9 - 0.4 * i as f32, 0.2 + 0.5 * i as f32))
        .collect()
}

fn positions(n: usize) -> Vec<Vec3> {
    (0..n).map(|i| Vec3::new(i as f32 * 0.25 - 1.0, 3.5, -(i as f32) / 3.0)).collect()
}

fn scales(n: usize) -> Vec<Vec3> {
    (0..n).map(|i| Vec3::new(1.0 + i as f32 / 8.0, 1.0, 0.5)).collect()
}

const NR: usize = 5;
const NP: usize = 4;
const NS: usize = 3;

/// A compressed controller payload: rotations (own times), positions (own times), and for 0x832
/// scales (own times, UINT16).
fn payload(s: &Spec, big: bool) -> Vec<u8> {
    let mut o = Vec::new();
    put(&mut o, &BIP01.to_le_bytes(), 4, big);
    if s.version == 0x831 {
        put(&mut o, &0x55u32.to_le_bytes(), 4, big);
    }
    put(&mut o, &(NR as u16).to_le_bytes(), 2, big);
    put(&mut o, &(NP as u16).to_le_bytes(), 2, big);
    if s.version == 0x832 {
        put(&mut o, &(NS as u16).to_le_bytes(), 2, big);
    }
    o.extend([s.rot_format, s.rot_time, 2, 1, s.pos_time]);
    if s.version == 0x832 {
        o.extend([2, 2, time_formats::UINT16]);
    } else {
        o.push(u8::from(s.aligned));
    }
    o.extend([0, 0]);
    let aligned = s.aligned || s.version == 0x832;
    for q in quats(NR) {
        let mut le = Vec::new();
        encode_rotation(s.rot_format, q, &mut le).unwrap();
        put(&mut o, &le, rot_word(s.rot_format), big);
    }
    pad(&mut o, aligned);
    put(&mut o, &time_formats::encode(s.rot_time, &frames(s.rot_time, NR)).unwrap(), time_word(s.rot_time), big);
    pad(&mut o, aligned);
    for p in positions(NP) {
        for c in p.to_array() {
            put(&mut o, &c.to_le_bytes(), 4, big);
        }
    }
    pad(&mut o, aligned);
    put(&mut o, &time_formats::encode(s.pos_time, &frames(s.pos_time, NP)).unwrap(), time_word(s.pos_time), big);
    if s.version == 0x832 {
        pad(&mut o, aligned);
        for p in scales(NS) {
            for c in p.to_array() {
                put(&mut o, &c.to_le_bytes(), 4, big);
            }
        }
        pad(&mut o, aligned);
        put(&mut o, &time_formats::encode(1, &frames(1, NS)).unwrap(), 2, big);
    }
    o
}

/// The chunk file of one controller chunk of `version` (with the big-endian flag when `big`).
fn file(container: Container, version: u32, payload: Vec<u8>, big: bool) -> Vec<u8> {
    let flag = match (big, container) {
        (false, _) => 0,
        (true, Container::CrCh) => 0x8000,
        (true, _) => 0x8000_0000,
    };
    let chunks = vec![(kind::CONTROLLER, flag | version, 1, payload)];
    ChunkFile::build(container, 0xFFFF_0001, chunks).unwrap().write().unwrap()
}

fn model(bytes: &[u8]) -> Package {
    let doc = animkit::read(Bytes::from(bytes.to_vec()), None, &ReadOptions::default()).unwrap();
    assert_eq!(doc.write().unwrap(), bytes, "byte-exact raw layer");
    doc.to_model().unwrap()
}

/// Key times in seconds (30 fps, no MotionParameters: from frame 0).
fn seconds(frames: Vec<f32>) -> Vec<f32> {
    frames.into_iter().map(|f| f / 30.0).collect()
}

fn check(s: &Spec, container: Container) {
    let what =
        format!("0x{:X} rot {} times {}/{} aligned {}", s.version, s.rot_format, s.rot_time, s.pos_time, s.aligned);
    let (le, be) = (payload(s, false), payload(s, true));
    assert_eq!(le.len(), be.len());
    assert_ne!(le, be, "{what}");
    let a = model(&file(container, s.version, le, false));
    let b = model(&file(container, s.version, be, true));
    assert_eq!(a, b, "{what}");
    let tracks = &b.clips[0].tracks;
    assert!(tracks.iter().all(|t| t.target == Target::Bone(BoneRef { hash: Some(BIP01), ..Default::default() })));
    let Values::Rotation(rot) = &tracks[0].values else { panic!("{what}: {:?}", tracks[0]) };
    assert_eq!(tracks[0].times, seconds(frames(s.rot_time, NR)), "{what}");
    for (got, want) in rot.iter().zip(quats(NR)) {
        let e = angle_between(got.normalize(), want);
        assert!(e <= max_error(s.rot_format), "{what}: {got:?} vs {want:?} ({e})");
    }
    assert_eq!(tracks[1].times, seconds(frames(s.pos_time, NP)), "{what}");
    assert_eq!(tracks[1].values, Values::Translation(positions(NP)), "{what}");
    if s.version == 0x832 {
        assert_eq!(tracks[2].times, seconds(frames(1, NS)));
        assert_eq!(tracks[2].values, Values::Scale(scales(NS)));
    } else {
        assert_eq!(tracks.len(), 2);
    }
}

#[test]
fn big_endian_compressed_controllers_decode_like_little_endian() {
    let mut n = 0;
    for version in [0x829u32, 0x831, 0x832] {
        for rot_format in [1u8, 3, 4, 5, 6, 8] {
            for (rot_time, pos_time) in [(0u8, 1u8), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (6, 6), (6, 1)] {
                for aligned in [false, true] {
                    check(&Spec { version, rot_format, rot_time, pos_time, aligned }, Container::CrCh);
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 3 * 6 * 8 * 2);
}

/// Whole files: a big-endian chunk in CryTek 0x745 (bit 0x80000000) as well as in CrCh (bit
/// 0x8000) writes back byte for byte and plays like its little-endian twin.
#[test]
fn big_endian_compressed_controller_files_read_like_little_endian() {
    for version in [0x829u32, 0x831, 0x832] {
        for rot_format in [1u8, 3, 4, 5, 6, 8] {
            let s = Spec { version, rot_format, rot_time: 6, pos_time: 4, aligned: true };
            check(&s, Container::CryTek745);
        }
    }
}
