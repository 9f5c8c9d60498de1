//! The string pool (spec §2.3): `u32 len`, the bytes, NUL, zero padding to 4; sorted by bytes,
//! the empty string last. Entries keep their stored length word and padding, so a pool with odd
//! padding still writes back byte for byte.

use serde::{Deserialize, Serialize};

use crate::bytes::{round_up, Cursor, Writer};
use crate::error::{Error, Result};
use crate::raw_json::Hex;

/// One pool entry as stored; its JSON form is a plain string when canonical (see below).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "PoolStringDump", into = "PoolStringDump")]
pub struct PoolString {
    /// The stored length word.
    pub len: u32,
    /// The string's bytes.
    pub text: Vec<u8>,
    /// The NUL and padding after the text.
    pub tail: Vec<u8>,
}

impl PoolString {
    /// A canonical entry for `text`, placed at a 4-aligned position.
    pub fn new(text: &[u8]) -> Self {
        let tail = round_up(text.len() + 1, 4) - text.len();
        PoolString { len: text.len() as u32, text: text.to_vec(), tail: vec![0; tail] }
    }

    fn is_canonical(&self) -> bool {
        *self == PoolString::new(&self.text) && std::str::from_utf8(&self.text).is_ok()
    }

    /// The bytes the entry takes: length word, text, NUL and padding.
    pub fn byte_len(&self) -> usize {
        4 + self.text.len() + self.tail.len()
    }
}

/// Reads entries from the cursor's position until `end` (absolute). Returns `None` when the bytes
/// are not a well-formed pool (the caller keeps them opaque).
pub fn read_pool(c: &mut Cursor, end: usize) -> Result<Vec<PoolString>> {
    let mut out = Vec::new();
    while c.offset() < end {
        let at = c.offset();
        let len = c.u32()?;
        let n = c.count(u64::from(len), 1, "string byte")?;
        if at + 4 + n >= end {
            return Err(Error::invalid(at, format!("string of {len} bytes runs past the pool end")));
        }
        let text = c.take(n)?.to_vec();
        let tail_len = (round_up(c.offset() + 1, 4) - c.offset()).min(end - c.offset());
        let tail = c.take(tail_len)?.to_vec();
        if tail.first() != Some(&0) {
            return Err(Error::invalid(at, "string is not NUL-terminated"));
        }
        out.push(PoolString { len, text, tail });
    }
    Ok(out)
}

/// Appends the pool's entries as stored.
pub fn write_pool(w: &mut Writer, pool: &[PoolString]) {
    for s in pool {
        w.u32(s.len);
        w.bytes(&s.text);
        w.bytes(&s.tail);
    }
}

/// The JSON form: a plain string for a canonical UTF-8 entry, else every stored part.
#[derive(Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
enum PoolStringDump {
    Text(String),
    Raw { len: u32, text: Hex, tail: Hex },
}

impl From<PoolString> for PoolStringDump {
    fn from(s: PoolString) -> Self {
        if s.is_canonical() {
            PoolStringDump::Text(String::from_utf8_lossy(&s.text).into_owned())
        } else {
            PoolStringDump::Raw { len: s.len, text: Hex(s.text), tail: Hex(s.tail) }
        }
    }
}

impl From<PoolStringDump> for PoolString {
    fn from(d: PoolStringDump) -> Self {
        match d {
            PoolStringDump::Text(t) => PoolString::new(t.as_bytes()),
            PoolStringDump::Raw { len, text, tail } => PoolString { len, text: text.0, tail: tail.0 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Endian;

    #[test]
    fn pool_round_trips_and_pads() {
        let pool = vec![PoolString::new(b"Dead"), PoolString::new(b"abc"), PoolString::new(b"")];
        let mut w = Writer::new(Endian::Big);
        write_pool(&mut w, &pool);
        let bytes = w.into_vec();
        // "Dead": 4 + 4 + NUL + 3 pad = 12; "abc": 4 + 3 + NUL = 8; "": 4 + NUL + 3 pad = 8.
        assert_eq!(bytes.len(), 28);
        let mut c = Cursor::new(&bytes, Endian::Big);
        assert_eq!(read_pool(&mut c, 28).unwrap(), pool);
        assert_eq!(super::super::platform::name_at(&bytes, 4).unwrap(), "Dead");
    }
}
