//! Corpus tests for EvilEngine HIP/HOP archives and their SKB ANIM assets.

mod common;

use animkit::bytes::Endian;
use animkit::formats::evilengine::{build, hip, lint, model, skb, HipDocument};
use animkit::formats::{Document, Format, Limits, ReadOptions};
use animkit::model::Values;
use animkit::sample::{sample, Sampled};
use animkit::Bytes;

fn hip_files() -> Vec<(String, Vec<u8>)> {
    common::corpus_files("evilengine")
        .into_iter()
        .filter(|(n, _)| n.to_ascii_lowercase().ends_with(".hip") || n.to_ascii_lowercase().ends_with(".hop"))
        .collect()
}

fn open(bytes: &[u8]) -> Box<dyn animkit::Document> {
    animkit::read(Bytes::copy_from_slice(bytes), None, &ReadOptions::default()).unwrap()
}

fn doc(d: &dyn animkit::Document) -> &HipDocument {
    d.downcast_ref::<HipDocument>().unwrap()
}

/// Every ANIM asset's bytes, with its clip name.
fn anim_assets(bytes: &[u8]) -> Vec<(String, Bytes)> {
    let d = open(bytes);
    d.entries().unwrap().into_iter().filter(|e| e.kind == "ANIM").map(|e| (e.name, e.data)).collect()
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
        assert!(findings.iter().all(|f| f.severity == animkit::lint::Severity::Info), "{name}: {findings:?}");
        let repaired = d.repair().unwrap();
        assert!(repaired.changes.is_empty(), "{name}: {:?}", repaired.changes);
        let package = d.to_model().unwrap();
        let anims = doc(d.as_ref()).hip.assets().iter().filter(|(a, _)| &a.kind == b"ANIM").count();
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
    let h = doc(d.as_ref());
    for (a, dbg) in h.hip.assets().iter().filter(|(a, _)| &a.kind == b"ANIM") {
        let source = dbg.unwrap().source();
        let base = source.rsplit(['/', '\\']).next().unwrap();
        assert_eq!(hip::asset_hash(base), a.asset_id, "{source}");
        assert_eq!((a.flags, a.offset % 16), (9, 0), "{source}");
        assert!([0, 4, 8, 12].contains(&a.plus), "{source}");
    }
    let Some(no_anim) = common::corpus_file("evilengine", "bfbb_gc_b101_no_anim.HIP") else {
        return;
    };
    let d = open(&no_anim);
    assert!(d.to_model().unwrap().clips.is_empty());
    assert!(d.entries().unwrap().iter().all(|e| e.kind != "ANIM"));
}

#[test]
fn every_anim_asset_round_trips_alone() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let assets = anim_assets(&bytes);
    assert_eq!(assets.len(), 127);
    let (mut padded, mut dense) = (0, 0);
    for (name, data) in &assets {
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
        // Big-endian → little-endian → big-endian.
        let (s, _) = skb::read(data, None).unwrap();
        let le = skb::write(&skb::with_endian(&s, Endian::Little));
        assert_eq!(&le[..4], b"SKB1");
        let (back, _) = skb::read(&Bytes::from(le), None).unwrap();
        assert_eq!(back.endian, Endian::Little);
        assert_eq!(&skb::write(&skb::with_endian(&back, Endian::Big))[..], &data[..], "{name}: BE → LE → BE");
        padded += usize::from(!s.tail.is_empty());
        dense += usize::from(s.key_count() == usize::from(s.bone_count) * s.time_count());
    }
    eprintln!("{} ANIM assets: {padded} with CD CD padding, {dense} dense", assets.len());
}

/// §4: every invariant on every real asset (C1 big-endian, C2 flags 0, C3 size and CD padding,
/// C4–C10 through the linter, which also checks time and translation index ranges).
#[test]
fn every_spec_invariant_holds_on_every_asset() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    for (name, data) in anim_assets(&bytes) {
        assert_eq!(&data[..4], b"1BKS", "{name}: C1");
        let (s, _) = skb::read(&data, None).unwrap();
        assert_eq!(s.endian, Endian::Big, "{name}: C1");
        assert_eq!(s.flags, 0, "{name}: C2");
        let size = s.data_size();
        assert_eq!(data.len(), size.div_ceil(4) * 4, "{name}: C3 size");
        assert!(s.tail.iter().all(|&b| b == 0xCD), "{name}: C3 padding");
        let v = lint::invariant_violations(&s);
        assert!(v.is_empty(), "{name}: {v:?}");
        // C10 directly, and K within the u16 offsets range.
        let ranges = model::bone_ranges(&s).unwrap();
        assert!(ranges.iter().all(|&(a, b)| b > a), "{name}: C10");
        assert!(s.key_count() <= 65536);
        // The offsets table is exactly what the writer derives (C9).
        let runs = lint::derive_bone_runs(&s).unwrap();
        assert_eq!(runs, ranges, "{name}");
        assert_eq!(lint::derive_offsets(&s, &runs), s.offsets, "{name}");
    }
}

