//! The Zstandard container: a SARC compressed here (extract, replace, dump → pack), and Tears of
//! the Kingdom's `Armor_006_Upper.pack.zs` from the corpus, whose frame names dictionary 3
//! (`pack.zsdic`, from the game's `Pack/ZsDic.pack.zs`).
//!
//! The corpus holds the pack but not the dictionary: without it the file must fail naming the
//! dictionary; with it (`$ANIMKIT_ZSTD_DICT`, or `pack.zsdic` beside the pack) it must decode to
//! what the reference `zstd` 1.5.4 decodes (`zstd -d -D pack.zsdic`: 77,172 bytes, CRC-32
//! 0x36540722, a SARC of 19 members).

mod common;

use std::path::PathBuf;

use animkit::bytes::Endian;
use animkit::containers::{sarc, zstd};
use animkit::{Bytes, ErrorKind, ReadOptions};

fn generated_pack() -> Vec<u8> {
    let members = vec![
        ("Actor/a.bgyml".to_string(), b"first member ".repeat(40)),
        ("Phive/b.bin".to_string(), (0..=255u8).collect::<Vec<u8>>()),
    ];
    sarc::write(&sarc::build(&members, Endian::Little).unwrap())
}

#[test]
fn a_compressed_sarc_extracts_replaces_and_round_trips() {
    let payload = generated_pack();
    let stream = zstd::encode(&payload);
    assert!(stream.len() < payload.len());
    let doc = animkit::read(Bytes::from(stream.clone()), None, &ReadOptions::default()).unwrap();
    assert_eq!(doc.format().name(), "zstd");
    assert_eq!(doc.write().unwrap(), stream, "an unchanged file writes back byte for byte");
    let entries = doc.entries().unwrap();
    let data = |entries: &[animkit::format::Entry], name: &str| {
        entries.iter().find(|e| e.name == name).map(|e| e.data.to_vec()).unwrap()
    };
    assert_eq!(entries.len(), 2);
    assert_eq!(data(&entries, "Phive/b.bin"), (0..=255u8).collect::<Vec<u8>>());
    assert_eq!(data(&entries, "Actor/a.bgyml"), b"first member ".repeat(40));

    // Replace one member: the file is compressed afresh and reads back with exactly that change.
    let replaced = doc.with_entry("Actor/a.bgyml", Bytes::from_static(b"edited")).unwrap().write().unwrap();
    let back = animkit::read(Bytes::from(replaced), None, &ReadOptions::default()).unwrap();
    let entries = back.entries().unwrap();
    assert_eq!(data(&entries, "Actor/a.bgyml"), b"edited");
    assert_eq!(data(&entries, "Phive/b.bin"), (0..=255u8).collect::<Vec<u8>>());

    // dump → pack: byte-exact unchanged; an edited SARC member in the structured dump repacks.
    let dump = animkit::dump(doc.as_ref()).unwrap();
    assert_eq!(dump["document"]["payload"]["format"], "sarc", "the payload SARC is dumped structured");
    assert_eq!(animkit::pack(dump.clone()).unwrap().write().unwrap(), stream);
    let mut edited = dump;
    edited["document"]["stream"] = serde_json::Value::String(String::new());
    let repacked = animkit::pack(edited).unwrap().write().unwrap();
    let decoded = zstd::decode(&repacked, &Default::default()).unwrap();
    assert_eq!(decoded.payload, payload, "a dump without its stream packs by compressing the payload");
}

fn totk_pack() -> Option<(PathBuf, Vec<u8>)> {
    let path = common::corpus_dir("nintendo")?.join("totk_armor_pack_zstd.pack.zs");
    let bytes = std::fs::read(&path).unwrap();
    Some((path, bytes))
}

#[test]
fn the_totk_pack_names_its_dictionary_when_it_is_missing() {
    let Some((_, bytes)) = totk_pack() else { return };
    // RFC 8878 §3.1.1.1: descriptor byte 4 = 0x01 (Dictionary_ID_flag 1: a 1-byte id; not single
    // segment, so a window byte follows at 5); the dictionary id is byte 6.
    assert_eq!(u32::from_le_bytes(bytes[..4].try_into().unwrap()), zstd::FRAME_MAGIC);
    assert_eq!(bytes[4] & 3, 1);
    assert_eq!(bytes[4] & 0x20, 0);
    let wanted = bytes[6];
    assert_eq!(wanted, 3);
    let e = animkit::read(Bytes::from(bytes), None, &ReadOptions::default()).err().unwrap();
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert!(e.message.contains(&format!("dictionary {wanted} ")), "{e}");
    assert!(e.message.contains("--opt zstd_dict="), "{e}");
}

