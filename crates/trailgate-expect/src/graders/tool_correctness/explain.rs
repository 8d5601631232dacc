//! What the `tool-correctness` grader says about a test, for the reports.

use crate::graders::Block;
use crate::run::RunInfo;
use crate::section::{Key, Line, ListedRun, Piece, Row, Section, Tone, called, joined};

use super::{RunCorrectness, ToolCorrectnessOutcome};

impl ToolCorrectnessOutcome {
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
        let basis = match self.exact_runs {
            Some(exact) => format!("{exact} of {run_count} runs exact"),
            None => format!(
                "{} of {} expected tools found",
                self.matched, self.expected_total
            ),
        };
        let block = Block::ToolCorrectness;
        Section {
            key: block.key(),
            title: "Tool correctness",
            targets: block.targets(),
            heading: Some(vec![Piece::Text(format!(
                "{} ({})",
                block.key(),
                self.mode
            ))]),
            key_width: 0,
            runs: listed,
            summary: vec![Piece::Text(format!(
                "tool correctness: {basis}  score {}",
                self.score
            ))],
            facts,
            gate_note: Some(self.gate_note(run_count as u64)),
            explained: &[super::SCORE],
        }
    }

    /// A run's listing: its score, each expected tool with the call that matched it, and
    /// the extra calls.
    fn listed_run(&self, run: &RunCorrectness) -> ListedRun {
        let mut status = vec![Piece::Text(format!("score {}", run.score))];
        match run.exact {
            Some(true) => status.push(Piece::text("  exact match")),
            Some(false) => status.extend([
                Piece::text("  "),
                Piece::Mark(Tone::Fail, "not an exact match"),
            ]),
            None => {}
        }
        let mut rows = Vec::new();
        for (index, (tool, matched)) in self.expected.iter().zip(&run.matched).enumerate() {
            let late = run.out_of_order.get(index).and_then(Option::as_ref);
            let found = match (matched, late) {
                (Some(c), _) => called(&c.tool, c.call),
                (None, Some(c)) => {
                    let mut line = vec![Piece::Mark(Tone::Fail, "out of order:"), Piece::text(" ")];
                    line.extend(called(&c.tool, c.call));
                    line
                }
                (None, None) => vec![Piece::Mark(Tone::Fail, "missed")],
            };
            rows.push(Row::keyed(Key::Name(tool.clone()), found));
        }
        for c in &run.extra {
            let mut line = vec![Piece::Mark(Tone::Dim, "extra"), Piece::text(" ")];
            line.extend(called(&c.tool, c.call));
            rows.push(Row::plain(line));
        }
        ListedRun {
            status,
            rows,
            footer: None,
        }
    }

    /// What explains a run's score: the tools it missed or called out of order, and in
    /// exact mode its extra calls.
    fn facts(&self, run: &RunCorrectness) -> Vec<Line> {
        let expected = |index: usize| {
            Piece::Name(
                self.expected
                    .get(index)
                    .map_or("", String::as_str)
                    .to_owned(),
            )
        };
        let mut facts = Vec::new();
        let missed: Vec<Line> = run
            .missed()
            .filter(|index| *index < self.expected.len())
            .map(|index| vec![expected(index)])
            .collect();
        if !missed.is_empty() {
            let mut fact = vec![Piece::text("missed ")];
            fact.extend(joined(missed, ", "));
            facts.push(fact);
        }
        let late: Vec<Line> = run
            .late()
            .filter(|(index, _)| *index < self.expected.len())
            .map(|(index, c)| {
                vec![
                    expected(index),
                    Piece::text(" ("),
                    Piece::Tool(c.tool.to_string()),
                    Piece::Text(format!(" is call {})", c.call)),
                ]
            })
            .collect();
        if !late.is_empty() {
            let mut fact = vec![Piece::text("out of order ")];
            fact.extend(joined(late, ", "));
            facts.push(fact);
        }
        // Extra calls cost only an exact match; elsewhere they do not lower the score.
        if run.exact == Some(false) {
            facts.push(vec![Piece::text("not an exact match")]);
            if !run.extra.is_empty() {
                let mut fact = vec![Piece::text("extra ")];
                fact.extend(joined(
                    run.extra.iter().map(|c| called(&c.tool, c.call)),
                    ", ",
                ));
                facts.push(fact);
            }
        }
        facts
    }

    /// "1 of 2 runs not an exact match", or "1 of 4 expected tools missed".
    fn gate_note(&self, runs: u64) -> Line {
        let line = if let Some(exact) = self.exact_runs {
            format!(
                "{} of {runs} {} not an exact match",
                runs - exact.min(runs),
                if runs == 1 { "run" } else { "runs" }
            )
        } else {
            let total = self.expected_total;
            let missed = total - self.matched.min(total);
            format!(
                "{missed} of {total} expected {} missed",
                if total == 1 { "tool" } else { "tools" }
            )
        };
        vec![Piece::Text(line)]
    }
}
