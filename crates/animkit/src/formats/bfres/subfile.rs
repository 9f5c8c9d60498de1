//! What the Wii U animation subfile readers (FSKA, FTXP, FSHU, FVIS) share: the opening of every
//! subfile header (magic, self-relative name offset, path offset), arrays of fixed-size records
//! behind self-relative offsets (bone and material animations, curves, infos, bases), and the
//! clip a subfile becomes.

use crate::bytes::{Cursor, Endian};
use crate::error::{Context, Error, Result};
use crate::model::{Clip, Track};

use super::strings::name_field;

/// A cursor just past the magic, name and path fields of the subfile at `at` (all big-endian),
/// and the subfile's name.
pub fn open<'a>(data: &'a [u8], at: usize, magic: &[u8; 4]) -> Result<(Cursor<'a>, String)> {
    let mut c = Cursor::new(data, Endian::Big);
    c.seek(at)?;
    if c.array::<4>()? != *magic {
        return Err(Error::invalid(at, format!("not an {}", String::from_utf8_lossy(magic))));
    }
    let name = name_field(data, &mut c)?;
    let _path = c.i32()?;
    Ok((c, name))
}

/// The `count` records of `size` bytes at `array`, each read by `read` from a cursor at its start.
/// `array` is the resolved offset stored at `field`: null with records to read is an error there;
/// an array that runs past the file is an error before anything is read; a record's error names
/// it (`"{what} {i}"`).
pub fn records<T>(
    data: &[u8],
    array: Option<usize>,
    field: usize,
    count: usize,
    size: usize,
    what: &str,
    mut read: impl FnMut(&mut Cursor) -> Result<T>,
) -> Result<Vec<T>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let array = array.ok_or_else(|| Error::invalid(field, format!("null {what} array")))?;
    let mut c = Cursor::new(data, Endian::Big);
    c.seek(array)?;
    c.count(count as u64, size, what)?;
    (0..count)
        .map(|i| {
            c.seek(array + size * i)?;
            read(&mut c).within(|| format!("{what} {i}"))
        })
        .collect()
}

/// The clip of a subfile: `frame_count` frames at `fps` (BFRES stores no frame rate, §5.5).
pub fn clip(name: &str, frame_count: i32, looping: bool, fps: f32, tracks: Vec<Track>) -> Clip {
    Clip {
        name: name.to_string(),
        duration: frame_count.max(0) as f32 / fps,
        looping: Some(looping),
        additive: false,
        frame_rate: Some(fps),
        tracks,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_read_in_place_and_checked_first() {
        // Three 4-byte records (u16 value, u16 pad) at 8.
        let data = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0];
        let read = |c: &mut Cursor| c.u16();
        assert_eq!(records(&data, Some(8), 4, 3, 4, "value", read).unwrap(), [1, 2, 3]);
        assert_eq!(records(&data, None, 4, 0, 4, "value", read).unwrap(), Vec::<u16>::new());
        let null = records(&data, None, 4, 1, 4, "value", read).unwrap_err();
        assert_eq!((null.offset, null.message.as_str()), (Some(4), "null value array"));
        // A fourth record would run past the end: rejected before reading.
        assert!(records(&data, Some(8), 4, 4, 4, "value", read).is_err());
        let bad = records(&data, Some(8), 4, 3, 4, "value", |c: &mut Cursor| match c.u16()? {
            2 => Err(Error::invalid(c.offset(), "two")),
            v => Ok(v),
        });
        assert_eq!(bad.unwrap_err().path, ["value 1"]);
    }

    #[test]
    fn open_checks_the_magic_and_reads_the_name() {
        // "FTXP", name offset +8 from its field (at 4) → 12, path 0; length-prefixed "ab" at 12.
        let data = [b'F', b'T', b'X', b'P', 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 2, b'a', b'b', 0, 0];
        let mut ok = data;
        ok[7] = 12; // points at the text, after the u32 length at 12
        let (c, name) = open(&ok, 0, b"FTXP").unwrap();
        assert_eq!((c.offset(), name.as_str()), (12, "ab"));
        assert!(open(&data, 0, b"FSKA").unwrap_err().message.contains("not an FSKA"));
    }
}
