//! SKB animations and HIP archives built by hand here (byte by byte, from the layouts of
//! `evilengine.md`), through the public API: reading both layouts in both byte orders, the
//! layout decision, dump → pack, to_model against hand-computed values, lint and repair, model →
//! SKB, and the archive's assets, replacement and dump. Random mutations never panic.

use animkit::bytes::{Endian, Writer};
use animkit::format::{Document, Format, ReadOptions, WriteOptions};
use animkit::formats::evilengine::{HipFormat, SkbFormat};
use animkit::model::{Bone, BoneRef, Clip, Interpolation, Package, Skeleton, Target, Track, Values};
use animkit::sample::{sample, Sampled};
use animkit::Bytes;
use glam::{Quat, Vec3, Vec4};
use serde_json::{json, Value};

/// The magic as a 32-bit value in the file's byte order (`1BKS` on big-endian disks).
const MAGIC: u32 = 0x3142_4B53;
/// The padding byte of the original exporter.
const PAD: u8 = 0xCD;

/// A header by hand: magic, Flags 0, B, T, the count word(s), Scale.
fn header(w: &mut Writer, b: u16, t: u16, counts: &[u16], scale: [f32; 3]) {
    w.u32(MAGIC);
    w.u32(0);
    w.u16(b);
    w.u16(t);
    counts.iter().for_each(|&n| w.u16(n));
    scale.iter().for_each(|&s| w.f32(s));
}

/// A hand-built V1 asset: B = 2, T = 3, K = 5 (bone 0 keys at t0,t2; bone 1 at t0,t1,t2).
/// Layout per §2.1: 28 + 16·5 + 4·3 + 2·2·2 = 128 bytes, already a multiple of 4.
fn v1_sample(endian: Endian) -> Vec<u8> {
    let mut w = Writer::new(endian);
    // KeyCount is a u32: its high half first in big-endian.
    header(&mut w, 2, 3, if endian == Endian::Big { &[0, 5] } else { &[5, 0] }, [0.001, 0.002, 0.0]);
    let keys: [(u16, [i16; 4], [i16; 3]); 5] = [
        (0, [0, 0, 0, 32767], [0, 0, 0]),
        (2, [0, 0, 0, 32767], [0, 0, 0]),
        (0, [0, 0, 0, 32767], [32767, -100, 0]),
        (1, [0, 0, 23170, 23170], [0, 16384, 0]),
        (2, [0, 0, 32767, 0], [-32767, 32767, 0]),
    ];
    for (ti, q, t) in keys {
        w.u16(ti);
        q.iter().chain(&t).for_each(|&v| w.i16(v));
    }
    [0.0f32, 0.5, 1.0].iter().for_each(|&t| w.f32(t));
    // Rows r = 0, 1; columns b = 0, 1: bone 0 keys 0–1, bone 1 keys 2–4.
    [0u16, 2, 0, 3].iter().for_each(|&o| w.u16(o));
    w.into_vec()
}

/// A big-endian V1 asset with B = 1, T = 2, K = 2 (identity keys at times 0 and `second`),
/// without its padding: S = 28 + 32 + 8 + 2 = 70, so a canonical file adds 2 bytes of `CD`.
fn one_bone_v1_unpadded(second: f32) -> Vec<u8> {
    let mut w = Writer::new(Endian::Big);
    header(&mut w, 1, 2, &[0, 2], [0.0; 3]);
    for ti in [0u16, 1] {
        w.u16(ti);
        [0i16, 0, 0, 32767, 0, 0, 0].iter().for_each(|&v| w.i16(v));
    }
    [0.0, second].iter().for_each(|&t| w.f32(t));
    w.u16(0);
    w.into_vec()
}

