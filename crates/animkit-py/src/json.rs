//! JSON values between the library and Python, through Python's own `json` module.
//!
//! Floats survive exactly both ways: the library writes shortest round-trip forms, Python's
//! `json` reads them into `float` and writes `repr`, which reads back to the same value.

use animkit::{Error, ErrorKind};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::LibError;

/// A serialisable library value as Python objects (dicts, lists, str, int, float, bool, None).
pub fn to_python<'py>(py: Python<'py>, value: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|e| LibError(Error::new(ErrorKind::Invalid, None, format!("JSON: {e}"))))?;
    py.import("json")?.call_method1("loads", (PyString::new(py, &text),))
}

/// Python objects as a JSON value.
pub fn from_python(object: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    let py = object.py();
    let text: String = py.import("json")?.call_method1("dumps", (object,))?.extract()?;
    serde_json::from_str(&text)
        .map_err(|e| LibError(Error::new(ErrorKind::Invalid, None, format!("not JSON: {e}"))).into())
}
