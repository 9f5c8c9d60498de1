//! Serde helpers for lossless JSON dumps of raw layers.
//!
//! - [`F32`]: a finite float is a JSON number in its shortest round-trip form (−0.0 included);
//!   NaN and infinities are a string of their bits, `"0x7fc00000"`.
//! - [`FixedName`] / [`PaddedName`]: a name buffer that is the name, a NUL and zero fill is a plain
//!   string; any other buffer is `{"name": …, "after_nul": "hex"}` (`after_nul: null` when there
//!   is no NUL at all). Names are Latin-1.
//! - [`FourCc`]: a string when all four bytes are printable ASCII, else `"0x"` and 8 hex digits.
//! - [`Hex`]: bytes as a hexadecimal string.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::bytes::round_up;
use crate::text::{from_hex, latin1_until_nul, to_hex, to_latin1};

/// An `f32` kept bit for bit through JSON.
#[derive(Debug, Clone, Copy, Default)]
pub struct F32(pub f32);

/// Equal when the bits are equal (so NaN payloads and −0.0 compare as stored).
impl PartialEq for F32 {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for F32 {}

impl Serialize for F32 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_finite() {
            s.serialize_f32(self.0)
        } else {
            s.serialize_str(&format!("0x{:08x}", self.0.to_bits()))
        }
    }
}

impl<'de> Deserialize<'de> for F32 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Num(f64),
            Bits(String),
        }
        match Repr::deserialize(d)? {
            Repr::Num(v) => Ok(F32(v as f32)),
            Repr::Bits(s) => s
                .strip_prefix("0x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .map(|b| F32(f32::from_bits(b)))
                .ok_or_else(|| de::Error::custom(format!("bad float bits {s:?}"))),
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum NameRepr {
    Text(String),
    Parts { name: String, after_nul: Option<String> },
}

fn name_to_repr(buf: &[u8], canonical_len: impl Fn(usize) -> usize) -> NameRepr {
    let name = latin1_until_nul(buf);
    // The name's length and the bytes after its NUL.
    let nul = buf.iter().position(|&b| b == 0).and_then(|n| Some((n, buf.get(n + 1..)?)));
    match nul {
        Some((n, after)) if buf.len() == canonical_len(n) && after.iter().all(|&b| b == 0) => NameRepr::Text(name),
        Some((_, after)) => NameRepr::Parts { name, after_nul: Some(to_hex(after)) },
        None => NameRepr::Parts { name, after_nul: None },
    }
}

fn repr_to_bytes<E: de::Error>(repr: NameRepr, canonical_len: impl Fn(usize) -> usize) -> Result<Vec<u8>, E> {
    let latin1 = |s: &str| to_latin1(s).ok_or_else(|| E::custom(format!("name {s:?} is not Latin-1 without NUL")));
    Ok(match repr {
        NameRepr::Text(s) => {
            let mut b = latin1(&s)?;
            let n = b.len();
            b.resize(canonical_len(n).max(n + 1), 0);
            b
        }
        NameRepr::Parts { name, after_nul: Some(hex) } => {
            let mut b = latin1(&name)?;
            b.push(0);
            b.extend(from_hex(&hex).ok_or_else(|| E::custom("after_nul is not hex"))?);
            b
        }
        NameRepr::Parts { name, after_nul: None } => latin1(&name)?,
    })
}

/// A fixed `N`-byte name buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedName<const N: usize>(pub [u8; N]);

impl<const N: usize> Serialize for FixedName<N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        name_to_repr(&self.0, |_| N).serialize(s)
    }
}

impl<'de, const N: usize> Deserialize<'de> for FixedName<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes = repr_to_bytes::<D::Error>(NameRepr::deserialize(d)?, |_| N)?;
        let arr: [u8; N] = bytes
            .try_into()
            .map_err(|b: Vec<u8>| de::Error::custom(format!("name takes {} bytes, the field holds {N}", b.len())))?;
        Ok(FixedName(arr))
    }
}

/// A name payload padded with zeros to a multiple of 4 bytes (IFP `NAME` and `INFO` chunks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaddedName(pub Vec<u8>);

impl Serialize for PaddedName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        name_to_repr(&self.0, |n| round_up(n + 1, 4)).serialize(s)
    }
}

impl<'de> Deserialize<'de> for PaddedName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(PaddedName(repr_to_bytes::<D::Error>(NameRepr::deserialize(d)?, |n| round_up(n + 1, 4))?))
    }
}

/// A four-character code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FourCc(pub [u8; 4]);

impl Serialize for FourCc {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
            s.serialize_str(&self.0.iter().map(|&b| b as char).collect::<String>())
        } else {
            s.serialize_str(&format!("0x{}", to_hex(&self.0)))
        }
    }
}

