//! `animkit.Package` and `animkit.Clip`: the engine-neutral model, built from files or from Python.
//!
//! Conventions (the library's, for every format): times in seconds; quaternions unit `x y z w`,
//! active, relative to the parent (glTF's convention); units those of the source.

use std::borrow::Cow;

use animkit::model::{self, UpAxis};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::invalid;
use crate::skeleton::Skeleton;
use crate::track::Track;

/// One animation: a list of `Track`s and how long it lasts.
#[pyclass(module = "animkit")]
pub struct Clip {
    /// The clip's name.
    #[pyo3(get, set)]
    name: String,
    /// Length in seconds as the engine computes it (not always the last key time).
    #[pyo3(get, set)]
    duration: f32,
    /// Whether the clip loops, when the file says so; `None` when looping is decided elsewhere.
    #[pyo3(get, set)]
    looping: Option<bool>,
    /// True when the keys are relative to a reference pose rather than absolute.
    #[pyo3(get, set)]
    additive: bool,
    /// The source's frame rate, when it has one.
    #[pyo3(get, set)]
    frame_rate: Option<f32>,
    tracks: Tracks,
    /// How the file stored the clip (kept for a rewrite in the same format).
    stored: model::Stored,
}

/// A clip's tracks: the library's, until Python first asks for `tracks`; then a list of `Track`
/// objects. A model read only through `key_arrays()`, or written again, never makes a Python
/// object per track (a GTA ped file has 9,000).
enum Tracks {
    Rust(Vec<model::Track>),
    Python(Py<PyList>),
}

impl Clip {
    pub fn from_rust(clip: model::Clip) -> Self {
        Clip {
            name: clip.name,
            duration: clip.duration,
            looping: clip.looping,
            additive: clip.additive,
            frame_rate: clip.frame_rate,
            tracks: Tracks::Rust(clip.tracks),
            stored: clip.stored,
        }
    }

    /// The library clip (one copy of every key array), after checking every track.
    pub fn to_rust(&self, py: Python<'_>) -> PyResult<model::Clip> {
        Ok(model::Clip {
            name: self.name.clone(),
            duration: self.duration,
            looping: self.looping,
            additive: self.additive,
            frame_rate: self.frame_rate,
            tracks: self.rust_tracks(py)?.into_owned(),
            stored: self.stored.clone(),
        })
    }

    /// The library tracks: borrowed while Python has not asked for them, else copied from the
    /// `Track` objects after checking each.
    pub fn rust_tracks(&self, py: Python<'_>) -> PyResult<Cow<'_, [model::Track]>> {
        let list = match &self.tracks {
            Tracks::Rust(tracks) => return Ok(Cow::Borrowed(tracks)),
            Tracks::Python(list) => list.bind(py),
        };
        let mut tracks = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            let track = item
                .cast::<Track>()
                .map_err(|_| invalid(format!("clip \"{}\": item {i} of tracks is not a Track", self.name)))?;
            tracks.push(track.borrow().to_rust(py, &format!("clip \"{}\" ", self.name))?);
        }
        Ok(Cow::Owned(tracks))
    }

    fn track_count(&self, py: Python<'_>) -> usize {
        match &self.tracks {
            Tracks::Rust(tracks) => tracks.len(),
            Tracks::Python(list) => list.bind(py).len(),
        }
    }
}

#[pymethods]
impl Clip {
    /// A clip of `tracks`; `duration` defaults to the last key time.
    #[new]
    #[pyo3(signature = (name, tracks=None, *, duration=None, looping=None, additive=false, frame_rate=None))]
    fn new(
        py: Python<'_>,
        name: String,
        tracks: Option<Vec<Py<Track>>>,
        duration: Option<f32>,
        looping: Option<bool>,
        additive: bool,
        frame_rate: Option<f32>,
    ) -> PyResult<Self> {
        let tracks = tracks.unwrap_or_default();
        let duration = match duration {
            Some(d) => d,
            None => tracks.iter().map(|t| t.borrow(py).last_time(py)).fold(0.0, f32::max),
        };
        let tracks = Tracks::Python(PyList::new(py, tracks)?.unbind());
        Ok(Clip { name, duration, looping, additive, frame_rate, tracks, stored: model::Stored::default() })
    }

    /// The tracks (`Track` objects; the list may be edited in place).
    #[getter]
    fn tracks(&mut self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let list = match &mut self.tracks {
            Tracks::Python(list) => return Ok(list.clone_ref(py)),
            Tracks::Rust(tracks) => PyList::new(py, std::mem::take(tracks).into_iter().map(Track::from_rust))?.unbind(),
        };
        self.tracks = Tracks::Python(list.clone_ref(py));
        Ok(list)
    }

    #[setter]
    fn set_tracks(&mut self, tracks: Py<PyList>) {
        self.tracks = Tracks::Python(tracks);
    }

