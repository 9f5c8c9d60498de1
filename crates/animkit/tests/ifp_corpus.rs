//! IFP on the real corpus: byte-exact round trips, dump/pack, model conversion, ANPK↔ANP3,
//! lint and repair, and robustness against truncation and corrupted counts.

mod common;

use animkit::model::{Package, Values};
use animkit::{Bytes, Document, ReadOptions, WriteOptions};
use glam::{Quat, Vec4};

fn read(bytes: &[u8]) -> Box<dyn Document> {
    animkit::read(Bytes::copy_from_slice(bytes), None, &ReadOptions::default()).expect("reads")
}

/// The raw structure of a document: its lossless JSON dump.
fn raw(doc: &dyn Document) -> serde_json::Value {
    animkit::dump(doc).unwrap()["document"].take()
}

#[test]
fn every_file_round_trips_byte_identically() {
    let files = common::corpus_files("ifp");
    for (name, bytes) in &files {
        let doc = read(bytes);
        assert_eq!(&doc.write().unwrap(), bytes, "{name}: read → write");
        let json = serde_json::to_string(&animkit::dump(doc.as_ref()).unwrap()).unwrap();
        let packed = animkit::pack(serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(&packed.write().unwrap(), bytes, "{name}: dump → pack");
        doc.to_model().unwrap_or_else(|e| panic!("{name}: to_model: {e}"));
    }
    if !files.is_empty() {
        assert_eq!(files.len(), 9, "the IFP corpus has nine files");
    }
}

#[test]
fn raw_summary_equals_the_summary_of_the_model() {
    for (name, bytes) in common::corpus_files("ifp") {
        let doc = read(&bytes);
        let summary = doc.summary().unwrap();
        assert_eq!(summary, animkit::format::Summary::of(&doc.to_model().unwrap()), "{name}");
    }
}

#[test]
fn ped_files_have_the_known_clip_counts() {
    for (file, clips, magic) in [("vc_ped_anpk.ifp", 234, "ANPK"), ("sa_ped_anp3.ifp", 294, "ANP3")] {
        let Some(bytes) = common::corpus_file("ifp", file) else { return };
        let doc = read(&bytes);
        assert_eq!(doc.version(), magic);
        assert_eq!(doc.to_model().unwrap().clips.len(), clips, "{file}");
    }
}

fn rotations(p: &Package, clip: &str, bone: &str) -> Vec<Quat> {
    let clip = p.clip(clip).unwrap();
    let track = clip
        .tracks
        .iter()
        .find(|t| {
            t.target.bone().and_then(|b| b.name.as_deref()).is_some_and(|n| n.trim().eq_ignore_ascii_case(bone))
                && matches!(t.values, Values::Rotation(_))
        })
        .unwrap();
    match &track.values {
        Values::Rotation(q) => q.clone(),
        _ => unreachable!(),
    }
}

#[test]
fn vc_and_sa_give_the_same_engine_quaternions() {
    let (Some(vc), Some(sa)) =
        (common::corpus_file("ifp", "vc_ped_anpk.ifp"), common::corpus_file("ifp", "sa_ped_anp3.ifp"))
    else {
        return;
    };
    let (vc, sa) = (read(&vc).to_model().unwrap(), read(&sa).to_model().unwrap());
    // ifp.md §4.1: run_civi / L UpperArm key 0 is stored (−0.297, −0.478, −0.087, 0.822) in VC, whose
    // engine value is the conjugate, and (0.277, 0.479, 0.028, 0.832) in SA.
    let vc_run = rotations(&vc, "run_civi", "L UpperArm")[0];
    let sa_run = rotations(&sa, "run_civi", "L UpperArm")[0];
    assert!(Vec4::from(vc_run).abs_diff_eq(Vec4::new(0.297, 0.478, 0.087, 0.822).normalize(), 2e-3), "{vc_run:?}");
    assert!(Vec4::from(sa_run).abs_diff_eq(Vec4::new(0.277, 0.479, 0.028, 0.832).normalize(), 2e-3), "{sa_run:?}");
    // Those two differ by about 7° (SA re-authored run_civi). WALK_fat / Spine is the same
    // animation in both games. Raw keys 0 and 4 (independent decode, by hand):
    //   VC KR00 stored (−0.0114754, −0.0017091, −0.0148936, 0.9998218) → conjugate (0.0114754, 0.0017091, 0.0148936, 0.9998218)
    //   SA type 3 (47, 7, 61, 4095)/4096 = (0.0114746, 0.0017090, 0.0148926, 0.9997559)
    //   VC key 4 stored (−0.0039067, 0.0104991, −0.0253932, 0.9996148); SA (16, −43, 104, 4094)/4096
    let vc_walk = rotations(&vc, "WALK_fat", "Spine");
    let sa_walk = rotations(&sa, "WALK_fat", "Spine");
    for k in [0, 4] {
        let (a, b) = (Vec4::from(vc_walk[k]), Vec4::from(sa_walk[k]));
        // Both hold their stored values (not normalised); SA's differ by at most one 1/4096 step.
        assert!(a.abs_diff_eq(b, 1.0 / 4096.0 + 1e-6), "key {k}: VC {a} vs SA {b}");
    }
    let expect0 = Vec4::new(0.0114754, 0.0017091, 0.0148936, 0.9998218).normalize();
    assert!(Vec4::from(vc_walk[0]).abs_diff_eq(expect0, 1e-6));
}

/// Largest differences between two models, key by key: (rotation component, translation, time).
/// Rotations are compared up to sign.
fn max_key_error(a: &Package, b: &Package) -> (f32, f32, f32) {
    let (mut rot, mut pos, mut time) = (0.0f32, 0.0f32, 0.0f32);
    assert_eq!(a.clips.len(), b.clips.len());
    for (ca, cb) in a.clips.iter().zip(&b.clips) {
        assert_eq!(ca.name, cb.name);
        // ANP3 has no scale channel (every game discards KRTS scale, which is 1 in VC ped.ifp).
        for ta in ca.tracks.iter().filter(|t| t.channel() != animkit::model::Channel::Scale) {
            let tb = cb
                .tracks
                .iter()
                .find(|t| t.channel() == ta.channel() && t.target.bone().unwrap().matches(ta.target.bone().unwrap()))
                .unwrap_or_else(|| panic!("{}: no {:?} track for {}", ca.name, ta.channel(), ta.target.label()));
            assert_eq!(ta.times.len(), tb.times.len(), "{} {}", ca.name, ta.target.label());
            for (x, y) in ta.times.iter().zip(&tb.times) {
                time = time.max((x - y).abs());
            }
            match (&ta.values, &tb.values) {
                (Values::Rotation(x), Values::Rotation(y)) => {
                    for (x, y) in x.iter().zip(y) {
                        let (x, y) = (Vec4::from(*x), Vec4::from(*y));
                        rot = rot.max((x - y).abs().max_element().min((x + y).abs().max_element()));
                    }
                }
                (Values::Translation(x), Values::Translation(y)) => {
                    for (x, y) in x.iter().zip(y) {
                        pos = pos.max((*x - *y).abs().max_element());
                    }
                }
                other => panic!("mismatched channels {other:?}"),
            }
        }
    }
    (rot, pos, time)
}

#[test]
fn anpk_to_anp3_and_back_stays_within_quantisation() {
    let Some(vc) = common::corpus_file("ifp", "vc_ped_anpk.ifp") else { return };
    let first = read(&vc).to_model().unwrap();
    let anp3 = write_ifp(&first, "anp3");
    assert_eq!(&anp3[..4], b"ANP3");
    let second = read(&anp3).to_model().unwrap();
    let (rot, pos, time) = max_key_error(&first, &second);
    // ANP3 bounds: every value rounded to the nearest step (1/4096, 1/1024 m, 1/60 s) and kept
    // unnormalised, so each is within half a step (plus f32 rounding of the comparison).
    assert!(rot <= 0.5 / 4096.0 + 1e-7, "rotation error {rot}");
    assert!(pos <= 0.5 / 1024.0 + 1e-6, "translation error {pos}");
    assert!(time <= 0.5 / 60.0 + 1e-6, "time error {time}");
    // And back to ANPK: floats hold the ANP3 values exactly.
    let anpk = write_ifp(&second, "anpk");
    let third = read(&anpk).to_model().unwrap();
    let (rot, pos, time) = max_key_error(&second, &third);
    assert!(rot < 1e-6 && pos < 1e-6 && time < 1e-6, "ANP3 → ANPK changed values: {rot} {pos} {time}");
}

/// Writes `p` as the IFP `variant` and returns the bytes.
fn write_ifp(p: &Package, variant: &str) -> Vec<u8> {
    let options = WriteOptions::default().with_variant(variant);
    animkit::Format::from_model(&animkit::formats::ifp::Ifp, p, &options).unwrap().document.write().unwrap()
}

#[test]
fn check_reports_the_known_quirks_and_repair_clears_them() {
    let expect = [
        ("abdominal_trailing_garbage.ifp", "trailing-bytes"),
        ("grenade_bad_framedatasize.ifp", "frame-data-size-too-large"),
        ("covers_flags0.ifp", "empty-animation"),
        ("levelxre_uncompressed.ifp", "first-time-not-zero"),
        ("standing_cuffed_kam_export.ifp", "garbage-after-nul"),
    ];
    for (file, code) in expect {
        let Some(bytes) = common::corpus_file("ifp", file) else { return };
        let doc = read(&bytes);
        let findings = doc.lint();
        assert!(findings.iter().any(|f| f.code == code), "{file}: no {code} in {findings:#?}");
    }
    // No corpus file has flags 0 over compressed frames (covers.ifp's flags-0 animation is the
    // empty one), so clear the flag of one SA animation to exercise that rule.
    if let Some(mut sa) = common::corpus_file("ifp", "sa_ped_anp3.ifp") {
        sa[36 + 32] = 0;
        let findings = read(&sa).lint();
        let f = findings.iter().find(|f| f.code == "flags-mismatch").expect("flags-mismatch reported");
        assert_eq!(f.offset, Some(68));
        // A warning: the game goes by the frame type and MTA ignores the flag (see the lint docs).
        assert_eq!(f.severity, animkit::lint::Severity::Warning);
        assert!(findings.iter().all(|f| f.severity != animkit::lint::Severity::Error), "{findings:#?}");
        let repaired = read(&sa).repair().unwrap().document.write().unwrap();
        assert_eq!(repaired[68], 1);
    }
    for (name, bytes) in common::corpus_files("ifp") {
        let doc = read(&bytes);
        let before = doc.to_model().unwrap();
        let repaired = doc.repair().unwrap();
        let out = repaired.document.write().unwrap();
        let again = read(&out);
        let left: Vec<_> =
            again.lint().into_iter().filter(|f| f.fixable || f.severity == animkit::lint::Severity::Error).collect();
        assert!(left.is_empty(), "{name}: after repair: {left:#?}");
        let after = again.to_model().unwrap();
        assert_eq!(before.clips.len(), after.clips.len(), "{name}: repair kept every animation");
        assert_eq!(before.key_count(), after.key_count(), "{name}: repair kept every key");
        // Repair is idempotent: a repaired file needs no further change.
        assert_eq!(again.repair().unwrap().document.write().unwrap(), out, "{name}");
    }
}

#[test]
fn truncation_anywhere_gives_an_error_with_an_offset() {
    for (name, bytes) in common::corpus_files("ifp") {
        let full = Bytes::from(bytes);
        let doc = animkit::read(full.clone(), None, &ReadOptions::default()).unwrap();
        let content = full.len() - raw(doc.as_ref())["tail"].as_str().map_or(0, |hex| hex.len() / 2);
        // Every offset of small files; of big ones the first and last 4 KiB and every 331st byte.
        let dense = |c: usize| content <= 64 * 1024 || c < 4096 || c + 4096 > content || c.is_multiple_of(331);
        for cut in (0..content).filter(|&c| dense(c)) {
            match animkit::read(full.slice(..cut), None, &ReadOptions::default()) {
                Err(e) => assert!(e.offset.is_some(), "{name} cut at {cut}: error without offset: {e}"),
                // Counts are fixed by the header, so any cut before the content's end must fail.
                Ok(d) => panic!("{name} cut at {cut} parsed as {} animations", d.summary().unwrap().clips.len()),
            }
        }
    }
}

#[test]
fn huge_counts_are_rejected_without_allocating() {
    for (name, bytes) in common::corpus_files("ifp") {
        // Offsets of counts: numAnims, and the first animation's numSequences/numObjects and numFrames.
        let rounded_u32_at =
            |at: usize| (u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize).div_ceil(4) * 4;
        let offsets: Vec<usize> = match &bytes[..4] {
            b"ANPK" => {
                let info = 16 + rounded_u32_at(12);
                let name = rounded_u32_at(info + 4);
                vec![16, info + 8 + name + 16 + 8, info + 8 + name + 16 + 12 + 4 + 16 + 28]
            }
            _ => vec![32, 36 + 24, 36 + 36 + 28],
        };
        for at in offsets {
            for value in [u32::MAX, 0x7fff_ffff, 0x1000_0000, 65_536] {
                let mut bad = bytes.clone();
                if at + 4 > bad.len() {
                    continue;
                }
                bad[at..at + 4].copy_from_slice(&value.to_le_bytes());
                if let Err(e) = animkit::read(Bytes::from(bad), None, &ReadOptions::default()) {
                    assert!(e.offset.is_some(), "{name} @{at}={value:#x}: {e}");
                }
            }
        }
    }
}

fn read_with(bytes: &[u8], params: &[(&str, &str)]) -> animkit::Result<Box<dyn Document>> {
    let params = params.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect();
    animkit::read(Bytes::copy_from_slice(bytes), None, &ReadOptions::default().with_params(params))
}

#[test]
fn summary_follows_the_model_options() {
    for (name, bytes) in common::corpus_files("ifp") {
        for params in [
            [("timeline", "engine"), ("root", "keep"), ("scale", "drop")],
            [("timeline", "authored"), ("root", "in-place"), ("scale", "keep")],
        ] {
            let doc = read_with(&bytes, &params).unwrap();
            let model = animkit::format::Summary::of(&doc.to_model().unwrap());
            assert_eq!(doc.summary().unwrap(), model, "{name} {params:?}");
        }
    }
}

/// §4.2: the engine plays every sequence from its first key. VC `getup` has sequences that start
/// at 3.0625 s; on the engine timeline each starts at 0 and keeps its spacing and values.
#[test]
fn engine_timeline_starts_every_sequence_at_zero() {
    let Some(bytes) = common::corpus_file("ifp", "vc_ped_anpk.ifp") else { return };
    let authored = read(&bytes).to_model().unwrap();
    let engine = read_with(&bytes, &[("timeline", "engine")]).unwrap().to_model().unwrap();
    let mut late = 0;
    for (a, e) in authored.clips.iter().zip(&engine.clips) {
        let mut span = 0.0f32;
        for (ta, te) in a.tracks.iter().zip(&e.tracks) {
            let t0 = ta.times[0];
            late += usize::from(t0 != 0.0);
            let expected: Vec<f32> = ta.times.iter().map(|t| t - t0).collect();
            assert_eq!(te.times, expected, "{} {}", a.name, ta.target.label());
            assert_eq!(te.values, ta.values);
            span = span.max(ta.times.last().unwrap() - t0);
        }
        assert_eq!(e.duration, span, "{}", a.name);
    }
    let getup = authored.clip("getup").unwrap();
    assert!(getup.tracks.iter().any(|t| t.times[0] == 3.0625));
    assert!(late > 0);
    let bad = read_with(&bytes, &[("timeline", "game")]).err().expect("an unknown timeline is an error");
    assert!(bad.to_string().contains("timeline=game"), "{bad}");
}

/// §4.4, §7.2: every game drops KRTS scale, so the model has scale tracks only with `scale=keep`;
/// then one per KRTS object, holding the stored f32 fields 28..40 of each 44-byte frame.
#[test]
fn krts_scale_reaches_the_model_only_on_request() {
    use animkit::model::Channel;
    let Some(bytes) = common::corpus_file("ifp", "vc_ped_anpk.ifp") else { return };
    let default = read(&bytes).to_model().unwrap();
    assert!(default.clips.iter().flat_map(|c| &c.tracks).all(|t| t.channel() != Channel::Scale));
    let doc = read_with(&bytes, &[("scale", "keep")]).unwrap();
    let kept = doc.to_model().unwrap();
    let anpk = raw(doc.as_ref());
    assert_eq!(anpk["magic"], "ANPK");
    let (mut objects, mut keys, mut not_one, mut worst) = (0, 0, 0, 0.0f32);
    for (anim, clip) in anpk["animations"].as_array().unwrap().iter().zip(&kept.clips) {
        let mut scales = clip.tracks.iter().filter_map(|t| match &t.values {
            Values::Scale(s) => Some(s),
            _ => None,
        });
        let objects_keys = anim["objects"].as_array().unwrap().iter().filter_map(|o| o.get("keys"));
        for chunk in objects_keys.filter(|k| k["id"] == "KRTS") {
            // A KRTS frame is 11 f32 fields: q×4, translation×3, scale×3, time.
            let stored: Vec<glam::Vec3> = chunk["frames"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    assert_eq!(f.as_array().unwrap().len(), 11);
                    let at = |i: usize| f[i].as_f64().unwrap() as f32;
                    glam::Vec3::new(at(7), at(8), at(9))
                })
                .collect();
            let track = scales.next().unwrap_or_else(|| panic!("{}: a scale track per KRTS object", clip.name));
            assert_eq!(track, &stored, "{}", clip.name);
            objects += 1;
            keys += stored.len();
            not_one += stored.iter().filter(|s| !s.abs_diff_eq(glam::Vec3::ONE, 1e-4)).count();
            worst = stored.iter().map(|s| (*s - glam::Vec3::ONE).abs().max_element()).fold(worst, f32::max);
        }
        assert!(scales.next().is_none(), "{}: no scale track without a KRTS object", clip.name);
    }
    assert!(objects > 0 && keys > 0, "VC ped.ifp has KRTS objects");
    eprintln!("vc_ped_anpk.ifp: {objects} KRTS objects, {keys} scale keys, {not_one} off 1 by > 1e-4, worst {worst}");
    let bad = read_with(&bytes, &[("scale", "yes")]).err().expect("an unknown scale choice is an error");
    assert!(bad.to_string().contains("scale=yes"), "{bad}");
}