impl<'de> Deserialize<'de> for FourCc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let bytes = match s.strip_prefix("0x") {
            Some(h) if h.len() == 8 => from_hex(h),
            _ => Some(s.bytes().collect()),
        };
        bytes
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(FourCc)
            .ok_or_else(|| de::Error::custom(format!("{s:?} is not a four-character code")))
    }
}

/// Bytes as a hexadecimal string.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hex(pub Vec<u8>);

impl Serialize for Hex {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_hex(&self.0))
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        from_hex(&s).map(Hex).ok_or_else(|| de::Error::custom("not a hexadecimal string"))
    }
}

impl Hex {
    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A raw structure as its JSON dump value.
pub(crate) fn to_value<T: Serialize>(raw: &T) -> crate::error::Result<serde_json::Value> {
    serde_json::to_value(raw)
        .map_err(|e| crate::error::Error::new(crate::error::ErrorKind::Invalid, None, e.to_string()))
}

/// A raw structure read back from its JSON dump value; an error inside `what` (`"SKB dump"`)
/// otherwise.
pub(crate) fn from_value<T: de::DeserializeOwned>(value: serde_json::Value, what: &str) -> crate::error::Result<T> {
    serde_json::from_value(value)
        .map_err(|e| crate::error::Error::new(crate::error::ErrorKind::Invalid, None, e.to_string()).within(what))
}

/// `#[serde(with = "raw_json::hex_bytes")]` on a [`Bytes`](bytes::Bytes) field: written as
/// [`Hex`] is.
pub(crate) mod hex_bytes {
    use bytes::Bytes;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(b: &Bytes, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::text::to_hex(b))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        crate::raw_json::Hex::deserialize(d).map(|h| Bytes::from(h.0))
    }
}

/// `#[serde(with = "raw_json::exact")]` on a plain `f32` field (or an `Option`, `Vec` or
/// `[_; 3]`/`[_; 4]` of them): the field keeps its type and is written as [`F32`] is.
pub(crate) mod exact {
    use crate::raw_json::F32;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// A value made of `f32`s, and its form with every `f32` an [`F32`].
    pub trait Floats: Sized {
        /// The same shape with [`F32`]s.
        type Exact: Serialize + for<'de> Deserialize<'de>;
        /// To the exact form.
        fn exact(&self) -> Self::Exact;
        /// Back from the exact form.
        fn plain(e: Self::Exact) -> Self;
    }

    impl Floats for f32 {
        type Exact = F32;
        fn exact(&self) -> F32 {
            F32(*self)
        }
        fn plain(e: F32) -> f32 {
            e.0
        }
    }

    macro_rules! arrays {
        ($($n:literal),*) => {$(
            impl Floats for [f32; $n] {
                type Exact = [F32; $n];
                fn exact(&self) -> [F32; $n] {
                    self.map(F32)
                }
                fn plain(e: [F32; $n]) -> Self {
                    e.map(|f| f.0)
                }
            }
        )*};
    }
    arrays!(3, 4);

    impl<T: Floats> Floats for Option<T> {
        type Exact = Option<T::Exact>;
        fn exact(&self) -> Self::Exact {
            self.as_ref().map(T::exact)
        }
        fn plain(e: Self::Exact) -> Self {
            e.map(T::plain)
        }
    }

    impl<T: Floats> Floats for Vec<T> {
        type Exact = Vec<T::Exact>;
        fn exact(&self) -> Self::Exact {
            self.iter().map(T::exact).collect()
        }
        fn plain(e: Self::Exact) -> Self {
            e.into_iter().map(T::plain).collect()
        }
    }

    /// Serializes through the exact form.
    pub fn serialize<T: Floats, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        v.exact().serialize(s)
    }

    /// Deserializes through the exact form.
    pub fn deserialize<'de, T: Floats, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        T::Exact::deserialize(d).map(T::plain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round<T: Serialize + for<'de> Deserialize<'de>>(v: &T) -> (String, T) {
        let s = serde_json::to_string(v).unwrap();
        let back = serde_json::from_str(&s).unwrap();
        (s, back)
    }

    #[test]
    fn floats_keep_their_bits() {
        // A spread of bit patterns: every sign/exponent combination with varied mantissas.
        let mut x = 0x1234_5678u32;
        for i in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let bits = if i < 16 {
                [0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0001, 1, 0x7f7f_ffff][i as usize % 7]
            } else {
                x
            };
            let (_, back) = round(&F32(f32::from_bits(bits)));
            assert_eq!(back.0.to_bits(), bits, "{bits:#x}");
        }
        assert_eq!(round(&F32(-0.0)).0, "-0.0");
        assert_eq!(round(&F32(f32::NAN)).0, "\"0x7fc00000\"");
    }

    #[test]
    fn names_show_plain_or_with_garbage() {
        let mut clean = [0u8; 24];
        clean[..3].copy_from_slice(b"ped");
        assert_eq!(round(&FixedName(clean)).0, "\"ped\"");
        let mut dirty = *b"woman_run\0usy\0\0\0\0\0\0\0\0\0\0\0";
        dirty[23] = 7;
        let (s, back) = round(&FixedName(dirty));
        assert_eq!(s, r#"{"name":"woman_run","after_nul":"7573790000000000000000000007"}"#);
        assert_eq!(back.0, dirty);
        let full = FixedName(*b"abcd");
        assert_eq!(round(&full).1, full);
        assert!(serde_json::from_str::<FixedName<4>>("\"abcd\"").is_err());
        let padded = PaddedName(b"ped\0".to_vec());
        assert_eq!(round(&padded).0, "\"ped\"");
        let long = PaddedName(b"run\0\0\0\0\0".to_vec());
        assert_eq!(round(&long).1, long);
        assert_eq!(round(&FourCc(*b"KR00")).0, "\"KR00\"");
        assert_eq!(round(&FourCc([0, 1, 2, 3])).1, FourCc([0, 1, 2, 3]));
    }
}

