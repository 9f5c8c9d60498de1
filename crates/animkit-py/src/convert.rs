//! `animkit.write`, `animkit.convert` and `animkit.formats`: thin fronts over the library's
//! `animkit::write` and `animkit::convert`, which do the work for the CLI too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use animkit::convert::{load_skeleton, ConvertOptions, ConvertReport, FileReport, OutputOptions};
use animkit::format::ReadOptions;
use animkit::model::Package;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::{warn_all, LibError};

/// Writes `package` as `to` (or the format of `path`'s extension) to `path`, atomically, and
/// returns what the conversion lost and approximated, as the CLI words it.
pub fn write_package(
    package: &Package,
    path: &Path,
    to: Option<&str>,
    params: BTreeMap<String, String>,
) -> animkit::Result<Vec<String>> {
    let output = to.map(OutputOptions::to).unwrap_or_default().with_params(params);
    let report = animkit::write(package, path, &output)?;
    Ok(file_warnings(&report, ""))
}

/// What `convert` is asked for besides the input and output.
pub struct ConvertRequest {
    pub to: Option<String>,
    /// Only these clips (any case); every one must exist. Empty for all.
    pub clips: Vec<String>,
    /// A file whose skeleton the tracks bind to.
    pub skeleton: Option<PathBuf>,
    /// Format settings, for reading and for writing (as the CLI's `--opt`).
    pub params: BTreeMap<String, String>,
}

/// Converts one file as `animkit convert` does and returns its warnings, as the CLI words them.
pub fn convert_file(input: &Path, output: &Path, request: &ConvertRequest) -> animkit::Result<Vec<String>> {
    let read = ReadOptions::default().with_params(request.params.clone());
    let skeleton = request.skeleton.as_deref().map(|path| load_skeleton(path, &read)).transpose()?;
    let options = ConvertOptions::default()
        .with_output(request.to.clone().map(OutputOptions::to).unwrap_or_default())
        .with_clips(request.clips.iter().cloned())
        .with_skeleton(skeleton)
        .with_params(request.params.clone());
    Ok(convert_warnings(&animkit::convert(input, output, &options)?))
}

/// A conversion's warnings in the CLI's words and order; a file's own are prefixed with its path
/// when the input was split into several files (one per character).
fn convert_warnings(report: &ConvertReport) -> Vec<String> {
    let split = report.files.len() > 1 || report.files.iter().any(|f| f.character.is_some());
    let mut out = report.warnings.clone();
    for file in &report.files {
        let prefix = if split { format!("{}: ", file.path.display()) } else { String::new() };
        out.extend(file_warnings(file, &prefix));
    }
    out
}

/// What one written file lost (counted) and approximated (grouped by cause).
fn file_warnings(report: &FileReport, prefix: &str) -> Vec<String> {
    report.losses.iter().chain(&report.warnings).map(|w| format!("{prefix}{w}")).collect()
}

/// Writes a package to `path` as `format` (a format or variant name, e.g. `ifp`, `anp3`, `skb`,
/// `cryengine`, `bfres`, `glb`), or the format `path`'s extension names. Keywords are format
/// settings (e.g. `overflow="error"`, `rotation="st48"`); what the conversion had to approximate
/// comes as `animkit.ConversionWarning`s.
#[pyfunction]
#[pyo3(signature = (package, path, format=None, **options))]
pub fn write(
    py: Python<'_>,
    package: &Bound<'_, crate::model::Package>,
    path: PathBuf,
    format: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<()> {
    let params = crate::options::params(options)?;
    let package = package.borrow().to_rust(py)?;
    let warnings = py.detach(|| write_package(&package, &path, format, params)).map_err(LibError)?;
    warn_all(py, &warnings)
}

/// Converts the file `input` to `output` (format `to`, or the output's extension): only the
/// clips named in `clips`, bound to the skeleton of the file `skeleton` if given. Keywords are
/// format settings, for reading and writing. Refuses to overwrite the input. Warnings as `write`.
#[pyfunction]
#[pyo3(signature = (input, output, *, to=None, clips=None, skeleton=None, **options))]
pub fn convert(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    to: Option<String>,
    clips: Option<Vec<String>>,
    skeleton: Option<PathBuf>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<()> {
    let request =
        ConvertRequest { to, clips: clips.unwrap_or_default(), skeleton, params: crate::options::params(options)? };
    let warnings = py.detach(|| convert_file(&input, &output, &request)).map_err(LibError)?;
    warn_all(py, &warnings)
}

/// Every format animkit knows: `name`, `description`, `extensions`, `variants`, `capabilities`
/// (read, to_model, from_model, dump, archive, skeleton) and the option keys it reads and writes
/// (`read_params`, `write_params`: key, values, description), as `animkit formats --json`.
#[pyfunction]
pub fn formats(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list: Vec<serde_json::Value> = animkit::REGISTRY
        .formats()
        .iter()
        .map(|f| {
            serde_json::json!({
                "name": f.name(),
                "description": f.description(),
                "extensions": f.extensions(),
                "variants": f.variants(),
                "capabilities": f.capabilities(),
                "read_params": f.read_params(),
                "write_params": f.write_params(),
            })
        })
        .collect();
    Ok(crate::json::to_python(py, &list)?.cast_into::<PyList>()?)
}
