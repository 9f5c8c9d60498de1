//! Constructed CryEngine files through the public API (`cryengine.md` §1, §8, §9): the spec's
//! header vectors, canonical layouts with padding, sizeless chunks, overlapping and truncated
//! tables; an `#ivo` CAF built byte by byte; a CAF written from the model and read back; repair;
//! CompiledBones; the registry entry.

use animkit::formats::cryengine::raw::kind;
use animkit::formats::cryengine::{controller_id, ChunkFile, Container, CryDocument, CryEngine};
use animkit::model::{BoneRef, Clip, Interpolation, Package, Target, Track, Values};
use animkit::{Bytes, Document, Format, ReadOptions, WriteOptions};
use glam::{Quat, Vec3};

/// The chunk file of `bytes` as the CryEngine reader reads it (`lenient` as the read option).
fn read_with(bytes: &[u8], lenient: bool) -> animkit::Result<ChunkFile> {
    let options = ReadOptions::default().with_lenient(lenient);
    let doc = CryEngine.read(Bytes::from(bytes.to_vec()), &options)?;
    Ok(doc.downcast_ref::<CryDocument>().unwrap().file.clone())
}

fn read(bytes: &[u8]) -> animkit::Result<ChunkFile> {
    read_with(bytes, false)
}

fn hex_bytes(s: &str) -> Vec<u8> {
    s.split_whitespace().map(|h| u8::from_str_radix(h, 16).unwrap()).collect()
}

#[test]
fn spec_header_vectors_parse() {
    // §1.1: candycane_a.chr header (Geom, 0x745, table at 20, 32 chunks); we build a file with
    // that header and 32 empty-size chunks pointing just past the table.
    let mut f = hex_bytes("43 72 79 54 65 6B 00 00 00 00 FF FF 45 07 00 00 14 00 00 00 20 00 00 00");
    let data_at = 24 + 32 * 20;
    for i in 0..32u32 {
        for w in [0xCCCC_0000u32, 0x800, data_at, i, 0] {
            f.extend_from_slice(&w.to_le_bytes());
        }
    }
    let file = read(&f).unwrap();
    assert_eq!(file.container, Container::CryTek745);
    assert_eq!(file.file_type, 0xFFFF_0000);
    assert_eq!(file.chunks.len(), 32);
    assert_eq!(file.write().unwrap(), f);
    // raquel_skeleton.chr: CrCh 0x746, 21 chunks, table at 16.
    let mut f = hex_bytes("43 72 43 68 46 07 00 00 15 00 00 00 10 00 00 00");
    for i in 0..21u32 {
        f.extend_from_slice(&0x1000u16.to_le_bytes());
        f.extend_from_slice(&0x1u16.to_le_bytes());
        for w in [i, 0, 16 + 21 * 16] {
            f.extend_from_slice(&w.to_le_bytes());
        }
    }
    let file = read(&f).unwrap();
    assert_eq!((file.container, file.chunks.len(), file.table_offset), (Container::CrCh, 21, 16));
    assert_eq!(file.write().unwrap(), f);
}

#[test]
fn build_then_read_round_trips_with_padding_gaps() {
    for container in [Container::CryTek744, Container::CryTek745, Container::CrCh, Container::Ivo] {
        let file = ChunkFile::build(
            container,
            0xFFFF_0000,
            vec![(0x100D, 0x829, 2, vec![1, 2, 3, 4, 5]), (0x1005, 0x745, 3, vec![]), (0x3002, 0x925, 4, vec![9; 7])],
        )
        .unwrap();
        let bytes = file.write().unwrap();
        let back = read(&bytes).unwrap();
        assert_eq!(back.write().unwrap(), bytes, "{container:?}");
        assert_eq!(back.chunks.len(), 3);
        if container != Container::Ivo {
            assert_eq!(&back.chunks[0].payload(container).unwrap()[..5], &[1, 2, 3, 4, 5]);
        }
    }
}

