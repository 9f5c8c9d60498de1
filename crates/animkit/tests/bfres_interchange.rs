//! Issue 6: the FTXP frame → texture table in `info` notes, and texture patterns written as CSV
//! (`csv`, write-only) and as the model's JSON (`model-json`, read back losslessly).
//! Expected values: `bfres.md` §3.4 (`Bass_Color`: frames 0, 1, 2 select `Bass_Alb.0`, `.1`, `.2`).

mod common;

use animkit::{Bytes, ReadOptions, WriteOptions};

fn bass() -> Option<Box<dyn animkit::Document>> {
    let data = common::corpus_file("bfres", "Animal_Bass.bfres")?;
    Some(animkit::read(Bytes::from(data), None, &ReadOptions::default()).unwrap())
}

#[test]
fn info_notes_show_the_frame_to_texture_table() {
    let Some(doc) = bass() else { return };
    let notes = doc.notes();
    let line = notes.iter().find(|n| n.contains("Bass_Color")).unwrap_or_else(|| panic!("{notes:?}"));
    assert!(line.contains("Mt_Body._a0"), "{line}");
    assert!(line.ends_with("frame → texture: 0 Bass_Alb.0, 1 Bass_Alb.1, 2 Bass_Alb.2"), "{line}");
}

#[test]
fn bass_color_as_csv() {
    let Some(doc) = bass() else { return };
    let (csv, variant) = animkit::REGISTRY.by_extension("csv").unwrap();
    assert_eq!((csv.name(), variant), ("csv", None));
    assert!(!csv.capabilities().read && csv.capabilities().from_model);
    let written = csv.from_model(&doc.to_model().unwrap(), &WriteOptions::default()).unwrap();
    let text = String::from_utf8(written.document.write().unwrap()).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(text.lines().next(), Some("clip,material,sampler,frame,time,texture_index,texture"));
    assert_eq!(rows.len(), 3, "{text}");
    for (f, row) in rows.iter().enumerate() {
        assert_eq!(row[..4], ["Bass_Color", "Mt_Body", "_a0", &f.to_string()][..], "{text}");
        assert_eq!(row[5], f.to_string());
        assert_eq!(row[6], format!("Bass_Alb.{f}"));
    }
    assert!(csv.read(Bytes::from(text.into_bytes()), &ReadOptions::default()).is_err());
}

#[test]
fn every_bfres_model_round_trips_through_model_json() {
    let files = common::corpus_files("bfres");
    let (json, _) = animkit::REGISTRY.by_extension("json").unwrap();
    assert_eq!(json.name(), "model-json");
    let mut clips = 0;
    for (name, data) in &files {
        let doc = animkit::read(Bytes::from(data.clone()), None, &ReadOptions::default()).unwrap();
        let package = doc.to_model().unwrap();
        let bytes = json.from_model(&package, &WriteOptions::default()).unwrap().document.write().unwrap();
        // Found by probing, as `convert bass.json -o …` does.
        let back = animkit::read(Bytes::from(bytes.clone()), None, &ReadOptions::default()).unwrap();
        assert_eq!(back.format().name(), "model-json", "{name}");
        assert_eq!(back.to_model().unwrap(), package, "{name}: model → JSON → model is exact");
        assert_eq!(back.write().unwrap(), bytes);
        let packed = animkit::pack(animkit::dump(back.as_ref()).unwrap()).unwrap();
        assert_eq!(packed.to_model().unwrap(), package, "{name}: dump → pack");
        clips += package.clips.len();
    }
    if !files.is_empty() {
        eprintln!("{} files, {clips} clips: model → JSON → model exact", files.len());
    }
}

/// The texture pattern goes back into a BFRES from the JSON and evaluates as before.
#[test]
fn model_json_texture_pattern_writes_back_as_bfres() {
    let Some(doc) = bass() else { return };
    let package = doc.to_model().unwrap();
    let (json, _) = animkit::REGISTRY.by_extension("json").unwrap();
    let bytes = json.from_model(&package, &WriteOptions::default()).unwrap().document.write().unwrap();
    let from_json = json.read(Bytes::from(bytes), &ReadOptions::default()).unwrap().to_model().unwrap();
    let bfres = animkit::REGISTRY.by_name("bfres").unwrap().0;
    let written = bfres.from_model(&from_json, &WriteOptions::default()).unwrap();
    let again = bfres.read(Bytes::from(written.document.write().unwrap()), &ReadOptions::default()).unwrap();
    let notes = again.notes();
    assert!(
        notes.iter().any(|n| n.ends_with("frame → texture: 0 Bass_Alb.0, 1 Bass_Alb.1, 2 Bass_Alb.2")),
        "{notes:?}"
    );
}
