//! A registry: a list of formats in probing order, and what is done through it (probe, read,
//! look up by name or extension, dump and pack, check options).
//!
//! A registry is a value. The library's own is [`crate::REGISTRY`]; a container that reads the
//! files it holds (Yaz0, Zstandard, SARC) is given the registry it reads them with when it is
//! made, so it never reaches back for a global one, and a program may build a registry of its own
//! formats around the same containers.

use std::collections::BTreeMap;
use std::path::Path;

use bytes::Bytes;

use crate::error::{Error, ErrorKind, Result};
use crate::format::{check_replacement, Confidence, Document, Format, Param, ReadOptions};

/// The version of the JSON dump envelope written by [`Registry::dump`]. 2: the IFP, SKB,
/// CryEngine and Switch BFRES documents are the serde form of their raw structures (version 1
/// dumps of those formats do not pack).
pub const DUMP_VERSION: u32 = 2;

/// Formats in probing order, and the read settings every one of them takes.
pub struct Registry {
    formats: &'static [&'static dyn Format],
    common_read_params: &'static [Param],
}

impl Registry {
    /// A registry of `formats` (in probing order); `common_read_params` are read settings any
    /// input takes besides its format's own (e.g. a dictionary for Zstandard files nested in it).
    pub const fn new(formats: &'static [&'static dyn Format], common_read_params: &'static [Param]) -> Self {
        Registry { formats, common_read_params }
    }

    /// The formats, in probing order.
    pub fn formats(&self) -> &'static [&'static dyn Format] {
        self.formats
    }

    /// The read settings every format takes besides its own.
    pub fn common_read_params(&self) -> &'static [Param] {
        self.common_read_params
    }

    /// Finds the format of `bytes`: the most confident probe wins; a tie at the top is an error.
    /// `path` (optional) only improves the error message when nothing matches.
    pub fn probe(&self, bytes: &[u8], path: Option<&Path>) -> Result<&'static dyn Format> {
        let mut best: Option<(&'static dyn Format, Confidence)> = None;
        let mut tie = false;
        for &format in self.formats {
            let c = format.probe(bytes);
            match best {
                _ if c == Confidence::No => {}
                Some((_, b)) if c < b => {}
                Some((_, b)) if c == b => tie = true,
                _ => {
                    best = Some((format, c));
                    tie = false;
                }
            }
        }
        match best {
            Some((format, _)) if !tie => Ok(format),
            Some((format, _)) => Err(Error::new(
                ErrorKind::Unsupported,
                Some(0),
                format!("more than one format claims this file (first: {}); name one with --from", format.name()),
            )),
            None => Err(self.unknown_format(bytes, path)),
        }
    }

    fn unknown_format(&self, bytes: &[u8], path: Option<&Path>) -> Error {
        let ext = path.and_then(|p| p.extension()).and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        let magic: String = bytes.iter().take(4).map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
        let mut message = format!("not a format animkit knows (first bytes \"{magic}\")");
        if let Some(ext) = ext {
            for format in self.formats.iter().filter(|f| f.extensions().contains(&ext.as_str())) {
                let why = format.explain_reject(bytes).unwrap_or_else(|| "its magic does not match".into());
                message.push_str(&format!("; not {}: {why}", format.name()));
            }
        }
        Error::new(ErrorKind::Unsupported, Some(0), message)
    }

    /// Reads `bytes` with the format the probe finds.
    pub fn read(&self, bytes: Bytes, path: Option<&Path>, options: &ReadOptions) -> Result<Box<dyn Document>> {
        let format = self.probe(&bytes, path)?;
        format.read(bytes, options)
    }

    /// Reads the file at `path` with the format the probe finds.
    pub fn open(&self, path: &Path, options: &ReadOptions) -> Result<Box<dyn Document>> {
        let data = std::fs::read(path).map_err(|e| Error::from(e).within(path.display().to_string()))?;
        self.read(Bytes::from(data), Some(path), options)
    }

    /// The format called `name`, or the format one of whose variants is `name`.
    pub fn by_name(&self, name: &str) -> Option<(&'static dyn Format, Option<&'static str>)> {
        let name = name.to_ascii_lowercase();
        self.formats.iter().find_map(|&f| {
            if f.name() == name {
                Some((f, None))
            } else {
                f.variants().iter().find(|&&v| v == name).map(|&v| (f, Some(v)))
            }
        })
    }

    /// The format that writes files with this extension, and the variant the extension names.
    pub fn by_extension(&self, ext: &str) -> Option<(&'static dyn Format, Option<&'static str>)> {
        let ext = ext.to_ascii_lowercase();
        self.formats.iter().find_map(|&f| {
            f.extensions().contains(&ext.as_str()).then(|| (f, f.variants().iter().find(|&&v| v == ext).copied()))
        })
    }

    /// The lossless JSON dump of a document, wrapped in an envelope that names its format.
    pub fn dump(&self, document: &dyn Document) -> Result<serde_json::Value> {
        Ok(serde_json::json!({
            "animkit_dump": DUMP_VERSION,
            "format": document.format().name(),
            "document": document.dump()?,
        }))
    }

    /// The inverse of [`Registry::dump`]: the format is found by the name in the envelope.
    pub fn pack(&self, value: serde_json::Value) -> Result<Box<dyn Document>> {
        let bad = |m: &str| Error::new(ErrorKind::Invalid, None, m.to_string()).within("JSON dump");
        let serde_json::Value::Object(mut map) = value else { return Err(bad("not a JSON object")) };
        match map.get("animkit_dump").and_then(|v| v.as_u64()) {
            Some(v) if v == u64::from(DUMP_VERSION) => {}
            Some(v) => return Err(bad(&format!("dump version {v} is not supported (expected {DUMP_VERSION})"))),
            None => return Err(bad("missing \"animkit_dump\": not an animkit dump")),
        }
        let name = map.get("format").and_then(|v| v.as_str()).ok_or_else(|| bad("missing \"format\""))?;
        let (format, _) = self.by_name(name).ok_or_else(|| bad(&format!("unknown format \"{name}\"")))?;
        let document = map.remove("document").ok_or_else(|| bad("missing \"document\""))?;
        format.undump(document)
    }

    /// Checks that `new`, meant to replace the archive entry `name` whose data is `old`, reads as
    /// the format `old` reads as ([`check_replacement`]); an entry of no format in this registry
    /// may be replaced by anything.
    pub fn check_replacement(&self, name: &str, old: &[u8], new: &Bytes) -> Result<()> {
        match self.probe(old, None) {
            Ok(format) => check_replacement(format, name, old, new),
            Err(_) => Ok(()),
        }
    }

    /// Checks that every key of `params` is one `format` reads; the error lists the keys it takes.
    /// An archive that declares no read keys of its own (Yaz0, SARC) reads its entries with the
    /// caller's options, so it takes any format's read keys.
    pub fn check_read_params(&self, format: &dyn Format, params: &BTreeMap<String, String>) -> Result<()> {
        let passes_on = format.capabilities().archive && format.read_params().is_empty();
        let known = |key: &str| {
            let declares = |f: &dyn Format| f.read_params().iter().any(|p| p.key == key);
            self.common_read_params.iter().any(|p| p.key == key)
                || declares(format)
                || (passes_on && self.formats.iter().any(|&f| declares(f)))
        };
        let valid = [format.read_params(), self.common_read_params].concat();
        check_params(format, "reading", params, known, &valid)
    }
}

/// Checks that every key of `params` is one `format` writes; the error lists the keys it takes.
pub fn check_write_params(format: &dyn Format, params: &BTreeMap<String, String>) -> Result<()> {
    let known = |key: &str| format.write_params().iter().any(|p| p.key == key);
    check_params(format, "writing", params, known, format.write_params())
}

fn check_params(
    format: &dyn Format,
    action: &str,
    params: &BTreeMap<String, String>,
    known: impl Fn(&str) -> bool,
    valid: &[Param],
) -> Result<()> {
    let Some(key) = params.keys().find(|k| !known(k)) else { return Ok(()) };
    let takes = if valid.is_empty() {
        "it takes no options".to_string()
    } else {
        let list: Vec<String> = valid.iter().map(|p| format!("{}={}", p.key, p.values)).collect();
        format!("valid keys: {}", list.join(", "))
    };
    Err(Error::unsupported(format!("unknown option \"{key}\" for {action} {}: {takes}", format.name())))
}
