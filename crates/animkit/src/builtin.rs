//! The registry of every format animkit ships: the one [`crate::open`], `convert` and the fronts
//! (CLI, Python) find formats through. Adding a format means one module and one line here.

use crate::containers::{sarc::SarcFormat, yaz0::Yaz0, zstd::Zstd, zstd_dict};
use crate::formats::{bfres, cryengine, evilengine, ifp};
use crate::interchange::{gltf, model_json, table};
use crate::registry::Registry;

/// Every format the library knows, in probing order.
pub static REGISTRY: Registry = Registry::new(
    &[
        &ifp::Ifp,
        &evilengine::SkbFormat,
        &evilengine::HipFormat,
        &evilengine::dff::DffFormat,
        &cryengine::CryEngine,
        &bfres::Bfres,
        &YAZ0,
        &ZSTD,
        &SARC,
        &gltf::Gltf,
        &model_json::ModelJson,
        &table::Csv,
    ],
    // `zstd_dict`: any input may hold Zstandard files nested in archives.
    &[zstd_dict::PARAM],
);

/// Yaz0, reading its payload through [`REGISTRY`].
pub static YAZ0: Yaz0 = Yaz0::new(&REGISTRY);
/// Zstandard, reading its payload through [`REGISTRY`].
pub static ZSTD: Zstd = Zstd::new(&REGISTRY);
/// SARC, reading its members through [`REGISTRY`].
pub static SARC: SarcFormat = SarcFormat::new(&REGISTRY);
