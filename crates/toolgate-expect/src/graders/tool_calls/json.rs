//! The `tool-calls` grader's part of the JSON report.

use std::io;

use serde::Serialize;

use crate::json_part::{Entries, JsonPart};
use crate::run::RunInfo;

use super::{Miss, NearMiss, RunToolCalls, ToolCallsGrader, ToolCallsOutcome, ToolMatch};

/// The grader's run-sized list.
const RUNS: usize = 0;

/// How many run-sized lists the grader's object holds.
pub(crate) const LISTS: usize = 1;

/// The entries, described, that the grader's run entries name.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolCallsNames {
    required: Vec<String>,
    disallowed: Vec<String>,
    sequence: Vec<String>,
}

impl ToolCallsGrader {
    pub(crate) fn json_names(&self) -> ToolCallsNames {
        let described = |list: &[ToolMatch]| list.iter().map(ToString::to_string).collect();
        ToolCallsNames {
            required: self.required.iter().map(ToString::to_string).collect(),
            disallowed: described(&self.disallowed),
            sequence: described(&self.sequence),
        }
    }
}

impl ToolCallsOutcome {
    pub(crate) fn json_names(&self) -> ToolCallsNames {
        ToolCallsNames {
            required: self.required.clone(),
            disallowed: self.disallowed.clone(),
            sequence: self.sequence.clone(),
        }
    }

    /// The grader's object: the runs that passed, the pass rate, the entries, its list.
    pub(crate) fn json_part(&self) -> JsonPart {
        JsonPart::new("tool_calls")
            .value("passed_runs", &self.passed_runs)
            .value("pass_rate", &self.pass_rate.value())
            .value("required", &self.required)
            .value("disallowed", &self.disallowed)
            .value("sequence", &self.sequence)
            .list("runs", RUNS)
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
        source: &info.source.file,
        line: info.source.line,
        passed: run.passed,
        unmet_required: run
            .unmet
            .iter()
            .map(|unmet| UnmetEntry {
                entry: unmet.entry + 1,
                matcher: described(&names.required, unmet.entry),
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
                matcher: described(&names.disallowed, violation.entry),
                call: violation.call,
                tool: &violation.tool,
            })
            .collect(),
        sequence: run.sequence_stopped_at.map(|stopped| SequenceProgress {
            matched: stopped,
            entries: names.sequence.len(),
            stopped_at: stopped + 1,
            matcher: described(&names.sequence, stopped),
        }),
    };
    entries.push(RUNS, &entry)
}

/// Entry `index` of `list`, described; empty when there is none.
fn described(list: &[String], index: usize) -> &str {
    list.get(index).map_or("", String::as_str)
}

fn near_miss(near: &NearMiss) -> NearMissJson<'_> {
    let (field, found) = match &near.miss {
        Miss::Field { field, found } => (field.clone(), found.clone()),
        Miss::Step { step } => ("step".to_owned(), Some(step.to_string())),
        Miss::NotFinal => ("final".to_owned(), None),
        Miss::NoResult => ("completed".to_owned(), None),
    };
    NearMissJson {
        call: near.call,
        tool: &near.tool,
        field,
        found,
    }
}

#[derive(Serialize)]
struct ToolCallsRun<'a> {
    run: usize,
    source: &'a str,
    line: Option<usize>,
    passed: bool,
    unmet_required: Vec<UnmetEntry<'a>>,
    disallowed_calls: Vec<DisallowedCall<'a>>,
    sequence: Option<SequenceProgress<'a>>,
}

#[derive(Serialize)]
struct UnmetEntry<'a> {
    entry: usize,
    matcher: &'a str,
    found: u32,
    needed: u32,
    near_miss: Option<NearMissJson<'a>>,
}

/// Why a call whose name matched missed: `field` is `command`, `path`, `args.<name>`,
/// `result`, `step`, `final` or `completed`; `found` is what the call had.
#[derive(Serialize)]
struct NearMissJson<'a> {
    call: usize,
    tool: &'a str,
    field: String,
    found: Option<String>,
}

#[derive(Serialize)]
struct DisallowedCall<'a> {
    entry: usize,
    matcher: &'a str,
    call: usize,
    tool: &'a str,
}

#[derive(Serialize)]
struct SequenceProgress<'a> {
    matched: usize,
    entries: usize,
    stopped_at: usize,
    matcher: &'a str,
}
