//! The text report: per test, each run's classes, unexpected calls and repeats, the
//! metrics, and each gate with its verdict.

use std::io::{self, Write};

use anstyle::{AnsiColor, Style};
use toolgate_core::{AccuracyCounts, AccuracyMetrics, ClassName, Counts, SelectionMetrics};
use toolgate_expect::{
    ArgumentCounts, CallAccuracyOutcome, Miss, NearMiss, SelectionOutcome, SuiteOutcome,
    TestOutcome, ToolCallsOutcome, ToolCorrectnessOutcome, Unmet, ValueMismatch,
};
use unicode_width::UnicodeWidthStr;

use crate::escape::escape_terminal;
use crate::safe::{Shown, visible};

/// How to render the text report.
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct TextOptions {
    /// Whether to style the output with ANSI colours.
    pub color: bool,
}

impl TextOptions {
    /// Options with colour on or off.
    pub fn with_color(color: bool) -> Self {
        Self { color }
    }
}

const PASS: Style = AnsiColor::Green.on_default().bold();
const FAIL: Style = AnsiColor::Red.on_default().bold();
const DIM: Style = Style::new().dimmed();
const BOLD: Style = Style::new().bold();

pub(crate) struct Painter {
    color: bool,
}

impl Painter {
    pub(crate) fn new(options: TextOptions) -> Self {
        Self {
            color: options.color,
        }
    }

    fn paint(&self, style: Style, text: &str) -> String {
        if self.color {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_owned()
        }
    }

    fn verdict(&self, passed: bool) -> String {
        if passed {
            self.paint(PASS, "PASS")
        } else {
            self.paint(FAIL, "FAIL")
        }
    }
}

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
    let passed = outcome.tests.iter().filter(|t| t.passed).count();
    write_footer(&painter, outcome.tests.len(), passed, out)
}

/// The last line: the suite's verdict and how many tests passed, after a blank line.
pub(crate) fn write_footer(
    painter: &Painter,
    total: usize,
    passed: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "{} {} {}: {passed} passed, {} failed",
        painter.verdict(passed == total),
        total,
        if total == 1 { "test" } else { "tests" },
        total - passed
    )
}

/// A test's first line: its verdict, name, number of runs and agent.
pub(crate) fn write_header(
    painter: &Painter,
    passed: bool,
    name: &str,
    runs: usize,
    agent: Option<&str>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let agent = agent
        .map(|agent| format!(", agent {}", escape_terminal(agent)))
        .unwrap_or_default();
    writeln!(
        out,
        "{} {} ({runs} {}{agent})",
        painter.verdict(passed),
        painter.paint(BOLD, &escape_terminal(name)),
        if runs == 1 { "run" } else { "runs" },
    )
}

fn render_test(test: &TestOutcome, painter: &Painter, out: &mut dyn Write) -> io::Result<()> {
    write_header(
        painter,
        test.passed,
        &test.name,
        test.run_count,
        test.agent.as_deref(),
        out,
    )?;
    write_listing(test, out)?;
    if let Some(selection) = &test.selection {
        render_selection(test, selection, painter, out)?;
    }
    if let Some(tool_calls) = &test.tool_calls {
        render_tool_calls(test, tool_calls, painter, out)?;
    }
    if let Some(correctness) = &test.tool_correctness {
        render_tool_correctness(test, correctness, painter, out)?;
    }
    if let Some(accuracy) = &test.call_accuracy {
        render_call_accuracy(test, accuracy, painter, out)?;
    }
    writeln!(out, "  gates")?;
    for gate in &test.gates {
        write_gate(
            painter,
            gate.passed,
            &gate.gate.to_string(),
            gate.actual.value(),
            out,
        )?;
    }
    Ok(())
}

