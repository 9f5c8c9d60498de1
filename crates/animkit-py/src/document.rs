//! `animkit.open`, `animkit.pack` and the `Document` they give: a file's exact raw layer.

use std::path::PathBuf;

use animkit::format::ReadOptions;
use animkit::REGISTRY;
use animkit::{Bytes, Error, ErrorKind};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::LibError;
use crate::json;
use crate::model::Package;

/// A parsed file: the exact raw layer of one format. `write()` gives back the file's bytes
/// unchanged; `to_model()` the engine-neutral clips.
#[pyclass(module = "animkit", frozen)]
pub struct Document {
    inner: Box<dyn animkit::Document>,
}

impl Document {
    pub fn new(inner: Box<dyn animkit::Document>) -> Self {
        Document { inner }
    }
}

/// Where `open` reads from: a file path or the file's bytes.
#[derive(FromPyObject)]
pub enum Source<'py> {
    Bytes(Bound<'py, PyBytes>),
    Path(PathBuf),
}

/// What `open` reads, held without Python objects (so it can be read without the GIL).
enum Input {
    Bytes(Bytes),
    Path(PathBuf),
}

impl From<Source<'_>> for Input {
    fn from(source: Source<'_>) -> Self {
        match source {
            Source::Bytes(b) => Input::Bytes(Bytes::copy_from_slice(b.as_bytes())),
            Source::Path(p) => Input::Path(p),
        }
    }
}

/// Reads the input with the named format, or the one the probe finds, after checking that it
/// takes every setting of `options`.
fn read(input: Input, format: Option<&str>, options: &ReadOptions) -> animkit::Result<Box<dyn animkit::Document>> {
    let (bytes, path) = match input {
        Input::Bytes(bytes) => (bytes, None),
        Input::Path(p) => {
            let data = std::fs::read(&p).map_err(|e| Error::from(e).within(p.display().to_string()))?;
            (Bytes::from(data), Some(p))
        }
    };
    let within = |e: Error| match &path {
        Some(p) => e.within(p.display().to_string()),
        None => e,
    };
    let format = match format {
        Some(name) => format_named(name)?,
        None => animkit::probe(&bytes, path.as_deref()).map_err(within)?,
    };
    REGISTRY.check_read_params(format, &options.params)?;
    animkit::read_as(format, bytes, options).map_err(within)
}

/// The format called `name` (a format or one of its variants).
fn format_named(name: &str) -> animkit::Result<&'static dyn animkit::Format> {
    REGISTRY.by_name(name).map(|(f, _)| f).ok_or_else(|| {
        Error::new(ErrorKind::Unsupported, None, format!("unknown format \"{name}\" (see animkit.formats())"))
    })
}

