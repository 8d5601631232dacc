//! The `tool-calls` grader's part of the JSON report.

use std::io;

use serde::Serialize;

use crate::json_part::{Entries, JsonPart};
use crate::run::RunInfo;

use super::{Miss, NearMiss, RunToolCalls, ToolCallsGrader, ToolCallsOutcome};

/// The grader's run-sized list.
const RUNS: usize = 0;

/// How many run-sized lists the grader's object holds.
pub(crate) const LISTS: usize = 1;

/// The names of the grader's run-sized lists, by number: their keys in its object.
pub(crate) const LIST_NAMES: [&str; LISTS] = ["runs"];

/// What the grader's run entries need of its entries: they name an entry by its number in
/// the object's `required`, `disallowed` or `sequence`, written once per test, and say how
/// long the sequence is.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolCallsNames {
    sequence: usize,
}

/// The keys under which the grader's run entries name a call by its number: a disallowed call's
/// and a near miss's `call`.
const CALL_KEYS: [&str; 1] = ["call"];

impl ToolCallsGrader {
    pub(crate) fn json_names(&self) -> ToolCallsNames {
        ToolCallsNames {
            sequence: self.sequence.len(),
        }
    }
}

impl ToolCallsOutcome {
    pub(crate) fn json_names(&self) -> ToolCallsNames {
        ToolCallsNames {
            sequence: self.sequence.len(),
        }
    }

    /// The grader's object: the runs that passed, the pass rate, the entries, its list.
    pub(crate) fn json_part(&self) -> JsonPart {
        JsonPart::new("tool_calls")
            .naming_calls(&CALL_KEYS)
            .value("passed_runs", &self.passed_runs)
            .value("pass_rate", &self.pass_rate.value())
            .value("required", &self.required)
            .value("disallowed", &self.disallowed)
            .value("sequence", &self.sequence)
            .list(LIST_NAMES[RUNS], RUNS)
    }
}

/// Writes one run's entry.
pub(crate) fn write_entries(
    names: &ToolCallsNames,
    info: &RunInfo,
    run: &RunToolCalls,
    entries: &mut Entries<'_>,
) -> io::Result<()> {
    let entry = ToolCallsRun {
        run: info.number,
        passed: run.passed,
        unmet_required: run
            .unmet
            .iter()
            .map(|unmet| UnmetEntry {
                entry: unmet.entry + 1,
                found: unmet.found,
                needed: unmet.needed,
                near_miss: unmet.near_miss.as_ref().map(near_miss),
            })
            .collect(),
        disallowed_calls: run
            .violations
            .iter()
            .map(|violation| DisallowedCall {
                entry: violation.entry + 1,
                call: violation.call,
            })
            .collect(),
        sequence: run.sequence_stopped_at.map(|stopped| SequenceProgress {
            matched: stopped,
            entries: names.sequence,
            stopped_at: stopped + 1,
            near_miss: run.sequence_near_miss.as_ref().map(near_miss),
        }),
    };
    entries.push(RUNS, &entry)
}

fn near_miss(near: &NearMiss) -> NearMissJson {
    let (field, found) = match &near.miss {
        Miss::Field { field, found } => (field.clone(), found.clone()),
        Miss::Step { step } => ("step".to_owned(), Some(step.to_string())),
        Miss::NotFinal => ("final".to_owned(), None),
        Miss::NoResult => ("completed".to_owned(), None),
        Miss::Order { previous } => ("order".to_owned(), Some(previous.to_string())),
    };
    NearMissJson {
        call: near.call,
        field,
        found,
    }
}

#[derive(Serialize)]
struct ToolCallsRun {
    run: usize,
    passed: bool,
    unmet_required: Vec<UnmetEntry>,
    disallowed_calls: Vec<DisallowedCall>,
    sequence: Option<SequenceProgress>,
}

#[derive(Serialize)]
struct UnmetEntry {
    entry: usize,
    found: u32,
    needed: u32,
    near_miss: Option<NearMissJson>,
}

/// Why a call whose name matched missed: `field` is `command`, `path`, `args.<name>`,
/// `result`, `step`, `final`, `completed` or `order` (the call matched a sequence entry
/// before the match of the entry before it, the call `found`); `found` is what the call had.
#[derive(Serialize)]
struct NearMissJson {
    call: usize,
    field: String,
    found: Option<String>,
}

#[derive(Serialize)]
struct DisallowedCall {
    entry: usize,
    call: usize,
}

#[derive(Serialize)]
struct SequenceProgress {
    matched: usize,
    entries: usize,
    stopped_at: usize,
    near_miss: Option<NearMissJson>,
}
