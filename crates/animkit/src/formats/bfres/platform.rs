//! What the Wii U and Switch forms of one structure differ in, so that each structure has one
//! reader taking the platform as a parameter: the byte order, the version, how an offset is
//! stored (Wii U: a self-relative `i32`, §1; Switch: an absolute `u64`, 0 = null, §11) and how a
//! name is stored (Wii U: a `u32` length before the text, the offset pointing at the text;
//! Switch: a `u16` length, the offset pointing at it). The helpers every subfile reader shares
//! live here too: arrays of fixed-size records behind an offset.

use crate::bytes::{Cursor, Endian};
use crate::error::{Context, Error, Result};

/// The platform and version a structure is laid out for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Platform {
    /// Wii U (big-endian); `version` is the whole FRES version word (`0x04050003`).
    WiiU {
        /// The FRES version word.
        version: u32,
    },
    /// Switch (little-endian); `major` is the `x` of version `0.x.y.z`.
    Switch {
        /// The `x` of version `0.x.y.z`.
        major: u8,
    },
}

impl Platform {
    /// Switch 0.8, the version written. Offsets, names and the FSKA/FMAA layouts are the same
    /// from 0.5 to 0.8, so files of those versions are read for rewriting with it too.
    pub(crate) const SWITCH_0_8: Platform = Platform::Switch { major: 8 };

    /// The byte order.
    pub fn endian(self) -> Endian {
        match self {
            Platform::WiiU { .. } => Endian::Big,
            Platform::Switch { .. } => Endian::Little,
        }
    }

    /// Whether this is a Switch layout.
    pub fn is_switch(self) -> bool {
        matches!(self, Platform::Switch { .. })
    }

    /// Wii U 3.4 and later, and every Switch version: the layouts with 32-bit frame counts and
    /// the curve `delta` field.
    pub fn since_3_4(self) -> bool {
        match self {
            Platform::WiiU { version } => version >= 0x0304_0000,
            Platform::Switch { .. } => true,
        }
    }

    /// Switch 0.9: flags right after the magic instead of a 12-byte block header.
    pub fn switch_0_9(self) -> bool {
        matches!(self, Platform::Switch { major } if major >= 9)
    }

    /// A cursor at `at` in this platform's byte order.
    pub fn cursor(self, data: &[u8], at: usize) -> Result<Cursor<'_>> {
        let mut c = Cursor::new(data, self.endian());
        c.seek(at)?;
        Ok(c)
    }

    /// The size of an offset field: 4 on Wii U, 8 on Switch.
    pub fn offset_size(self) -> usize {
        match self {
            Platform::WiiU { .. } => 4,
            Platform::Switch { .. } => 8,
        }
    }

    /// Reads an offset field: `None` for null, an error naming `what` when it leaves the file.
    #[inline]
    pub fn offset(self, c: &mut Cursor, what: &str) -> Result<Option<usize>> {
        let field = c.offset();
        let len = c.data().len();
        let target = match self {
            Platform::WiiU { .. } => match c.i32()? {
                0 => return Ok(None),
                v => usize::try_from(field as i64 + i64::from(v))
                    .ok()
                    .filter(|&t| t < len)
                    .ok_or_else(|| Error::invalid(field, format!("{what} offset {v} points outside the file"))),
            },
            Platform::Switch { .. } => match c.u64()? {
                0 => return Ok(None),
                v => usize::try_from(v).ok().filter(|&t| t < len).ok_or_else(|| {
                    Error::invalid(field, format!("{what} offset {v:#x} is outside the file ({len} bytes)"))
                }),
            },
        };
        target.map(Some)
    }

    /// Reads a name offset field and the name it points at (`""` for null): on Wii U see
    /// [`name_at`]; on Switch the `u16` length word it points at, then the text.
    pub fn name(self, data: &[u8], c: &mut Cursor) -> Result<String> {
        let Some(at) = self.offset(c, "name")? else { return Ok(String::new()) };
        if !self.is_switch() {
            return name_at(data, at as i64);
        }
        let mut c = self.cursor(data, at)?;
        let text = c.u16().and_then(|len| c.take(usize::from(len))).within(|| "name")?;
        Ok(String::from_utf8_lossy(text).into_owned())
    }

    /// The `count` records of `size` bytes at `array`, each read by `read` from a cursor at its
    /// start. `(field, array)` is where the offset is stored and what it points at: null with
    /// records to read is an error at `field`; an array that runs past the file is an error
    /// before anything is read; a record's error names it (`"{what} {i}"`).
    pub fn records<T>(
        self,
        data: &[u8],
        (field, array): (usize, Option<usize>),
        count: usize,
        size: usize,
        what: &str,
        mut read: impl FnMut(&mut Cursor) -> Result<T>,
    ) -> Result<Vec<T>> {
        if count == 0 {
            return Ok(Vec::new());
        }
        let array = array.ok_or_else(|| Error::invalid(field, format!("null {what} array")))?;
        let mut c = self.cursor(data, array)?;
        c.count(count as u64, size, what)?;
        (0..count)
            .map(|i| {
                c.seek(array + size * i)?;
                read(&mut c).within(|| format!("{what} {i}"))
            })
            .collect()
    }

    /// The `count` names whose offsets form the array at `array` (its offset stored at `field`).
    pub fn names(self, data: &[u8], (field, array): (usize, Option<usize>), count: usize) -> Result<Vec<String>> {
        self.records(data, (field, array), count, self.offset_size(), "name", |c| self.name(data, c))
    }
}

/// Reads the Wii U name whose first character is at `at`: its length is the `u32` at `at - 4`.
pub fn name_at(data: &[u8], at: i64) -> Result<String> {
    let start = usize::try_from(at).ok().filter(|&a| a >= 4 && a <= data.len());
    let start = start.ok_or_else(|| Error::invalid(0, format!("name offset {at} is outside the file")))?;
    let mut c = Cursor::new(data, Endian::Big);
    c.seek(start - 4)?;
    let len = c.u32()?;
    let n = c.count(u64::from(len), 1, "name byte")?;
    Ok(String::from_utf8_lossy(c.take(n)?).into_owned())
}
