//! The `dependencies` grader's part of the JSON report.

use std::io;

use serde::Serialize;

use crate::json_part::{CallJson, Entries, JsonPart};
use crate::run::RunInfo;

use super::{DependenciesGrader, DependenciesOutcome, EdgeVerdict, RunDependencies};

/// The grader's run-sized list.
const RUNS: usize = 0;

/// How many run-sized lists the grader's object holds.
pub(crate) const LISTS: usize = 1;

/// The names of the grader's run-sized lists, by number: their keys in its object.
pub(crate) const LIST_NAMES: [&str; LISTS] = ["runs"];

/// What the grader's run entries name: nothing beyond the edges' positions.
#[derive(Debug, Clone, Default)]
pub(crate) struct DependenciesNames;

/// The keys under which the grader's run entries name a call by its number: an edge's `call`
/// and `other`.
const CALL_KEYS: [&str; 2] = ["call", "other"];

impl DependenciesGrader {
    #[expect(
        clippy::unused_self,
        reason = "the same shape as every kind's, for the registry"
    )]
    pub(crate) fn json_names(&self) -> DependenciesNames {
        DependenciesNames
    }
}

#[derive(Serialize)]
struct EdgeJson<'a> {
    edge: &'a str,
    applied_runs: u64,
    failed_runs: u64,
}

impl DependenciesOutcome {
    #[expect(
        clippy::unused_self,
        reason = "the same shape as every kind's, for the registry"
    )]
    pub(crate) fn json_names(&self) -> DependenciesNames {
        DependenciesNames
    }

    /// The grader's object: the edges with their counts, the vacuous ones, the sums and
    /// metric, its list.
    pub(crate) fn json_part(&self) -> JsonPart {
        let edges: Vec<EdgeJson<'_>> = self
            .edges
            .iter()
            .zip(&self.counts)
            .map(|(edge, counts)| EdgeJson {
                edge,
                applied_runs: counts.applied,
                failed_runs: counts.failed,
            })
            .collect();
        let vacuous: Vec<usize> = self.vacuous().collect();
        JsonPart::new("dependencies")
            .naming_calls(&CALL_KEYS)
            .value("edges", &edges)
            .value("vacuous_edges", &vacuous)
            .value("passing_runs", &self.passing_runs)
            .value("pass_rate", &self.pass_rate.value())
            .list(LIST_NAMES[RUNS], RUNS)
    }
}

/// Writes one run's entry.
pub(crate) fn write_entries(
    _names: &DependenciesNames,
    info: &RunInfo,
    run: &RunDependencies,
    entries: &mut Entries<'_>,
) -> io::Result<()> {
    let entry = DependenciesRun {
        run: info.number,
        passed: run.passed,
        edges: run
            .edges
            .iter()
            .map(|verdict| match verdict {
                EdgeVerdict::Held => VerdictJson::state("held"),
                EdgeVerdict::Vacuous => VerdictJson::state("vacuous"),
                EdgeVerdict::Failed(failure) => VerdictJson {
                    state: "failed",
                    call: failure.call.as_ref().map(CallJson::of),
                    other: failure.other.as_ref().map(CallJson::of),
                    value: failure.value.clone(),
                },
            })
            .collect(),
    };
    entries.push(RUNS, &entry)
}

#[derive(Serialize)]
struct DependenciesRun {
    run: usize,
    passed: bool,
    edges: Vec<VerdictJson>,
}

#[derive(Serialize)]
struct VerdictJson {
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    call: Option<CallJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    other: Option<CallJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
}

impl VerdictJson {
    fn state(state: &'static str) -> Self {
        Self {
            state,
            call: None,
            other: None,
            value: None,
        }
    }
}
