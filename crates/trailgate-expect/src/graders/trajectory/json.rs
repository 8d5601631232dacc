//! The `trajectory` grader's part of the JSON report.

use std::io;

use serde::Serialize;

use crate::json_part::{CallJson, Entries, JsonPart};
use crate::run::RunInfo;
use crate::step_matcher::StepMiss;

use super::{Closest, RunTrajectory, TrajectoryGrader, TrajectoryOutcome};

/// The grader's run-sized list.
const RUNS: usize = 0;

/// How many run-sized lists the grader's object holds.
pub(crate) const LISTS: usize = 1;

/// The names of the grader's run-sized lists, by number: their keys in its object.
pub(crate) const LIST_NAMES: [&str; LISTS] = ["runs"];

/// The expected entries, as written, that the grader's run entries name.
#[derive(Debug, Clone, Default)]
pub(crate) struct TrajectoryNames(Vec<String>);

/// The keys under which the grader's run entries name a call by its number: each entry's
/// `matched_by`, `extra_call`, the closest `call`, and `found` where the calls differ.
const CALL_KEYS: [&str; 4] = ["matched_by", "extra_call", "call", "found"];

impl TrajectoryGrader {
    pub(crate) fn json_names(&self) -> TrajectoryNames {
        TrajectoryNames(self.expected.iter().map(ToString::to_string).collect())
    }
}

impl TrajectoryOutcome {
    pub(crate) fn json_names(&self) -> TrajectoryNames {
        TrajectoryNames(self.expected.clone())
    }

    /// The grader's object: its mode, the expected entries, the sums and metrics, its list.
    pub(crate) fn json_part(&self) -> JsonPart {
        JsonPart::new("trajectory")
            .naming_calls(&CALL_KEYS)
            .value("mode", &self.mode.as_str())
            .value("expected", &self.expected)
            .value("matching_runs", &self.matching_runs)
            .value("matched", &self.matched)
            .value("total", &self.total)
            .value("match_rate", &self.match_rate.value())
            .value("score", &self.score.value())
            .list(LIST_NAMES[RUNS], RUNS)
    }
}

/// Writes one run's entry.
pub(crate) fn write_entries(
    names: &TrajectoryNames,
    info: &RunInfo,
    run: &RunTrajectory,
    entries: &mut Entries<'_>,
) -> io::Result<()> {
    let entry = TrajectoryRun {
        run: info.number,
        matches: run.matches,
        matched: run.matched,
        total: run.total,
        expected: names
            .0
            .iter()
            .zip(&run.entries)
            .map(|(_, calls)| ExpectedEntry {
                matched_by: calls.iter().map(CallJson::of).collect(),
            })
            .collect(),
        missing: run.missing.as_ref().map(|missing| MissingJson {
            entry: missing.entry + 1,
            closest: missing.closest.as_ref().map(ClosestJson::of),
        }),
        extra_call: run.extra.as_ref().map(CallJson::of),
        differs: run.differs.as_ref().map(|d| DifferenceJson {
            position: d.position,
            expected: d.expected.map(|entry| entry + 1),
            found: d.found.as_ref().map(CallJson::of),
        }),
    };
    entries.push(RUNS, &entry)
}

#[derive(Serialize)]
struct TrajectoryRun {
    run: usize,
    matches: bool,
    matched: u64,
    total: u64,
    expected: Vec<ExpectedEntry>,
    missing: Option<MissingJson>,
    extra_call: Option<CallJson>,
    differs: Option<DifferenceJson>,
}

/// The calls that matched the expected entry at the same position in the object's
/// `expected` (written there, once per test).
#[derive(Serialize)]
struct ExpectedEntry {
    matched_by: Vec<CallJson>,
}

/// The first expected entry not matched, by its number (from 1) in `expected`.
#[derive(Serialize)]
struct MissingJson {
    entry: usize,
    closest: Option<ClosestJson>,
}

#[derive(Serialize)]
struct ClosestJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    call: Option<CallJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    found: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    turn: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    steps_found: Option<usize>,
}

impl<'a> ClosestJson {
    fn of(closest: &'a Closest) -> Self {
        let mut json = Self {
            call: None,
            path: None,
            expected: None,
            found: None,
            turn: None,
            steps_found: None,
        };
        match closest {
            Closest::Call(call, miss) => {
                json.call = Some(CallJson::of(call));
                if let StepMiss::Args(why) = miss {
                    json.path = Some(why.path.clone());
                    json.expected = Some(why.expected.clone());
                    json.found.clone_from(&why.actual);
                }
            }
            Closest::Turn { step, found, .. } => {
                json.turn = Some(*step);
                json.steps_found = Some(*found);
            }
        }
        json
    }
}

/// Where the calls first differ; `expected` is the number (from 1) of the entry expected.
#[derive(Serialize)]
struct DifferenceJson {
    position: usize,
    expected: Option<usize>,
    found: Option<CallJson>,
}