/// §7.2: `root=in-place` holds the root's X and Y at its first key; Z and every other bone stay.
#[test]
fn in_place_root_holds_the_horizontal_position() {
    for file in ["vc_ped_anpk.ifp", "sa_ped_anp3.ifp"] {
        let Some(bytes) = common::corpus_file("ifp", file) else { return };
        let moving = read(&bytes).to_model().unwrap();
        let in_place = read_with(&bytes, &[("root", "in-place")]).unwrap().to_model().unwrap();
        let (mut roots, mut moved) = (0, 0);
        for (m, p) in moving.clips.iter().zip(&in_place.clips) {
            for (tm, tp) in m.tracks.iter().zip(&p.tracks) {
                let (Values::Translation(vm), Values::Translation(vp)) = (&tm.values, &tp.values) else {
                    assert_eq!(tm, tp);
                    continue;
                };
                let bone = tm.target.bone().unwrap();
                let root = bone.id == Some(0) || (bone.id.is_none() && bone.name.as_deref() == Some("Root"));
                if !root {
                    assert_eq!(vm, vp, "{file} {} {}", m.name, tm.target.label());
                    continue;
                }
                roots += 1;
                moved += usize::from(vm.iter().any(|v| (v.x, v.y) != (vm[0].x, vm[0].y)));
                for (a, b) in vm.iter().zip(vp) {
                    assert_eq!((b.x, b.y, b.z), (vm[0].x, vm[0].y, a.z), "{file} {}", m.name);
                }
            }
        }
        assert!(roots > 100 && moved > 50, "{file}: {roots} root tracks, {moved} moving");
    }
}

/// The first JSON object holding frames (an ANP2/ANP3 sequence or an ANPK key chunk).
fn first_with_frames(v: &mut serde_json::Value) -> Option<&mut serde_json::Map<String, serde_json::Value>> {
    if v.get("frames").is_some() {
        return v.as_object_mut();
    }
    match v {
        serde_json::Value::Object(m) => m.values_mut().find_map(first_with_frames),
        serde_json::Value::Array(a) => a.iter_mut().find_map(first_with_frames),
        _ => None,
    }
}

#[test]
fn a_misspelt_field_beside_the_frames_is_refused_not_ignored() {
    for (name, bytes) in common::corpus_files("ifp") {
        let mut json = animkit::dump(read(&bytes).as_ref()).unwrap();
        let Some(node) = first_with_frames(&mut json) else { continue };
        node.insert("bone_tagg".into(), serde_json::json!(3));
        let err = animkit::pack(json).err().unwrap_or_else(|| panic!("{name}: packed with an unknown field"));
        assert!(err.to_string().contains("bone_tagg"), "{name}: {err}");
    }
}
