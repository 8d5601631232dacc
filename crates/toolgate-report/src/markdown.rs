//! The Markdown report: a GitHub-flavoured summary for a pull-request comment or a job's
//! step summary, with a table of tests, a table of gates, and the facts behind each failure.
//!
//! Every piece of user text (test, class and tool names, matchers, arguments, sources) is
//! written as an inline code span. Inside code, GitHub neither parses Markdown nor turns
//! `@name` into a mention or `#12` into a link, so a test name cannot ping people or
//! reshape the comment; only the span's own fence and, in tables, the pipe need care.

use std::io::{self, Write};

use toolgate_expect::{
    CallAccuracyOutcome, GateOutcome, Miss, NearMiss, RunInfo, SelectionOutcome, SuiteOutcome,
    TestOutcome, ToolCallsOutcome, ToolCorrectnessOutcome,
};

use crate::text::{listing_note, matching_calls, mismatch_note, sequence_progress};

/// Values such as call arguments are cut after this many characters: a comment should stay
/// short, and the JSON report carries the whole value.
const VALUE_LIMIT: usize = 60;

/// Writes the Markdown summary of a suite's outcome, ending with a newline.
pub fn render_markdown(outcome: &SuiteOutcome, out: &mut dyn Write) -> io::Result<()> {
    let total = outcome.tests.len();
    let passed = outcome.tests.iter().filter(|t| t.passed).count();
    writeln!(
        out,
        "## toolgate: {passed} of {total} {} passed",
        if total == 1 { "test" } else { "tests" }
    )?;
    if outcome.tests.is_empty() {
        return Ok(());
    }
    render_tests_table(outcome, out)?;
    render_gates_table(outcome, out)?;
    if outcome.tests.iter().any(|t| !t.passed) {
        writeln!(out)?;
        writeln!(out, "### Failed tests")?;
        for test in outcome.tests.iter().filter(|t| !t.passed) {
            render_failed_test(test, out)?;
        }
    }
    Ok(())
}

fn render_tests_table(outcome: &SuiteOutcome, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    writeln!(out, "### Tests")?;
    writeln!(out)?;
    writeln!(out, "| Test | Verdict | Runs | Metrics |")?;
    writeln!(out, "| --- | --- | ---: | --- |")?;
    for test in &outcome.tests {
        let metrics: Vec<String> = test
            .metrics
            .iter()
            .map(|(target, value)| format!("{target} {value}"))
            .collect();
        writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(&code(&test.name)),
            verdict(test.passed),
            test.run_count,
            cell(&metrics.join(", "))
        )?;
    }
    Ok(())
}

fn render_gates_table(outcome: &SuiteOutcome, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    writeln!(out, "### Gates")?;
    writeln!(out)?;
    writeln!(out, "| Test | Gate | Actual | Verdict |")?;
    writeln!(out, "| --- | --- | ---: | --- |")?;
    for test in &outcome.tests {
        for gate in &test.gates {
            writeln!(
                out,
                "| {} | {} | {} | {} |",
                cell(&code(&test.name)),
                cell(&code(&gate.gate.to_string())),
                gate.actual,
                verdict(gate.passed)
            )?;
        }
    }
    Ok(())
}

fn render_failed_test(test: &TestOutcome, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    writeln!(out, "#### {}", code(&test.name))?;
    let failed: Vec<String> = test
        .gates
        .iter()
        .filter(|g| !g.passed)
        .map(failed_gate)
        .collect();
    if !failed.is_empty() {
        writeln!(out)?;
        writeln!(out, "Failed gates: {}", failed.join(", "))?;
    }
    if let Some(note) = listing_note(test) {
        writeln!(out)?;
        writeln!(out, "_{note}_")?;
    }
    let blocks = [
        (
            "Equal-function sets",
            test.selection
                .as_ref()
                .map(|s| selection_facts(&test.runs, s)),
        ),
        (
            "Tool calls",
            test.tool_calls
                .as_ref()
                .map(|t| tool_calls_facts(&test.runs, t)),
        ),
        (
            "Tool correctness",
            test.tool_correctness
                .as_ref()
                .map(|t| correctness_facts(&test.runs, t)),
        ),
        (
            "Call accuracy",
            test.call_accuracy
                .as_ref()
                .map(|a| accuracy_facts(&test.runs, a)),
        ),
    ];
    for (label, facts) in blocks {
        let Some(facts) = facts.filter(|f| !f.is_empty()) else {
            continue;
        };
        writeln!(out)?;
        writeln!(out, "**{label}**")?;
        writeln!(out)?;
        for fact in facts {
            writeln!(out, "- {fact}")?;
        }
    }
    Ok(())
}

