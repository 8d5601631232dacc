//! The trend as JSON: a versioned document built from structs in declaration order, every
//! list in a defined order (the reports oldest first; the tests in the first report's order,
//! then the others as they appear; metrics by name).

use std::io::{self, Write};
use trailgate_expect::{MetricChange, MetricValue};

use serde::Serialize;

use super::{MetricTrend, Status, TestTrend, Trend};

/// The version of the trend's JSON layout. It changes only when a field changes meaning or
/// disappears; new fields may be added within a version.
pub const TREND_JSON_VERSION: u32 = 1;

#[derive(Serialize)]
struct TrendJson<'a> {
    version: u32,
    drifted: bool,
    reports: &'a [String],
    window: WindowJson,
    min_change: u32,
    summary: Summary,
    tests: Vec<TestJson<'a>>,
}

#[derive(Serialize)]
struct WindowJson {
    /// The window asked for (`--window`).
    size: usize,
    /// The index in `reports` of its first report.
    first: usize,
}

#[derive(Serialize)]
struct Summary {
    tests: usize,
    metrics: usize,
    drifts: usize,
    improved: usize,
    below_min_change: usize,
    steady: usize,
    too_few_values: usize,
}

#[derive(Serialize)]
struct TestJson<'a> {
    name: &'a str,
    drifts: bool,
    /// Whether each report has the test, oldest first.
    present: &'a [bool],
    metrics: Vec<MetricJson<'a>>,
}

#[derive(Serialize)]
struct MetricJson<'a> {
    name: &'a str,
    better: &'static str,
    /// One per report, oldest first; null where the report lacks it.
    values: &'a [Option<MetricValue>],
    status: &'static str,
    /// The window's first and last value that are there, with their report's index.
    first: Option<Point>,
    last: Option<Point>,
    /// `last - first`, when the window has two values.
    change: Option<MetricChange>,
    /// For `improved`: the indices of the reports of its first step in its better direction.
    #[serde(skip_serializing_if = "Option::is_none")]
    improved: Option<[usize; 2]>,
}

#[derive(Serialize)]
struct Point {
    report: usize,
    value: MetricValue,
}

/// Writes the trend as JSON, pretty-printed, with a trailing newline.
pub fn render_trend_json(trend: &Trend, out: &mut dyn Write) -> io::Result<()> {
    let document = TrendJson {
        version: TREND_JSON_VERSION,
        drifted: trend.drifted(),
        reports: &trend.reports,
        window: WindowJson {
            size: trend.options.window,
            first: trend.window_start,
        },
        min_change: trend.options.min_change,
        summary: Summary {
            tests: trend.tests.len(),
            metrics: trend.count(|_| true),
            drifts: trend.count(|s| s == Status::Drifts),
            improved: trend.count(|s| matches!(s, Status::Improved { .. })),
            below_min_change: trend.count(|s| s == Status::BelowMinChange),
            steady: trend.count(|s| s == Status::Steady),
            too_few_values: trend.count(|s| s == Status::TooFew),
        },
        tests: trend.tests.iter().map(|t| test(trend, t)).collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

fn test<'a>(trend: &Trend, test: &'a TestTrend) -> TestJson<'a> {
    TestJson {
        name: &test.name,
        drifts: test.drifts(),
        present: &test.present,
        metrics: test.metrics.iter().map(|m| metric(trend, m)).collect(),
    }
}

fn metric<'a>(trend: &Trend, metric: &'a MetricTrend) -> MetricJson<'a> {
    let ends = metric.ends(trend.window_start);
    let point = |(report, value): (usize, MetricValue)| Point { report, value };
    MetricJson {
        name: &metric.name,
        better: metric.better.as_str(),
        values: &metric.values,
        status: metric.status.as_str(),
        first: ends.map(|(first, _)| point(first)),
        last: ends
            .filter(|(a, b)| a.0 != b.0)
            .map(|(_, last)| point(last)),
        change: metric.change(trend.window_start),
        improved: match metric.status {
            Status::Improved { from, to } => Some([from, to]),
            _ => None,
        },
    }
}