#[test]
fn sizeless_chunks_end_at_next_offset() {
    // #ivo with two chunks after the table (which ends at 0x30): 0x30..0x34 and 0x34..end.
    let mut f = b"#ivo".to_vec();
    for w in [0x900u32, 2, 16] {
        f.extend_from_slice(&w.to_le_bytes());
    }
    f.extend_from_slice(&[0xED, 0xC6, 0x33, 0x47, 1, 9, 0, 0, 0x30, 0, 0, 0, 0, 0, 0, 0]);
    f.extend_from_slice(&[0xB5, 0x6C, 0x49, 0xA9, 0, 9, 0, 0, 0x34, 0, 0, 0, 0, 0, 0, 0]);
    f.extend_from_slice(&[0xAA; 4 + 3]);
    let file = read(&f).unwrap();
    assert_eq!(file.chunks[0].bytes(file.container).unwrap().len(), 4);
    assert_eq!(file.chunks[1].bytes(file.container).unwrap().len(), 3);
    assert!(file.gaps.is_empty());
    assert_eq!(file.write().unwrap(), f);
}

#[test]
fn crytek_744_chunks_end_at_the_table_when_it_follows_the_data() {
    // Header (table at 0x24), chunk A at 0x14 (8 bytes), chunk B at 0x1C (8 bytes), then the
    // table: count 2 and two 16-byte entries (no size field).
    let mut f = b"CryTek\0\0".to_vec();
    for w in [0xFFFF_0001u32, 0x744, 0x24] {
        f.extend_from_slice(&w.to_le_bytes());
    }
    f.extend_from_slice(&[1; 8]);
    f.extend_from_slice(&[2; 8]);
    f.extend_from_slice(&2u32.to_le_bytes());
    for (off, id) in [(0x1Cu32, 2u32), (0x14, 1)] {
        for w in [0xCCCC_000Du32, 0x827, off, id] {
            f.extend_from_slice(&w.to_le_bytes());
        }
    }
    let file = read(&f).unwrap();
    assert_eq!(file.container, Container::CryTek744);
    assert_eq!(&file.chunks[0].bytes(file.container).unwrap()[..], &[2; 8]);
    assert_eq!(&file.chunks[1].bytes(file.container).unwrap()[..], &[1; 8]);
    assert!(file.gaps.is_empty());
    assert_eq!(file.write().unwrap(), f);
}

#[test]
fn overlapping_chunks_are_rejected() {
    let file = ChunkFile::build(
        Container::CrCh,
        0,
        vec![(kind::TIMING, 0x918, 1, vec![1; 32]), (kind::CONTROLLER, 0x827, 2, vec![2; 32])],
    )
    .unwrap();
    let bytes = file.write().unwrap();
    assert!(read(&bytes).is_ok());
    // Entry 1's offset (the last field of a 16-byte CrCh entry) set to entry 0's.
    let table = file.table_offset as usize;
    let mut aliased = bytes.clone();
    let first_offset = bytes[table + 12..table + 16].to_vec();
    aliased[table + 28..table + 32].copy_from_slice(&first_offset);
    for lenient in [false, true] {
        let e = read_with(&aliased, lenient).unwrap_err();
        assert!(e.message.contains("1 chunks share bytes with another (chunk 1 overlaps chunk 0)"), "{e}");
    }
}

#[test]
fn truncation_never_panics() {
    let file = ChunkFile::build(Container::CryTek745, 0xFFFF_0000, vec![(0x100D, 0x829, 2, vec![7; 40])]).unwrap();
    let bytes = file.write().unwrap();
    for cut in 0..bytes.len() {
        assert!(read(&bytes[..cut]).is_err(), "cut {cut}");
    }
}

