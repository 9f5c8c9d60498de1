//! Yaz0 against the corpus: the retail `.sbfres` decodes to the retail `.bfres` exactly.

mod common;

use animkit::containers::yaz0;
use animkit::formats::Limits;

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
    let packed = animkit::pack(animkit::dump(doc.as_ref()).unwrap()).unwrap();
    assert_eq!(packed.write().unwrap(), s);

    // Truncation never panics.
    for cut in (0..s.len()).step_by(97) {
        assert!(yaz0::decode(&s[..cut], &Limits::default()).is_err());
    }
}
