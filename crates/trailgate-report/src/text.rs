//! The text report: per test, each grader's listing of the runs (its section), and each
//! gate with its verdict.

use std::io::{self, Write};

use trailgate_expect::{
    Key, MetricValue, Section, Stability, SuiteOutcome, Tally, TestOutcome, Verdict,
};
use unicode_width::UnicodeWidthStr;

use crate::escape::escape_terminal;
pub(crate) use crate::lines::Painter;
pub use crate::lines::TextOptions;
use crate::lines::{BOLD, Look, SKIP, render};
use crate::safe::Shown;

/// Writes the text report of a suite's outcome.
pub fn render_text(
    outcome: &SuiteOutcome,
    options: TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let painter = Painter::new(options);
    for (index, test) in outcome.tests.iter().enumerate() {
        if index > 0 {
            writeln!(out)?;
        }
        render_test(test, &painter, out)?;
    }
    if !outcome.notes.is_empty() {
        writeln!(out)?;
    }
    for note in &outcome.notes {
        writeln!(out, "note: {note}")?;
    }
    if let Some(line) = inconclusive_tests(outcome) {
        if outcome.notes.is_empty() {
            writeln!(out)?;
        }
        writeln!(out, "{line}")?;
    }
    write_footer(&painter, outcome.tally(), out)
}

/// "inconclusive: `a`, `b` (a `reliability.pass_rate` gate lies inside its interval; more
/// runs would settle it)": the tests with a gate whose verdict stands but that more runs
/// could change, when there are any.
pub(crate) fn inconclusive_tests(outcome: &SuiteOutcome) -> Option<String> {
    inconclusive_line(
        outcome
            .tests
            .iter()
            .filter(|test| test.gates.iter().any(|gate| gate.note.is_some()))
            .map(|test| test.name.as_str()),
    )
}

/// The line naming `names`, the tests with an inconclusive gate, when there are any.
pub(crate) fn inconclusive_line<'a>(names: impl Iterator<Item = &'a str>) -> Option<String> {
    let names: Vec<String> = names
        .map(|name| format!("`{}`", escape_terminal(name)))
        .collect();
    (!names.is_empty()).then(|| {
        format!(
            "inconclusive: {} (a gate lies inside its interval; more runs would settle it)",
            names.join(", ")
        )
    })
}

/// The last line: the suite's verdict and how many tests passed, after a blank line.
pub(crate) fn write_footer(painter: &Painter, tally: Tally, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    let total = tally.tests();
    writeln!(
        out,
        "{} {} {}: {}",
        painter.verdict(tally.passes()),
        total,
        if total == 1 { "test" } else { "tests" },
        tally.words()
    )
}

/// What a test's first line says of it besides its name.
pub(crate) struct Header<'a> {
    pub(crate) verdict: Verdict,
    /// Why the test is expected to fail, when it is marked.
    pub(crate) xfail: Option<&'a str>,
    pub(crate) runs: usize,
    /// With two runs or more (docs/reliability.md#flaky-tests-and-quarantine).
    pub(crate) stability: Option<Stability>,
    pub(crate) agent: Option<&'a str>,
}

/// A test's first line: its verdict, name, number of runs, stability and agent.
pub(crate) fn write_header(
    painter: &Painter,
    name: &str,
    header: &Header<'_>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let runs = header.runs;
    let stability = header
        .stability
        .map(|stability| format!(", {}", stability.as_str()))
        .unwrap_or_default();
    let agent = header
        .agent
        .map(|agent| format!(", agent {}", escape_terminal(agent)))
        .unwrap_or_default();
    writeln!(
        out,
        "{} {} ({runs} {}{stability}{agent})",
        painter.test_verdict(header.verdict),
        painter.paint(BOLD, &escape_terminal(name)),
        if runs == 1 { "run" } else { "runs" },
    )?;
    let Some(reason) = header.xfail else {
        return Ok(());
    };
    let reason = escape_terminal(reason);
    if header.verdict == Verdict::XPassed {
        writeln!(
            out,
            "  xpass: it passes now; remove its xfail mark (xfail: {reason})"
        )
    } else {
        writeln!(out, "  xfail: {reason}")
    }
}

fn render_test(test: &TestOutcome, painter: &Painter, out: &mut dyn Write) -> io::Result<()> {
    let header = Header {
        verdict: test.verdict(),
        xfail: test.xfail.as_deref(),
        runs: test.run_count,
        stability: test.stability(),
        agent: test.agent.as_deref(),
    };
    write_header(painter, &test.name, &header, out)?;
    write_listing(test, out)?;
    for section in test.sections() {
        render_section(test, &section, painter, out)?;
    }
    write_agents(test, out)?;
    write_run_verdicts(test, painter, out)?;
    writeln!(out, "  gates")?;
    for gate in &test.gates {
        if let Some(reason) = gate.skipped() {
            write_skipped(painter, &gate.written(), reason, out)?;
            continue;
        }
        write_gate(painter, gate.passed, &gate.written(), gate.actual, out)?;
        if let Some(note) = &gate.note {
            writeln!(out, "      {note}")?;
        }
    }
    Ok(())
}