/// Opens a file (a path) or the bytes of one, with the format `format` names, or the one the probe
/// finds. `lenient=True` reads past damage where the format allows (see `check()`); any other
/// keyword is a setting the format reads, e.g. `skb_version=1`, `fps=60` (another is an
/// `UnsupportedError` listing those it reads).
#[pyfunction]
#[pyo3(signature = (source, format=None, *, lenient=false, **options))]
pub fn open(
    py: Python<'_>,
    source: Source<'_>,
    format: Option<&str>,
    lenient: bool,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Document> {
    let options = ReadOptions::default().with_lenient(lenient).with_params(crate::options::params(options)?);
    let input = Input::from(source);
    let inner = py.detach(|| read(input, format, &options)).map_err(LibError)?;
    Ok(Document { inner })
}

/// The inverse of `Document.dump()`: a document from its lossless JSON (as Python objects).
#[pyfunction]
pub fn pack(py: Python<'_>, dump: &Bound<'_, PyAny>) -> PyResult<Document> {
    let value = json::from_python(dump)?;
    let inner = py.detach(|| animkit::pack(value)).map_err(LibError)?;
    Ok(Document { inner })
}

#[pymethods]
impl Document {
    /// The format's short name (`ifp`, `skb`, `cryengine`, `bfres`…).
    #[getter]
    fn format(&self) -> &'static str {
        self.inner.format().name()
    }

    /// The format version or variant as the file states it (`ANP3`, `V1 big-endian`).
    #[getter]
    fn version(&self) -> String {
        self.inner.version()
    }

    /// Notes on noteworthy properties (quirks, how a version was decided), as `animkit info` shows.
    fn notes(&self) -> Vec<String> {
        self.inner.notes()
    }

    /// What `animkit info --json` reports: clips, durations, tracks and key counts.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let summary = py.detach(|| self.inner.summary()).map_err(LibError)?;
        json::to_python(py, &summary)
    }

    /// The lossless JSON of the raw structure, as Python objects; `animkit.pack` reverses it.
    fn dump<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = py.detach(|| animkit::dump(self.inner.as_ref())).map_err(LibError)?;
        json::to_python(py, &value)
    }

    /// The file's bytes: identical to the input when nothing was changed.
    fn write<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py.detach(|| self.inner.write()).map_err(LibError)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The engine-neutral model: clips of tracks with numpy key arrays, and the skeleton.
    fn to_model(&self, py: Python<'_>) -> PyResult<Package> {
        let package = py.detach(|| self.inner.to_model()).map_err(LibError)?;
        Package::from_rust(py, package)
    }

    /// The model split into one package per skeleton (one per character, for HIP archives).
    fn packages(&self, py: Python<'_>) -> PyResult<Vec<Package>> {
        let packages = py.detach(|| self.inner.packages()).map_err(LibError)?;
        packages.into_iter().map(|p| Package::from_rust(py, p)).collect()
    }

    /// The assets inside an archive (HIP/HOP, SARC, Yaz0, IFP animations); empty for other files.
    fn entries(&self, py: Python<'_>) -> PyResult<Vec<Entry>> {
        let entries = py.detach(|| self.inner.entries()).map_err(LibError)?;
        Ok(entries.into_iter().map(|e| Entry { name: e.name, kind: e.kind, data: e.data }).collect())
    }

    /// A copy of this archive whose entry `name` (as `entries()` names it) holds `data`.
    fn with_entry(&self, py: Python<'_>, name: &str, data: &[u8]) -> PyResult<Document> {
        let inner = py.detach(|| self.inner.with_entry(name, Bytes::copy_from_slice(data))).map_err(LibError)?;
        Ok(Document { inner })
    }

    /// Every problem found, with offsets and severities (`animkit check`).
    fn check(&self, py: Python<'_>) -> Vec<Finding> {
        py.detach(|| self.inner.lint()).into_iter().map(Finding::from).collect()
    }

    /// A canonical rewrite that fixes what `check()` reports as fixable, and what it changed.
    fn repair(&self, py: Python<'_>) -> PyResult<(Document, Vec<String>)> {
        let repaired = py.detach(|| self.inner.repair()).map_err(LibError)?;
        Ok((Document { inner: repaired.document }, repaired.changes))
    }

    fn __repr__(&self) -> String {
        format!("<animkit.Document {} {}>", self.inner.format().name(), self.inner.version())
    }
}

/// An asset inside an archive.
#[pyclass(module = "animkit", frozen)]
pub struct Entry {
    /// A file name for the asset, unique within the archive.
    #[pyo3(get)]
    name: String,
    /// What the asset is (`ANIM`, `MODL`, `FSKA`…).
    #[pyo3(get)]
    kind: String,
    data: Bytes,
}

#[pymethods]
impl Entry {
    /// The asset's bytes.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.data)
    }

    fn __repr__(&self) -> String {
        format!("<animkit.Entry {:?} {} ({} bytes)>", self.name, self.kind, self.data.len())
    }
}

/// One problem in a file, as `animkit check` reports it.
#[pyclass(module = "animkit", frozen, get_all)]
pub struct Finding {
    /// `info`, `warning` or `error`.
    severity: &'static str,
    /// A stable short identifier (`trailing-bytes`).
    code: &'static str,
    /// Byte offset of the offending field, when there is one.
    offset: Option<u64>,
    /// The structure it is in (`animation 12 "run_civi" / sequence 3`).
    path: String,
    message: String,
    /// Whether `repair()` fixes it.
    fixable: bool,
}

impl From<animkit::lint::Finding> for Finding {
    fn from(f: animkit::lint::Finding) -> Self {
        let severity = f.severity.name();
        Finding { severity, code: f.code, offset: f.offset, path: f.path, message: f.message, fixable: f.fixable }
    }
}

#[pymethods]
impl Finding {
    fn __repr__(&self) -> String {
        let at = self.offset.map(|o| format!(" at 0x{o:X}")).unwrap_or_default();
        format!("<animkit.Finding {} {}{at}: {}>", self.severity, self.code, self.message)
    }
}
