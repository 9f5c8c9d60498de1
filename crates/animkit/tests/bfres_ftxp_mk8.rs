//! Mario Kart 8's `BodyB_Ysi` (Wii U 3.4.0.4, in `mk8_bodyb_ysi_3404_multimodel.szs`) holds the
//! corpus's only FTXP with two materials and TextureRefs that point at FTEX subfiles of the same
//! file. Its dump is structured (the materials, curves and base values as JSON), packs back byte
//! for byte, and an edit made in the JSON is what the packed file holds.
//!
//! Raw facts read by hand (spec §3, big-endian): the FTXP `Basic` has frameCount 3, textures
//! `BodyB_Ysi_Emm.0`…`.3`; material `m_Body` sampler `_e0` keys frames 0–3 to textures 0–3;
//! material `m_Light` sampler `_e0` has no curve and base value 3.

mod common;

use animkit::model::Values;
use animkit::{Bytes, ReadOptions};
use serde_json::Value;

fn ftxp_part(dump: &mut Value) -> &mut Value {
    let parts = dump.pointer_mut("/document/payload/document/parts").unwrap().as_array_mut().unwrap();
    parts.iter_mut().find_map(|p| p.get_mut("ftxp")).expect("the FTXP is dumped structured")
}

/// The texture `m_Light._e0` shows at time 0 in the clip `Basic`.
fn light_texture(package: &animkit::model::Package) -> String {
    let clip = package.clips.iter().find(|c| c.name == "Basic").unwrap();
    let track = clip.tracks.iter().find(|t| t.target.label().starts_with("m_Light")).unwrap();
    let Values::TextureIndex { indices, textures } = &track.values else { panic!("{:?}", track.values) };
    textures[indices[0] as usize].clone()
}

#[test]
fn the_mk8_texture_pattern_dumps_structured_and_edits_through_json() {
    let Some(dir) = common::corpus_dir("nintendo") else { return };
    let input = std::fs::read(dir.join("mk8_bodyb_ysi_3404_multimodel.szs")).unwrap();
    let doc = animkit::read(Bytes::from(input.clone()), None, &ReadOptions::default()).unwrap();
    let mut dump = animkit::dump(doc.as_ref()).unwrap();
    assert_eq!(animkit::pack(dump.clone()).unwrap().write().unwrap(), input, "unchanged dump → pack is byte-exact");

    let ftxp = &mut ftxp_part(&mut dump)["ftxp"];
    assert_eq!(ftxp["name"], "Basic");
    assert_eq!(ftxp["frame_count"], 3);
    assert_eq!(ftxp["materials"][1]["name"], "m_Light");
    assert_eq!(ftxp["materials"][1]["base_values"], serde_json::json!([3]));
    assert_eq!(light_texture(&doc.to_model().unwrap()), "BodyB_Ysi_Emm.3");
    ftxp["materials"][1]["base_values"] = serde_json::json!([1]);
    // Pack (the Yaz0 stream no longer decodes to the payload, so it is compressed afresh).
    let edited = animkit::pack(dump).unwrap().write().unwrap();
    let back = animkit::read(Bytes::from(edited), None, &ReadOptions::default()).unwrap();
    assert_eq!(light_texture(&back.to_model().unwrap()), "BodyB_Ysi_Emm.1");
    // Exactly one byte of the BFRES differs: the low byte of m_Light's base value.
    let payload = |d: &dyn animkit::Document| d.entries().unwrap().remove(0).data;
    let (old, new) = (payload(doc.as_ref()), payload(back.as_ref()));
    assert_eq!(old.len(), new.len());
    let diffs: Vec<usize> = (0..old.len()).filter(|&i| old[i] != new[i]).collect();
    assert_eq!(diffs.len(), 1, "{diffs:?}");
    assert_eq!((old[diffs[0]], new[diffs[0]]), (3, 1));
}
