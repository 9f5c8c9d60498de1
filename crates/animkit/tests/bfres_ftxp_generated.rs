//! Generated FTXP files in both header layouts (v < 3.4.0.0 and v >= 3.4.0.0, spec §3.1): two
//! materials, four samplers (step-int curves and constant base values), four texture refs,
//! looping. Each file is built by the library's writer, then must read, write back byte for
//! byte, dump/pack identically, and evaluate to the hand-derived frame → texture tables.

use animkit::formats::bfres::build::{write_file, Subfile};
use animkit::formats::bfres::curve::Curve;
use animkit::formats::bfres::ftxp::{Ftxp, MaterialPattern, PatternInfo};
use animkit::model::Values;
use animkit::sample::{sample_track, Sampled};
use animkit::{Bytes, ReadOptions};

const TEXTURES: [&str; 4] = ["Tex_A", "Tex_B", "Tex_C", "Tex_D"];
const FRAME_COUNT: i32 = 8;

/// A step-int curve with u8 frames and s8 keys (flags 0x4A, like the retail FTXP curve, §3.4):
/// keys are `value - offset` with `offset = (min+max)/2` (§5.7).
fn step_int(frames: &[u8], values: &[i32], v34: bool) -> Curve {
    let (min, max) = (*values.iter().min().unwrap(), *values.iter().max().unwrap());
    let offset = (min + max) / 2;
    Curve {
        at: 0,
        flags: 0x004A,
        key_count: frames.len() as u16,
        target: 0,
        start: f32::from(frames[0]),
        end: f32::from(*frames.last().unwrap()),
        scale_bits: 0,
        offset_bits: offset as u32,
        delta: v34.then(|| (values.last().unwrap() - values[0]) as f32),
        frames: frames.iter().map(|&f| f32::from(f)).collect(),
        keys: values.iter().map(|&v| f64::from(v - offset)).collect(),
    }
}

fn info(curve_index: i8, sampler: &str) -> PatternInfo {
    PatternInfo { curve_index, sub_bind_index: -1, sampler: sampler.to_string() }
}

fn anim(version: u32) -> Ftxp {
    let v34 = version >= 0x0304_0000;
    // Mt_Body _a0: frames 0, 3, 6 → textures 0, 1, 2 (offset 1, keys -1 0 1).
    let body = step_int(&[0, 3, 6], &[0, 1, 2], v34);
    // Mt_Eye _a0: frames 0, 2, 5, 7 → textures 3, 1, 3, 1 (offset 2, keys 1 -1 1 -1).
    let eye = step_int(&[0, 2, 5, 7], &[3, 1, 3, 1], v34);
    Ftxp {
        at: 0,
        name: "Gen_Pattern".into(),
        flags: 4, // loop
        frame_count: FRAME_COUNT,
        // Step int: n + 8 per curve with n = end - start + 1 (§8): 7 + 8 and 8 + 8.
        baked_size: 15 + 16,
        textures: TEXTURES.iter().map(|s| s.to_string()).collect(),
        texture_ftex: Vec::new(),
        materials: vec![
            MaterialPattern {
                name: "Mt_Body".into(),
                begin_curve: 0,
                begin_pat_anim: 0,
                infos: vec![info(0, "_a0"), info(-1, "_a1")],
                curves: vec![body],
                base_values: vec![0, 2], // curve's first value; constant Tex_C
            },
            MaterialPattern {
                name: "Mt_Eye".into(),
                begin_curve: 1,
                begin_pat_anim: 2,
                infos: vec![info(0, "_a0"), info(-1, "_s0")],
                curves: vec![eye],
                base_values: vec![3, 1], // curve's first value; constant Tex_B
            },
        ],
    }
}

/// (track label, texture name at frames 0..=8 with the loop applied: frame 8 = frame 0),
/// derived by hand from the keys above (§6: each texture holds until the next key).
const EXPECTED: [(&str, [&str; 9]); 4] = [
    ("Mt_Body._a0", ["Tex_A", "Tex_A", "Tex_A", "Tex_B", "Tex_B", "Tex_B", "Tex_C", "Tex_C", "Tex_A"]),
    ("Mt_Body._a1", ["Tex_C", "Tex_C", "Tex_C", "Tex_C", "Tex_C", "Tex_C", "Tex_C", "Tex_C", "Tex_C"]),
    ("Mt_Eye._a0", ["Tex_D", "Tex_D", "Tex_B", "Tex_B", "Tex_B", "Tex_D", "Tex_D", "Tex_B", "Tex_D"]),
    ("Mt_Eye._s0", ["Tex_B", "Tex_B", "Tex_B", "Tex_B", "Tex_B", "Tex_B", "Tex_B", "Tex_B", "Tex_B"]),
];

