//! Corpus tests for EvilEngine HIP/HOP archives and their SKB ANIM assets, through the public
//! API: documents, their dump (the raw structures' JSON) and `pack`. Expected values come from
//! the spec (`evilengine.md`) or from computations here that do not use the library's own.

mod common;

use animkit::format::{Document, Format, ReadOptions, WriteOptions};
use animkit::lint::Severity;
use animkit::model::Values;
use animkit::sample::{sample, Sampled};
use animkit::Bytes;
use animkit::REGISTRY;
use glam::{Vec3, Vec4};
use serde_json::Value;

fn hip_files() -> Vec<(String, Vec<u8>)> {
    common::corpus_files("evilengine")
        .into_iter()
        .filter(|(n, _)| n.to_ascii_lowercase().ends_with(".hip") || n.to_ascii_lowercase().ends_with(".hop"))
        .collect()
}

fn open(bytes: &[u8]) -> Box<dyn Document> {
    animkit::read(Bytes::copy_from_slice(bytes), None, &ReadOptions::default()).unwrap()
}

fn format(name: &str) -> &'static dyn Format {
    REGISTRY.by_name(name).unwrap().0
}

/// Every asset of one kind, by its `extract` name.
fn assets(bytes: &[u8], kind: &str) -> Vec<(String, Bytes)> {
    open(bytes).entries().unwrap().into_iter().filter(|e| e.kind == kind).map(|e| (e.name, e.data)).collect()
}

/// The raw structure of a document (the dump without its envelope).
fn raw(d: &dyn Document) -> Value {
    d.dump().unwrap()
}

/// `raw` with another byte order, packed and written.
fn with_endian(raw: &Value, endian: &str) -> Vec<u8> {
    let mut raw = raw.clone();
    raw["endian"] = endian.into();
    format("skb").undump(raw).unwrap().write().unwrap()
}

/// The asset ID hash of §5.3: `h = h·131 + toupper(c)` mod 2³².
fn asset_hash(name: &str) -> u32 {
    name.bytes().fold(0u32, |h, c| h.wrapping_mul(131).wrapping_add(u32::from(c.to_ascii_uppercase())))
}

/// Every `AHDR` of a HIP dump, with its `ADBG`.
fn ahdrs(block: &Value, out: &mut Vec<Value>) {
    if let Some(a) = block.get("ahdr") {
        out.push(a.clone());
    }
    for list in [block.get("blocks"), block.pointer("/container/children")].into_iter().flatten() {
        list.as_array().unwrap().iter().for_each(|b| ahdrs(b, out));
    }
}

fn u(v: &Value) -> usize {
    v.as_u64().unwrap() as usize
}

#[test]
fn archives_round_trip_byte_identically() {
    let files = hip_files();
    for (name, bytes) in &files {
        let d = open(bytes);
        assert_eq!(d.format().name(), "hip", "{name}");
        assert_eq!(&d.write().unwrap(), bytes, "{name}: write differs");
        let dumped = animkit::dump(d.as_ref()).unwrap();
        let text = serde_json::to_string(&dumped).unwrap();
        let packed = animkit::pack(serde_json::from_str(&text).unwrap()).unwrap();
        assert_eq!(&packed.write().unwrap(), bytes, "{name}: dump → pack differs");
        let findings = d.lint();
        assert!(findings.iter().all(|f| f.severity == Severity::Info), "{name}: {findings:?}");
        let repaired = d.repair().unwrap();
        assert!(repaired.changes.is_empty(), "{name}: {:?}", repaired.changes);
        let package = d.to_model().unwrap();
        let anims = assets(bytes, "ANIM").len();
        assert_eq!(package.clips.len(), anims, "{name}");
        eprintln!("{name}: {} bytes, {anims} ANIM clips, notes {:?}", bytes.len(), d.notes());
    }
    if !files.is_empty() {
        assert_eq!(files.len(), 2);
    }
}

