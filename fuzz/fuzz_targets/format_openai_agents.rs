//! The `openai-agents` trace format, forced: the input as a `.json` document and as `.jsonl` lines.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| trailgate_fuzz::trace(Some("openai-agents"), data));
