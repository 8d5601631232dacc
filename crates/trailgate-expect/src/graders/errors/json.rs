//! The `errors` grader's part of the JSON report.

use std::io;

use serde::Serialize;

use crate::json_part::{CallJson, Entries, JsonPart};
use crate::run::RunInfo;

use super::{ErrorCounts, ErrorsGrader, ErrorsOutcome, RunErrors};

/// The grader's run-sized list.
const RUNS: usize = 0;

/// How many run-sized lists the grader's object holds.
pub(crate) const LISTS: usize = 1;

/// The names of the grader's run-sized lists, by number: their keys in its object.
pub(crate) const LIST_NAMES: [&str; LISTS] = ["runs"];

/// What the grader's run entries name: nothing beyond the run.
#[derive(Debug, Clone, Default)]
pub(crate) struct ErrorsNames;

/// The keys under which the grader's run entries name a call by its number: `unrecovered`.
const CALL_KEYS: [&str; 1] = ["unrecovered"];

impl ErrorsGrader {
    #[expect(
        clippy::unused_self,
        reason = "the same shape as every kind's, for the registry"
    )]
    pub(crate) fn json_names(&self) -> ErrorsNames {
        ErrorsNames
    }
}

#[derive(Serialize)]
struct CountsJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<&'a str>,
    calls: u64,
    errors: u64,
    recovered: u64,
}

impl<'a> CountsJson<'a> {
    fn of(tool: Option<&'a str>, counts: ErrorCounts) -> Self {
        Self {
            tool,
            calls: counts.calls,
            errors: counts.errors,
            recovered: counts.recovered,
        }
    }
}

impl ErrorsOutcome {
    #[expect(
        clippy::unused_self,
        reason = "the same shape as every kind's, for the registry"
    )]
    pub(crate) fn json_names(&self) -> ErrorsNames {
        ErrorsNames
    }

    /// The grader's object: the sums, in all and per tool, the metrics, its list.
    pub(crate) fn json_part(&self) -> JsonPart {
        let per_tool: Vec<CountsJson<'_>> = self
            .per_tool
            .iter()
            .map(|(tool, counts)| CountsJson::of(Some(tool), *counts))
            .collect();
        JsonPart::new("errors")
            .naming_calls(&CALL_KEYS)
            .value("calls", &self.counts.calls)
            .value("errors", &self.counts.errors)
            .value("recovered", &self.counts.recovered)
            .value("per_tool", &per_tool)
            .value("rate", &self.rate.value())
            .value("recovery", &self.recovery.value())
            .list(LIST_NAMES[RUNS], RUNS)
    }
}

/// Writes one run's entry.
pub(crate) fn write_entries(
    _names: &ErrorsNames,
    info: &RunInfo,
    run: &RunErrors,
    entries: &mut Entries<'_>,
) -> io::Result<()> {
    let entry = ErrorsRun {
        run: info.number,
        calls: run.counts.calls,
        errors: run.counts.errors,
        recovered: run.counts.recovered,
        per_tool: run
            .per_tool
            .iter()
            .map(|(tool, counts)| CountsJson::of(Some(tool), *counts))
            .collect(),
        unrecovered: run.unrecovered.as_ref().map(CallJson::of),
    };
    entries.push(RUNS, &entry)
}

#[derive(Serialize)]
struct ErrorsRun<'a> {
    run: usize,
    calls: u64,
    errors: u64,
    recovered: u64,
    per_tool: Vec<CountsJson<'a>>,
    unrecovered: Option<CallJson>,
}
