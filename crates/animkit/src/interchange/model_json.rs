//! `model-json`: the model [`Package`] as JSON (serde), written and read back losslessly.
//!
//! The file is `{"animkit_model": 1, "package": {…}}`: the envelope names the schema version; a
//! bare Package object is accepted on reading too. Floats are written in the shortest form that
//! reads back to the same `f32`, so `model → JSON → model` is exact (finite values; JSON has no
//! NaN). Being the model itself, it is the lossless interchange for every channel, including
//! texture patterns, scalar parameters and visibility, which glTF can only carry in extras.

use bytes::Bytes;
use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::format::{Capabilities, Confidence, Document, Format, ReadOptions, Repaired, WriteOptions, Written};
use crate::lint::Finding;
use crate::model::Package;

/// The schema version in the envelope.
pub(crate) const MODEL_JSON_VERSION: u64 = 1;
const KEY: &str = "animkit_model";

/// The model as JSON.
pub struct ModelJson;

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Invalid, None, message).within("model JSON")
}

/// The package in a model-JSON value (enveloped or bare), after checking every track.
pub(crate) fn package_from_value(value: Value) -> Result<Package> {
    let package = match value {
        Value::Object(mut map) if map.contains_key(KEY) => {
            match map.get(KEY).and_then(Value::as_u64) {
                Some(MODEL_JSON_VERSION) => {}
                other => return Err(invalid(format!("\"{KEY}\": {other:?} is not version {MODEL_JSON_VERSION}"))),
            }
            map.remove("package").ok_or_else(|| invalid("missing \"package\""))?
        }
        other => other,
    };
    let package: Package = serde_json::from_value(package).map_err(|e| invalid(e.to_string()))?;
    validate(&package)?;
    Ok(package)
}

/// The envelope, deserialised straight into the model: no `serde_json::Value` of the whole file
/// is built, so reading costs about the model's own size (a `Value` of a 60 MB file took 2.3 GB).
#[derive(serde::Deserialize)]
struct Envelope {
    #[allow(dead_code)]
    animkit_model: Version,
    package: Package,
}

/// The envelope's schema version; any other than [`MODEL_JSON_VERSION`] fails where it is read.
struct Version;

impl<'de> serde::Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        match u64::deserialize(d)? {
            MODEL_JSON_VERSION => Ok(Version),
            other => Err(serde::de::Error::custom(format!("\"{KEY}\": {other} is not version {MODEL_JSON_VERSION}"))),
        }
    }
}

/// The package of a model-JSON file (enveloped or bare), deserialised straight into the model.
/// A bare package is read when the object has no `animkit_model` (the first pass skips what it
/// does not know without keeping it).
fn parse_package(bytes: &[u8]) -> Result<Package> {
    let at = |e: &serde_json::Error| crate::raw_json::json_error_offset(bytes, e) as u64;
    let error = |e: serde_json::Error| Error::new(ErrorKind::Invalid, Some(at(&e)), e.to_string()).within("model JSON");
    match serde_json::from_slice::<Envelope>(bytes) {
        Ok(envelope) => Ok(envelope.package),
        Err(e) if e.is_data() && e.to_string().starts_with(&format!("missing field `{KEY}`")) => {
            serde_json::from_slice::<Package>(bytes).map_err(error)
        }
        Err(e) => Err(error(e)),
    }
}

/// Checks every track and the skeleton of a package read from JSON.
fn validate(package: &Package) -> Result<()> {
    for (ci, clip) in package.clips.iter().enumerate() {
        for (ti, track) in clip.tracks.iter().enumerate() {
            track.validate().map_err(|m| invalid(format!("clip {ci} \"{}\" track {ti}: {m}", clip.name)))?;
        }
    }
    if let Some(s) = &package.skeleton {
        s.validate().map_err(|m| invalid(format!("skeleton: {m}")))?;
    }
    Ok(())
}

/// The enveloped JSON value of a package.
pub(crate) fn package_to_value(package: &Package) -> Result<Value> {
    let p = serde_json::to_value(package).map_err(|e| invalid(e.to_string()))?;
    Ok(serde_json::json!({ KEY: MODEL_JSON_VERSION, "package": p }))
}

