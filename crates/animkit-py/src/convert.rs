//! `animkit.write`, `animkit.convert` and `animkit.formats`.
//!
//! [`write_package`] and [`convert_file`] stand in for the library's own `animkit::write` and
//! `animkit::convert(input, output, &ConvertOptions)`: each is the one place to swap for that
//! call, and does the least the current primitives need (one input, one output).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use animkit::formats::{by_extension, by_name, Format, ReadOptions, WriteOptions};
use animkit::model::Package;
use animkit::{Error, ErrorKind};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::{warn_all, LibError};

/// The format and variant to write: `to` by name, else the output path's extension.
fn target(to: Option<&str>, output: &Path) -> animkit::Result<(&'static dyn Format, Option<&'static str>)> {
    let unsupported = |m: String| Error::new(ErrorKind::Unsupported, None, m);
    let (format, variant) = match to {
        Some(name) => by_name(name).ok_or_else(|| unsupported(format!("unknown output format \"{name}\"")))?,
        None => {
            let ext = output.extension().and_then(|e| e.to_str()).unwrap_or_default();
            by_extension(ext).ok_or_else(|| {
                unsupported(format!("cannot tell the output format from \"{}\"; name one with to=", output.display()))
            })?
        }
    };
    if !format.capabilities().from_model {
        return Err(unsupported(format!("{} cannot be written from the model yet", format.name())));
    }
    Ok((format, variant))
}

/// Writes `package` as `to` (or the format of `path`'s extension) to `path`, atomically, and
/// returns what the conversion approximated. To be replaced by the library's `animkit::write`.
pub fn write_package(
    package: &Package,
    path: &Path,
    to: Option<&str>,
    params: BTreeMap<String, String>,
) -> animkit::Result<Vec<String>> {
    let (format, variant) = target(to, path)?;
    let options = WriteOptions { variant: variant.map(str::to_string), params };
    let written = format.from_model(package, &options)?;
    let bytes = written.document.write()?;
    animkit::io::write_atomic(path, &bytes).map_err(|e| Error::from(e).within(path.display().to_string()))?;
    Ok(written.warnings)
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

/// Converts one file: open → model (the named clips; from a HIP, with their character's
/// skeleton) → the skeleton of another file, if given → the output format → `output`, atomically.
/// Returns what the conversion approximated. To be replaced by the library's `animkit::convert`.
pub fn convert_file(input: &Path, output: &Path, request: &ConvertRequest) -> animkit::Result<Vec<String>> {
    if animkit::io::same_file(input, output) {
        let message = format!("refusing to overwrite the input {}", output.display());
        return Err(Error::new(ErrorKind::Io, None, message));
    }
    let (format, _) = target(request.to.as_deref(), output)?;
    let read_options = ReadOptions { params: request.params.clone(), ..Default::default() };
    let open = |path: &Path| animkit::open_with(path, &read_options).map_err(|e| e.within(path.display().to_string()));
    let skeleton =
        match &request.skeleton {
            Some(path) => Some(open(path)?.to_model()?.skeleton.ok_or_else(|| {
                Error::new(ErrorKind::Invalid, None, format!("{} holds no skeleton", path.display()))
            })?),
            None => None,
        };
    let document = open(input)?;
    let caps = document.format().capabilities();
    let characters =
        if skeleton.is_none() && caps.archive && caps.skeleton { document.packages()? } else { Vec::new() };
    let (mut package, mut warnings) =
        pick_clips(document.as_ref(), characters, &request.clips, format.capabilities().skeleton)?;
    if let Some(skeleton) = skeleton {
        package.skeleton = Some(skeleton);
    }
    warnings.extend(write_package(&package, output, request.to.as_deref(), request.params.clone())?);
    Ok(warnings)
}

/// The document's model with only the named clips (all when none is named). `characters` are
/// its packages per skeleton (for an archive of several characters): clips of one character come
/// with that character's skeleton; clips of several go into one file only when it carries no
/// skeleton (with a warning, as `animkit convert` gives), since merging skeletons is the CLI's.
fn pick_clips(
    document: &dyn animkit::Document,
    mut characters: Vec<Package>,
    names: &[String],
    writes_skeleton: bool,
) -> animkit::Result<(Package, Vec<String>)> {
    let named = |name: &str| names.is_empty() || names.iter().any(|n| n.eq_ignore_ascii_case(name));
    characters.iter_mut().for_each(|p| p.clips.retain(|c| named(&c.name)));
    characters.retain(|p| !p.clips.is_empty());
    let mut warnings = Vec::new();
    if characters.len() > 1 {
        let list = characters.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ");
        let message = format!("the clips bind to {} different skeletons ({list})", characters.len());
        if writes_skeleton {
            let hint = "convert one character's clips at a time (clips=[…]), or use `animkit convert`";
            return Err(Error::new(ErrorKind::Unsupported, None, format!("{message}: {hint}")));
        }
        warnings.push(format!("{message}; only those of the package skeleton are bound in one file"));
    }
    let mut package = match characters.pop() {
        Some(one) if characters.is_empty() && !names.is_empty() => one,
        _ => document.to_model()?,
    };
    if let Some(missing) = names.iter().find(|n| !package.clips.iter().any(|c| c.name.eq_ignore_ascii_case(n))) {
        return Err(Error::new(ErrorKind::Invalid, None, format!("no clip \"{missing}\"")));
    }
    package.clips.retain(|c| named(&c.name));
    Ok((package, warnings))
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

/// Every format animkit knows: `name`, `description`, `extensions`, `variants` and
/// `capabilities` (read, to_model, from_model, dump, archive, skeleton), as `animkit formats`.
#[pyfunction]
pub fn formats(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list: Vec<serde_json::Value> = animkit::formats::REGISTRY
        .iter()
        .map(|f| {
            serde_json::json!({
                "name": f.name(),
                "description": f.description(),
                "extensions": f.extensions(),
                "variants": f.variants(),
                "capabilities": f.capabilities(),
            })
        })
        .collect();
    Ok(crate::json::to_python(py, &list)?.cast_into::<PyList>()?)
}
