//! Issue 8: constructed files for container/endianness combinations the corpus lacks: a CryTek
//! 0x744 animation, and chunks with the big-endian version bit (§1.5: file header and table stay
//! little-endian; the bit says the chunk payload is big-endian).

use animkit::formats::cryengine::raw::kind;
use animkit::formats::cryengine::{ChunkFile, Container, CryDocument};
use animkit::model::{BoneRef, Clip, Interpolation, Package, Target, Track, Values};
use animkit::sample::{sample, Sampled};
use animkit::{Bytes, ErrorKind, ReadOptions, WriteOptions};
use glam::{Quat, Vec3, Vec4};

/// CRC-32 of "Bip01" (spec: 0x78561A24).
const BIP01: u32 = 0x7856_1A24;

fn clip() -> Package {
    let bone = |name: &str| Target::Bone(BoneRef::named(name));
    let times = vec![0.0, 1.0 / 3.0, 2.0 / 3.0];
    Package {
        clips: vec![Clip {
            name: "turn".into(),
            duration: 2.0 / 3.0,
            tracks: vec![
                Track {
                    target: bone("Bip01"),
                    interpolation: Interpolation::Nlerp,
                    times: times.clone(),
                    values: Values::Rotation(times.iter().map(|t| Quat::from_rotation_z(*t)).collect()),
                },
                Track {
                    target: bone("Bip01"),
                    interpolation: Interpolation::Linear,
                    times: times.clone(),
                    values: Values::Translation(times.iter().map(|t| Vec3::new(0.0, *t, 1.0)).collect()),
                },
                Track {
                    target: bone("Bip01 Spine"),
                    interpolation: Interpolation::Nlerp,
                    times: times.clone(),
                    values: Values::Rotation(times.iter().map(|t| Quat::from_rotation_x(-*t)).collect()),
                },
            ],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn cry() -> &'static dyn animkit::Format {
    animkit::REGISTRY.by_name("cryengine").unwrap().0
}

fn pose_difference(a: &Package, b: &Package) -> f32 {
    let (ca, cb) = (&a.clips[0], &b.clips[0]);
    let mut worst = 0f32;
    for k in 0..=20 {
        let t = k as f32 / 30.0;
        let (pa, pb) = (sample(ca, t), sample(cb, t));
        assert_eq!(pa.len(), pb.len(), "t={t}");
        for (x, y) in pa.iter().zip(&pb) {
            let d = match (x.value, y.value) {
                (Sampled::Rotation(p), Sampled::Rotation(q)) => {
                    let (p, q) = (Vec4::from(p), Vec4::from(q));
                    (p - q).abs().max_element().min((p + q).abs().max_element())
                }
                (Sampled::Translation(p), Sampled::Translation(q)) => (p - q).abs().max_element(),
                _ => panic!("{x:?} vs {y:?}"),
            };
            worst = worst.max(d);
        }
    }
    worst
}

/// A 0x745 CAF from the model, re-laid as a 0x744 file with the same chunks: header
/// `CryTek\0\0`, fileType, version 0x744 at 0x0C, the table at 0x14 (count, then 16-byte entries
/// without a size), every chunk's extent from the next offset. It reads, writes back byte for
/// byte, and plays like the 0x745 file.
#[test]
fn a_crytek_0x744_animation_reads_and_plays_like_0x745() {
    let options = WriteOptions::default().with_variant("crytek");
    let w745 = cry().from_model(&clip(), &options).unwrap();
    let bytes745 = w745.document.write().unwrap();
    let doc745 = animkit::read(Bytes::from(bytes745.clone()), None, &ReadOptions::default()).unwrap();
    let model745 = doc745.to_model().unwrap();

    let file745 = chunk_file(bytes745);
    assert_eq!(file745.container, Container::CryTek745);
    let payloads = file745
        .chunks
        .iter()
        .map(|c| (c.kind(Container::CryTek745), c.version, c.id, c.payload(Container::CryTek745).unwrap().to_vec()))
        .collect::<Vec<_>>();
    let count = payloads.len();
    let f744: ChunkFile = ChunkFile::build(Container::CryTek744, 0xFFFF_0001, payloads).unwrap();
    let bytes = f744.write().unwrap();
    // The header and table, read by hand (§1.1, §1.2).
    assert_eq!(&bytes[..8], b"CryTek\0\0");
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    assert_eq!(u32_at(0x08), 0xFFFF_0001);
    assert_eq!(u32_at(0x0C), 0x744);
    let table = u32_at(0x10) as usize;
    assert_eq!(u32_at(table) as usize, count);
    for i in 0..count {
        let e = table + 4 + 16 * i;
        let offset = u32_at(e + 8) as usize;
        // The embedded header repeats type and version (§1.3) for controller chunks.
        if u32_at(e) == 0xCCCC_000D {
            assert_eq!((u32_at(offset), u32_at(offset + 4)), (u32_at(e), u32_at(e + 4)), "chunk {i}");
        }
    }

    let doc = animkit::read(Bytes::from(bytes.clone()), None, &ReadOptions::default()).unwrap();
    assert!(doc.version().contains("744"), "{}", doc.version());
    assert_eq!(doc.write().unwrap(), bytes, "0x744 rewrites byte for byte");
    let model = doc.to_model().unwrap();
    let d = pose_difference(&model745, &model);
    assert!(d == 0.0, "0x744 plays like 0x745: {d}");
    // And like the source model, within SmallTree48 (rotations) and f32 positions.
    let d = pose_difference(&clip(), &model);
    assert!(d < 1e-4, "{d}");
    for n in (0..bytes.len()).step_by(7) {
        let _ =
            animkit::read(Bytes::from(bytes[..n].to_vec()), None, &ReadOptions::default()).and_then(|d| d.to_model());
    }
}

/// A PQLog 0x830 controller: n, id, flags, then per key `i32 ticks, Vec3 position (cm), Vec3 log
/// rotation`, written here by hand in either byte order. Keys: tick 0 at (0, 0, 100) cm with no
/// rotation; tick 1600 (frame 10, §5.5: 160 ticks a frame) at (0, 50, 100) cm with log (0, 0, 0.25):
/// a rotation of 0.5 rad about Z, stored conjugated (§13), so the model holds −0.5 rad.
fn pqlog_payload(big: bool) -> Vec<u8> {
    let mut v = Vec::new();
    let mut u = |x: u32| v.extend_from_slice(&if big { x.to_be_bytes() } else { x.to_le_bytes() });
    u(2);
    u(BIP01);
    u(0);
    for (tick, p, l) in [(0i32, [0.0f32, 0.0, 100.0], [0.0f32; 3]), (1600, [0.0, 50.0, 100.0], [0.0, 0.0, 0.25])] {
        u(tick as u32);
        p.iter().chain(&l).for_each(|f| u(f.to_bits()));
    }
    v
}

fn crch(version: u32, payload: Vec<u8>) -> Vec<u8> {
    ChunkFile::build(Container::CrCh, 0, vec![(kind::CONTROLLER, version, 1, payload)]).unwrap().write().unwrap()
}

#[test]
fn big_endian_pqlog_controller_decodes_like_little_endian() {
    let le = crch(0x830, pqlog_payload(false));
    let be = crch(0x8000 | 0x830, pqlog_payload(true));
    // The header and table stay little-endian: only the version bit and the payload differ.
    assert_eq!(le.len(), be.len());
    let doc = animkit::read(Bytes::from(be.clone()), None, &ReadOptions::default()).unwrap();
    assert_eq!(doc.write().unwrap(), be, "byte-exact raw layer");
    let (a, b) = (
        animkit::read(Bytes::from(le), None, &ReadOptions::default()).unwrap().to_model().unwrap(),
        doc.to_model().unwrap(),
    );
    assert_eq!(a, b);
    let track = |c: &Clip, ch: animkit::model::Channel| c.tracks.iter().find(|t| t.channel() == ch).unwrap().clone();
    let rot = track(&b.clips[0], animkit::model::Channel::Rotation);
    let pos = track(&b.clips[0], animkit::model::Channel::Translation);
    assert_eq!(rot.target, Target::Bone(BoneRef { hash: Some(BIP01), ..Default::default() }));
    assert!((rot.times[1] - 10.0 / 30.0).abs() < 1e-6, "{:?}", rot.times);
    let Values::Rotation(q) = &rot.values else { unreachable!() };
    let expected = Quat::from_rotation_z(-0.5);
    assert!(
        Vec4::from(q[1]).abs_diff_eq(Vec4::from(expected), 1e-6)
            || Vec4::from(q[1]).abs_diff_eq(-Vec4::from(expected), 1e-6),
        "{:?}",
        q[1]
    );
    let Values::Translation(p) = &pos.values else { unreachable!() };
    assert_eq!(p[1], Vec3::new(0.0, 0.5, 1.0));
}

/// A DBA with the big-endian bit: the raw layer keeps it byte for byte; the model says
/// Unsupported, at the chunk payload's offset. (Big-endian compressed controllers decode: see
/// `cryengine_big_endian.rs`.)
#[test]
fn big_endian_dba_is_unsupported_with_an_offset() {
    // Any payload will do: the endianness is checked before the layout.
    for (container, version) in [(Container::CrCh, 0x8000 | 0x905), (Container::CryTek745, 0x8000_0000 | 0x905)] {
        let file =
            ChunkFile::build(container, 0xFFFF_0001, vec![(kind::CONTROLLER, version, 1, vec![0u8; 64])]).unwrap();
        let bytes = file.write().unwrap();
        let payload_at = file.chunks[0].payload_offset() as u64;
        let doc = animkit::read(Bytes::from(bytes.clone()), None, &ReadOptions::default()).unwrap();
        assert_eq!(doc.write().unwrap(), bytes);
        let err = doc.to_model().unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unsupported, "0x{version:X}: {err}");
        assert_eq!(err.offset, Some(payload_at), "0x{version:X}: {err}");
        assert!(err.to_string().contains("big-endian"), "{err}");
    }
}

/// Every rotation codec the writer offers × every CryTek/CrCh container (0x744 re-laid from the
/// 0x745 chunks): reads back and plays like the model within the codec's precision. Measured
/// worst differences are printed; the bounds are the codecs' quantisation steps (§4): DWORD
/// ~10 bits a component, the others ≥ 15 bits.
#[test]
fn every_rotation_codec_in_every_container() {
    for codec in ["st48", "st64", "st64ext", "dword", "shotint3", "f32"] {
        for variant in ["caf", "crytek", "crytek744"] {
            let mut options = WriteOptions::default().with_variant(variant.replace("744", ""));
            options.params.insert("rotation".into(), codec.into());
            let mut bytes = cry().from_model(&clip(), &options).unwrap().document.write().unwrap();
            if variant == "crytek744" {
                let f = chunk_file(bytes);
                let payloads = f
                    .chunks
                    .iter()
                    .map(|c| (c.kind(f.container), c.version, c.id, c.payload(f.container).unwrap().to_vec()))
                    .collect();
                bytes = ChunkFile::build(Container::CryTek744, 0xFFFF_0001, payloads).unwrap().write().unwrap();
            }
            let doc = animkit::read(Bytes::from(bytes.clone()), None, &ReadOptions::default()).unwrap();
            assert_eq!(doc.write().unwrap(), bytes);
            let d = pose_difference(&clip(), &doc.to_model().unwrap());
            let bound = if codec == "dword" { 2e-3 } else { 2e-4 };
            assert!(d <= bound, "{codec} in {variant}: {d}");
            eprintln!("{codec:8} {variant:9}: worst {d:e}");
        }
    }
}

/// Every key-time format through a whole controller (`times=` writer parameter), in each
/// container: F32, UINT16, Byte, their StartStop forms (a key on every frame) and Bitset. The
/// decoded key times are the written frames exactly.
#[test]
fn every_key_time_format_in_every_container() {
    // A key on each of frames 0..=20 (StartStop needs every frame).
    let times: Vec<f32> = (0..=20).map(|f| f as f32 / 30.0).collect();
    let package = Package {
        clips: vec![Clip {
            name: "dense".into(),
            duration: 20.0 / 30.0,
            tracks: vec![
                Track {
                    target: Target::Bone(BoneRef::named("Bip01")),
                    interpolation: Interpolation::Nlerp,
                    times: times.clone(),
                    values: Values::Rotation(times.iter().map(|t| Quat::from_rotation_y(*t)).collect()),
                },
                Track {
                    target: Target::Bone(BoneRef::named("Bip01")),
                    interpolation: Interpolation::Linear,
                    times: times.clone(),
                    values: Values::Translation(times.iter().map(|t| Vec3::new(*t, 0.0, 0.0)).collect()),
                },
            ],
            ..Default::default()
        }],
        ..Default::default()
    };
    for tf in ["f32", "uint16", "byte", "f32_startstop", "uint16_startstop", "byte_startstop", "bitset"] {
        for variant in ["caf", "crytek"] {
            let mut options = WriteOptions::default().with_variant(variant);
            options.params.insert("times".into(), tf.into());
            let bytes = cry().from_model(&package, &options).unwrap().document.write().unwrap();
            let doc = animkit::read(Bytes::from(bytes.clone()), None, &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{tf} {variant}: {e}"));
            assert_eq!(doc.write().unwrap(), bytes);
            let model = doc.to_model().unwrap_or_else(|e| panic!("{tf} {variant}: {e}"));
            for t in &model.clips[0].tracks {
                assert_eq!(t.times.len(), times.len(), "{tf} {variant}");
                for (a, b) in t.times.iter().zip(&times) {
                    assert!((a - b).abs() < 1e-6, "{tf} {variant}: {a} vs {b}");
                }
            }
            let d = pose_difference(&package, &model);
            assert!(d < 1e-4, "{tf} {variant}: {d}");
        }
    }
    // StartStop cannot hold gaps: a clear error, not a wrong file.
    let mut options = WriteOptions::default();
    options.params.insert("times".into(), "byte_startstop".into());
    let err = match cry().from_model(&clip(), &options) {
        Ok(_) => panic!("sparse keys written as StartStop"),
        Err(e) => e,
    };
    assert_eq!(err.kind, ErrorKind::Unrepresentable, "{err}");
}

/// The chunk file of a CryEngine file, as read.
fn chunk_file(bytes: Vec<u8>) -> ChunkFile {
    let doc = animkit::read(Bytes::from(bytes), None, &ReadOptions::default()).unwrap();
    doc.downcast_ref::<CryDocument>().unwrap().file.clone()
}