#[test]
fn boot_has_the_expected_assets() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let d = open(&bytes);
    let entries = d.entries().unwrap();
    let anims = entries.iter().filter(|e| e.kind == "ANIM").count();
    let models = entries.iter().filter(|e| e.kind == "MODL").count();
    assert_eq!((anims, models), (127, 56));
    let mut names: Vec<_> = entries.iter().map(|e| e.name.to_ascii_lowercase()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), entries.len(), "entry names are unique");
    assert!(d.notes().iter().any(|n| n.contains("decided by the archive's game (Battle for Bikini Bottom)")));
    // §5.3: the ANIM asset ID is the hash of the source file's base name (225 of 225 in the spec).
    let mut headers = Vec::new();
    ahdrs(&raw(d.as_ref()), &mut headers);
    let anim_headers: Vec<_> = headers.iter().filter(|a| a["kind"] == "ANIM").collect();
    assert_eq!(anim_headers.len(), 127);
    for a in anim_headers {
        let source = a.pointer("/children/0/adbg/source").and_then(Value::as_str).unwrap();
        let base = source.rsplit(['/', '\\']).next().unwrap();
        assert_eq!(asset_hash(base), a["asset_id"].as_u64().unwrap() as u32, "{source}");
        assert_eq!((u(&a["flags"]), u(&a["offset"]) % 16), (9, 0), "{source}");
        assert!([0, 4, 8, 12].contains(&u(&a["plus"])), "{source}");
    }
    let Some(no_anim) = common::corpus_file("evilengine", "bfbb_gc_b101_no_anim.HIP") else {
        return;
    };
    let d = open(&no_anim);
    assert!(d.to_model().unwrap().clips.is_empty());
    assert!(d.entries().unwrap().iter().all(|e| e.kind != "ANIM"));
}

#[test]
fn every_anim_asset_round_trips_alone_in_both_byte_orders() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let anims = assets(&bytes, "ANIM");
    assert_eq!(anims.len(), 127);
    let (mut padded, mut dense) = (0, 0);
    for (name, data) in &anims {
        // Loose read: version by size and validation.
        let d = animkit::read(data.clone(), None, &ReadOptions::default()).unwrap();
        assert_eq!(d.format().name(), "skb");
        assert_eq!(d.version(), "V1 big-endian", "{name}");
        assert!(d.notes()[0].contains("decided by size and validation"), "{name}");
        assert_eq!(&d.write().unwrap()[..], &data[..], "{name}");
        let dumped = animkit::dump(d.as_ref()).unwrap();
        let packed = animkit::pack(serde_json::from_str(&dumped.to_string()).unwrap()).unwrap();
        assert_eq!(&packed.write().unwrap()[..], &data[..], "{name}: dump → pack");
        // Explicit version parameter.
        let mut options = ReadOptions::default();
        options.params.insert("skb_version".into(), "1".into());
        let d1 = animkit::read(data.clone(), None, &options).unwrap();
        assert!(d1.notes()[0].contains("skb_version option"));
        // Big-endian → little-endian → big-endian through the dump's byte order.
        let r = raw(d.as_ref());
        let le = with_endian(&r, "little");
        assert_eq!(&le[..4], b"SKB1");
        let back = animkit::read(Bytes::from(le), None, &ReadOptions::default()).unwrap();
        assert_eq!(back.version(), "V1 little-endian");
        assert_eq!(&with_endian(&raw(back.as_ref()), "big")[..], &data[..], "{name}: BE → LE → BE");
        padded += usize::from(r.get("tail").is_some());
        let (b, t, k) = (
            u(&r["bone_count"]),
            r["body"]["times"].as_array().unwrap().len(),
            r["body"]["keys"].as_array().unwrap().len(),
        );
        dense += usize::from(k == b * t);
    }
    eprintln!("{} ANIM assets: {padded} with CD CD padding, {dense} dense", anims.len());
}