/// A V2 asset: B = 1, T = 3, K = 3, N = 1 (odd counts everywhere, so every section has two
/// pad bytes). Size per §2.3: 28 + 30 + 2·(3+1) + 6 + 2 + 2·(2+0) = 78.
fn v2_sample(endian: Endian) -> Vec<u8> {
    let mut w = Writer::new(endian);
    header(&mut w, 1, 3, &[3, 1], [0.01; 3]);
    for (frame, q) in [(0u16, [0i16, 0, 0]), (1, [0, 0, 23170]), (2 | 0x8000, [0, 0, 0])] {
        w.u16(frame);
        w.u16(0);
        q.iter().for_each(|&v| w.i16(v));
    }
    [0u16, 15, 30].iter().for_each(|&t| w.u16(t));
    w.fill(PAD, 2);
    [100i16, 200, 300].iter().for_each(|&v| w.i16(v));
    w.fill(PAD, 2);
    [0u16, 1].iter().for_each(|&o| w.u16(o));
    w.into_vec()
}

/// The asset ID hash of §5.3: `h = h·131 + toupper(c)` mod 2³².
fn asset_hash(name: &str) -> u32 {
    name.bytes().fold(0u32, |h, c| h.wrapping_mul(131).wrapping_add(u32::from(c.to_ascii_uppercase())))
}

fn block(w: &mut Writer, id: &[u8; 4], payload: &[u8]) {
    w.bytes(id);
    w.u32(payload.len() as u32);
    w.bytes(payload);
}

/// A minimal archive: HIPA, PACK{PVER}, DICT{ATOC{AINF, AHDR{ADBG}}, LTOC{LINF, LHDR{LDBG}}},
/// STRM{DHDR, DPAK} with one asset, `ab.anm`.
fn tiny_hip(asset: &[u8]) -> Vec<u8> {
    let mut adbg = Writer::new(Endian::Big);
    adbg.i32(0);
    adbg.bytes(b"a\0"); // "a" + NUL: even, no extra pad
    adbg.bytes(b"ab.anm\0\0"); // 7 bytes + 1 pad
    adbg.u32(0xDEAD_BEEF);
    let adbg = adbg.into_vec();
    // Layout: HIPA 8, PACK 8+20, DICT 8 + ATOC(8 + 12 + AHDR(8+24+8+len)) + LTOC(...), STRM.
    let build = |offset: i32| {
        let mut ahdr = Writer::new(Endian::Big);
        ahdr.u32(asset_hash("ab.anm"));
        ahdr.bytes(b"ANIM");
        let plus = (asset.len().next_multiple_of(16) - asset.len()) as i32;
        for v in [offset, asset.len() as i32, plus, 9] {
            ahdr.i32(v);
        }
        block(&mut ahdr, b"ADBG", &adbg);
        let mut atoc = Writer::new(Endian::Big);
        block(&mut atoc, b"AINF", &[0; 4]);
        block(&mut atoc, b"AHDR", &ahdr.into_vec());
        let mut lhdr = Writer::new(Endian::Big);
        lhdr.u32(4);
        lhdr.u32(1);
        lhdr.u32(asset_hash("ab.anm"));
        block(&mut lhdr, b"LDBG", &[0xFF; 4]);
        let mut ltoc = Writer::new(Endian::Big);
        block(&mut ltoc, b"LINF", &[0; 4]);
        block(&mut ltoc, b"LHDR", &lhdr.into_vec());
        let mut dict = Writer::new(Endian::Big);
        block(&mut dict, b"ATOC", &atoc.into_vec());
        block(&mut dict, b"LTOC", &ltoc.into_vec());
        let mut pack = Writer::new(Endian::Big);
        block(&mut pack, b"PVER", &[0, 0, 0, 2, 0, 0x0A, 0, 0x0F, 0, 0, 0, 1]);
        let mut w = Writer::new(Endian::Big);
        block(&mut w, b"HIPA", &[]);
        block(&mut w, b"PACK", &pack.into_vec());
        block(&mut w, b"DICT", &dict.into_vec());
        let strm_at = w.len();
        // STRM header 8, DHDR 12, DPAK header 8, padLength 4 → first asset at the next 0x20.
        let dpak_payload_at = strm_at + 8 + 12 + 8;
        let first = (dpak_payload_at + 4).next_multiple_of(0x20);
        let mut dpak = vec![0u8; 4];
        dpak[3] = (first - dpak_payload_at) as u8;
        dpak.resize(first - dpak_payload_at, 0x33);
        dpak.extend_from_slice(asset);
        let end = (dpak_payload_at + dpak.len()).next_multiple_of(0x20);
        dpak.resize(end - dpak_payload_at, 0x33);
        let mut strm = Writer::new(Endian::Big);
        block(&mut strm, b"DHDR", &[0xFF; 4]);
        block(&mut strm, b"DPAK", &dpak);
        block(&mut w, b"STRM", &strm.into_vec());
        (w.into_vec(), first as i32)
    };
    let (_, offset) = build(0);
    build(offset).0
}

