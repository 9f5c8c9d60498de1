//! BFRES corpus tests: every file (the `.sbfres` after Yaz0) reads, writes back byte-identically,
//! dumps and packs identically, and truncation gives an error, never a panic.

mod common;

use animkit::formats::bfres::{fres, Bfres};
use animkit::{Bytes, Format, ReadOptions};

fn files() -> Vec<(String, Vec<u8>)> {
    common::corpus_files("bfres")
        .into_iter()
        .map(|(name, data)| {
            if name.ends_with(".sbfres") {
                let (dec, _) = animkit::containers::yaz0::decode(&data, &Default::default()).unwrap();
                (name, dec)
            } else {
                (name, data)
            }
        })
        .collect()
}

#[test]
fn every_file_round_trips_byte_for_byte() {
    let files = files();
    let mut n = 0;
    for (name, data) in &files {
        let doc =
            Bfres.read(Bytes::from(data.clone()), &ReadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(doc.write().unwrap() == *data, "{name}: write differs");
        let dumped = animkit::dump(doc.as_ref()).unwrap();
        let text = serde_json::to_string(&dumped).unwrap();
        let parts = dumped["document"]["parts"].as_array().unwrap();
        let structured =
            parts.iter().filter(|p| ["fska", "ftxp", "fshu", "fvis"].iter().any(|k| p.get(*k).is_some())).count();
        let hex = parts.iter().filter(|p| p.get("subfile").is_some()).count();
        eprintln!("{name}: dump has {structured} structured animation subfiles and {hex} hex subfiles");
        let packed = animkit::pack(serde_json::from_str(&text).unwrap()).unwrap();
        assert!(packed.write().unwrap() == *data, "{name}: dump/pack differs");
        let file = fres::read(data).unwrap();
        assert!(file.parts.iter().any(|p| matches!(p, fres::Part::Strings(_))), "{name}: pool not parsed");
        let subfiles = file.parts.iter().filter(|p| matches!(p, fres::Part::Subfile { .. })).count();
        eprintln!("{name}: {} parts, {subfiles} subfiles", file.parts.len());
        let findings = doc.lint();
        assert!(findings.is_empty(), "{name}: {findings:?}");
        n += 1;
    }
    eprintln!("{n} BFRES files round-trip");
}

#[test]
fn truncation_is_an_error() {
    for (name, data) in files() {
        let step = (data.len() / 400).max(1);
        let mut cuts = 0;
        for cut in (0..data.len()).step_by(step).chain([data.len() - 1, 4, 0x6B, 0x6C]) {
            let r = Bfres.read(Bytes::from(data[..cut].to_vec()), &ReadOptions::default());
            assert!(r.is_err(), "{name} cut at {cut} reads");
            cuts += 1;
        }
        // Damage inside the subfiles (not truncation) must give errors or values, never a panic.
        let mut x = 0x9E37_79B9u32;
        let rounds = if data.len() > 1 << 20 { 8 } else { 150 };
        for _ in 0..rounds {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let mut bad = data.clone();
            let at = 0x6C + (x as usize % (bad.len() - 0x6C));
            bad[at] ^= (x >> 24) as u8 | 1;
            if let Ok(doc) = Bfres.read(Bytes::from(bad), &ReadOptions::default()) {
                let _ = doc.to_model();
                let _ = doc.lint();
            }
        }
        eprintln!("{name}: {cuts} truncations rejected");
    }
}

fn doc(name: &str) -> Option<Box<dyn animkit::Document>> {
    let data = files().into_iter().find(|f| f.0 == name)?.1;
    Some(Bfres.read(Bytes::from(data), &ReadOptions::default()).unwrap())
}

#[test]
fn every_file_converts_to_the_model() {
    for (name, data) in files() {
        let doc = Bfres.read(Bytes::from(data), &ReadOptions::default()).unwrap();
        let p = doc.to_model().unwrap_or_else(|e| panic!("{name}: {e}"));
        for clip in &p.clips {
            for t in &clip.tracks {
                t.validate().unwrap_or_else(|e| panic!("{name} {} {}: {e}", clip.name, t.target.label()));
            }
        }
        let kinds: Vec<_> = p.clips.iter().map(|c| c.tracks.len()).collect();
        eprintln!(
            "{name}: {} clips, {} tracks, {} keys, skeleton {:?}",
            p.clips.len(),
            kinds.iter().sum::<usize>(),
            p.key_count(),
            p.skeleton.as_ref().map(|s| s.bones.len())
        );
    }
}

#[test]
fn bass_color_selects_the_three_albedo_variants() {
    let Some(doc) = doc("Animal_Bass.bfres") else {
        return;
    };
    let p = doc.to_model().unwrap();
    let clip = p.clip("Bass_Color").expect("FTXP clip");
    assert_eq!(clip.tracks.len(), 1);
    let t = &clip.tracks[0];
    assert_eq!(t.target, animkit::model::Target::Material { material: "Mt_Body".into(), property: "_a0".into() });
    let animkit::model::Values::TextureIndex { textures, .. } = &t.values else { panic!("not a texture track") };
    assert_eq!(&textures[..], ["Bass_Alb.0", "Bass_Alb.1", "Bass_Alb.2"]);
    for (frame, want) in [(0.0f32, 0u32), (0.5, 0), (1.0, 1), (1.5, 1), (2.0, 2)] {
        let s = animkit::sample::sample_track(t, frame / 30.0).unwrap();
        assert_eq!(s, animkit::sample::Sampled::TextureIndex(want), "frame {frame}");
    }
    assert_eq!(clip.looping, Some(false));
    assert!((clip.duration - 2.0 / 30.0).abs() < 1e-6);
}

/// Every FSKA curve of every file, with its animation's frame count.
fn fska_curves() -> Vec<(String, animkit::formats::bfres::curve::Curve)> {
    use animkit::formats::bfres::fska;
    let mut out = Vec::new();
    for (name, data) in files() {
        if name.ends_with(".sbfres") {
            continue;
        }
        let file = fres::read(&data).unwrap();
        for (anim, at) in fres::entries(&data, &file.header, fres::G_FSKA).unwrap() {
            let a = fska::read(
                &data,
                at,
                animkit::formats::bfres::platform::Platform::WiiU { version: file.header.version },
            )
            .unwrap();
            for b in a.bones {
                for c in b.curves {
                    out.push((format!("{name} {anim} {}", b.name), c));
                }
            }
        }
    }
    out
}

#[test]
fn fska_curves_reproduce_keys_and_are_continuous() {
    use animkit::formats::bfres::curve::CurveType;
    let curves = fska_curves();
    let (mut keys, mut segments, mut worst_units) = (0usize, 0usize, 0f64);
    for (what, c) in &curves {
        assert_eq!(c.curve_type(), CurveType::Cubic, "{what}");
        assert_eq!(c.frames.first().copied(), Some(c.start), "{what}: first key at start");
        assert_eq!(c.frames.last().copied(), Some(c.end), "{what}: last key at end");
        for (i, &f) in c.frames.iter().enumerate() {
            let v = c.eval(f).as_f32();
            let want = c.key(i, 0) * c.scale() + c.offset_f32();
            assert!(v == want, "{what} key {i} frame {f}: {v} vs {want}");
            keys += 1;
        }
        // Continuity: the segment's end value (Σc) equals the next key's c0 within 2 units.
        let n = c.frames.len();
        for i in 0..n.saturating_sub(1) {
            let end: f64 = (0..4).map(|j| f64::from(c.key(i, j))).sum();
            let next = f64::from(c.key(i + 1, 0));
            let units = if c.key_type() == animkit::formats::bfres::curve::KeyType::Bits32 {
                (end - next).abs() / (next.abs().max(1.0) * 1e-5)
            } else {
                (end - next).abs()
            };
            worst_units = worst_units.max(units);
            assert!(units <= 2.0 + 1e-9, "{what} segment {i}: end {end} vs next {next}");
            segments += 1;
        }
        // The delta field is value(last) - value(first) within 2 quantisation steps (§5.6).
        if let Some(d) = c.delta {
            let first = c.key(0, 0) * c.scale() + c.offset_f32();
            let last = c.key(n - 1, 0) * c.scale() + c.offset_f32();
            let step = c.scale().abs().max(f32::EPSILON);
            assert!(((last - first) - d).abs() <= 2.0 * step + 1e-6 * d.abs(), "{what}: delta {d} vs {}", last - first);
        }
    }
    eprintln!(
        "{} FSKA curves, {keys} keys reproduced, {segments} segments continuous (worst {worst_units} units)",
        curves.len()
    );
    if !curves.is_empty() {
        assert!(curves.len() > 1000);
    }
}

#[test]
fn model_tracks_match_curve_evaluation() {
    use animkit::formats::bfres::fska;
    use animkit::model::Values;
    use animkit::sample::{sample_track, Sampled};
    let Some(data) = files().into_iter().find(|f| f.0 == "Animal_Bass_Animation.bfres").map(|f| f.1) else {
        return;
    };
    let file = fres::read(&data).unwrap();
    let fps = 30.0;
    let mut checked = 0;
    for (_, at) in fres::entries(&data, &file.header, fres::G_FSKA).unwrap() {
        let a =
            fska::read(&data, at, animkit::formats::bfres::platform::Platform::WiiU { version: file.header.version })
                .unwrap();
        let clip = fska::to_clip(&a, fps, &Default::default()).unwrap();
        for b in &a.bones {
            for c in &b.curves {
                let (kind, comp) = match c.target {
                    0x04..=0x0C => ("scale", (c.target - 4) / 4),
                    0x10..=0x18 => ("translation", (c.target - 0x10) / 4),
                    _ => continue,
                };
                let track = clip
                    .tracks
                    .iter()
                    .find(|t| {
                        t.target.label() == b.name
                            && matches!(
                                (&t.values, kind),
                                (Values::Scale(_), "scale") | (Values::Translation(_), "translation")
                            )
                    })
                    .unwrap();
                let mut f = c.start;
                while f <= c.end {
                    let want = c.eval(f).as_f32();
                    let got = match sample_track(track, f / fps).unwrap() {
                        Sampled::Scale(v) | Sampled::Translation(v) => v[comp as usize],
                        other => panic!("{other:?}"),
                    };
                    let tol = 1e-4 * want.abs().max(1.0);
                    assert!(
                        (got - want).abs() <= tol,
                        "{} {} {kind}[{comp}] frame {f}: {got} vs {want}",
                        a.name,
                        b.name
                    );
                    checked += 1;
                    f += 0.25;
                }
            }
        }
    }
    eprintln!("{checked} cubic samples match");
}

/// The Euler rotations of every corpus FSKA as the engine evaluates them (each angle curve at the
/// frame, then `q = qZ·qY·qX`), against the model's rotation track sampled at every quarter frame
/// from the first key to the last: within twice the bone's tolerance everywhere (1e-4 rad, or
/// one quantisation step of each `s8`/`s16` angle curve summed when that is more: a curve's
/// segment may end a step away from the next key's value).
fn euler_rotations_match(name: &str, data: &[u8]) -> (usize, f32) {
    use animkit::formats::bfres::fska::{self, euler_xyz};
    use animkit::model::Values;
    use animkit::sample::{sample_track, Sampled};
    let file = fres::read(data).unwrap();
    let p = Bfres.read(Bytes::from(data.to_vec()), &ReadOptions::default()).unwrap().to_model().unwrap();
    let (mut checked, mut worst) = (0, 0f32);
    for (_, at) in fres::entries(data, &file.header, fres::G_FSKA).unwrap() {
        let a =
            fska::read(data, at, animkit::formats::bfres::platform::Platform::WiiU { version: file.header.version })
                .unwrap();
        assert_eq!(a.rotate_mode(), fska::RotateMode::EulerXyz, "{name} {}", a.name);
        let clip = p.clip(&a.name).unwrap();
        for b in &a.bones {
            let Some(track) =
                clip.tracks.iter().find(|t| t.target.label() == b.name && matches!(t.values, Values::Rotation(_)))
            else {
                continue;
            };
            let comp = |t: u32, j: usize, f: f32| {
                b.curves.iter().find(|c| c.target == t).map_or(b.rotate.map_or(0.0, |r| r[j]), |c| c.eval(f).as_f32())
            };
            let steps: f32 = b
                .curves
                .iter()
                .filter(|c| c.target >= 0x20 && c.key_type() != animkit::formats::bfres::curve::KeyType::Bits32)
                .map(|c| c.scale().abs())
                .sum();
            let bound = 2.0 * steps.max(1e-4);
            let last = b.curves.iter().filter_map(|c| c.frames.last().copied()).fold(0.0, f32::max);
            for i in 0..=(4.0 * last) as usize {
                let f = i as f32 / 4.0;
                let want = euler_xyz(comp(0x20, 0, f), comp(0x24, 1, f), comp(0x28, 2, f));
                let Some(Sampled::Rotation(got)) = sample_track(track, f / 30.0) else { panic!("{}", b.name) };
                let chord = (got - want * got.dot(want).signum()).length();
                let angle = 4.0 * (chord / 2.0).min(1.0).asin();
                assert!(angle <= bound, "{name} {} {} frame {f}: {angle} rad", a.name, b.name);
                worst = worst.max(angle / bound);
                checked += 1;
            }
        }
    }
    (checked, worst)
}

#[test]
fn skeleton_and_euler_rotations() {
    let Some(data) = files().into_iter().find(|f| f.0 == "Animal_Bass_Animation.bfres").map(|f| f.1) else {
        return;
    };
    let doc = Bfres.read(Bytes::from(data.clone()), &ReadOptions::default()).unwrap();
    let p = doc.to_model().unwrap();
    let skel = p.skeleton.as_ref().unwrap();
    let names: Vec<_> = skel.bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Root", "Skl_Root", "Head", "Spine_1", "Spine_2", "Spine_3"]);
    let parents: Vec<_> = skel.bones.iter().map(|b| b.parent).collect();
    assert_eq!(parents, [None, Some(0), Some(1), Some(1), Some(3), Some(4)]);
    // Head rests at Euler (0, -π/2, 0): a −90° turn about Y, quaternion (0, −sin 45°, 0, cos 45°).
    let head = skel.bones[2].rest.rotation;
    assert!(
        (head.y + std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6
            && (head.w - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6
    );
    assert!((skel.bones[2].rest.translation.z - 0.015).abs() < 1e-6);
    for (name, data) in files() {
        if name.ends_with(".bfres") && name.contains("Animation") {
            let (checked, worst) = euler_rotations_match(&name, &data);
            eprintln!("{name}: {checked} Euler rotation samples, worst {:.0} % of the bound", 100.0 * worst);
            assert!(checked > 100);
        }
    }
}

/// Quantiser parity (§5.7): re-encoding the decoded coefficients reproduces the stored keys,
/// scale and offset. Reports how many curves match exactly; requires a large majority.
#[test]
fn quantiser_parity() {
    use animkit::formats::bfres::curve::{quantise_cubic, KeyType};
    let curves = fska_curves();
    let (mut total, mut keys_equal, mut all_equal, mut near) = (0usize, 0usize, 0usize, 0usize);
    for (_, c) in &curves {
        let limit = match c.key_type() {
            KeyType::S16 => 32767.0,
            KeyType::S8 => 127.0,
            _ => continue,
        };
        total += 1;
        // The cubic rows in final units (`c0·scale + offset`, `c1·scale`…), and as stored.
        let (s, o) = (c.scale(), c.offset_f32());
        let keys = 0..c.frames.len();
        let final_rows: Vec<[f32; 4]> =
            keys.clone().map(|i| [c.key(i, 0) * s + o, c.key(i, 1) * s, c.key(i, 2) * s, c.key(i, 3) * s]).collect();
        let stored: Vec<[i32; 4]> = keys.map(|i| [0, 1, 2, 3].map(|j| c.key(i, j) as i32)).collect();
        let (scale, offset, rows) = quantise_cubic(&final_rows, limit);
        let max_diff =
            rows.iter().zip(&stored).flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs())).max().unwrap_or(0);
        if max_diff == 0 {
            keys_equal += 1;
            if scale.to_bits() == c.scale_bits && offset.to_bits() == c.offset_bits {
                all_equal += 1;
            }
        }
        if max_diff <= 1 {
            near += 1;
        }
    }
    eprintln!(
        "quantiser parity: {total} integer cubic curves; keys identical {keys_equal}, keys+scale+offset bit-identical {all_equal}, within 1 unit {near}"
    );
    if total > 0 {
        assert!(near * 100 >= total * 99, "{near} of {total} within one unit");
    }
}

/// Positions (first character) of every pool string of a file.
fn pool_positions(data: &[u8]) -> std::collections::HashMap<String, usize> {
    let file = fres::read(data).unwrap();
    let mut pos = fres::HEADER_SIZE;
    let mut out = std::collections::HashMap::new();
    for p in &file.parts {
        if let fres::Part::Strings(pool) = p {
            let mut at = pos;
            for s in pool {
                out.insert(String::from_utf8(s.text.clone()).unwrap(), at + 4);
                at += s.byte_len();
            }
        }
        pos += p.byte_len();
    }
    out
}

#[test]
fn retail_subfiles_rewrite_byte_for_byte() {
    use animkit::formats::bfres::build::Out;
    use animkit::formats::bfres::{fska, ftxp};
    use animkit::formats::bfres::{fska::write_fska, ftxp::write_ftxp};
    let (mut same, mut total, mut skipped) = (0, 0, 0);
    for (name, data) in files() {
        if name.ends_with(".sbfres") {
            continue;
        }
        let file = fres::read(&data).unwrap();
        let v = file.header.version;
        let pool = pool_positions(&data);
        let mut check = |what: String, at: usize, o: Out| {
            let mut o = o;
            o.resolve(|s| pool.get(s).copied()).unwrap();
            let bytes = o.into_vec();
            total += 1;
            if data.get(at..at + bytes.len()) == Some(bytes.as_slice()) {
                same += 1;
            } else {
                let orig = &data[at..at + bytes.len()];
                let first = bytes.iter().zip(orig).position(|(a, b)| a != b);
                panic!("{what}: first difference at +{first:#x?} (len {:#x})", bytes.len());
            }
        };
        for (anim, at) in fres::entries(&data, &file.header, fres::G_FSKA).unwrap() {
            let a = fska::read(&data, at, animkit::formats::bfres::platform::Platform::WiiU { version: v }).unwrap();
            let mut o = Out::new(at, animkit::formats::bfres::platform::Platform::WiiU { version: v });
            if a.user_data_count > 0 {
                skipped += 1;
            }
            write_fska(&mut o, &a).unwrap();
            check(format!("{name} FSKA {anim}"), at, o);
        }
        for g in [fres::G_FSHU_PARAM, 4, fres::G_FSHU_SRT] {
            for (anim, at) in fres::entries(&data, &file.header, g).unwrap() {
                let a = animkit::formats::bfres::fshu::read(
                    &data,
                    at,
                    animkit::formats::bfres::platform::Platform::WiiU { version: v },
                )
                .unwrap();
                let mut o = Out::new(at, animkit::formats::bfres::platform::Platform::WiiU { version: v });
                animkit::formats::bfres::fshu::write_fshu(&mut o, &a).unwrap();
                check(format!("{name} FSHU {anim}"), at, o);
            }
        }
        for g in [fres::G_FVIS_BONE, fres::G_FVIS_MAT] {
            for (anim, at) in fres::entries(&data, &file.header, g).unwrap() {
                let a = animkit::formats::bfres::fvis::read(
                    &data,
                    at,
                    animkit::formats::bfres::platform::Platform::WiiU { version: v },
                )
                .unwrap();
                let mut o = Out::new(at, animkit::formats::bfres::platform::Platform::WiiU { version: v });
                animkit::formats::bfres::fvis::write_fvis(&mut o, &a).unwrap();
                check(format!("{name} FVIS {anim}"), at, o);
            }
        }
        for (anim, at) in fres::entries(&data, &file.header, fres::G_FTXP).unwrap() {
            let a = ftxp::read(&data, at, animkit::formats::bfres::platform::Platform::WiiU { version: v }).unwrap();
            let mut o = Out::new(at, animkit::formats::bfres::platform::Platform::WiiU { version: v });
            write_ftxp(&mut o, &a).unwrap();
            check(format!("{name} FTXP {anim}"), at, o);
        }
    }
    eprintln!(
        "{same} of {total} retail FSKA/FSHU/FVIS/FTXP subfiles rewritten byte for byte ({skipped} with user data)"
    );
}

#[test]
fn hand_edited_dump_packs_into_a_changed_animation() {
    let Some(doc) = doc("Animal_Bass.bfres") else {
        return;
    };
    let mut dumped = animkit::dump(doc.as_ref()).unwrap();
    let parts = dumped["document"]["parts"].as_array_mut().unwrap();
    let ftxp = parts.iter_mut().find_map(|p| p.get_mut("ftxp")).unwrap();
    let keys = &mut ftxp["ftxp"]["materials"][0]["curves"][0]["keys"];
    assert_eq!(keys, &serde_json::json!([-1.0, 0.0, 1.0]));
    *keys = serde_json::json!([1, 0, -1]);
    let packed = animkit::pack(dumped).unwrap();
    let p = packed.to_model().unwrap();
    let animkit::model::Values::TextureIndex { indices, .. } = &p.clip("Bass_Color").unwrap().tracks[0].values else {
        panic!()
    };
    assert_eq!(indices, &[2, 1, 0]);
    assert_eq!(packed.write().unwrap().len(), doc.write().unwrap().len());
}

/// The first JSON object holding `key`, depth first.
fn first_with<'a>(
    v: &'a mut serde_json::Value,
    key: &str,
) -> Option<&'a mut serde_json::Map<String, serde_json::Value>> {
    if v.get(key).is_some() {
        return v.as_object_mut();
    }
    match v {
        serde_json::Value::Object(m) => m.values_mut().find_map(|v| first_with(v, key)),
        serde_json::Value::Array(a) => a.iter_mut().find_map(|v| first_with(v, key)),
        _ => None,
    }
}

#[test]
fn a_misspelt_key_in_a_dump_is_refused_naming_it() {
    // Beside: the header's fields, an index group, a group node (flattened with its key), a
    // structured subfile, and a user-data entry (flattened with its values; only the Gerudo
    // queen's FSKAs carry user data).
    let places = [("bom", "bomm"), ("nodes", "nodess"), ("ref", "reff"), ("index", "indexx"), ("kind", "kindd")];
    let mut tried = 0;
    for name in ["Animal_Bass.bfres", "Npc_Gerudo_Queen_Animation.bfres"] {
        let Some(doc) = doc(name) else { continue };
        let dumped = animkit::dump(doc.as_ref()).unwrap();
        for (beside, misspelt) in places {
            let mut json = dumped.clone();
            let Some(node) = first_with(&mut json, beside) else { continue };
            node.insert(misspelt.into(), serde_json::json!(0));
            tried += 1;
            let err = animkit::pack(json).err().unwrap_or_else(|| panic!("{name}: packed with `{misspelt}`"));
            assert!(err.to_string().contains(misspelt), "{name}: {err}");
        }
    }
    assert!(tried == 0 || tried >= 9, "{tried} places tried");
}