impl Format for ModelJson {
    fn name(&self) -> &'static str {
        "model-json"
    }

    fn description(&self) -> &'static str {
        "the animkit model (Package) as JSON: every channel, lossless, readable and writable"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["json"]
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { read: true, to_model: true, from_model: true, dump: true, archive: false, skeleton: true }
    }

    fn probe(&self, bytes: &[u8]) -> Confidence {
        let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let start = text.iter().position(|b| !b.is_ascii_whitespace());
        if start.and_then(|s| text.get(s)) != Some(&b'{') {
            return Confidence::No;
        }
        let head = text.get(..256).unwrap_or(text);
        // `"` then the key then one more byte (its closing quote).
        let key_at = |w: &[u8]| w.split_first().is_some_and(|(&q, rest)| q == b'"' && rest.starts_with(KEY.as_bytes()));
        if head.windows(KEY.len() + 2).any(key_at) {
            Confidence::Certain
        } else {
            Confidence::No
        }
    }

    fn read(&self, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
        let package = parse_package(&bytes)?;
        // A well-formed document with a wrong structure: the error names the clip and track, and
        // the document as a whole (offset 0) as where it is.
        validate(&package).map_err(|e| Error { offset: e.offset.or(Some(0)), ..e })?;
        let keys = package.key_count() as u64;
        if keys > options.limits.max_keys {
            let message = format!("{keys} keys exceed the limit of {}", options.limits.max_keys);
            return Err(Error::new(ErrorKind::Limit, Some(0), message).within("model JSON"));
        }
        Ok(Box::new(ModelJsonDocument { bytes, package }))
    }

    fn from_model(&self, package: &Package, _options: &WriteOptions) -> Result<Written> {
        // Serialised directly (not through a `Value`, which would widen every f32 to f64 digits).
        #[derive(serde::Serialize)]
        struct Envelope<'a> {
            animkit_model: u64,
            package: &'a Package,
        }
        let envelope = Envelope { animkit_model: MODEL_JSON_VERSION, package };
        let mut bytes = serde_json::to_vec_pretty(&envelope).map_err(|e| invalid(e.to_string()))?;
        bytes.push(b'\n');
        let document = ModelJsonDocument { bytes: Bytes::from(bytes), package: package.clone() };
        Ok(Written { document: Box::new(document), warnings: Vec::new() })
    }

    fn undump(&self, value: Value) -> Result<Box<dyn Document>> {
        let package = package_from_value(value.clone())?;
        let mut bytes = serde_json::to_vec_pretty(&value).map_err(|e| invalid(e.to_string()))?;
        bytes.push(b'\n');
        Ok(Box::new(ModelJsonDocument { bytes: Bytes::from(bytes), package }))
    }
}

/// A model-JSON file: its bytes and the package.
pub struct ModelJsonDocument {
    bytes: Bytes,
    package: Package,
}

impl Document for ModelJsonDocument {
    fn format(&self) -> &'static dyn Format {
        &ModelJson
    }

    fn version(&self) -> String {
        format!("model JSON v{MODEL_JSON_VERSION}")
    }

    fn write(&self) -> Result<Vec<u8>> {
        Ok(self.bytes.to_vec())
    }

    fn to_model(&self) -> Result<Package> {
        Ok(self.package.clone())
    }

    fn dump(&self) -> Result<Value> {
        package_to_value(&self.package)
    }

    fn lint(&self) -> Vec<Finding> {
        Vec::new()
    }

    fn repair(&self) -> Result<Repaired> {
        Ok(Repaired {
            document: Box::new(ModelJsonDocument { bytes: self.bytes.clone(), package: self.package.clone() }),
            changes: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BoneRef, Clip, Interpolation, Target, Track, Values};
    use glam::Quat;

    #[test]
    fn package_round_trips_exactly() {
        let q = Quat::from_rotation_x(0.1234567).normalize();
        let package = Package {
            name: "p".into(),
            clips: vec![Clip {
                name: "c".into(),
                duration: 1.0 / 3.0,
                tracks: vec![Track {
                    target: Target::Bone(BoneRef { hash: Some(0x78561A24), ..Default::default() }),
                    interpolation: Interpolation::Nlerp,
                    times: vec![0.0, 1.0 / 3.0],
                    values: Values::Rotation(vec![Quat::IDENTITY, q]),
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let written = ModelJson.from_model(&package, &WriteOptions::default()).unwrap();
        let bytes = written.document.write().unwrap();
        assert_eq!(ModelJson.probe(&bytes), Confidence::Certain);
        let back = ModelJson.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap();
        assert_eq!(back.to_model().unwrap(), package);
        assert_eq!(back.write().unwrap(), bytes);
        // A bare Package reads too; a bad track is an error, not a panic.
        let bare = serde_json::to_vec(&package).unwrap();
        assert_eq!(ModelJson.read(Bytes::from(bare), &ReadOptions::default()).unwrap().to_model().unwrap(), package);
        let mut broken = package.clone();
        broken.clips[0].tracks[0].times.push(2.0);
        let bad = serde_json::to_vec(&broken).unwrap();
        assert!(ModelJson.read(Bytes::from(bad), &ReadOptions::default()).is_err());
        for n in 0..bytes.len() {
            let _ = ModelJson.read(Bytes::from(bytes[..n].to_vec()), &ReadOptions::default());
        }
    }
}