/// Reads `bytes` as `format`, with `skb_version` when given.
fn read(format: &'static dyn Format, bytes: &[u8], version: Option<&str>) -> animkit::Result<Box<dyn Document>> {
    let mut options = ReadOptions::default();
    if let Some(v) = version {
        options.params.insert("skb_version".into(), v.into());
    }
    format.read(Bytes::copy_from_slice(bytes), &options)
}

fn skb(bytes: &[u8], version: &str) -> Box<dyn Document> {
    read(&SkbFormat, bytes, Some(version)).unwrap()
}

/// The document a dump packs back to, written.
fn pack(format: &'static dyn Format, dump: Value) -> Vec<u8> {
    format.undump(dump).unwrap().write().unwrap()
}

/// The clip of an SKB document.
fn clip_of(doc: &dyn Document) -> Clip {
    doc.to_model().unwrap().clips.remove(0)
}

fn rotations(track: &Track) -> &[Quat] {
    let Values::Rotation(r) = &track.values else { panic!("not a rotation track") };
    r
}

fn translations(track: &Track) -> &[Vec3] {
    let Values::Translation(t) = &track.values else { panic!("not a translation track") };
    t
}

#[test]
fn v1_reads_writes_and_dumps_both_byte_orders() {
    for (endian, name) in [(Endian::Big, "big"), (Endian::Little, "little")] {
        let bytes = v1_sample(endian);
        assert_eq!(bytes.len(), 128);
        assert_eq!(&bytes[..4], if endian == Endian::Big { b"1BKS" } else { b"SKB1" });
        let doc = skb(&bytes, "1");
        let raw = doc.dump().unwrap();
        assert_eq!((raw["endian"].as_str(), raw["bone_count"].as_u64()), (Some(name), Some(2)));
        assert_eq!(
            (raw["body"]["times"].as_array().unwrap().len(), raw["body"]["keys"].as_array().unwrap().len()),
            (3, 5)
        );
        // offsets[1][1] = 3; and they are what the keys' per-bone runs derive (repair changes nothing).
        assert_eq!(raw["offsets"], json!([0, 2, 0, 3]));
        assert!(doc.repair().unwrap().changes.is_empty());
        assert_eq!(doc.write().unwrap(), bytes);
        assert_eq!(pack(&SkbFormat, raw.clone()), bytes);
        // The other byte order: the same integers, the other file.
        let (other, other_name) = if endian == Endian::Big { (Endian::Little, "little") } else { (Endian::Big, "big") };
        let mut raw = raw;
        raw["endian"] = other_name.into();
        assert_eq!(pack(&SkbFormat, raw), v1_sample(other));
    }
}

#[test]
fn v2_reads_writes_and_dumps_both_byte_orders() {
    for endian in [Endian::Big, Endian::Little] {
        let bytes = v2_sample(endian);
        assert_eq!(bytes.len(), 78);
        let doc = skb(&bytes, "2");
        assert_eq!(doc.write().unwrap(), bytes);
        let raw = doc.dump().unwrap();
        assert_eq!(raw["body"]["pad_times"], "cdcd");
        assert_eq!(pack(&SkbFormat, raw), bytes);
        // w = −sqrt(1 − 0) for the key with bit 15 set; time 15 frames = 0.5 s.
        let clip = clip_of(doc.as_ref());
        assert_eq!(rotations(&clip.tracks[0])[2], Quat::from_xyzw(0.0, 0.0, 0.0, -1.0));
        assert_eq!(clip.tracks[0].times, [0.0, 0.5, 1.0]);
        // The length fits V2 exactly: decided without the option, and canonical.
        let decided = read(&SkbFormat, &bytes, None).unwrap();
        assert!(decided.notes()[0].starts_with("V2"), "{:?}", decided.notes());
        assert!(decided.lint().is_empty(), "{:?}", decided.lint());
    }
}

