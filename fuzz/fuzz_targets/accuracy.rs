//! The `accuracy` command's input: parsed, then scored and rendered, or its diagnostic
//! rendered.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| trailgate_fuzz::accuracy(data));
