//! Equal-function-set scoring of agent tool calls, with no I/O and no model in the loop.
//!
//! An agent in a multi-server setup can reach the same capability under different names:
//! `brave.web_search` and `google.search` both search the web. An equal-function class
//! groups such tools; a run scores a true positive for each class one of its calls
//! satisfied, a false negative for each class none did, and a false positive for each call
//! that satisfied nothing and repeats nothing. Precision, recall and F1 are whole percents,
//! rounded down once from the exact counts.
//!
//! This crate is what `trailgate check` runs underneath, usable on its own: plain data in,
//! plain data out, no files, no YAML, and one dependency (`num-bigint`, for exact big
//! binomials). Besides equal-function sets it holds
//! the plain algorithms of the other graders: [`maximum_matching`] (the multiset match of
//! expected tools), [`longest_common_subsequence`] (ordered tool correctness) and
//! [`pair_calls`] (call accuracy), each over your lists and a closure that says what
//! matches. The matching and the pairing grow faster than their lists:
//! [`check_pairing_size`] says whether two lengths are within the limits trailgate keeps them
//! to.
//!
//! # Example
//!
//! ```
//! use trailgate_core::{score, CallOutcome, Class, ClassSet, Counts, Member, ToolId};
//!
//! // Two capabilities: search (two interchangeable tools) and fetch.
//! let classes = ClassSet::new(vec![
//!     Class::new("search", vec![Member::parse("brave.web_search")?, Member::parse("google.search")?]),
//!     Class::new("fetch", vec![Member::parse("http.get")?]),
//! ])?;
//!
//! // What one run of the agent called, in trace order.
//! let run = [ToolId::qualified("google", "search"), ToolId::qualified("shell", "exec")];
//! let selection = score(&classes, &run);
//!
//! assert_eq!(selection.satisfied_by, vec![Some(0), None]); // fetch was missed
//! assert_eq!(selection.calls, vec![CallOutcome::Satisfied(0), CallOutcome::Unexpected]);
//! assert_eq!(selection.counts, Counts::new(1, 1, 1));
//! let metrics = selection.counts.metrics();
//! assert_eq!(metrics.f1.value(), 50);
//!
//! // Several runs are micro-averaged: add the counts, then compute the percents once.
//! let other = score(&classes, &[ToolId::qualified("brave", "web_search"), ToolId::qualified("http", "get")]);
//! let total = selection.counts + other.counts;
//! assert_eq!(total, Counts::new(3, 1, 1));
//! assert_eq!(total.metrics().f1.value(), 75);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The rules, and where they differ from the seed document, are in `docs/scoring.md`.
//!
//! # Repeated runs
//!
//! [`reliability`] turns counts of runs (n recorded, c passed) into the exact figures of a
//! `reliability:` block: pass rate, pass@k, pass^k, the Wilson interval and Newcombe's
//! interval for a change between two sets of runs (`docs/reliability.md`).
//!
//! ```
//! use trailgate_core::reliability::{reliability, Confidence};
//!
//! // 20 runs that all passed support "at least 83 %", not "100 %", at 95 % confidence.
//! let r = reliability(20, 20, 1, Confidence::NinetyFive)?;
//! assert_eq!((r.interval.lower.value(), r.interval.upper.value()), (83, 100));
//! # Ok::<(), trailgate_core::reliability::ReliabilityError>(())
//! ```

#![deny(clippy::float_arithmetic)]

mod class;
mod id;
pub mod lookup;
mod matching;
mod percent;
// A public module rather than names in the `pub use` block: `reliability::pass_rate` and
// `reliability::Interval` say what they are about, and the block stays about scoring calls.
pub mod reliability;
mod selection;

pub use crate::class::{Class, ClassIndex, ClassName, ClassSet, ClassSetError};
pub use crate::id::{Member, MemberError, ToolId, ToolRef};
pub use crate::matching::{
    AccuracyCounts, AccuracyMetrics, CallPairing, MAX_PAIRING_PAIRS, MAX_PAIRING_SIZE,
    PairingTooLarge, check_pairing_size, check_sequence_size, longest_common_subsequence,
    longest_common_subsequence_of_spans, maximum_matching, pair_calls, pairing_size,
};
pub use crate::percent::{Counts, Percent, SelectionMetrics};
pub use crate::selection::{CallIndex, CallOutcome, RunSelection, Selector, score};

#[cfg(test)]
mod tests;