/// The byte offset in `json` of a serde_json error's position (1-based line and column; the
/// start of the text when the error has no position).
pub fn json_error_offset(json: &[u8], e: &serde_json::Error) -> usize {
    let (line, column) = (e.line(), e.column());
    let line_start = if line <= 1 {
        0
    } else {
        json.iter().enumerate().filter(|&(_, &b)| b == b'\n').nth(line - 2).map_or(json.len(), |(i, _)| i + 1)
    };
    line_start.saturating_add(column.saturating_sub(1)).min(json.len())
}

/// Indented JSON for hand editing: objects and arrays of containers one member per line, arrays
/// of plain values (a frame's numbers) on a single line.
pub fn to_pretty_string(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_pretty(value, 0, &mut out);
    out
}

fn write_pretty(value: &serde_json::Value, indent: usize, out: &mut String) {
    use serde_json::Value;
    let pad = |n: usize, out: &mut String| out.extend(std::iter::repeat_n(' ', n));
    match value {
        Value::Array(items) if items.iter().all(|v| !v.is_array() && !v.is_object()) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&v.to_string());
            }
            out.push(']');
        }
        Value::Array(items) => {
            out.push_str("[\n");
            for (i, v) in items.iter().enumerate() {
                pad(indent + 2, out);
                write_pretty(v, indent + 2, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(indent, out);
            out.push(']');
        }
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Object(map) => {
            out.push_str("{\n");
            for (i, (k, v)) in map.iter().enumerate() {
                pad(indent + 2, out);
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                write_pretty(v, indent + 2, out);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            pad(indent, out);
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod pretty_tests {
    #[test]
    fn json_errors_map_to_byte_offsets() {
        // serde_json reports 1-based line and column: "{\n  x" fails at line 2 column 3 = byte 4.
        for (text, at) in [(&b"{\n  x"[..], 4), (b"{x", 1), (b"", 0)] {
            let e = serde_json::from_slice::<serde_json::Value>(text).unwrap_err();
            assert_eq!(super::json_error_offset(text, &e), at, "{:?}", std::str::from_utf8(text));
        }
    }

    #[test]
    fn frames_stay_on_one_line_and_parse_back() {
        let v = serde_json::json!({"magic": "ANP3", "frames": [[1, 2], [3, -4]], "e": [], "o": {}, "s": "a\"b"});
        let text = super::to_pretty_string(&v);
        assert_eq!(
            text,
            "{\n  \"magic\": \"ANP3\",\n  \"frames\": [\n    [1, 2],\n    [3, -4]\n  ],\n  \"e\": [],\n  \"o\": {},\n  \"s\": \"a\\\"b\"\n}"
        );
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), v);
    }

    #[test]
    fn exact_fields_keep_their_bits_and_type() {
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct S {
            #[serde(with = "crate::raw_json::exact")]
            a: f32,
            #[serde(with = "crate::raw_json::exact")]
            b: Option<[f32; 3]>,
            #[serde(with = "crate::raw_json::exact")]
            c: Vec<f32>,
        }
        let v = S { a: -0.0, b: Some([f32::from_bits(0x7fc0_0001), 0.1, 1e-45]), c: vec![3.5] };
        let s = serde_json::to_string(&v).unwrap();
        assert_eq!(s, r#"{"a":-0.0,"b":["0x7fc00001",0.1,1e-45],"c":[3.5]}"#);
        let back: S = serde_json::from_str(&s).unwrap();
        assert_eq!(back.a.to_bits(), v.a.to_bits());
        assert_eq!(back.b.map(|b| b.map(f32::to_bits)), v.b.map(|b| b.map(f32::to_bits)));
        assert_eq!(back.c, v.c);
    }
}