fn render_selection(
    test: &TestOutcome,
    selection: &SelectionOutcome,
    painter: &Painter,
    out: &mut dyn Write,
) -> io::Result<()> {
    let width = selection
        .classes
        .iter()
        .map(|c| escape_terminal(c.as_str()).width())
        .max()
        .unwrap_or(0);
    for (info, run) in test.runs.iter().zip(&selection.runs) {
        let number = info.number;
        writeln!(
            out,
            "  run {number}  {}  ({} {})",
            Shown(info),
            info.calls,
            if info.calls == 1 { "call" } else { "calls" }
        )?;
        for (class, satisfied) in selection.classes.iter().zip(&run.satisfied_by) {
            let found = match satisfied {
                Some(called) => format!("{} (call {})", Shown(&called.tool), called.call),
                None => painter.paint(FAIL, "missed"),
            };
            writeln!(out, "    {}  {found}", pad(class, width))?;
        }
        for called in &run.unexpected {
            writeln!(
                out,
                "    {} {} (call {})",
                painter.paint(FAIL, "unexpected"),
                Shown(&called.tool),
                called.call
            )?;
        }
        for (called, class) in &run.repeats {
            let class =
                escape_terminal(selection.classes.get(*class).map_or("", ClassName::as_str));
            writeln!(
                out,
                "    {} {} (call {}, repeats {class})",
                painter.paint(DIM, "repeat"),
                Shown(&called.tool),
                called.call,
            )?;
        }
        writeln!(out, "    {}", counts_line(run.counts, run.metrics))?;
    }
    let scope = scope(test.run_count);
    writeln!(
        out,
        "  tool selection{scope}: {}",
        counts_line(selection.counts, selection.metrics)
    )
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

/// " over N runs" for an aggregate of several runs; nothing for one.
fn scope(runs: usize) -> String {
    if runs == 1 {
        String::new()
    } else {
        format!(" over {runs} runs")
    }
}

fn counts_line(counts: Counts, metrics: SelectionMetrics) -> String {
    format!(
        "TP {}  FP {}  FN {}  precision {}  recall {}  f1 {}",
        counts.true_positives,
        counts.false_positives,
        counts.false_negatives,
        metrics.precision,
        metrics.recall,
        metrics.f1
    )
}

/// A gate's line: its verdict, the gate as written, and the value it compared.
pub(crate) fn write_gate(
    painter: &Painter,
    passed: bool,
    gate: &str,
    actual: u8,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        out,
        "    {} {gate}  (actual {actual})",
        painter.verdict(passed),
    )
}

fn pad(class: &ClassName, width: usize) -> String {
    let name = escape_terminal(class.as_str());
    // Pad by display columns, so that wide (CJK) class names line up too.
    let fill = width.saturating_sub(name.width());
    format!("{name}{}", " ".repeat(fill))
}

fn render_tool_calls(
    test: &TestOutcome,
    outcome: &ToolCallsOutcome,
    painter: &Painter,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out, "  tool-calls")?;
    for (info, run) in test.runs.iter().zip(&outcome.runs) {
        let number = info.number;
        writeln!(
            out,
            "    run {number}  {}  {}",
            Shown(info),
            painter.verdict(run.passed)
        )?;
        for unmet in &run.unmet {
            let entry =
                escape_terminal(outcome.required.get(unmet.entry).map_or("", String::as_str));
            let count = matching_calls(unmet);
            let near = unmet
                .near_miss
                .as_ref()
                .map(|near| format!("; {}", near_miss(near)))
                .unwrap_or_default();
            writeln!(
                out,
                "      {} required {entry}: {count}{near}",
                painter.paint(FAIL, "unmet")
            )?;
        }
        for violation in &run.violations {
            let entry = escape_terminal(
                outcome
                    .disallowed
                    .get(violation.entry)
                    .map_or("", String::as_str),
            );
            writeln!(
                out,
                "      {} disallowed {entry}: call {} `{}`",
                painter.paint(FAIL, "broken"),
                violation.call,
                Shown(&violation.tool)
            )?;
        }
        if let Some(stopped) = run.sequence_stopped_at {
            let entry = escape_terminal(outcome.sequence.get(stopped).map_or("", String::as_str));
            let progress = sequence_progress(stopped);
            writeln!(
                out,
                "      {} sequence entry {} {entry}: {progress}",
                painter.paint(FAIL, "stopped"),
                stopped + 1
            )?;
        }
    }
    writeln!(
        out,
        "  tool calls: {} of {} {} passed  pass_rate {}",
        outcome.passed_runs,
        test.run_count,
        if test.run_count == 1 { "run" } else { "runs" },
        outcome.pass_rate
    )
}