fn failed_gate(gate: &GateOutcome) -> String {
    format!("{} (actual {})", code(&gate.gate.to_string()), gate.actual)
}

/// `run 2 (`traces/b.json`): ` and the run's facts, or `None` when it has none.
fn run_line(number: usize, info: &RunInfo, facts: &[String]) -> Option<String> {
    (!facts.is_empty()).then(|| {
        format!(
            "run {number} ({}): {}",
            code(&info.to_string()),
            facts.join("; ")
        )
    })
}

fn selection_facts(runs: &[RunInfo], selection: &SelectionOutcome) -> Vec<String> {
    let mut lines = Vec::new();
    for (info, run) in runs.iter().zip(&selection.runs) {
        let number = info.number;
        let mut facts = Vec::new();
        let missed: Vec<String> = selection
            .classes
            .iter()
            .zip(&run.satisfied_by)
            .filter(|(_, satisfied)| satisfied.is_none())
            .map(|(class, _)| code(class.as_str()))
            .collect();
        if !missed.is_empty() {
            facts.push(format!("missed {}", missed.join(", ")));
        }
        let unexpected: Vec<String> = run
            .unexpected
            .iter()
            .map(|called| format!("{} (call {})", code(&called.tool.to_string()), called.call))
            .collect();
        if !unexpected.is_empty() {
            facts.push(format!("unexpected {}", unexpected.join(", ")));
        }
        lines.extend(run_line(number, info, &facts));
    }
    lines
}

fn tool_calls_facts(runs: &[RunInfo], outcome: &ToolCallsOutcome) -> Vec<String> {
    let entry = |list: &[String], index: usize| code(list.get(index).map_or("", String::as_str));
    let mut lines = Vec::new();
    for (info, run) in runs.iter().zip(&outcome.runs) {
        let number = info.number;
        if run.passed {
            continue;
        }
        let mut facts = Vec::new();
        for unmet in &run.unmet {
            let count = matching_calls(unmet);
            let near = unmet
                .near_miss
                .as_ref()
                .map(|near| format!(" (closest: {})", near_miss(near)))
                .unwrap_or_default();
            facts.push(format!(
                "unmet required {}: {count}{near}",
                entry(&outcome.required, unmet.entry)
            ));
        }
        for violation in &run.violations {
            facts.push(format!(
                "broken disallowed {}: call {} {}",
                entry(&outcome.disallowed, violation.entry),
                violation.call,
                code(&violation.tool)
            ));
        }
        if let Some(stopped) = run.sequence_stopped_at {
            let progress = sequence_progress(stopped);
            facts.push(format!(
                "sequence stopped at entry {} {}: {progress}",
                stopped + 1,
                entry(&outcome.sequence, stopped)
            ));
        }
        lines.extend(run_line(number, info, &facts));
    }
    lines
}

/// "call 2 `bash` has command `npm run lint`", and the like.
fn near_miss(near: &NearMiss) -> String {
    let what = match &near.miss {
        Miss::Field {
            field,
            found: Some(found),
        } => format!("has {field} {}", code(&cut(found))),
        Miss::Field { field, found: None } => format!("has no {field}"),
        Miss::Step { step } => format!("is in step {step}"),
        Miss::NotFinal => "is not the final call".to_owned(),
        Miss::NoResult => "has no recorded result (only completed calls count)".to_owned(),
    };
    format!("call {} {} {what}", near.call, code(&near.tool))
}

