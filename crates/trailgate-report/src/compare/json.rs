//! The comparison as JSON: a versioned document built from structs in declaration order,
//! every list in a defined order (the reports as given, the tests as the matrix shows them).

use std::io::{self, Write};
use trailgate_expect::MetricValue;

use serde::Serialize;

use super::{Cell, Comparison, Pair, RateChange, Row};
use crate::diff::{PassRateInterval, RunTally};

/// The version of the comparison's JSON layout. It changes only when a field changes meaning
/// or disappears; new fields may be added within a version.
pub const COMPARE_JSON_VERSION: u32 = 1;

#[derive(Serialize)]
struct CompareJson<'a> {
    version: u32,
    metric: Option<MetricJson<'a>>,
    reports: Vec<ReportJson<'a>>,
    tests: Vec<TestJson<'a>>,
}

#[derive(Serialize)]
struct MetricJson<'a> {
    name: &'a str,
    /// `higher` or `lower`.
    better: &'static str,
}

#[derive(Serialize)]
struct ReportJson<'a> {
    label: &'a str,
    file: &'a str,
    tests: usize,
    passed: usize,
    /// Against the first report; `null` for the first itself.
    against_first: Option<PairJson>,
}

#[derive(Serialize)]
struct PairJson {
    in_both: usize,
    b: usize,
    c: usize,
    /// McNemar's exact p, rounded up to four decimals.
    p: f64,
    /// Whether the exact p is below 0.05.
    significant: bool,
}

#[derive(Serialize)]
struct TestJson<'a> {
    name: &'a str,
    /// Per report, in order: the test there, or `null`.
    reports: Vec<Option<CellJson>>,
    /// Per report after the first, where the test has several runs in both: the change in
    /// pass rate against the first.
    pass_rates: Vec<RateJson<'a>>,
}

#[derive(Serialize)]
struct CellJson {
    passed: bool,
    runs: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    passed_runs: Option<usize>,
    /// The metric asked for; absent without `--metric`, `null` where the test lacks it.
    #[expect(
        clippy::option_option,
        reason = "three cases the JSON tells apart: no metric asked for, none, a value"
    )]
    #[serde(skip_serializing_if = "Option::is_none")]
    metric: Option<Option<MetricValue>>,
    /// Whether the value is the best of the row (absent without `--metric`).
    #[serde(skip_serializing_if = "Option::is_none")]
    best: Option<bool>,
}

#[derive(Serialize)]
struct RateJson<'a> {
    report: &'a str,
    first: RunTally,
    other: RunTally,
    interval: Option<PassRateInterval>,
}

/// Writes the comparison as JSON, pretty-printed, with a trailing newline.
pub fn render_compare_json(comparison: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    let pairs = std::iter::once(None).chain(comparison.against_first.iter().map(Some));
    let document = CompareJson {
        version: COMPARE_JSON_VERSION,
        metric: comparison.metric.as_ref().map(|m| MetricJson {
            name: &m.name,
            better: m.better(),
        }),
        reports: comparison
            .reports
            .iter()
            .zip(pairs)
            .map(|(report, pair)| ReportJson {
                label: &report.label,
                file: &report.file,
                tests: report.tests,
                passed: report.passed,
                against_first: pair.map(pair_json),
            })
            .collect(),
        tests: comparison
            .rows
            .iter()
            .map(|row| test(comparison, row))
            .collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

fn pair_json(pair: &Pair) -> PairJson {
    PairJson {
        in_both: pair.in_both,
        b: pair.b,
        c: pair.c,
        // The nearest double to a number of four decimals prints as those decimals.
        p: f64::from(pair.p.ten_thousandths()) / 10_000.0,
        significant: pair.p.significant(),
    }
}

fn test<'a>(comparison: &'a Comparison, row: &'a Row) -> TestJson<'a> {
    let metric = comparison.metric.as_ref();
    let best = metric.map(|m| row.best(m));
    TestJson {
        name: &row.name,
        reports: row
            .cells
            .iter()
            .enumerate()
            .map(|(index, cell)| {
                cell.as_ref().map(|cell: &Cell| CellJson {
                    passed: cell.passed,
                    runs: cell.runs,
                    passed_runs: cell.tally.map(|t| t.passed),
                    metric: metric.map(|_| cell.metric),
                    best: best.as_ref().map(|b| b[index]),
                })
            })
            .collect(),
        pass_rates: row
            .rates
            .iter()
            .zip(&comparison.reports[1..])
            .filter_map(|(rate, report)| rate.as_ref().map(|r| rate_json(&report.label, r)))
            .collect(),
    }
}

fn rate_json<'a>(label: &'a str, rate: &RateChange) -> RateJson<'a> {
    RateJson {
        report: label,
        first: rate.first,
        other: rate.other,
        interval: rate.interval,
    }
}
