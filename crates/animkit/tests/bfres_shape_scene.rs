//! Shape and scene animations, which the model does not carry, are named with their counts in
//! `info`'s notes and in what a conversion says it leaves behind (`Document::not_in_model`).
//!
//! No corpus file holds one, so the files are made here: a Wii U file written by animkit with
//! three FVIS whose index groups the header is then pointed at as the FSHA (9) and FSCN (10)
//! groups (a group is a named dict whatever its subfiles; header `0x20 + 4g` holds group `g`'s
//! self-relative offset, `0x50 + 2g` its count, spec §2.1); and Super Mario Odyssey's cap file
//! whose shape-animation (array, dict) pair and count are set to its bone-visibility ones (so its
//! 21 FBVS names, read by hand here, are what must be listed).

mod common;

use animkit::formats::bfres::build::{write_file, Subfile};
use animkit::formats::bfres::fvis::Fvis;
use animkit::{Bytes, ReadOptions};

fn fvis(name: &str, flags: u16) -> Fvis {
    Fvis {
        at: 0,
        name: name.into(),
        flags,
        frame_count: 10,
        baked_size: 0,
        names: vec!["Arm".into()],
        curves: Vec::new(),
        base: vec![1],
    }
}

/// Moves index group `from` (offset and count) to `to` in a Wii U header.
fn move_group(data: &mut [u8], from: usize, to: usize) {
    let field = |g: usize| 0x20 + 4 * g;
    let v = i32::from_be_bytes(data[field(from)..field(from) + 4].try_into().unwrap());
    let moved = v + 4 * (from as i32 - to as i32);
    data[field(to)..field(to) + 4].copy_from_slice(&moved.to_be_bytes());
    data[field(from)..field(from) + 4].copy_from_slice(&0i32.to_be_bytes());
    let count = 0x50;
    data.copy_within(count + 2 * from..count + 2 * from + 2, count + 2 * to);
    data[count + 2 * from..count + 2 * from + 2].copy_from_slice(&[0, 0]);
}

#[test]
fn wiiu_shape_and_scene_animations_are_named() {
    let (squash, stretch, camera) = (fvis("Squash", 0), fvis("Stretch", 0), fvis("CameraPan", 0x100));
    let mut data =
        write_file("Shapes", 0x0304_0000, &[Subfile::Fvis(&squash), Subfile::Fvis(&stretch), Subfile::Fvis(&camera)])
            .unwrap();
    move_group(&mut data, 7, 9);
    move_group(&mut data, 8, 10);
    let doc = animkit::read(Bytes::from(data), None, &ReadOptions::default()).unwrap();
    let lines = doc.not_in_model();
    assert!(lines.contains(&"2 shape animations not carried into the model: Squash, Stretch".to_string()), "{lines:?}");
    assert!(lines.contains(&"1 scene animation not carried into the model: CameraPan".to_string()), "{lines:?}");
    assert!(doc.notes().iter().any(|n| n.starts_with("2 shape animations")));
    // Nothing else is read from them: the model has no clip.
    assert!(doc.to_model().unwrap().clips.is_empty());
}

#[test]
fn switch_shape_animations_are_named_from_their_dict() {
    let Some(dir) = common::corpus_dir("nintendo") else { return };
    let szs = animkit::open(dir.join("smo_mariocap_bonevis.szs")).unwrap();
    let sarc = animkit::read(szs.entries().unwrap().remove(0).data, None, &ReadOptions::default()).unwrap();
    let mut data = sarc.entries().unwrap().into_iter().find(|e| e.name.ends_with(".bfres")).unwrap().data.to_vec();
    // Version 0.8: bone visibility (array, dict) at 0x58, shape at 0x68; counts u16 at 0xC2, 0xC4.
    let u64_at = |d: &[u8], at: usize| u64::from_le_bytes(d[at..at + 8].try_into().unwrap()) as usize;
    let array = u64_at(&data, 0x58);
    let names: Vec<String> = (0..21)
        .map(|i| {
            let s = u64_at(&data, array + 0x68 * i + 0x10);
            let len = usize::from(u16::from_le_bytes(data[s..s + 2].try_into().unwrap()));
            String::from_utf8(data[s + 2..s + 2 + len].to_vec()).unwrap()
        })
        .collect();
    assert_eq!(data[0xC2..0xC4], [21, 0]);
    data.copy_within(0x58..0x68, 0x68);
    data.copy_within(0xC2..0xC4, 0xC4);
    let doc = animkit::read(Bytes::from(data), None, &ReadOptions::default()).unwrap();
    let expected = format!("21 shape animations not carried into the model: {} and 13 more", names[..8].join(", "));
    assert_eq!(doc.not_in_model(), vec![expected]);
}