fn correctness_facts(runs: &[RunInfo], outcome: &ToolCorrectnessOutcome) -> Vec<String> {
    let mut lines = Vec::new();
    for (info, run) in runs.iter().zip(&outcome.runs) {
        let number = info.number;
        let mut facts = Vec::new();
        let missed: Vec<_> = run
            .missed()
            .filter_map(|index| outcome.expected.get(index))
            .map(|tool| code(tool))
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
                    code(expected),
                    code(&called.tool.to_string()),
                    called.call
                ))
            })
            .collect();
        if !late.is_empty() {
            facts.push(format!("out of order {}", late.join(", ")));
        }
        // In exact mode the calls beyond the expected ones fail a run too, so they explain.
        if run.exact == Some(false) {
            facts.push("not an exact match".to_owned());
            let extra: Vec<String> = run
                .extra
                .iter()
                .map(|called| format!("{} (call {})", code(&called.tool.to_string()), called.call))
                .collect();
            if !extra.is_empty() {
                facts.push(format!("extra {}", extra.join(", ")));
            }
        }
        lines.extend(run_line(number, info, &facts));
    }
    lines
}

fn accuracy_facts(runs: &[RunInfo], outcome: &CallAccuracyOutcome) -> Vec<String> {
    let expected = |index: usize| {
        code(
            &outcome
                .expected
                .get(index)
                .map_or_else(String::new, |(tool, args)| cut(&format!("{tool} {args}"))),
        )
    };
    let mut lines = Vec::new();
    for (info, run) in runs.iter().zip(&outcome.runs) {
        let number = info.number;
        let mut facts = Vec::new();
        for mismatch in &run.incorrect {
            let mut notes = Vec::new();
            if !mismatch.differing.is_empty() {
                let keys: Vec<String> = mismatch.differing.iter().map(|k| code(k)).collect();
                notes.push(format!("differs in {}", keys.join(", ")));
            }
            if let Some(why) = &mismatch.why {
                notes.push(mismatch_note(why, code, |value| code(&cut(value))));
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
                code(&cut(&mismatch.args.get().to_string()))
            ));
        }
        if !run.missed.is_empty() {
            let missed: Vec<String> = run.missed.iter().map(|index| expected(*index)).collect();
            facts.push(format!("missed {}", missed.join(", ")));
        }
        if !run.extra.is_empty() {
            let extra: Vec<String> = run
                .extra
                .iter()
                .map(|called| format!("{} (call {})", code(&called.tool.to_string()), called.call))
                .collect();
            facts.push(format!("extra {}", extra.join(", ")));
        }
        lines.extend(run_line(number, info, &facts));
    }
    lines
}

fn verdict(passed: bool) -> &'static str {
    if passed { "PASS" } else { "FAIL" }
}

/// User text as an inline code span that shows it as it is, on one line.
///
/// Control characters are shown escaped (a newline as `\n`), since a line break would end
/// a table row or a list item. The fence is one backtick longer than the longest run of
/// backticks in the text, and the text is padded with a space when a Markdown parser would
/// otherwise read a backtick at its edge as part of the fence or strip its edge spaces.
fn code(value: &str) -> String {
    crate::escape::markdown(value)
}

/// A long value cut after [`VALUE_LIMIT`] characters, with an ellipsis.
fn cut(value: &str) -> String {
    if value.chars().count() <= VALUE_LIMIT {
        value.to_owned()
    } else {
        let head: String = value.chars().take(VALUE_LIMIT).collect();
        format!("{head}…")
    }
}

/// A table cell's content with its pipes escaped. GitHub splits cells before it parses
/// inline code, so a pipe needs its backslash even inside a code span, where the
/// backslash is then dropped.
fn cell(content: &str) -> String {
    content.replace('|', "\\|")
}

#[cfg(test)]
mod tests;
