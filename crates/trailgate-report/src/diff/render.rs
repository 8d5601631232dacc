//! The diff for people: the text output, the Markdown pull-request comment, and GitHub
//! Actions workflow commands. Each shows the tests that moved, regressions first; the JSON
//! output (`json.rs`) has every test.

use std::fmt::Write as _;
use std::io::{self, Write};
use trailgate_expect::MetricValue;

use super::read::TestRead;
use super::{Diff, GateChange, GateDiff, MetricDiff, PassRates, RunChange, TestDiff, fails_a_gate};
use crate::direction::Better;
use crate::escape::{escape_terminal, github_data, github_property, markdown};
use crate::lines::{BOLD, FAIL, PASS, Painter, TextOptions};
use crate::safe::visible;

/// At most this many changed runs of a test are listed in text and Markdown; the JSON
/// output lists them all.
const LISTED_RUNS: usize = 10;

/// GitHub shows at most this many annotations of one kind per step.
const MAX_ANNOTATIONS: usize = 10;

/// How a test in both reports moved, as one word.
fn status(test: &TestDiff) -> &'static str {
    if test.regressed() {
        "REGRESSED"
    } else if test.improved() {
        "IMPROVED"
    } else {
        "CHANGED"
    }
}

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// `-20`, `+5`, `0`, or `new`/`gone` when one side lacks the metric.
fn change_text(metric: &MetricDiff) -> String {
    match (metric.base, metric.head, metric.change()) {
        (_, _, Some(change)) => change.to_string(),
        (None, _, None) => "new".to_owned(),
        (_, _, None) => "gone".to_owned(),
    }
}

fn value_text(value: Option<MetricValue>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// A gate's change in words, the gate as written (through `show`), and the metric's
/// value on each side.
fn gate_text(gate: &GateDiff, show: impl Fn(&str) -> String) -> String {
    let actual = match (gate.base, gate.head) {
        (Some(b), Some(h)) => format!("actual {} -> {}", b.actual, h.actual),
        (Some(side), None) | (None, Some(side)) => format!("actual {}", side.actual),
        (None, None) => String::new(),
    };
    let word = match gate.change() {
        GateChange::NewlyFailing if gate.base.is_none() => "new, failing",
        GateChange::NewlyFailing => "newly failing",
        GateChange::NewlyPassing => "newly passing",
        GateChange::Unchanged => "unchanged",
        GateChange::Added => "new, passing",
        GateChange::Removed => "removed",
    };
    format!("{word}: {} ({actual})", show(&gate.written()))
}

fn plain(text: &str) -> String {
    text.to_owned()
}

/// Text from the report's file, for a terminal.
fn shown(text: &str) -> String {
    escape_terminal(text).into_owned()
}

fn run_text(run: &RunChange) -> String {
    let line = run.line.map(|l| format!(":{l}")).unwrap_or_default();
    let runs = if run.base_run == run.head_run {
        format!("run {}", run.head_run)
    } else {
        format!("run {} -> {}", run.base_run, run.head_run)
    };
    format!("{}{line} ({runs})", run.source)
}

fn verdict_word(passed: bool) -> &'static str {
    if passed { "PASS" } else { "FAIL" }
}

fn summary_line(diff: &Diff) -> String {
    let regressed = diff.count(TestDiff::regressed);
    let improved = diff.count(|t| !t.regressed() && t.improved());
    let changed = diff.count(|t| !t.regressed() && !t.improved() && t.moved());
    let unchanged = diff.tests.len() - regressed - improved - changed;
    format!(
        "{} in both: {regressed} regressed, {improved} improved, {changed} changed otherwise, \
         {unchanged} unchanged; {} added, {} removed",
        plural(diff.tests.len(), "test", "tests"),
        diff.added.len(),
        diff.removed.len()
    )
}

