//! The matcher language: a value matcher read from YAML, as a grader's `args` reads one, and
//! matched against a JSON value, split from the input at its first NUL byte.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| trailgate_fuzz::matcher(data));
