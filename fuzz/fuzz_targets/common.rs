// Shared by every fuzz target (included with `include!`), and compiled and run on our generated
// files by the main workspace's tests (`tests/robustness.rs`), so that a change to the public API
// cannot leave the targets unbuildable.

use animkit::bytes::Endian;
use animkit::containers::{sarc, yaz0};
use animkit::{Bytes, Format, ReadOptions};

/// Runs the fuzz target named `target` on `data`: `read_<format>` reads any input as that format
/// (no probing) and runs every operation on what reads; `roundtrip_<format>` checks that any input
/// that reads writes back to the same bytes; `read_nested` wraps the input in nested containers.
/// Format names are the registry's, with `_` for `-`.
#[allow(dead_code)]
fn run_target(target: &str, data: &[u8]) {
    let format = |name: &str| {
        let name = name.replace('_', "-");
        animkit::REGISTRY.by_name(&name).unwrap_or_else(|| panic!("no format named {name}")).0
    };
    if target == "read_nested" {
        nested(data);
    } else if let Some(name) = target.strip_prefix("read_") {
        exercise(format(name), data);
    } else if let Some(name) = target.strip_prefix("roundtrip_") {
        round_trip(format(name), data);
    } else {
        panic!("unknown fuzz target {target}");
    }
}

/// The CLI's defaults: the budget every input gets (20× its size decoded, at least 256 MiB, and
/// about a second of work per megabyte) is what keeps a case small and fast, so a slow or big
/// case is a finding.
fn options() -> ReadOptions {
    ReadOptions::default()
}

/// Reads `data` as `format`; on success runs every operation. Errors are fine; panics are not.
fn exercise(format: &'static dyn Format, data: &[u8]) {
    if let Ok(doc) = format.read(Bytes::copy_from_slice(data), &options()) {
        operate(format, doc.as_ref());
    }
}

/// Reads `data` as whatever format the probe finds, and runs every operation on it.
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

/// A SARC of `members`, with every node pointing at the first member's bytes when `alias`.
fn archive(members: &[(String, Vec<u8>)], alias: bool) -> Option<Vec<u8>> {
    let mut s = sarc::build(members, Endian::Big).ok()?;
    if alias {
        let first = *s.nodes.first()?;
        for n in &mut s.nodes {
            (n.begin, n.end) = (first.begin, first.end);
        }
    }
    Some(sarc::write(&s))
}

/// `payload` nested as `control` says (see [`nested`]).
fn nest(control: u8, payload: &[u8]) -> Option<Vec<u8>> {
    let members: Vec<(String, Vec<u8>)> = vec![
        ("a.bin".into(), payload.to_vec()),
        ("b.szs".into(), yaz0::encode(payload, 0)),
        ("c.szs".into(), yaz0::encode(payload, 0x80)),
    ];
    let mut file = archive(&members, control & 1 != 0)?;
    if control & 2 != 0 {
        file = archive(&[("inner.sarc".into(), file.clone()), ("copy.szs".into(), yaz0::encode(&file, 0))], false)?;
    }
    if control & 4 != 0 {
        file = yaz0::encode(&file, 0);
    }
    Some(file)
}

/// Builds nested containers around the input and reads them through the probe, so the budget
/// shared by nested Yaz0 and SARC layers (and by members that alias each other) is exercised.
///
/// The first byte chooses the layout, the rest is the payload: a SARC holding the payload and
/// its Yaz0 stream, with bit 0 pointing every member at the same bytes, bit 1 putting that
/// archive inside another, bit 2 compressing the whole with Yaz0. The raw input is read too.
fn nested(data: &[u8]) {
    exercise_any(data);
    if let Some((&control, payload)) = data.split_first() {
        if let Some(nested) = nest(control, payload) {
            exercise_any(&nested);
        }
    }
}
