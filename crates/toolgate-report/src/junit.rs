//! The JUnit XML report, for the test reporters of CI services: one `<testcase>` per suite
//! test, its metrics as properties, and for a failed test one `<failure>` that names the
//! failed gates and says what went wrong.
//!
//! The XML is written by `quick-junit`, nextest's serializer. No time or timestamp is set,
//! so the attributes it would write for them are absent and the bytes depend only on the
//! outcome.

use std::io::{self, Write};

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use toolgate_expect::{
    Block, CallAccuracyOutcome, CalledTool, GateOutcome, SelectionOutcome, SuiteOutcome,
    TestOutcome, ToolCallsOutcome, ToolCorrectnessOutcome,
};

use crate::escape::{xml, xml_lines};
use crate::safe::Shown;
use crate::text::{
    excerpt, listing_note, matching_calls, mismatch_note, near_miss, sequence_progress,
};

/// The `name` of the `<testsuites>` element.
const REPORT_NAME: &str = "toolgate";

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
    let status = if test.passed {
        TestCaseStatus::success()
    } else {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status
            .set_message(xml(&failed_gates(test).join("; ")))
            .set_description(xml_lines(&explanation(test)));
        status
    };
    let mut case = TestCase::new(xml(&test.name), status);
    case.set_classname(xml(suite_name));
    case.add_properties(
        test.metrics
            .iter()
            .map(|(target, value)| Property::new(target.as_str(), value.value().to_string())),
    );
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
    format!("{} (actual {})", gate.gate, gate.actual)
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
    if let Some(selection) = &test.selection {
        section(
            &mut lines,
            test,
            Block::EqualFunctionSets,
            selection_facts(test, selection),
        );
    }
    if let Some(tool_calls) = &test.tool_calls {
        section(
            &mut lines,
            test,
            Block::ToolCalls,
            tool_calls_facts(test, tool_calls),
        );
    }
    if let Some(correctness) = &test.tool_correctness {
        section(
            &mut lines,
            test,
            Block::ToolCorrectness,
            correctness_facts(test, correctness),
        );
    }
    if let Some(accuracy) = &test.call_accuracy {
        section(
            &mut lines,
            test,
            Block::CallAccuracy,
            accuracy_facts(test, accuracy),
        );
    }
    lines.extend(listing_note(test));
    lines.join("\n")
}

/// Adds a block's run lines under its key, when one of its gates failed and a run has
/// something to say. A block whose gates all held explains nothing, and a gate can fail
/// with nothing wrong in any run (`tool_selection.f1 <= 50` over perfect runs).
fn section(lines: &mut Vec<String>, test: &TestOutcome, block: Block, runs: Vec<String>) {
    let failed = test
        .gates
        .iter()
        .any(|g| !g.passed && block.targets().contains(&g.gate.target));
    if failed && !runs.is_empty() {
        lines.push(format!("{}:", block.key()));
        lines.extend(runs.into_iter().map(|run| format!("  {run}")));
    }
}

/// "run 1 (traces/x.json): fact; fact" for each run with a fact, in run order.
fn per_run<R>(test: &TestOutcome, runs: &[R], facts: impl Fn(&R) -> Vec<String>) -> Vec<String> {
    test.runs
        .iter()
        .zip(runs)
        .filter_map(|(info, run)| {
            let number = info.number;
            let facts = facts(run);
            (!facts.is_empty()).then(|| {
                format!(
                    "run {number} ({}): {}",
                    Shown(&info.source),
                    facts.join("; ")
                )
            })
        })
        .collect()
}

/// "shell.exec (call 2), fs.read (call 4)".
fn calls(called: &[CalledTool]) -> String {
    called
        .iter()
        .map(|c| format!("{} (call {})", Shown(&c.tool), c.call))
        .collect::<Vec<_>>()
        .join(", ")
}