#[test]
fn the_layout_is_decided_by_size_and_validation_or_named() {
    for (bytes, label) in [(v1_sample(Endian::Big), "V1 big-endian"), (v2_sample(Endian::Little), "V2 little-endian")] {
        let doc = read(&SkbFormat, &bytes, None).unwrap();
        assert_eq!(
            doc.notes()[0],
            format!("{label}: decided by size and validation (only this layout fits and passes C4–C9)")
        );
    }
    let doc = skb(&v1_sample(Endian::Big), "1");
    assert_eq!(doc.notes()[0], "V1 big-endian: set by the skb_version option");
    assert!(read(&SkbFormat, b"ABCDxxxxxxxxxxxxxxxxxxxxxxxxxxxx", None).is_err());
}

#[test]
fn the_wrong_layout_does_not_fit_and_truncation_is_an_error() {
    let v1 = v1_sample(Endian::Big);
    assert!(read(&SkbFormat, b"ABCDxxxxxxxxxxxxxxxxxxxxxxxxxxxx", Some("1")).is_err());
    for sample in [v1.clone(), v2_sample(Endian::Little)] {
        for n in 0..sample.len() {
            for v in [None, Some("1"), Some("2")] {
                let _ = read(&SkbFormat, &sample[..n], v);
            }
        }
    }
    let e = read(&SkbFormat, &v1[..40], Some("1")).err().unwrap().to_string();
    assert!(e.contains("keys") && e.contains("28"), "{e}");
}

/// Peer-tool variants (§7): an extra offsets row (BFBBAnimTools), `H` padding
/// (io_scene_bfbb_anm), no padding. Each reads as V1, keeps its bytes, is flagged by lint
/// and is made canonical by repair.
#[test]
fn peer_tool_variants_read_and_repair() {
    // Canonical: 70 bytes of content and CD CD.
    let base = one_bone_v1_unpadded(0.5);
    let canonical = [base.clone(), vec![PAD; 2]].concat();
    let variants = [base.clone(), [base.clone(), b"HH".to_vec()].concat(), [base.clone(), vec![0, 1]].concat()];
    for v in variants {
        let doc = read(&SkbFormat, &v, None).unwrap();
        assert!(doc.notes()[0].starts_with("V1 big-endian: decided by size and validation"));
        assert_eq!(doc.write().unwrap(), v);
        assert!(doc.lint().iter().any(|f| f.code == "c3-size" && f.fixable));
        let repaired = doc.repair().unwrap();
        assert_eq!(repaired.changes.len(), 1);
        assert_eq!(repaired.document.write().unwrap(), canonical);
    }
}

#[test]
fn sample_passes_every_invariant_and_broken_offsets_are_repaired() {
    let doc = skb(&v1_sample(Endian::Big), "1");
    assert!(doc.lint().is_empty(), "{:?}", doc.lint());
    let mut raw = doc.dump().unwrap();
    raw["offsets"][3] = 2.into(); // offsets[1][1]: key 2 has TimeIndex 0, key 3 has 1 ≤ r = 1.
    let broken = SkbFormat.undump(raw).unwrap();
    let codes: Vec<_> = broken.lint().iter().map(|f| f.code).collect();
    assert!(codes.contains(&"c9-offsets"), "{codes:?}");
    let repaired = broken.repair().unwrap();
    assert!(repaired.document.lint().is_empty(), "{:?}", repaired.document.lint());
    assert_eq!(repaired.changes.len(), 1);
}

#[test]
fn converts_keys_scales_and_times() {
    let clip = clip_of(skb(&v1_sample(Endian::Big), "1").as_ref());
    assert_eq!(clip.duration, 1.0);
    assert_eq!(clip.tracks.len(), 4);
    // Bone 1: keys at times[0], times[1], times[2] = 0, 0.5, 1.
    assert_eq!(clip.tracks[2].times, vec![0.0, 0.5, 1.0]);
    assert_eq!(clip.tracks[0].times, vec![0.0, 1.0]);
    let t = translations(&clip.tracks[3]);
    // 16384 × 0.002 = 32.768; −32767 × 0.001 = −32.767.
    assert!((t[1].y - 32.768).abs() < 1e-4 && (t[2].x + 32.767).abs() < 1e-4);
    assert_eq!(clip.tracks[3].target.bone().unwrap().index, Some(1));
}

