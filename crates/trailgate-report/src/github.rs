//! GitHub Actions workflow commands: an `::error` annotation on the suite file for each
//! failed gate, worst first, and for each test marked `xfail` that passes, a `::notice` for
//! each skipped gate on the baseline, then a `PASS`/`FAIL`/`XFAIL`/`XPASS` line per test for
//! the job log. The gates of a test marked `xfail` that fails are expected to fail and get
//! no annotation (docs/reliability.md#expected-failures).

use std::cmp::Reverse;
use std::io::{self, Write};

use trailgate_expect::{GateOutcome, MetricValue, Op, SuiteOutcome, Target, TestOutcome, Verdict};

use crate::escape::{escape_terminal, github_data, github_property};
use crate::lines::{Look, render};

/// GitHub shows at most this many error annotations of one step and does not show the
/// rest, so the renderer stops here and says itself how many it left out.
const MAX_ERRORS: usize = 10;

/// How many skipped gates on the baseline get a notice of their own: with the notice that
/// counts the errors left out and the one that counts the skipped gates left out, GitHub's
/// ten notices of a step hold them all.
const MAX_SKIPPED: usize = 8;

/// Writes GitHub Actions workflow commands for a suite's outcome: an `::error` for each
/// failed gate (at most ten, the largest shortfall for its scale first, [`relative_shortfall`]), a `::notice` counting the
/// failed gates left out, a `::notice` for each skipped gate on the baseline (at most eight,
/// then one counting the rest), then `PASS name` or `FAIL name` for every test.
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
        .filter(|test| test.verdict() != Verdict::XFailed)
        .flat_map(|test| test.gates.iter().map(move |gate| (test, gate)))
        .filter(|(_, gate)| !gate.passed)
        .collect();
    // A stable sort: equal shortfalls keep suite order.
    failed.sort_by_key(|(_, gate)| Reverse(relative_shortfall(gate)));
    for (test, gate) in failed.iter().take(MAX_ERRORS) {
        let mut properties = vec![format!("file={}", github_property(suite_path))];
        properties.extend(gate.gate.line.map(|line| format!("line={line}")));
        properties.push(format!(
            "title={}",
            github_property(&format!("trailgate: {}", test.name))
        ));
        let properties = properties.join(",");
        let mut message = format!("{} (actual {})", gate.written(), gate.actual);
        if let Some(why) = explanation(test, gate.gate.target) {
            message.push_str(": ");
            message.push_str(&why);
        }
        writeln!(out, "::error {properties}::{}", github_data(&message))?;
    }
    let mut annotated = failed.len().min(MAX_ERRORS);
    let xpassed = outcome
        .tests
        .iter()
        .filter_map(|test| match (test.verdict(), &test.xfail) {
            (Verdict::XPassed, Some(reason)) => Some((test, reason)),
            _ => None,
        });
    let mut left_out = failed.len() - annotated;
    for (test, reason) in xpassed {
        if annotated == MAX_ERRORS {
            left_out += 1;
            continue;
        }
        annotated += 1;
        let properties = [
            format!("file={}", github_property(suite_path)),
            format!(
                "title={}",
                github_property(&format!("trailgate: {}", test.name))
            ),
        ]
        .join(",");
        let message = format!("XPASS: it passes now; remove its xfail mark (xfail: {reason})");
        writeln!(out, "::error {properties}::{}", github_data(&message))?;
    }
    if left_out > 0 {
        let message = format!(
            "trailgate: {left_out} more failed {} not annotated (GitHub shows at most \
             {MAX_ERRORS} errors per step); the full report is in the job log",
            if left_out == 1 { "gate" } else { "gates" }
        );
        writeln!(out, "::notice::{}", github_data(&message))?;
    }
    // A gate on the baseline with nothing to compare with: a notice on its line, so that a
    // gate that never runs is not forgotten. GitHub shows ten notices of a step; past
    // `MAX_SKIPPED`, one more notice counts the rest.
    let skipped: Vec<(&TestOutcome, &GateOutcome, &str)> = outcome
        .tests
        .iter()
        .flat_map(|test| test.gates.iter().map(move |gate| (test, gate)))
        .filter_map(|(test, gate)| gate.skipped().map(|reason| (test, gate, reason)))
        .collect();
    for (test, gate, reason) in skipped.iter().take(MAX_SKIPPED) {
        let mut properties = vec![format!("file={}", github_property(suite_path))];
        properties.extend(gate.gate.line.map(|line| format!("line={line}")));
        properties.push(format!(
            "title={}",
            github_property(&format!("trailgate: {}", test.name))
        ));
        let message = format!("{} skipped: {reason}", gate.gate);
        writeln!(
            out,
            "::notice {}::{}",
            properties.join(","),
            github_data(&message)
        )?;
    }
    let left_out = skipped.len().saturating_sub(MAX_SKIPPED);
    if left_out > 0 {
        let message = format!(
            "trailgate: {left_out} more skipped {} on the baseline not annotated; the full \
             report is in the job log",
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
            test.verdict().word(),
            escape_terminal(&test.name)
        )?;
    }
    Ok(())
}

/// How far the actual value is from passing the gate: how much it would have to move.
/// In millionths; a strict comparison needs one whole unit more.
fn shortfall(gate: &GateOutcome) -> u128 {
    let actual = gate.actual.millionths();
    let Some(value) = gate.value().map(MetricValue::millionths) else {
        return 0;
    };
    let unit = MetricValue::whole(1).millionths();
    if gate.passed {
        return 0;
    }
    match gate.gate.op {
        Op::Ge => value.saturating_sub(actual),
        Op::Gt => (value + unit).saturating_sub(actual),
        Op::Le => actual.saturating_sub(value),
        Op::Lt => (actual + unit).saturating_sub(value),
        Op::Eq => actual.abs_diff(value),
        Op::Ne => u128::from(actual == value) * unit,
    }
}

/// How far a gate is from passing as a share of its metric's scale, in millionths: a
/// percent's [`shortfall`] out of 100 points, a `usage.*` metric's out of the gate's own
/// value (at least one unit). A token limit missed by a tenth of it then weighs as a
/// percent missed by 10 points, where comparing shortfalls in their own units put every
/// token count before every percent.
fn relative_shortfall(gate: &GateOutcome) -> u128 {
    let unit = MetricValue::whole(1).millionths();
    let scale = if gate.gate.target.is_percent() {
        MetricValue::whole(100).millionths()
    } else {
        gate.value().map_or(unit, MetricValue::millionths).max(unit)
    };
    shortfall(gate).saturating_mul(1_000_000) / scale
}

/// The counts behind a failed gate's metric, from the grader that produced it.
fn explanation(test: &TestOutcome, target: Target) -> Option<String> {
    test.sections()
        .into_iter()
        .find(|section| section.explained.contains(&target))
        .and_then(|section| section.gate_note)
        .map(|note| render(&note, Look::Raw))
}

#[cfg(test)]
mod tests;
