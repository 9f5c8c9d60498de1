//! The JSON of a glTF document, with its two long arrays kept as text.
//!
//! A parsed `serde_json::Value` takes about 14 bytes of heap per byte of glTF JSON (every object
//! is a map of its own): the SA `ped.ifp` export, 2.2 MB of JSON, became 30 MB. Nearly all of it
//! is the `animations` (one object per channel and sampler) and the `accessors` (one per key
//! array). Those two arrays are kept as the text of each element and parsed one element at a time
//! when the import reads it; every other top-level member (nodes, skins, extras…) is parsed.

use std::fmt;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};

/// The top-level members kept as text, element by element.
const LAZY: [&str; 2] = ["animations", "accessors"];

/// A glTF JSON object: `animations` and `accessors` as the text of each element, the rest parsed.
#[derive(Debug, Default)]
pub struct GltfJson {
    /// Every top-level member but the two arrays below (and those, when they are not arrays).
    rest: Value,
    animations: Vec<Box<RawValue>>,
    accessors: Vec<Box<RawValue>>,
}

/// The JSON of a top-level member: its text, or an array's elements, each as its text.
#[derive(Debug)]
pub enum Member {
    Text(Vec<u8>),
    Elements(Vec<Box<RawValue>>),
}

impl Member {
    /// The length of [`Member::write`]'s text.
    pub fn len(&self) -> usize {
        match self {
            Member::Text(text) => text.len(),
            Member::Elements(items) => {
                2 + items.iter().map(|e| e.get().len()).sum::<usize>() + items.len().saturating_sub(1)
            }
        }
    }

    /// Whether the text is empty (never, for a member the exporter made).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the text (an array's elements within `[]`, separated by `,`, as serde_json writes).
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Member::Text(text) => out.extend_from_slice(text),
            Member::Elements(items) => {
                out.push(b'[');
                for (i, e) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(e.get().as_bytes());
                }
                out.push(b']');
            }
        }
    }
}

/// Reads the top-level object member by member.
struct TopLevel;

impl<'de> Visitor<'de> for TopLevel {
    type Value = GltfJson;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<GltfJson, A::Error> {
        let mut rest = Map::new();
        let mut json = GltfJson::default();
        while let Some(key) = map.next_key::<String>()? {
            if !LAZY.contains(&key.as_str()) {
                rest.insert(key, map.next_value()?);
                continue;
            }
            let raw: Box<RawValue> = map.next_value()?;
            match serde_json::from_str::<Vec<Box<RawValue>>>(raw.get()) {
                Ok(items) if key == "animations" => json.animations = items,
                Ok(items) => json.accessors = items,
                // Not an array: kept as it is, so it reads as no elements (as `list` does).
                Err(_) => {
                    rest.insert(key, serde_json::from_str(raw.get()).map_err(de::Error::custom)?);
                }
            }
        }
        json.rest = Value::Object(rest);
        Ok(json)
    }
}

