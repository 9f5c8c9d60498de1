//! `animkit.KeyArrays`: the keys of many tracks of one channel, end to end in a few numpy arrays.
//!
//! `Clip.key_arrays()` and `Package.key_arrays()` copy every key once, into a handful of arrays
//! per channel, instead of making two numpy arrays per track: a GTA ped file has 9,000 tracks,
//! and creating a numpy array costs about as much as copying a thousand keys. Track `i` of a
//! group has the key times `times[key_offsets[i]:key_offsets[i + 1]]` and the values
//! `values[value_offsets[i]:value_offsets[i + 1]]` (three rows per key for cubic tracks).

use animkit::model::{self, Channel, Interpolation, Values};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PySlice, PyTuple};

use crate::track::{channel_name, interpolation_name, unknown_channel, CHANNELS};

/// One channel's keys of many tracks (a snapshot: one copy of the keys, which the tracks do not
/// share). `clips[i]` and `tracks[i]` say which track row `i` describes: `package.clips[clips[i]]
/// .tracks[tracks[i]]`.
#[pyclass(module = "animkit", frozen)]
pub struct KeyArrays {
    /// The channel every track of the group animates.
    #[pyo3(get)]
    channel: &'static str,
    /// Per track, the index of its clip (int64; 0 throughout for `Clip.key_arrays()`).
    #[pyo3(get)]
    clips: Py<PyAny>,
    /// Per track, its index in its clip's `tracks` (int64).
    #[pyo3(get)]
    tracks: Py<PyAny>,
    /// Every track's key times, track after track (float32 seconds).
    #[pyo3(get)]
    times: Py<PyAny>,
    /// Where each track's keys start in `times`, and where the last ends (int64, tracks + 1).
    #[pyo3(get)]
    key_offsets: Py<PyAny>,
    /// Every track's values, track after track, in the channel's dtype and width (as `Track.values`).
    #[pyo3(get)]
    values: Py<PyAny>,
    /// Where each track's rows start in `values`, and where the last ends (int64, tracks + 1).
    #[pyo3(get)]
    value_offsets: Py<PyAny>,
    interpolations: Vec<Interpolation>,
}

#[pymethods]
impl KeyArrays {
    /// Per track, its interpolation (`step`, `linear`, `slerp`, `nlerp`, `cubic_spline`).
    #[getter]
    fn interpolations(&self) -> Vec<&'static str> {
        self.interpolations.iter().map(|&i| interpolation_name(i)).collect()
    }

    /// The times and values of track `i` of the group, as views into `times` and `values`.
    fn track<'py>(&self, py: Python<'py>, i: isize) -> PyResult<Bound<'py, PyTuple>> {
        let count = self.interpolations.len() as isize;
        let index = if i < 0 { i + count } else { i };
        if !(0..count).contains(&index) {
            return Err(PyIndexError::new_err(format!("track {i} of a group of {count}")));
        }
        let slice = |array: &Py<PyAny>, offsets: &Py<PyAny>| -> PyResult<Bound<'py, PyAny>> {
            let offsets = offsets.bind(py);
            let start: isize = offsets.get_item(index)?.extract()?;
            let end: isize = offsets.get_item(index + 1)?.extract()?;
            array.bind(py).get_item(PySlice::new(py, start, end, 1))
        };
        let times = slice(&self.times, &self.key_offsets)?;
        let values = slice(&self.values, &self.value_offsets)?;
        PyTuple::new(py, [times, values])
    }

    /// The number of tracks in the group.
    fn __len__(&self) -> usize {
        self.interpolations.len()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let keys = self.times.bind(py).len()?;
        Ok(format!("<animkit.KeyArrays {}: {} tracks, {keys} keys>", self.channel, self.__len__()))
    }
}

/// The key arrays of the tracks of `clips` (each clip's tracks in order), one `KeyArrays` per
/// channel present, by channel name in order of first appearance.
pub fn key_arrays<'py>(py: Python<'py>, clips: &[&[model::Track]]) -> PyResult<Bound<'py, PyDict>> {
    let mut groups: Vec<Group> = Vec::new();
    for sizes in count(clips)? {
        groups.push(Group::with_capacity(sizes));
    }
    for (c, tracks) in clips.iter().enumerate() {
        for (t, track) in tracks.iter().enumerate() {
            if let Some(group) = groups.iter_mut().find(|g| g.channel == track.channel()) {
                group.push(c, t, track);
            }
        }
    }
    let dict = PyDict::new(py);
    for group in groups {
        dict.set_item(channel_name(group.channel), group.into_python(py)?)?;
    }
    Ok(dict)
}

/// How many tracks, keys and value rows each channel has, in order of first appearance.
struct Sizes {
    channel: Channel,
    tracks: usize,
    keys: usize,
    rows: usize,
}

