//! Python keyword options as the library's format settings (`key=value`, as the CLI's `--opt`).

use std::collections::BTreeMap;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};

/// Format settings from `**options`: `True`/`False` become `true`/`false`, numbers their decimal
/// form, strings themselves; `None` leaves a setting out. The formats check the keys and values.
pub fn params(options: Option<&Bound<'_, PyDict>>) -> PyResult<BTreeMap<String, String>> {
    let mut params = BTreeMap::new();
    let Some(options) = options else { return Ok(params) };
    for (key, value) in options.iter() {
        let key: String = key.extract()?;
        if value.is_none() {
            continue;
        }
        let text = if let Ok(b) = value.cast::<PyBool>() {
            if b.is_true() { "true" } else { "false" }.to_string()
        } else if value.is_instance_of::<PyInt>() || value.is_instance_of::<PyFloat>() {
            value.str()?.to_string()
        } else if let Ok(s) = value.cast::<PyString>() {
            s.to_string()
        } else {
            return Err(PyTypeError::new_err(format!(
                "option {key}: expected a str, bool or number, got {}",
                value.get_type().name()?
            )));
        };
        params.insert(key, text);
    }
    Ok(params)
}
