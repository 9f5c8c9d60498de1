//! Bone-visibility animations of Super Mario Odyssey's `MarioCapAnimation.bfres` (Switch 0.8.0.0,
//! in `smo_mariocap_bonevis.szs`): all 21 read, and every one's visible/hidden state at every
//! frame equal to what this test decodes by hand from the raw bytes.
//!
//! The hand decoder follows the layouts written down in `formats/bfres/anims.rs` and spec
//! §4 (curve flags: bits 0–1 frame type f32 / s16 in 1/32 frames / u8, bits 4–6 curve type, 6 =
//! step bool; bool keys one bit each, least significant first) and is independent of the
//! library's curve code: it finds the last key at or before the frame (the first key before it),
//! and takes an entry's base bit when it has no curve.

mod common;

use animkit::model::{Target, Values};
use animkit::sample::{sample_track, Sampled};
use animkit::{Bytes, ReadOptions};

fn u16_at(d: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(d[at..at + 2].try_into().unwrap())
}
fn u32_at(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap())
}
fn u64_at(d: &[u8], at: usize) -> usize {
    u64::from_le_bytes(d[at..at + 8].try_into().unwrap()) as usize
}
fn string(d: &[u8], at: usize) -> String {
    let len = usize::from(u16_at(d, at));
    String::from_utf8(d[at + 2..at + 2 + len].to_vec()).unwrap()
}

/// One animation as decoded by hand: name, frame count, and per entry (bone name, state at
/// every frame `0..=frame_count`).
struct HandDecoded {
    name: String,
    frame_count: usize,
    entries: Vec<(String, Vec<bool>)>,
}

/// The state of a step-bool curve at frame `f`: the key at or before it (the first before all).
fn curve_state(d: &[u8], curve: usize, f: f32) -> bool {
    let flags = u16_at(d, curve + 0x10);
    assert_eq!(flags >> 4 & 7, 6, "step bool");
    assert_eq!(flags & 0xFF00, 0, "clamped at both ends");
    let n = usize::from(u16_at(d, curve + 0x12));
    let (frames_at, keys_at) = (u64_at(d, curve), u64_at(d, curve + 8));
    let frame = |k: usize| match flags & 3 {
        0 => f32::from_bits(u32_at(d, frames_at + 4 * k)),
        1 => f32::from(u16_at(d, frames_at + 2 * k) as i16) / 32.0,
        _ => f32::from(d[frames_at + k]),
    };
    let key = (0..n).rev().find(|&k| frame(k) <= f).unwrap_or(0);
    u32_at(d, keys_at + 4 * (key / 32)) >> (key % 32) & 1 == 1
}

fn hand_decode(d: &[u8]) -> Vec<HandDecoded> {
    assert_eq!(&d[..8], b"FRES    ");
    assert_eq!(u32_at(d, 8), 0x0008_0000, "version 0.8.0.0");
    let (array, count) = (u64_at(d, 0x58), usize::from(u16_at(d, 0xC2)));
    (0..count)
        .map(|i| {
            let at = array + 0x68 * i;
            assert_eq!(&d[at..at + 4], b"FBVS");
            let frame_count = u32_at(d, at + 0x5C) as usize;
            let (anims, curves) = (usize::from(u16_at(d, at + 0x60)), usize::from(u16_at(d, at + 0x62)));
            let entries = (0..anims)
                .map(|e| {
                    let bone = string(d, u64_at(d, u64_at(d, at + 0x40) + 8 * e));
                    let curve =
                        (0..curves).map(|c| u64_at(d, at + 0x30) + 0x30 * c).find(|&c| u32_at(d, c + 0x14) == e as u32);
                    let states = (0..=frame_count)
                        .map(|f| match curve {
                            Some(c) => curve_state(d, c, f as f32),
                            None => d[u64_at(d, at + 0x38) + e / 8] >> (e % 8) & 1 == 1,
                        })
                        .collect();
                    (bone, states)
                })
                .collect();
            HandDecoded { name: string(d, u64_at(d, at + 0x10)), frame_count, entries }
        })
        .collect()
}

fn mario_cap_bfres() -> Option<Vec<u8>> {
    let path = common::corpus_dir("nintendo")?.join("smo_mariocap_bonevis.szs");
    let szs = animkit::read(Bytes::from(std::fs::read(path).unwrap()), None, &ReadOptions::default()).unwrap();
    let sarc = szs.entries().unwrap().remove(0).data;
    let sarc = animkit::read(sarc, None, &ReadOptions::default()).unwrap();
    let bfres = sarc.entries().unwrap().into_iter().find(|e| e.name == "MarioCapAnimation.bfres").unwrap();
    Some(bfres.data.to_vec())
}