/// The per-agent table (docs/reports.md#agents), when any call has an agent: per agent,
/// by name, its calls, failed calls and distinct tools, the names escaped and aligned.
fn write_agents(test: &TestOutcome, out: &mut dyn Write) -> io::Result<()> {
    if test.agents.is_empty() {
        return Ok(());
    }
    let rows: Vec<[String; 4]> = test
        .agents
        .rows()
        .map(|(agent, row)| {
            let tools: Vec<String> = row
                .tools
                .iter()
                .map(|tool| escape_terminal(tool).into_owned())
                .collect();
            [
                escape_terminal(agent).into_owned(),
                plural(row.calls, "call", "calls"),
                plural(row.errors, "error", "errors"),
                tools.join(", "),
            ]
        })
        .collect();
    let width = |column: usize| {
        rows.iter()
            .map(|row| row[column].width())
            .max()
            .unwrap_or(0)
    };
    let widths = [width(0), width(1), width(2)];
    writeln!(out, "  agents")?;
    for row in rows {
        write!(out, "   ")?;
        for (cell, width) in row.iter().zip(widths) {
            write!(out, " {cell}{}", " ".repeat(width - cell.width() + 1))?;
        }
        writeln!(out, " tools {}", row[3])?;
    }
    Ok(())
}

/// `1 call`, `2 calls`.
fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// For a test of several runs, how many passed every gate on their own metrics, and each
/// listed run's verdict (docs/reports.md#each-runs-verdict). A test of one run has its verdict
/// in its header.
fn write_run_verdicts(
    test: &TestOutcome,
    painter: &Painter,
    out: &mut dyn Write,
) -> io::Result<()> {
    if test.run_count < 2 {
        return Ok(());
    }
    writeln!(out, "  {}", runs_passed(test))?;
    for info in &test.runs {
        writeln!(
            out,
            "    {} run {}  {}",
            painter.verdict(info.passed),
            info.number,
            Shown(info)
        )?;
    }
    Ok(())
}

/// "runs: 2 of 3 passed every gate on their own".
pub(crate) fn runs_passed(test: &TestOutcome) -> String {
    format!(
        "runs: {} of {} passed every gate on their own",
        test.passed_runs, test.run_count
    )
}

/// A grader's listing: its heading, when it has one, each listed run with its rows (keys
/// aligned across the section), and its summary line.
fn render_section(
    test: &TestOutcome,
    section: &Section,
    painter: &Painter,
    out: &mut dyn Write,
) -> io::Result<()> {
    let look = Look::Text(painter);
    let indent = if let Some(heading) = &section.heading {
        writeln!(out, "  {}", render(heading, look))?;
        "    "
    } else {
        "  "
    };
    let width = section
        .runs
        .iter()
        .flat_map(|run| &run.rows)
        .filter_map(|row| row.key.as_ref().map(key_width))
        .fold(section.key_width, usize::max);
    for (info, run) in test.runs.iter().zip(&section.runs) {
        writeln!(
            out,
            "{indent}run {}  {}  {}",
            info.number,
            Shown(info),
            render(&run.status, look)
        )?;
        for row in &run.rows {
            match &row.key {
                Some(key) => {
                    let fill = " ".repeat(width.saturating_sub(key_width(key)));
                    let key = match key {
                        Key::Name(name) => escape_terminal(name).into_owned(),
                        Key::Mark(tone, word) => painter.tone(*tone, word),
                    };
                    writeln!(out, "{indent}  {key}{fill}  {}", render(&row.line, look))?;
                }
                None => writeln!(out, "{indent}  {}", render(&row.line, look))?,
            }
        }
        if let Some(footer) = &run.footer {
            writeln!(out, "{indent}  {}", render(footer, look))?;
        }
    }
    writeln!(out, "  {}", render(&section.summary, look))
}

/// How many columns a key takes, by display width, so that wide (CJK) names line up too.
fn key_width(key: &Key) -> usize {
    match key {
        Key::Name(name) => escape_terminal(name).width(),
        Key::Mark(_, word) => word.width(),
    }
}

/// When a test has more runs than its outcome lists, which ones are listed.
fn write_listing(test: &TestOutcome, out: &mut dyn Write) -> io::Result<()> {
    if let Some(line) = listing_note(test) {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

/// "listed: 20 of 36320 runs, the first with findings (1200 runs have findings); --format
/// json lists every run", when not every run is listed.
pub(crate) fn listing_note(test: &TestOutcome) -> Option<String> {
    if test.lists_every_run() {
        return None;
    }
    let findings = match test.runs_with_findings {
        0 => "no run has findings".to_owned(),
        1 => "1 run has findings".to_owned(),
        n => format!("{n} runs have findings"),
    };
    Some(format!(
        "listed: {} of {} runs, the first with findings ({findings}); --format json lists every run",
        test.runs.len(),
        test.run_count
    ))
}

/// The line of a gate on the baseline that had nothing to compare with: `SKIP`, the gate as
/// written, and why.
pub(crate) fn write_skipped(
    painter: &Painter,
    gate: &str,
    reason: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        out,
        "    {} {gate}  skipped: {}",
        painter.paint(SKIP, "SKIP"),
        escape_terminal(reason)
    )
}

/// A gate's line: its verdict, the gate as written, and the value it compared.
pub(crate) fn write_gate(
    painter: &Painter,
    passed: bool,
    gate: &str,
    actual: MetricValue,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        out,
        "    {} {gate}  (actual {actual})",
        painter.verdict(passed),
    )
}
