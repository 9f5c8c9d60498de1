//! Corpus tests for CryEngine CAF / i_caf / DBA / CHR.

mod common;

use animkit::formats::cryengine::{CryDocument, CryEngine};
use animkit::sample::Sampled;
use animkit::{Bytes, Confidence, Format, ReadOptions};

const DIR: &str = "cryengine";

fn real_files() -> Vec<(String, Vec<u8>)> {
    common::corpus_files(DIR)
        .into_iter()
        .filter(|(n, _)| !n.starts_with("not_cryengine") && !n.starts_with("README"))
        .collect()
}

#[test]
fn every_file_round_trips_byte_identically() {
    let files = real_files();
    for (name, bytes) in &files {
        assert_eq!(CryEngine.probe(bytes), Confidence::Certain, "{name}");
        let doc = CryEngine
            .read(Bytes::from(bytes.clone()), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(doc.write().unwrap() == *bytes, "{name}: write differs");
    }
    eprintln!("{} CryEngine files round-tripped", files.len());
}

#[test]
fn dump_and_pack_round_trip() {
    for (name, bytes) in real_files() {
        let doc = CryEngine.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap();
        let json = animkit::dump(doc.as_ref()).unwrap();
        let text = serde_json::to_string(&json).unwrap();
        let back = animkit::pack(serde_json::from_str(&text).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(back.write().unwrap() == bytes, "{name}: pack differs");
    }
}

/// The dump names the fields of the chunk structures, so a modder can edit them: the CE5 CAF's
/// MotionParameters ends at frame 15 (0.5 s), its GlobalAnimationHeaderCAF names the clip's path,
/// and an edited end frame packs into a clip of the new length.
#[test]
fn dump_shows_chunk_structures_with_named_fields() {
    let Some(bytes) = common::corpus_file(DIR, "ce5_run_fwd_3p_0832.caf") else { return };
    let doc = CryEngine.read(Bytes::from(bytes), &ReadOptions::default()).unwrap();
    let mut json = animkit::dump(doc.as_ref()).unwrap();
    let chunks = &json["document"]["chunks"];
    assert_eq!(chunks[0]["type"], "0x3002");
    assert_eq!(chunks[0]["body"]["kind"], "motion_parameters");
    assert_eq!((chunks[0]["body"]["start"].as_i64(), chunks[0]["body"]["end"].as_i64()), (Some(0), Some(15)));
    assert_eq!(chunks[41]["body"]["kind"], "global_animation_header_caf");
    assert_eq!(chunks[41]["body"]["path"], "animations/motusanims/run_fwd_3p.caf");
    // The first controller 0x832: SmallTree64BitExt rotations (format 8, one u64 code per key).
    let controller = &chunks[1]["body"];
    assert_eq!(controller["kind"], "compressed");
    assert_eq!(controller["rotation"]["format"], 8);
    assert_eq!(controller["rotation"]["keys"]["codec"], "st64_ext");
    assert!(controller["rotation"]["keys"]["keys"][0].is_u64());
    json["document"]["chunks"][0]["body"]["end"] = 30.into();
    let edited = animkit::pack(json).unwrap().to_model().unwrap();
    assert_eq!(edited.clips[0].duration, 1.0);
}

/// Every chunk animkit reads (controllers, DBAs, skeletons, headers) dumps as named fields in
/// every corpus file: no chunk of those types stays hexadecimal.
#[test]
fn every_chunk_animkit_reads_dumps_as_named_fields() {
    for (name, bytes) in real_files() {
        let doc = CryEngine.read(Bytes::from(bytes), &ReadOptions::default()).unwrap();
        let json = animkit::dump(doc.as_ref()).unwrap();
        if json["document"]["container"] == "ivo" {
            continue;
        }
        for (i, chunk) in json["document"]["chunks"].as_array().unwrap().iter().enumerate() {
            let known = ["0x100D", "0xCCCC000D", "0x2000", "0xACDC0000"].contains(&chunk["type"].as_str().unwrap());
            if known
                && ["0x800", "0x827", "0x829", "0x830", "0x831", "0x832", "0x833", "0x905"]
                    .contains(&chunk["version"].as_str().unwrap())
            {
                assert_ne!(chunk["body"]["kind"], "bytes", "{name}: chunk {i} ({}) stays bytes", chunk["type"]);
            }
        }
    }
}

#[test]
fn cal3d_file_is_rejected_with_a_reason() {
    let Some(bytes) = common::corpus_file(DIR, "not_cryengine_cal3d_walk.caf") else {
        return;
    };
    assert_eq!(CryEngine.probe(&bytes), Confidence::No);
    let why = CryEngine.explain_reject(&bytes).unwrap();
    assert!(why.contains("Cal3D"), "{why}");
    let err = animkit::read(Bytes::from(bytes), Some(std::path::Path::new("walk.caf")), &ReadOptions::default())
        .err()
        .unwrap();
    assert!(err.to_string().contains("Cal3D"), "{err}");
}

#[test]
fn truncation_gives_errors_not_panics() {
    for (name, bytes) in real_files() {
        let doc = CryEngine.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap();
        let file = &doc.downcast_ref::<CryDocument>().unwrap().file;
        // Cuts inside trailing padding leave a valid file; every cut before the last chunk's end fails.
        let needed =
            file.chunks.iter().map(|c| c.offset as usize + c.bytes(file.container).unwrap().len()).max().unwrap_or(0);
        let step = (bytes.len() / 97).max(1);
        let mut cut = 0;
        while cut < bytes.len() {
            if let Ok(doc) = CryEngine.read(Bytes::from(bytes[..cut].to_vec()), &ReadOptions::default()) {
                assert!(cut >= needed, "{name}: cut at {cut} read without error");
                let _ = doc.to_model();
            }
            cut += step;
        }
    }
}

#[test]
fn every_file_converts_to_the_model() {
    let (mut clips, mut tracks, mut skeletons) = (0, 0, 0);
    for (name, bytes) in real_files() {
        let doc = CryEngine.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap();
        let p = doc.to_model().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!p.clips.is_empty() || p.skeleton.is_some(), "{name}: nothing decoded");
        for c in &p.clips {
            assert!(c.duration >= 0.0 && c.duration.is_finite(), "{name}");
            for t in &c.tracks {
                t.validate().unwrap_or_else(|e| panic!("{name} {}: {e}", c.name));
                assert!(t.times.iter().all(|&x| x >= 0.0), "{name}: negative key time");
                if let animkit::model::Values::Rotation(q) = &t.values {
                    assert!(
                        q.windows(2).all(|w| animkit::sample::hemisphere_dot(w[0], w[1]) >= 0.0),
                        "{name}: hemisphere flip"
                    );
                    assert!(q.iter().all(|q| (q.length() - 1.0).abs() < 1e-5), "{name}: not unit");
                }
            }
            tracks += c.tracks.len();
        }
        clips += p.clips.len();
        skeletons += usize::from(p.skeleton.is_some());
    }
    eprintln!("{clips} clips, {tracks} tracks, {skeletons} skeletons");
}

fn model_of(name: &str) -> Option<animkit::Package> {
    let bytes = common::corpus_file(DIR, name)?;
    let doc = CryEngine.read(Bytes::from(bytes), &ReadOptions::default()).unwrap();
    Some(doc.to_model().unwrap_or_else(|e| panic!("{name}: {e}")))
}

#[test]
fn every_controller_gets_a_name_from_the_matching_skeleton() {
    for (caf, chr, expected) in [
        ("ce3_barrel_cutscene_0829.caf", "ce3_skeleton_character.chr", 78),
        ("ly_enemy_ambient_idle1_0831.caf", "ly_jack_root.chr", 61),
        ("ly_jack_shoot_0831.caf", "ly_jack_root.chr", 7),
        ("ce5_run_fwd_3p_0832.caf", "ce5_skelProxy.chr", 40),
    ] {
        let (Some(bytes), Some(skel_pkg)) = (common::corpus_file(DIR, caf), model_of(chr)) else { return };
        let skeleton = skel_pkg.skeleton.expect("skeleton");
        assert!(skeleton.validate().is_ok());
        let options = ReadOptions::default().with_skeleton(std::sync::Arc::new(skeleton));
        let clip_pkg = CryEngine.read(Bytes::from(bytes), &options).unwrap().to_model().unwrap();
        let clip = &clip_pkg.clips[0];
        let mut ids: Vec<u32> = clip.tracks.iter().filter_map(|t| t.target.bone().and_then(|b| b.hash)).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), expected, "{caf}");
        for t in &clip.tracks {
            let b = t.target.bone().unwrap();
            let name = b.name.as_deref().unwrap_or_else(|| panic!("{caf}: 0x{:08X} unnamed", b.hash.unwrap()));
            assert_eq!(animkit::formats::cryengine::controller_id(name), b.hash.unwrap());
        }
    }
}