/// Writes the diff as text: a header naming both files, each test that moved (regressions
/// first) with its metrics, gates and runs, the tests added and removed, and a verdict line.
pub fn render_diff_text(diff: &Diff, options: TextOptions, out: &mut dyn Write) -> io::Result<()> {
    let painter = Painter::new(options);
    writeln!(
        out,
        "trailgate diff {} -> {}",
        escape_terminal(&diff.base.name),
        escape_terminal(&diff.head.name)
    )?;
    for test in diff.moved_tests() {
        writeln!(out)?;
        text_test(test, &painter, out)?;
    }
    for (word, tests) in [("ADDED", &diff.added), ("REMOVED", &diff.removed)] {
        if !tests.is_empty() {
            writeln!(out)?;
        }
        for test in tests {
            writeln!(
                out,
                "{} {} ({}, {})",
                painter.paint(BOLD, word),
                painter.paint(BOLD, &escape_terminal(&test.name)),
                verdict_word(test.passed),
                plural(test.runs, "run", "runs")
            )?;
            for gate in test.gates.iter().filter(|g| g.failed()) {
                let written = gate.written();
                writeln!(
                    out,
                    "  failing: {} (actual {})",
                    escape_terminal(&written),
                    gate.actual
                )?;
            }
        }
    }
    writeln!(out)?;
    let verdict = if diff.regressed() {
        painter.paint(FAIL, "REGRESSED")
    } else {
        painter.paint(PASS, "OK")
    };
    writeln!(out, "{verdict} {}", summary_line(diff))
}

fn text_test(test: &TestDiff, painter: &Painter, out: &mut dyn Write) -> io::Result<()> {
    let word = status(test);
    let word = if test.regressed() {
        painter.paint(FAIL, word)
    } else if test.improved() {
        painter.paint(PASS, word)
    } else {
        painter.paint(BOLD, word)
    };
    writeln!(
        out,
        "{word} {} ({} -> {}, {} -> {})",
        painter.paint(BOLD, &escape_terminal(&test.name)),
        verdict_word(test.base.passed),
        verdict_word(test.head.passed),
        plural(test.base.runs, "run", "runs"),
        plural(test.head.runs, "run", "runs"),
    )?;
    // Metric names come from the report's file: shown inert, as any text read from a file.
    let moved: Vec<(String, &MetricDiff)> = test
        .metrics
        .iter()
        .filter(|m| m.moved())
        .map(|m| (escape_terminal(&m.name).into_owned(), m))
        .collect();
    let width = moved
        .iter()
        .map(|(name, _)| name.chars().count())
        .max()
        .unwrap_or(0);
    for (name, metric) in moved {
        let lower = match Better::of(&metric.name) {
            Better::Lower => "  (better lower)",
            Better::Higher => "",
        };
        writeln!(
            out,
            "  {name:<width$}  {:>3} -> {:>3}  {}{lower}",
            value_text(metric.base),
            value_text(metric.head),
            change_text(metric)
        )?;
    }
    for gate in test
        .gates
        .iter()
        .filter(|g| g.change() != GateChange::Unchanged)
    {
        writeln!(out, "  gate {}", gate_text(gate, shown))?;
    }
    text_runs(test, out)
}

fn text_runs(test: &TestDiff, out: &mut dyn Write) -> io::Result<()> {
    let runs = &test.runs;
    if runs.lined_up > 0 || runs.base_only > 0 || runs.head_only > 0 {
        writeln!(out, "  runs: {}", runs_line(test))?;
    }
    for run in runs.changed.iter().take(LISTED_RUNS) {
        let word = if run.passes_now {
            "now passes"
        } else {
            "now fails "
        };
        writeln!(out, "    {word} {}", escape_terminal(&run_text(run)))?;
    }
    if let Some(more) = runs
        .changed
        .len()
        .checked_sub(LISTED_RUNS)
        .filter(|&n| n > 0)
    {
        writeln!(out, "    and {more} more; the JSON output lists every run")?;
    }
    if let Some(rates) = test.pass_rate {
        writeln!(out, "  runs passed: {}", pass_rate_text(rates))?;
    }
    Ok(())
}

/// `3 lined up by source and line, 3 with a verdict in both: 1 now fails, 0 now pass; 1 only
/// in base`.
fn runs_line(test: &TestDiff) -> String {
    let runs = &test.runs;
    let fails = runs.changed.iter().filter(|r| !r.passes_now).count();
    let passes = runs.changed.len() - fails;
    let mut line = format!("{} lined up by source and line", runs.lined_up);
    if runs.judged > 0 {
        let _ = write!(
            line,
            ", {} with a verdict in both: {fails} now {}, {passes} now {}",
            runs.judged,
            if fails == 1 { "fails" } else { "fail" },
            if passes == 1 { "passes" } else { "pass" }
        );
    } else if runs.lined_up > 0 {
        line.push_str(", none with a verdict in both reports");
    }
    if runs.base_only > 0 {
        let _ = write!(line, "; {} only in base", runs.base_only);
    }
    if runs.head_only > 0 {
        let _ = write!(line, "; {} only in head", runs.head_only);
    }
    line
}

