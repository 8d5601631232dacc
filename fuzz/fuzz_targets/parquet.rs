//! The Parquet reader: the input as a `.parquet` trace, detected and forced as each export.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| trailgate_fuzz::parquet(data));