/// A key whose TimeIndex is past the times, and times that do not increase within a bone, are
/// errors that name the key (§6.3: the game interpolates between a bone's consecutive keys).
#[test]
fn keys_out_of_range_or_out_of_order_are_named() {
    let error = |bytes: &[u8]| skb(bytes, "1").to_model().unwrap_err().message;
    // Key 3 (bone 1's second) at TimeIndex 7 of 3 times: bytes 28 + 16·3.
    let mut bytes = v1_sample(Endian::Big);
    bytes[76..78].copy_from_slice(&7u16.to_be_bytes());
    assert_eq!(error(&bytes), "key 3 of bone 1 is out of range");
    // times[2] = 0.5 (bytes 28 + 80 + 8): bone 1's keys 3 and 4 are both at 0.5.
    let mut bytes = v1_sample(Endian::Big);
    bytes[116..120].copy_from_slice(&0.5f32.to_be_bytes());
    assert_eq!(error(&bytes), "bone 1: key 4 is not later than key 3");
    // times[1] = NaN: bone 1's key 3.
    let mut bytes = v1_sample(Endian::Big);
    bytes[112..116].copy_from_slice(&f32::NAN.to_be_bytes());
    assert_eq!(error(&bytes), "bone 1: key time NaN is not finite");
}

/// Expected poses of bone 1 computed independently in Python from the raw keys (§3.3):
/// ```text
/// import math
/// q=lambda v:[c/32767 for c in v]
/// def slerp(a,b,u):
///     c=sum(x*y for x,y in zip(a,b))
///     if c<0: b=[-x for x in b]; c=-c
///     if 1-c<1e-5: return [x+(y-x)*u for x,y in zip(a,b)]
///     th=math.acos(c); return [(math.sin((1-u)*th)*x+math.sin(u*th)*y)/math.sin(th) for x,y in zip(a,b)]
/// slerp(q([0,0,0,32767]),q([0,0,23170,23170]),0.5)   # t=0.25 → z=0.3826865, w=0.9238814
/// slerp(q([0,0,23170,23170]),q([0,0,32767,0]),0.4)   # t=0.7  → z=0.8910093, w=0.4539942
/// translation t=0.7: lerp((0,16384·0.002,0), (−32767·0.001, 32767·0.002, 0), 0.4)
///                    = (−13.1068, 45.8744, 0)
/// ```
#[test]
fn model_sampling_matches_hand_computed_game_values() {
    let clip = clip_of(skb(&v1_sample(Endian::Big), "1").as_ref());
    let cases = [(0.25f32, [0.0, 0.0, 0.382_686_5, 0.923_881_4]), (0.7, [0.0, 0.0, 0.891_009_3, 0.453_994_2])];
    for (t, want) in cases {
        let Sampled::Rotation(q) = sample(&clip, t)[2].value else { panic!() };
        assert!((Vec4::from(q) - Vec4::from_array(want)).abs().max_element() < 2e-5, "{t}: {q:?}");
    }
    let Sampled::Translation(p) = sample(&clip, 0.7)[3].value else { panic!() };
    assert!((p - Vec3::new(-13.1068, 45.8744, 0.0)).abs().max_element() < 1e-3, "{p:?}");
}

/// The sample with T = 1 and only its first `keys` keys (no offsets rows), key `edit` given the
/// translation `tran`.
fn static_pose(keys: usize, edit: Option<(usize, [i16; 3])>) -> Box<dyn Document> {
    let mut raw = skb(&v1_sample(Endian::Big), "1").dump().unwrap();
    let body = &mut raw["body"];
    body["keys"].as_array_mut().unwrap().truncate(keys);
    if let Some((k, tran)) = edit {
        body["keys"][k]["tran"] = json!(tran);
    }
    body["times"].as_array_mut().unwrap().truncate(1);
    raw["offsets"] = json!([]);
    SkbFormat.undump(raw).unwrap()
}

