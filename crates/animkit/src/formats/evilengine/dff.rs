//! A standalone RenderWare clump (`.dff`, a `MODL` asset as `animkit extract` writes it) as a
//! skeleton source: `convert clip.anm --skeleton model.dff -o clip.glb`.
//!
//! Only the skeleton is read ([`super::rwskel`]: FrameList + HAnim PLG, bones in HAnim node order
//! so SKB bone i binds node i). The document keeps the file's bytes and writes them back verbatim;
//! its dump is those bytes in hex plus the skeleton it yields (informative; `pack` uses the hex).

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use super::rwskel::{self, CLUMP, STRUCT};
use crate::error::{Error, Result};
use crate::format::Repaired;
use crate::format::{Capabilities, Confidence, Document, Format, ReadOptions, WriteOptions, Written};
use crate::lint::Finding;
use crate::model::{Package, Skeleton};
use crate::raw_json::Hex;

/// A RenderWare clump holding an HAnim skeleton.
pub(crate) struct DffFormat;

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    bytes.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes)
}

impl Format for DffFormat {
    fn name(&self) -> &'static str {
        "dff"
    }

    fn description(&self) -> &'static str {
        "RenderWare clump (.dff, EvilEngine MODL): the HAnim skeleton, for --skeleton"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["dff"]
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { read: true, to_model: true, from_model: false, dump: true, archive: false, skeleton: true }
    }

    fn probe(&self, bytes: &[u8]) -> Confidence {
        // Clump header: type 0x10, a size that fits, then a Struct child.
        match (u32_at(bytes, 0), u32_at(bytes, 4), u32_at(bytes, 12)) {
            (Some(CLUMP), Some(size), Some(STRUCT)) if (size as u64) + 12 <= bytes.len() as u64 => Confidence::Certain,
            _ => Confidence::No,
        }
    }

    fn explain_reject(&self, _bytes: &[u8]) -> Option<String> {
        Some("not a RenderWare clump (chunk type 0x10 followed by a Struct)".into())
    }

    fn read(&self, bytes: Bytes, _options: &ReadOptions) -> Result<Box<dyn Document>> {
        Ok(Box::new(DffDocument::parse(bytes)?))
    }

    fn from_model(&self, _package: &Package, _options: &WriteOptions) -> Result<Written> {
        Err(Error::unsupported("RenderWare clumps are read for their skeleton only"))
    }

    fn undump(&self, value: serde_json::Value) -> Result<Box<dyn Document>> {
        let d: DffDump = crate::raw_json::from_value(value, "DFF dump")?;
        Ok(Box::new(DffDocument::parse(Bytes::from(d.bytes.0))?))
    }
}

#[derive(Serialize, Deserialize)]
struct DffDump {
    /// The whole file.
    bytes: Hex,
    /// The skeleton read from it (ignored by `pack`).
    #[serde(default, skip_deserializing)]
    skeleton: Option<Skeleton>,
}

/// A parsed clump: its bytes and skeleton.
#[derive(Clone)]
struct DffDocument {
    bytes: Bytes,
    frames: usize,
    skeleton: Option<Skeleton>,
}

impl DffDocument {
    fn parse(bytes: Bytes) -> Result<Self> {
        let frames = rwskel::read_clump(&bytes)?;
        let skeleton = rwskel::skeleton(&frames)?;
        Ok(DffDocument { frames: frames.len(), bytes, skeleton })
    }
}

impl Document for DffDocument {
    fn format(&self) -> &'static dyn Format {
        &DffFormat
    }

    fn version(&self) -> String {
        let lib = u32_at(&self.bytes, 8).unwrap_or(0);
        format!("RenderWare clump (library ID 0x{lib:08X})")
    }

    fn write(&self) -> Result<Vec<u8>> {
        Ok(self.bytes.to_vec())
    }

    fn to_model(&self) -> Result<Package> {
        Ok(Package { skeleton: self.skeleton.clone(), ..Default::default() })
    }

    fn dump(&self) -> Result<serde_json::Value> {
        crate::raw_json::to_value(&DffDump { bytes: Hex(self.bytes.to_vec()), skeleton: self.skeleton.clone() })
    }

    fn lint(&self) -> Vec<Finding> {
        Vec::new()
    }

    fn repair(&self) -> Result<Repaired> {
        Ok(Repaired { document: Box::new(self.clone()), changes: Vec::new() })
    }

    fn notes(&self) -> Vec<String> {
        match &self.skeleton {
            Some(s) => vec![format!(
                "{} frames; HAnim skeleton of {} nodes (bone i = node i, the SKB bone order)",
                self.frames,
                s.bones.len()
            )],
            None => vec![format!("{} frames; no HAnim hierarchy (not skinned): no skeleton", self.frames)],
        }
    }
}
