//! Fixed-layout on-disk records declared once: [`record!`](macro@crate::record) gives a struct its
//! reader and its writer from one field list, in the byte order of the [`Cursor`] or [`Writer`]
//! it is given, so big- and little-endian files share one declaration.
//!
//! Fields are read and written in declaration order with no implicit padding: a gap in the file
//! is a field too (`pad: [u8; 4]`), so it round-trips. Add `Serialize, Deserialize` to the
//! struct's derives and the JSON dump is the same declaration. A field that fails to read names
//! its record and field in the error's structure path, with the absolute byte offset.
//!
//! ```ignore
//! use crate::bytes::{Cursor, Endian, Writer};
//! use crate::record::Record;
//!
//! crate::record! {
//!     /// A chunk header: four-character code and payload size.
//!     #[derive(Debug, PartialEq)]
//!     pub struct ChunkHeader {
//!         pub magic: [u8; 4],
//!         pub size: u32,
//!     }
//! }
//!
//! let bytes = [b'A', b'N', b'P', b'3', 0, 0, 1, 0];
//! let header = ChunkHeader::read(&mut Cursor::new(&bytes, Endian::Big))?;
//! assert_eq!(header, ChunkHeader { magic: *b"ANP3", size: 256 });
//! let mut w = Writer::new(Endian::Big);
//! header.write(&mut w);
//! assert_eq!(w.into_vec(), bytes);
//! # Ok::<(), crate::Error>(())
//! ```

use crate::bytes::{Cursor, Writer};
use crate::error::Result;
use crate::raw_json::{FixedName, FourCc, F32};

/// A value with a fixed on-disk layout that reads and writes itself in the stream's byte order.
pub trait Record: Sized {
    /// Reads the value at the cursor's position.
    fn read(c: &mut Cursor) -> Result<Self>;
    /// Appends the value's bytes.
    fn write(&self, w: &mut Writer);
}

macro_rules! int_record {
    ($($ty:ident),*) => {$(
        impl Record for $ty {
            #[inline]
            fn read(c: &mut Cursor) -> Result<Self> {
                c.$ty()
            }
            #[inline]
            fn write(&self, w: &mut Writer) {
                w.$ty(*self)
            }
        }
    )*};
}

int_record!(u8, i8, u16, i16, u32, i32, u64, f32);

impl<const N: usize> Record for [u8; N] {
    #[inline]
    fn read(c: &mut Cursor) -> Result<Self> {
        c.array()
    }
    #[inline]
    fn write(&self, w: &mut Writer) {
        w.bytes(self)
    }
}

/// Arrays of numbers (a quaternion's `[i16; 4]`, a scale's `[F32; 3]`), element by element.
macro_rules! array_record {
    ($($ty:ty = $zero:expr),*) => {$(
        impl<const N: usize> Record for [$ty; N] {
            #[inline]
            fn read(c: &mut Cursor) -> Result<Self> {
                let mut out = [$zero; N];
                for v in &mut out {
                    *v = Record::read(c)?;
                }
                Ok(out)
            }
            #[inline]
            fn write(&self, w: &mut Writer) {
                self.iter().for_each(|v| v.write(w))
            }
        }
    )*};
}

array_record!(i16 = 0, u16 = 0, i32 = 0, u64 = 0, f32 = 0.0, F32 = F32(0.0));

impl Record for F32 {
    #[inline]
    fn read(c: &mut Cursor) -> Result<Self> {
        c.f32().map(F32)
    }
    #[inline]
    fn write(&self, w: &mut Writer) {
        w.f32(self.0)
    }
}

impl Record for FourCc {
    #[inline]
    fn read(c: &mut Cursor) -> Result<Self> {
        c.array().map(FourCc)
    }
    #[inline]
    fn write(&self, w: &mut Writer) {
        w.bytes(&self.0)
    }
}

impl<const N: usize> Record for FixedName<N> {
    #[inline]
    fn read(c: &mut Cursor) -> Result<Self> {
        c.array().map(FixedName)
    }
    #[inline]
    fn write(&self, w: &mut Writer) {
        w.bytes(&self.0)
    }
}

/// Declares a struct whose fields are laid out on disk in the order written, and implements
/// [`Record`] for it. Every field type must itself be a [`Record`]. Attributes on the struct and
/// on fields (derives, `serde` options, docs) are kept.
macro_rules! record {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$fmeta])* $fvis $field: $ty, )*
        }

        impl $crate::record::Record for $name {
            #[inline]
            fn read(c: &mut $crate::bytes::Cursor) -> $crate::error::Result<Self> {
                Ok(Self {
                    $( $field: <$ty as $crate::record::Record>::read(c)
                        .map_err(|e| e.within(concat!(stringify!($name), ".", stringify!($field))))?, )*
                })
            }

            #[inline]
            fn write(&self, w: &mut $crate::bytes::Writer) {
                $( $crate::record::Record::write(&self.$field, w); )*
            }
        }
    };
}
pub(crate) use record;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Endian;

    crate::record! {
        #[derive(Debug, PartialEq)]
        struct Pair {
            id: i16,
            small: i8,
            pad: [u8; 1],
            value: F32,
        }
    }

    #[test]
    fn one_declaration_reads_and_writes_both_byte_orders() {
        // -2 as i16, -3 as i8, a pad byte, 1.5f32 (0x3fc00000), spelled out by hand in each order.
        let le = [0xfe, 0xff, 0xfd, 0xbb, 0x00, 0x00, 0xc0, 0x3f];
        let be = [0xff, 0xfe, 0xfd, 0xbb, 0x3f, 0xc0, 0x00, 0x00];
        let want = Pair { id: -2, small: -3, pad: [0xbb], value: F32(1.5) };
        for (bytes, endian) in [(le, Endian::Little), (be, Endian::Big)] {
            let got = Pair::read(&mut Cursor::new(&bytes, endian)).unwrap();
            assert_eq!(got, want);
            let mut w = Writer::new(endian);
            got.write(&mut w);
            assert_eq!(w.into_vec(), bytes);
        }
    }

    #[test]
    fn number_arrays_read_element_by_element() {
        let be = [0xff, 0xfe, 0x00, 0x01, 0x3f, 0xc0, 0x00, 0x00];
        let mut c = Cursor::new(&be, Endian::Big);
        assert_eq!(<[i16; 2]>::read(&mut c).unwrap(), [-2, 1]);
        assert_eq!(<[F32; 1]>::read(&mut c.clone()).unwrap(), [F32(1.5)]);
        assert_eq!(<[f32; 1]>::read(&mut c).unwrap(), [1.5]);
        let mut w = Writer::new(Endian::Big);
        [-2i16, 1].write(&mut w);
        [F32(1.5)].write(&mut w);
        assert_eq!(w.into_vec(), be);
    }

    #[test]
    fn a_short_read_names_the_record_field_and_offset() {
        let err = Pair::read(&mut Cursor::with_base(&[1, 0, 0, 0, 0], 100, Endian::Little)).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("Pair.value"), "{text}");
        assert!(text.contains("104"), "{text}");
    }
}