#[test]
fn the_totk_pack_decodes_with_its_dictionary() {
    let Some((path, bytes)) = totk_pack() else { return };
    let dict =
        std::env::var_os("ANIMKIT_ZSTD_DICT").map(PathBuf::from).unwrap_or_else(|| path.with_file_name("pack.zsdic"));
    if !dict.exists() {
        eprintln!("SKIPPED: {} not found (set ANIMKIT_ZSTD_DICT to Tears of the Kingdom's pack.zsdic)", dict.display());
        return;
    }
    let mut options = ReadOptions::default();
    options.params.insert("zstd_dict".into(), dict.display().to_string());
    let doc = animkit::read(Bytes::from(bytes.clone()), Some(&path), &options).unwrap();
    let z = doc.downcast_ref::<zstd::ZstdDocument>().unwrap();
    assert_eq!(z.payload.len(), 77_172);
    assert_eq!(crc32fast::hash(&z.payload), 0x3654_0722);
    assert_eq!(doc.write().unwrap(), bytes);
    let entries = doc.entries().unwrap();
    assert_eq!(entries.len(), 19);
    assert!(entries.iter().any(|e| e.name == "Actor/Armor_006_Upper.engine__actor__ActorParam.bgyml"));
    // Replaced through the container: compressed afresh (without a dictionary), it reads back
    // with the change and every other member as it was.
    let name = entries[0].name.clone();
    let new = doc.with_entry(&name, Bytes::from_static(b"changed")).unwrap().write().unwrap();
    let back = animkit::read(Bytes::from(new), None, &ReadOptions::default()).unwrap().entries().unwrap();
    assert_eq!(back.len(), 19);
    for (a, b) in entries.iter().zip(&back) {
        assert_eq!(a.name, b.name);
        if a.name == name {
            assert_eq!(b.data.as_ref(), b"changed");
        } else {
            assert_eq!(a.data, b.data, "{}", a.name);
        }
    }
}

/// A dictionary-shaped file: the magic `0xEC30A437` (RFC 8878 §5) and `id`, then filler.
fn dictionary_shaped(id: u32) -> Vec<u8> {
    [0xEC30_A437u32.to_le_bytes(), id.to_le_bytes()].concat().into_iter().chain([0u8; 8]).collect()
}

#[test]
fn the_dictionary_setting_is_loaded_before_the_reader_runs() {
    // A folder holding one dictionary file and a compressed SARC of another and a non-dictionary:
    // both dictionaries reach the reader, which then tries to parse them (they are only shaped
    // like dictionaries, so parsing the first fails and the error says so).
    let dir = std::env::temp_dir().join(format!("animkit-zstd-dict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.zsdic"), dictionary_shaped(7)).unwrap();
    let members = vec![("b.zsdic".to_string(), dictionary_shaped(9)), ("readme".to_string(), b"text".to_vec())];
    std::fs::write(
        dir.join("ZsDic.pack.zs"),
        zstd::encode(&sarc::write(&sarc::build(&members, Endian::Little).unwrap())),
    )
    .unwrap();
    let mut options = ReadOptions::default();
    options.params.insert("zstd_dict".into(), dir.display().to_string());
    let e = animkit::read(Bytes::from(zstd::encode(b"payload")), None, &options).err().unwrap();
    assert!(e.to_string().contains("dictionary 0:"), "the loaded dictionaries reach the reader: {e}");

    // A missing path is named, with the setting it came from.
    options.params.insert("zstd_dict".into(), dir.join("absent").display().to_string());
    let e = animkit::read(Bytes::from(zstd::encode(b"payload")), None, &options).err().unwrap();
    assert_eq!(e.kind, ErrorKind::Io);
    assert!(e.to_string().contains("--opt zstd_dict=") && e.to_string().contains("absent"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
