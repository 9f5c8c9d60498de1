//! Writing Switch BFRES, on the corpus's Splatoon 2 and Super Mario Odyssey files (BFRES 0.8.0.0
//! inside Yaz0 → SARC): an unchanged file writes back byte for byte with its FSKA data, string
//! table and relocation table cleared and written again from their structures; a skeletal
//! animation edited through the model (one key moved) is written back into the file, reads back
//! with that change and nothing else, and passes structure checks written here from the
//! relocation-table, block-chain and string-table rules (independent of the writer).

mod common;

use animkit::formats::bfres::switch_write;
use animkit::{Bytes, ReadOptions};

/// The Switch BFRES members of the corpus's `nintendo/` archives: `(archive, bytes)`.
fn switch_files() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (name, data) in common::corpus_files("nintendo") {
        let Ok(doc) = animkit::read(Bytes::from(data), None, &ReadOptions::default()) else { continue };
        let mut pending = vec![doc];
        while let Some(doc) = pending.pop() {
            for entry in doc.entries().unwrap_or_default() {
                if entry.data.starts_with(b"FRES    ") {
                    out.push((format!("{name}/{}", entry.name), entry.data.to_vec()));
                } else if let Ok(inner) = animkit::read(entry.data.clone(), None, &ReadOptions::default()) {
                    pending.push(inner);
                }
            }
        }
    }
    out
}

#[test]
fn unchanged_switch_files_rewrite_byte_for_byte() {
    let files = switch_files();
    if common::corpus_dir("nintendo").is_some() {
        assert_eq!(files.len(), 2, "expected the Splatoon 2 and Super Mario Odyssey files");
    }
    for (name, data) in files {
        let out = switch_write::rewrite(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out.len(), data.len(), "{name}: size");
        if let Some(i) = out.iter().zip(&data).position(|(a, b)| a != b) {
            panic!("{name}: first difference at {i:#x}");
        }
    }
}

/// Reads a little-endian `u16`/`u32`/`u64` at `at`.
fn le(d: &[u8], at: usize, n: usize) -> u64 {
    d[at..at + n].iter().rev().fold(0, |v, &b| v << 8 | u64::from(b))
}

/// Structure checks from the format's rules, independent of the writer: header sizes, the
/// block chain, the relocation table (sections in order and inside the file, every listed
/// offset null or pointing into its section), and the string table (every
/// FSKA and bone name offset lands on an entry's length word). Returns the FSKA count checked.
fn check_structure(d: &[u8]) -> usize {
    assert_eq!(&d[..8], b"FRES    ");
    assert_eq!(le(d, 0x1C, 4) as usize, d.len(), "file size field");
    let rlt = le(d, 0x18, 4) as usize;
    assert_eq!(&d[rlt..rlt + 4], b"_RLT");
    assert_eq!(le(d, rlt + 4, 4) as usize, rlt, "_RLT position field");
    // Block chain: magic letters at every link, ending in _STR whose size reaches the _RLT.
    let mut at = le(d, 0x16, 2) as usize;
    let str_at = loop {
        let magic = &d[at..at + 4];
        assert!(magic.iter().all(|b| b.is_ascii_graphic()), "block at {at:#x}: magic {magic:?}");
        let next = le(d, at + 4, 4) as usize;
        if next == 0 {
            assert_eq!(magic, b"_STR");
            assert_eq!(at + le(d, at + 8, 4) as usize, rlt, "_STR size");
            break at;
        }
        at += next;
    };
    // String table: the set of length-word positions.
    let count = le(d, str_at + 0x10, 4) as usize;
    let mut p = str_at + 0x14;
    let mut strings = std::collections::HashSet::new();
    for _ in 0..=count {
        strings.insert(p);
        let len = le(d, p, 2) as usize;
        assert_eq!(d[p + 2 + len], 0, "string at {p:#x} not NUL-terminated");
        p += (2 + len + 1).div_ceil(2) * 2;
    }
    // Relocation table.
    let sections = le(d, rlt + 8, 4) as usize;
    let entries_at = rlt + 16 + 24 * sections;
    let mut previous_end = 0;
    for s in 0..sections {
        let h = rlt + 16 + 24 * s;
        let (pos, size) = (le(d, h + 8, 4) as usize, le(d, h + 12, 4) as usize);
        let (first, n) = (le(d, h + 16, 4) as usize, le(d, h + 20, 4) as usize);
        assert!(pos >= previous_end && pos + size <= rlt, "section {s} at {pos:#x}+{size:#x}");
        previous_end = pos + size;
        for e in first..first + n {
            let at = entries_at + 8 * e;
            let (start, structs) = (le(d, at, 4) as usize, le(d, at + 4, 2) as usize);
            let (offsets, padding) = (d[at + 6] as usize, d[at + 7] as usize);
            for k in 0..structs {
                for o in 0..offsets {
                    let q = start + (k * (offsets + padding) + o) * 8;
                    assert!(q + 8 <= rlt, "offset at {q:#x} past the data");
                    let v = le(d, q, 8) as usize;
                    assert!(v == 0 || (pos..=pos + size).contains(&v), "offset at {q:#x}: {v:#x} not in section {s}");
                }
            }
        }
    }
    // FSKA headers and bone names.
    let (fskas, n) = (le(d, 0x38, 8) as usize, le(d, 0xBE, 2) as usize);
    for i in 0..n {
        let h = fskas + 0x60 * i;
        assert_eq!(&d[h..h + 4], b"FSKA");
        assert!(strings.contains(&(le(d, h + 0x10, 8) as usize)), "FSKA {i} name");
        let bones = le(d, h + 0x30, 8) as usize;
        assert_eq!(bones % 8, 0, "FSKA {i} bone array alignment");
        for b in 0..le(d, h + 0x58, 2) as usize {
            let name = le(d, bones + 0x28 * b, 8) as usize;
            assert!(strings.contains(&name), "FSKA {i} bone {b}: name offset {name:#x} is not a string");
        }
    }
    n
}