/// How many calls matched an unmet required entry: "no matching call", or "1 of 3 matching
/// calls" for an entry with a `min_count`.
pub(crate) fn matching_calls(unmet: &Unmet) -> String {
    if unmet.needed > 1 {
        format!("{} of {} matching calls", unmet.found, unmet.needed)
    } else {
        "no matching call".to_owned()
    }
}

/// Why a sequence stopped at its 0-based entry `stopped`.
pub(crate) fn sequence_progress(stopped: usize) -> String {
    if stopped == 0 {
        "no call matches it".to_owned()
    } else {
        format!("no call after the match of entry {stopped} matches it")
    }
}

/// "call 2 `bash` has command `npm run lint`", and the like.
pub(crate) fn near_miss(near: &NearMiss) -> String {
    let what = match &near.miss {
        Miss::Field {
            field,
            found: Some(found),
        } => format!("has {field} `{}`", excerpt(found)),
        Miss::Field { field, found: None } => format!("has no {field}"),
        Miss::Step { step } => format!("is in step {step}"),
        Miss::NotFinal => "is not the final call".to_owned(),
        Miss::NoResult => "has no recorded result (only completed calls count)".to_owned(),
    };
    format!("call {} `{}` {what}", near.call, Shown(&near.tool))
}

/// Where an argument failed its matcher, as the reports word it: `path: expected M, found V`
/// (or `absent`), with `name` showing the path and `value` the matcher and the value, each
/// in its report's escaping.
pub(crate) fn mismatch_note(
    why: &ValueMismatch,
    name: impl Fn(&str) -> String,
    value: impl Fn(&str) -> String,
) -> String {
    let place = if why.path.is_empty() {
        String::new()
    } else {
        format!("{}: ", name(&why.path))
    };
    let found = why.actual.as_deref().map_or_else(
        || "absent".to_owned(),
        |actual| format!("found {}", value(actual)),
    );
    format!("{place}expected {}, {found}", value(&why.expected))
}

/// A value as one short line: control characters escaped (a newline shows as `\n`), cut
/// after 60 characters. The JSON report carries the whole value.
pub(crate) fn excerpt(value: &str) -> String {
    const LIMIT: usize = 60;
    let escaped = visible(value);
    if escaped.chars().count() <= LIMIT {
        escaped.into_owned()
    } else {
        let cut: String = escaped.chars().take(LIMIT).collect();
        format!("{cut}…")
    }
}

