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
        let back =
            animkit::Document::to_model(&SwitchDocument::read(Bytes::from(bytes), &ReadOptions::default()).unwrap())
                .unwrap();
        // Every other clip reads back exactly as before.
        assert_eq!(back.clips.len(), package.clips.len());
        for (i, (a, b)) in back.clips.iter().zip(&package.clips).enumerate() {
            if i != ci {
                assert!(a == b, "{name}: clip {} changed", b.name);
            }
        }
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
        // What stays hex: the bytes no structure above covers.
        let hex: usize = dump["other"].as_array().unwrap().iter().map(|r| r["bytes"].as_str().unwrap().len() / 2).sum();
        eprintln!("{name}: {} of {} bytes left as hex runs", hex, data.len());
        let back = format.undump(dump).unwrap().write().unwrap();
        assert!(back == data, "{name}: dump -> pack differs");
    }
}

#[test]
fn switch_dictionaries_rebuild_from_their_names() {
    use animkit::formats::bfres::dict::{build_by, Rule};
    let mut checked = 0;
    for (name, data) in switch_files() {
        // The header's dictionaries: models, the five animation kinds, embedded files.
        for field in [0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0xA0] {
            let at = le(&data, field, 8) as usize;
            if at == 0 {
                continue;
            }
            let (nodes, names) = switch_write::read_dict(&data, at).unwrap();
            let keys: Vec<&[u8]> = names.iter().map(|s| s.as_bytes()).collect();
            assert_eq!(build_by(Rule::Switch, &keys).unwrap(), nodes, "{name}: dictionary at {at:#x}");
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
/// value's size where it exceeds 1 (the model writer's curve encoding keeps about four
/// significant digits: Super Mario Odyssey moves a root bone to z = -100 023).
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
