//! The game formats, one folder each. They are listed in [`crate::REGISTRY`], implement the
//! traits of [`crate::format`], and never import one another: conversion goes through the model.

pub mod bfres;
pub mod cryengine;
pub mod evilengine;
pub mod ifp;
