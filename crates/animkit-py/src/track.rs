//! `animkit.Track`: one animated channel of one target, its keys as numpy arrays.
//!
//! Key data crosses between Rust and numpy in one bulk copy per array, never as a Python object
//! per key. Value arrays by channel (cubic tracks store three rows per key: in-tangent, value,
//! out-tangent, as glTF does):
//!
//! | channel | dtype | shape |
//! |---|---|---|
//! | `rotation` (quaternion `x y z w`) | float32 | (n, 4) |
//! | `translation`, `scale` | float32 | (n, 3) |
//! | `scalar` | float32 | (n,) |
//! | `texture_index` (into `textures`) | uint32 | (n,) |
//! | `visibility` | bool | (n,) |

use std::sync::Arc;

use animkit::model::{self, Channel, Interpolation, Values};
use glam::{Quat, Vec3};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::invalid;
use crate::target::{Target, TargetArg};

/// One animated channel of one target: key `times` (seconds, float32) and `values` (numpy,
/// dtype and shape by channel, see the module docs), with how the engine interpolates them.
/// A track keeps its own arrays: assigning copies into the channel's dtype; editing in place works.
#[pyclass(module = "animkit")]
pub struct Track {
    target: model::Target,
    channel: Channel,
    interpolation: Interpolation,
    times: Keys<Vec<f32>>,
    values: Keys<Values>,
    textures: Textures,
}

/// Key data as the library gave it, until Python first asks for it: then a numpy array (one
/// copy), which Python may edit in place. A model read from a file and written again without
/// being looked at never becomes numpy.
enum Keys<R> {
    Rust(R),
    Numpy(Py<PyAny>),
}

impl<R> Keys<R> {
    /// The numpy array, made by `make` from the library's data the first time.
    fn numpy<'py>(
        &mut self,
        py: Python<'py>,
        make: impl FnOnce(Python<'py>, &R) -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let array = match self {
            Keys::Numpy(array) => return Ok(array.bind(py).clone()),
            Keys::Rust(data) => make(py, data)?,
        };
        *self = Keys::Numpy(array.clone().unbind());
        Ok(array)
    }
}

impl Track {
    /// The Python track of a library track (its arrays become numpy when first asked for).
    pub fn from_rust(track: model::Track) -> Self {
        let textures = match &track.values {
            Values::TextureIndex { textures, .. } => Some(textures.clone()),
            _ => None,
        };
        Track {
            target: track.target,
            channel: track.values.channel(),
            interpolation: track.interpolation,
            times: Keys::Rust(track.times),
            values: Keys::Rust(track.values),
            textures,
        }
    }

    /// The library track (one copy of each key array), after checking its invariants; `context`
    /// names the clip it is in for the error message.
    pub fn to_rust(&self, py: Python<'_>, context: &str) -> PyResult<model::Track> {
        let times = match &self.times {
            Keys::Rust(times) => times.clone(),
            Keys::Numpy(array) => array.bind(py).cast::<PyArray1<f32>>()?.readonly().as_slice()?.to_vec(),
        };
        let values = match &self.values {
            Keys::Rust(values) => values.clone(),
            Keys::Numpy(array) => values_from_numpy(array.bind(py), self.channel, self.textures.as_ref())?,
        };
        let track = model::Track { target: self.target.clone(), interpolation: self.interpolation, times, values };
        track.validate().map_err(|m| {
            invalid(format!("{context}track {} {}: {m}", track.target.label(), channel_name(self.channel)))
        })?;
        Ok(track)
    }

    /// The number of keys.
    fn key_count(&self, py: Python<'_>) -> usize {
        match &self.times {
            Keys::Rust(times) => times.len(),
            Keys::Numpy(array) => array.bind(py).len().unwrap_or(0),
        }
    }

    /// The last key time (0 without keys).
    pub fn last_time(&self, py: Python<'_>) -> f32 {
        match &self.times {
            Keys::Rust(times) => times.last().copied().unwrap_or(0.0),
            Keys::Numpy(array) => {
                let last = array.bind(py).get_item(-1).and_then(|t| t.extract::<f32>());
                last.unwrap_or(0.0)
            }
        }
    }
}

#[pymethods]
impl Track {
    /// A track of `channel` (`rotation`, `translation`, `scale`, `scalar`, `texture_index`,
    /// `visibility`) on `target` (a `Target` or a bone name). `interpolation` defaults to
    /// `slerp` for rotations, `step` for texture indices and visibility, else `linear`.
    /// `textures` names the textures a `texture_index` track indexes.
    #[new]
    #[pyo3(signature = (target, channel, times, values, interpolation=None, *, textures=None))]
    fn new(
        py: Python<'_>,
        target: TargetArg,
        channel: &str,
        times: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        interpolation: Option<&str>,
        textures: Option<Vec<String>>,
    ) -> PyResult<Self> {
        let channel = parse_channel(channel)?;
        let interpolation = match interpolation {
            Some(name) => parse_interpolation(name)?,
            None => default_interpolation(channel),
        };
        if textures.is_some() != (channel == Channel::TextureIndex) {
            return Err(PyValueError::new_err("textures are given for texture_index tracks, and only for them"));
        }
        Ok(Track {
            target: target.into_target(),
            channel,
            interpolation,
            times: Keys::Numpy(coerce(py, times, Kind::F32, None)?.unbind()),
            values: Keys::Numpy(coerce_values(py, values, channel)?),
            textures: textures.map(Arc::from),
        })
    }

