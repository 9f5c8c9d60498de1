//! What the Wii U and Switch forms of one structure differ in, so that a reader takes the
//! platform as a parameter instead of being written twice: the byte order, how an offset is
//! stored (Wii U: a self-relative `i32`, §1; Switch: an absolute `u64`, §11) and how a name is
//! stored (Wii U: a `u32` length before the text; Switch: a `u16` length, the offset pointing at
//! it).

use crate::bytes::{Cursor, Endian};
use crate::error::Result;

/// The platform and version a structure is laid out for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// Wii U (big-endian); `version` is the whole FRES version word (`0x04050003`).
    WiiU { version: u32 },
    /// Switch (little-endian); `major` is the `x` of version `0.x.y.z`.
    Switch { major: u8 },
}

impl Platform {
    /// The byte order.
    pub fn endian(self) -> Endian {
        match self {
            Platform::WiiU { .. } => Endian::Big,
            Platform::Switch { .. } => Endian::Little,
        }
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
    pub fn offset(self, c: &mut Cursor, what: &str) -> Result<Option<usize>> {
        match self {
            Platform::WiiU { .. } => super::curve::rel(c, what),
            Platform::Switch { .. } => super::switch::offset(c, what),
        }
    }

    /// Reads a name offset field and the name it points at (`""` for null).
    pub fn name(self, data: &[u8], c: &mut Cursor) -> Result<String> {
        match self {
            Platform::WiiU { .. } => super::strings::name_field(data, c),
            Platform::Switch { .. } => super::switch::name_field(data, c),
        }
    }

    /// Where the fields of a subfile or section (FMDL, FSKL) start: after the magic on Wii U;
    /// on Switch after the magic and a 12-byte block header (`u32` next, `u32` size, `u32`
    /// reserved), or from version 0.9 after the magic and a `u32` of flags.
    pub fn fields_start(self) -> usize {
        match self {
            Platform::WiiU { .. } => 4,
            Platform::Switch { major } if major >= 9 => 8,
            Platform::Switch { .. } => 0x10,
        }
    }
}
