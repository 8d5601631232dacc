//! What the `call-accuracy` grader says about a test, for the reports.

use trailgate_core::{AccuracyCounts, AccuracyMetrics};

use crate::graders::Block;
use crate::matchers::ValueMismatch;
use crate::run::RunInfo;
use crate::section::{
    Key, Line, ListedRun, Piece, Row, Section, Tone, call_count, called, joined, nonzero, scope,
};

use super::{ArgumentCounts, CallAccuracyOutcome, Mismatch, RunAccuracy};

/// The widest key of the listing (`incorrect`): the calls line up after it.
const KEY_WIDTH: usize = 9;

impl CallAccuracyOutcome {
    /// The grader's section of a test's report; `runs` are the test's listed runs, and
    /// `run_count` how many runs it has.
    pub fn section(&self, runs: &[RunInfo], run_count: usize) -> Section {
        let listed = runs
            .iter()
            .zip(&self.runs)
            .map(|(info, run)| self.listed_run(info, run))
            .collect();
        let facts = runs
            .iter()
            .zip(&self.runs)
            .map(|(_, run)| self.facts(run))
            .collect();
        let block = Block::CallAccuracy;
        let gate_note = nonzero(&[
            (self.incorrect, "incorrect call", "incorrect calls"),
            (self.missed(), "missed call", "missed calls"),
            (self.extra(), "extra call", "extra calls"),
        ]);
        Section {
            key: block.key(),
            title: "Call accuracy",
            targets: block.targets(),
            heading: Some(vec![Piece::text(block.key())]),
            key_width: KEY_WIDTH,
            runs: listed,
            summary: vec![Piece::Text(format!(
                "call accuracy{}: {}",
                scope(run_count),
                accuracy_line(self.counts, self.metrics, self.arguments)
            ))],
            facts,
            gate_note: (!gate_note.is_empty()).then(|| vec![Piece::Text(gate_note.join(", "))]),
            explained: &[super::PRECISION, super::RECALL, super::F1],
        }
    }
}

impl CallAccuracyOutcome {
    /// The expected call at `index`, as one piece.
    fn expected_call(&self, index: usize) -> Piece {
        self.expected.get(index).map_or_else(
            || Piece::Name(String::new()),
            |(tool, args)| Piece::Call {
                tool: tool.clone(),
                args: args.to_string(),
            },
        )
    }

    /// A run's listing: each expected call correct, incorrect or missed, the extra calls,
    /// and the run's counts.
    fn listed_run(&self, info: &RunInfo, run: &RunAccuracy) -> ListedRun {
        let mut rows = Vec::new();
        for (index, c) in &run.correct {
            rows.push(Row::keyed(
                Key::Mark(Tone::Plain, "correct"),
                vec![
                    self.expected_call(*index),
                    Piece::Text(format!(" (call {})", c.call)),
                ],
            ));
        }
        for mismatch in &run.incorrect {
            let mut row = vec![
                self.expected_call(mismatch.expected),
                Piece::Text(format!(", call {} has ", mismatch.call.call)),
                Piece::Value(mismatch.args.get().to_string()),
            ];
            for note in notes(mismatch) {
                row.push(Piece::text("; "));
                row.extend(note);
            }
            rows.push(Row::keyed(Key::Mark(Tone::Fail, "incorrect"), row));
        }
        for index in &run.missed {
            rows.push(Row::keyed(
                Key::Mark(Tone::Fail, "missed"),
                vec![self.expected_call(*index)],
            ));
        }
        for c in &run.extra {
            rows.push(Row::keyed(
                Key::Mark(Tone::Dim, "extra"),
                called(&c.tool, c.call),
            ));
        }
        ListedRun {
            status: call_count(info.calls),
            rows,
            footer: Some(vec![Piece::Text(accuracy_line(
                run.counts,
                run.metrics,
                run.arguments,
            ))]),
        }
    }

    /// What explains a run's counts: its incorrect calls with why, the missed ones, the
    /// extra ones.
    fn facts(&self, run: &RunAccuracy) -> Vec<Line> {
        let mut facts = Vec::new();
        for mismatch in &run.incorrect {
            let mut fact = vec![
                Piece::text("incorrect "),
                self.expected_call(mismatch.expected),
                Piece::Text(format!(": call {} has ", mismatch.call.call)),
                Piece::Value(mismatch.args.get().to_string()),
            ];
            let notes = notes(mismatch);
            if !notes.is_empty() {
                fact.push(Piece::text(" ("));
                fact.extend(joined(notes, "; "));
                fact.push(Piece::text(")"));
            }
            facts.push(fact);
        }
        if !run.missed.is_empty() {
            let mut fact = vec![Piece::text("missed ")];
            fact.extend(joined(
                run.missed
                    .iter()
                    .map(|index| vec![self.expected_call(*index)]),
                ", ",
            ));
            facts.push(fact);
        }
        if !run.extra.is_empty() {
            let mut fact = vec![Piece::text("extra ")];
            fact.extend(joined(
                run.extra.iter().map(|c| called(&c.tool, c.call)),
                ", ",
            ));
            facts.push(fact);
        }
        facts
    }
}

/// Why a paired call is incorrect: the keys that differ, and the first argument that failed
/// its matcher.
fn notes(mismatch: &Mismatch) -> Vec<Line> {
    let mut notes = Vec::new();
    if !mismatch.differing.is_empty() {
        let mut note = vec![Piece::text("differs in ")];
        note.extend(joined(
            mismatch
                .differing
                .iter()
                .map(|key| vec![Piece::Name(key.clone())]),
            ", ",
        ));
        notes.push(note);
    }
    if let Some(why) = &mismatch.why {
        notes.push(mismatch_note(why));
    }
    notes
}

/// Where an argument failed its matcher: `path: expected M, found V` (or `absent`).
fn mismatch_note(why: &ValueMismatch) -> Line {
    let mut line = Vec::new();
    if !why.path.is_empty() {
        line.extend([Piece::Name(why.path.clone()), Piece::text(": ")]);
    }
    line.extend([Piece::text("expected "), Piece::Value(why.expected.clone())]);
    match &why.actual {
        Some(actual) => line.extend([Piece::text(", found "), Piece::Value(actual.clone())]),
        None => line.push(Piece::text(", absent")),
    }
    line.extend(why.regex_note());
    line
}

fn accuracy_line(
    counts: AccuracyCounts,
    metrics: AccuracyMetrics,
    arguments: ArgumentCounts,
) -> String {
    format!(
        "correct {} of {} expected, {} made  precision {}  recall {}  f1 {}  arguments {}",
        counts.correct,
        counts.expected,
        counts.actual,
        metrics.precision,
        metrics.recall,
        metrics.f1,
        arguments.percent()
    )
}
