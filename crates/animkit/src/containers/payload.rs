//! What the compression containers (Yaz0, Zstandard) share about the file they hold: its dump
//! and its entry name.

use bytes::Bytes;

use crate::error::{Error, ErrorKind, Result};
use crate::format::{Entry, ReadOptions};
use crate::registry::Registry;

/// The payload in a dump (read, dumped and packed through `registry`): an animkit dump of its own format when that packs back to exactly
/// these bytes (so it can be edited), else a hexadecimal string.
pub fn to_dump(registry: &Registry, payload: &Bytes, options: &ReadOptions) -> serde_json::Value {
    let structured = registry.read(payload.clone(), None, options).ok().and_then(|inner| {
        let v = registry.dump(inner.as_ref()).ok()?;
        let back = registry.pack(v.clone()).ok()?.write().ok()?;
        (back == payload.as_ref()).then_some(v)
    });
    structured.unwrap_or_else(|| serde_json::Value::String(crate::text::to_hex(payload)))
}

/// The payload bytes of a dump made by [`to_dump`].
pub fn from_dump(registry: &Registry, value: serde_json::Value) -> Result<Vec<u8>> {
    match value {
        serde_json::Value::String(h) => {
            crate::text::from_hex(&h).ok_or_else(|| Error::new(ErrorKind::Invalid, None, "payload is not hexadecimal"))
        }
        v => registry.pack(v).and_then(|doc| doc.write()).map_err(|e| e.within("payload")),
    }
}

/// The payload as one entry, `payload.EXT` after the format it reads as (`payload.sarc`).
pub fn entry(registry: &Registry, payload: &Bytes) -> Entry {
    let kind = payload.get(..4).map(|m| String::from_utf8_lossy(m).into_owned()).unwrap_or_default();
    let ext = registry.probe(payload, None).ok().and_then(|f| f.extensions().first().copied()).unwrap_or("bin");
    Entry { name: format!("payload.{ext}"), kind, data: payload.clone() }
}