/// The model's sampling reproduces the game's evaluator (§3.3, run on the raw keys through the
/// offsets table) at every key time and between them: the same quaternion up to sign, not
/// renormalised (the model keeps the stored values, as the game does), to the difference
/// between the two slerps' near-parallel thresholds.
#[test]
fn model_sampling_matches_the_game_evaluator() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let mut checked = 0usize;
    let (mut negative, mut pairs, mut off_unit) = (0usize, 0usize, 0usize);
    let mut worst = (0f32, 0f32);
    for (name, data) in anim_assets(&bytes) {
        let (s, _) = skb::read(&data, None).unwrap();
        let clip = model::to_clip(&s, &name, None, &Limits::default()).unwrap();
        assert_eq!(clip.duration, *s.times_seconds().last().unwrap());
        for (start, end) in model::bone_ranges(&s).unwrap() {
            for k in start..end {
                let (a, b) = (s.key_rotation(k).unwrap(), s.key_rotation(k + 1).unwrap());
                negative += usize::from(a.iter().zip(&b).map(|(x, y)| x * y).sum::<f32>() < 0.0);
                pairs += 1;
            }
        }
        let times = s.times_seconds();
        let mut probes: Vec<f32> = times.clone();
        probes.extend(times.windows(2).flat_map(|w| [w[0] + (w[1] - w[0]) * 0.3, (w[0] + w[1]) / 2.0]));
        probes.push(clip.duration + 1.0);
        for t in probes {
            let game = model::evaluate(&s, t).unwrap();
            let pose = sample(&clip, t);
            for (b, g) in game.iter().enumerate() {
                let Sampled::Rotation(q) = pose[2 * b].value else { panic!() };
                let Sampled::Translation(p) = pose[2 * b + 1].value else { panic!() };
                let gq = glam::Vec4::from_array(g.rotation);
                // Up to sign: at a key time the game ends the previous segment, whose hemisphere
                // flip may hand back the negated key (the same rotation).
                let q4 = glam::Vec4::from(q);
                let dq = (q4 - gq).abs().max_element().min((q4 + gq).abs().max_element());
                let dp = (p - glam::Vec3::from_array(g.translation)).abs().max_element();
                let scale = glam::Vec3::from_array(s.scale).max_element();
                assert!(dq < 1e-5, "{name} t={t} bone {b}: {q:?} vs {gq:?}");
                assert!(dp <= scale * 0.01 + 1e-5, "{name} t={t} bone {b}: {p} vs {:?}", g.translation);
                off_unit += usize::from((q.length() - 1.0).abs() > 1e-5);
                worst = (worst.0.max(dq), worst.1.max(dp));
                checked += 1;
            }
        }
    }
    eprintln!("{negative} of {pairs} raw same-bone key pairs have a negative dot product (kept as stored)");
    eprintln!(
        "{checked} bone samples agree; {off_unit} not unit to 1e-5 (as in game); worst component {:.2e}, worst translation {:.2e}",
        worst.0, worst.1
    );
}

/// The raw keys of an SKB: V1 keys, times, offsets, scale.
fn raw_keys(s: &skb::Skb) -> (Vec<skb::KeyV1>, Vec<f32>, Vec<u16>, [f32; 3]) {
    let skb::Body::V1 { keys, times } = &s.body else { panic!("V1 expected") };
    (keys.clone(), times.clone(), s.offsets.clone(), s.scale)
}

