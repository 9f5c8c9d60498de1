//! Benchmarks of animkit against other readers of the same formats (see `benches/`). The crate
//! exists so that a peer (rw-parser-rs, GPL-3.0) is linked only here, never into animkit, its
//! CLI or its Python package. Its one module, [`proto`], is a measured prototype of a leaner
//! model, not library code.

pub mod proto;