/// T = 1 static pose rule: K = B uses keys[b]; any other K is an error.
#[test]
fn static_pose_with_k_equal_b_uses_keys_b() {
    let clip = clip_of(static_pose(2, Some((1, [0, 500, 0]))).as_ref());
    assert_eq!(translations(&clip.tracks[3]), [Vec3::new(0.0, 500.0 * 0.002, 0.0)]);
    assert!(static_pose(1, None).to_model().is_err());
}

/// T = 1 static pose rule: K = 2B uses keys[2b].
#[test]
fn static_pose_uses_every_other_key_when_k_is_2b() {
    let clip = clip_of(static_pose(4, Some((2, [1000, 0, 0]))).as_ref());
    assert_eq!(clip.duration, 0.0);
    assert_eq!(translations(&clip.tracks[3]), [Vec3::new(1000.0 * 0.001, 0.0, 0.0)]);
}

fn track(b: u32, times: Vec<f32>, values: Values) -> Track {
    let interpolation =
        if matches!(values, Values::Rotation(_)) { Interpolation::Slerp } else { Interpolation::Linear };
    Track { target: Target::Bone(BoneRef { index: Some(b), ..Default::default() }), interpolation, times, values }
}

fn three_bone_clip() -> Clip {
    Clip {
        name: "c".into(),
        duration: 1.0,
        tracks: vec![
            track(0, vec![0.0, 1.0], Values::Rotation(vec![Quat::IDENTITY, Quat::IDENTITY])),
            track(
                2,
                vec![0.0, 0.4, 1.0],
                Values::Rotation(vec![Quat::IDENTITY, Quat::from_rotation_z(1.0), Quat::from_rotation_x(-2.0)]),
            ),
            // y never moves: a zero-range axis.
            track(2, vec![0.0, 0.6], Values::Translation(vec![Vec3::new(1.0, 0.0, -3.0), Vec3::new(-2.0, 0.0, 5.0)])),
        ],
        ..Default::default()
    }
}

/// Writes `clip` (with `skeleton`) as the SKB `variant`.
fn write_skb(clip: &Clip, skeleton: Option<&Skeleton>, variant: &str) -> animkit::Result<animkit::Written> {
    let package = Package { clips: vec![clip.clone()], skeleton: skeleton.cloned(), ..Default::default() };
    SkbFormat.from_model(&package, &WriteOptions::default().with_variant(variant))
}

#[test]
fn model_to_skb_to_model_is_stable_within_quantisation() {
    for (variant, version) in [("skb-be", "1"), ("skb-le", "1"), ("skb-v2-be", "2"), ("skb-v2-le", "2")] {
        let written = write_skb(&three_bone_clip(), None, variant).unwrap();
        assert!(written.warnings.is_empty(), "{:?}", written.warnings);
        assert!(written.document.lint().is_empty(), "{:?}", written.document.lint());
        assert_eq!(written.document.dump().unwrap()["scale"][1], 0.0);
        let bytes = written.document.write().unwrap();
        if version == "1" {
            assert_eq!(bytes.len() % 4, 0);
        }
        let back = skb(&bytes, version);
        assert!(back.version().starts_with(&format!("V{version}")), "{}", back.version());
        let back_raw = back.dump().unwrap();
        assert_eq!(back_raw["bone_count"], 3);
        let c2 = clip_of(back.as_ref());
        assert_eq!(c2.duration, 1.0);
        let src = three_bone_clip();
        for i in 0..=20 {
            let t = i as f32 / 20.0;
            let got = sample(&c2, t);
            for a in sample(&src, t) {
                let b = got
                    .iter()
                    .find(|e| {
                        e.target == a.target && std::mem::discriminant(&e.value) == std::mem::discriminant(&a.value)
                    })
                    .unwrap();
                match (a.value, b.value) {
                    // The model keeps the stored (quantised, not renormalised) values:
                    // compare directions.
                    (Sampled::Rotation(x), Sampled::Rotation(y)) => {
                        assert!(x.dot(y.normalize()).abs() > 1.0 - 1e-6, "{t} {x:?} {y:?}")
                    }
                    // Quantisation step: max|t| / 32767 per axis (5 / 32767 on z).
                    (Sampled::Translation(x), Sampled::Translation(y)) => {
                        assert!((x - y).abs().max_element() < 5.0 / 32767.0, "{t} {x} {y}")
                    }
                    _ => unreachable!(),
                }
            }
        }
        // A second generation stores the same integers (quantisation is idempotent).
        let second = write_skb(&c2, None, variant).unwrap().document.dump().unwrap();
        assert_eq!((&second["body"], &second["offsets"]), (&back_raw["body"], &back_raw["offsets"]));
    }
}