/// Raw → model → SKB of an unchanged clip gives back the stored keys, byte for byte (every
/// retail asset is in canonical form, §4), in both byte orders: the model keeps the stored
/// quaternions (no renormalisation, no sign flip) and the writer finds the stored scale again
/// (111 axes peak at 32766). Model → SKB → model is then the identity on the values.
#[test]
fn same_format_rewrite_through_the_model_keeps_every_stored_key() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let assets = anim_assets(&bytes);
    assert_eq!(assets.len(), 127);
    let (mut keys, mut peaks_below_full) = (0usize, 0usize);
    for (name, data) in &assets {
        let (original, _) = skb::read(data, None).unwrap();
        peaks_below_full += original.scale.iter().filter(|&&sc| sc != 0.0).count()
            - (0..3)
                .filter(|&axis| {
                    let skb::Body::V1 { keys, .. } = &original.body else { return false };
                    keys.iter().any(|k| k.tran[axis].unsigned_abs() == 32767)
                })
                .count();
        for endian in [Endian::Big, Endian::Little] {
            let stored = skb::with_endian(&original, endian);
            let stored_bytes = skb::write(&stored);
            let clip = model::to_clip(&stored, name, None, &Limits::default()).unwrap();
            let mut warnings = Vec::new();
            let options = build::BuildOptions { version: skb::SkbVersion::V1, endian };
            let rebuilt = build::from_clip(&clip, None, options, &mut warnings).unwrap();
            assert!(warnings.is_empty(), "{name}: {warnings:?}");
            assert_eq!(raw_keys(&rebuilt), raw_keys(&stored), "{name} {endian:?}: stored keys");
            assert_eq!(skb::write(&rebuilt), stored_bytes, "{name} {endian:?}: bytes");
            let again = model::to_clip(&rebuilt, name, None, &Limits::default()).unwrap();
            assert_eq!(again, clip, "{name} {endian:?}: model → SKB → model");
        }
        keys += original.key_count();
    }
    eprintln!("127 assets × 2 byte orders, {keys} keys per order, rewritten exactly ({peaks_below_full} axes peak below 32767)");
}

#[test]
fn replacing_an_asset_with_itself_keeps_the_archive() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let d = open(&bytes);
    let h = doc(d.as_ref());
    let anims = anim_assets(&bytes);
    let (a, _) = *h.hip.assets().iter().find(|(a, _)| &a.kind == b"ANIM").unwrap();
    let data = hip::Hip::asset_data(h.bytes(), a).unwrap();
    let mut copy = h.hip.clone();
    copy.replace_asset(a.asset_id, data.clone(), 0x20).unwrap();
    assert_eq!(hip::write(&copy), bytes, "re-packing unchanged data reproduces the file");
    // A grown asset: its data reads back and every other asset is unchanged.
    let mut grown = data.to_vec();
    grown.extend_from_slice(&[0xCD; 20]);
    copy.replace_asset(a.asset_id, Bytes::from(grown.clone()), 0x20).unwrap();
    let out = open(&hip::write(&copy));
    let e = out.entries().unwrap();
    let changed: Vec<_> = e
        .iter()
        .filter(|x| x.kind == "ANIM")
        .filter(|x| !anims.iter().any(|(n, d)| *n == x.name && *d == x.data))
        .collect();
    assert_eq!(changed.len(), 1);
    assert_eq!(&changed[0].data[..], &grown[..]);
}

#[test]
fn truncated_inputs_are_errors_not_panics() {
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let step = (bytes.len() / 500).max(1);
    let whole = Bytes::from(bytes.clone());
    for n in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
        let cut = whole.slice(..n);
        assert!(hip::read(&cut).is_err(), "cut at {n} parsed");
    }
    for (name, data) in anim_assets(&bytes).iter().take(30) {
        let (s, _) = skb::read(data, None).unwrap();
        let step = (data.len() / 200).max(1);
        let cuts = (0..64.min(data.len())).chain((64..data.len()).step_by(step)).chain(data.len() - 4..data.len());
        for n in cuts {
            let r = skb::read(&data.slice(..n), None);
            // Dropping only the CD padding leaves a valid unpadded V1 file (a peer-tool variant).
            assert!(r.is_err() || n >= s.data_size(), "{name} cut at {n}");
        }
    }
}

