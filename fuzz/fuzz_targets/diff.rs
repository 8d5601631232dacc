//! `trailgate diff`: two JSON reports, split from the input at its first NUL byte, compared
//! and rendered in every format, or their diagnostic rendered.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| trailgate_fuzz::diff(data));