#[test]
fn ivo_caf_with_bitmap_times_and_smalltree48() {
    // AnimInfo (fps 30, 1 bone, endFrame 16) + CAFData: one bone with rotation 0x8242
    // (bitmap `00 00 10 00 03 20 01` → frames 0, 1, 13, 16; §9.5) and position 0xC140.
    let mut f = b"#ivo".to_vec();
    for w in [0x900u32, 2, 16] {
        f.extend(w.to_le_bytes());
    }
    f.extend([0xED, 0xC6, 0x33, 0x47, 0x01, 0x09, 0, 0, 0x30, 0, 0, 0, 0, 0, 0, 0]);
    f.extend([0xB5, 0x6C, 0x49, 0xA9, 0x00, 0x09, 0, 0, 0x60, 0, 0, 0, 0, 0, 0, 0]);
    f.extend(0u32.to_le_bytes());
    f.extend(30u16.to_le_bytes());
    f.extend(1u16.to_le_bytes());
    f.extend(0u32.to_le_bytes());
    f.extend(16u32.to_le_bytes());
    for v in [0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0] {
        f.extend(v.to_le_bytes());
    }
    assert_eq!(f.len(), 0x60);
    f.extend(b"#caf");
    f.extend(1u16.to_le_bytes());
    f.extend(0xFFFFu16.to_le_bytes());
    f.extend(0u32.to_le_bytes());
    f.extend(controller_id("Bip01").to_le_bytes());
    let entry = f.len(); // 0x70
                         // rotation: 4 keys, flags 0x8242, times at entry+24, data at entry+32
    f.extend(4u16.to_le_bytes());
    f.extend(0x8242u16.to_le_bytes());
    f.extend(24u32.to_le_bytes());
    f.extend(32u32.to_le_bytes());
    // position: 2 keys, flags 0xC140, times 0 (0..n-1), data at entry+56
    f.extend(2u16.to_le_bytes());
    f.extend(0xC140u16.to_le_bytes());
    f.extend(0u32.to_le_bytes());
    f.extend(56u32.to_le_bytes());
    assert_eq!(f.len(), entry + 24);
    f.extend([0, 0, 0x10, 0, 0x03, 0x20, 0x01, 0]);
    // (1,2,3,4)/√30 in SmallTree48 (§5.2 vector) four times.
    for _ in 0..4 {
        f.extend([0x86, 0x50, 0x86, 0xB0, 0x64, 0xDC]);
    }
    assert_eq!(f.len(), entry + 56);
    for v in [1.0f32, f32::MAX, 2.0, 0.5, 7.0, -1.0] {
        f.extend(v.to_le_bytes());
    }
    for xyz in [[0u16, 9, 0], [4, 9, 1]] {
        for v in xyz {
            f.extend(v.to_le_bytes());
        }
    }
    let doc = CryEngine.read(Bytes::from(f.clone()), &ReadOptions::default()).unwrap();
    assert_eq!(doc.write().unwrap(), f);
    let pkg = doc.to_model().unwrap();
    let clip = &pkg.clips[0];
    assert!((clip.duration - 16.0 / 30.0).abs() < 1e-6);
    assert_eq!(clip.tracks[0].times, [0.0, 1.0 / 30.0, 13.0 / 30.0, 16.0 / 30.0]);
    let Values::Rotation(q) = &clip.tracks[0].values else { panic!() };
    assert!((q[0].x - 0.182_578).abs() < 1e-5);
    let Values::Translation(p) = &clip.tracks[1].values else { panic!() };
    // x = u16 × 1 + 0.5; y inactive → offset 7; z = u16 × 2 − 1.
    assert_eq!(p[0], Vec3::new(0.5, 7.0, -1.0));
    assert_eq!(p[1], Vec3::new(4.5, 7.0, 1.0));
    assert_eq!(clip.tracks[1].times, [0.0, 1.0 / 30.0]);
}

