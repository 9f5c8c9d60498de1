//! Benchmarks of animkit against other readers of the same formats (see `benches/`). The crate
//! has no library code of its own: it exists so that a peer (rw-parser-rs, GPL-3.0) is linked
//! only here, never into animkit, its CLI or its Python package.