fn pass_rate_text(rates: PassRates) -> String {
    let mut text = format!(
        "{} of {} -> {} of {}",
        rates.base.passed, rates.base.runs, rates.head.passed, rates.head.runs
    );
    if let Some(interval) = rates.interval {
        let _ = write!(
            text,
            "; 95% interval of the change {} to {} points, {}",
            interval.lower,
            interval.upper,
            if interval.significant {
                "significant"
            } else {
                "not significant"
            }
        );
    }
    text
}

/// Writes the diff as Markdown, for a pull-request comment: a heading with the verdict, a
/// table of the metrics that moved (regressed tests first), a collapsed detail per test that
/// moved, and the tests added and removed.
///
/// User text (test names, sources) is written as inline code, or, inside the HTML of a
/// `<summary>`, escaped as HTML inside `<code>`, so a test name cannot reshape the comment
/// or mention anyone.
pub fn render_diff_markdown(diff: &Diff, out: &mut dyn Write) -> io::Result<()> {
    if diff.regressed() {
        let regressed = diff.count(TestDiff::regressed);
        let added = diff.added.iter().filter(|t| fails_a_gate(t)).count();
        let mut parts = Vec::new();
        if regressed > 0 {
            parts.push(format!("{} regressed", plural(regressed, "test", "tests")));
        }
        if added > 0 {
            parts.push(if added == 1 {
                "1 added test fails".to_owned()
            } else {
                format!("{added} added tests fail")
            });
        }
        writeln!(out, "## trailgate diff: {}", parts.join(", "))?;
    } else {
        writeln!(out, "## trailgate diff: no regression")?;
    }
    writeln!(out)?;
    writeln!(out, "{}.", summary_line(diff))?;
    let moved: Vec<&TestDiff> = diff.moved_tests().collect();
    if moved
        .iter()
        .any(|t| t.metrics.iter().any(MetricDiff::moved))
    {
        writeln!(out)?;
        writeln!(out, "| | Test | Metric | Base | Head | Change |")?;
        writeln!(out, "| --- | --- | --- | ---: | ---: | ---: |")?;
        for test in &moved {
            for metric in test.metrics.iter().filter(|m| m.moved()) {
                writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} |",
                    status(test).to_lowercase(),
                    cell(&markdown(&test.name)),
                    cell(&markdown(&metric.name)),
                    value_text(metric.base),
                    value_text(metric.head),
                    change_text(metric)
                )?;
            }
        }
    }
    for test in &moved {
        markdown_details(test, out)?;
    }
    for (heading, tests) in [
        ("Added tests", &diff.added),
        ("Removed tests", &diff.removed),
    ] {
        if tests.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(out, "### {heading}")?;
        writeln!(out)?;
        for test in tests {
            writeln!(out, "- {}", one_side_line(test))?;
        }
    }
    Ok(())
}

fn one_side_line(test: &TestRead) -> String {
    let failing: Vec<String> = test
        .gates
        .iter()
        .filter(|g| g.failed())
        .map(|g| format!("{} (actual {})", markdown(&g.written()), g.actual))
        .collect();
    let mut line = format!(
        "{}: {}, {}",
        markdown(&test.name),
        verdict_word(test.passed),
        plural(test.runs, "run", "runs")
    );
    if !failing.is_empty() {
        let _ = write!(line, "; failing: {}", failing.join(", "));
    }
    line
}