fn rotation_at(clip: &animkit::model::Clip, hash: u32, t: f32) -> Option<glam::Quat> {
    clip.tracks
        .iter()
        .find(|tr| {
            tr.target.bone().and_then(|b| b.hash) == Some(hash)
                && matches!(tr.values, animkit::model::Values::Rotation(_))
        })
        .and_then(|tr| match animkit::sample::sample_track(tr, t) {
            Some(animkit::sample::Sampled::Rotation(q)) => Some(q),
            _ => None,
        })
}

fn translation_at(clip: &animkit::model::Clip, hash: u32, t: f32) -> Option<glam::Vec3> {
    clip.tracks
        .iter()
        .find(|tr| {
            tr.target.bone().and_then(|b| b.hash) == Some(hash)
                && matches!(tr.values, animkit::model::Values::Translation(_))
        })
        .and_then(|tr| match animkit::sample::sample_track(tr, t) {
            Some(animkit::sample::Sampled::Translation(p)) => Some(p),
            _ => None,
        })
}

fn angle(a: glam::Quat, b: glam::Quat) -> f32 {
    // The rotation angle between unit quaternions (q and −q are equal).
    let d = a.normalize() * b.normalize().conjugate();
    2.0 * d.xyz().length().atan2(d.w.abs())
}

