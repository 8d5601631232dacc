//! `trailgate merge`: shard reports, split from the input at each NUL byte, merged and
//! rendered in both formats, or their diagnostic rendered.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| trailgate_fuzz::merge(data));
