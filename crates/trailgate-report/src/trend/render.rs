//! The trend for people: the text output, the Markdown summary with a sparkline per metric,
//! and GitHub Actions workflow commands. Each shows the metrics that moved inside the window,
//! those of tests that drift first; the JSON output (`json.rs`) has every test and metric.

use std::fmt::Write as _;
use std::io::{self, Write};
use trailgate_expect::{MetricValue, names_percent};

use super::{MetricTrend, Status, TestTrend, Trend};
use crate::direction::Better;
use crate::escape::{escape_terminal, github_data, github_property, markdown};
use crate::lines::{BOLD, FAIL, PASS, Painter, TextOptions};

/// GitHub shows at most this many annotations of one kind per step.
const MAX_ANNOTATIONS: usize = 10;

/// The eight heights of a sparkline, lowest first.
const BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// `#3`: a report by its place among all the reports, counted from 1.
fn number(index: usize) -> String {
    format!("#{}", index + 1)
}

fn value_text(value: Option<MetricValue>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// The change over the window: `-34`, `+40`, and for a `usage.*` metric also its share of
/// the first value, rounded toward 0 (`+12 (+30%)`).
fn change_text(trend: &Trend, metric: &MetricTrend) -> String {
    let Some(change) = metric.change(trend.window_start) else {
        return "-".to_owned();
    };
    let mut text = change.to_string();
    if !names_percent(&metric.name)
        && let Some(((_, first), _)) = metric.ends(trend.window_start)
        && first > MetricValue::ZERO
    {
        let first = i128::try_from(first.millionths()).unwrap_or(i128::MAX);
        let share = change.millionths().saturating_mul(100) / first;
        let sign = if share > 0 { "+" } else { "" };
        let _ = write!(text, " ({sign}{share}%)");
    }
    text
}

/// The minimum change in words: `3 points`, or `3% of the first value` for `usage.*`.
fn min_change_text(trend: &Trend, metric: &str) -> String {
    let min = trend.options.min_change;
    if names_percent(metric) {
        plural(
            usize::try_from(min).unwrap_or(usize::MAX),
            "point",
            "points",
        )
    } else {
        format!("{min}% of the first value")
    }
}

/// What the window says of a metric, in words.
fn status_text(trend: &Trend, metric: &MetricTrend) -> String {
    let mut text = match metric.status {
        Status::Drifts => "drifts".to_owned(),
        Status::BelowMinChange => format!(
            "worse by less than {}, no drift",
            min_change_text(trend, &metric.name)
        ),
        Status::Improved { from, to } => {
            format!("better from {} to {}, no drift", number(from), number(to))
        }
        Status::Steady => "steady".to_owned(),
        Status::TooFew => "fewer than 2 values in the window".to_owned(),
    };
    if metric.better == Better::Lower {
        text.push_str(" (better lower)");
    }
    text
}

/// How many reports of the window have the test, when not all.
fn presence(trend: &Trend, test: &TestTrend) -> Option<String> {
    let window = trend.window();
    let total = window.len();
    let present = test
        .present
        .get(window)
        .map_or(0, |p| p.iter().filter(|&&here| here).count());
    (present < total).then(|| format!("in {present} of the {total} reports of the window"))
}

/// The moved metrics of a test, those that drift first, each in name order.
fn moved_metrics(test: &TestTrend) -> impl Iterator<Item = &MetricTrend> {
    let drifting = test.metrics.iter().filter(|m| m.drifts());
    let others = test.metrics.iter().filter(|m| !m.drifts() && m.moved());
    drifting.chain(others)
}

/// The last line's counts: `7 tests, 21 metrics: 4 drift, 1 better inside the window, ...`.
fn summary_line(trend: &Trend) -> String {
    let metrics = trend.count(|_| true);
    format!(
        "{}, {}: {} drift, {} better inside the window, {} worse by less than the minimum \
         change, {} steady, {} with fewer than 2 values in the window",
        plural(trend.tests.len(), "test", "tests"),
        plural(metrics, "metric", "metrics"),
        trend.count(|s| s == Status::Drifts),
        trend.count(|s| matches!(s, Status::Improved { .. })),
        trend.count(|s| s == Status::BelowMinChange),
        trend.count(|s| s == Status::Steady),
        trend.count(|s| s == Status::TooFew),
    )
}

/// The verdict in words: `4 metrics of 3 tests drift`, or `no metric drifts`.
fn verdict_words(trend: &Trend) -> String {
    let metrics = trend.count(|s| s == Status::Drifts);
    let tests = trend.tests.iter().filter(|t| t.drifts()).count();
    if metrics == 0 {
        "no metric drifts".to_owned()
    } else {
        format!(
            "{} of {} {}",
            plural(metrics, "metric", "metrics"),
            plural(tests, "test", "tests"),
            if metrics == 1 { "drifts" } else { "drift" }
        )
    }
}

/// What the window is and what a drift is, in one sentence.
fn rule_text(trend: &Trend) -> String {
    let window = trend.window();
    format!(
        "the window is the last {} ({} to {}); a metric drifts when it is never better from one \
         report to the next and its last value is worse than its first by at least {}",
        plural(window.len(), "report", "reports"),
        number(window.start),
        number(window.end.saturating_sub(1)),
        min_change_words(trend)
    )
}

/// The minimum change for every metric: `3 points`, and when a test has a `usage.*` metric,
/// `3 points (3% of the first value for usage.*)`.
fn min_change_words(trend: &Trend) -> String {
    let usage = trend
        .tests
        .iter()
        .flat_map(|t| &t.metrics)
        .any(|m| !names_percent(&m.name));
    let min = trend.options.min_change;
    let points = plural(
        usize::try_from(min).unwrap_or(usize::MAX),
        "point",
        "points",
    );
    if usage {
        format!("{points} ({min}% of the first value for `usage.*`)")
    } else {
        points
    }
}

/// Writes the trend as text: the reports numbered, the rule, each test whose metrics moved
/// inside the window (those with a drift first) with the series of each moved metric, its
/// change and what it says, and a verdict line.
pub fn render_trend_text(
    trend: &Trend,
    options: TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let painter = Painter::new(options);
    writeln!(
        out,
        "trailgate trend over {}, oldest first:",
        plural(trend.reports.len(), "report", "reports")
    )?;
    for (index, name) in trend.reports.iter().enumerate() {
        let before = if index < trend.window_start {
            " (before the window)"
        } else {
            ""
        };
        writeln!(out, "  {} {}{before}", number(index), escape_terminal(name))?;
    }
    let window = trend.window();
    writeln!(
        out,
        "Window: the last {} ({} to {}). Minimum change: {}.",
        plural(window.len(), "report", "reports"),
        number(window.start),
        number(window.end.saturating_sub(1)),
        min_change_words(trend)
    )?;
    writeln!(
        out,
        "A metric drifts when it is never better from one report to the next and its last value \
         is worse than its first by at least the minimum change."
    )?;
    let tests: Vec<&TestTrend> = trend.moved_tests().collect();
    if !tests.is_empty() {
        text_tests(trend, &tests, &painter, out)?;
    }
    writeln!(out)?;
    let verdict = if trend.drifted() {
        painter.paint(FAIL, "DRIFT")
    } else {
        painter.paint(PASS, "OK")
    };
    writeln!(
        out,
        "{verdict} {}; {}",
        verdict_words(trend),
        summary_line(trend)
    )
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// The tests, under one header row of the window's report numbers.
fn text_tests(
    trend: &Trend,
    tests: &[&TestTrend],
    painter: &Painter,
    out: &mut dyn Write,
) -> io::Result<()> {
    // Metric names come from the reports' files: shown inert, as any text read from a file.
    let rows: Vec<Vec<(String, &MetricTrend)>> = tests
        .iter()
        .map(|test| {
            moved_metrics(test)
                .map(|m| (escape_terminal(&m.name).into_owned(), m))
                .collect()
        })
        .collect();
    let window = trend.window();
    let name_width = rows
        .iter()
        .flatten()
        .map(|(name, _)| name.chars().count())
        .max()
        .unwrap_or(0);
    let value_width = window
        .clone()
        .map(|index| number(index).len())
        .chain(
            rows.iter()
                .flatten()
                .flat_map(|(_, m)| m.values.iter().map(|v| value_text(*v).len())),
        )
        .max()
        .unwrap_or(1);
    let changes: Vec<Vec<String>> = rows
        .iter()
        .map(|metrics| metrics.iter().map(|(_, m)| change_text(trend, m)).collect())
        .collect();
    let change_width = changes
        .iter()
        .flatten()
        .map(String::len)
        .chain(["change".len()])
        .max()
        .unwrap_or(0);
    writeln!(out)?;
    let mut header = format!("  {:<name_width$}", "");
    for index in window.clone() {
        let _ = write!(header, "  {:>value_width$}", number(index));
    }
    let _ = write!(header, "  {:>change_width$}", "change");
    writeln!(out, "{}", header.trim_end())?;
    for ((test, metrics), changes) in tests.iter().zip(&rows).zip(&changes) {
        let word = if test.drifts() {
            painter.paint(FAIL, "DRIFTING")
        } else {
            painter.paint(BOLD, "CHANGED")
        };
        let presence = presence(trend, test).map_or_else(String::new, |p| format!(" ({p})"));
        writeln!(
            out,
            "{word} {}{presence}",
            painter.paint(BOLD, &escape_terminal(&test.name))
        )?;
        for ((name, metric), change) in metrics.iter().zip(changes) {
            let mut line = format!("  {name:<name_width$}");
            for value in &metric.values[window.clone()] {
                let _ = write!(line, "  {:>value_width$}", value_text(*value));
            }
            let _ = write!(
                line,
                "  {change:>change_width$}  {}",
                status_text(trend, metric)
            );
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// A sparkline of the window's values: one block per report, its height between the
/// series' lowest and highest value (integer arithmetic), `·` for a report without it.
fn sparkline(trend: &Trend, metric: &MetricTrend) -> String {
    let values = &metric.values[trend.window()];
    let present = values.iter().flatten().copied();
    let (Some(low), Some(high)) = (present.clone().min(), present.max()) else {
        return String::new();
    };
    let span = high.millionths() - low.millionths();
    let steps = (BLOCKS.len() - 1) as u128;
    values
        .iter()
        .map(|value| match value {
            None => '·',
            // A flat series sits in the middle.
            Some(_) if span == 0 => BLOCKS[3],
            Some(v) => {
                let step = (v.millionths() - low.millionths()) * steps / span;
                BLOCKS[usize::try_from(step).unwrap_or(BLOCKS.len() - 1)]
            }
        })
        .collect()
}

/// The window's values in order: `100 → 80 → - → 75`.
fn series_text(trend: &Trend, metric: &MetricTrend) -> String {
    metric.values[trend.window()]
        .iter()
        .map(|v| value_text(*v))
        .collect::<Vec<_>>()
        .join(" → ")
}

/// A table cell's content with its pipes escaped (see `markdown.rs`).
fn cell(content: &str) -> String {
    content.replace('|', "\\|")
}

/// Writes the trend as Markdown, for a job summary or a pull-request comment: a heading with
/// the verdict, the reports and the rule, and a table of the metrics that moved inside the
/// window (those of tests that drift first), each with a sparkline of Unicode blocks, its
/// series, its change and what it says.
///
/// User text (test, metric and file names) is written as inline code, so a name cannot
/// reshape the table or mention anyone.
pub fn render_trend_markdown(trend: &Trend, out: &mut dyn Write) -> io::Result<()> {
    if trend.drifted() {
        writeln!(out, "## trailgate trend: {}", verdict_words(trend))?;
    } else {
        writeln!(out, "## trailgate trend: no drift")?;
    }
    writeln!(out)?;
    let reports: Vec<String> = trend
        .reports
        .iter()
        .enumerate()
        .map(|(index, name)| format!("{} {}", number(index), markdown(name)))
        .collect();
    writeln!(
        out,
        "{}, oldest first: {}; {}.",
        plural(trend.reports.len(), "report", "reports"),
        reports.join(", "),
        rule_text(trend)
    )?;
    let tests: Vec<&TestTrend> = trend.moved_tests().collect();
    if !tests.is_empty() {
        let window = trend.window();
        writeln!(out)?;
        writeln!(
            out,
            "| | Test | Metric | Trend | {} to {} | Change |",
            number(window.start),
            number(window.end.saturating_sub(1))
        )?;
        writeln!(out, "| --- | --- | --- | --- | --- | ---: |")?;
        for test in tests {
            let name = match presence(trend, test) {
                Some(presence) => format!("{} ({presence})", markdown(&test.name)),
                None => markdown(&test.name),
            };
            for metric in moved_metrics(test) {
                let status = status_text(trend, metric);
                let status = if metric.drifts() {
                    format!("**{status}**")
                } else {
                    status
                };
                writeln!(
                    out,
                    "| {status} | {} | {} | {} | {} | {} |",
                    cell(&name),
                    cell(&markdown(&metric.name)),
                    sparkline(trend, metric),
                    series_text(trend, metric),
                    change_text(trend, metric)
                )?;
            }
        }
    }
    writeln!(out)?;
    writeln!(out, "{}.", capitalized(&summary_line(trend)))
}

/// Writes GitHub Actions workflow commands for the trend: an `::error` for each metric that
/// drifts, at most ten with a `::notice` counting the rest, then the text output.
pub fn render_trend_github(trend: &Trend, out: &mut dyn Write) -> io::Result<()> {
    let mut errors = Vec::new();
    for test in &trend.tests {
        for metric in test.metrics.iter().filter(|m| m.drifts()) {
            let Some(((from, first), (to, last))) = metric.ends(trend.window_start) else {
                continue;
            };
            let lower = if metric.better == Better::Lower {
                ", better lower"
            } else {
                ""
            };
            errors.push((
                &test.name,
                format!(
                    "{} drifted from {first} to {last} ({}{lower}) over reports {} to {}: {}; \
                     never better from one report to the next, and worse by at least {}",
                    metric.name,
                    change_text(trend, metric),
                    number(from),
                    number(to),
                    series_text(trend, metric),
                    min_change_text(trend, &metric.name)
                ),
            ));
        }
    }
    for (test, message) in errors.iter().take(MAX_ANNOTATIONS) {
        writeln!(
            out,
            "::error title={}::{}",
            github_property(&format!("trailgate trend: {test}")),
            github_data(message)
        )?;
    }
    let left_out = errors.len().saturating_sub(MAX_ANNOTATIONS);
    if left_out > 0 {
        let message = format!(
            "trailgate trend: {left_out} more drifts not annotated (GitHub shows at most \
             {MAX_ANNOTATIONS} per step); the full trend is in the job log"
        );
        writeln!(out, "::notice::{}", github_data(&message))?;
    }
    render_trend_text(trend, TextOptions::with_color(false), out)
}
