//! What the `errors` grader says about a test, for the reports: each run's failed and
//! recovered calls, the first failure never recovered, and the counts per tool.

use crate::graders::Block;
use crate::run::RunInfo;
use crate::section::{Line, ListedRun, Piece, Row, Section, Tone, called};

use super::{ErrorCounts, ErrorsOutcome, RunErrors};

impl ErrorsOutcome {
    /// The grader's section of a test's report; `runs` are the test's listed runs, and
    /// `run_count` how many runs it has.
    pub fn section(&self, runs: &[RunInfo], _run_count: usize) -> Section {
        let listed = runs
            .iter()
            .zip(&self.runs)
            .map(|(_, run)| listed_run(run))
            .collect();
        let facts = runs
            .iter()
            .zip(&self.runs)
            .map(|(_, run)| facts(run))
            .collect();
        let block = Block::Errors;
        let tools: Vec<String> = self
            .per_tool
            .iter()
            .filter(|(_, counts)| counts.errors > 0)
            .map(|(tool, counts)| format!("{tool} {}", counts_text(*counts)))
            .collect();
        let mut summary = format!(
            "errors: {}  rate {}  recovery {}",
            counts_text(self.counts),
            self.rate,
            self.recovery
        );
        if !tools.is_empty() {
            summary.push_str("  failing tools: ");
            summary.push_str(&tools.join("; "));
        }
        Section {
            key: block.key(),
            title: "Errors",
            targets: block.targets(),
            heading: Some(vec![Piece::text(block.key())]),
            key_width: 0,
            runs: listed,
            summary: vec![Piece::Text(summary)],
            facts,
            gate_note: Some(vec![Piece::Text(counts_text(self.counts))]),
            explained: &[super::RATE, super::RECOVERY],
        }
    }
}

/// "2 of 5 calls failed, 1 recovered".
fn counts_text(counts: ErrorCounts) -> String {
    format!(
        "{} of {} {} failed, {} recovered",
        counts.errors,
        counts.calls,
        if counts.calls == 1 { "call" } else { "calls" },
        counts.recovered
    )
}

/// A run's listing: its counts, and its first failure never recovered.
fn listed_run(run: &RunErrors) -> ListedRun {
    ListedRun {
        status: vec![Piece::Text(counts_text(run.counts))],
        rows: facts(run).into_iter().map(Row::plain).collect(),
        footer: None,
    }
}

/// What explains a run's recovery: the first failed call that no later successful call
/// of its tool (or class) followed.
fn facts(run: &RunErrors) -> Vec<Line> {
    let Some(call) = &run.unrecovered else {
        return Vec::new();
    };
    let mut fact = vec![Piece::Mark(Tone::Fail, "never recovered"), Piece::text(" ")];
    fact.extend(called(&call.tool, call.call));
    let more = run.counts.errors - run.counts.recovered.min(run.counts.errors);
    if more > 1 {
        fact.push(Piece::Text(format!(" and {} more", more - 1)));
    }
    vec![fact]
}
