//! `animkit.sample`: a clip's pose at one time or at many, as the game computes it.

use animkit::sample::{PoseEntry, Sampled};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::model::Clip;
use crate::target::Target;
use crate::track::unknown_channel;

/// One target's sampled channel: `value` is float32 (4 for rotations `x y z w`, 3 for
/// translations and scales, 1 for scalars), uint32 (1, a texture index) or bool (1, visibility);
/// shape (width,) for one time, (len(times), width) for many.
#[pyclass(module = "animkit", frozen, get_all)]
pub struct Sample {
    target: Target,
    channel: &'static str,
    value: Py<PyAny>,
}

#[pymethods]
impl Sample {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!("<animkit.Sample {} {} {}>", self.target.0.label(), self.channel, self.value.bind(py))
    }
}

/// The pose of `clip` at time `t` (seconds): one `Sample` per track that has keys, in track order.
/// `t` may be one number or a 1-D array of times (the vectorised form: each value then has one
/// row per time). A looping clip wraps `t` into its duration; other clips hold their end keys.
#[pyfunction]
pub fn sample(py: Python<'_>, clip: &Bound<'_, Clip>, t: &Bound<'_, PyAny>) -> PyResult<Vec<Sample>> {
    let clip = clip.borrow().to_rust(py)?;
    if !is_many(t) {
        let t: f32 = t.extract()?;
        let poses = py.detach(|| vec![animkit::sample::sample(&clip, t)]);
        return samples(py, poses, false);
    }
    let times = numpy_f32(py, t)?.readonly().as_slice()?.to_vec();
    let poses = py.detach(|| times.iter().map(|&t| animkit::sample::sample(&clip, t)).collect());
    samples(py, poses, true)
}

/// Whether `t` holds several times (an array of at least one dimension, a list or a tuple).
fn is_many(t: &Bound<'_, PyAny>) -> bool {
    t.cast::<numpy::PyUntypedArray>().is_ok_and(|a| a.ndim() > 0)
        || t.is_instance_of::<PyList>()
        || t.is_instance_of::<PyTuple>()
}

/// `object` as a 1-D float32 array.
fn numpy_f32<'py>(py: Python<'py>, object: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let array = py.import("numpy")?.getattr("ascontiguousarray")?.call1((object, "float32"))?;
    Ok(array.getattr("ravel")?.call0()?.cast_into::<PyArray1<f32>>()?)
}

/// The samples of the poses at successive times (each pose lists the same tracks).
fn samples(py: Python<'_>, poses: Vec<Vec<PoseEntry>>, many: bool) -> PyResult<Vec<Sample>> {
    let Some(first) = poses.first() else { return Ok(Vec::new()) };
    let mut out = Vec::with_capacity(first.len());
    for (i, entry) in first.iter().enumerate() {
        let column = poses.iter().filter_map(|p| p.get(i).map(|e| e.value));
        let (channel, value) = stack(py, entry.value, column, many)?;
        out.push(Sample { target: Target(entry.target.clone()), channel, value });
    }
    Ok(out)
}

/// The values of one track over all times as one array of that value's kind.
fn stack(
    py: Python<'_>,
    first: Sampled,
    column: impl Iterator<Item = Sampled>,
    many: bool,
) -> PyResult<(&'static str, Py<PyAny>)> {
    let (channel, width) = match first {
        Sampled::Rotation(_) => ("rotation", 4),
        Sampled::Translation(_) => ("translation", 3),
        Sampled::Scale(_) => ("scale", 3),
        Sampled::Scalar(_) => ("scalar", 1),
        Sampled::TextureIndex(_) => ("texture_index", 1),
        Sampled::Visibility(_) => ("visibility", 1),
        _ => return Err(unknown_channel()),
    };
    let array = match first {
        Sampled::TextureIndex(_) => shaped(py, column.filter_map(texture_index).collect(), width, many)?,
        Sampled::Visibility(_) => shaped(py, column.filter_map(visibility).collect(), width, many)?,
        _ => shaped(py, column.flat_map(floats).collect(), width, many)?,
    };
    Ok((channel, array))
}

fn floats(s: Sampled) -> Vec<f32> {
    match s {
        Sampled::Rotation(q) => q.to_array().to_vec(),
        Sampled::Translation(v) | Sampled::Scale(v) => v.to_array().to_vec(),
        Sampled::Scalar(x) => vec![x],
        Sampled::TextureIndex(_) | Sampled::Visibility(_) => Vec::new(),
        _ => Vec::new(),
    }
}

fn texture_index(s: Sampled) -> Option<u32> {
    if let Sampled::TextureIndex(i) = s {
        Some(i)
    } else {
        None
    }
}

fn visibility(s: Sampled) -> Option<bool> {
    if let Sampled::Visibility(v) = s {
        Some(v)
    } else {
        None
    }
}

/// `flat` as (n, width) for many times, (width,) for one.
fn shaped<T: numpy::Element>(py: Python<'_>, flat: Vec<T>, width: usize, many: bool) -> PyResult<Py<PyAny>> {
    if !many {
        return Ok(PyArray1::from_vec(py, flat).into_any().unbind());
    }
    let rows = Array2::from_shape_vec((flat.len() / width, width), flat)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(rows.into_pyarray(py).into_any().unbind())
}