/// §6: HAnim skeletons from MODL assets, and their binding to the ANIM clips.
#[test]
fn skeletons_from_modl_bind_to_clips() {
    use animkit::formats::evilengine::rwskel;
    let Some(bytes) = common::corpus_file("evilengine", "bfbb_gc_boot.HIP") else {
        return;
    };
    let d = open(&bytes);
    let h = doc(d.as_ref());
    let models = h.skinned_models();
    assert!(!models.is_empty());
    // Node parents from PUSH/POP flags equal the FrameList parents (§6.2: 41 of 41).
    for (a, dbg) in h.hip.assets().iter().filter(|(a, _)| &a.kind == b"MODL") {
        let data = hip::Hip::asset_data(h.bytes(), a).unwrap();
        let clump = rwskel::read_clump(&data).unwrap();
        let Some(skel) = rwskel::skeleton(&clump).unwrap() else {
            continue;
        };
        let frame_of =
            |id: i32| clump.frames.iter().position(|f| f.hanim.as_ref().is_some_and(|x| x.node_id == id)).unwrap();
        for (i, bone) in skel.bones.iter().enumerate() {
            let frame = &clump.frames[frame_of(bone.id.unwrap())];
            let expected = bone.parent.map_or(0, |p| frame_of(skel.bones[p].id.unwrap()) as i32);
            assert_eq!(frame.parent, expected, "{} node {i}", dbg.unwrap().name());
        }
        assert_eq!(clump.frames.len(), skel.bones.len() + 1, "{}", dbg.unwrap().name());
    }
    let package = d.to_model().unwrap();
    let skel = package.skeleton.as_ref().expect("a skeleton binds");
    let sb = models.iter().find(|m| m.prefix == "spongebob").unwrap();
    assert_eq!(skel, &sb.skeleton, "SpongeBob's model binds the most clips");
    assert_eq!(skel.bones.len(), 44);
    // Keys are parent-relative local TRS (§6.2): at t = 0 many non-root bones sit on their bind
    // position (4,354 of 7,061 in the spec's sample).
    let (mut near, mut total) = (0, 0);
    for clip in package.clips.iter().filter(|c| c.name.starts_with("spongebob_")) {
        for t in clip.tracks.iter().filter(|t| matches!(t.values, Values::Translation(_))) {
            let bone = t.target.bone().unwrap();
            let b = bone.index.unwrap() as usize;
            assert_eq!(bone.name.as_deref(), skel.bones.get(b).map(|x| x.name.as_str()));
            let (Values::Translation(v), Some(rest)) = (&t.values, skel.bones.get(b)) else {
                continue;
            };
            if b == 0 {
                continue;
            }
            total += 1;
            near += usize::from((v[0] - rest.rest.translation).abs().max_element() < 1e-3);
        }
    }
    // Rotation convention (§6.2): `right, up, at` are the columns of q's matrix, so more bones
    // start on the bind rotation than on its transpose (the conjugate).
    let (mut same, mut transposed) = (0, 0);
    for clip in package.clips.iter().filter(|c| c.name.starts_with("spongebob_")) {
        for t in clip.tracks.iter() {
            let (Values::Rotation(v), Some(b)) = (&t.values, t.target.bone().and_then(|b| b.index)) else {
                continue;
            };
            let rest = skel.bones[b as usize].rest.rotation;
            let close = |q: glam::Quat| v[0].dot(q).abs() > 1.0 - 1e-6;
            let asym = rest.xyz().length() > 1e-3;
            same += usize::from(asym && close(rest));
            transposed += usize::from(asym && close(rest.conjugate()));
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
    let d = animkit::formats::evilengine::HipFormat.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap();
    let mut h = HipDocument::new(doc(d.as_ref()).hip.clone());
    let package = d.to_model().unwrap();
    let mut clip = package.clip("spongebob_idle01").unwrap().clone();
    // Edit: lift the root bone by 1 unit at every key.
    for t in clip.tracks.iter_mut().filter(|t| t.target.bone().unwrap().index == Some(1)) {
        if let Values::Translation(v) = &mut t.values {
            v.iter_mut().for_each(|p| p.y += 1.0);
        }
    }
    let options = build::BuildOptions { version: skb::SkbVersion::V1, endian: Endian::Big };
    let rebuilt = build::from_clip(&clip, package.skeleton.as_ref(), options, &mut Vec::new()).unwrap();
    h.replace_anim("spongebob_idle01", &rebuilt).unwrap();
    let out = h.write().unwrap();
    let d2 = open(&out);
    let before = d.entries().unwrap();
    let after = d2.entries().unwrap();
    assert_eq!(before.len(), after.len());
    for (a, b) in before.iter().zip(&after) {
        assert_eq!(a.name, b.name);
        if a.name == "spongebob_idle01.anm" {
            assert_eq!(&b.data[..], &skb::write(&rebuilt)[..]);
        } else {
            assert_eq!(a.data, b.data, "{}", a.name);
        }
    }
    assert!(d2.lint().iter().all(|f| f.severity == animkit::lint::Severity::Info));
    let p2 = d2.to_model().unwrap();
    let c2 = p2.clip("spongebob_idle01").unwrap();
    let Sampled::Translation(y) = sample(c2, 0.0)[3].value else { panic!() };
    let Sampled::Translation(y0) = sample(package.clip("spongebob_idle01").unwrap(), 0.0)[3].value else { panic!() };
    assert!((y.y - y0.y - 1.0).abs() < 1e-3, "{y} {y0}");
}
