// Shared by every fuzz target (included with `include!`).

use animkit::{Bytes, Format, ReadOptions};

/// The CLI's defaults: the budget every input gets (20× its size decoded, at least 256 MiB, and
/// about a second of work per megabyte) is what keeps a case small and fast, so a slow or big
/// case is a finding.
fn options() -> ReadOptions {
    ReadOptions::default()
}

/// Reads `data` as `format`; on success runs every operation. Errors are fine; panics are not.
#[allow(dead_code)]
fn exercise(format: &'static dyn Format, data: &[u8]) {
    if let Ok(doc) = format.read(Bytes::copy_from_slice(data), &options()) {
        operate(format, doc.as_ref());
    }
}

/// Reads `data` as whatever format the probe finds, and runs every operation on it.
#[allow(dead_code)]
fn exercise_any(data: &[u8]) {
    if let Ok(doc) = animkit::read(Bytes::copy_from_slice(data), None, &options()) {
        operate(doc.format(), doc.as_ref());
    }
}

/// Runs every operation on a document; errors are fine, panics are not.
fn operate(format: &'static dyn Format, doc: &dyn animkit::Document) {
    let _ = doc.to_model();
    let _ = doc.lint();
    let _ = doc.write();
    let _ = doc.repair();
    let _ = doc.entries();
    if let Ok(value) = doc.dump() {
        let _ = format.undump(value);
    }
}

/// For any input that reads: write gives the input back, and reading that again gives a
/// document with the same dump.
#[allow(dead_code)]
fn round_trip(format: &'static dyn Format, data: &[u8]) {
    let Ok(doc) = format.read(Bytes::copy_from_slice(data), &options()) else { return };
    let Ok(written) = doc.write() else { return };
    assert!(written == data, "{}: write differs from the input that read", format.name());
    let again = format.read(Bytes::from(written), &options()).expect("the written bytes read again");
    if let (Ok(a), Ok(b)) = (doc.dump(), again.dump()) {
        assert_eq!(a, b, "{}: dump differs after write → read", format.name());
        // The dump packs back to the same bytes — except glTF, whose dump is the glTF JSON
        // alone (a GLB's chunk layout and buffer are not in it, by design), and model-JSON, whose
        // dump is the package without the file's whitespace: that one packs to a document that
        // dumps the same again.
        if format.name() == "gltf" {
            return;
        }
        if format.name() == "model-json" {
            if let Ok(packed) = format.undump(a.clone()) {
                let again = packed.dump().expect("a packed model-JSON document dumps");
                assert_eq!(again, a, "model-json: dump → pack → dump differs");
            }
            return;
        }
        if let Ok(packed) = format.undump(a) {
            if let Ok(bytes) = packed.write() {
                assert!(bytes == data, "{}: dump → pack does not write the input", format.name());
            }
        }
    }
}