    /// What the track animates.
    #[getter]
    fn target(&self) -> Target {
        Target(self.target.clone())
    }

    #[setter]
    fn set_target(&mut self, target: TargetArg) {
        self.target = target.into_target();
    }

    /// `rotation`, `translation`, `scale`, `scalar`, `texture_index` or `visibility`.
    #[getter]
    fn channel(&self) -> &'static str {
        channel_name(self.channel)
    }

    /// `step`, `linear`, `slerp`, `nlerp` or `cubic_spline`.
    #[getter]
    fn interpolation(&self) -> &'static str {
        interpolation_name(self.interpolation)
    }

    #[setter]
    fn set_interpolation(&mut self, name: &str) -> PyResult<()> {
        self.interpolation = parse_interpolation(name)?;
        Ok(())
    }

    /// Key times in seconds, non-decreasing (float32, shape (n,)).
    #[getter]
    fn times<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.times.numpy(py, |py, times| Ok(PyArray1::from_slice(py, times).into_any()))
    }

    #[setter]
    fn set_times(&mut self, py: Python<'_>, times: &Bound<'_, PyAny>) -> PyResult<()> {
        self.times = Keys::Numpy(coerce(py, times, Kind::F32, None)?.unbind());
        Ok(())
    }

    /// Key values (numpy; dtype and shape by channel).
    #[getter]
    fn values<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.values.numpy(py, values_to_numpy)
    }

    #[setter]
    fn set_values(&mut self, py: Python<'_>, values: &Bound<'_, PyAny>) -> PyResult<()> {
        self.values = Keys::Numpy(coerce_values(py, values, self.channel)?);
        Ok(())
    }

    /// The texture names a `texture_index` track indexes; `None` for other channels.
    #[getter]
    fn textures(&self) -> Option<Vec<String>> {
        self.textures.as_ref().map(|t| t.to_vec())
    }

    /// The number of keys.
    fn __len__(&self, py: Python<'_>) -> usize {
        self.key_count(py)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<animkit.Track {} {} {} {} keys>",
            self.target.label(),
            channel_name(self.channel),
            interpolation_name(self.interpolation),
            self.key_count(py)
        )
    }
}

/// The texture names a texture-index track indexes (shared by the tracks of one animation).
type Textures = Option<Arc<[String]>>;

/// The numpy array of a track's values.
fn values_to_numpy<'py>(py: Python<'py>, values: &Values) -> PyResult<Bound<'py, PyAny>> {
    Ok(match values {
        Values::Rotation(v) => rows(py, v, |q| q.to_array())?,
        Values::Translation(v) | Values::Scale(v) => rows(py, v, |p| p.to_array())?,
        Values::Scalar(v) => PyArray1::from_slice(py, v).into_any(),
        Values::TextureIndex { indices, .. } => PyArray1::from_slice(py, indices).into_any(),
        Values::Visibility(v) => PyArray1::from_slice(py, v).into_any(),
        _ => return Err(unknown_channel()),
    })
}

/// A (len, N) float32 array of the rows of `items`.
fn rows<'py, T, const N: usize>(
    py: Python<'py>,
    items: &[T],
    row: impl Fn(&T) -> [f32; N],
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: the array is new, C-contiguous and referenced from nowhere else; every element is
    // written before it is returned. (Skipping the borrow tracking of `readwrite` matters: a
    // model has two arrays per track and thousands of tracks.)
    let array = unsafe { PyArray2::<f32>::new(py, [items.len(), N], false) };
    let out = unsafe { array.as_slice_mut() }?;
    for (dst, item) in out.chunks_exact_mut(N).zip(items) {
        dst.copy_from_slice(&row(item));
    }
    Ok(array.into_any())
}

/// The library values of a track's numpy array (which `coerce_values` made the channel's dtype).
fn values_from_numpy(array: &Bound<'_, PyAny>, channel: Channel, textures: Option<&Arc<[String]>>) -> PyResult<Values> {
    Ok(match channel {
        Channel::Rotation => Values::Rotation(f32_rows(array)?.chunks_exact(4).map(Quat::from_slice).collect()),
        Channel::Translation => Values::Translation(f32_rows(array)?.chunks_exact(3).map(Vec3::from_slice).collect()),
        Channel::Scale => Values::Scale(f32_rows(array)?.chunks_exact(3).map(Vec3::from_slice).collect()),
        Channel::Scalar => Values::Scalar(f32_rows(array)?),
        Channel::TextureIndex => Values::TextureIndex {
            indices: array.cast::<PyArray1<u32>>()?.readonly().as_slice()?.to_vec(),
            textures: textures.cloned().unwrap_or_else(|| Arc::from(Vec::new())),
        },
        Channel::Visibility => Values::Visibility(array.cast::<PyArray1<bool>>()?.readonly().as_slice()?.to_vec()),
        _ => return Err(unknown_channel()),
    })
}