fn render_tool_correctness(
    test: &TestOutcome,
    outcome: &ToolCorrectnessOutcome,
    painter: &Painter,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out, "  tool-correctness ({})", outcome.mode)?;
    let width = outcome
        .expected
        .iter()
        .map(|e| escape_terminal(e).width())
        .max()
        .unwrap_or(0);
    for (info, run) in test.runs.iter().zip(&outcome.runs) {
        let number = info.number;
        let exact = match run.exact {
            Some(true) => "  exact match".to_owned(),
            Some(false) => format!("  {}", painter.paint(FAIL, "not an exact match")),
            None => String::new(),
        };
        writeln!(
            out,
            "    run {number}  {}  score {}{exact}",
            Shown(info),
            run.score
        )?;
        for (index, (expected, matched)) in outcome.expected.iter().zip(&run.matched).enumerate() {
            let late = run.out_of_order.get(index).and_then(Option::as_ref);
            let found = match (matched, late) {
                (Some(called), _) => format!("{} (call {})", Shown(&called.tool), called.call),
                (None, Some(called)) => format!(
                    "{} {} (call {})",
                    painter.paint(FAIL, "out of order:"),
                    Shown(&called.tool),
                    called.call
                ),
                (None, None) => painter.paint(FAIL, "missed"),
            };
            let expected = escape_terminal(expected);
            let fill = width.saturating_sub(expected.width());
            writeln!(out, "      {expected}{}  {found}", " ".repeat(fill))?;
        }
        for called in &run.extra {
            writeln!(
                out,
                "      {} {} (call {})",
                painter.paint(DIM, "extra"),
                Shown(&called.tool),
                called.call
            )?;
        }
    }
    let basis = match outcome.exact_runs {
        Some(exact) => format!("{exact} of {} runs exact", test.run_count),
        None => format!(
            "{} of {} expected tools found",
            outcome.matched, outcome.expected_total
        ),
    };
    writeln!(out, "  tool correctness: {basis}  score {}", outcome.score)
}

fn render_call_accuracy(
    test: &TestOutcome,
    outcome: &CallAccuracyOutcome,
    painter: &Painter,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out, "  call-accuracy")?;
    let expected = |index: usize| {
        outcome
            .expected
            .get(index)
            .map_or_else(String::new, |(tool, args)| {
                format!("{} {}", Shown(tool), Shown(args))
            })
    };
    for (info, run) in test.runs.iter().zip(&outcome.runs) {
        let number = info.number;
        writeln!(
            out,
            "    run {number}  {}  ({} {})",
            Shown(info),
            info.calls,
            if info.calls == 1 { "call" } else { "calls" }
        )?;
        for (index, called) in &run.correct {
            writeln!(
                out,
                "      correct    {} (call {})",
                expected(*index),
                called.call
            )?;
        }
        for mismatch in &run.incorrect {
            let keys = if mismatch.differing.is_empty() {
                String::new()
            } else {
                format!(
                    "; differs in {}",
                    escape_terminal(&mismatch.differing.join(", "))
                )
            };
            let why = mismatch.why.as_ref().map_or_else(String::new, |why| {
                format!(
                    "; {}",
                    mismatch_note(why, |path| escape_terminal(path).into_owned(), excerpt)
                )
            });
            let keys = format!("{keys}{why}");
            writeln!(
                out,
                "      {}  {}, call {} has {}{keys}",
                painter.paint(FAIL, "incorrect"),
                expected(mismatch.expected),
                mismatch.call.call,
                excerpt(&mismatch.args.get().to_string())
            )?;
        }
        for index in &run.missed {
            writeln!(
                out,
                "      {}     {}",
                painter.paint(FAIL, "missed"),
                expected(*index)
            )?;
        }
        for called in &run.extra {
            writeln!(
                out,
                "      {}      {} (call {})",
                painter.paint(DIM, "extra"),
                Shown(&called.tool),
                called.call
            )?;
        }
        writeln!(
            out,
            "      {}",
            accuracy_line(run.counts, run.metrics, run.arguments)
        )?;
    }
    let scope = scope(test.run_count);
    writeln!(
        out,
        "  call accuracy{scope}: {}",
        accuracy_line(outcome.counts, outcome.metrics, outcome.arguments)
    )
}

fn accuracy_line(
    counts: AccuracyCounts,
    metrics: AccuracyMetrics,
    arguments: ArgumentCounts,
) -> String {
    format!(
        "correct {} of {} expected, {} made  precision {}  recall {}  f1 {}  arguments {}",
        counts.correct,
        counts.expected,
        counts.actual,
        metrics.precision,
        metrics.recall,
        metrics.f1,
        arguments.percent()
    )
}
