//! What the equal-function-set block says about a test, for the reports.

use trailgate_core::{ClassName, Counts, SelectionMetrics};

use crate::graders::Block;
use crate::run::RunInfo;
use crate::section::{
    Key, Line, ListedRun, Piece, Row, Section, Tone, call_count, called, counted, joined, scope,
};

use super::SelectionOutcome;

impl SelectionOutcome {
    /// The block's section of a test's report; `runs` are the test's listed runs, and
    /// `run_count` how many runs it has.
    pub fn section(&self, runs: &[RunInfo], run_count: usize) -> Section {
        let class = |index: usize| {
            Piece::Name(
                self.classes
                    .get(index)
                    .map_or("", ClassName::as_str)
                    .to_owned(),
            )
        };
        let mut listed = Vec::new();
        let mut facts = Vec::new();
        for (info, run) in runs.iter().zip(&self.runs) {
            let mut rows = Vec::new();
            for (name, satisfied) in self.classes.iter().zip(&run.satisfied_by) {
                let found = match satisfied {
                    Some(c) => called(&c.tool, c.call),
                    None => vec![Piece::Mark(Tone::Fail, "missed")],
                };
                rows.push(Row::keyed(Key::Name(name.as_str().to_owned()), found));
            }
            for c in &run.unexpected {
                let mut line = vec![Piece::Mark(Tone::Fail, "unexpected"), Piece::text(" ")];
                line.extend(called(&c.tool, c.call));
                rows.push(Row::plain(line));
            }
            for (c, repeated) in &run.repeats {
                rows.push(Row::plain(vec![
                    Piece::Mark(Tone::Dim, "repeat"),
                    Piece::text(" "),
                    Piece::Tool(c.tool.to_string()),
                    Piece::Text(format!(" (call {}, repeats ", c.call)),
                    class(*repeated),
                    Piece::text(")"),
                ]));
            }
            listed.push(ListedRun {
                status: call_count(info.calls),
                rows,
                footer: Some(vec![Piece::Text(counts_line(run.counts, run.metrics))]),
            });
            let mut run_facts = Vec::new();
            let missed: Vec<Line> = run
                .satisfied_by
                .iter()
                .enumerate()
                .filter(|(_, satisfied)| satisfied.is_none())
                .map(|(index, _)| vec![class(index)])
                .collect();
            if !missed.is_empty() {
                let mut fact = vec![Piece::text("missed ")];
                fact.extend(joined(missed, ", "));
                run_facts.push(fact);
            }
            if !run.unexpected.is_empty() {
                let mut fact = vec![Piece::text("unexpected ")];
                fact.extend(joined(
                    run.unexpected.iter().map(|c| called(&c.tool, c.call)),
                    ", ",
                ));
                run_facts.push(fact);
            }
            facts.push(run_facts);
        }
        let block = Block::EqualFunctionSets;
        Section {
            key: block.key(),
            title: "Equal-function sets",
            targets: block.targets(),
            heading: None,
            key_width: 0,
            runs: listed,
            summary: vec![Piece::Text(format!(
                "tool selection{}: {}",
                scope(run_count),
                counts_line(self.counts, self.metrics)
            ))],
            facts,
            gate_note: self.gate_note(),
            explained: &[super::PRECISION, super::RECALL, super::F1],
        }
    }

    /// "1 missed class (fetch), 2 unexpected calls": the classes named once each, in
    /// declaration order, however many runs missed them.
    fn gate_note(&self) -> Option<Line> {
        let mut parts = Vec::new();
        let false_negatives = self.counts.false_negatives;
        if false_negatives > 0 {
            let missed = self
                .classes
                .iter()
                .zip(&self.missed_runs)
                .filter(|(_, runs)| **runs > 0)
                .map(|(class, _)| vec![Piece::Name(class.as_str().to_owned())]);
            let mut part = vec![Piece::Text(format!(
                "{} (",
                counted(false_negatives, "missed class", "missed classes")
            ))];
            part.extend(joined(missed, ", "));
            part.push(Piece::text(")"));
            parts.push(part);
        }
        let false_positives = self.counts.false_positives;
        if false_positives > 0 {
            parts.push(vec![Piece::Text(counted(
                false_positives,
                "unexpected call",
                "unexpected calls",
            ))]);
        }
        (!parts.is_empty()).then(|| joined(parts, ", "))
    }
}

fn counts_line(counts: Counts, metrics: SelectionMetrics) -> String {
    format!(
        "TP {}  FP {}  FN {}  precision {}  recall {}  f1 {}",
        counts.true_positives,
        counts.false_positives,
        counts.false_negatives,
        metrics.precision,
        metrics.recall,
        metrics.f1
    )
}
