//! What the `trajectory` grader says about a test, for the reports: each run's path against
//! the expected one, and for a run that does not match, what to fix first.

use crate::graders::Block;
use crate::matchers::ValueMismatch;
use crate::run::RunInfo;
use crate::section::{Key, Line, ListedRun, Piece, Row, Section, Tone, called, joined};
use crate::step_matcher::StepMiss;

use super::{Closest, Difference, MissingEntry, RunTrajectory, TrajectoryOutcome};

impl TrajectoryOutcome {
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
        let block = Block::Trajectory;
        Section {
            key: block.key(),
            title: "Trajectory",
            targets: block.targets(),
            heading: Some(vec![Piece::Text(format!(
                "{} ({})",
                block.key(),
                self.mode.as_str()
            ))]),
            key_width: 0,
            runs: listed,
            summary: vec![Piece::Text(format!(
                "trajectory: {} of {run_count} {} matched  match rate {}  score {} ({} of {} {})",
                self.matching_runs,
                if run_count == 1 { "run" } else { "runs" },
                self.match_rate,
                self.score,
                self.matched,
                self.total,
                self.unit(self.total)
            ))],
            facts,
            gate_note: Some(self.gate_note(run_count as u64)),
            explained: &[super::MATCH_RATE, super::SCORE],
        }
    }

    /// What the score counts, `total` of them: expected steps, or calls in `subset`.
    fn unit(&self, total: u64) -> &'static str {
        match (self.mode.counts_calls(), total == 1) {
            (true, true) => "call",
            (true, false) => "calls",
            (false, true) => "step",
            (false, false) => "steps",
        }
    }

    fn entry(&self, index: usize) -> Piece {
        Piece::Name(
            self.expected
                .get(index)
                .map_or("", String::as_str)
                .to_owned(),
        )
    }

    /// A run's listing: its verdict, each expected entry with the calls that matched it,
    /// and what explains a failure.
    fn listed_run(&self, run: &RunTrajectory) -> ListedRun {
        let mut status = vec![if run.matches {
            Piece::text("matches")
        } else {
            Piece::Mark(Tone::Fail, "does not match")
        }];
        status.push(Piece::Text(format!(
            "  {} of {} {}",
            run.matched,
            run.total,
            self.unit(run.total)
        )));
        let mut rows = Vec::new();
        for (entry, calls) in self.expected.iter().zip(&run.entries) {
            let line = if calls.is_empty() {
                vec![Piece::Mark(Tone::Fail, "no call")]
            } else {
                joined(calls.iter().map(|c| called(&c.tool, c.call)), ", ")
            };
            rows.push(Row::keyed(Key::Name(entry.clone()), line));
        }
        for fact in self.facts(run) {
            rows.push(Row::plain(fact));
        }
        ListedRun {
            status,
            rows,
            footer: None,
        }
    }

    /// What explains a run that does not match: the first position where a strict run
    /// differs, the first expected entry that found no call (and what came closest), the
    /// first extra call.
    fn facts(&self, run: &RunTrajectory) -> Vec<Line> {
        let mut facts = Vec::new();
        if run.matches {
            return facts;
        }
        if let Some(difference) = &run.differs {
            facts.push(self.difference(difference));
        }
        if let Some(missing) = &run.missing {
            facts.push(self.missing(missing));
        }
        if let Some(extra) = &run.extra
            && !matches!(run.differs, Some(Difference { expected: None, .. }))
        {
            let mut fact = vec![Piece::Mark(Tone::Fail, "extra"), Piece::text(" call ")];
            fact.extend(called(&extra.tool, extra.call));
            fact.push(Piece::Text(format!(
                ", which {} does not allow",
                self.mode.as_str()
            )));
            facts.push(fact);
        }
        facts
    }

    fn difference(&self, difference: &Difference) -> Line {
        let mut line = vec![Piece::Text(format!(
            "differs at call {}: ",
            difference.position
        ))];
        match (&difference.expected, &difference.found) {
            (Some(entry), Some(found)) => {
                line.extend([Piece::text("expected "), self.entry(*entry)]);
                line.push(Piece::text(", found "));
                line.push(Piece::QuotedTool(found.tool.to_string()));
            }
            (Some(entry), None) => {
                line.extend([Piece::text("expected "), self.entry(*entry)]);
                line.push(Piece::text(", the run had ended"));
            }
            (None, Some(found)) => {
                line.push(Piece::text("the expected path had ended, found "));
                line.push(Piece::QuotedTool(found.tool.to_string()));
            }
            (None, None) => {}
        }
        line
    }

    fn missing(&self, missing: &MissingEntry) -> Line {
        let mut line = vec![
            Piece::Mark(Tone::Fail, "missed"),
            Piece::text(if self.mode.ordered() {
                " in order "
            } else {
                " "
            }),
            self.entry(missing.entry),
        ];
        match &missing.closest {
            Some(Closest::Call(call, miss)) => {
                let mut near = called(&call.tool, call.call);
                match miss {
                    StepMiss::Args(why) => {
                        near.push(Piece::text(" "));
                        near.extend(mismatch(why));
                    }
                    StepMiss::Tool => near.push(Piece::text(if self.mode.ordered() {
                        " is the step, out of order"
                    } else {
                        " is the step, taken by another one"
                    })),
                }
                line.push(Piece::Closest(near));
            }
            Some(Closest::Turn { step, found, of }) => {
                line.push(Piece::Closest(vec![Piece::Text(format!(
                    "turn {step} has {found} of its {of} steps"
                ))]));
            }
            None => line.push(Piece::text(": no call of its tool")),
        }
        line
    }

    /// "1 of 2 runs do not match; 3 of 8 steps matched".
    fn gate_note(&self, runs: u64) -> Line {
        let failing = runs - self.matching_runs.min(runs);
        vec![Piece::Text(format!(
            "{failing} of {runs} {} not match; {} of {} {} matched",
            if runs == 1 { "run does" } else { "runs do" },
            self.matched,
            self.total,
            self.unit(self.total)
        ))]
    }
}

/// Where the arguments failed the step: `args.path: expected M, found V` (or `absent`).
fn mismatch(why: &ValueMismatch) -> Line {
    let mut line = vec![Piece::text("args")];
    if !why.path.is_empty() {
        if !why.path.starts_with('[') {
            line.push(Piece::text("."));
        }
        line.push(Piece::Name(why.path.clone()));
    }
    line.extend([
        Piece::text(": expected "),
        Piece::Value(why.expected.clone()),
    ]);
    match &why.actual {
        Some(actual) => line.extend([Piece::text(", found "), Piece::Value(actual.clone())]),
        None => line.push(Piece::text(", absent")),
    }
    line.extend(why.regex_note());
    line
}