/// §4: every invariant on every real asset (C1 big-endian, C2 flags 0, C3 size and CD padding,
/// C4–C10 through the linter, which also checks time and translation index ranges; C9's table
/// is the one repair derives from the keys).
#[test]
fn every_spec_invariant_holds_on_every_asset() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    for (name, data) in assets(&bytes, "ANIM") {
        assert_eq!(&data[..4], b"1BKS", "{name}: C1");
        let d = animkit::read(data.clone(), None, &ReadOptions::default()).unwrap();
        let r = raw(d.as_ref());
        assert_eq!((&r["endian"], &r["flags"]), (&Value::from("big"), &Value::from(0)), "{name}: C1, C2");
        // §2.1: S = 28 + 16·K + 4·T + 2·B·(T − 1), padded with CD to a multiple of 4.
        let (b, t, k) = (
            u(&r["bone_count"]),
            r["body"]["times"].as_array().unwrap().len(),
            r["body"]["keys"].as_array().unwrap().len(),
        );
        let size = 28 + 16 * k + 4 * t + 2 * b * (t - 1);
        assert_eq!(data.len(), size.div_ceil(4) * 4, "{name}: C3 size");
        assert!(data[size..].iter().all(|&x| x == 0xCD), "{name}: C3 padding");
        assert!(k <= 65536);
        let findings = d.lint();
        assert!(findings.is_empty(), "{name}: {findings:?}");
        assert!(d.repair().unwrap().changes.is_empty(), "{name}: C9 offsets as derived");
    }
}

/// The game's `rw_slerp` (§3.3) on unnormalised quaternions: hemisphere flip, then a plain lerp
/// when `1 − c < 1e-5`, else the slerp formula.
fn rw_slerp(a: Vec4, b: Vec4, u: f32) -> Vec4 {
    let (mut b, mut c) = (b, a.dot(b));
    if c < 0.0 {
        (b, c) = (-b, -c);
    }
    if 1.0 - c < 1e-5 {
        return a + (b - a) * u;
    }
    let theta = c.min(1.0).acos();
    (a * ((1.0 - u) * theta).sin() + b * (u * theta).sin()) / theta.sin()
}

/// The game's evaluator (§3.3) on the raw keys of a V1 dump, through the offsets table: per
/// bone, the rotation and translation at `t`.
fn game_pose(r: &Value, t: f32) -> Vec<(Vec4, Vec3)> {
    let f = |v: &Value| v.as_f64().unwrap() as f32;
    let times: Vec<f32> = r["body"]["times"].as_array().unwrap().iter().map(f).collect();
    let keys = r["body"]["keys"].as_array().unwrap();
    let offsets: Vec<usize> = r["offsets"].as_array().unwrap().iter().map(u).collect();
    let scale = Vec3::from_array([0, 1, 2].map(|i| f(&r["scale"][i])));
    let key = |k: usize| {
        let ints = |field: &str| {
            keys[k][field].as_array().unwrap().iter().map(|v| v.as_i64().unwrap() as f32).collect::<Vec<_>>()
        };
        let (q, p) = (ints("quat"), ints("tran"));
        (times[u(&keys[k]["time_index"])], Vec4::from_slice(&q) / 32767.0, Vec3::from_slice(&p) * scale)
    };
    let t = t.clamp(0.0, *times.last().unwrap());
    // The last row (segment start, the final time excluded) before t.
    let r_ = times[..times.len() - 1].iter().rposition(|&x| x < t).unwrap_or(0);
    let bones = u(&r["bone_count"]);
    (0..bones)
        .map(|b| {
            let ((ta, q0, p0), (tb, q1, p1)) = (key(offsets[r_ * bones + b]), key(offsets[r_ * bones + b] + 1));
            let s = (t - ta) / (tb - ta);
            (rw_slerp(q0, q1, s), p0 + (p1 - p0) * s)
        })
        .collect()
}

