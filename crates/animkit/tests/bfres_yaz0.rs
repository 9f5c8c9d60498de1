//! Yaz0 against the corpus: the retail `.sbfres` decodes to the retail `.bfres` exactly.

mod common;

use animkit::containers::yaz0;
use animkit::format::Limits;

#[test]
fn sbfres_decodes_to_the_bfres_and_reencodes() {
    let (Some(s), Some(b)) = (
        common::corpus_file("bfres", "Animal_Bass_Animation.sbfres"),
        common::corpus_file("bfres", "Animal_Bass_Animation.bfres"),
    ) else {
        return;
    };
    assert_eq!(s.len(), 20_361);
    let h = yaz0::header(&s).unwrap();
    assert_eq!((h.decoded_size, h.alignment, h.reserved), (0x6694, 0, 0));
    let (dec, used) = yaz0::decode(&s, &Limits::default()).unwrap();
    assert_eq!(used, s.len(), "the stream consumes every input byte");
    assert_eq!(dec, b);
    let enc = yaz0::encode(&dec, 0);
    assert_eq!(yaz0::decode(&enc, &Limits::default()).unwrap().0, b);
    eprintln!("retail {} bytes, ours {} bytes", s.len(), enc.len());

    // Through the registry: the document writes back the original stream.
    let doc = animkit::read(animkit::Bytes::from(s.clone()), None, &Default::default()).unwrap();
    assert_eq!(doc.format().name(), "yaz0");
    assert_eq!(doc.write().unwrap(), s);
    let entries = doc.entries().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].data.as_ref(), b.as_slice());
    let mut dumped = animkit::dump(doc.as_ref()).unwrap();
    let packed = animkit::pack(dumped.clone()).unwrap();
    assert_eq!(packed.write().unwrap(), s);
    // The payload is the BFRES dump; editing it re-encodes the stream.
    assert_eq!(dumped["document"]["payload"]["format"], "bfres");
    dumped["document"]["payload"]["document"]["header"]["user_pointer"] = serde_json::json!(7);
    let edited = animkit::pack(dumped).unwrap();
    let bytes = edited.write().unwrap();
    assert_ne!(bytes, s);
    let (dec, _) = yaz0::decode(&bytes, &Limits::default()).unwrap();
    assert_eq!(&dec[..0x68], &b[..0x68]);
    assert_eq!(&dec[0x68..0x6C], &[0, 0, 0, 7]);
    assert_eq!(&dec[0x6C..], &b[0x6C..]);

    // Truncation never panics.
    for cut in (0..s.len()).step_by(97) {
        assert!(yaz0::decode(&s[..cut], &Limits::default()).is_err());
    }
}

#[test]
fn szs_of_a_sarc_of_the_corpus_reads_through_the_registry() {
    use animkit::containers::sarc;
    let (Some(a), Some(b)) = (
        common::corpus_file("bfres", "Animal_Bass_Animation.bfres"),
        common::corpus_file("bfres", "Animal_Bass.bfres"),
    ) else {
        return;
    };
    let members =
        vec![("Animal_Bass_Animation.bfres".to_string(), a.clone()), ("Animal_Bass.bfres".to_string(), b.clone())];
    let archive = sarc::write(&sarc::build(&members, animkit::bytes::Endian::Big).unwrap());
    let szs = yaz0::encode(&archive, 0);
    let doc = animkit::read(animkit::Bytes::from(szs.clone()), None, &Default::default()).unwrap();
    assert_eq!(doc.format().name(), "yaz0");
    assert_eq!(doc.write().unwrap(), szs);
    let inner = animkit::read(doc.entries().unwrap()[0].data.clone(), None, &Default::default()).unwrap();
    assert_eq!(inner.format().name(), "sarc");
    assert_eq!(inner.write().unwrap(), archive);
    assert!(inner.lint().is_empty());
    let entries = inner.entries().unwrap();
    assert_eq!(entries.len(), 2);
    for e in &entries {
        let want = if e.name == "Animal_Bass.bfres" { &b } else { &a };
        assert_eq!(e.data.as_ref(), want.as_slice());
    }
    let packed = animkit::pack(animkit::dump(inner.as_ref()).unwrap()).unwrap();
    assert_eq!(packed.write().unwrap(), archive);
    // Both members' clips, through Yaz0 → SARC → BFRES.
    let p = doc.to_model().unwrap();
    assert_eq!(p.clips.len(), 8);
    assert!(p.skeleton.is_some());
}
