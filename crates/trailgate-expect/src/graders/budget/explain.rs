//! What the `budget` grader says about a test, for the reports: each run's counts (with
//! `max_loop`, its longest loop), and for a run past a limit, which limit and by how much.

use std::fmt::Write as _;

use crate::graders::Block;
use crate::run::RunInfo;
use crate::section::{Line, ListedRun, Piece, Row, Section, Tone, called};

use super::{BudgetOutcome, Loop, RunBudget};

impl BudgetOutcome {
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
        let block = Block::Budget;
        let mut summary = format!(
            "budget: {} of {run_count} {} within every limit  pass rate {}",
            self.passing_runs,
            if run_count == 1 { "run" } else { "runs" },
            self.pass_rate
        );
        if let (Some(efficiency), Some(optimal)) = (self.efficiency, self.optimal_calls) {
            let _ = write!(
                summary,
                "  efficiency {efficiency} ({} optimal calls over {} counted)",
                optimal.saturating_mul(run_count as u64),
                self.weighed_calls
            );
        }
        match self.longest_loop {
            Some(0) => summary.push_str("  no loop"),
            Some(longest) => {
                let _ = write!(summary, "  longest loop {longest} times back to back");
            }
            None => {}
        }
        Section {
            key: block.key(),
            title: "Budget",
            targets: block.targets(),
            heading: Some(self.heading(block.key())),
            key_width: 0,
            runs: listed,
            summary: vec![Piece::Text(summary)],
            facts,
            gate_note: Some(self.gate_note(run_count as u64)),
            explained: &[super::PASS_RATE],
        }
    }

    /// `budget (max_calls 10, ^bash$ at most 3, optimal_calls 4)`: trailgate's words as
    /// text, each `max_calls_per_tool` matcher as user text, which the reports escape.
    fn heading(&self, key: &str) -> Line {
        let mut parts: Vec<Vec<Piece>> = self
            .limits
            .iter()
            .map(|(key, value)| vec![Piece::Text(format!("{key} {value}"))])
            .collect();
        parts.extend(self.per_tool.iter().map(|(step, max)| {
            vec![
                Piece::Name(step.clone()),
                Piece::Text(format!(" at most {max}")),
            ]
        }));
        if let Some(optimal) = self.optimal_calls {
            parts.push(vec![Piece::Text(format!("optimal_calls {optimal}"))]);
        }
        if let Some(max_cost) = self.max_cost {
            parts.push(vec![Piece::Text(format!("max_cost {max_cost}"))]);
        }
        let mut line = vec![Piece::Text(format!("{key} ("))];
        for (index, part) in parts.into_iter().enumerate() {
            if index > 0 {
                line.push(Piece::text(", "));
            }
            line.extend(part);
        }
        line.push(Piece::text(")"));
        line
    }

    /// A run's listing: its counts, and each limit it went past.
    fn listed_run(&self, run: &RunBudget) -> ListedRun {
        let mut status = vec![
            if run.passed {
                Piece::text("within budget")
            } else {
                Piece::Mark(Tone::Fail, "over budget")
            },
            Piece::Text(format!(
                "  {} calls, {} turns, {} errors, {} repeats",
                run.calls, run.steps, run.errors, run.repeats
            )),
        ];
        // The usage and times a limit reads, only with that limit, so that a report
        // without these limits reads as before.
        let mut usage = String::new();
        if let Some((input, output)) = run.tokens {
            let _ = write!(usage, ", {input} input tokens, {output} output tokens");
        }
        if let Some(cost) = run.cost {
            let _ = write!(usage, ", cost {cost}");
        }
        if let Some(nanos) = run.duration_ns {
            let _ = write!(usage, ", {} ms", super::Amount::Nanos(nanos));
        }
        if let Some((call, nanos)) = &run.longest_call {
            let _ = write!(
                usage,
                ", longest call {} ms (call {})",
                super::Amount::Nanos(*nanos),
                call.call
            );
        }
        if !usage.is_empty() {
            status.push(Piece::Text(usage));
        }
        // The longest loop is named for every run of a grader with `max_loop`, within it or
        // not (docs/graders/budget.md#loops).
        if self.longest_loop.is_some() {
            match &run.longest_loop {
                Some(found) => {
                    status.push(Piece::text(", longest loop "));
                    status.extend(loop_words(found));
                }
                None => status.push(Piece::text(", no loop")),
            }
        }
        let rows = self.facts(run).into_iter().map(Row::plain).collect();
        ListedRun {
            status,
            rows,
            footer: None,
        }
    }

    /// What explains a run past a limit: each limit with the run's count, and for repeats
    /// the first repeated call.
    fn facts(&self, run: &RunBudget) -> Vec<Line> {
        let mut facts = Vec::new();
        for exceeded in &run.exceeded {
            let mut fact = vec![
                Piece::Mark(Tone::Fail, "exceeded"),
                Piece::text(" "),
                Piece::Name(self.limit_name(exceeded.limit)),
                Piece::Text(format!(": {} > {}", exceeded.count, exceeded.max)),
            ];
            if exceeded.limit == super::Limit::Repeats
                && let Some((call, earlier)) = &run.first_repeat
            {
                let mut near = called(&call.tool, call.call);
                near.push(Piece::Text(format!(" repeats call {earlier}")));
                fact.push(Piece::Closest(near));
            }
            if exceeded.limit == super::Limit::Loop
                && let Some(found) = &run.longest_loop
            {
                fact.push(Piece::Closest(loop_words(found)));
            }
            if exceeded.limit == super::Limit::CallDuration
                && let Some((call, _)) = &run.longest_call
            {
                fact.push(Piece::Closest(called(&call.tool, call.call)));
            }
            facts.push(fact);
        }
        facts
    }

    /// "1 of 2 runs over budget".
    fn gate_note(&self, runs: u64) -> Line {
        let over = runs - self.passing_runs.min(runs);
        vec![Piece::Text(format!(
            "{over} of {runs} {} over budget",
            if runs == 1 { "run" } else { "runs" }
        ))]
    }
}

/// `search, fetch (call 3) 4 times back to back`: a loop's tools as user text, where its
/// first occurrence starts, and how many times it occurs.
fn loop_words(found: &Loop) -> Line {
    let mut words = Vec::new();
    for (index, tool) in found.tools.iter().enumerate() {
        if index > 0 {
            words.push(Piece::text(", "));
        }
        words.push(Piece::Tool(tool.to_string()));
    }
    words.push(Piece::Text(format!(
        " (call {}) {} times back to back",
        found.call, found.occurrences
    )));
    words
}
