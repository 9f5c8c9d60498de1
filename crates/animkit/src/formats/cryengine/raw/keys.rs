//! Key arrays as stored (`cryengine.md` §4, §5): rotation values in their codec's storage words,
//! position and scale vectors, and key times in their `EKeyTimesFormat`. The compressed
//! controllers and the DBA track database hold these; the model decodes them
//! (`quat_codecs`, `time_formats`).
//!
//! Each storage word is read at its width in the chunk's byte order (CryEngine's per-struct
//! `SwapEndian`): `f32` components, `i16`×3 (ShotInt3), `u32` (DWORD), `u16`×3 (48-bit), `u64`
//! (64-bit forms); key times per element, Bitset header and bit words as `u16`.

use serde::{Deserialize, Serialize};

use crate::bytes::{Cursor, Endian, Writer};
use crate::error::{Error, Result};
use crate::raw_json::F32;
use crate::record::Record;

/// Declares [`RotationKeys`] from one list of its variants, each with its stored word and its
/// `ECompressionFormat`: reading, the format, the key count and writing follow the list.
macro_rules! rotation_keys {
    ($($(#[$doc:meta])* $variant:ident($word:ty) = $format:literal,)*) => {
        /// Rotation keys as stored, one variant per `ECompressionFormat` that has a codec.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "codec", content = "keys", rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum RotationKeys {
            $($(#[$doc])* $variant(Vec<$word>),)*
        }

        impl RotationKeys {
            /// Reads `n` keys of rotation format `format`.
            pub(crate) fn read(c: &mut Cursor, format: u8, n: usize) -> Result<RotationKeys> {
                Ok(match format {
                    $($format => RotationKeys::$variant(words(c, n, "rotation key")?),)*
                    f => {
                        let message = format!("rotation format {f} has no codec");
                        return Err(Error::unsupported(message).within("rotation keys"));
                    }
                })
            }

            /// The `ECompressionFormat` of the keys.
            pub fn format(&self) -> u8 {
                match self {
                    $(RotationKeys::$variant(_) => $format,)*
                }
            }

            /// The number of keys.
            pub fn len(&self) -> usize {
                match self {
                    $(RotationKeys::$variant(k) => k.len(),)*
                }
            }

            pub(crate) fn write(&self, w: &mut Writer) {
                match self {
                    $(RotationKeys::$variant(k) => write_all(k, w),)*
                }
            }
        }
    };
}

rotation_keys! {
    /// Format 0 (NoCompress): `x, y, z, w`.
    NoCompress([F32; 4]) = 0,
    /// Format 1 (NoCompressQuat): `x, y, z, w`.
    NoCompressQuat([F32; 4]) = 1,
    /// Format 3 (ShotInt3Quat): `x, y, z` × 32767; `w` from the unit length.
    ShotInt3([i16; 3]) = 3,
    /// Format 4 (SmallTreeDWORDQuat): smallest three, 10 bits each; the dropped index in bits 30–31.
    Dword(u32) = 4,
    /// Format 5 (SmallTree48BitQuat): smallest three, 15 bits each, in three `u16` (low first);
    /// the dropped index in bits 46–47.
    St48([u16; 3]) = 5,
    /// Format 6 (SmallTree64BitQuat): smallest three, 20 bits each; the index in bits 62–63.
    St64(u64) = 6,
    /// Format 8 (SmallTree64BitExtQuat): 21, 21 and 20 bits; the index in bits 62–63.
    St64Ext(u64) = 8,
}

/// No keys.
impl Default for RotationKeys {
    fn default() -> Self {
        RotationKeys::NoCompress(Vec::new())
    }
}

/// A number, or an array of numbers, that key arrays hold: read in bulk from a slice.
pub(crate) trait Word: Sized {
    /// The stored size.
    const SIZE: usize;
    /// The value of `b` (`SIZE` bytes) in byte order `endian`.
    fn from_bytes(b: &[u8], endian: Endian) -> Self;
}

macro_rules! word {
    ($($ty:ty),*) => {$(
        impl Word for $ty {
            const SIZE: usize = std::mem::size_of::<$ty>();
            #[inline(always)]
            fn from_bytes(b: &[u8], endian: Endian) -> Self {
                let Some(&a) = b.first_chunk() else { return 0 };
                match endian {
                    Endian::Little => <$ty>::from_le_bytes(a),
                    Endian::Big => <$ty>::from_be_bytes(a),
                }
            }
        }
    )*};
}

word!(u8, u16, i16, u32, i32, u64);

impl Word for F32 {
    const SIZE: usize = 4;
    #[inline(always)]
    fn from_bytes(b: &[u8], endian: Endian) -> Self {
        F32(f32::from_bits(u32::from_bytes(b, endian)))
    }
}

impl<T: Word, const N: usize> Word for [T; N] {
    const SIZE: usize = T::SIZE * N;
    #[inline(always)]
    fn from_bytes(b: &[u8], endian: Endian) -> Self {
        std::array::from_fn(|i| T::from_bytes(b.get(i * T::SIZE..).unwrap_or_default(), endian))
    }
}

/// `n` values of type `T` in one read: one bounds check for the whole array.
pub(crate) fn words<T: Word>(c: &mut Cursor, n: usize, what: &str) -> Result<Vec<T>> {
    let mut out = Vec::new();
    words_into(c, n, what, &mut out, |v| v).map(|()| out)
}

/// [`words`] appended to `out` as `map` makes them: decoders read the stored words in place.
pub(crate) fn words_into<T: Word, U>(
    c: &mut Cursor,
    n: usize,
    what: &str,
    out: &mut Vec<U>,
    map: impl Fn(T) -> U,
) -> Result<()> {
    let n = c.count(n as u64, T::SIZE, what)?;
    let endian = c.endian();
    let bytes = c.take(n * T::SIZE)?;
    // One loop per byte order, so the order is not tested per value.
    match endian {
        Endian::Little => out.extend(bytes.chunks_exact(T::SIZE).map(|b| map(T::from_bytes(b, Endian::Little)))),
        Endian::Big => out.extend(bytes.chunks_exact(T::SIZE).map(|b| map(T::from_bytes(b, Endian::Big)))),
    }
    Ok(())
}

/// Zero bytes up to the next multiple of 4 of the writer's length.
pub(crate) fn pad4(w: &mut Writer) {
    w.fill(0, crate::bytes::round_up(w.len(), 4) - w.len());
}

/// `n` records of type `T`, or `what` named in the error.
pub(crate) fn records<T: Record>(c: &mut Cursor, n: usize, size: usize, what: &str) -> Result<Vec<T>> {
    let n = c.count(n as u64, size, what)?;
    // Allocated once: collecting `Result`s would grow the vector key by key.
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(T::read(c)?);
    }
    Ok(out)
}

fn write_all<T: Record>(keys: &[T], w: &mut Writer) {
    keys.iter().for_each(|k| k.write(w));
}

impl RotationKeys {
    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Position (or scale) keys of format 0 or 2 (NoCompressVec3): `x, y, z`.
pub type VectorKeys = Vec<[F32; 3]>;

/// Reads `n` position (or scale) keys of format `format`.
pub(crate) fn read_vectors(c: &mut Cursor, format: u8, n: usize, what: &str) -> Result<VectorKeys> {
    match format {
        0 | 2 => words(c, n, what),
        f => Err(Error::unsupported(format!("{what} format {f} has no codec"))),
    }
}

/// Key times as stored, one variant per `EKeyTimesFormat`; values are frames.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "format", content = "values", rename_all = "snake_case")]
#[non_exhaustive]
pub enum KeyTimes {
    /// Format 0: one `f32` per key.
    F32(Vec<F32>),
    /// Format 1: one `u16` per key.
    Uint16(Vec<u16>),
    /// Format 2: one `u8` per key.
    Byte(Vec<u8>),
    /// Format 3: start and stop (a key on every frame between), then any further elements the
    /// stored length holds (§10 C12: CE5 counts one element per key).
    F32StartStop(Vec<F32>),
    /// Format 4: as format 3, `u16` elements.
    Uint16StartStop(Vec<u16>),
    /// Format 5: as format 3, `u8` elements.
    ByteStartStop(Vec<u8>),
    /// Format 6: first and last (inclusive) frame, the key count, then one bit per frame from
    /// `start`, low bit first.
    Bitset {
        /// The first frame.
        start: u16,
        /// The last frame (inclusive).
        end: u16,
        /// The key count.
        count: u16,
        /// The bit words (as many as the stored length holds).
        words: Vec<u16>,
    },
}

/// How the byte length of a StartStop or Bitset track is counted (§10 C12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LengthRule {
    /// `elementSize × numKeys` (CE5 loader).
    PerKey,
    /// The bytes actually used (Lumberyard writer; DBA tracks).
    Raw,
}

impl KeyTimes {
    /// Reads the times of `n` keys in format `format`, as long as `rule` counts them.
    pub(crate) fn read(c: &mut Cursor, format: u8, n: usize, rule: LengthRule) -> Result<KeyTimes> {
        let what = "key time";
        let elements = if rule == LengthRule::PerKey { n } else { 2 };
        Ok(match format {
            0 => KeyTimes::F32(words(c, n, what)?),
            1 => KeyTimes::Uint16(words(c, n, what)?),
            2 => KeyTimes::Byte(words(c, n, what)?),
            3 => KeyTimes::F32StartStop(words(c, elements, what)?),
            4 => KeyTimes::Uint16StartStop(words(c, elements, what)?),
            5 => KeyTimes::ByteStartStop(words(c, elements, what)?),
            6 => {
                let (start, end, count) = (c.u16()?, c.u16()?, c.u16()?);
                let words = match rule {
                    LengthRule::PerKey => n.checked_sub(3).ok_or_else(|| {
                        Error::invalid(c.offset(), format!("a bitset of {n} keys is shorter than its header"))
                    })?,
                    LengthRule::Raw => {
                        let span = end.checked_sub(start).ok_or_else(|| {
                            Error::invalid(c.offset(), format!("bitset end {end} is before its start {start}"))
                        })?;
                        (usize::from(span) + 1).div_ceil(16)
                    }
                };
                KeyTimes::Bitset { start, end, count, words: self::words(c, words, "bitset word")? }
            }
            f => return Err(Error::invalid(c.offset(), format!("unknown key-time format {f}"))),
        })
    }

    /// The `EKeyTimesFormat`.
    pub fn format(&self) -> u8 {
        match self {
            KeyTimes::F32(_) => 0,
            KeyTimes::Uint16(_) => 1,
            KeyTimes::Byte(_) => 2,
            KeyTimes::F32StartStop(_) => 3,
            KeyTimes::Uint16StartStop(_) => 4,
            KeyTimes::ByteStartStop(_) => 5,
            KeyTimes::Bitset { .. } => 6,
        }
    }

    pub(crate) fn write(&self, w: &mut Writer) {
        match self {
            KeyTimes::F32(v) | KeyTimes::F32StartStop(v) => write_all(v, w),
            KeyTimes::Uint16(v) | KeyTimes::Uint16StartStop(v) => write_all(v, w),
            KeyTimes::Byte(v) | KeyTimes::ByteStartStop(v) => w.bytes(v),
            KeyTimes::Bitset { start, end, count, words } => {
                [*start, *end, *count].iter().chain(words).for_each(|v| w.u16(*v));
            }
        }
    }
}
