//! The JSON of a glTF document: typed top-level members, with the two long arrays kept as text.
//!
//! A parsed `serde_json::Value` takes about 14 bytes of heap per byte of glTF JSON (every object
//! is a map of its own): the SA `ped.ifp` export, 2.2 MB of JSON, became 30 MB. Nearly all of it
//! is the `animations` (one object per channel and sampler) and the `accessors` (one per key
//! array). Those two arrays are kept as the text of each element: the exporter writes each element
//! as soon as it is complete, and the import parses one element at a time into its
//! `schema` struct. Every other member animkit uses is parsed into its struct;
//! members it does not use are skipped.

use std::fmt;

use serde::de::{self, DeserializeOwned, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::schema::{Accessor, Animation, Asset, Buffer, BufferView, Mesh, Node, RootExtras, Scene, Skin};
use crate::error::{Error, ErrorKind, Result};

/// A glTF JSON object: the members animkit reads and writes, in the order it writes them.
#[derive(Debug, Default)]
pub struct GltfJson {
    /// `asset`.
    pub asset: Asset,
    /// `scene`: the default scene (written, not read).
    pub scene: Option<usize>,
    /// `extras.animkit` of the root.
    pub animkit: Option<RootExtras>,
    /// `scenes`.
    pub scenes: Vec<Scene>,
    /// `extensionsUsed` (written, not read).
    pub extensions_used: Vec<&'static str>,
    /// `nodes`.
    pub nodes: Vec<Node>,
    animations: Vec<Box<RawValue>>,
    /// `skins`.
    pub skins: Vec<Skin>,
    /// `meshes` (written, not read).
    pub meshes: Vec<Mesh>,
    accessors: Vec<Box<RawValue>>,
    /// `bufferViews`.
    pub buffer_views: Vec<BufferView>,
    /// `buffers`.
    pub buffers: Vec<Buffer>,
}

fn json_error(e: serde_json::Error) -> Error {
    Error::new(ErrorKind::Invalid, None, format!("glTF JSON: {e}"))
}

/// Parses each element of a top-level array, naming the element in an error.
fn elements<T: DeserializeOwned, E: de::Error>(items: Vec<Box<RawValue>>, what: &str) -> Result<Vec<T>, E> {
    let parse = |(i, raw): (usize, Box<RawValue>)| {
        serde_json::from_str(raw.get()).map_err(|e| E::custom(format!("{what} {i}: {e}")))
    };
    items.into_iter().enumerate().map(parse).collect()
}

/// Reads the top-level object member by member.
struct TopLevel;

impl<'de> Visitor<'de> for TopLevel {
    type Value = GltfJson;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<GltfJson, A::Error> {
        let mut json = GltfJson::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "asset" => json.asset = map.next_value()?,
                "extras" => json.animkit = root_extras(map.next_value()?)?,
                "scenes" => json.scenes = elements(map.next_value()?, "scene")?,
                "nodes" => json.nodes = elements(map.next_value()?, "node")?,
                "skins" => json.skins = elements(map.next_value()?, "skin")?,
                "bufferViews" => json.buffer_views = elements(map.next_value()?, "bufferView")?,
                "buffers" => json.buffers = elements(map.next_value()?, "buffer")?,
                "animations" => json.animations = map.next_value()?,
                "accessors" => json.accessors = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(json)
    }
}

/// The root's `extras.animkit` (none when `extras` is no object or has no `animkit`).
fn root_extras<E: de::Error>(extras: Value) -> Result<Option<RootExtras>, E> {
    match extras {
        Value::Object(mut extras) => match extras.remove("animkit") {
            Some(ours) => serde_json::from_value(ours).map(Some).map_err(|e| E::custom(format!("extras.animkit: {e}"))),
            None => Ok(None),
        },
        _ => Ok(None),
    }
}

/// Writes the members animkit has, in its order (empty arrays and absent members left out).
impl Serialize for GltfJson {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Extras<'a> {
            animkit: &'a RootExtras,
        }
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("asset", &self.asset)?;
        if let Some(scene) = self.scene {
            map.serialize_entry("scene", &scene)?;
        }
        if let Some(animkit) = &self.animkit {
            map.serialize_entry("extras", &Extras { animkit })?;
        }
        fn array<M: SerializeMap, T: Serialize>(map: &mut M, key: &str, items: &[T]) -> Result<(), M::Error> {
            if items.is_empty() {
                return Ok(());
            }
            map.serialize_entry(key, items)
        }
        array(&mut map, "scenes", &self.scenes)?;
        array(&mut map, "extensionsUsed", &self.extensions_used)?;
        array(&mut map, "nodes", &self.nodes)?;
        array(&mut map, "animations", &self.animations)?;
        array(&mut map, "skins", &self.skins)?;
        array(&mut map, "meshes", &self.meshes)?;
        array(&mut map, "accessors", &self.accessors)?;
        array(&mut map, "bufferViews", &self.buffer_views)?;
        array(&mut map, "buffers", &self.buffers)?;
        map.end()
    }
}

