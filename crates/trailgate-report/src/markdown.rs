//! The Markdown report: a GitHub-flavoured summary for a pull-request comment or a job's
//! step summary, with a table of tests, a table of gates, and the facts behind each failure.
//!
//! Every piece of user text (test, class and tool names, matchers, arguments, sources) is
//! written as an inline code span. Inside code, GitHub neither parses Markdown nor turns
//! `@name` into a mention or `#12` into a link, so a test name cannot ping people or
//! reshape the comment; only the span's own fence and, in tables, the pipe need care.

use std::io::{self, Write};

use trailgate_expect::{GateOutcome, Line, RunInfo, SuiteOutcome, TestOutcome, Verdict};

use crate::lines::{Look, render};
use crate::text::listing_note;

/// Writes the Markdown summary of a suite's outcome, ending with a newline.
pub fn render_markdown(outcome: &SuiteOutcome, out: &mut dyn Write) -> io::Result<()> {
    let tally = outcome.tally();
    let total = tally.tests();
    let marked = if tally.marked {
        format!(
            " ({} failed, {} xfailed, {} xpassed)",
            tally.failed, tally.xfailed, tally.xpassed
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "## trailgate: {} of {total} {} passed{marked}",
        tally.passed,
        if total == 1 { "test" } else { "tests" }
    )?;
    if outcome.tests.is_empty() {
        return Ok(());
    }
    let inconclusive: Vec<String> = outcome
        .tests
        .iter()
        .filter(|test| test.gates.iter().any(|gate| gate.note.is_some()))
        .map(|test| code(&test.name))
        .collect();
    if !inconclusive.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Inconclusive: {} (a gate lies inside its interval; more runs would settle it)",
            inconclusive.join(", ")
        )?;
    }
    render_tests_table(outcome, out)?;
    render_gates_table(outcome, out)?;
    render_agents_table(outcome, out)?;
    let failed = |test: &&TestOutcome| test.verdict() == Verdict::Failed;
    if outcome.tests.iter().any(|t| t.verdict().fails_check()) {
        writeln!(out)?;
        writeln!(out, "### Failed tests")?;
        for test in outcome.tests.iter().filter(failed) {
            render_failed_test(test, out)?;
        }
        for test in &outcome.tests {
            if let (Verdict::XPassed, Some(reason)) = (test.verdict(), &test.xfail) {
                writeln!(out)?;
                writeln!(out, "#### {}", code(&test.name))?;
                writeln!(out)?;
                writeln!(
                    out,
                    "XPASS: it passes now; remove its xfail mark (xfail: {})",
                    code(reason)
                )?;
            }
        }
    }
    let xfailed: Vec<String> = outcome
        .tests
        .iter()
        .filter(|test| test.verdict() == Verdict::XFailed)
        .map(|test| {
            let reason = test.xfail.as_deref().unwrap_or_default();
            format!("- {}: {}", code(&test.name), code(reason))
        })
        .collect();
    if !xfailed.is_empty() {
        writeln!(out)?;
        writeln!(out, "### Expected failures")?;
        writeln!(out)?;
        for line in xfailed {
            writeln!(out, "{line}")?;
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
            test.verdict().word(),
            runs_cell(test),
            cell(&metrics.join(", "))
        )?;
    }
    Ok(())
}

/// The number of runs; with several, how many passed every gate on their own
/// (docs/reports.md#each-runs-verdict).
fn runs_cell(test: &TestOutcome) -> String {
    if let Some(stability) = test.stability() {
        format!(
            "{} of {} passed ({})",
            test.passed_runs,
            test.run_count,
            stability.as_str()
        )
    } else {
        test.run_count.to_string()
    }
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
                cell(&code(&gate.written())),
                gate.actual,
                match (&gate.note, gate.skipped()) {
                    // The reason may name the test: user text, shown as code.
                    (_, Some(reason)) => format!("skipped: {}", cell(&code(reason))),
                    (Some(note), None) => format!("{} ({})", verdict(gate.passed), cell(note)),
                    (None, None) => verdict(gate.passed).to_string(),
                }
            )?;
        }
    }
    Ok(())
}

/// The per-agent table (docs/reports.md#agents), when a call of any test has an agent: a
/// row per agent of each such test, by name.
fn render_agents_table(outcome: &SuiteOutcome, out: &mut dyn Write) -> io::Result<()> {
    if outcome.tests.iter().all(|test| test.agents.is_empty()) {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "### Agents")?;
    writeln!(out)?;
    writeln!(out, "| Test | Agent | Calls | Errors | Tools |")?;
    writeln!(out, "| --- | --- | ---: | ---: | --- |")?;
    for test in &outcome.tests {
        for (agent, row) in test.agents.rows() {
            let tools: Vec<String> = row.tools.iter().map(|tool| code(tool)).collect();
            writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                cell(&code(&test.name)),
                cell(&code(agent)),
                row.calls,
                row.errors,
                cell(&tools.join(", "))
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
    let failed_runs: Vec<String> = test
        .runs
        .iter()
        .filter(|info| !info.passed)
        .map(|info| format!("run {} {}", info.number, code(&info.to_string())))
        .collect();
    if test.run_count > 1 && !failed_runs.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Runs that failed on their own ({} of {} passed): {}",
            test.passed_runs,
            test.run_count,
            failed_runs.join(", ")
        )?;
    }
    for section in test.sections() {
        let lines: Vec<String> = test
            .runs
            .iter()
            .zip(&section.facts)
            .filter_map(|(info, facts)| run_line(info, facts))
            .collect();
        if lines.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(out, "**{}**", section.title)?;
        writeln!(out)?;
        for line in lines {
            writeln!(out, "- {line}")?;
        }
    }
    Ok(())
}

fn failed_gate(gate: &GateOutcome) -> String {
    format!("{} (actual {})", code(&gate.written()), gate.actual)
}

/// `run 2 (`traces/b.json`): ` and the run's facts, or `None` when it has none.
fn run_line(info: &RunInfo, facts: &[Line]) -> Option<String> {
    (!facts.is_empty()).then(|| {
        let facts: Vec<String> = facts
            .iter()
            .map(|fact| render(fact, Look::Markdown))
            .collect();
        format!(
            "run {} ({}): {}",
            info.number,
            code(&info.to_string()),
            facts.join("; ")
        )
    })
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

/// A table cell's content with its pipes escaped. GitHub splits cells before it parses
/// inline code, so a pipe needs its backslash even inside a code span, where the
/// backslash is then dropped.
fn cell(content: &str) -> String {
    content.replace('|', "\\|")
}

#[cfg(test)]
mod tests;