/// §13: a compiled CE5 CAF (0x832) matches its 0x833 source within 9e-5 rad; positions match
/// except the root's (stored relative to the start location).
#[test]
fn compiled_caf_matches_its_source_i_caf() {
    let (Some(caf), Some(src)) = (model_of("ce5_run_fwd_3p_0832.caf"), model_of("ce5_run_fwd_3p_0833.i_caf")) else {
        return;
    };
    let (caf, src) = (&caf.clips[0], &src.clips[0]);
    let hashes: Vec<u32> = caf.tracks.iter().filter_map(|t| t.target.bone().and_then(|b| b.hash)).collect();
    let (mut worst_rot, mut worst_at_keys, mut worst_pos, mut compared) = (0f32, 0f32, 0f32, 0);
    for &h in &hashes {
        let name = src
            .tracks
            .iter()
            .find(|t| t.target.bone().and_then(|b| b.hash) == Some(h))
            .and_then(|t| t.target.bone().unwrap().name.clone());
        for k in 0..=15 {
            let t = k as f32 / 30.0;
            if let (Some(a), Some(b)) = (rotation_at(caf, h, t), rotation_at(src, h, t)) {
                let tr = caf.tracks.iter().find(|tr| tr.target.bone().and_then(|b| b.hash) == Some(h)).unwrap();
                if tr.times.iter().any(|&x| (x - t).abs() < 1e-4) {
                    worst_at_keys = worst_at_keys.max(angle(a, b));
                }
                worst_rot = worst_rot.max(angle(a, b));
                compared += 1;
            }
            if let (Some(a), Some(b)) = (translation_at(caf, h, t), translation_at(src, h, t)) {
                let root = name.as_deref().is_some_and(|n| n.eq_ignore_ascii_case("root") || n == "Bip01");
                if !root {
                    worst_pos = worst_pos.max((a - b).length());
                }
            }
        }
    }
    eprintln!(
        "0832 vs 0833: {compared} rotations compared, worst {worst_rot} rad ({worst_at_keys} at compiled keys); worst position {worst_pos} m"
    );
    assert!(compared > 300);
    // At the compiled keys only quantisation differs (§13: 9e-5 rad); between them the compiler's
    // key reduction adds its own error (observed 4.3e-4 rad on R_toe).
    assert!(worst_at_keys < 1e-4, "{worst_at_keys}");
    assert!(worst_rot < 1e-3, "{worst_rot}");
    assert!(worst_pos < 1e-3, "{worst_pos}");
}

