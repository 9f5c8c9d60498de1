//! Reads any input as gltf (no probing) and runs every operation on what reads.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("common.rs");

fuzz_target!(|data: &[u8]| run_target(env!("CARGO_BIN_NAME"), data));