/// The model's sampling reproduces the game's evaluator (above, on the raw keys of the dump) at
/// every key time and between them: the same quaternion up to sign, not renormalised (the
/// model keeps the stored values, as the game does), to the difference between the two slerps'
/// near-parallel thresholds.
#[test]
fn model_sampling_matches_the_game_evaluator() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let (mut checked, mut off_unit) = (0usize, 0usize);
    let mut worst = (0f32, 0f32);
    for (name, data) in assets(&bytes, "ANIM") {
        let d = animkit::read(data, None, &ReadOptions::default()).unwrap();
        let r = raw(d.as_ref());
        let clip = d.to_model().unwrap().clips.remove(0);
        let times: Vec<f32> =
            r["body"]["times"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
        assert_eq!(clip.duration, *times.last().unwrap());
        let scale = (0..3).map(|i| r["scale"][i].as_f64().unwrap() as f32).fold(0f32, f32::max);
        let mut probes: Vec<f32> = times.clone();
        probes.extend(times.windows(2).flat_map(|w| [w[0] + (w[1] - w[0]) * 0.3, (w[0] + w[1]) / 2.0]));
        probes.push(clip.duration + 1.0);
        for t in probes {
            let pose = sample(&clip, t);
            for (b, (gq, gp)) in game_pose(&r, t).into_iter().enumerate() {
                let Sampled::Rotation(q) = pose[2 * b].value else { panic!() };
                let Sampled::Translation(p) = pose[2 * b + 1].value else { panic!() };
                // Up to sign: at a key time the game ends the previous segment, whose hemisphere
                // flip may hand back the negated key (the same rotation).
                let q4 = Vec4::from(q);
                let dq = (q4 - gq).abs().max_element().min((q4 + gq).abs().max_element());
                let dp = (p - gp).abs().max_element();
                assert!(dq < 1e-5, "{name} t={t} bone {b}: {q:?} vs {gq:?}");
                assert!(dp <= scale * 0.01 + 1e-5, "{name} t={t} bone {b}: {p} vs {gp}");
                off_unit += usize::from((q.length() - 1.0).abs() > 1e-5);
                worst = (worst.0.max(dq), worst.1.max(dp));
                checked += 1;
            }
        }
    }
    eprintln!(
        "{checked} bone samples agree; {off_unit} not unit to 1e-5 (as in game); worst component {:.2e}, worst translation {:.2e}",
        worst.0, worst.1
    );
}

/// One bone's key times, rotations and translations, as f32 bits.
type BoneBits = (Vec<u32>, Vec<[u32; 4]>, Vec<[u32; 3]>);

/// The key bits of each bone of a V1 dump, computed here as §3 defines them: keys grouped by
/// bone through the offsets table (bone b: `offsets[0][b]` to `offsets[T−2][b] + 1`); times
/// `times[TimeIndex]`, rotations `Quat / 32767`, translations `Tran × Scale`, each in f32.
fn expected_bits(r: &Value) -> Vec<BoneBits> {
    let f = |v: &Value| v.as_f64().unwrap() as f32;
    let times: Vec<f32> = r["body"]["times"].as_array().unwrap().iter().map(f).collect();
    let keys = r["body"]["keys"].as_array().unwrap();
    let offsets: Vec<usize> = r["offsets"].as_array().unwrap().iter().map(u).collect();
    let scale = [0, 1, 2].map(|i| f(&r["scale"][i]));
    let (bones, rows) = (u(&r["bone_count"]), times.len() - 1);
    let ints = |k: &Value, field: &str| -> Vec<f32> {
        k[field].as_array().unwrap().iter().map(|v| f32::from(v.as_i64().unwrap() as i16)).collect()
    };
    (0..bones)
        .map(|b| {
            let bone = &keys[offsets[b]..=offsets[(rows - 1) * bones + b] + 1];
            let times = bone.iter().map(|k| times[u(&k["time_index"])].to_bits()).collect();
            let quats = bone.iter().map(|k| ints(k, "quat")).map(|q| [0, 1, 2, 3].map(|i| (q[i] / 32767.0).to_bits()));
            let trans = bone.iter().map(|k| ints(k, "tran")).map(|t| [0, 1, 2].map(|i| (t[i] * scale[i]).to_bits()));
            (times, quats.collect(), trans.collect())
        })
        .collect()
}