impl GltfJson {
    /// Parses glTF JSON text. An error says where (the serde_json error's line and column); see
    /// [`GltfJson::is_not_an_object`] for valid JSON that is not an object.
    pub fn parse(text: &[u8]) -> std::result::Result<GltfJson, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_slice(text);
        let json = (&mut de).deserialize_map(TopLevel)?;
        de.end()?;
        Ok(json)
    }

    /// Whether a parse error means the JSON is valid but not an object.
    pub fn is_not_an_object(e: &serde_json::Error) -> bool {
        e.classify() == serde_json::error::Category::Data && e.to_string().contains("expected a JSON object")
    }

    /// The same structure from a parsed value (for documents built in memory).
    pub fn from_value(value: Value) -> Result<GltfJson> {
        let text = serde_json::to_vec(&value).map_err(|e| Error::new(ErrorKind::Invalid, None, e.to_string()))?;
        GltfJson::parse(&text).map_err(|e| Error::new(ErrorKind::Invalid, None, e.to_string()))
    }

    /// The structure of a document built in memory from its top-level members (the exporter's).
    pub fn from_members(members: Vec<(&'static str, Member)>) -> Result<GltfJson> {
        let invalid = |e: serde_json::Error| Error::new(ErrorKind::Invalid, None, format!("glTF JSON: {e}"));
        let mut rest = Map::new();
        let mut json = GltfJson::default();
        for (key, member) in members {
            match (key, member) {
                ("animations", Member::Elements(items)) => json.animations = items,
                ("accessors", Member::Elements(items)) => json.accessors = items,
                (_, Member::Elements(items)) => {
                    let values = items.iter().map(|e| serde_json::from_str(e.get())).collect::<Result<_, _>>();
                    rest.insert(key.to_string(), Value::Array(values.map_err(invalid)?));
                }
                (_, Member::Text(text)) => {
                    rest.insert(key.to_string(), serde_json::from_slice(&text).map_err(invalid)?);
                }
            }
        }
        json.rest = Value::Object(rest);
        Ok(json)
    }

    /// A parsed top-level member (`None` for `animations` and `accessors` arrays: see
    /// [`GltfJson::animation`], [`GltfJson::accessor`]).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.rest.get(key)
    }

    /// The elements of a parsed top-level array member (none when it is absent or no array).
    pub fn list(&self, key: &str) -> &[Value] {
        self.rest.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
    }

    /// A JSON pointer into the parsed members.
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        self.rest.pointer(pointer)
    }

    /// How many animations the file lists.
    pub fn animation_count(&self) -> usize {
        self.animations.len()
    }

    /// How many accessors the file lists.
    pub fn accessor_count(&self) -> usize {
        self.accessors.len()
    }

    /// Animation `i`, parsed.
    pub fn animation(&self, i: usize) -> Result<Value> {
        element(&self.animations, i, "animation")
    }

    /// Accessor `i`, parsed.
    pub fn accessor(&self, i: usize) -> Result<Value> {
        element(&self.accessors, i, "accessor")
    }

    /// Accessor `i`, parsed into `T` (a struct of the fields a reader needs skips the others).
    pub fn accessor_as<T: DeserializeOwned>(&self, i: usize) -> Result<T> {
        element(&self.accessors, i, "accessor")
    }
}

fn element<T: DeserializeOwned>(items: &[Box<RawValue>], i: usize, what: &str) -> Result<T> {
    let raw = items.get(i).ok_or_else(|| Error::new(ErrorKind::Invalid, None, format!("{what} {i} does not exist")))?;
    serde_json::from_str(raw.get()).map_err(|e| Error::new(ErrorKind::Invalid, None, format!("{what} {i}: {e}")))
}

/// The array `json[key]`, empty when it is missing or not an array.
pub(super) fn list<'a>(json: &'a Value, key: &str) -> &'a [Value] {
    json.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The index `v`, which must be below `len`; `what` names it in the error.
pub(super) fn index(v: Option<&Value>, len: usize, what: &str) -> Result<usize> {
    let i = v
        .and_then(Value::as_u64)
        .ok_or_else(|| Error::new(ErrorKind::Invalid, None, format!("{what}: missing or not an index")))?;
    usize::try_from(i)
        .ok()
        .filter(|&i| i < len)
        .ok_or_else(|| Error::new(ErrorKind::Invalid, None, format!("{what}: index {i} out of range ({len})")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_arrays_are_read_element_by_element() {
        let text = br#"{"asset":{"version":"2.0"},"accessors":[{"count":1},{"count":2}],"animations":5,"nodes":[{}]}"#;
        let json = GltfJson::parse(text).unwrap();
        assert_eq!(json.accessor_count(), 2);
        assert_eq!(json.accessor(1).unwrap()["count"], 2);
        assert!(json.accessor(2).is_err());
        // Not an array: no animations, and the member stays readable.
        assert_eq!(json.animation_count(), 0);
        assert_eq!(json.get("animations"), Some(&Value::from(5)));
        assert_eq!(json.pointer("/asset/version").and_then(Value::as_str), Some("2.0"));
        let e = GltfJson::parse(b"[1]").unwrap_err();
        assert!(GltfJson::is_not_an_object(&e), "{e}");
        assert!(!GltfJson::is_not_an_object(&GltfJson::parse(b"{\"a\":").unwrap_err()));
    }
}
