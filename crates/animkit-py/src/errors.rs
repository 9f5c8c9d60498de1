//! The library's errors as Python exceptions, and its warnings through Python's `warnings`.
//!
//! Every library error is an `animkit.Error`, of the subclass its kind names (`TruncatedError`,
//! `InvalidError`…), carrying `kind`, `offset` (byte offset in the input, or `None`), `path` (the
//! structures it was in, outermost first) and `message`; `str(e)` is the library's full sentence.

use std::ffi::CString;

use animkit::ErrorKind;
use pyo3::exceptions::{PyException, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::PyList;

pyo3::create_exception!(animkit, Error, PyException, "An animkit error: `kind`, `offset`, `path`, `message`.");
pyo3::create_exception!(animkit, TruncatedError, Error, "The input ends before a structure that it announces.");
pyo3::create_exception!(animkit, InvalidError, Error, "A value in the input breaks the format's rules.");
pyo3::create_exception!(
    animkit,
    UnsupportedError,
    Error,
    "The input is well-formed but uses something animkit does not implement."
);
pyo3::create_exception!(
    animkit,
    UnrepresentableError,
    Error,
    "The data cannot be represented in the requested output."
);
pyo3::create_exception!(animkit, LimitError, Error, "A resource limit (keys, bytes, nesting) was reached.");
pyo3::create_exception!(animkit, IoError, Error, "The file system failed.");
pyo3::create_exception!(
    animkit,
    ConversionWarning,
    PyUserWarning,
    "What a conversion had to approximate or drop (one warning per kind of loss, with counts)."
);

/// A library error on its way to Python: `?` turns it into the matching exception.
pub struct LibError(pub animkit::Error);

impl From<animkit::Error> for LibError {
    fn from(e: animkit::Error) -> Self {
        LibError(e)
    }
}

impl From<LibError> for PyErr {
    fn from(LibError(e): LibError) -> PyErr {
        let text = e.to_string();
        let err = match e.kind {
            ErrorKind::Truncated => TruncatedError::new_err(text),
            ErrorKind::Invalid => InvalidError::new_err(text),
            ErrorKind::Unsupported => UnsupportedError::new_err(text),
            ErrorKind::Unrepresentable => UnrepresentableError::new_err(text),
            ErrorKind::Limit => LimitError::new_err(text),
            ErrorKind::Io => IoError::new_err(text),
            // A kind added to the library later: the base class until it gets its own.
            _ => Error::new_err(text),
        };
        Python::attach(|py| {
            let value = err.value(py);
            let attributes = (|| -> PyResult<()> {
                value.setattr("kind", kind_name(e.kind))?;
                value.setattr("offset", e.offset)?;
                value.setattr("path", PyList::new(py, &e.path)?)?;
                value.setattr("message", &e.message)
            })();
            match attributes {
                Ok(()) => err,
                Err(failed) => failed,
            }
        })
    }
}

/// The snake-case name of an error kind, as `kind` holds it.
fn kind_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Truncated => "truncated",
        ErrorKind::Invalid => "invalid",
        ErrorKind::Unsupported => "unsupported",
        ErrorKind::Unrepresentable => "unrepresentable",
        ErrorKind::Limit => "limit",
        ErrorKind::Io => "io",
        _ => "other",
    }
}

/// An `InvalidError` for a model built in Python that breaks an invariant.
pub fn invalid(message: impl Into<String>) -> PyErr {
    LibError(animkit::Error::new(ErrorKind::Invalid, None, message)).into()
}

/// Issues each of a conversion's warnings as an `animkit.ConversionWarning`. The library already
/// summarises them (one line per kind of loss, with counts), as the CLI prints them.
pub fn warn_all(py: Python<'_>, warnings: &[String]) -> PyResult<()> {
    let category = py.get_type::<ConversionWarning>();
    for warning in warnings {
        let message = CString::new(warning.replace('\0', " ")).unwrap_or_default();
        PyErr::warn(py, &category, &message, 1)?;
    }
    Ok(())
}

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("TruncatedError", py.get_type::<TruncatedError>())?;
    m.add("InvalidError", py.get_type::<InvalidError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("UnrepresentableError", py.get_type::<UnrepresentableError>())?;
    m.add("LimitError", py.get_type::<LimitError>())?;
    m.add("IoError", py.get_type::<IoError>())?;
    m.add("ConversionWarning", py.get_type::<ConversionWarning>())?;
    Ok(())
}
