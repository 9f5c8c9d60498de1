//! The game formats, one folder each. They are listed in [`crate::REGISTRY`], implement the
//! traits of [`crate::format`], and never import one another: conversion goes through the model.

#[warn(missing_docs)]
pub mod bfres;
pub mod cryengine;
pub mod evilengine;
pub mod ifp;

// The trait file's items under their former path, until every format imports `crate::format`.
pub use crate::format::{
    Budget, Capabilities, ClipSummary, Confidence, Document, Entry, Format, Limits, Param, ReadOptions, Summary,
    TrackSummary, WriteOptions, Written, SKELETON_PARAM,
};
