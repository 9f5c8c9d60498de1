//! BFRES lint and repair through the public API: a generated file lints clean, and a corrupted
//! curve count and index-group trie are found; repair rebuilds the trie (the count is not fixable).

use animkit::formats::bfres::{fres, Bfres};
use animkit::model::{BoneRef, Clip, Interpolation, Package, Target, Track, Values};
use animkit::{Bytes, Format, ReadOptions};
use glam::Vec3;

fn codes(doc: &dyn animkit::Document) -> Vec<&'static str> {
    doc.lint().iter().map(|f| f.code).collect()
}

#[test]
fn finds_a_wrong_curve_count_and_trie() {
    let track = Track {
        target: Target::Bone(BoneRef::named("B")),
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0],
        values: Values::Translation(vec![Vec3::ZERO, Vec3::ONE]),
    };
    let clip = Clip { name: "A".into(), duration: 1.0, tracks: vec![track], ..Default::default() };
    let p = Package { clips: vec![clip], ..Default::default() };
    let written = Bfres.from_model(&p, &Default::default()).unwrap();
    assert!(written.document.lint().is_empty(), "{:?}", written.document.lint());
    let mut bytes = written.document.write().unwrap();
    let file = fres::read(&bytes).unwrap();
    let at = fres::entries(&bytes, &file.header, fres::G_FSKA).unwrap()[0].1;
    bytes[at + 0x1B] ^= 1;
    let group = file.header.group_at(fres::G_FSKA).unwrap();
    bytes[group + 8 + 16 + 3] ^= 1; // the entry node's ref
    let doc = Bfres.read(Bytes::from(bytes), &ReadOptions::default()).unwrap();
    let found = codes(doc.as_ref());
    assert!(found.contains(&"curve-count") && found.contains(&"dict-trie-mismatch"), "{found:?}");
    let fixed = doc.repair().unwrap();
    assert_eq!(fixed.changes.len(), 1, "{:?}", fixed.changes);
    assert_eq!(codes(fixed.document.as_ref()), ["curve-count"]);
}