fn walk() -> Package {
    let bone = |name: &str| Target::Bone(BoneRef::named(name));
    let q = |a: f32| Quat::from_rotation_z(a) * Quat::from_rotation_x(0.3 * a);
    Package {
        clips: vec![Clip {
            name: "walk".into(),
            duration: 1.0,
            looping: Some(true),
            additive: false,
            frame_rate: Some(30.0),
            tracks: vec![
                Track {
                    target: bone("Bip01"),
                    interpolation: Interpolation::Nlerp,
                    times: (0..=30).map(|k| k as f32 / 30.0).collect(),
                    values: Values::Rotation((0..=30).map(|k| q(k as f32 * 0.1)).collect()),
                },
                Track {
                    target: bone("Bip01"),
                    interpolation: Interpolation::Linear,
                    times: vec![0.0, 0.5, 1.0],
                    values: Values::Translation(vec![Vec3::ZERO, Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 2.0, 0.1)]),
                },
                Track {
                    target: bone("Bip01 Spine"),
                    interpolation: Interpolation::Nlerp,
                    times: vec![0.0, 0.25, 1.0 / 60.0 + 0.5],
                    values: Values::Rotation(vec![q(0.0), q(-1.0), q(2.5)]),
                },
            ],
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// The rotation angle between two unit quaternions (q and −q are equal).
fn angle_between(a: Quat, b: Quat) -> f32 {
    let d = a * b.conjugate();
    2.0 * d.xyz().length().atan2(d.w.abs())
}

#[test]
fn written_caf_reads_back_within_quantisation() {
    for (variant, rot) in [(None, "st48"), (Some("crytek"), "st64ext"), (None, "dword"), (None, "f32")] {
        let mut options = WriteOptions::default().with_param("rotation", rot);
        if let Some(variant) = variant {
            options = options.with_variant(variant);
        }
        let src = walk();
        let written = CryEngine.from_model(&src, &options).unwrap();
        let bytes = written.document.write().unwrap();
        let doc = CryEngine.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap();
        assert_eq!(doc.write().unwrap(), bytes);
        let back = doc.to_model().unwrap();
        let c = &back.clips[0];
        assert_eq!(c.name, "walk");
        assert_eq!(c.duration, 1.0);
        assert_eq!(c.looping, Some(true));
        assert_eq!(c.tracks.len(), 3);
        let tol = if rot == "dword" { 6e-3 } else { 2e-4 };
        for (a, b) in src.clips[0].tracks.iter().zip(&c.tracks) {
            assert_eq!(b.target.bone().unwrap().name, a.target.bone().unwrap().name);
            assert_eq!(
                b.target.bone().unwrap().hash,
                Some(controller_id(a.target.bone().unwrap().name.as_deref().unwrap()))
            );
            assert_eq!(a.times.len(), b.times.len());
            for (ta, tb) in a.times.iter().zip(&b.times) {
                assert!((ta - tb).abs() < 1e-6, "{ta} {tb}");
            }
            match (&a.values, &b.values) {
                (Values::Rotation(x), Values::Rotation(y)) => {
                    for (p, q) in x.iter().zip(y) {
                        let e = angle_between(*p, *q);
                        assert!(e < tol, "{rot}: {e}");
                    }
                }
                (Values::Translation(x), Values::Translation(y)) => assert_eq!(x, y),
                _ => panic!("channel changed"),
            }
        }
        // The bone name list chunk holds both names.
        let dump = doc.dump().unwrap();
        let names = dump["chunks"].as_array().unwrap().iter().find(|c| c["body"]["kind"] == "bone_name_list").unwrap();
        assert_eq!(names["body"]["names"], serde_json::json!(["Bip01", "Bip01 Spine"]));
    }
}

#[test]
fn registry_finds_the_format_and_its_variants() {
    let (f, v) = animkit::REGISTRY.by_extension("i_caf").unwrap();
    assert_eq!((f.name(), v), ("cryengine", Some("i_caf")));
    assert_eq!(animkit::REGISTRY.by_extension("CAF").unwrap().1, Some("caf"));
    assert_eq!(animkit::REGISTRY.by_extension("dba").unwrap().1, Some("dba"));
    assert_eq!(animkit::REGISTRY.by_name("cryengine").unwrap().0.name(), "cryengine");
    assert_eq!(CryEngine.probe(b"CAF\0\x1f\x03\0\0"), animkit::Confidence::No);
    assert_eq!(CryEngine.probe(b"#ivo\0\x09\0\0\0\0\0\0"), animkit::Confidence::Certain);
    assert!(CryEngine.explain_reject(b"CAF\0").unwrap().contains("Cal3D"));
}

#[test]
fn repair_fixes_embedded_offsets_and_keeps_content() {
    let file = ChunkFile::build(
        Container::CryTek745,
        0xFFFF_0000,
        vec![
            (0x100D, 0x827, 2, {
                let mut v = 1u32.to_le_bytes().to_vec();
                v.extend(7u32.to_le_bytes());
                v.extend([0u8; 28]);
                v
            }),
            (0x3002, 0x925, 1, vec![0; 132]),
        ],
    )
    .unwrap();
    let mut broken = file.clone();
    // Corrupt the MotionParameters embedded offset field.
    broken.chunks[1].header.as_mut().unwrap().offset ^= 0x40;
    let broken = CryDocument::new(broken);
    let findings = broken.lint();
    assert!(findings.iter().any(|f| f.code == "embedded-header-offset" && f.fixable), "{findings:?}");
    let repaired = broken.repair().unwrap();
    assert_eq!(repaired.changes.len(), 1);
    assert_eq!(repaired.document.write().unwrap(), file.write().unwrap());
    // What is left is the note that a PQLog 0x827 controller is intermediate content.
    let left: Vec<_> = repaired.document.lint().iter().map(|f| f.code).collect();
    assert_eq!(left, ["uncompiled-controllers"]);
}

/// A `CryBoneDescData_Comp` record (584 bytes, §8) with its id, bone-to-world rows, name and
/// parent offset; everything else zero.
fn bone_record(id: u32, name: &str, b2w_rows: [f32; 12], offset_parent: i32) -> Vec<u8> {
    let mut r = vec![0u8; 584];
    r[..4].copy_from_slice(&id.to_le_bytes());
    for (k, v) in b2w_rows.iter().enumerate() {
        r[0x108 + 4 * k..0x10C + 4 * k].copy_from_slice(&v.to_le_bytes());
    }
    r[0x138..0x138 + name.len()].copy_from_slice(name.as_bytes());
    r[0x23C..0x240].copy_from_slice(&offset_parent.to_le_bytes());
    r
}

#[test]
fn compiled_bones_bind_locally_to_their_parent() {
    // Root at (0, 0, 1); child at (0, 1, 1) rotated 90° about Z (rows of Rz(90°) = [0 -1 0; 1 0 0; 0 0 1]).
    let mut payload = vec![0u8; 32];
    payload.extend(bone_record(0x7856_1A24, "Bip01", [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 1.], 0));
    payload.extend(bone_record(7, "Bip01 Pelvis", [0., -1., 0., 0., 1., 0., 0., 1., 0., 0., 1., 1.], -1));
    let skeleton_of = |payload: Vec<u8>| {
        let file = ChunkFile::build(Container::CrCh, 0xFFFF_0000, vec![(kind::COMPILED_BONES, 0x800, 1, payload)])?;
        CryDocument::new(file).to_model().map(|p| p.skeleton.unwrap())
    };
    let skel = skeleton_of(payload.clone()).unwrap();
    assert_eq!(skel.bones[0].hash, Some(0x7856_1A24));
    assert_eq!(skel.bones[1].parent, Some(0));
    assert!((skel.bones[1].rest.translation - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-6);
    let z90 = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    assert!(skel.bones[1].rest.rotation.dot(z90).abs() > 0.999_999);
    assert!(skeleton_of(payload[..20].to_vec()).is_err());
}

/// A hand-built 0x905 payload following §7 item by item: one clip, one bone with a position
/// track (f32, Byte times 0, 5, 10) and a rotation track (SmallTree48 `86 50 86 B0 64 DC`
/// = (1,2,3,4)/√30, Bitset times start 0, end 10, count 3, word 0x0421 = bits 0, 5, 10).
fn dba_payload(in_place: bool) -> Vec<u8> {
    let mut blob = vec![0u8, 5, 10, 0]; // Byte times, padded
    for w in [0u16, 10, 3, 0x0421] {
        blob.extend(w.to_le_bytes());
    }
    for v in [1f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0] {
        blob.extend(v.to_le_bytes());
    }
    for _ in 0..3 {
        blob.extend([0x86, 0x50, 0x86, 0xB0, 0x64, 0xDC]);
    }
    assert_eq!(blob.len(), 66);
    let rel = |o: i32| if in_place { o - 66 } else { o };
    let mut p = Vec::new();
    for w in [1u32, 1, 2, 1] {
        p.extend(w.to_le_bytes());
    }
    for s in [3u16, 4] {
        p.extend(s.to_le_bytes());
    }
    for n in [0u32, 0, 1, 0, 0, 0, 1] {
        p.extend(n.to_le_bytes());
    }
    p.extend(3u16.to_le_bytes());
    for n in [0u32, 0, 1, 0, 0, 0, 0, 0, 0] {
        p.extend(n.to_le_bytes());
    }
    p.extend(3u16.to_le_bytes());
    for n in [0u32, 0, 0, 0, 0, 1, 0, 0, 0] {
        p.extend(n.to_le_bytes());
    }
    for o in [rel(0), rel(4), rel(12), rel(48), if in_place { -66 } else { 66 }] {
        p.extend(o.to_le_bytes());
    }
    if in_place {
        p.extend(0u32.to_le_bytes()); // paddingLen
    }
    p.resize(p.len().div_ceil(4) * 4, 0);
    if !in_place {
        p.extend(&blob);
        p.extend([0, 0]);
    }
    let records = p.len();
    p.extend(8u16.to_le_bytes());
    p.extend(b"anim.caf");
    let mut motion = Vec::new();
    for w in [2u32, 0, 1] {
        motion.extend(w.to_le_bytes());
    }
    motion.extend((1.0f32 / 30.0).to_le_bytes());
    motion.extend(0i32.to_le_bytes());
    motion.extend(10i32.to_le_bytes());
    motion.resize(132, 0);
    p.extend(motion);
    p.extend(0u16.to_le_bytes());
    p.extend(1u16.to_le_bytes());
    let info: Vec<u8> = [0x7856_1A24u32, 0, 0, 1, 0].iter().flat_map(|w| w.to_le_bytes()).collect();
    if in_place {
        let off = (p.len() + 4 - records) as i32;
        p.extend(off.to_le_bytes());
        p.extend(info);
        p.extend(&blob);
    } else {
        p.extend(info);
    }
    p
}

/// The document of a `CrCh` file holding `payload` as a DBA 0x905 controller chunk.
fn dba_document(payload: Vec<u8>) -> CryDocument {
    CryDocument::new(
        ChunkFile::build(Container::CrCh, 0xFFFF_0000, vec![(kind::CONTROLLER, 0x905, 1, payload)]).unwrap(),
    )
}

/// The DBA body of a dump.
fn dba_dump(doc: &dyn Document) -> serde_json::Value {
    let dump = doc.dump().unwrap();
    dump["chunks"].as_array().unwrap().iter().find(|c| c["body"]["kind"] == "dba").unwrap()["body"].clone()
}

#[test]
fn hand_built_database_decodes() {
    for in_place in [false, true] {
        let p = dba_payload(in_place);
        let doc = dba_document(p.clone());
        assert_eq!(doc.notes().iter().any(|n| n.contains("(in-place)")), in_place);
        // Time tracks of formats 2 (Byte) and 6 (Bitset).
        assert_eq!(dba_dump(&doc)["times"]["per_format"], serde_json::json!([0, 0, 1, 0, 0, 0, 1]));
        let package = doc.to_model().unwrap();
        let a = &package.clips[0];
        assert_eq!(a.name, "anim");
        assert_eq!((a.duration, a.looping, a.additive), (10.0 / 30.0, Some(true), false));
        let [rot, pos] = &a.tracks[..] else { panic!("{:?}", a.tracks) };
        assert_eq!(pos.target.bone().unwrap().hash, Some(0x7856_1A24));
        assert_eq!(pos.times, [0.0, 5.0 / 30.0, 10.0 / 30.0]);
        let Values::Translation(v) = &pos.values else { panic!() };
        assert_eq!(v[2], Vec3::new(7.0, 8.0, 9.0));
        assert_eq!(rot.times, [0.0, 5.0 / 30.0, 10.0 / 30.0]);
        let Values::Rotation(q) = &rot.values else { panic!() };
        assert!((q[0].x - 0.182_578).abs() < 1e-5);
        for cut in 0..p.len() {
            let _ = dba_document(p[..cut].to_vec()).to_model();
        }
        assert!(dba_document(p[..p.len() - 1].to_vec()).to_model().is_err());
    }
}

/// Two clips with the same bone motion, whose rotation and position share their frames: one
/// time, one position and one rotation track in all (§7 item 1 counts), both clips decoding
/// to the same keys.
#[test]
fn identical_dba_tracks_are_stored_once() {
    let times = vec![0.0, 4.0 / 30.0, 9.0 / 30.0];
    let bone = Target::Bone(BoneRef { hash: Some(0x7856_1A24), ..Default::default() });
    let clip = |name: &str| Clip {
        name: name.into(),
        duration: 0.3,
        tracks: vec![
            Track {
                target: bone.clone(),
                interpolation: Interpolation::Nlerp,
                times: times.clone(),
                values: Values::Rotation(vec![Quat::IDENTITY, Quat::from_rotation_z(0.5), Quat::from_rotation_x(1.0)]),
            },
            Track {
                target: bone.clone(),
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values: Values::Translation(vec![Vec3::X, Vec3::Y, Vec3::Z]),
            },
        ],
        ..Default::default()
    };
    let package = Package { clips: vec![clip("a"), clip("b")], ..Default::default() };
    let options = WriteOptions::default().with_variant("dba").with_param("rotation", "f32");
    let doc = CryEngine.from_model(&package, &options).unwrap().document;
    let dba = dba_dump(doc.as_ref());
    let counts = ["positions", "rotations", "times"].map(|t| dba[t]["key_counts"].as_array().unwrap().len());
    assert_eq!((counts, dba["animations"].as_array().unwrap().len()), ([1, 1, 1], 2));
    let back = doc.to_model().unwrap();
    assert_eq!(back.clips[0].tracks, back.clips[1].tracks);
    assert_eq!(back.clips[1].tracks[1].values, Values::Translation(vec![Vec3::X, Vec3::Y, Vec3::Z]));
}

/// The document of a `CrCh` file holding one controller chunk of `version`.
fn controller_document(version: u32, payload: &[u8]) -> CryDocument {
    let chunks = vec![(kind::CONTROLLER, version, 1, payload.to_vec())];
    CryDocument::new(ChunkFile::build(Container::CrCh, 0, chunks).unwrap())
}

#[test]
fn pqlog_example_from_the_spec() {
    const H: f32 = std::f32::consts::FRAC_1_SQRT_2;
    let mut chunk = Vec::new();
    for w in [2u32, 0x7856_1A24] {
        chunk.extend_from_slice(&w.to_le_bytes());
    }
    // Keys at ticks 0 and 320 (frame 2, §5.5), position 150 cm; rotLog (0, 0, π/4) is the
    // rotation (0, 0, −H, H) (§5.6: stored as log(conj(q))).
    for (t, l) in [(0i32, 0.0f32), (320, std::f32::consts::FRAC_PI_4)] {
        chunk.extend_from_slice(&t.to_le_bytes());
        for v in [150.0f32, 0.0, 0.0, 0.0, 0.0, l] {
            chunk.extend_from_slice(&v.to_le_bytes());
        }
    }
    let clip = &controller_document(0x827, &chunk).to_model().unwrap().clips[0];
    let [rot, pos] = &clip.tracks[..] else { panic!("{:?}", clip.tracks) };
    assert_eq!(rot.times, [0.0, 2.0 / 30.0]);
    let Values::Rotation(q) = &rot.values else { panic!() };
    assert!((q[1] - Quat::from_xyzw(0.0, 0.0, -H, H)).length() < 1e-4);
    let Values::Translation(p) = &pos.values else { panic!() };
    assert_eq!(p[0], Vec3::new(1.5, 0.0, 0.0));
    assert!(controller_document(0x827, &chunk[..chunk.len() - 1]).to_model().is_err());
}

#[test]
fn compressed_layouts_follow_the_descriptor_tables() {
    // The body of a controller's dump and the key times of its clip's tracks (frames).
    let read = |version: u32, payload: &[u8]| {
        let doc = controller_document(version, payload);
        let dump = doc.dump().unwrap()["chunks"][0]["body"].clone();
        let clip = doc.to_model().unwrap().clips.remove(0);
        (dump, clip)
    };
    let frames = |t: &Track| t.times.iter().map(|s| (s * 30.0).round()).collect::<Vec<f32>>();
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
    let (dump, clip) = read(0x831, &p);
    assert_eq!((&dump["kind"], &dump["flags"], &dump["aligned"]), (&"compressed".into(), &0x55.into(), &1.into()));
    assert_eq!(frames(&clip.tracks[0]), [0.0, 4.0]);
    assert_eq!(frames(&clip.tracks[1]), [0.0, 2.0, 4.0]);
    let Values::Translation(v) = &clip.tracks[1].values else { panic!() };
    assert_eq!(v[1], Vec3::new(4.0, 5.0, 6.0));
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
    assert!(controller_document(0x829, &q).to_model().is_err());
    q[6] = 2; // 2 position keys sharing the rotation times
    q.truncate(16 + 12 + 2 + 24);
    let (dump, clip) = read(0x829, &q);
    assert_eq!(dump["aligned"], 0);
    assert_eq!(frames(&clip.tracks[1]), [0.0, 4.0]);
    // A track with 0 keys and zero format bytes is absent (§13).
    let mut r = q[..16].to_vec();
    r[4..8].copy_from_slice(&[0, 0, 0, 0]);
    assert!(read(0x829, &r).1.tracks.is_empty());
}

/// The dump of the only chunk's body of a `CrCh` file holding `payload` as a chunk of `kind`
/// and `version`, and the file's bytes.
fn single_chunk(kind: u32, version: u32, payload: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let file = ChunkFile::build(Container::CrCh, 0, vec![(kind, version, 1, payload.to_vec())]).unwrap();
    let bytes = file.write().unwrap();
    (CryDocument::new(file).dump().unwrap()["chunks"][0]["body"].clone(), bytes)
}

#[test]
fn a_bone_name_list_reads_as_names_and_writes_back() {
    // §2: count 2, "Bip01\0", "Bip01 Spine\0", the closing NUL.
    let mut payload = 2i32.to_le_bytes().to_vec();
    payload.extend(b"Bip01\0Bip01 Spine\0\0");
    let (body, bytes) = single_chunk(kind::BONE_NAME_LIST, 0x745, &payload);
    let expected =
        serde_json::json!({"kind": "bone_name_list", "count": 2, "names": ["Bip01", "Bip01 Spine"], "tail": "00"});
    assert_eq!(body, expected);
    assert!(bytes.ends_with(&payload));
    // A name without its NUL leaves the chunk as bytes.
    assert_eq!(single_chunk(kind::BONE_NAME_LIST, 0x745, &payload[..9]).0["kind"], "bytes");
}

#[test]
fn big_endian_chunks_read_in_their_byte_order() {
    // Timing 0x919 of a console build (version flag 0x8000 in a CrCh file): 16 samples at 30
    // fps from 0 s, big-endian.
    let mut payload = 16i32.to_be_bytes().to_vec();
    payload.extend(30f32.to_be_bytes());
    payload.extend(0f32.to_be_bytes());
    let (body, bytes) = single_chunk(kind::TIMING, 0x8919, &payload);
    assert_eq!(body, serde_json::json!({"kind": "timing_samples", "samples": 16, "rate": 30.0, "start_sec": 0.0}));
    assert!(bytes.ends_with(&payload));
    let file = read(&bytes).unwrap();
    let packed = CryEngine.undump(CryDocument::new(file).dump().unwrap()).unwrap();
    assert_eq!(packed.write().unwrap(), bytes);
}
