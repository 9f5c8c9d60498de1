//! Any input that reads as model-json writes back to the same bytes, and those read again to the
//! same document (compared through its write and its lossless dump).
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("common.rs");

fuzz_target!(|data: &[u8]| run_target(env!("CARGO_BIN_NAME"), data));
