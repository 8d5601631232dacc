//! The trace model of trailgate and its loaders: recorded runs of an agent, call by call.
//!
//! A run is one recorded attempt of an agent; its calls keep trace order. [`read_trace`]
//! reads any supported format (trailgate's own call list and event trajectory, and the
//! formats real agents write; see `docs/formats.md`), detected from the content, one record
//! at a time, so a large JSON Lines file is never held whole. This crate knows nothing of
//! scoring.

mod accuracy_input;
#[cfg(feature = "parquet")]
mod columnar;
mod decimal;
mod document;
mod equality;
mod error;
mod formats;
mod guarded;
mod json_scan;
mod lazy_value;
mod limited;
mod model;
mod naming;
mod patch;
mod read;
mod value_ref;
mod write;

pub use crate::accuracy_input::{AccuracyInput, PlainCall, parse_accuracy_input};
#[cfg(feature = "parquet")]
pub use crate::columnar::MAX_ROW_GROUP_BYTES;
pub use crate::decimal::Decimal;
pub use crate::document::parse_run;
pub use crate::equality::args_equal;
pub use crate::error::{
    LineSource, MAX_NESTING_DEPTH, MAX_VALUE_DEPTH, TraceError, inert_source, json_error_span,
};
pub use crate::formats::format_names;
pub use crate::guarded::{in_guarded_decode, quiet_guarded_panics};
pub use crate::lazy_value::LazyValue;
pub use crate::limited::read_text_limited;
pub use crate::model::{Call, FileLayout, Interval, Run, Status, Tokens, Usage};
pub use crate::naming::{
    MAX_REGEX_BYTES, MAX_REGEX_PATTERN_BYTES, Naming, NamingError, REGEX_DFA_CACHE_BYTES,
    compile_meta_regex, compile_regex,
};
pub use crate::patch::patch_files;
pub use crate::read::{
    MAX_DOCUMENT_BYTES, MAX_LINE_BYTES, PART_RUNS, PartReader, PartRuns, ReadOptions, TracePart,
    TraceRead, read_trace, read_trace_in_parts,
};
pub use crate::value_ref::{ValueRef, result_text};
pub use crate::write::write_run;

#[cfg(test)]
mod tests;
