//! `import animkit`: the animkit library for Python (PyO3, abi3 for CPython 3.11 and later).
//!
//! A thin front over the library, as the CLI is: documents (`open`, `pack`), the model with its
//! key arrays as numpy arrays (`Document.to_model`, `Package`, `Clip`, `Track`, `Skeleton`),
//! `sample`, `write`, `convert` and `formats`. Errors are `animkit.Error` subclasses carrying the
//! byte offset and structure path; conversion warnings go through Python's `warnings`.

mod convert;
mod document;
mod errors;
mod json;
mod key_arrays;
mod model;
mod options;
mod sample;
mod skeleton;
mod target;
mod track;

use pyo3::prelude::*;

/// The allocator of the `animkit` binary and the benchmarks, for the library's own allocations
/// (numpy arrays use Python's): with glibc's, `to_model` of a large IFP takes about 1.5× as long.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Read, write, inspect, repair and convert game animation formats (GTA IFP, EvilEngine
/// SKB/HIP, CryEngine CAF/DBA/CHR, Nintendo BFRES, glTF, model JSON).
///
/// >>> import animkit
/// >>> doc = animkit.open("ped.ifp")
/// >>> package = doc.to_model()
/// >>> package.clips[0].tracks[0].values   # numpy, (keys, 4) for rotations
#[pymodule(name = "animkit")]
fn animkit_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_class::<document::Document>()?;
    m.add_class::<document::Entry>()?;
    m.add_class::<document::Finding>()?;
    m.add_class::<model::Package>()?;
    m.add_class::<model::Clip>()?;
    m.add_class::<track::Track>()?;
    m.add_class::<key_arrays::KeyArrays>()?;
    m.add_class::<target::Target>()?;
    m.add_class::<skeleton::Skeleton>()?;
    m.add_class::<sample::Sample>()?;
    m.add_function(wrap_pyfunction!(document::open, m)?)?;
    m.add_function(wrap_pyfunction!(document::pack, m)?)?;
    m.add_function(wrap_pyfunction!(sample::sample, m)?)?;
    m.add_function(wrap_pyfunction!(convert::write, m)?)?;
    m.add_function(wrap_pyfunction!(convert::convert, m)?)?;
    m.add_function(wrap_pyfunction!(convert::formats, m)?)?;
    Ok(())
}
