//! Builds nested containers around the input and reads them through the probe, so the budget
//! shared by nested Yaz0 and SARC layers (and by members that alias each other) is exercised.
//!
//! The first byte chooses the layout, the rest is the payload: a SARC holding the payload and
//! its Yaz0 stream, with bit 0 pointing every member at the same bytes, bit 1 putting that
//! archive inside another, bit 2 compressing the whole with Yaz0. The raw input is read too.
#![no_main]

use animkit::bytes::Endian;
use animkit::containers::{sarc, yaz0};
use libfuzzer_sys::fuzz_target;

include!("common.rs");

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

fuzz_target!(|data: &[u8]| {
    exercise_any(data);
    if let Some((&control, payload)) = data.split_first() {
        if let Some(nested) = nest(control, payload) {
            exercise_any(&nested);
        }
    }
});