/// Every key of every clip, read from the archive (clips bound to their skeletons) and from the
/// asset alone, has the bits [`expected_bits`] computes from the raw keys.
#[test]
fn every_key_has_the_bits_the_spec_gives() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let clips: Vec<_> = open(&bytes).packages().unwrap().into_iter().flat_map(|p| p.clips).collect();
    let anims = assets(&bytes, "ANIM");
    assert_eq!((clips.len(), anims.len()), (127, 127));
    let mut keys = 0;
    for (name, data) in &anims {
        let doc = animkit::read(data.clone(), None, &ReadOptions::default()).unwrap();
        let expected = expected_bits(&raw(doc.as_ref()));
        let in_archive = clips.iter().find(|c| format!("{}.anm", c.name) == *name).unwrap();
        for clip in [in_archive, &doc.to_model().unwrap().clips[0]] {
            assert_eq!(clip.tracks.len(), 2 * expected.len(), "{name}");
            for (b, (times, quats, trans)) in expected.iter().enumerate() {
                let (rotation, translation) = (&clip.tracks[2 * b], &clip.tracks[2 * b + 1]);
                for track in [rotation, translation] {
                    assert_eq!(track.times.iter().map(|t| t.to_bits()).collect::<Vec<_>>(), *times, "{name} bone {b}");
                }
                let (Values::Rotation(q), Values::Translation(t)) = (&rotation.values, &translation.values) else {
                    panic!("{name} bone {b}: a rotation and a translation track");
                };
                assert_eq!(
                    q.iter().map(|q| q.to_array().map(f32::to_bits)).collect::<Vec<_>>(),
                    *quats,
                    "{name} bone {b}"
                );
                assert_eq!(
                    t.iter().map(|t| t.to_array().map(f32::to_bits)).collect::<Vec<_>>(),
                    *trans,
                    "{name} bone {b}"
                );
                keys += times.len();
            }
        }
    }
    assert!(keys > 2 * 100_000, "{keys} keys checked");
}

/// Raw → model → SKB of an unchanged clip gives back the stored bytes (every retail asset is in
/// canonical form, §4), in both byte orders: the model keeps the stored quaternions (no
/// renormalisation, no sign flip) and the writer finds the stored scale again (111 axes peak at
/// 32766). Model → SKB → model is then the identity on the values.
#[test]
fn same_format_rewrite_through_the_model_keeps_every_stored_key() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let anims = assets(&bytes, "ANIM");
    assert_eq!(anims.len(), 127);
    for (name, data) in &anims {
        let original = animkit::read(data.clone(), None, &ReadOptions::default()).unwrap();
        for (endian, variant) in [("big", "skb-be"), ("little", "skb-le")] {
            let stored_bytes = with_endian(&raw(original.as_ref()), endian);
            let stored = animkit::read(Bytes::from(stored_bytes.clone()), None, &ReadOptions::default()).unwrap();
            let package = stored.to_model().unwrap();
            let options = WriteOptions::default().with_variant(variant);
            let written = format("skb").from_model(&package, &options).unwrap();
            assert!(written.warnings.is_empty(), "{name}: {:?}", written.warnings);
            assert_eq!(written.document.write().unwrap(), stored_bytes, "{name} {endian}: bytes");
            assert_eq!(written.document.to_model().unwrap(), package, "{name} {endian}: model → SKB → model");
        }
    }
}

#[test]
fn replacing_an_asset_repacks_the_archive() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let d = open(&bytes);
    let anims = assets(&bytes, "ANIM");
    let ((first, data), (_, longer)) = (&anims[0], anims.iter().find(|(_, x)| x.len() > anims[0].1.len()).unwrap());
    let same = d.with_entry(first, data.clone()).unwrap();
    assert_eq!(same.write().unwrap(), bytes, "re-packing unchanged data reproduces the file");
    // A longer asset in its place: its data reads back and every other asset is unchanged.
    let out = open(&d.with_entry(first, longer.clone()).unwrap().write().unwrap());
    for e in out.entries().unwrap().iter().filter(|x| x.kind == "ANIM") {
        let want = if e.name == *first { longer } else { &anims.iter().find(|(n, _)| *n == e.name).unwrap().1 };
        assert_eq!(&e.data, want, "{}", e.name);
    }
}

