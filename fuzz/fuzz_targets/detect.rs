//! Any trace file, its format detected from the content, as `.json` and as `.jsonl`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| trailgate_fuzz::trace(None, data));
