//! Builds nested containers around the input and reads them through the probe (see `nested`
//! in common.rs).
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("common.rs");

fuzz_target!(|data: &[u8]| run_target(env!("CARGO_BIN_NAME"), data));
