//! The suite loader: a `trailgate.yaml` parsed and checked, its diagnostic rendered.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| trailgate_fuzz::suite(data));
