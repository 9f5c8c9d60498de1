//! Big-endian compressed controllers 0x829 / 0x831 / 0x832 (§1.5: the chunk version's flag bit
//! says the payload is big-endian). The spec does not define the byte order of the codecs; the
//! reader follows CryEngine's per-struct `SwapEndian`: each storage word is swapped at its own
//! width. This test's builder does the swapping itself (word widths written out here, not taken
//! from the decoder): the same controller is built little- and big-endian, both must decode to the
//! same keys, and those keys must be the spec's decoded values of its test vectors (§5.2).

use animkit::formats::cryengine::raw::kind;
use animkit::formats::cryengine::{ChunkFile, Container};
use animkit::model::{BoneRef, Package, Target, Values};
use animkit::{Bytes, ReadOptions};
use glam::{Quat, Vec3};

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

/// The §5.2 test vector (1, 2, 3, 4)/√30 in codec `f`, little-endian, and what it decodes to.
fn vector(f: u8) -> (Vec<u8>, Quat) {
    let hex = |s: &str| s.split(' ').map(|h| u8::from_str_radix(h, 16).unwrap()).collect::<Vec<u8>>();
    let q = Quat::from_xyzw(1.0, 2.0, 3.0, 4.0) / 30f32.sqrt();
    match f {
        1 => (q.to_array().iter().flat_map(|c| c.to_le_bytes()).collect(), q),
        3 => (hex("5E 17 BD 2E 1B 46"), Quat::from_xyzw(0.1825617, 0.365_154, 0.5477157, 0.7303022)),
        4 => (hex("83 1E BC F8"), Quat::from_xyzw(0.1822432, 0.364_815_8, 0.5473884, 0.730_796)),
        5 => (hex("86 50 86 B0 64 DC"), Quat::from_xyzw(0.1825781, 0.3651418, 0.5477055, 0.7303118)),
        6 => (hex("CA 10 4A 19 C2 5E 32 CE"), Quat::from_xyzw(0.1825749, 0.3651486, 0.5477223, 0.7302967)),
        8 => (hex("94 21 34 65 08 7B C9 F8"), Quat::from_xyzw(0.1825743, 0.3651485, 0.5477223, 0.7302969)),
        _ => unreachable!(),
    }
}

/// Key times of format `f` (§4), little-endian; Bitset: start, end, count, then the bit words.
fn encode_times(f: u8, frames: &[f32]) -> Vec<u8> {
    let (first, last) = (frames[0], frames[frames.len() - 1]);
    match f {
        0 => frames.iter().flat_map(|x| x.to_le_bytes()).collect(),
        1 => frames.iter().flat_map(|&x| (x as u16).to_le_bytes()).collect(),
        2 => frames.iter().map(|&x| x as u8).collect(),
        3 => [first, last].iter().flat_map(|x| x.to_le_bytes()).collect(),
        4 => [first, last].iter().flat_map(|&x| (x as u16).to_le_bytes()).collect(),
        5 => vec![first as u8, last as u8],
        _ => {
            let mut words = vec![0u16; (last - first) as usize / 16 + 1];
            for &x in frames {
                let bit = (x - first) as usize;
                words[bit / 16] |= 1 << (bit % 16);
            }
            let head = [first as u16, last as u16, frames.len() as u16];
            head.iter().chain(&words).flat_map(|w| w.to_le_bytes()).collect()
        }
    }
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
        o.extend([2, 2, 1]); // scale: NoCompressVec3, own times, UINT16
    } else {
        o.push(u8::from(s.aligned));
    }
    o.extend([0, 0]);
    let aligned = s.aligned || s.version == 0x832;
    for _ in 0..NR {
        put(&mut o, &vector(s.rot_format).0, rot_word(s.rot_format), big);
    }
    pad(&mut o, aligned);
    put(&mut o, &encode_times(s.rot_time, &frames(s.rot_time, NR)), time_word(s.rot_time), big);
    pad(&mut o, aligned);
    for p in positions(NP) {
        for c in p.to_array() {
            put(&mut o, &c.to_le_bytes(), 4, big);
        }
    }
    pad(&mut o, aligned);
    put(&mut o, &encode_times(s.pos_time, &frames(s.pos_time, NP)), time_word(s.pos_time), big);
    if s.version == 0x832 {
        pad(&mut o, aligned);
        for p in scales(NS) {
            for c in p.to_array() {
                put(&mut o, &c.to_le_bytes(), 4, big);
            }
        }
        pad(&mut o, aligned);
        put(&mut o, &encode_times(1, &frames(1, NS)), 2, big);
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
    let want = vector(s.rot_format).1;
    for got in rot {
        // The keys are equal, so no sign flips: each must be the vector's decoded value.
        assert!((*got - want).length() < 1e-5, "{what}: {got:?} vs {want:?}");
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
