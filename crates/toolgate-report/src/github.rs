//! GitHub Actions workflow commands: an `::error` annotation on the suite file for each
//! failed gate, worst first, then a `PASS`/`FAIL` line per test for the job log.

use std::cmp::Reverse;
use std::io::{self, Write};

use toolgate_expect::{
    CallAccuracyOutcome, GateOutcome, Op, SelectionOutcome, SuiteOutcome, Target, TestOutcome,
    ToolCallsOutcome, ToolCorrectnessOutcome,
};

use crate::escape::{escape_terminal, github_data, github_property};

/// GitHub shows at most this many error annotations of one step and does not show the
/// rest, so the renderer stops here and says itself how many it left out.
const MAX_ERRORS: usize = 10;

/// Writes GitHub Actions workflow commands for a suite's outcome: an `::error` for each
/// failed gate (at most ten, the largest shortfall first), a `::notice` counting the
/// failed gates left out, then `PASS name` or `FAIL name` for every test.
///
/// `suite_path` is the suite file as the annotations should name it, relative to the
/// repository's root so that GitHub can place them on the file.
pub fn render_github(
    outcome: &SuiteOutcome,
    suite_path: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut failed: Vec<(&TestOutcome, &GateOutcome)> = outcome
        .tests
        .iter()
        .flat_map(|test| test.gates.iter().map(move |gate| (test, gate)))
        .filter(|(_, gate)| !gate.passed)
        .collect();
    // A stable sort: equal shortfalls keep suite order.
    failed.sort_by_key(|(_, gate)| Reverse(shortfall(gate)));
    for (test, gate) in failed.iter().take(MAX_ERRORS) {
        let mut properties = vec![format!("file={}", github_property(suite_path))];
        properties.extend(gate.gate.line.map(|line| format!("line={line}")));
        properties.push(format!(
            "title={}",
            github_property(&format!("toolgate: {}", test.name))
        ));
        let properties = properties.join(",");
        let mut message = format!("{} (actual {})", gate.gate, gate.actual);
        if let Some(why) = explanation(test, gate.gate.target) {
            message.push_str(": ");
            message.push_str(&why);
        }
        writeln!(out, "::error {properties}::{}", github_data(&message))?;
    }
    let left_out = failed.len().saturating_sub(MAX_ERRORS);
    if left_out > 0 {
        let message = format!(
            "toolgate: {left_out} more failed {} not annotated (GitHub shows at most \
             {MAX_ERRORS} errors per step); the full report is in the job log",
            if left_out == 1 { "gate" } else { "gates" }
        );
        writeln!(out, "::notice::{}", github_data(&message))?;
    }
    for test in &outcome.tests {
        // The name is shown with its control characters escaped: a newline in it would
        // start a line of its own, which the runner could take for a workflow command.
        writeln!(
            out,
            "{} {}",
            if test.passed { "PASS" } else { "FAIL" },
            escape_terminal(&test.name)
        )?;
    }
    Ok(())
}

/// How far the actual value is from passing the gate: how much it would have to move.
fn shortfall(gate: &GateOutcome) -> u16 {
    let actual = u16::from(gate.actual.value());
    let value = u16::from(gate.gate.value.value());
    if gate.passed {
        return 0;
    }
    match gate.gate.op {
        Op::Ge => value.saturating_sub(actual),
        Op::Gt => (value + 1).saturating_sub(actual),
        Op::Le => actual.saturating_sub(value),
        Op::Lt => (actual + 1).saturating_sub(value),
        Op::Eq => actual.abs_diff(value),
        Op::Ne => u16::from(actual == value),
    }
}

/// The counts behind a failed gate's metric, from the block that produced it.
fn explanation(test: &TestOutcome, target: Target) -> Option<String> {
    let parts = match target {
        Target::SelectionPrecision | Target::SelectionRecall | Target::SelectionF1 => {
            selection_counts(test.selection.as_ref()?)
        }
        Target::ToolCallsPassRate => {
            tool_calls_counts(test.tool_calls.as_ref()?, test.run_count as u64)
        }
        Target::ToolCorrectnessScore => {
            correctness_counts(test.tool_correctness.as_ref()?, test.run_count as u64)
        }
        Target::CallAccuracyPrecision | Target::CallAccuracyRecall | Target::CallAccuracyF1 => {
            accuracy_counts(test.call_accuracy.as_ref()?)
        }
        // A target this renderer does not know yet gets the bare gate and value.
        _ => Vec::new(),
    };
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// "1 missed class (fetch), 2 unexpected calls": the classes named once each, in
/// declaration order, however many runs missed them.
fn selection_counts(selection: &SelectionOutcome) -> Vec<String> {
    let missed: Vec<&str> = selection
        .classes
        .iter()
        .zip(&selection.missed_runs)
        .filter(|(_, runs)| **runs > 0)
        .map(|(class, _)| class.as_str())
        .collect();
    let mut parts = Vec::new();
    let false_negatives = selection.counts.false_negatives;
    if false_negatives > 0 {
        parts.push(format!(
            "{} ({})",
            counted(false_negatives, "missed class", "missed classes"),
            missed.join(", ")
        ));
    }
    let false_positives = selection.counts.false_positives;
    if false_positives > 0 {
        parts.push(counted(
            false_positives,
            "unexpected call",
            "unexpected calls",
        ));
    }
    parts
}

/// "2 of 3 runs failed (1 unmet required entry, 1 disallowed call)".
fn tool_calls_counts(outcome: &ToolCallsOutcome, runs: u64) -> Vec<String> {
    let totals = outcome.totals;
    let failed = runs - (totals.passed_runs as u64).min(runs);
    if failed == 0 {
        return Vec::new();
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
    vec![summary]
}

/// "1 of 2 runs not an exact match", or "1 of 4 expected tools missed".
fn correctness_counts(outcome: &ToolCorrectnessOutcome, runs: u64) -> Vec<String> {
    let line = if let Some(exact) = outcome.exact_runs {
        format!(
            "{} of {runs} {} not an exact match",
            runs - exact.min(runs),
            if runs == 1 { "run" } else { "runs" }
        )
    } else {
        let total = outcome.expected_total;
        let missed = total - outcome.matched.min(total);
        format!(
            "{missed} of {total} expected {} missed",
            if total == 1 { "tool" } else { "tools" }
        )
    };
    vec![line]
}

/// "1 incorrect call, 1 missed call, 2 extra calls", summed over the runs.
fn accuracy_counts(outcome: &CallAccuracyOutcome) -> Vec<String> {
    nonzero(&[
        (outcome.incorrect, "incorrect call", "incorrect calls"),
        (outcome.missed(), "missed call", "missed calls"),
        (outcome.extra(), "extra call", "extra calls"),
    ])
}

/// The counts that are not zero, each with its noun.
fn nonzero(counts: &[(u64, &str, &str)]) -> Vec<String> {
    counts
        .iter()
        .filter(|(count, _, _)| *count > 0)
        .map(|(count, one, many)| counted(*count, one, many))
        .collect()
}

fn counted(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

#[cfg(test)]
mod tests;
