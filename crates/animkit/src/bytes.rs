//! A bounded cursor over a byte slice, and a byte writer, in either byte order.
//!
//! Every read checks the bytes that remain and fails with [`Error`] naming the offset; nothing
//! here panics or allocates on behalf of the input. Counts read from a file go through
//! [`Cursor::count`], which rejects a count whose elements could not fit in the remaining bytes
//! *before* anything is allocated for them.

use crate::error::{Error, Result};

/// Byte order of multi-byte values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Endian {
    #[default]
    /// Least significant byte first (Switch, PC).
    Little,
    /// Most significant byte first (Wii U, consoles of the PowerPC era).
    Big,
}

/// A read position in a byte slice. Offsets in errors are absolute: `base` is added to the
/// position, so a cursor over a sub-slice still reports offsets in the whole file.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
    endian: Endian,
}

macro_rules! read_int {
    ($name:ident, $ty:ty) => {
        #[doc = concat!("Reads a `", stringify!($ty), "` in the cursor's byte order.")]
        #[inline]
        pub fn $name(&mut self) -> Result<$ty> {
            let bytes = self.array::<{ std::mem::size_of::<$ty>() }>()?;
            Ok(match self.endian {
                Endian::Little => <$ty>::from_le_bytes(bytes),
                Endian::Big => <$ty>::from_be_bytes(bytes),
            })
        }
    };
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`, reading in `endian` order.
    pub fn new(data: &'a [u8], endian: Endian) -> Self {
        Cursor { data, pos: 0, base: 0, endian }
    }

    /// A cursor over `data` whose first byte is at absolute offset `base` of the file.
    pub fn with_base(data: &'a [u8], base: usize, endian: Endian) -> Self {
        Cursor { data, pos: 0, base, endian }
    }

    /// The absolute offset of the next byte.
    #[inline]
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// The position relative to the start of this cursor's slice.
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    #[inline]
    /// The bytes left after the position.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    #[inline]
    /// Whether no byte is left.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The byte order this cursor reads in.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// The whole slice this cursor reads.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or_default()
    }

    /// Moves to `pos` (relative to this cursor's slice); the end itself is allowed.
    pub fn seek(&mut self, pos: usize) -> Result<()> {
        if pos > self.data.len() {
            return Err(Error::truncated(self.offset(), pos - self.pos, self.remaining()));
        }
        self.pos = pos;
        Ok(())
    }

    /// Takes the next `n` bytes.
    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        match self.data.get(self.pos..).and_then(|rest| rest.get(..n)) {
            Some(slice) => {
                self.pos += n;
                Ok(slice)
            }
            None => Err(Error::truncated(self.offset(), n, self.remaining())),
        }
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.take(n).map(|_| ())
    }

    /// Takes the next `N` bytes as an array.
    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let slice = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        Ok(out)
    }

    read_int!(u8, u8);
    read_int!(i8, i8);
    read_int!(u16, u16);
    read_int!(i16, i16);
    read_int!(u32, u32);
    read_int!(i32, i32);
    read_int!(u64, u64);

    /// Reads an `f32` in the cursor's byte order.
    #[inline]
    pub fn f32(&mut self) -> Result<f32> {
        self.u32().map(f32::from_bits)
    }

    /// Checks that `count` elements of at least `min_size` bytes each can still follow, and
    /// returns the count as `usize`. Use it on every count read from a file before allocating.
    #[inline]
    pub fn count(&self, count: u64, min_size: usize, what: &str) -> Result<usize> {
        let fits = usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(min_size.max(1)))
            .is_some_and(|bytes| bytes <= self.remaining());
        if fits {
            Ok(count as usize)
        } else {
            Err(Error::invalid(
                self.offset(),
                format!(
                    "{what} count {count} needs at least {} bytes but only {} remain",
                    (count as u128) * (min_size.max(1) as u128),
                    self.remaining()
                ),
            ))
        }
    }
}

/// A growable output buffer that writes in one byte order.
#[derive(Debug, Default, Clone)]
pub struct Writer {
    buf: Vec<u8>,
    endian: Endian,
}

macro_rules! write_int {
    ($name:ident, $ty:ty) => {
        #[doc = concat!("Appends a `", stringify!($ty), "` in the writer's byte order.")]
        #[inline]
        pub fn $name(&mut self, v: $ty) {
            match self.endian {
                Endian::Little => self.buf.extend_from_slice(&v.to_le_bytes()),
                Endian::Big => self.buf.extend_from_slice(&v.to_be_bytes()),
            }
        }
    };
}

impl Writer {
    /// An empty writer in `endian` order.
    pub fn new(endian: Endian) -> Self {
        Writer { buf: Vec::new(), endian }
    }

    /// An empty writer in `endian` order with room for `capacity` bytes.
    pub fn with_capacity(endian: Endian, capacity: usize) -> Self {
        Writer { buf: Vec::with_capacity(capacity), endian }
    }

    /// The bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Appends `b` as it is.
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Appends `n` copies of `byte`.
    pub fn fill(&mut self, byte: u8, n: usize) {
        self.buf.resize(self.buf.len() + n, byte);
    }

    /// Overwrites a `u32` written earlier at `pos` (for sizes known only afterwards).
    pub fn patch_u32(&mut self, pos: usize, v: u32) {
        let bytes = match self.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        if let Some(dst) = self.buf.get_mut(pos..pos + 4) {
            dst.copy_from_slice(&bytes);
        }
    }

    /// Overwrites a `u64` written earlier at `pos` (for offsets known only afterwards).
    pub fn patch_u64(&mut self, pos: usize, v: u64) {
        let bytes = match self.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        self.patch_bytes(pos, &bytes);
    }

    /// Overwrites bytes written earlier at `pos` with `b` (nothing past the end).
    pub fn patch_bytes(&mut self, pos: usize, b: &[u8]) {
        if let Some(dst) = self.buf.get_mut(pos..pos + b.len()) {
            dst.copy_from_slice(b);
        }
    }

    write_int!(u8, u8);
    write_int!(i8, i8);
    write_int!(u16, u16);
    write_int!(i16, i16);
    write_int!(u32, u32);
    write_int!(i32, i32);
    write_int!(u64, u64);

    /// Appends an `f32` in the writer's byte order.
    pub fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }

    /// The bytes written.
    pub fn into_vec(self) -> Vec<u8> {
        self.buf
    }
}

/// Rounds `n` up to a multiple of `align` (a power of two or any positive value).
#[inline]
pub fn round_up(n: usize, align: usize) -> usize {
    n.div_ceil(align) * align
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn reads_both_byte_orders() {
        let data = [0x12, 0x34, 0x56, 0x78];
        assert_eq!(Cursor::new(&data, Endian::Little).u32().unwrap(), 0x7856_3412);
        assert_eq!(Cursor::new(&data, Endian::Big).u32().unwrap(), 0x1234_5678);
        assert_eq!(Cursor::new(&data, Endian::Big).i16().unwrap(), 0x1234);
    }

    #[test]
    fn truncation_reports_absolute_offset() {
        let data = [0u8; 6];
        let mut c = Cursor::with_base(&data, 1000, Endian::Little);
        c.u32().unwrap();
        let e = c.u32().unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated);
        assert_eq!(e.offset, Some(1004));
    }

    #[test]
    fn huge_counts_are_rejected_before_allocation() {
        let data = [0u8; 64];
        let c = Cursor::new(&data, Endian::Little);
        assert_eq!(c.count(4, 16, "key").unwrap(), 4);
        assert!(c.count(5, 16, "key").is_err());
        assert!(c.count(u64::from(u32::MAX), 16, "key").is_err());
        assert!(c.count(u64::MAX, usize::MAX, "key").is_err());
    }

    #[test]
    fn writer_patches_sizes() {
        let mut w = Writer::new(Endian::Big);
        w.u32(0);
        w.u16(7);
        w.patch_u32(0, 0xAABBCCDD);
        assert_eq!(w.into_vec(), vec![0xAA, 0xBB, 0xCC, 0xDD, 0, 7]);
    }

    #[test]
    fn writer_patches_offsets_in_its_byte_order() {
        let mut w = Writer::new(Endian::Little);
        w.u64(0);
        w.u16(7);
        w.patch_u64(0, 0x0102_0304_0506_0708);
        w.patch_bytes(8, &[9]);
        w.patch_bytes(9, &[1, 2]); // would run past the end: left alone
        assert_eq!(w.into_vec(), vec![8, 7, 6, 5, 4, 3, 2, 1, 9, 0]);
    }
}
