//! The suite loader: a `toolgate.yaml` parsed and checked, its diagnostic rendered.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| toolgate_fuzz::suite(data));
