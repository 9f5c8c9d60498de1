//! The BFRES index-group trie and the platform helpers every subfile reader shares, through the
//! public API: the trie built from the names gives spec §2.2's test vectors, and `Platform`
//! reads records, subfile openings, offsets and names as spec §1 and §11 lay them out.

use animkit::bytes::Cursor;
use animkit::formats::bfres::dict::build;
use animkit::formats::bfres::platform::Platform;
use animkit::Error;

#[test]
fn spec_test_vectors() {
    // §2.2: texture refs Bass_Alb.0/.1/.2.
    let t = build(&[b"Bass_Alb.0", b"Bass_Alb.1", b"Bass_Alb.2"]).unwrap();
    assert_eq!(t[0].1, 1);
    assert_eq!(&t[1..], &[(0x4D, 0, 3), (0x48, 1, 2), (0x49, 2, 3)]);
    // §2.2: the FSKA group of Animal_Bass_Animation.bfres.
    let names: [&[u8]; 7] = [b"Dead", b"Jump", b"Move", b"Peck", b"Put_Down", b"Wait", b"Wait_Ground"];
    let t = build(&names).unwrap();
    assert_eq!(t[0].1, 7);
    assert_eq!(
        &t[1..],
        &[(0x1E, 0, 2), (0x1C, 4, 6), (0x18, 1, 3), (0x1B, 3, 4), (0x3E, 1, 5), (0x1A, 2, 6), (0x56, 5, 7)]
    );
}

const WIIU: Platform = Platform::WiiU { version: 0x0405_0003 };

#[test]
fn records_are_read_in_place_and_checked_first() {
    // Three 4-byte records (u16 value, u16 pad) at 8.
    let data = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0];
    let read = |c: &mut Cursor| c.u16();
    assert_eq!(WIIU.records(&data, (4, Some(8)), 3, 4, "value", read).unwrap(), [1, 2, 3]);
    assert_eq!(WIIU.records(&data, (4, None), 0, 4, "value", read).unwrap(), Vec::<u16>::new());
    let null = WIIU.records(&data, (4, None), 1, 4, "value", read).unwrap_err();
    assert_eq!((null.offset, null.message.as_str()), (Some(4), "null value array"));
    // A fourth record would run past the end: rejected before reading.
    assert!(WIIU.records(&data, (4, Some(8)), 4, 4, "value", read).is_err());
    let bad = WIIU.records(&data, (4, Some(8)), 3, 4, "value", |c: &mut Cursor| match c.u16()? {
        2 => Err(Error::invalid(c.offset(), "two")),
        v => Ok(v),
    });
    assert_eq!(bad.unwrap_err().path, ["value 1"]);
}

#[test]
fn switch_offsets_are_absolute_and_names_count_from_their_length() {
    // u64 offset 8 → the string "ab" with its u16 length at 8; then a null offset.
    let mut data = vec![8, 0, 0, 0, 0, 0, 0, 0, 2, 0, b'a', b'b', 0, 0, 0, 0];
    data.extend([0; 8]);
    let s = Platform::Switch { major: 8 };
    let mut c = s.cursor(&data, 0).unwrap();
    assert_eq!(s.name(&data, &mut c).unwrap(), "ab");
    let mut c = s.cursor(&data, 16).unwrap();
    assert_eq!(s.offset(&mut c, "x").unwrap(), None);
    let mut c = s.cursor(&data, 8).unwrap();
    assert!(s.offset(&mut c, "x").is_err(), "0x6261_0002 lies outside the file");
}