/// §13: a compiled additive CAF stores q(f)·q(0)⁻¹ relative to the source's first frame.
#[test]
fn additive_caf_matches_its_source_relative_to_frame_zero() {
    let (Some(caf), Some(src)) = (model_of("ly_jack_shoot_0831.caf"), model_of("ly_jack_shoot_0830.i_caf")) else {
        return;
    };
    let (caf, src) = (&caf.clips[0], &src.clips[0]);
    assert!(caf.additive);
    let (mut worst, mut compared) = (0f32, 0);
    for tr in &caf.tracks {
        let h = tr.target.bone().unwrap().hash.unwrap();
        let Some(q0) = rotation_at(src, h, 0.0) else { continue };
        for &t in &tr.times {
            if let (Some(a), Some(b)) = (rotation_at(caf, h, t), rotation_at(src, h, t)) {
                worst = worst.max(angle(a, b * q0.inverse()));
                compared += 1;
            }
        }
    }
    eprintln!("additive 0831 vs 0830: {compared} rotations compared, worst {worst} rad");
    assert!(compared >= 7);
    assert!(worst < 2e-4, "{worst}");
}

/// Every clip re-encoded as a canonical CAF (SmallTree48) samples to the same pose at its keys
/// within the codec's error.
#[test]
fn clips_rewritten_as_caf_keep_their_pose() {
    let mut rewritten = 0;
    for (name, bytes) in real_files() {
        let doc = CryEngine.read(Bytes::from(bytes), &ReadOptions::default()).unwrap();
        let src = doc.to_model().unwrap();
        for clip in src.clips.iter().take(3) {
            let mut options = animkit::WriteOptions::default();
            options.params.insert("clip".into(), clip.name.clone());
            let written = CryEngine.from_model(&src, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
            let out = written.document.write().unwrap();
            let back = CryEngine.read(Bytes::from(out), &ReadOptions::default()).unwrap().to_model().unwrap();
            let b = &back.clips[0];
            assert_eq!(b.name, clip.name, "{name}: the clip's name survives in its GlobalAnimationHeaderCAF");
            assert_eq!(b.tracks.len(), clip.tracks.len(), "{name} {}", clip.name);
            assert_eq!(
                (b.additive, b.looping.unwrap_or(false)),
                (clip.additive, clip.looping.unwrap_or(false)),
                "{name}"
            );
            assert!((b.duration - clip.duration).abs() < 1.0 / 60.0, "{name}: {} vs {}", b.duration, clip.duration);
            for (x, y) in clip.tracks.iter().zip(&b.tracks) {
                assert_eq!(x.target.bone().unwrap().hash, y.target.bone().unwrap().hash);
                for &t in &x.times {
                    match (animkit::sample::sample_track(x, t), animkit::sample::sample_track(y, t)) {
                        (Some(Sampled::Rotation(p)), Some(Sampled::Rotation(q))) => {
                            assert!(angle(p, q) < 2e-4, "{name} t {t}: {}", angle(p, q))
                        }
                        (Some(Sampled::Translation(p)), Some(Sampled::Translation(q)))
                        | (Some(Sampled::Scale(p)), Some(Sampled::Scale(q))) => {
                            assert!((p - q).length() < 1e-5, "{name} t {t}")
                        }
                        (p, q) => panic!("{name}: {p:?} vs {q:?}"),
                    }
                }
            }
            rewritten += 1;
        }
    }
    eprintln!("{rewritten} clips rewritten as CAF");
}

/// A compiled CE5 CAF names its clip in its GlobalAnimationHeaderCAF path; written back as
/// CrCh or CryTek 0x745 the clip keeps that name, and the header holds what §2 lays out.
#[test]
fn caf_clip_name_survives_a_rewrite() {
    let Some(src) = model_of("ce5_run_fwd_3p_0832.caf") else { return };
    assert_eq!(src.clips[0].name, "run_fwd_3p");
    for variant in ["caf", "crytek"] {
        let options = animkit::WriteOptions::default().with_variant(variant);
        let out = CryEngine.from_model(&src, &options).unwrap().document.write().unwrap();
        let back = CryEngine.read(Bytes::from(out.clone()), &ReadOptions::default()).unwrap().to_model().unwrap();
        assert_eq!(back.clips[0].name, "run_fwd_3p", "{variant}");
        // The 404-byte header: flags 0 (neither additive nor cycle: the source's asset flags are
        // 0), the path, its CRC-32 (zlib.crc32(b"run_fwd_3p.caf") = 0x37341C4B), no DBA, start
        // 0 s, end and duration 15 frames / 30 = 0.5 s, 40 controllers.
        let path = b"run_fwd_3p.caf\0";
        let at = out.windows(path.len()).position(|w| w == path).expect("the path is in the file") - 4;
        let gah = &out[at..at + 404];
        let word = |o: usize| u32::from_le_bytes(gah[o..o + 4].try_into().unwrap());
        assert_eq!(word(0), 0);
        assert_eq!((word(0x104), word(0x108)), (0x3734_1C4B, 0));
        assert_eq!([word(0x12C), word(0x130), word(0x134)].map(f32::from_bits), [0.0, 0.5, 0.5]);
        assert_eq!(word(0x138), 40);
    }
}

/// Corrupted bytes anywhere give errors or odd values, never a panic.
#[test]
fn corrupted_bytes_never_panic() {
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for (_, bytes) in real_files() {
        for _ in 0..150 {
            let mut b = bytes.clone();
            for _ in 0..1 + rnd() % 4 {
                let i = (rnd() % b.len() as u64) as usize;
                b[i] = match rnd() % 3 {
                    0 => 0xFF,
                    1 => 0,
                    _ => rnd() as u8,
                };
            }
            if let Ok(doc) = CryEngine.read(Bytes::from(b), &ReadOptions::default()) {
                let _ = doc.to_model();
                let _ = doc.notes();
                let _ = doc.lint();
                let _ = doc.write();
            }
        }
    }
}

/// DBA tracks decode to smooth curves (a wrong format grouping would give noise).
#[test]
fn dba_rotations_are_continuous() {
    for name in ["ce3_seagull_0905.dba", "ce3_scar_fp_0905.dba"] {
        let Some(p) = model_of(name) else { return };
        let (mut worst, mut sum, mut n) = (0f32, 0f64, 0);
        for c in &p.clips {
            for t in &c.tracks {
                if let animkit::model::Values::Rotation(q) = &t.values {
                    for w in q.windows(2) {
                        worst = worst.max(angle(w[0], w[1]));
                        sum += f64::from(angle(w[0], w[1]));
                        n += 1;
                    }
                }
            }
        }
        let mean = sum / f64::from(n.max(1));
        eprintln!("{name}: {n} steps between rotation keys, mean {mean:.4} rad, largest {worst} rad");
        // Random (misdecoded) rotations would step ~2 rad on average.
        assert!(n > 100 && mean < 0.3 && worst < 1.0, "{name}: mean {mean}, worst {worst}");
    }
}

/// Real files have no error findings; repair keeps the model.
#[test]
fn lint_and_repair() {
    for (name, bytes) in real_files() {
        let doc = CryEngine.read(Bytes::from(bytes), &ReadOptions::default()).unwrap();
        let findings = doc.lint();
        for f in &findings {
            eprintln!("{name}: {:?} {} {}", f.severity, f.code, f.message);
        }
        assert!(!findings.iter().any(|f| f.severity == animkit::lint::Severity::Error), "{name}");
        let repaired = doc.repair().unwrap();
        let again = CryEngine.read(Bytes::from(repaired.document.write().unwrap()), &ReadOptions::default()).unwrap();
        assert_eq!(again.to_model().unwrap(), doc.to_model().unwrap(), "{name}");
        eprintln!("{name}: repair {:?}", repaired.changes);
    }
}

/// `skeleton=PATH` names the tracks of a CAF and attaches the skeleton.
#[test]
fn skeleton_read_parameter_names_tracks() {
    let Some(dir) = common::corpus_dir(DIR) else { return };
    let mut options = ReadOptions::default();
    options.params.insert("skeleton".into(), dir.join("ly_jack_root.chr").display().to_string());
    let doc = animkit::open_with(dir.join("ly_enemy_ambient_idle1_0831.caf"), &options).unwrap();
    let p = doc.to_model().unwrap();
    assert_eq!(p.skeleton.as_ref().map(|s| s.bones.len()), Some(77));
    assert!(p.clips[0].tracks.iter().all(|t| t.target.bone().unwrap().name.is_some()));
    options.params.insert("skeleton".into(), dir.join("not_cryengine_cal3d_walk.caf").display().to_string());
    assert!(animkit::open_with(dir.join("ly_enemy_ambient_idle1_0831.caf"), &options).is_err());

    // The reader itself opens no file: the library loads the skeleton and passes it in.
    let caf = Bytes::from(std::fs::read(dir.join("ly_enemy_ambient_idle1_0831.caf")).unwrap());
    let skeleton = animkit::convert::load_skeleton(dir.join("ly_jack_root.chr"), &ReadOptions::default()).unwrap();
    let given = ReadOptions::default().with_skeleton(std::sync::Arc::new(skeleton));
    let p = CryEngine.read(caf.clone(), &given).unwrap().to_model().unwrap();
    assert!(p.clips[0].tracks.iter().all(|t| t.target.bone().unwrap().name.is_some()));
    let e = CryEngine.read(caf, &options).err().expect("a skeleton= setting the reader cannot load");
    assert!(e.to_string().contains("ReadOptions::skeleton"), "{e}");
}

/// A clip written as an intermediate `.i_caf` (PQLog 0x827 on every frame) samples to the same
/// pose on every frame.
#[test]
fn clips_rewritten_as_i_caf_keep_their_pose() {
    for name in ["ce5_run_fwd_3p_0832.caf", "ly_enemy_ambient_idle1_0831.caf", "ce3_barrel_cutscene_0829.caf"] {
        let Some(src) = model_of(name) else { return };
        let options = animkit::WriteOptions::default().with_variant("i_caf");
        let written = CryEngine.from_model(&src, &options).unwrap();
        let bytes = written.document.write().unwrap();
        let back = CryEngine.read(Bytes::from(bytes), &ReadOptions::default()).unwrap().to_model().unwrap();
        let (a, b) = (&src.clips[0], &back.clips[0]);
        let frames = (a.duration * 30.0).round() as i32;
        assert!((b.duration - frames as f32 / 30.0).abs() < 1e-4, "{name}");
        let (mut worst_r, mut worst_p) = (0f32, 0f32);
        for tr in &a.tracks {
            let h = tr.target.bone().unwrap().hash.unwrap();
            for f in 0..=frames {
                let t = f as f32 / 30.0;
                if let (Some(x), Some(y)) = (rotation_at(a, h, t), rotation_at(b, h, t)) {
                    worst_r = worst_r.max(angle(x, y));
                }
                if let (Some(x), Some(y)) = (translation_at(a, h, t), translation_at(b, h, t)) {
                    worst_p = worst_p.max((x - y).length());
                }
            }
        }
        eprintln!("{name} as i_caf: worst rotation {worst_r} rad, position {worst_p} m");
        assert!(worst_r < 1e-5 && worst_p < 1e-5, "{name}");
    }
}

/// The clips of a DBA written as a new DBA (0x905) decode to the same keys within SmallTree48.
#[test]
fn dba_rewritten_keeps_every_clip() {
    for name in ["ce3_seagull_0905.dba", "ce3_scar_fp_0905.dba"] {
        let Some(src) = model_of(name) else { return };
        let options = animkit::WriteOptions::default().with_variant("dba");
        let written = CryEngine.from_model(&src, &options).unwrap();
        let bytes = written.document.write().unwrap();
        let back = CryEngine.read(Bytes::from(bytes), &ReadOptions::default()).unwrap().to_model().unwrap();
        assert_eq!(back.clips.len(), src.clips.len(), "{name}");
        let mut worst = 0f32;
        for (a, b) in src.clips.iter().zip(&back.clips) {
            assert_eq!((&a.name, a.duration, a.looping, a.additive), (&b.name, b.duration, b.looping, b.additive));
            assert_eq!(a.tracks.len(), b.tracks.len());
            for (x, y) in a.tracks.iter().zip(&b.tracks) {
                assert_eq!(x.target, y.target);
                assert_eq!(x.times, y.times);
                match (&x.values, &y.values) {
                    (animkit::model::Values::Rotation(p), animkit::model::Values::Rotation(q)) => {
                        for (p, q) in p.iter().zip(q) {
                            worst = worst.max(angle(*p, *q));
                        }
                    }
                    (p, q) => assert_eq!(p, q),
                }
            }
        }
        eprintln!("{name} rewritten: {} clips, worst rotation {worst} rad", back.clips.len());
        assert!(worst < 2e-4);
    }
}

/// Clips written as Star Citizen `#ivo` CAF / DBA read back with the same keys (SmallTree48).
#[test]
fn clips_rewritten_as_ivo_keep_their_keys() {
    for (name, variant) in [
        ("ce5_run_fwd_3p_0832.caf", "ivo"),
        ("ly_enemy_ambient_idle1_0831.caf", "ivo"),
        ("ce3_scar_fp_0905.dba", "ivo_dba"),
    ] {
        let Some(src) = model_of(name) else { return };
        let options = animkit::WriteOptions::default().with_variant(variant);
        let written = CryEngine.from_model(&src, &options).unwrap();
        let bytes = written.document.write().unwrap();
        let doc = CryEngine.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap();
        assert_eq!(doc.write().unwrap(), bytes);
        assert!(doc.lint().is_empty(), "{name}: {:?}", doc.lint());
        let back = doc.to_model().unwrap();
        let n = if variant == "ivo" { 1 } else { src.clips.len() };
        assert_eq!(back.clips.len(), n, "{name}");
        let mut worst = 0f32;
        for (a, b) in src.clips.iter().zip(&back.clips) {
            assert!((a.duration - b.duration).abs() < 1e-6 || variant == "ivo_dba", "{name}");
            let a_tracks: Vec<_> =
                a.tracks.iter().filter(|t| !matches!(t.values, animkit::model::Values::Scale(_))).collect();
            assert_eq!(a_tracks.len(), b.tracks.len(), "{name}");
            for (x, y) in a_tracks.iter().zip(&b.tracks) {
                assert_eq!(x.target.bone().unwrap().hash, y.target.bone().unwrap().hash);
                assert_eq!(x.times, y.times, "{name}");
                match (&x.values, &y.values) {
                    (animkit::model::Values::Rotation(p), animkit::model::Values::Rotation(q)) => {
                        for (p, q) in p.iter().zip(q) {
                            worst = worst.max(angle(*p, *q));
                        }
                    }
                    (p, q) => assert_eq!(p, q),
                }
            }
        }
        eprintln!("{name} as {variant}: {} clips, worst rotation {worst} rad", back.clips.len());
        assert!(worst < 2e-4, "{name}");
    }
}

/// A lenient read salvages the controllers of a truncated CAF and writes it back as read.
#[test]
fn lenient_read_salvages_truncated_files() {
    let Some(bytes) = common::corpus_file(DIR, "ce3_barrel_cutscene_0829.caf") else { return };
    let cut = &bytes[..bytes.len() / 2];
    assert!(CryEngine.read(Bytes::from(cut.to_vec()), &ReadOptions::default()).is_err());
    let options = ReadOptions::default().with_lenient(true);
    let doc = CryEngine.read(Bytes::from(cut.to_vec()), &options).unwrap();
    assert_eq!(doc.write().unwrap(), cut);
    let p = doc.to_model().unwrap();
    let tracks = p.clips[0].tracks.len();
    assert!(tracks > 20 && tracks < 150, "{tracks}");
    assert!(doc.lint().iter().any(|f| f.code == "chunk-does-not-decode"));
}

/// The `.chr` rest pose (local bind from CompiledBones) agrees with the animations: an i_caf's
/// first-frame local positions equal the rest translations for most bones.
#[test]
fn skeleton_rest_pose_matches_animation_bone_offsets() {
    for (anim, chr) in
        [("ly_jack_shoot_0830.i_caf", "ly_jack_root.chr"), ("ce5_run_fwd_3p_0833.i_caf", "ce5_skelProxy.chr")]
    {
        let (Some(a), Some(s)) = (model_of(anim), model_of(chr)) else { return };
        let skel = s.skeleton.unwrap();
        let (mut matched, mut total) = (0, 0);
        for t in &a.clips[0].tracks {
            let Some(i) = skel.find(t.target.bone().unwrap()) else { continue };
            if let (animkit::model::Values::Translation(p), Some(_)) = (&t.values, skel.bones[i].parent) {
                total += 1;
                if (p[0] - skel.bones[i].rest.translation).length() < 1e-3 {
                    matched += 1;
                }
            }
        }
        eprintln!("{anim}: {matched}/{total} bone offsets match the rest pose");
        assert!(total > 20 && matched * 10 >= total * 9, "{anim}: {matched}/{total}");
    }
}
