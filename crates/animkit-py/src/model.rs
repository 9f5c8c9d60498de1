//! `animkit.Package` and `animkit.Clip`: the engine-neutral model, built from files or from Python.
//!
//! Conventions (the library's, for every format): times in seconds; quaternions unit `x y z w`,
//! active, relative to the parent (glTF's convention); units those of the source.

use animkit::model::{self, UpAxis};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::errors::invalid;
use crate::skeleton::Skeleton;
use crate::track::Track;

/// One animation: a list of `Track`s and how long it lasts.
#[pyclass(module = "animkit", get_all, set_all)]
pub struct Clip {
    /// The clip's name.
    name: String,
    /// Length in seconds as the engine computes it (not always the last key time).
    duration: f32,
    /// Whether the clip loops, when the file says so; `None` when looping is decided elsewhere.
    looping: Option<bool>,
    /// True when the keys are relative to a reference pose rather than absolute.
    additive: bool,
    /// The source's frame rate, when it has one.
    frame_rate: Option<f32>,
    /// The tracks (`Track` objects; the list may be edited in place).
    tracks: Py<PyList>,
}

impl Clip {
    pub fn from_rust(py: Python<'_>, clip: model::Clip) -> PyResult<Self> {
        let tracks: Vec<Track> = clip.tracks.into_iter().map(Track::from_rust).collect();
        Ok(Clip {
            name: clip.name,
            duration: clip.duration,
            looping: clip.looping,
            additive: clip.additive,
            frame_rate: clip.frame_rate,
            tracks: PyList::new(py, tracks)?.unbind(),
        })
    }

    /// The library clip (one copy of every key array), after checking every track.
    pub fn to_rust(&self, py: Python<'_>) -> PyResult<model::Clip> {
        let mut tracks = Vec::new();
        for (i, item) in self.tracks.bind(py).iter().enumerate() {
            let track = item
                .cast::<Track>()
                .map_err(|_| invalid(format!("clip \"{}\": item {i} of tracks is not a Track", self.name)))?;
            tracks.push(track.borrow().to_rust(py, &format!("clip \"{}\" ", self.name))?);
        }
        Ok(model::Clip {
            name: self.name.clone(),
            duration: self.duration,
            looping: self.looping,
            additive: self.additive,
            frame_rate: self.frame_rate,
            tracks,
        })
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
        Ok(Clip { name, duration, looping, additive, frame_rate, tracks: PyList::new(py, tracks)?.unbind() })
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("<animkit.Clip {:?} {:.3} s, {} tracks>", self.name, self.duration, self.tracks.bind(py).len())
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
        let clips: Vec<Clip> = package.clips.into_iter().map(|c| Clip::from_rust(py, c)).collect::<PyResult<_>>()?;
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

    /// Which axis points up in the source's coordinates: `"y"` or `"z"` (GTA and CryEngine).
    #[getter]
    fn up_axis(&self) -> &'static str {
        match self.up_axis {
            UpAxis::Y => "y",
            UpAxis::Z => "z",
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