/// Without a skeleton, tracks that name their bones cannot be placed: one line says how many
/// of how many, which, and why; with a skeleton they map to its bone order.
#[test]
fn unbound_tracks_are_counted_in_one_line_and_a_skeleton_binds_them() {
    let named = |name: &str, values| Track {
        target: Target::Bone(BoneRef::named(name)),
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0],
        values,
    };
    let rot = || Values::Rotation(vec![Quat::IDENTITY, Quat::from_rotation_y(0.5)]);
    let clip = Clip {
        name: "walk".into(),
        duration: 1.0,
        tracks: vec![
            named("Pelvis", rot()),
            named("Pelvis", Values::Translation(vec![Vec3::ZERO, Vec3::X])),
            named("Spine", rot()),
            named("Spine", Values::Scale(vec![Vec3::ONE, Vec3::ONE])),
        ],
        ..Default::default()
    };
    let warnings = write_skb(&clip, None, "skb-be").unwrap().warnings;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("clip \"walk\": 4 of 4 tracks dropped (Pelvis, Pelvis, Spine, Spine)"));
    assert!(warnings[0].contains("no skeleton"), "{}", warnings[0]);

    let bone = |name: &str| Bone { name: name.into(), ..Default::default() };
    let skeleton = Skeleton { bones: vec![bone("Root"), bone("Spine"), bone("Pelvis")] };
    let written = write_skb(&clip, Some(&skeleton), "skb-be").unwrap();
    assert_eq!(written.document.dump().unwrap()["bone_count"], 3, "Pelvis is bone 2");
    assert_eq!(
        written.warnings,
        vec!["clip \"walk\": 1 of 4 tracks dropped (Scale of Spine): SKB stores only rotation and translation"]
    );
    let back = clip_of(written.document.as_ref());
    assert_eq!(translations(&back.tracks[5]).last(), Some(&Vec3::X));
    assert!(rotations(&back.tracks[2])[1].normalize().dot(Quat::from_rotation_y(0.5)) > 1.0 - 1e-6);
    let other = Skeleton { bones: vec![bone("Root")] };
    let warnings = write_skb(&clip, Some(&other), "skb-be").unwrap().warnings;
    assert!(warnings[0].contains("4 of 4 tracks dropped") && warnings[0].contains("not in the 1-bone skeleton"));
}

/// Every `AHDR` of a HIP dump.
fn ahdrs(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Object(map) => {
            if let Some(a) = map.get("ahdr") {
                out.push(a.clone());
            }
            map.values().for_each(|v| ahdrs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| ahdrs(v, out)),
        _ => {}
    }
}

/// The children of the container block `id` among `blocks`.
fn children<'a>(blocks: &'a mut [Value], id: &str) -> &'a mut Vec<Value> {
    let block = blocks.iter_mut().find(|b| b["id"] == id).unwrap();
    block["container"]["children"].as_array_mut().unwrap()
}

/// The `ATOC` children of a HIP dump.
fn atoc(raw: &mut Value) -> &mut Vec<Value> {
    children(children(raw["blocks"].as_array_mut().unwrap(), "DICT"), "ATOC")
}

#[test]
fn tiny_archive_round_trips_and_lists_its_asset() {
    let bytes = tiny_hip(b"12345678");
    let doc = read(&HipFormat, &bytes, None).unwrap();
    assert_eq!(doc.write().unwrap(), bytes);
    let entries = doc.entries().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!((entries[0].name.as_str(), entries[0].kind.as_str()), ("ab.anm", "ANIM"));
    assert_eq!(&entries[0].data[..], b"12345678");
    let mut found = Vec::new();
    ahdrs(&doc.dump().unwrap(), &mut found);
    let adbg = &found[0]["children"][0]["adbg"];
    assert_eq!((&adbg["source"], &adbg["name"]), (&json!("ab.anm"), &json!("a")));
    assert_eq!(doc.version(), "HIP (Battle for Bikini Bottom)");
    for n in 0..bytes.len() {
        let _ = read(&HipFormat, &bytes[..n], None);
    }
}