/// Counts the bytes written to it.
struct Count(usize);

impl std::io::Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
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
    #[cfg(test)]
    pub fn from_value(value: Value) -> Result<GltfJson> {
        let text = serde_json::to_vec(&value).map_err(json_error)?;
        GltfJson::parse(&text).map_err(json_error)
    }

    /// The length of [`GltfJson::write`]'s text.
    pub fn text_len(&self) -> Result<usize> {
        let mut count = Count(0);
        serde_json::to_writer(&mut count, self).map_err(json_error)?;
        Ok(count.0)
    }

    /// Appends the JSON text.
    pub fn write(&self, out: &mut Vec<u8>) -> Result<()> {
        serde_json::to_writer(out, self).map_err(json_error)
    }

    /// How many animations the file lists.
    pub fn animation_count(&self) -> usize {
        self.animations.len()
    }

    /// Animation `i`, parsed.
    pub fn animation(&self, i: usize) -> Result<Animation> {
        element(&self.animations, i, "animation")
    }

    /// Accessor `i`, parsed.
    pub fn accessor(&self, i: usize) -> Result<Accessor> {
        element(&self.accessors, i, "accessor")
    }

    /// Appends an animation, written as text now; returns its index.
    pub fn push_animation(&mut self, animation: &Animation) -> Result<usize> {
        push_element(&mut self.animations, animation)
    }

    /// Appends an accessor, written as text now; returns its index.
    pub fn push_accessor(&mut self, accessor: &Accessor) -> Result<usize> {
        push_element(&mut self.accessors, accessor)
    }
}

fn element<T: DeserializeOwned>(items: &[Box<RawValue>], i: usize, what: &str) -> Result<T> {
    let raw = items.get(i).ok_or_else(|| Error::new(ErrorKind::Invalid, None, format!("{what} {i} does not exist")))?;
    serde_json::from_str(raw.get()).map_err(|e| Error::new(ErrorKind::Invalid, None, format!("{what} {i}: {e}")))
}

fn push_element<T: Serialize>(items: &mut Vec<Box<RawValue>>, value: &T) -> Result<usize> {
    let raw = serde_json::value::to_raw_value(value).map_err(|e| Error::unrepresentable(format!("glTF JSON: {e}")))?;
    items.push(raw);
    Ok(items.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_arrays_are_read_element_by_element() {
        let text = br#"{"asset":{"version":"2.0"},"accessors":[{"componentType":5126,"count":1,"type":"SCALAR"},{"componentType":5126,"count":2,"type":"VEC3"}],"nodes":[{}],"other":[1]}"#;
        let json = GltfJson::parse(text).unwrap();
        assert_eq!(json.accessor(1).unwrap().count, 2);
        assert!(json.accessor(2).is_err());
        assert_eq!(json.animation_count(), 0);
        assert_eq!(json.nodes.len(), 1);
        assert_eq!(json.asset.version, "2.0");
        // A long array that is no array is an error (it was read as no elements).
        assert!(GltfJson::parse(br#"{"asset":{"version":"2.0"},"animations":5}"#).is_err());
        let e = GltfJson::parse(b"[1]").unwrap_err();
        assert!(GltfJson::is_not_an_object(&e), "{e}");
        assert!(!GltfJson::is_not_an_object(&GltfJson::parse(b"{\"a\":").unwrap_err()));
    }

    #[test]
    fn element_errors_name_the_element() {
        let e = GltfJson::parse(br#"{"nodes":[{},{"children":"x"}]}"#).unwrap_err();
        assert!(e.to_string().contains("node 1"), "{e}");
    }

    #[test]
    fn other_tools_extras_are_skipped() {
        let text = br#"{"asset":{"version":"2.0"},"extras":"free text","nodes":[{"extras":[1,2]},{"extras":{"blender":1,"animkit":{"id":3}}}]}"#;
        let json = GltfJson::parse(text).unwrap();
        assert!(json.animkit.is_none());
        assert!(json.nodes[0].animkit.is_none());
        assert_eq!(json.nodes[1].animkit.as_ref().unwrap().id, Some(3));
    }
}