/// The `info` notes: runs over frames 0..frameCount-1 (a loop ends before frameCount).
const NOTES: [&str; 4] = [
    "FTXP \"Gen_Pattern\" Mt_Body._a0 (frameCount 8, looping): frame → texture: 0–2 Tex_A, 3–5 Tex_B, 6–7 Tex_C",
    "FTXP \"Gen_Pattern\" Mt_Body._a1 (frameCount 8, looping): frame → texture: 0–7 Tex_C",
    "FTXP \"Gen_Pattern\" Mt_Eye._a0 (frameCount 8, looping): frame → texture: 0–1 Tex_D, 2–4 Tex_B, 5–6 Tex_D, 7 Tex_B",
    "FTXP \"Gen_Pattern\" Mt_Eye._s0 (frameCount 8, looping): frame → texture: 0–7 Tex_B",
];

fn be32(d: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(d[at..at + 4].try_into().unwrap())
}

/// The string pool (§2.3): sorted by bytes, empty string last, each distinct string once,
/// NUL and zero padding to 4, and the size field covering it to EOF.
fn check_pool(data: &[u8]) {
    let size = be32(data, 0x18) as usize;
    let at = (0x1C + be32(data, 0x1C) as i32) as usize;
    assert_eq!(at + size, data.len(), "the pool ends at EOF");
    assert_eq!(at % 4, 0);
    let mut p = at;
    let mut strings: Vec<&[u8]> = Vec::new();
    while p < at + size {
        let len = be32(data, p) as usize;
        strings.push(&data[p + 4..p + 4 + len]);
        let end = (p + 4 + len + 1 + 3) & !3;
        assert!(data[p + 4 + len..end].iter().all(|&b| b == 0), "NUL and zero padding");
        p = end;
    }
    assert_eq!(strings.last().unwrap(), b"", "the empty string comes last");
    let named = &strings[..strings.len() - 1];
    assert!(named.windows(2).all(|w| w[0] < w[1]), "sorted and distinct: {strings:?}");
    for s in ["Gen", "Gen_Pattern", "Mt_Body", "Mt_Eye", "_a0", "_a1", "_s0", "Tex_A", "Tex_B", "Tex_C", "Tex_D"] {
        assert!(named.contains(&s.as_bytes()), "{s} in the pool");
    }
}

