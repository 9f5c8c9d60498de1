//! `animkit.Target`: what a track animates, a bone (by name, id, hash or index) or a material property.

use std::sync::Arc;

use animkit::model::{self, BoneRef};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// What a track animates: a bone, named by whatever the format stores (`name`, numeric `id`
/// — GTA's bone tag, also readable as `tag` —, CryEngine name `hash`, skeleton `index`), or a
/// material property (`material`, `property`). Immutable; equal targets compare and hash equal.
#[pyclass(module = "animkit", frozen, eq, hash, from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Target(pub model::Target);

impl Target {
    fn bone_ref(&self) -> Option<&BoneRef> {
        self.0.bone()
    }
}

#[pymethods]
impl Target {
    /// A bone target (at least one of `name`, `id`, `hash`, `index`), or a material property
    /// target (`material` and `property`, nothing else).
    #[new]
    #[pyo3(signature = (name=None, *, id=None, hash=None, index=None, material=None, property=None))]
    fn new(
        name: Option<&str>,
        id: Option<i32>,
        hash: Option<u32>,
        index: Option<u32>,
        material: Option<&str>,
        property: Option<&str>,
    ) -> PyResult<Self> {
        let bone = name.is_some() || id.is_some() || hash.is_some() || index.is_some();
        match (material, property) {
            (Some(material), Some(property)) if !bone => {
                Ok(Target(model::Target::Material { material: material.into(), property: property.into() }))
            }
            (None, None) if bone => {
                Ok(Target(model::Target::Bone(BoneRef { name: name.map(Arc::from), id, hash, index })))
            }
            (None, None) => Err(PyValueError::new_err("a bone target needs a name, id, hash or index")),
            _ if bone => Err(PyValueError::new_err("a target is a bone or a material property, not both")),
            _ => Err(PyValueError::new_err("a material target needs both material and property")),
        }
    }

    /// `bone` or `material`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.0 {
            model::Target::Bone(_) => "bone",
            model::Target::Material { .. } => "material",
            _ => "unknown",
        }
    }

    /// The bone's name, if the format stores one.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.bone_ref().and_then(|b| b.name.as_deref())
    }

    /// The bone's numeric id (GTA bone tag, HAnim node id).
    #[getter]
    fn id(&self) -> Option<i32> {
        self.bone_ref().and_then(|b| b.id)
    }

    /// The same as `id`: GTA calls a bone's id its tag.
    #[getter]
    fn tag(&self) -> Option<i32> {
        self.id()
    }

    /// The bone's name hash (CryEngine CRC-32 controller id).
    #[getter]
    fn hash(&self) -> Option<u32> {
        self.bone_ref().and_then(|b| b.hash)
    }

    /// The bone's index in the skeleton's bone list.
    #[getter]
    fn index(&self) -> Option<u32> {
        self.bone_ref().and_then(|b| b.index)
    }

    /// The material's name, for material targets.
    #[getter]
    fn material(&self) -> Option<&str> {
        match &self.0 {
            model::Target::Material { material, .. } => Some(material),
            model::Target::Bone(_) => None,
            _ => None,
        }
    }

    /// The animated property, for material targets.
    #[getter]
    fn property(&self) -> Option<&str> {
        match &self.0 {
            model::Target::Material { property, .. } => Some(property),
            model::Target::Bone(_) => None,
            _ => None,
        }
    }

    /// A readable label: the bone name, else `#id`, else the hash in hex, else `bone_NN`.
    #[getter]
    fn label(&self) -> String {
        self.0.label()
    }

    fn __repr__(&self) -> String {
        match &self.0 {
            model::Target::Bone(b) => {
                let mut parts = Vec::new();
                if let Some(n) = &b.name {
                    parts.push(format!("{:?}", n.as_ref()));
                }
                if let Some(id) = b.id {
                    parts.push(format!("id={id}"));
                }
                if let Some(h) = b.hash {
                    parts.push(format!("hash=0x{h:08X}"));
                }
                if let Some(i) = b.index {
                    parts.push(format!("index={i}"));
                }
                format!("Target({})", parts.join(", "))
            }
            model::Target::Material { material, property } => {
                format!("Target(material={:?}, property={:?})", material.as_ref(), property.as_ref())
            }
            _ => "Target(?)".to_string(),
        }
    }
}

/// A target given from Python: a `Target`, or a bone name.
#[derive(FromPyObject)]
pub enum TargetArg {
    Target(Target),
    Name(String),
}

impl TargetArg {
    pub fn into_target(self) -> model::Target {
        match self {
            TargetArg::Target(t) => t.0,
            TargetArg::Name(n) => model::Target::Bone(BoneRef::named(n)),
        }
    }
}
