//! What the `tool-calls` grader says about a test, for the reports.

use crate::graders::Block;
use crate::run::RunInfo;
use crate::section::{Line, ListedRun, Piece, Row, Section, Tone, nonzero};

use super::{Miss, NearMiss, ToolCallsOutcome, Unmet};

impl ToolCallsOutcome {
    /// The grader's section of a test's report; `runs` are the test's listed runs, and
    /// `run_count` how many runs it has.
    pub fn section(&self, runs: &[RunInfo], run_count: usize) -> Section {
        let entry = |list: &[String], index: usize| {
            Piece::Name(list.get(index).map_or("", String::as_str).to_owned())
        };
        let mut listed = Vec::new();
        let mut facts = Vec::new();
        for (_, run) in runs.iter().zip(&self.runs) {
            let mut rows = Vec::new();
            let mut run_facts = Vec::new();
            for unmet in &run.unmet {
                let count = Piece::Text(format!(": {}", matching_calls(unmet)));
                let near = unmet.near_miss.as_ref().map(|near| near_miss(near, 0));
                let mut row = vec![
                    Piece::Mark(Tone::Fail, "unmet"),
                    Piece::text(" required "),
                    entry(&self.required, unmet.entry),
                    count.clone(),
                ];
                let mut fact = vec![
                    Piece::text("unmet required "),
                    entry(&self.required, unmet.entry),
                    count,
                ];
                if let Some(near) = near {
                    row.push(Piece::Closest(near.clone()));
                    fact.push(Piece::Closest(near));
                }
                rows.push(Row::plain(row));
                run_facts.push(fact);
            }
            for violation in &run.violations {
                let call = [
                    Piece::Text(format!(": call {} ", violation.call)),
                    Piece::QuotedTool(violation.tool.clone()),
                ];
                let mut row = vec![
                    Piece::Mark(Tone::Fail, "broken"),
                    Piece::text(" disallowed "),
                    entry(&self.disallowed, violation.entry),
                ];
                row.extend(call.clone());
                rows.push(Row::plain(row));
                let mut fact = vec![
                    Piece::text("broken disallowed "),
                    entry(&self.disallowed, violation.entry),
                ];
                fact.extend(call);
                run_facts.push(fact);
            }
            if let Some(stopped) = run.sequence_stopped_at {
                let progress = Piece::Text(format!(": {}", sequence_progress(stopped)));
                let mut row = vec![
                    Piece::Mark(Tone::Fail, "stopped"),
                    Piece::Text(format!(" sequence entry {} ", stopped + 1)),
                    entry(&self.sequence, stopped),
                    progress.clone(),
                ];
                let mut fact = vec![
                    Piece::Text(format!("sequence stopped at entry {} ", stopped + 1)),
                    entry(&self.sequence, stopped),
                    progress,
                ];
                if let Some(near) = run
                    .sequence_near_miss
                    .as_ref()
                    .map(|near| near_miss(near, stopped))
                {
                    row.push(Piece::Closest(near.clone()));
                    fact.push(Piece::Closest(near));
                }
                rows.push(Row::plain(row));
                run_facts.push(fact);
            }
            listed.push(ListedRun {
                status: vec![Piece::Verdict(run.passed)],
                rows,
                footer: None,
            });
            facts.push(run_facts);
        }
        let block = Block::ToolCalls;
        Section {
            key: block.key(),
            title: "Tool calls",
            targets: block.targets(),
            heading: Some(vec![Piece::text(block.key())]),
            key_width: 0,
            runs: listed,
            summary: vec![Piece::Text(format!(
                "tool calls: {} of {run_count} {} passed  pass_rate {}",
                self.passed_runs,
                if run_count == 1 { "run" } else { "runs" },
                self.pass_rate
            ))],
            facts,
            gate_note: self.gate_note(run_count as u64),
            explained: &[super::PASS_RATE],
        }
    }

    /// "2 of 3 runs failed (1 unmet required entry, 1 disallowed call)".
    fn gate_note(&self, runs: u64) -> Option<Line> {
        let totals = self.totals;
        let failed = runs - (totals.passed_runs as u64).min(runs);
        if failed == 0 {
            return None;
        }
        let details = nonzero(&[
            (
                totals.unmet_entries,
                "unmet required entry",
                "unmet required entries",
            ),
            (
                totals.disallowed_calls,
                "disallowed call",
                "disallowed calls",
            ),
            (
                totals.stopped_sequences,
                "incomplete sequence",
                "incomplete sequences",
            ),
        ]);
        let mut summary = format!(
            "{failed} of {runs} {} failed",
            if runs == 1 { "run" } else { "runs" }
        );
        if !details.is_empty() {
            summary = format!("{summary} ({})", details.join(", "));
        }
        Some(vec![Piece::Text(summary)])
    }
}

/// How many calls matched an unmet required entry: "no matching call", or "1 of 3 matching
/// calls" for an entry with a `min_count`.
fn matching_calls(unmet: &Unmet) -> String {
    if unmet.needed > 1 {
        format!("{} of {} matching calls", unmet.found, unmet.needed)
    } else {
        "no matching call".to_owned()
    }
}

/// Why a sequence stopped at its 0-based entry `stopped`.
fn sequence_progress(stopped: usize) -> String {
    if stopped == 0 {
        "no call matches it".to_owned()
    } else {
        format!("no call after the match of entry {stopped} matches it")
    }
}

/// "call 2 `bash` has command `npm run lint`", and the like; `before` is the 1-based
/// number of the sequence entry before the one a call came too early for.
fn near_miss(near: &NearMiss, before: usize) -> Line {
    let mut line = vec![
        Piece::Text(format!("call {} ", near.call)),
        Piece::QuotedTool(near.tool.clone()),
        Piece::text(" "),
    ];
    match &near.miss {
        Miss::Field {
            field,
            found: Some(found),
        } => line.extend([
            Piece::Text(format!("has {field} ")),
            Piece::QuotedValue(found.clone()),
        ]),
        Miss::Field { field, found: None } => line.push(Piece::Text(format!("has no {field}"))),
        Miss::Step { step } => line.push(Piece::Text(format!("is in step {step}"))),
        Miss::NotFinal => line.push(Piece::text("is not the final call")),
        Miss::NoResult => line.push(Piece::text(
            "has no recorded result (only completed calls count)",
        )),
        Miss::Order { previous } => line.push(Piece::Text(format!(
            "matches it but came before call {previous}, the match of entry {before}"
        ))),
    }
    line
}