#[test]
fn replacing_an_asset_recomputes_offsets_and_sizes() {
    let doc = read(&HipFormat, &tiny_hip(b"12345678"), None).unwrap();
    let replaced = doc.with_entry("ab.anm", Bytes::from_static(b"0123456789abcdefXYZ")).unwrap();
    let bytes = replaced.write().unwrap();
    // Independent expectation: the archive built directly around the new data.
    assert_eq!(bytes, tiny_hip(b"0123456789abcdefXYZ"));
    let doc = read(&HipFormat, &bytes, None).unwrap();
    assert_eq!(&doc.entries().unwrap()[0].data[..], b"0123456789abcdefXYZ");
    let mut found = Vec::new();
    ahdrs(&doc.dump().unwrap(), &mut found);
    assert_eq!(found[0]["plus"], 13);
}

#[test]
fn assets_sharing_data_are_rejected() {
    let mut raw = read(&HipFormat, &tiny_hip(b"0123456789abcdef"), None).unwrap().dump().unwrap();
    // A second header for the one asset.
    let atoc = atoc(&mut raw);
    let ahdr = atoc.iter().find(|b| b["id"] == "AHDR").unwrap().clone();
    atoc.push(ahdr);
    let e = read(&HipFormat, &pack(&HipFormat, raw), None).err().unwrap();
    assert!(e.message.starts_with("1 assets share data bytes with another"), "{e}");
}

#[test]
fn the_dump_is_the_serde_form_and_packs_back() {
    let bytes = tiny_hip(b"abc");
    let raw = read(&HipFormat, &bytes, None).unwrap().dump().unwrap();
    let json = raw.to_string();
    assert!(json.contains(r#""adbg":{"align":0,"name":"a","source":"ab.anm""#), "{json}");
    assert!(json.contains(r#"{"id":"PACK","container":{"children":[{"id":"PVER","raw":"0000000200"#), "{json}");
    assert_eq!(pack(&HipFormat, raw.clone()), bytes);
    // A name with more padding than the canonical NUL (+ 1 to even length) is kept as hex.
    let mut odd = raw;
    let ahdr = atoc(&mut odd).iter_mut().find(|b| b["id"] == "AHDR").unwrap();
    let adbg = &mut ahdr["ahdr"]["children"][0]["adbg"];
    adbg["name"] = json!({"hex": "61000000"});
    adbg["source"] = json!("");
    let packed = HipFormat.undump(odd).unwrap();
    let needle = [&0i32.to_be_bytes()[..], b"a\0\0\0", b"\0\0", &0xDEAD_BEEFu32.to_be_bytes()].concat();
    let written = packed.write().unwrap();
    assert!(written.windows(needle.len()).any(|w| w == needle), "the ADBG holds the bytes as given");
    let mut found = Vec::new();
    ahdrs(&packed.dump().unwrap(), &mut found);
    assert_eq!(found[0]["children"][0]["adbg"]["name"], json!({"hex": "61000000"}));
}

/// Random byte mutations of an animation and of an archive holding it: every layer returns,
/// never panics.
#[test]
fn mutations_never_panic() {
    let mut x = 0x9E37_79B9u32;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let anim = v1_sample(Endian::Big);
    let samples: [(&'static dyn Format, Vec<u8>); 3] =
        [(&SkbFormat, anim.clone()), (&SkbFormat, v2_sample(Endian::Little)), (&HipFormat, tiny_hip(&anim))];
    for (format, sample) in samples {
        for _ in 0..3000 {
            let mut b = sample.clone();
            for _ in 0..1 + next() % 4 {
                let i = next() as usize % b.len();
                b[i] = next() as u8;
            }
            for v in [Some("1"), Some("2"), None] {
                let Ok(doc) = read(format, &b, v) else { continue };
                let _ = (doc.lint(), doc.repair().map(|r| r.changes), doc.to_model(), doc.notes());
                let _ = (doc.entries(), doc.write(), doc.dump().map(|d| format.undump(d).map(|d| d.write())));
            }
        }
    }
}
