//! An IFP package as an archive of animations (`extract` / `replace`), through the public API:
//! entry names, one-animation entries with a canonical size field, and replacements that keep
//! the slot's name and the size field's convention. Files are written by our own `from_model`.

use animkit::format::Format;
use animkit::formats::ifp::Ifp;
use animkit::model::{BoneRef, Clip, Interpolation, Package, Target, Track, Values};
use animkit::{Bytes, Document, ReadOptions, WriteOptions};
use glam::Quat;

/// A package of one-bone clips with these names, written as ANPK or ANP3 by our own builder.
fn package(names: &[&str], anpk: bool) -> Vec<u8> {
    let clip = |(i, name): (usize, &&str)| Clip {
        name: name.to_string(),
        duration: 1.0,
        tracks: vec![Track {
            target: Target::Bone(BoneRef { name: Some("Root".into()), id: Some(0), ..Default::default() }),
            interpolation: Interpolation::Slerp,
            times: (0..=i).map(|k| k as f32 / 30.0).collect(),
            values: Values::Rotation(vec![Quat::from_rotation_z(0.1); i + 1]),
        }],
        ..Default::default()
    };
    let package =
        Package { name: "test".into(), clips: names.iter().enumerate().map(clip).collect(), ..Default::default() };
    let options =
        WriteOptions::default().with_variant(if anpk { "anpk" } else { "anp3" }).with_param("overflow", "error");
    Ifp.from_model(&package, &options).unwrap().document.write().unwrap()
}

fn open(bytes: &[u8]) -> Box<dyn Document> {
    Ifp.read(Bytes::copy_from_slice(bytes), &ReadOptions::default()).unwrap()
}

fn names(bytes: &[u8]) -> Vec<String> {
    open(bytes).entries().unwrap().into_iter().map(|e| e.name).collect()
}

/// Entry `index`'s bytes.
fn single(bytes: &[u8], index: usize) -> Option<Vec<u8>> {
    open(bytes).entries().unwrap().into_iter().nth(index).map(|e| e.data.to_vec())
}

/// The header's size field (bytes 4–7, little-endian, in every version).
fn size_field(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes[4..8].try_into().unwrap())
}

fn set_size(bytes: &mut [u8], size: u32) {
    bytes[4..8].copy_from_slice(&size.to_le_bytes());
}

fn replace(bytes: &[u8], name: &str, new: &[u8]) -> animkit::Result<Vec<u8>> {
    open(bytes).with_entry(name, Bytes::copy_from_slice(new))?.write()
}

#[test]
fn entry_names_are_safe_and_unique() {
    let file = package(&["walk", "a/b", "WALK", ""], false);
    assert_eq!(names(&file), ["walk.ifp", "a_b.ifp", "WALK_2.ifp", "animation_3.ifp"]);
}

#[test]
fn an_entry_is_its_animation_alone_with_a_canonical_size() {
    for anpk in [false, true] {
        let mut file = package(&["idle", "walk", "run"], anpk);
        set_size(&mut file, 12_345);
        let one = single(&file, 1).unwrap();
        assert_eq!(open(&one).to_model().unwrap().clips.len(), 1);
        assert_eq!(size_field(&one) as usize, one.len() - 8, "anpk {anpk}");
        assert_eq!(names(&one), ["walk.ifp"]);
        assert!(single(&file, 3).is_none());
    }
}

#[test]
fn a_replaced_animation_keeps_the_size_field_convention() {
    for anpk in [false, true] {
        let file = package(&["idle", "walk", "run"], anpk);
        let content = size_field(&file);
        assert_eq!(content as usize, file.len() - 8, "the builder writes the canonical size");
        let other = package(&["sprint_longer_name"], anpk);
        let out = replace(&file, "walk.ifp", &other).unwrap();
        let entry_len = |f: &[u8]| single(f, 1).unwrap().len() as i64;
        let grow = entry_len(&out) - entry_len(&file);
        assert_ne!(grow, 0);
        assert_eq!(i64::from(size_field(&out)), i64::from(content) + grow, "canonical stays canonical");
        assert_eq!(names(&out), ["idle.ifp", "walk.ifp", "run.ifp"], "the slot keeps its name");
        // A size that counted 2048 bytes of IMG padding keeps counting them.
        let mut padded = file.clone();
        set_size(&mut padded, content + 2048);
        let out = replace(&padded, "walk.ifp", &other).unwrap();
        assert_eq!(i64::from(size_field(&out)), i64::from(content) + grow + 2048);
        // The entry taken out and put back gives the file back.
        assert_eq!(replace(&padded, "run.ifp", &single(&padded, 2).unwrap()).unwrap(), padded);
    }
}

#[test]
fn a_replacement_is_one_animation_of_the_same_version() {
    let file = package(&["idle", "walk"], false);
    let e = replace(&file, "idle.ifp", &package(&["idle"], true)).unwrap_err();
    assert!(e.to_string().contains("--to anp3"), "{e}");
    let e = replace(&file, "idle.ifp", &package(&["a", "b"], false)).unwrap_err();
    assert!(e.to_string().contains("2 animations"), "{e}");
    assert!(replace(&file, "absent.ifp", &package(&["a"], false)).is_err());
}
