//! What the `dependencies` grader says about a test, for the reports: each run's failed
//! edges with the calls on both ends, and the edges that never applied.

use crate::graders::Block;
use crate::run::RunInfo;
use crate::section::{Line, ListedRun, Piece, Row, Section, Tone, called, joined};

use super::{DependenciesOutcome, EdgeFailure, EdgeVerdict, RunDependencies};

impl DependenciesOutcome {
    /// The grader's section of a test's report; `runs` are the test's listed runs, and
    /// `run_count` how many runs it has.
    pub fn section(&self, runs: &[RunInfo], run_count: usize) -> Section {
        let listed = runs
            .iter()
            .zip(&self.runs)
            .map(|(_, run)| self.listed_run(run))
            .collect();
        let facts = runs
            .iter()
            .zip(&self.runs)
            .map(|(_, run)| self.facts(run))
            .collect();
        let block = Block::Dependencies;
        let mut summary = vec![Piece::Text(format!(
            "dependencies: {} of {run_count} {} held every edge  pass rate {}",
            self.passing_runs,
            if run_count == 1 { "run" } else { "runs" },
            self.pass_rate
        ))];
        let vacuous: Vec<Line> = self.vacuous().map(|e| vec![self.edge(e)]).collect();
        if !vacuous.is_empty() {
            summary.push(Piece::text("  held only vacuously (never applied): "));
            summary.extend(joined(vacuous, ", "));
        }
        Section {
            key: block.key(),
            title: "Dependencies",
            targets: block.targets(),
            heading: Some(vec![Piece::text(block.key())]),
            key_width: 0,
            runs: listed,
            summary,
            facts,
            gate_note: Some(self.gate_note(run_count as u64)),
            explained: &[super::PASS_RATE],
        }
    }

    fn edge(&self, index: usize) -> Piece {
        Piece::Name(self.edges.get(index).map_or("", String::as_str).to_owned())
    }

    fn listed_run(&self, run: &RunDependencies) -> ListedRun {
        let applied = run
            .edges
            .iter()
            .filter(|v| **v != EdgeVerdict::Vacuous)
            .count();
        ListedRun {
            status: vec![
                if run.passed {
                    Piece::text("held")
                } else {
                    Piece::Mark(Tone::Fail, "broken")
                },
                Piece::Text(format!("  {applied} of {} edges applied", run.edges.len())),
            ],
            rows: self.facts(run).into_iter().map(Row::plain).collect(),
            footer: None,
        }
    }

    /// Each failed edge with the call that broke it and the closest call on the other end.
    fn facts(&self, run: &RunDependencies) -> Vec<Line> {
        run.edges
            .iter()
            .enumerate()
            .filter_map(|(index, verdict)| match verdict {
                EdgeVerdict::Failed(failure) => Some(self.failure(index, failure)),
                _ => None,
            })
            .collect()
    }

    fn failure(&self, index: usize, failure: &EdgeFailure) -> Line {
        let mut line = vec![
            Piece::Mark(Tone::Fail, "failed"),
            Piece::text(" "),
            self.edge(index),
        ];
        if let Some(call) = &failure.call {
            line.push(Piece::text(": "));
            line.extend(called(&call.tool, call.call));
        }
        if let Some(value) = &failure.value {
            line.extend([Piece::text(" with "), Piece::QuotedValue(value.clone())]);
        }
        let mut near = Vec::new();
        match (&failure.other, failure.flow) {
            (Some(other), false) => {
                near.push(Piece::text("the earlier step came only later, at "));
                near.extend(called(&other.tool, other.call));
            }
            (None, false) => near.push(Piece::text("the earlier step was never called")),
            (Some(other), true) => {
                near.push(Piece::text(
                    "the value is in no earlier result, the last being ",
                ));
                near.extend(called(&other.tool, other.call));
            }
            (None, true) => near.push(Piece::text("no call of the feeding step came before")),
        }
        if failure.flow && failure.value.is_none() && failure.call.is_some() {
            line.push(Piece::text(" without the argument"));
        }
        line.push(Piece::Closest(near));
        line
    }

    /// "1 of 2 runs broke an edge".
    fn gate_note(&self, runs: u64) -> Line {
        let broken = runs - self.passing_runs.min(runs);
        vec![Piece::Text(format!(
            "{broken} of {runs} {} broke an edge",
            if runs == 1 { "run" } else { "runs" }
        ))]
    }
}