#[test]
fn the_unchanged_files_pass_the_structure_checks() {
    for (name, data) in switch_files() {
        assert!(check_structure(&data) > 0, "{name}: no FSKA");
    }
}

/// The translation value of a cubic track at time `t`.
fn translation_at(track: &animkit::model::Track, t: f32) -> glam::Vec3 {
    match animkit::sample::sample_track(track, t) {
        Some(animkit::sample::Sampled::Translation(v)) => v,
        other => panic!("not a translation: {other:?}"),
    }
}

#[test]
fn an_animation_edited_through_the_model_writes_back_with_that_change() {
    use animkit::formats::bfres::SwitchDocument;
    use animkit::model::Values;
    for (name, data) in switch_files() {
        let doc = SwitchDocument::read(Bytes::from(data), &ReadOptions::default()).unwrap();
        let package = animkit::Document::to_model(&doc).unwrap();
        // The first skeletal clip with a translation track of at least three keys.
        let (ci, ti) = package
            .clips
            .iter()
            .enumerate()
            .find_map(|(ci, c)| {
                c.tracks
                    .iter()
                    .position(|t| matches!(t.values, Values::Translation(_)) && t.times.len() >= 3)
                    .map(|ti| (ci, ti))
            })
            .unwrap_or_else(|| panic!("{name}: no translation track with three keys"));
        let original = &package.clips[ci];
        let mut edited = original.clone();
        let time = edited.tracks[ti].times[1];
        let Values::Translation(v) = &mut edited.tracks[ti].values else { unreachable!() };
        v[4].x += 0.5; // key 1's value (cubic tracks store in-tangent, value, out-tangent)
        let control = doc.with_clip(original).unwrap_or_else(|e| panic!("{name}: {e}"));
        let changed = doc.with_clip(&edited).unwrap_or_else(|e| panic!("{name}: {e}"));
        let bytes = animkit::Document::write(&changed).unwrap();
        check_structure(&bytes);
        eprintln!("{name}: clip \"{}\" edited, {} -> {} bytes", original.name, doc.data().len(), bytes.len());
        let control = animkit::Document::to_model(&control).unwrap();
        let back = model_of(bytes);
        // Every other clip reads back exactly as before.
        assert_eq!(back.clips.len(), package.clips.len());
        others_unchanged(&name, &back, &package, ci);
        // In the edited clip, every other track is what the same clip gives written unedited.
        let (got, want) = (&back.clips[ci], &control.clips[ci]);
        let target = &edited.tracks[ti].target;
        for (a, b) in got.tracks.iter().zip(&want.tracks) {
            if !(a.target == *target && matches!(a.values, Values::Translation(_))) {
                assert!(a == b, "{name}: track {} changed", a.target.label());
            }
        }
        // The edited track passes through the edited key values (within the 16-bit quantiser).
        let track =
            got.tracks.iter().find(|t| t.target == *target && matches!(t.values, Values::Translation(_))).unwrap();
        let tol = 2e-3;
        for (k, &t) in original.tracks[ti].times.iter().enumerate() {
            let expected = translation_at(&edited.tracks[ti], t);
            let read = translation_at(track, t);
            assert!((read - expected).abs().max_element() < tol, "{name}: key {k} at {t}s: {read} vs {expected}");
        }
        let before = translation_at(&original.tracks[ti], time);
        let after = translation_at(track, time);
        assert!(
            (after.x - before.x - 0.5).abs() < tol && (after.y - before.y).abs().max((after.z - before.z).abs()) < tol
        );
    }
}