    /// Every track's keys in a few numpy arrays, one `KeyArrays` per channel (one copy of every
    /// key, without a numpy array per track); `clips` is 0 throughout.
    fn key_arrays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        crate::key_arrays::key_arrays(py, &[&self.rust_tracks(py)?])
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("<animkit.Clip {:?} {:.3} s, {} tracks>", self.name, self.duration, self.track_count(py))
    }
}

/// A set of clips read from one file, with an optional skeleton.
#[pyclass(module = "animkit")]
pub struct Package {
    /// The package's own name (IFP block name, archive name), empty when the format has none.
    #[pyo3(get, set)]
    name: String,
    /// The clips (`Clip` objects; the list may be edited in place).
    #[pyo3(get, set)]
    clips: Py<PyList>,
    /// The skeleton the tracks bind to, if the file carries one.
    #[pyo3(get, set)]
    skeleton: Option<Skeleton>,
    up_axis: UpAxis,
}

impl Package {
    pub fn from_rust(py: Python<'_>, package: model::Package) -> PyResult<Self> {
        let clips = package.clips.into_iter().map(Clip::from_rust);
        Ok(Package {
            name: package.name,
            clips: PyList::new(py, clips)?.unbind(),
            skeleton: package.skeleton.map(Skeleton),
            up_axis: package.up_axis,
        })
    }

    /// The library package (one copy of every key array), after checking every track.
    pub fn to_rust(&self, py: Python<'_>) -> PyResult<model::Package> {
        let mut clips = Vec::new();
        for (i, item) in self.clips.bind(py).iter().enumerate() {
            let clip = item.cast::<Clip>().map_err(|_| invalid(format!("item {i} of clips is not a Clip")))?;
            clips.push(clip.borrow().to_rust(py)?);
        }
        Ok(model::Package {
            name: self.name.clone(),
            up_axis: self.up_axis,
            clips,
            skeleton: self.skeleton.as_ref().map(|s| s.0.clone()),
        })
    }
}

#[pymethods]
impl Package {
    /// A package of `clips`. `up_axis` (`"y"` or `"z"`) says which axis points up in the source.
    #[new]
    #[pyo3(signature = (clips=None, *, name=String::new(), skeleton=None, up_axis="y"))]
    fn new(
        py: Python<'_>,
        clips: Option<Vec<Py<Clip>>>,
        name: String,
        skeleton: Option<Skeleton>,
        up_axis: &str,
    ) -> PyResult<Self> {
        let clips = PyList::new(py, clips.unwrap_or_default())?.unbind();
        Ok(Package { name, clips, skeleton, up_axis: parse_up_axis(up_axis)? })
    }

    /// Every track's keys in a few numpy arrays, one `KeyArrays` per channel (one copy of every
    /// key, without a numpy array per track); `clips` gives each track's clip index.
    fn key_arrays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut clips = Vec::new();
        for (i, item) in self.clips.bind(py).iter().enumerate() {
            let clip = item.cast_into::<Clip>().map_err(|_| invalid(format!("item {i} of clips is not a Clip")))?;
            clips.push(clip.try_borrow()?);
        }
        let tracks = clips.iter().map(|c| c.rust_tracks(py)).collect::<PyResult<Vec<_>>>()?;
        let slices: Vec<&[model::Track]> = tracks.iter().map(|t| t.as_ref()).collect();
        crate::key_arrays::key_arrays(py, &slices)
    }

    /// Which axis points up in the source's coordinates: `"y"` or `"z"` (GTA and CryEngine).
    #[getter]
    fn up_axis(&self) -> &'static str {
        match self.up_axis {
            UpAxis::Y => "y",
            UpAxis::Z => "z",
            _ => "unknown",
        }
    }

    #[setter]
    fn set_up_axis(&mut self, axis: &str) -> PyResult<()> {
        self.up_axis = parse_up_axis(axis)?;
        Ok(())
    }

    /// The clip called `name` (exact, then any case), or `None`.
    fn clip<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, Clip>>> {
        let clips: Vec<Bound<'py, Clip>> =
            self.clips.bind(py).iter().filter_map(|c| c.cast_into::<Clip>().ok()).collect();
        let exact = clips.iter().find(|c| c.borrow().name == name);
        let any_case = || clips.iter().find(|c| c.borrow().name.eq_ignore_ascii_case(name));
        Ok(exact.or_else(any_case).cloned())
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let bones = self.skeleton.as_ref().map(|s| format!(", {} bones", s.0.bones.len())).unwrap_or_default();
        format!("<animkit.Package {:?}: {} clips{bones}>", self.name, self.clips.bind(py).len())
    }
}

fn parse_up_axis(axis: &str) -> PyResult<UpAxis> {
    match axis {
        "y" | "Y" => Ok(UpAxis::Y),
        "z" | "Z" => Ok(UpAxis::Z),
        _ => Err(PyValueError::new_err(format!("up_axis is \"y\" or \"z\", not \"{axis}\""))),
    }
}