fn count(clips: &[&[model::Track]]) -> PyResult<Vec<Sizes>> {
    let mut sizes: Vec<Sizes> = Vec::new();
    for track in clips.iter().flat_map(|tracks| tracks.iter()) {
        let channel = track.channel();
        if !CHANNELS.contains(&channel) {
            return Err(unknown_channel());
        }
        let at = match sizes.iter().position(|s| s.channel == channel) {
            Some(at) => at,
            None => {
                sizes.push(Sizes { channel, tracks: 0, keys: 0, rows: 0 });
                sizes.len() - 1
            }
        };
        if let Some(s) = sizes.get_mut(at) {
            s.tracks += 1;
            s.keys += track.times.len();
            s.rows += track.values.len();
        }
    }
    Ok(sizes)
}

/// One channel's keys as they are gathered, before they become numpy (without a further copy).
struct Group {
    channel: Channel,
    clips: Vec<i64>,
    tracks: Vec<i64>,
    interpolations: Vec<Interpolation>,
    times: Vec<f32>,
    key_offsets: Vec<i64>,
    /// The values of float channels, row after row: allocated in full, filled up to `rows`.
    floats: Vec<f32>,
    indices: Vec<u32>,
    flags: Vec<bool>,
    rows: usize,
    value_offsets: Vec<i64>,
}

impl Group {
    fn with_capacity(sizes: Sizes) -> Self {
        let width = width(sizes.channel);
        let floats = if matches!(sizes.channel, Channel::TextureIndex | Channel::Visibility) { 0 } else { sizes.rows };
        let mut group = Group {
            channel: sizes.channel,
            clips: Vec::with_capacity(sizes.tracks),
            tracks: Vec::with_capacity(sizes.tracks),
            interpolations: Vec::with_capacity(sizes.tracks),
            times: Vec::with_capacity(sizes.keys),
            key_offsets: Vec::with_capacity(sizes.tracks + 1),
            floats: vec![0.0; floats * width],
            indices: Vec::with_capacity(if sizes.channel == Channel::TextureIndex { sizes.rows } else { 0 }),
            flags: Vec::with_capacity(if sizes.channel == Channel::Visibility { sizes.rows } else { 0 }),
            rows: 0,
            value_offsets: Vec::with_capacity(sizes.tracks + 1),
        };
        group.key_offsets.push(0);
        group.value_offsets.push(0);
        group
    }

    /// Appends track `track` (index `t` of clip `c`).
    fn push(&mut self, c: usize, t: usize, track: &model::Track) {
        self.clips.push(c as i64);
        self.tracks.push(t as i64);
        self.interpolations.push(track.interpolation);
        self.times.extend_from_slice(&track.times);
        self.key_offsets.push(self.times.len() as i64);
        match &track.values {
            Values::Rotation(v) => self.fill(v, |q| q.to_array()),
            Values::Translation(v) | Values::Scale(v) => self.fill(v, |p| p.to_array()),
            Values::Scalar(v) => self.fill(v, |&x| [x]),
            Values::TextureIndex { indices, .. } => self.indices.extend_from_slice(indices),
            Values::Visibility(v) => self.flags.extend_from_slice(v),
            // `count` refused the channels this package does not know.
            _ => {}
        }
        self.rows += track.values.len();
        self.value_offsets.push(self.rows as i64);
    }

    /// Writes the rows of `values` after the rows written so far.
    fn fill<T, const N: usize>(&mut self, values: &[T], row: impl Fn(&T) -> [f32; N]) {
        let free = self.floats.get_mut(self.rows * N..).unwrap_or_default();
        for (dst, value) in free.chunks_exact_mut(N).zip(values) {
            dst.copy_from_slice(&row(value));
        }
    }

    /// The numpy arrays, which take over the gathered buffers.
    fn into_python(self, py: Python<'_>) -> PyResult<KeyArrays> {
        let vector = |v: Vec<i64>| PyArray1::from_vec(py, v).into_any().unbind();
        let values = match self.channel {
            Channel::TextureIndex => PyArray1::from_vec(py, self.indices).into_any().unbind(),
            Channel::Visibility => PyArray1::from_vec(py, self.flags).into_any().unbind(),
            Channel::Scalar => PyArray1::from_vec(py, self.floats).into_any().unbind(),
            Channel::Rotation | Channel::Translation | Channel::Scale => {
                let rows = Array2::from_shape_vec((self.rows, width(self.channel)), self.floats)
                    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
                rows.into_pyarray(py).into_any().unbind()
            }
            _ => return Err(unknown_channel()),
        };
        Ok(KeyArrays {
            channel: channel_name(self.channel),
            clips: vector(self.clips),
            tracks: vector(self.tracks),
            times: PyArray1::from_vec(py, self.times).into_any().unbind(),
            key_offsets: vector(self.key_offsets),
            values,
            value_offsets: vector(self.value_offsets),
            interpolations: self.interpolations,
        })
    }
}

/// The number of float32 components in one value of `channel`.
fn width(channel: Channel) -> usize {
    match channel {
        Channel::Rotation => 4,
        Channel::Translation | Channel::Scale => 3,
        Channel::Scalar | Channel::TextureIndex | Channel::Visibility => 1,
        _ => 1,
    }
}