fn selection_facts(test: &TestOutcome, selection: &SelectionOutcome) -> Vec<String> {
    per_run(test, &selection.runs, |run| {
        let mut facts = Vec::new();
        let missed: Vec<std::borrow::Cow<'_, str>> = selection
            .classes
            .iter()
            .zip(&run.satisfied_by)
            .filter(|(_, satisfied)| satisfied.is_none())
            .map(|(class, _)| xml(class.as_str()))
            .collect();
        if !missed.is_empty() {
            facts.push(format!("missed {}", missed.join(", ")));
        }
        if !run.unexpected.is_empty() {
            facts.push(format!("unexpected {}", calls(&run.unexpected)));
        }
        facts
    })
}

fn tool_calls_facts(test: &TestOutcome, outcome: &ToolCallsOutcome) -> Vec<String> {
    let described = |list: &[String], index: usize| {
        list.get(index)
            .map(|entry| xml(entry).into_owned())
            .unwrap_or_default()
    };
    per_run(test, &outcome.runs, |run| {
        let mut facts = Vec::new();
        for unmet in &run.unmet {
            let count = matching_calls(unmet);
            let near = unmet
                .near_miss
                .as_ref()
                .map(|near| format!(" ({})", near_miss(near)))
                .unwrap_or_default();
            facts.push(format!(
                "unmet required {}: {count}{near}",
                described(&outcome.required, unmet.entry)
            ));
        }
        for violation in &run.violations {
            facts.push(format!(
                "broken disallowed {}: call {} `{}`",
                described(&outcome.disallowed, violation.entry),
                violation.call,
                Shown(&violation.tool)
            ));
        }
        if let Some(stopped) = run.sequence_stopped_at {
            let progress = sequence_progress(stopped);
            facts.push(format!(
                "sequence stopped at entry {} {}: {progress}",
                stopped + 1,
                described(&outcome.sequence, stopped)
            ));
        }
        facts
    })
}

fn correctness_facts(test: &TestOutcome, outcome: &ToolCorrectnessOutcome) -> Vec<String> {
    per_run(test, &outcome.runs, |run| {
        let mut facts = Vec::new();
        let missed: Vec<_> = run
            .missed()
            .filter_map(|index| outcome.expected.get(index))
            .map(|tool| xml(tool))
            .collect();
        if !missed.is_empty() {
            facts.push(format!("missed {}", missed.join(", ")));
        }
        let late: Vec<String> = run
            .late()
            .filter_map(|(index, called)| {
                let expected = outcome.expected.get(index)?;
                Some(format!(
                    "{} ({} is call {})",
                    xml(expected),
                    Shown(&called.tool),
                    called.call
                ))
            })
            .collect();
        if !late.is_empty() {
            facts.push(format!("out of order {}", late.join(", ")));
        }
        // Extra calls cost only an exact match; elsewhere they do not lower the score.
        if run.exact == Some(false) {
            facts.push("not an exact match".to_owned());
            if !run.extra.is_empty() {
                facts.push(format!("extra {}", calls(&run.extra)));
            }
        }
        facts
    })
}

fn accuracy_facts(test: &TestOutcome, outcome: &CallAccuracyOutcome) -> Vec<String> {
    let expected = |index: usize| {
        outcome
            .expected
            .get(index)
            .map_or_else(String::new, |(tool, args)| {
                format!("{} {}", xml(tool), xml(&args.to_string()))
            })
    };
    per_run(test, &outcome.runs, |run| {
        let mut facts = Vec::new();
        for mismatch in &run.incorrect {
            let mut notes = Vec::new();
            if !mismatch.differing.is_empty() {
                notes.push(format!(
                    "differs in {}",
                    xml(&mismatch.differing.join(", "))
                ));
            }
            if let Some(why) = &mismatch.why {
                notes.push(mismatch_note(why, |path| xml(path).into_owned(), excerpt));
            }
            let keys = if notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", notes.join("; "))
            };
            facts.push(format!(
                "incorrect {}: call {} has {}{keys}",
                expected(mismatch.expected),
                mismatch.call.call,
                excerpt(&mismatch.args.get().to_string())
            ));
        }
        for index in &run.missed {
            facts.push(format!("missed {}", expected(*index)));
        }
        if !run.extra.is_empty() {
            facts.push(format!("extra {}", calls(&run.extra)));
        }
        facts
    })
}

#[cfg(test)]
mod tests;
