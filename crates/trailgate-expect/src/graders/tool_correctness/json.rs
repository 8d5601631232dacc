//! The `tool-correctness` grader's part of the JSON report.

use std::io;

use serde::Serialize;

use crate::json_part::{CallJson, Entries, JsonPart};
use crate::run::RunInfo;

use super::{RunCorrectness, ToolCorrectnessGrader, ToolCorrectnessOutcome};

/// The grader's run-sized list.
const RUNS: usize = 0;

/// How many run-sized lists the grader's object holds.
pub(crate) const LISTS: usize = 1;

/// The names of the grader's run-sized lists, by number: their keys in its object.
pub(crate) const LIST_NAMES: [&str; LISTS] = ["runs"];

/// The expected tools, as written, that the grader's run entries name.
#[derive(Debug, Clone, Default)]
pub(crate) struct CorrectnessNames(Vec<String>);

/// The keys under which the grader's run entries name a call by its number: each expected
/// tool's `matched_by` and `out_of_order`, and `extra_calls`.
const CALL_KEYS: [&str; 3] = ["matched_by", "out_of_order", "extra_calls"];

impl ToolCorrectnessGrader {
    pub(crate) fn json_names(&self) -> CorrectnessNames {
        CorrectnessNames(self.expected.iter().map(ToString::to_string).collect())
    }
}

impl ToolCorrectnessOutcome {
    pub(crate) fn json_names(&self) -> CorrectnessNames {
        CorrectnessNames(self.expected.clone())
    }

    /// The grader's object: its mode, the expected tools, the sums and score, its list.
    pub(crate) fn json_part(&self) -> JsonPart {
        JsonPart::new("tool_correctness")
            .naming_calls(&CALL_KEYS)
            .value("mode", &self.mode)
            .value("expected_tools", &self.expected)
            .value("matched", &self.matched)
            .value("expected_total", &self.expected_total)
            .value("exact_runs", &self.exact_runs)
            .value("score", &self.score.value())
            .list(LIST_NAMES[RUNS], RUNS)
    }
}

/// Writes one run's entry.
pub(crate) fn write_entries(
    names: &CorrectnessNames,
    info: &RunInfo,
    run: &RunCorrectness,
    entries: &mut Entries<'_>,
) -> io::Result<()> {
    let entry = CorrectnessRun {
        run: info.number,
        score: run.score.value(),
        exact: run.exact,
        expected: names
            .0
            .iter()
            .zip(&run.matched)
            .enumerate()
            .map(|(index, (_, matched))| ExpectedTool {
                matched_by: matched.as_ref().map(CallJson::of),
                out_of_order: run
                    .out_of_order
                    .get(index)
                    .and_then(Option::as_ref)
                    .map(CallJson::of),
            })
            .collect(),
        extra_calls: run.extra.iter().map(CallJson::of).collect(),
    };
    entries.push(RUNS, &entry)
}

#[derive(Serialize)]
struct CorrectnessRun {
    run: usize,
    score: u8,
    exact: Option<bool>,
    expected: Vec<ExpectedTool>,
    extra_calls: Vec<CallJson>,
}

/// The run's match of the expected tool at the same position in the object's
/// `expected_tools` (named there, once per test).
#[derive(Serialize)]
struct ExpectedTool {
    matched_by: Option<CallJson>,
    /// With `check_ordering`: the call of this tool made out of order, when none was in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    out_of_order: Option<CallJson>,
}