#[test]
fn mario_cap_bone_visibility_matches_a_hand_decoding_at_every_frame() {
    let Some(data) = mario_cap_bfres() else { return };
    let expected = hand_decode(&data);
    assert_eq!(expected.len(), 21);
    let package = animkit::read(Bytes::from(data), None, &ReadOptions::default()).unwrap().to_model().unwrap();
    // The bone-visibility clips come after the FSKA and FMAA clips, in file order.
    let clips = &package.clips[package.clips.len() - 21..];
    let (mut frames, mut hidden, mut tracks) = (0, 0, 0);
    for (clip, want) in clips.iter().zip(&expected) {
        assert_eq!(clip.name, want.name);
        assert!((clip.duration - want.frame_count as f32 / 30.0).abs() < 1e-4, "{}", clip.name);
        assert_eq!(clip.tracks.len(), want.entries.len(), "{}", clip.name);
        for (track, (bone, states)) in clip.tracks.iter().zip(&want.entries) {
            tracks += 1;
            assert!(matches!(&track.target, Target::Bone(r) if r.name.as_deref() == Some(bone.as_str())));
            assert!(matches!(track.values, Values::Visibility(_)));
            for (f, &visible) in states.iter().enumerate() {
                let got = sample_track(track, f as f32 / 30.0);
                assert_eq!(got, Some(Sampled::Visibility(visible)), "{} {bone} frame {f}", clip.name);
                frames += 1;
                hidden += usize::from(!visible);
            }
        }
    }
    eprintln!("21 bone visibility animations, {tracks} tracks, {frames} frames compared, {hidden} hidden");
    assert_eq!(tracks, 18);
    assert!(hidden > 0 && hidden < frames, "both states occur");
}

/// The GLB's binary chunk.
fn glb_bin(glb: &[u8]) -> &[u8] {
    let json_len = u32_at(glb, 12) as usize;
    let bin_at = 20 + json_len;
    let bin_len = u32_at(glb, bin_at) as usize;
    &glb[bin_at + 8..bin_at + 8 + bin_len]
}

/// An accessor's bytes (tightly packed components of `size` bytes).
fn accessor<'a>(json: &serde_json::Value, bin: &'a [u8], index: &serde_json::Value, size: usize) -> &'a [u8] {
    let a = &json["accessors"][index.as_u64().unwrap() as usize];
    let view = &json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let at = (view["byteOffset"].as_u64().unwrap_or(0) + a["byteOffset"].as_u64().unwrap_or(0)) as usize;
    &bin[at..at + size * a["count"].as_u64().unwrap() as usize]
}

/// The GLB export plays each visibility track through `KHR_node_visibility` (a `STEP` channel
/// via `KHR_animation_pointer`) with the hand-decoded state at every frame, and the Khronos
/// validator reports no error or warning.
#[test]
fn mario_cap_bone_visibility_exports_to_gltf() {
    let Some(data) = mario_cap_bfres() else { return };
    let expected = hand_decode(&data);
    let package = animkit::read(Bytes::from(data), None, &ReadOptions::default()).unwrap().to_model().unwrap();
    let (glb, _) = common::gltf::export_glb(&package);
    let json = common::gltf::glb_json(&glb);
    let bin = glb_bin(&glb);
    assert_eq!(json["extensionsUsed"], serde_json::json!(["KHR_animation_pointer", "KHR_node_visibility"]));
    let mut checked = 0;
    for want in expected.iter().filter(|w| !w.entries.is_empty()) {
        // FSKA clips share these names: the visibility clip is the one with pointer channels.
        let pointers_of = |a: &'_ serde_json::Value| -> Vec<serde_json::Value> {
            a["channels"].as_array().unwrap().iter().filter(|c| c["target"]["path"] == "pointer").cloned().collect()
        };
        let anims = json["animations"].as_array().unwrap();
        let anim = anims.iter().find(|a| a["name"] == want.name.as_str() && !pointers_of(a).is_empty()).unwrap();
        let pointers = pointers_of(anim);
        assert_eq!(pointers.len(), want.entries.len(), "{}", want.name);
        for (ch, (bone, states)) in pointers.iter().zip(&want.entries) {
            let pointer = ch["target"]["extensions"]["KHR_animation_pointer"]["pointer"].as_str().unwrap();
            let node: usize = pointer.split('/').nth(2).unwrap().parse().unwrap();
            assert_eq!(json["nodes"][node]["name"], bone.as_str());
            assert_eq!(json["nodes"][node]["extensions"]["KHR_node_visibility"]["visible"], true);
            let sampler = &anim["samplers"][ch["sampler"].as_u64().unwrap() as usize];
            assert_eq!(sampler["interpolation"], "STEP");
            let times: Vec<f32> = accessor(&json, bin, &sampler["input"], 4)
                .chunks(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            let values = accessor(&json, bin, &sampler["output"], 1);
            for (f, &visible) in states.iter().enumerate() {
                let t = f as f32 / 30.0;
                let k = times.iter().rposition(|&k| k <= t + 1e-6).unwrap_or(0);
                assert_eq!(values[k] == 1, visible, "{} {bone} frame {f}", want.name);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 25_076);
    let Some(tools) = common::gltf::tools() else { return };
    let path = common::gltf::temp_dir("bonevis").join("mario_cap.glb");
    std::fs::write(&path, &glb).unwrap();
    common::gltf::validate_clean(&tools, &[path]);
}