#[test]
fn truncated_inputs_are_errors_not_panics() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let options = ReadOptions::default();
    let step = (bytes.len() / 500).max(1);
    let whole = Bytes::from(bytes.clone());
    for n in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
        assert!(format("hip").read(whole.slice(..n), &options).is_err(), "cut at {n} parsed");
    }
    for (name, data) in assets(&bytes, "ANIM").iter().take(30) {
        // Without its CD padding the asset is still a valid unpadded V1 file (a peer-tool variant).
        let unpadded = data.len() - data.iter().rev().take_while(|&&b| b == 0xCD).count().min(3);
        let step = (data.len() / 200).max(1);
        let cuts = (0..64.min(data.len())).chain((64..data.len()).step_by(step)).chain(data.len() - 4..data.len());
        for n in cuts {
            let r = format("skb").read(data.slice(..n), &options);
            assert!(r.is_err() || n >= unpadded, "{name} cut at {n}");
        }
    }
}

/// `(parent, HAnim node ID)` of every frame of a clump's FrameList, read here from the
/// RenderWare layout (§6.1: little-endian chunks `type, size, library`; the FrameList Struct is
/// a count then 56-byte frames whose parent is at byte 48; each frame's Extension may hold an
/// HAnim PLG 0x11E whose second word is the node ID).
fn frames(dff: &[u8]) -> Vec<(i32, Option<i32>)> {
    let word = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let chunks = |b: &[u8]| {
        let mut out = Vec::new();
        let mut at = 0;
        while at + 12 <= b.len() {
            let size = word(b, at + 4) as usize;
            out.push((word(b, at), b[at + 12..at + 12 + size].to_vec()));
            at += 12 + size;
        }
        out
    };
    let clump = &chunks(dff)[0].1;
    let list = chunks(clump).into_iter().find(|c| c.0 == 0x0E).unwrap().1;
    let parts = chunks(&list);
    let st = &parts[0].1;
    let exts: Vec<_> = parts.iter().filter(|c| c.0 == 3).collect();
    (0..word(st, 0) as usize)
        .map(|i| {
            let parent = word(st, 4 + 56 * i + 48) as i32;
            let hanim = chunks(&exts[i].1).into_iter().find(|c| c.0 == 0x11E).map(|c| word(&c.1, 4) as i32);
            (parent, hanim)
        })
        .collect()
}