#[test]
fn switch_dump_names_the_structures_and_packs_byte_for_byte() {
    let (format, _) = animkit::REGISTRY.by_name("bfres").unwrap();
    for (name, data) in switch_files() {
        let doc = format.read(Bytes::from(data.clone()), &ReadOptions::default()).unwrap();
        let dump = doc.dump().unwrap();
        let header = &dump["header"];
        assert_eq!(header["file_size"].as_u64(), Some(data.len() as u64), "{name}");
        assert_eq!(header["counts"][1].as_u64(), Some(le(&data, 0xBE, 2)), "{name}: FSKA count");
        let fskas = dump["skeletal_animations"].as_array().unwrap();
        assert_eq!(fskas.len() as u64, le(&data, 0xBE, 2), "{name}");
        assert!(fskas[0]["animation"]["bones"][0]["name"].is_string());
        assert!(!dump["string_table"]["strings"].as_array().unwrap().is_empty());
        assert!(!dump["relocation_table"][1]["sections"].as_array().unwrap().is_empty());
        let fmaas = dump["material_animations"].as_array().map_or(0, Vec::len);
        assert_eq!(fmaas as u64, le(&data, 0xC0, 2), "{name}: FMAA count");
        if fmaas > 0 {
            assert!(dump["material_animations"][0]["animation"]["materials"][0]["name"].is_string());
        }
        // What stays hex: the bytes no structure above covers.
        let hex: usize = dump["other"].as_array().unwrap().iter().map(|r| r["bytes"].as_str().unwrap().len() / 2).sum();
        eprintln!("{name}: {} of {} bytes left as hex runs", hex, data.len());
        let back = format.undump(dump).unwrap().write().unwrap();
        assert!(back == data, "{name}: dump -> pack differs");
    }
}

#[test]
fn a_misspelt_key_in_a_switch_dump_is_refused_naming_it() {
    let (format, _) = animkit::REGISTRY.by_name("bfres").unwrap();
    for (name, data) in switch_files() {
        let dump = format.read(Bytes::from(data), &ReadOptions::default()).unwrap().dump().unwrap();
        let places = [
            ("/relocation_table/1", "sectionss"),
            ("/relocation_table/1/sections/0", "entriess"),
            ("/relocation_table/1/sections/0/entries/0", "struct_countt"),
            ("/string_table", "stringss"),
            ("/skeletal_animations/0", "bindd"),
        ];
        for (place, misspelt) in places {
            let mut json = dump.clone();
            let object = json.pointer_mut(place).and_then(|v| v.as_object_mut()).unwrap();
            object.insert(misspelt.into(), serde_json::json!(0));
            let err = format.undump(json).err().unwrap_or_else(|| panic!("{name}: packed with `{misspelt}`"));
            assert!(err.to_string().contains(misspelt), "{name}: {err}");
        }
    }
}

#[test]
fn switch_dictionaries_rebuild_from_their_names() {
    use animkit::formats::bfres::build::{write_dict, Out};
    use animkit::formats::bfres::dict::{build_by, read_switch, Rule};
    use animkit::formats::bfres::platform::Platform;
    let mut checked = 0;
    for (name, data) in switch_files() {
        let str_at = switch_write::blocks(&data).unwrap().into_iter().find(|b| &b.1 == b"_STR").unwrap().0;
        let table = switch_write::read_strings(&data, str_at).unwrap();
        let positions = table.positions();
        // The header's dictionaries: models, the five animation kinds, embedded files.
        for field in [0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0xA0] {
            let at = le(&data, field, 8) as usize;
            if at == 0 {
                continue;
            }
            let (nodes, names) = read_switch(&data, at).unwrap();
            let keys: Vec<&[u8]> = names.iter().map(|s| s.as_bytes()).collect();
            assert_eq!(build_by(Rule::Switch, &keys).unwrap(), nodes, "{name}: dictionary at {at:#x}");
            // Written again from the names alone, against the file's own string table.
            let mut o = Out::new(at, Platform::Switch { major: 8 });
            write_dict(&mut o, &names.iter().map(String::as_str).collect::<Vec<_>>(), &[]).unwrap();
            o.resolve(|s| positions.get(s).copied()).unwrap();
            let bytes = o.into_vec();
            assert_eq!(bytes, data[at..at + bytes.len()], "{name}: dictionary at {at:#x} written");
            checked += names.len();
        }
    }
    eprintln!("{checked} dictionary entries rebuilt");
    if common::corpus_dir("nintendo").is_some() {
        assert!(checked > 100);
    }
}

/// The largest difference between two clips' poses at every key time of `a`, over the bone
/// tracks both hold: rotations as angles in radians, translation and scale relative to the
/// value's size where it exceeds 1 (Super Mario Odyssey moves a root bone to z = -100 023).
fn pose_difference(a: &animkit::model::Clip, b: &animkit::model::Clip) -> f32 {
    use animkit::sample::{sample_track, Sampled};
    let mut worst = 0f32;
    for ta in &a.tracks {
        let Some(tb) = b.tracks.iter().find(|t| t.target == ta.target && t.channel() == ta.channel()) else {
            panic!("clip {}: track {} missing", a.name, ta.target.label())
        };
        for &t in &ta.times {
            let d = match (sample_track(ta, t), sample_track(tb, t)) {
                (Some(Sampled::Rotation(p)), Some(Sampled::Rotation(q))) => p.angle_between(q),
                (Some(Sampled::Translation(p)), Some(Sampled::Translation(q)))
                | (Some(Sampled::Scale(p)), Some(Sampled::Scale(q))) => {
                    (p - q).abs().max_element() / p.abs().max_element().max(1.0)
                }
                (x, y) => panic!("clip {}: {x:?} vs {y:?}", a.name),
            };
            worst = worst.max(d);
        }
    }
    worst
}

