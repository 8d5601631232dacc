//! The JUnit XML report, for the test reporters of CI services: one `<testcase>` per suite
//! test, its metrics as properties, and for a failed test one `<failure>` that names the
//! failed gates and says what went wrong.
//!
//! The XML is written by `quick-junit`, nextest's serializer. No time or timestamp is set,
//! so the attributes it would write for them are absent and the bytes depend only on the
//! outcome.

use std::io::{self, Write};

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use trailgate_expect::{GateOutcome, Section, SuiteOutcome, TestOutcome, Verdict};

use crate::escape::{xml, xml_lines};
use crate::lines::{Look, render};
use crate::safe::Shown;
use crate::text::listing_note;

/// The `name` of the `<testsuites>` element.
const REPORT_NAME: &str = "trailgate";

/// Writes the JUnit XML report of a suite's outcome: one `<testsuite>` named `suite_name`
/// (the suite file's path as the user gave it), holding one `<testcase>` per test in suite
/// order, each with `suite_name` as its `classname`.
pub fn render_junit(
    outcome: &SuiteOutcome,
    suite_name: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut suite = TestSuite::new(xml(suite_name));
    suite.add_test_cases(outcome.tests.iter().map(|test| test_case(test, suite_name)));
    let mut report = Report::new(REPORT_NAME);
    report.add_test_suite(suite);
    // Serialize into memory first: quick-junit wraps a writer's error in its own type, and
    // the caller needs that error as it was (a broken pipe is not a crash). Writing to a
    // `Vec` fails only on a serializer fault.
    let mut bytes = Vec::new();
    report.serialize(&mut bytes).map_err(io::Error::other)?;
    out.write_all(&bytes)
}

fn test_case(test: &TestOutcome, suite_name: &str) -> TestCase {
    // A test marked `xfail` that fails is skipped; one that passes is a failure
    // (docs/reliability.md#expected-failures).
    let status = match (test.verdict(), test.xfail.as_deref()) {
        (Verdict::XFailed, Some(reason)) => {
            let mut status = TestCaseStatus::skipped();
            status.set_message(xml(&format!("xfail: {reason}")));
            status
        }
        (Verdict::XPassed, Some(reason)) => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status.set_message(xml(&format!(
                "xpass: it passes now; remove its xfail mark (xfail: {reason})"
            )));
            status
        }
        _ if test.passed => TestCaseStatus::success(),
        _ => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status
                .set_message(xml(&failed_gates(test).join("; ")))
                .set_description(xml_lines(&explanation(test)));
            status
        }
    };
    let mut case = TestCase::new(xml(&test.name), status);
    case.set_classname(xml(suite_name));
    case.add_properties(
        test.metrics
            .iter()
            .map(|(target, value)| Property::new(target.as_str(), value.to_string())),
    );
    // A gate on the baseline with nothing to compare with is no testcase of its own: it is
    // listed as a property, with why it was skipped.
    case.add_properties(test.gates.iter().filter_map(|gate| {
        gate.skipped()
            .map(|reason| Property::new("gate.skipped", xml(&format!("{}: {reason}", gate.gate))))
    }));
    // With several runs, how many passed every gate on their own
    // (docs/reports.md#each-runs-verdict).
    if test.run_count > 1 {
        case.add_properties([
            Property::new("runs", test.run_count.to_string()),
            Property::new("runs.passed", test.passed_runs.to_string()),
        ]);
    }
    if let Some(stability) = test.stability() {
        case.add_property(Property::new("stability", stability.as_str()));
    }
    case
}

/// `tool_selection.f1 >= 80 (actual 50)` for each failed gate, in suite order.
fn failed_gates(test: &TestOutcome) -> Vec<String> {
    test.gates
        .iter()
        .filter(|g| !g.passed)
        .map(gate_verdict)
        .collect()
}

fn gate_verdict(gate: &GateOutcome) -> String {
    format!("{} (actual {})", gate.written(), gate.actual)
}

/// The failure's text: each failed gate with its suite line, then, for each block with a
/// failed gate, the facts of its runs that explain it.
fn explanation(test: &TestOutcome) -> String {
    let mut lines: Vec<String> = test
        .gates
        .iter()
        .filter(|g| !g.passed)
        .map(|g| match g.gate.line {
            Some(line) => format!("line {line}: {}", gate_verdict(g)),
            None => gate_verdict(g),
        })
        .collect();
    for section in test.sections() {
        explain(&mut lines, test, &section);
    }
    lines.extend(listing_note(test));
    lines.join("\n")
}

/// Adds a grader's run lines under its key, when one of its gates failed and a run has
/// something to say. A grader whose gates all held explains nothing, and a gate can fail
/// with nothing wrong in any run (`tool_selection.f1 <= 50` over perfect runs).
fn explain(lines: &mut Vec<String>, test: &TestOutcome, section: &Section) {
    let failed = test
        .gates
        .iter()
        .any(|g| !g.passed && section.targets.contains(&g.gate.target));
    let runs: Vec<String> = test
        .runs
        .iter()
        .zip(&section.facts)
        .filter(|(_, facts)| !facts.is_empty())
        .map(|(info, facts)| {
            let facts: Vec<String> = facts.iter().map(|f| render(f, Look::Junit)).collect();
            format!(
                "run {} ({}): {}",
                info.number,
                Shown(&info.source),
                facts.join("; ")
            )
        })
        .collect();
    if failed && !runs.is_empty() {
        lines.push(format!("{}:", section.key));
        lines.extend(runs.into_iter().map(|run| format!("  {run}")));
    }
}

#[cfg(test)]
mod tests;