/// §6: HAnim skeletons from MODL assets, and their binding to the ANIM clips.
#[test]
fn skeletons_from_modl_bind_to_clips() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let d = open(&bytes);
    // Node parents from PUSH/POP flags equal the FrameList parents (§6.2: 41 of 41).
    let mut spongebob = None;
    for (name, data) in assets(&bytes, "MODL") {
        let frames = frames(&data);
        let Some(skel) = animkit::read(data, None, &ReadOptions::default()).unwrap().to_model().unwrap().skeleton
        else {
            continue;
        };
        let frame_of = |id: i32| frames.iter().position(|f| f.1 == Some(id)).unwrap();
        for (i, bone) in skel.bones.iter().enumerate() {
            let frame = frames[frame_of(bone.id.unwrap())];
            let expected = bone.parent.map_or(0, |p| frame_of(skel.bones[p].id.unwrap()) as i32);
            assert_eq!(frame.0, expected, "{name} node {i}");
        }
        assert_eq!(frames.len(), skel.bones.len() + 1, "{name}");
        if name == "spongebob_bind.dff" {
            spongebob = Some(skel);
        }
    }
    let package = d.to_model().unwrap();
    let skel = package.skeleton.as_ref().expect("a skeleton binds");
    assert_eq!(Some(skel), spongebob.as_ref(), "SpongeBob's model binds the most clips");
    assert_eq!(skel.bones.len(), 44);
    // Keys are parent-relative local TRS (§6.2): at t = 0 many non-root bones sit on their bind
    // position (4,354 of 7,061 in the spec's sample).
    let (mut near, mut total) = (0, 0);
    let (mut same, mut transposed) = (0, 0);
    for clip in package.clips.iter().filter(|c| c.name.starts_with("spongebob_")) {
        for t in &clip.tracks {
            let bone = t.target.bone().unwrap();
            let b = bone.index.unwrap() as usize;
            assert_eq!(bone.name.as_deref(), skel.bones.get(b).map(|x| x.name.as_str()));
            let Some(rest) = skel.bones.get(b).map(|x| x.rest) else { continue };
            match &t.values {
                Values::Translation(v) if b != 0 => {
                    total += 1;
                    near += usize::from((v[0] - rest.translation).abs().max_element() < 1e-3);
                }
                // Rotation convention (§6.2): `right, up, at` are the columns of q's matrix, so
                // more bones start on the bind rotation than on its transpose (the conjugate).
                Values::Rotation(v) if rest.rotation.xyz().length() > 1e-3 => {
                    same += usize::from(v[0].dot(rest.rotation).abs() > 1.0 - 1e-6);
                    transposed += usize::from(v[0].dot(rest.rotation.conjugate()).abs() > 1.0 - 1e-6);
                }
                _ => {}
            }
        }
    }
    eprintln!("{near} of {total} SpongeBob non-root bones start on their bind position; rotations: {same} match q, {transposed} its conjugate");
    assert!(same > transposed);
    assert!(near * 2 > total);
    assert!(d.notes().iter().any(|n| n.contains("spongebob_bind.dff")), "{:?}", d.notes());
    // `model=none` gives no skeleton; `model=NAME` keeps only that model's clips.
    let mut o = ReadOptions::default();
    o.params.insert("model".into(), "none".into());
    let p = animkit::read(Bytes::from(bytes.clone()), None, &o).unwrap().to_model().unwrap();
    assert!(p.skeleton.is_none() && p.clips.len() == 127);
    o.params.insert("model".into(), "cruise_bubble_bind.dff".into());
    let p = animkit::read(Bytes::from(bytes.clone()), None, &o).unwrap().to_model().unwrap();
    assert!(p.skeleton.is_some() && !p.clips.is_empty());
    assert!(p.clips.iter().all(|c| c.name.starts_with("cruise_bubble_")));
}

/// Model → SKB → archive: an edited clip replaces its ANIM asset; the archive re-packs and
/// every other asset is unchanged.
#[test]
fn an_edited_clip_replaces_its_asset() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let d = open(&bytes);
    let mut package = d.to_model().unwrap();
    let original = package.clip("spongebob_idle01").unwrap().clone();
    package.clips = vec![original.clone()];
    // Edit: lift the root bone by 1 unit at every key.
    for t in package.clips[0].tracks.iter_mut().filter(|t| t.target.bone().unwrap().index == Some(1)) {
        if let Values::Translation(v) = &mut t.values {
            v.iter_mut().for_each(|p| p.y += 1.0);
        }
    }
    let rebuilt = format("skb").from_model(&package, &WriteOptions::default()).unwrap().document.write().unwrap();
    let d2 = open(&d.with_entry("spongebob_idle01.anm", Bytes::from(rebuilt.clone())).unwrap().write().unwrap());
    let (before, after) = (d.entries().unwrap(), d2.entries().unwrap());
    assert_eq!(before.len(), after.len());
    for (a, b) in before.iter().zip(&after) {
        assert_eq!(a.name, b.name);
        if a.name == "spongebob_idle01.anm" {
            assert_eq!(&b.data[..], &rebuilt[..]);
        } else {
            assert_eq!(a.data, b.data, "{}", a.name);
        }
    }
    assert!(d2.lint().iter().all(|f| f.severity == Severity::Info));
    let p2 = d2.to_model().unwrap();
    let Sampled::Translation(y) = sample(p2.clip("spongebob_idle01").unwrap(), 0.0)[3].value else { panic!() };
    let Sampled::Translation(y0) = sample(&original, 0.0)[3].value else { panic!() };
    assert!((y.y - y0.y - 1.0).abs() < 1e-3, "{y} {y0}");
}
