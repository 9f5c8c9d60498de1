//! How a track or a skeleton names a bone.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// How a track names its bone: by whatever the format stores. At least one field is set.
///
/// The name is shared (`Arc<str>`): a file names the same few bones in every clip, and readers
/// intern them, so a track's target costs no allocation of its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct BoneRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The bone's name.
    pub name: Option<Arc<str>>,
    /// A numeric id (GTA bone tag / HAnim node id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i32>,
    /// A name hash (CryEngine CRC-32 controller id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<u32>,
    /// An index into the skeleton's bone list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
}

impl BoneRef {
    /// A reference by name alone.
    pub fn named(name: impl Into<Arc<str>>) -> Self {
        BoneRef { name: Some(name.into()), ..Default::default() }
    }

    /// A readable label: the name, else `#id`, `0xHASH` or `bone_NN`.
    pub fn label(&self) -> String {
        if let Some(name) = &self.name {
            String::from(&**name)
        } else if let Some(id) = self.id {
            format!("#{id}")
        } else if let Some(hash) = self.hash {
            format!("0x{hash:08X}")
        } else if let Some(index) = self.index {
            format!("bone_{index:02}")
        } else {
            "?".to_string()
        }
    }

    /// Whether two references may denote the same bone: equal ids, hashes or indices when both
    /// have them, else names compared case-insensitively and ignoring surrounding spaces.
    pub fn matches(&self, other: &BoneRef) -> bool {
        if let (Some(a), Some(b)) = (self.id, other.id) {
            return a == b;
        }
        if let (Some(a), Some(b)) = (self.hash, other.hash) {
            return a == b;
        }
        if let (Some(a), Some(b)) = (&self.name, &other.name) {
            return a.trim().eq_ignore_ascii_case(b.trim());
        }
        matches!((self.index, other.index), (Some(a), Some(b)) if a == b)
    }
}