/// The float32 elements of a 1-D or 2-D array, in row order.
fn f32_rows(array: &Bound<'_, PyAny>) -> PyResult<Vec<f32>> {
    if let Ok(a) = array.cast::<PyArray2<f32>>() {
        return Ok(a.readonly().as_slice()?.to_vec());
    }
    Ok(array.cast::<PyArray1<f32>>()?.readonly().as_slice()?.to_vec())
}

/// The element type a channel's arrays hold.
#[derive(Clone, Copy)]
enum Kind {
    F32,
    U32,
    Bool,
}

/// A C-contiguous copy of `object` as `kind`: shape (n,) without `width`, (n, width) with it.
fn coerce<'py>(
    py: Python<'py>,
    object: &Bound<'py, PyAny>,
    kind: Kind,
    width: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy")?;
    let dtype = match kind {
        Kind::F32 => "float32",
        Kind::U32 => "uint32",
        Kind::Bool => "bool",
    };
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("dtype", dtype)?;
    kwargs.set_item("order", "C")?;
    kwargs.set_item("copy", true)?;
    let array = numpy.getattr("array")?.call((object,), Some(&kwargs))?;
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    let fits = match width {
        None => shape.len() == 1,
        Some(w) => shape.len() == 2 && shape.get(1) == Some(&w),
    };
    if !fits {
        let expected = width.map_or("(n,)".to_string(), |w| format!("(n, {w})"));
        return Err(PyValueError::new_err(format!("expected an array of shape {expected}, got shape {shape:?}")));
    }
    Ok(array)
}

/// A copy of `values` in the dtype and shape of `channel`.
fn coerce_values(py: Python<'_>, values: &Bound<'_, PyAny>, channel: Channel) -> PyResult<Py<PyAny>> {
    let (kind, width) = match channel {
        Channel::Rotation => (Kind::F32, Some(4)),
        Channel::Translation | Channel::Scale => (Kind::F32, Some(3)),
        Channel::Scalar => (Kind::F32, None),
        Channel::TextureIndex => (Kind::U32, None),
        Channel::Visibility => (Kind::Bool, None),
        _ => return Err(unknown_channel()),
    };
    Ok(coerce(py, values, kind, width)?.unbind())
}

fn default_interpolation(channel: Channel) -> Interpolation {
    match channel {
        Channel::Rotation => Interpolation::Slerp,
        Channel::TextureIndex | Channel::Visibility => Interpolation::Step,
        Channel::Translation | Channel::Scale | Channel::Scalar => Interpolation::Linear,
        _ => Interpolation::Linear,
    }
}

pub fn channel_name(channel: Channel) -> &'static str {
    match channel {
        Channel::Rotation => "rotation",
        Channel::Translation => "translation",
        Channel::Scale => "scale",
        Channel::Scalar => "scalar",
        Channel::TextureIndex => "texture_index",
        Channel::Visibility => "visibility",
        _ => "unknown",
    }
}

/// The channels this package knows (the library's model may add more: `Channel` is non-exhaustive).
pub const CHANNELS: [Channel; 6] = [
    Channel::Rotation,
    Channel::Translation,
    Channel::Scale,
    Channel::Scalar,
    Channel::TextureIndex,
    Channel::Visibility,
];

/// The error for a channel (or sampled value) of a newer library than this package knows.
pub fn unknown_channel() -> PyErr {
    PyValueError::new_err("a channel this version of the animkit package does not know")
}

fn parse_channel(name: &str) -> PyResult<Channel> {
    CHANNELS.into_iter().find(|&c| channel_name(c) == name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown channel \"{name}\" (rotation, translation, scale, scalar, texture_index, visibility)"
        ))
    })
}

pub fn interpolation_name(interpolation: Interpolation) -> &'static str {
    match interpolation {
        Interpolation::Step => "step",
        Interpolation::Linear => "linear",
        Interpolation::Slerp => "slerp",
        Interpolation::Nlerp => "nlerp",
        Interpolation::CubicSpline => "cubic_spline",
        _ => "unknown",
    }
}

fn parse_interpolation(name: &str) -> PyResult<Interpolation> {
    const ALL: [Interpolation; 5] = [
        Interpolation::Step,
        Interpolation::Linear,
        Interpolation::Slerp,
        Interpolation::Nlerp,
        Interpolation::CubicSpline,
    ];
    ALL.into_iter().find(|&i| interpolation_name(i) == name).ok_or_else(|| {
        PyValueError::new_err(format!("unknown interpolation \"{name}\" (step, linear, slerp, nlerp, cubic_spline)"))
    })
}
