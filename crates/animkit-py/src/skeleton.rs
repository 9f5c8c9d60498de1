//! `animkit.Skeleton`: bones in parent-before-child order, their names, ids and rest pose, as arrays.

use animkit::model::{self, Bone, Transform};
use glam::{Quat, Vec3};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::invalid;
use crate::target::TargetArg;

/// A bone hierarchy with its rest pose. Bones come parent before child; `parents[i]` is the
/// index of bone `i`'s parent, or -1 for a root. The rest pose is local (relative to the parent):
/// translations (n, 3), rotations (n, 4; quaternions `x y z w`) and scales (n, 3), float32.
/// `ids` (GTA bone tags, HAnim ids) and `hashes` (CryEngine name CRCs) hold `None` where a bone
/// has none. Immutable: each property returns a fresh array.
#[pyclass(module = "animkit", frozen, from_py_object)]
#[derive(Clone)]
pub struct Skeleton(pub model::Skeleton);

#[pymethods]
impl Skeleton {
    /// A skeleton of `len(names)` bones; every other argument, when given, has one entry per bone.
    #[new]
    #[pyo3(signature = (names, parents=None, *, translations=None, rotations=None, scales=None, ids=None, hashes=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        names: Vec<String>,
        parents: Option<Vec<i64>>,
        translations: Option<Vec<[f32; 3]>>,
        rotations: Option<Vec<[f32; 4]>>,
        scales: Option<Vec<[f32; 3]>>,
        ids: Option<Vec<Option<i32>>>,
        hashes: Option<Vec<Option<u32>>>,
    ) -> PyResult<Self> {
        let n = names.len();
        let check = |what: &str, len: Option<usize>| match len {
            Some(len) if len != n => Err(PyValueError::new_err(format!("{len} {what} for {n} bones"))),
            _ => Ok(()),
        };
        check("parents", parents.as_ref().map(Vec::len))?;
        check("translations", translations.as_ref().map(Vec::len))?;
        check("rotations", rotations.as_ref().map(Vec::len))?;
        check("scales", scales.as_ref().map(Vec::len))?;
        check("ids", ids.as_ref().map(Vec::len))?;
        check("hashes", hashes.as_ref().map(Vec::len))?;
        let bones = names
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let rest = Transform {
                    translation: translations.as_ref().map_or(Vec3::ZERO, |t| Vec3::from(t[i])),
                    rotation: rotations.as_ref().map_or(Quat::IDENTITY, |r| Quat::from_array(r[i])),
                    scale: scales.as_ref().map_or(Vec3::ONE, |s| Vec3::from(s[i])),
                };
                let parent = parents.as_ref().and_then(|p| usize::try_from(p[i]).ok());
                Bone {
                    name,
                    id: ids.as_ref().and_then(|v| v[i]),
                    hash: hashes.as_ref().and_then(|v| v[i]),
                    parent,
                    rest,
                }
            })
            .collect();
        let skeleton = model::Skeleton { bones };
        skeleton.validate().map_err(|m| invalid(format!("skeleton: {m}")))?;
        Ok(Skeleton(skeleton))
    }

    /// The bone names.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.0.bones.iter().map(|b| b.name.clone()).collect()
    }

    /// Each bone's parent index, -1 for a root (int32, shape (n,)).
    #[getter]
    fn parents<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        let parents = self.0.bones.iter().map(|b| b.parent.and_then(|p| i32::try_from(p).ok()).unwrap_or(-1));
        PyArray1::from_iter(py, parents)
    }

    /// Rest translations relative to the parent (float32, shape (n, 3)).
    #[getter]
    fn translations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.rows(py, |t| t.translation.to_array())
    }

    /// Rest rotations relative to the parent, quaternions `x y z w` (float32, shape (n, 4)).
    #[getter]
    fn rotations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.rows(py, |t| t.rotation.to_array())
    }

    /// Rest scales (float32, shape (n, 3)).
    #[getter]
    fn scales<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.rows(py, |t| t.scale.to_array())
    }

    /// Each bone's numeric id (GTA bone tag, HAnim node id), `None` where it has none.
    #[getter]
    fn ids(&self) -> Vec<Option<i32>> {
        self.0.bones.iter().map(|b| b.id).collect()
    }

    /// The same as `ids`: GTA calls a bone's id its tag.
    #[getter]
    fn tags(&self) -> Vec<Option<i32>> {
        self.ids()
    }

    /// Each bone's name hash (CryEngine CRC-32), `None` where it has none.
    #[getter]
    fn hashes(&self) -> Vec<Option<u32>> {
        self.0.bones.iter().map(|b| b.hash).collect()
    }

    /// The index of the bone a target (or bone name) denotes: by id, then hash, then name (any
    /// case), then index; `None` when no bone matches.
    fn find(&self, target: TargetArg) -> Option<usize> {
        self.0.find(target.into_target().bone()?)
    }

    fn __len__(&self) -> usize {
        self.0.bones.len()
    }

    fn __repr__(&self) -> String {
        format!("<animkit.Skeleton {} bones>", self.0.bones.len())
    }
}

impl Skeleton {
    /// One row per bone of a rest-pose component.
    fn rows<'py, const N: usize>(
        &self,
        py: Python<'py>,
        row: impl Fn(&Transform) -> [f32; N],
    ) -> Bound<'py, PyArray2<f32>> {
        let mut rows = Array2::zeros((self.0.bones.len(), N));
        for (mut out, bone) in rows.rows_mut().into_iter().zip(&self.0.bones) {
            out.assign(&numpy::ndarray::ArrayView1::from(&row(&bone.rest)));
        }
        rows.into_pyarray(py)
    }
}