fn markdown_details(test: &TestDiff, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "<details><summary><code>{}</code>: {}</summary>",
        html(&test.name),
        status(test).to_lowercase()
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "Verdict {} -> {}, {} -> {}.",
        verdict_word(test.base.passed),
        verdict_word(test.head.passed),
        plural(test.base.runs, "run", "runs"),
        plural(test.head.runs, "run", "runs"),
    )?;
    writeln!(out)?;
    writeln!(out, "| Metric | Base | Head | Change |")?;
    writeln!(out, "| --- | ---: | ---: | ---: |")?;
    for metric in &test.metrics {
        writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(&markdown(&metric.name)),
            value_text(metric.base),
            value_text(metric.head),
            change_text(metric)
        )?;
    }
    let gates: Vec<&GateDiff> = test
        .gates
        .iter()
        .filter(|g| g.change() != GateChange::Unchanged)
        .collect();
    if !gates.is_empty() {
        writeln!(out)?;
        writeln!(out, "Gates:")?;
        writeln!(out)?;
        for gate in gates {
            writeln!(out, "- {}", gate_text(gate, markdown))?;
        }
    }
    let runs = &test.runs;
    if runs.lined_up > 0 || runs.base_only > 0 || runs.head_only > 0 {
        writeln!(out)?;
        writeln!(out, "Runs: {}.", runs_line(test))?;
        if !runs.changed.is_empty() {
            writeln!(out)?;
        }
        for run in runs.changed.iter().take(LISTED_RUNS) {
            let word = if run.passes_now {
                "now passes"
            } else {
                "now fails"
            };
            writeln!(out, "- {word}: {}", markdown(&run_text(run)))?;
        }
        if let Some(more) = runs
            .changed
            .len()
            .checked_sub(LISTED_RUNS)
            .filter(|&n| n > 0)
        {
            writeln!(out, "- and {more} more; the JSON output lists every run")?;
        }
    }
    if let Some(rates) = test.pass_rate {
        writeln!(out)?;
        writeln!(out, "Runs passed: {}.", pass_rate_text(rates))?;
    }
    writeln!(out)?;
    writeln!(out, "</details>")
}

/// A table cell's content with its pipes escaped (see `markdown.rs`).
fn cell(content: &str) -> String {
    content.replace('|', "\\|")
}

/// Text inside raw HTML: escaped for a terminal, then `&`, `<`, `>` and `"` as entities.
fn html(value: &str) -> String {
    let mut out = String::new();
    for c in visible(value).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Writes GitHub Actions workflow commands for the diff: an `::error` for each gate that
/// newly fails (in a test of both reports, or in a test added), a `::warning` for each
/// significant drop in the runs' pass rate and each metric that worsened (fell, or rose for a
/// metric that is better lower), at most ten of each with a `::notice` counting the rest, then
/// the text output.
pub fn render_diff_github(diff: &Diff, out: &mut dyn Write) -> io::Result<()> {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for test in &diff.tests {
        for gate in test
            .gates
            .iter()
            .filter(|g| g.change() == GateChange::NewlyFailing)
        {
            errors.push((&test.name, gate_text(gate, plain)));
        }
        if let Some(rates) = test.pass_rate.filter(|r| {
            r.interval
                .is_some_and(super::PassRateInterval::significant_drop)
        }) {
            warnings.push((
                &test.name,
                format!("runs passed fell significantly: {}", pass_rate_text(rates)),
            ));
        }
        for metric in test.metrics.iter().filter(|m| m.worsened()) {
            warnings.push((
                &test.name,
                format!(
                    "{} {} from {} to {} ({})",
                    metric.name,
                    match Better::of(&metric.name) {
                        Better::Higher => "fell",
                        Better::Lower => "rose",
                    },
                    value_text(metric.base),
                    value_text(metric.head),
                    match Better::of(&metric.name) {
                        Better::Higher => change_text(metric),
                        Better::Lower => format!("{}; better lower", change_text(metric)),
                    }
                ),
            ));
        }
    }
    for test in &diff.added {
        for gate in test.gates.iter().filter(|g| g.failed()) {
            errors.push((
                &test.name,
                format!(
                    "new test, failing: {} (actual {})",
                    gate.written(),
                    gate.actual
                ),
            ));
        }
    }
    for (kind, list) in [("error", &errors), ("warning", &warnings)] {
        for (test, message) in list.iter().take(MAX_ANNOTATIONS) {
            writeln!(
                out,
                "::{kind} title={}::{}",
                github_property(&format!("trailgate diff: {test}")),
                github_data(message)
            )?;
        }
        let left_out = list.len().saturating_sub(MAX_ANNOTATIONS);
        if left_out > 0 {
            let message = format!(
                "trailgate diff: {left_out} more {kind}s not annotated (GitHub shows at most \
                 {MAX_ANNOTATIONS} per step); the full diff is in the job log"
            );
            writeln!(out, "::notice::{}", github_data(&message))?;
        }
    }
    render_diff_text(diff, TextOptions::with_color(false), out)
}