fn check(version: u32) {
    let a = anim(version);
    let bytes = write_file("Gen", version, &[Subfile::Ftxp(&a)]).unwrap();
    assert_eq!(be32(&bytes, 4), version);
    assert_eq!(be32(&bytes, 0x0C) as usize, bytes.len());
    assert_eq!(bytes.len() % 4, 0);
    check_pool(&bytes);

    // The FTXP header layout (§3.1) and the structures it points at.
    use animkit::formats::bfres::{dict, fres, ftxp};
    let file = fres::read(&bytes).unwrap();
    let entries = fres::entries(&bytes, &file.header, fres::G_FTXP).unwrap();
    assert_eq!(entries.len(), 1);
    let at = entries[0].1;
    assert_eq!(&bytes[at..at + 4], b"FTXP");
    let u16_at = |o: usize| u16::from_be_bytes([bytes[at + o], bytes[at + o + 1]]);
    assert_eq!(u16_at(0x0C), 4, "loop flag");
    let refs_field = at + 0x30;
    let refs = (refs_field as i64 + i64::from(be32(&bytes, refs_field) as i32)) as usize;
    if version >= 0x0304_0000 {
        assert_eq!(u16_at(0x0E), 0);
        assert_eq!(be32(&bytes, at + 0x10), 8);
        assert_eq!((u16_at(0x14), u16_at(0x16)), (4, 2));
        assert_eq!((be32(&bytes, at + 0x18), be32(&bytes, at + 0x1C), be32(&bytes, at + 0x20)), (4, 2, 31));
        // TextureRef index group built by the trie rule (§2.2), after the curve data.
        assert_eq!(be32(&bytes, refs) as usize, 8 + 16 * 5);
        let trie = dict::build(&TEXTURES.iter().map(|s| s.as_bytes()).collect::<Vec<_>>()).unwrap();
        for (k, (r, l, rt)) in trie.iter().enumerate() {
            let n = refs + 8 + 16 * k;
            assert_eq!(be32(&bytes, n), *r);
            assert_eq!(u16::from_be_bytes([bytes[n + 4], bytes[n + 5]]), *l);
            assert_eq!(u16::from_be_bytes([bytes[n + 6], bytes[n + 7]]), *rt);
        }
    } else {
        assert_eq!((u16_at(0x0E), u16_at(0x10), u16_at(0x12), u16_at(0x14), u16_at(0x16)), (8, 4, 2, 0, 4));
        assert_eq!((be32(&bytes, at + 0x18), be32(&bytes, at + 0x1C), be32(&bytes, at + 0x20)), (2, 31, 0));
        // A flat TextureRef array right after the MaterialPatternAnims; no index group.
        let mats = ((at + 0x2C) as i64 + i64::from(be32(&bytes, at + 0x2C) as i32)) as usize;
        assert_eq!(refs, mats + 2 * 0x1C);
    }
    // The subfile reads back as constructed, begin indices as §3.2 states.
    let parsed = ftxp::read(&bytes, at, animkit::formats::bfres::platform::Platform::WiiU { version }).unwrap();
    assert_eq!(parsed.textures, TEXTURES);
    assert_eq!(parsed.materials.len(), 2);
    assert!(parsed.looping());
    assert_eq!((parsed.materials[1].begin_curve, parsed.materials[1].begin_pat_anim), (1, 2));
    let mut expected = a.clone();
    let mut got = parsed.clone();
    got.at = 0;
    for m in &mut got.materials {
        for c in &mut m.curves {
            c.at = 0;
        }
    }
    expected.at = 0;
    assert_eq!(got, expected, "the FTXP reads back as constructed");

    // Reads through the library entry point, writes back byte for byte, dump → pack identical.
    let doc = animkit::read(Bytes::from(bytes.clone()), None, &ReadOptions::default()).unwrap();
    assert_eq!(doc.format().name(), "bfres");
    assert_eq!(doc.write().unwrap(), bytes, "write-back");
    let dumped = animkit::dump(doc.as_ref()).unwrap();
    let text = serde_json::to_string(&dumped).unwrap();
    assert!(text.contains("\"Gen_Pattern\""));
    let packed = animkit::pack(serde_json::from_str(&text).unwrap()).unwrap();
    assert_eq!(packed.write().unwrap(), bytes, "dump/pack");
    assert!(doc.lint().is_empty(), "{:?}", doc.lint());

    // Model: one TextureIndex track per (material, sampler), sampled at every integer frame.
    let model = doc.to_model().unwrap();
    let clip = model.clips.iter().find(|c| c.name == "Gen_Pattern").unwrap();
    assert_eq!(clip.looping, Some(true));
    assert!((clip.duration - 8.0 / 30.0).abs() < 1e-6);
    assert_eq!(clip.tracks.len(), EXPECTED.len());
    for (label, row) in EXPECTED {
        let track = clip.tracks.iter().find(|t| t.target.label() == label).unwrap_or_else(|| panic!("{label}"));
        let Values::TextureIndex { textures, .. } = &track.values else { panic!("{label} is not a texture index") };
        assert_eq!(&textures[..], &TEXTURES[..]);
        // Frames 0..=frameCount and two more loops: frame f shows frame f mod frameCount (§6).
        for f in 0..=3 * FRAME_COUNT {
            let wrapped = f % FRAME_COUNT;
            let Some(Sampled::TextureIndex(i)) = sample_track(track, wrapped as f32 / 30.0) else { panic!() };
            let want = if f <= FRAME_COUNT { row[f as usize] } else { row[wrapped as usize] };
            assert_eq!(textures[i as usize], want, "{label} frame {f} (v{version:08X})");
        }
    }

    // info's frame → texture table.
    let notes = doc.notes();
    for n in NOTES {
        assert!(notes.iter().any(|m| m == n), "missing note {n:?} in {notes:#?}");
    }
}

#[test]
fn generated_ftxp_before_3_4_round_trips_and_evaluates() {
    check(0x0303_0000);
}

#[test]
fn generated_ftxp_from_3_4_round_trips_and_evaluates() {
    check(0x0405_0003);
}