#[test]
fn switch_files_built_from_the_model_read_back() {
    use animkit::model::Values;
    let (format, _) = animkit::REGISTRY.by_name("bfres").unwrap();
    for (name, data) in switch_files() {
        let doc = format.read(Bytes::from(data), &ReadOptions::default()).unwrap();
        let package = doc.to_model().unwrap();
        let mut options = animkit::WriteOptions::default();
        options.params.insert("platform".into(), "switch".into());
        let written = format.from_model(&package, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let bytes = written.document.write().unwrap();
        assert_eq!(&bytes[..8], b"FRES    ");
        let fskas = check_structure(&bytes);
        let skeletal: Vec<_> = package
            .clips
            .iter()
            .filter(|c| {
                c.tracks
                    .iter()
                    .any(|t| matches!(t.values, Values::Rotation(_) | Values::Translation(_) | Values::Scale(_)))
            })
            .collect();
        assert_eq!(fskas, skeletal.len(), "{name}: one FSKA per clip with bone tracks");
        let back = written.document.to_model().unwrap();
        // The same curves as the Wii U writer encodes: the Switch file reads back as that file does.
        options.params.insert("platform".into(), "wiiu".into());
        let wii_u = format.from_model(&package, &options).unwrap().document.to_model().unwrap();
        let mut worst = 0f32;
        for clip in &skeletal {
            let got = back.clips.iter().find(|c| c.name == clip.name).unwrap();
            let want = wii_u.clips.iter().find(|c| c.name == clip.name).unwrap();
            assert!(
                got.tracks == want.tracks && got.duration == want.duration,
                "{name}: {} differs from the Wii U file",
                clip.name
            );
            let only_bones = animkit::model::Clip {
                tracks: clip
                    .tracks
                    .iter()
                    .filter(|t| {
                        !matches!(t.values, Values::Visibility(_) | Values::Scalar(_) | Values::TextureIndex { .. })
                    })
                    .cloned()
                    .collect(),
                ..(*clip).clone()
            };
            worst = worst.max(pose_difference(&only_bones, got));
        }
        eprintln!("{name}: {fskas} FSKA written, {} bytes; largest pose difference at the keys {worst}", bytes.len());
    }
}

#[test]
fn replace_reaches_an_animation_inside_the_archive() {
    let Some(szs) = common::corpus_file("nintendo", "s2_wsp_bubble_fska_fmaa.szs") else { return };
    let archive = animkit::read(Bytes::from(szs), None, &ReadOptions::default()).unwrap();
    let (format, _) = animkit::REGISTRY.by_name("bfres").unwrap();
    let (_, member) = switch_files().into_iter().find(|(n, _)| n.starts_with("s2_")).unwrap();
    let doc = animkit::formats::bfres::SwitchDocument::read(Bytes::from(member), &ReadOptions::default()).unwrap();
    let mut package = animkit::Document::to_model(&doc).unwrap();
    package.clips.truncate(1);
    let mut edited = package.clips[0].clone();
    if let animkit::model::Values::Translation(v) = &mut edited
        .tracks
        .iter_mut()
        .find(|t| t.times.len() >= 3 && matches!(t.values, animkit::model::Values::Translation(_)))
        .unwrap()
        .values
    {
        v[4].x += 0.5;
    }
    package.clips[0] = edited.clone();
    // The replacement: a Switch file built from the edited model.
    let mut options = animkit::WriteOptions::default();
    options.params.insert("platform".into(), "switch".into());
    let new = format.from_model(&package, &options).unwrap().document.write().unwrap();
    let carried = format.read(Bytes::from(new.clone()), &ReadOptions::default()).unwrap().to_model().unwrap();
    let replaced = archive.with_entry(&format!("output.bfres/{}", edited.name), Bytes::from(new)).unwrap();
    let back = animkit::read(Bytes::from(replaced.write().unwrap()), None, &ReadOptions::default()).unwrap();
    let want = animkit::Document::to_model(&doc.with_clip(&carried.clips[0]).unwrap()).unwrap();
    assert!(back.to_model().unwrap().clips == want.clips, "the archive's animation is the one with_clip writes");
}

/// The written curves stay within the encoder's stated bound of the model's keys: for each
/// component of every translation and scale track, `(max - min) / 32767` of its key values (one
/// `s16` step of the range) for the key type, an eighth of that for the keys left out as
/// redundant, and 16 `f32` ULPs of the values' magnitude for rounding. Super Mario Odyssey's
/// `DemoHackFirst` moves its root bone to z = -100 023 in one frame: 16-bit keys put it 26 units
/// off, over eight times that bound.
#[test]
fn switch_files_built_from_the_model_stay_within_the_encoding_bound() {
    use animkit::model::Values;
    use animkit::sample::{sample_track, Sampled};
    let (format, _) = animkit::REGISTRY.by_name("bfres").unwrap();
    for (name, data) in switch_files() {
        let package = format.read(Bytes::from(data), &ReadOptions::default()).unwrap().to_model().unwrap();
        let mut options = animkit::WriteOptions::default();
        options.params.insert("platform".into(), "switch".into());
        let back = format.from_model(&package, &options).unwrap().document.to_model().unwrap();
        let (mut checked, mut worst) = (0usize, (0f32, String::new()));
        for clip in &package.clips {
            let Some(got) = back.clips.iter().find(|c| c.name == clip.name) else { continue };
            for track in &clip.tracks {
                let (Values::Translation(v) | Values::Scale(v)) = &track.values else { continue };
                let keys: Vec<glam::Vec3> =
                    if track.times.len() * 3 == v.len() { v.chunks(3).map(|k| k[1]).collect() } else { v.clone() };
                let written = got.tracks.iter().find(|t| t.target == track.target && t.channel() == track.channel());
                let written =
                    written.unwrap_or_else(|| panic!("{name}: {} {} missing", clip.name, track.target.label()));
                let (lo, hi) = keys
                    .iter()
                    .fold((glam::Vec3::INFINITY, glam::Vec3::NEG_INFINITY), |(l, h), k| (l.min(*k), h.max(*k)));
                let magnitude = lo.abs().max(hi.abs());
                let bound = (hi - lo) / 32767.0 * 1.125 + 16.0 * f32::EPSILON * magnitude;
                for &t in &track.times {
                    let (
                        Some(Sampled::Translation(a) | Sampled::Scale(a)),
                        Some(Sampled::Translation(b) | Sampled::Scale(b)),
                    ) = (sample_track(track, t), sample_track(written, t))
                    else {
                        panic!("{name}: {} {} not a vector track", clip.name, track.target.label())
                    };
                    let ratio = ((a - b).abs() / bound.max(glam::Vec3::splat(f32::MIN_POSITIVE))).max_element();
                    if ratio > worst.0 {
                        worst = (
                            ratio,
                            format!("{} {} at {t}s: {a} written {b}, bound {bound}", clip.name, track.target.label()),
                        );
                    }
                    checked += 1;
                }
            }
        }
        eprintln!("{name}: {checked} keys checked; largest error / bound {} ({})", worst.0, worst.1);
        assert!(worst.0 <= 1.0, "{name}: {}", worst.1);
    }
}

/// Structure checks for the FMAAs of a Switch file, from the format's rules (independent of the
/// writer): every header and material offset the relocation table lists, every name offset
/// landing on a string-table entry, pattern infos naming a curve or a constant that exists,
/// texture bind entries -1. Returns the FMAA count checked.
fn check_fmaas(d: &[u8]) -> usize {
    let rlt = le(d, 0x18, 4) as usize;
    let mut listed = std::collections::HashSet::new();
    let sections = le(d, rlt + 8, 4) as usize;
    let entries_at = rlt + 16 + 24 * sections;
    let entries: usize = (0..sections).map(|s| le(d, rlt + 16 + 24 * s + 20, 4) as usize).sum();
    for e in 0..entries {
        let at = entries_at + 8 * e;
        let (start, structs, offsets, padding) =
            (le(d, at, 4) as usize, le(d, at + 4, 2) as usize, d[at + 6] as usize, d[at + 7] as usize);
        for k in 0..structs {
            for o in 0..offsets {
                listed.insert(start + (k * (offsets + padding) + o) * 8);
            }
        }
    }
    let str_at = le(d, 0xB0, 8) as usize - 0x14;
    let mut strings = std::collections::HashSet::new();
    let mut p = str_at + 0x14;
    for _ in 0..=le(d, str_at + 0x10, 4) {
        strings.insert(p);
        p += (2 + le(d, p, 2) as usize + 1).div_ceil(2) * 2;
    }
    let offset = |at: usize| {
        let v = le(d, at, 8) as usize;
        assert!(v == 0 || listed.contains(&at), "offset at {at:#x} not in the relocation table");
        v
    };
    let (array, n) = (le(d, 0x48, 8) as usize, le(d, 0xC0, 2) as usize);
    for i in 0..n {
        let h = array + 0x78 * i;
        assert_eq!(&d[h..h + 4], b"FMAA");
        assert!(strings.contains(&offset(h + 0x10)), "FMAA {i} name");
        let (mats, textures) = (le(d, h + 0x64, 2) as usize, le(d, h + 0x76, 2) as usize);
        let (mat_at, names, binds) = (offset(h + 0x30), offset(h + 0x40), offset(h + 0x58));
        for t in 0..textures {
            assert!(strings.contains(&offset(names + 8 * t)), "FMAA {i} texture {t}");
            assert_eq!(le(d, binds + 8 * t, 8), u64::MAX, "FMAA {i} texture bind {t}");
        }
        let mut curves_total = 0;
        for m in 0..mats {
            let at = mat_at + 0x40 * m;
            assert!(strings.contains(&offset(at)), "FMAA {i} material {m} name");
            let (params, patterns) = (offset(at + 8), offset(at + 0x10));
            let (curves, constants) = (offset(at + 0x18), offset(at + 0x20));
            let count = |k: usize| le(d, at + 0x32 + 2 * k, 2) as usize;
            let (n_params, n_patterns, n_constants, n_curves) = (count(0), count(1), count(2), count(3));
            assert!(n_curves == 0 || curves % 8 == 0);
            assert!(n_constants == 0 || constants != 0);
            curves_total += n_curves;
            for k in 0..n_params {
                assert!(strings.contains(&offset(params + 0x18 * k)), "FMAA {i} param {k}");
            }
            for k in 0..n_patterns {
                let info = patterns + 0x10 * k;
                assert!(strings.contains(&offset(info)), "FMAA {i} sampler {k}");
                let (curve, constant) = (le(d, info + 8, 2) as i16, le(d, info + 10, 2) as usize);
                assert!(
                    (0..n_curves as i16).contains(&curve) || constant < n_constants,
                    "FMAA {i} pattern {k}: curve {curve}, constant {constant}"
                );
            }
            for k in 0..n_curves {
                let c = curves + 0x30 * k;
                let (frames, keys) = (offset(c), offset(c + 8));
                assert!(frames != 0 && keys != 0 && frames < rlt && keys < rlt, "FMAA {i} curve {k}");
            }
        }
        assert_eq!(le(d, h + 0x66, 2) as usize, curves_total, "FMAA {i} curve count");
    }
    n
}

/// The material tracks of a clip, texture indices resolved to names: `(target, times, values)`.
fn material_tracks(clip: &animkit::model::Clip) -> Vec<(String, Vec<f32>, Vec<String>)> {
    use animkit::model::Values;
    let mut out = Vec::new();
    for t in &clip.tracks {
        let values = match &t.values {
            Values::TextureIndex { indices, textures } => {
                indices.iter().map(|&i| textures[i as usize].clone()).collect()
            }
            Values::Scalar(v) => v.iter().map(|x| format!("{x:.5}")).collect(),
            _ => continue,
        };
        out.push((t.target.label(), t.times.clone(), values));
    }
    out
}

#[test]
fn material_animations_built_from_the_model_read_back_equal() {
    use animkit::model::Values;
    let (format, _) = animkit::REGISTRY.by_name("bfres").unwrap();
    let mut checked = 0;
    for (name, data) in switch_files() {
        assert_eq!(check_fmaas(&data), le(&data, 0xC0, 2) as usize, "{name}: the checks accept the original");
        let package = format.read(Bytes::from(data), &ReadOptions::default()).unwrap().to_model().unwrap();
        let mut options = animkit::WriteOptions::default();
        options.params.insert("platform".into(), "switch".into());
        let written = format.from_model(&package, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let bytes = written.document.write().unwrap();
        check_structure(&bytes);
        let fmaas = check_fmaas(&bytes);
        let back = written.document.to_model().unwrap();
        let material: Vec<_> = package
            .clips
            .iter()
            .filter(|c| c.tracks.iter().any(|t| matches!(t.values, Values::TextureIndex { .. } | Values::Scalar(_))))
            .collect();
        assert_eq!(fmaas, material.len(), "{name}: one FMAA per clip with material tracks");
        for clip in material {
            let got = back
                .clips
                .iter()
                .find(|c| c.name == clip.name && !material_tracks(c).is_empty())
                .unwrap_or_else(|| panic!("{name}: {} not written", clip.name));
            assert_eq!(material_tracks(got), material_tracks(clip), "{name}: {}", clip.name);
            assert_eq!(got.looping, clip.looping, "{name}: {}", clip.name);
            for (a, b) in got.tracks.iter().zip(&clip.tracks) {
                if let (Values::TextureIndex { textures: x, .. }, Values::TextureIndex { textures: y, .. }) =
                    (&a.values, &b.values)
                {
                    assert_eq!(x, y, "{name}: {} texture list", clip.name);
                }
            }
            checked += 1;
        }
        eprintln!("{name}: {fmaas} FMAA written and read back");
    }
    if common::corpus_dir("nintendo").is_some() {
        assert_eq!(checked, 9, "Super Mario Odyssey's 8 FMAAs and Splatoon 2's one");
    }
}

/// Two material tracks agree at every key and halfway between keys: texture indices name the
/// same texture; scalars are within the encoder's bound, one `s16` step of the keys' range plus
/// 16 `f32` ULPs of their magnitude.
fn same_samples(a: &animkit::model::Track, b: &animkit::model::Track) {
    use animkit::sample::{sample_track, Sampled};
    let texture = |t: &animkit::model::Track, i: u32| match &t.values {
        animkit::model::Values::TextureIndex { textures, .. } => textures[i as usize].clone(),
        _ => unreachable!(),
    };
    let values: Vec<f32> = b
        .times
        .iter()
        .filter_map(|&t| if let Some(Sampled::Scalar(v)) = sample_track(b, t) { Some(v) } else { None })
        .collect();
    let (lo, hi) = values.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
    let bound =
        if values.is_empty() { 0.0 } else { (hi - lo) / 32767.0 + 16.0 * f32::EPSILON * lo.abs().max(hi.abs()) };
    let mids = b.times.windows(2).map(|w| 0.5 * (w[0] + w[1]));
    for t in b.times.iter().copied().chain(mids) {
        match (sample_track(a, t), sample_track(b, t)) {
            (Some(Sampled::TextureIndex(x)), Some(Sampled::TextureIndex(y))) => {
                assert_eq!(texture(a, x), texture(b, y), "{} at {t}s", b.target.label())
            }
            (Some(Sampled::Scalar(x)), Some(Sampled::Scalar(y))) => {
                assert!((x - y).abs() <= bound, "{} at {t}s: {x} vs {y} (bound {bound})", b.target.label())
            }
            (x, y) => panic!("{} at {t}s: {x:?} vs {y:?}", b.target.label()),
        }
    }
}

#[test]
fn a_material_animation_edited_through_the_model_writes_back_with_that_change() {
    use animkit::formats::bfres::SwitchDocument;
    use animkit::model::Values;
    let mut edited_files = 0;
    for (name, data) in switch_files() {
        let doc = SwitchDocument::read(Bytes::from(data), &ReadOptions::default()).unwrap();
        let package = animkit::Document::to_model(&doc).unwrap();
        // The first clip with a material track of two or more keys: a texture index moved to
        // another texture of its list, or a shader parameter raised by 0.25.
        let Some((ci, ti)) = package.clips.iter().enumerate().find_map(|(ci, c)| {
            c.tracks
                .iter()
                .position(|t| t.times.len() >= 2 && matches!(t.values, Values::TextureIndex { .. } | Values::Scalar(_)))
                .map(|ti| (ci, ti))
        }) else {
            continue;
        };
        let mut edited = package.clips[ci].clone();
        let keys = edited.tracks[ti].times.len();
        match &mut edited.tracks[ti].values {
            Values::TextureIndex { indices, textures } => indices[1] = (indices[1] + 1) % textures.len() as u32,
            Values::Scalar(v) => {
                let k = if v.len() == keys { 1 } else { 4 };
                v[k] += 0.25;
            }
            _ => unreachable!(),
        }
        let bytes =
            animkit::Document::write(&doc.with_clip(&edited).unwrap_or_else(|e| panic!("{name}: {e}"))).unwrap();
        check_structure(&bytes);
        assert_eq!(check_fmaas(&bytes), le(doc.data(), 0xC0, 2) as usize);
        let back = model_of(bytes);
        assert_eq!(back.clips.len(), package.clips.len());
        others_unchanged(&name, &back, &package, ci);
        let (got, original) = (&back.clips[ci], &package.clips[ci]);
        assert_ne!(material_tracks(got), material_tracks(original), "{name}: the edit is there");
        assert_eq!(got.tracks.len(), edited.tracks.len());
        for (a, b) in got.tracks.iter().zip(&edited.tracks) {
            assert_eq!((a.target.label(), &a.times), (b.target.label(), &b.times), "{name}");
            same_samples(a, b);
        }
        eprintln!("{name}: material animation \"{}\" edited and written back", edited.name);
        edited_files += 1;
    }
    if common::corpus_dir("nintendo").is_some() {
        assert_eq!(edited_files, 2);
    }
}

#[test]
fn an_animation_with_new_bone_names_is_written_with_them() {
    use animkit::formats::bfres::SwitchDocument;
    use animkit::model::Target;
    for (name, data) in switch_files() {
        let doc = SwitchDocument::read(Bytes::from(data), &ReadOptions::default()).unwrap();
        let package = animkit::Document::to_model(&doc).unwrap();
        let ci =
            package.clips.iter().position(|c| c.tracks.iter().any(|t| matches!(t.target, Target::Bone(_)))).unwrap();
        let original = &package.clips[ci];
        let rename = |clip: &animkit::model::Clip| {
            let mut c = clip.clone();
            for t in &mut c.tracks {
                if let Target::Bone(b) = &mut t.target {
                    b.name = Some(format!("Renamed_{}", b.name.as_deref().unwrap_or("")).into());
                }
            }
            c
        };
        let renamed = rename(original);
        let bytes =
            animkit::Document::write(&doc.with_clip(&renamed).unwrap_or_else(|e| panic!("{name}: {e}"))).unwrap();
        // The structure checks find every bone name offset on a string-table entry.
        check_structure(&bytes);
        check_fmaas(&bytes);
        let table = switch_write::read_strings(&bytes, le(&bytes, 0xB0, 8) as usize - 0x14).unwrap();
        let added = table.strings.iter().filter(|s| s.starts_with("Renamed_")).count();
        let back = model_of(bytes);
        others_unchanged(&name, &back, &package, ci);
        // The clip reads back as the same clip written under its own names does, renamed.
        let control = animkit::Document::to_model(&doc.with_clip(original).unwrap()).unwrap();
        assert!(back.clips[ci] == rename(&control.clips[ci]), "{name}: {}", original.name);
        let bones: std::collections::BTreeSet<String> = back.clips[ci]
            .tracks
            .iter()
            .filter_map(|t| if let Target::Bone(b) = &t.target { Some(b.label()) } else { None })
            .collect();
        assert!(bones.iter().all(|b| b.starts_with("Renamed_")), "{name}: {bones:?}");
        assert_eq!(added, bones.len(), "{name}: one new string per bone");
        eprintln!("{name}: clip \"{}\" written with {added} new bone names", original.name);
    }
}

#[test]
fn a_replacement_in_another_format_is_refused_with_the_conversion_to_run() {
    use animkit::formats::bfres::SwitchDocument;
    let Some((name, data)) = switch_files().into_iter().next() else { return };
    let doc = SwitchDocument::read(Bytes::from(data), &ReadOptions::default()).unwrap();
    let anim = animkit::Document::to_model(&doc).unwrap().clips[0].name.clone();
    let glb = Bytes::from_static(b"glTF\x02\x00\x00\x00\x0c\x00\x00\x00");
    let e = animkit::Document::with_entry(&doc, &anim, glb).err().unwrap();
    assert_eq!(e.kind, animkit::ErrorKind::Unsupported, "{name}");
    assert!(e.message.contains("--opt platform=switch"), "{name}: {e}");
}

#[test]
fn a_replacement_with_tracks_the_file_cannot_take_is_refused() {
    use animkit::formats::bfres::SwitchDocument;
    use animkit::model::{BoneRef, Interpolation, Target, Track, Values};
    let Some((name, data)) = switch_files().into_iter().next() else { return };
    let doc = SwitchDocument::read(Bytes::from(data), &ReadOptions::default()).unwrap();
    let package = animkit::Document::to_model(&doc).unwrap();
    let skeletal = |c: &&animkit::model::Clip| c.tracks.iter().all(|t| matches!(t.target, Target::Bone(_)));
    let mut clip = package.clips.iter().find(skeletal).unwrap().clone();
    clip.tracks.push(Track {
        target: Target::Bone(BoneRef::named("hat")),
        interpolation: Interpolation::Step,
        times: vec![0.0],
        values: Values::Visibility(vec![false]),
    });
    let e = doc.with_clip(&clip).err().unwrap_or_else(|| panic!("{name}: a visibility track was dropped silently"));
    assert!(e.message.contains("1 visibility track(s)"), "{name}: {e}");
}

/// The model of a Switch file's bytes.
fn model_of(bytes: Vec<u8>) -> animkit::model::Package {
    let doc = animkit::formats::bfres::SwitchDocument::read(Bytes::from(bytes), &ReadOptions::default()).unwrap();
    animkit::Document::to_model(&doc).unwrap()
}

/// Every clip but clip `ci` reads back exactly as before.
fn others_unchanged(name: &str, back: &animkit::model::Package, before: &animkit::model::Package, ci: usize) {
    for (i, (a, b)) in back.clips.iter().zip(&before.clips).enumerate() {
        if i != ci {
            assert!(a == b, "{name}: clip {} changed", b.name);
        }
    }
}

/// `o`'s bytes followed by a Switch string table holding every name it refers to (`u16`
/// length, the bytes, NUL, padded to 2), its name offsets pointed at the length words.
fn with_string_table(mut o: animkit::formats::bfres::build::Out) -> Vec<u8> {
    let start = o.pos();
    let (mut table, mut positions) = (Vec::new(), std::collections::HashMap::new());
    for s in o.strings().map(str::to_string).collect::<Vec<_>>() {
        if positions.contains_key(&s) {
            continue;
        }
        positions.insert(s.clone(), start + table.len());
        table.extend_from_slice(&(s.len() as u16).to_le_bytes());
        table.extend_from_slice(s.as_bytes());
        table.push(0);
        table.resize(table.len().next_multiple_of(2), 0);
    }
    o.resolve(|s| positions.get(s).copied()).unwrap();
    let mut bytes = o.into_vec();
    bytes.extend_from_slice(&table);
    bytes
}

#[test]
fn switch_skeletal_animations_written_whole_read_back_equal_in_both_layouts() {
    use animkit::formats::bfres::build::Out;
    use animkit::formats::bfres::fska;
    use animkit::formats::bfres::fska::write_fska;
    use animkit::formats::bfres::platform::Platform;
    let mut checked = 0;
    for (name, data) in switch_files() {
        // The FSKA header array (`0x60` each) and its count, from the file header.
        let (array, count) = (le(&data, 0x38, 8) as usize, le(&data, 0xBE, 2) as usize);
        for at in (0..count).map(|i| array + 0x60 * i) {
            let original = fska::read(&data, at, Platform::Switch { major: 8 }).unwrap();
            // 0.8 (`0x60` header, `0x28` bone animations) and 0.9 (flags after the magic, `0x50`
            // header, `0x38` bone animations), each written from position 0 and read back.
            for major in [8, 9] {
                let platform = Platform::Switch { major };
                let mut o = Out::new(0, platform);
                write_fska(&mut o, &original).unwrap();
                let bytes = with_string_table(o);
                let back = fska::read(&bytes, 0, platform).unwrap_or_else(|e| panic!("{name} 0.{major}: {e}"));
                assert_eq!(
                    serde_json::to_value(&back).unwrap(),
                    serde_json::to_value(&original).unwrap(),
                    "{name}: {} in 0.{major}",
                    original.name
                );
                let (header, bind_field) = if major >= 9 { (0x50, 0x20) } else { (0x60, 0x28) };
                assert_eq!(le(&bytes, bind_field, 8) as usize, header, "{name}: the bind indices follow the header");
            }
            checked += 1;
        }
    }
    if common::corpus_dir("nintendo").is_some() {
        assert!(checked > 0);
    }
    eprintln!("{checked} skeletal animations written whole in 0.8 and 0.9 and read back");
}
