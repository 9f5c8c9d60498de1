//! Interchange formats that talk only to the model (`DESIGN.md`, layer 3): glTF 2.0,
//! the model as JSON (`model-json`) and texture-pattern tables (`csv`).
//!
//! Unlike the game formats under [`crate::formats`], these never see a raw game structure: they
//! export a [`crate::model::Package`] and import one back. They are registered in
//! [`crate::REGISTRY`] like any format, so `open`, `convert --to gltf` and `dump` work.

pub mod gltf;
pub mod model_json;
pub(crate) mod table;
