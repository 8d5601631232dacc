//! Comparing 2 to 16 JSON reports of one suite, written for different agents, models or
//! settings (docs/baselines.md#comparing-agents-and-models): `trailgate compare A.json
//! B.json ...`.
//!
//! A matrix with a row per test and a column per report (the verdict, and a chosen metric);
//! how many tests each report passes; and for each report after the first, against the
//! first: b, the tests the first passes and it fails, c, the reverse, and McNemar's exact
//! test on them (`mcnemar.rs`). For a test with several runs in both, the change in pass
//! rate with Newcombe's interval, as `diff` shows it. A comparison judges nothing: no report
//! is better or worse, so it has no failing outcome.
//!
//! The reports are read by `diff`'s reader (`diff/read.rs`) with its refusals, under
//! `trailgate::compare::` codes. The outputs are in `render.rs` (text, Markdown), `json.rs`
//! and `html.rs`.

mod html;
mod json;
mod mcnemar;
mod render;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Seek};

use trailgate_expect::{MetricValue, Problem, SuiteError};

use self::mcnemar::PValue;
use crate::diff::read::{ReportRead, TestRead};
use crate::diff::{
    PassRateInterval, Reader, ReportFile, RunTally, pass_rate_interval, read_checked, run_tally,
    unreadable,
};
use crate::direction::Better;
use crate::merge::source::{At, fail};

pub use self::html::render_compare_html;
pub use self::json::{COMPARE_JSON_VERSION, render_compare_json};
pub use self::render::{render_compare_markdown, render_compare_text};

/// The fewest reports `compare` takes.
pub const MIN_COMPARED: usize = 2;
/// The most reports `compare` takes: a matrix wider than this is no longer read by people.
pub const MAX_COMPARED: usize = 16;

/// One report to compare, with the label its column shows.
#[derive(Debug)]
pub struct LabelledReport<R> {
    /// The column's label: `--label`, or the file's stem.
    pub label: String,
    /// The report.
    pub file: ReportFile<R>,
}

/// The comparison of several reports of one suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// The reports, in the order given; the first is the one the others are compared with.
    reports: Vec<Column>,
    /// The metric asked for (`--metric`), with the way it is better.
    metric: Option<Metric>,
    /// A row per test: the first report's tests in its order, then those only in later
    /// reports, in the order they first appear.
    rows: Vec<Row>,
    /// For each report after the first, in order: the pair of it and the first.
    against_first: Vec<Pair>,
}

/// One report as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Column {
    label: String,
    /// The file's name, as given.
    file: String,
    tests: usize,
    passed: usize,
}

/// The metric the matrix shows.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Metric {
    name: String,
    /// Which way it is better (`direction.rs`: `errors.rate` and `usage.*` lower).
    direction: Better,
}

impl Metric {
    fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            direction: Better::of(name),
        }
    }

    /// `higher` or `lower`.
    fn better(&self) -> &'static str {
        self.direction.as_str()
    }
}

/// One test, in every report.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    name: String,
    /// Per report, in order: the test there, or `None` where the report lacks it.
    cells: Vec<Option<Cell>>,
    /// Per report after the first: the change in pass rate against the first, where the
    /// test has several runs in both.
    rates: Vec<Option<RateChange>>,
}

impl Row {
    /// The reports whose metric value is the best of the row: none when fewer than two
    /// reports have the metric or they all have the same value.
    fn best(&self, metric: &Metric) -> Vec<bool> {
        let values: Vec<Option<MetricValue>> = self
            .cells
            .iter()
            .map(|cell| cell.as_ref().and_then(|c| c.metric))
            .collect();
        let present: BTreeSet<MetricValue> = values.iter().flatten().copied().collect();
        let best = if metric.direction == Better::Lower {
            present.first()
        } else {
            present.last()
        };
        let shown = values.iter().flatten().count() >= 2 && present.len() >= 2;
        values
            .iter()
            .map(|value| shown && value.is_some() && value.as_ref() == best)
            .collect()
    }
}

/// A test in one report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cell {
    passed: bool,
    runs: usize,
    /// The metric asked for, when the test has it.
    metric: Option<MetricValue>,
    /// How many runs passed, when the test has several.
    tally: Option<RunTally>,
}

/// A test's pass rate in the first report and in another, and the 95 % interval of the
/// change (the other's minus the first's), in points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RateChange {
    first: RunTally,
    other: RunTally,
    interval: Option<PassRateInterval>,
}

/// A report against the first, over the tests both have.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pair {
    /// The tests in both.
    in_both: usize,
    /// The tests the first passes and this one fails.
    b: usize,
    /// The tests the first fails and this one passes.
    c: usize,
    /// McNemar's exact p of b and c.
    p: PValue,
}

/// A report given to `compare` that cannot be read: opened, or read as it is streamed.
pub fn cannot_read(name: &str, error: &std::io::Error) -> SuiteError {
    unreadable(name, error, Reader::Compare)
}

/// Checks what can be checked before any report is read: 2 to 16 reports, one label per
/// report, no label twice. `files` are the reports' names, `labels` their labels, in order.
pub fn check_labels(files: &[&str], labels: &[&str]) -> Result<(), SuiteError> {
    if !(MIN_COMPARED..=MAX_COMPARED).contains(&files.len()) {
        return Err(SuiteError::detached(
            Problem::new(
                "trailgate::compare::count",
                format!(
                    "`compare` takes {MIN_COMPARED} to {MAX_COMPARED} reports; {} given",
                    files.len()
                ),
                "",
            )
            .with_help(
                "pass the JSON reports of one suite, the one to compare the others with first: \
                 `trailgate compare main.json other.json`",
            ),
        ));
    }
    if labels.len() != files.len() {
        return Err(SuiteError::detached(
            Problem::new(
                "trailgate::compare::labels",
                format!(
                    "{} labels for {} reports; give one label per report, or none",
                    labels.len(),
                    files.len()
                ),
                "",
            )
            .with_help("`--label NAME` labels the reports in order; without it, each report is labelled with its file's stem"),
        ));
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (index, label) in labels.iter().enumerate() {
        if let Some(&first) = seen.get(label) {
            return Err(SuiteError::detached(
                Problem::new(
                    "trailgate::compare::duplicate_label",
                    format!(
                        "`{}` and `{}` are both labelled `{label}`; each report's column needs \
                         a label of its own",
                        files[first], files[index]
                    ),
                    "",
                )
                .with_help(
                    "give each report its own label, in order: `--label NAME` once per report \
                     (without it, a report is labelled with its file's stem)",
                ),
            ));
        }
        seen.insert(label, index);
    }
    Ok(())
}

/// Compares 2 to 16 JSON reports of one suite, written by `trailgate check --format json`
/// (or `trailgate merge --format json`), each against the first; `metric` is the metric the
/// matrix shows, if any.
///
/// Refused with a diagnostic: fewer than 2 reports or more than 16, a label given twice, and,
/// naming the file, what `diff` refuses (a file that cannot be read, that is not JSON, not a
/// trailgate report, a report of another version, a shard's report, a report that names a
/// test twice), a test that says more runs passed than it has, a report with no test in
/// common with the first; and a metric no report has.
pub fn compare_reports<R: Read + Seek>(
    mut reports: Vec<LabelledReport<R>>,
    metric: Option<&str>,
) -> Result<Comparison, SuiteError> {
    let files: Vec<&str> = reports.iter().map(|r| r.file.name.as_str()).collect();
    let labels: Vec<&str> = reports.iter().map(|r| r.label.as_str()).collect();
    check_labels(&files, &labels)?;
    let mut reads = Vec::with_capacity(reports.len());
    let mut first_names: BTreeSet<String> = BTreeSet::new();
    let first_file = reports[0].file.name.clone();
    for (index, report) in reports.iter_mut().enumerate() {
        let base = (index > 0).then_some(first_file.as_str());
        let read = read_checked(&mut report.file, base, Reader::Compare)?;
        refuse_inconsistent(&mut report.file, &read)?;
        if index == 0 {
            first_names = read.tests.iter().map(|t| t.name.clone()).collect();
        } else if !read.tests.iter().any(|t| first_names.contains(&t.name)) {
            return Err(disjoint(&mut report.file, &first_file, &read));
        }
        reads.push(read);
    }
    if let Some(name) = metric
        && !reads
            .iter()
            .any(|read| read.tests.iter().any(|t| t.metrics.contains_key(name)))
    {
        return Err(unknown_metric(name, &reads));
    }
    let columns = reports
        .into_iter()
        .zip(&reads)
        .map(|(report, read)| Column {
            label: report.label,
            file: report.file.name,
            tests: read.tests.len(),
            passed: read.tests.iter().filter(|t| t.passed).count(),
        })
        .collect();
    Ok(comparison(columns, reads, metric.map(Metric::new)))
}

/// A test that says more of its runs passed than it has: no verdict is drawn from it.
fn refuse_inconsistent<R: Read + Seek>(
    file: &mut ReportFile<R>,
    read: &ReportRead,
) -> Result<(), SuiteError> {
    let Some((name, start)) = &read.inconsistent else {
        return Ok(());
    };
    let test = read.tests.iter().find(|t| &t.name == name);
    let (passed, runs) = test.map_or((0, 0), |t| (t.passed_runs.unwrap_or(0), t.runs));
    let problem = Problem::new(
        "trailgate::compare::counts",
        format!(
            "`{}` says {passed} runs of test `{name}` passed, of {runs}: more than it has",
            file.name
        ),
        "this test",
    )
    .with_help(
        "the report was edited or damaged; write it again with `trailgate check --format json`",
    );
    Err(fail(
        &file.name,
        &mut file.reader,
        problem,
        Some(At::Span(*start, 1)),
    ))
}

/// A report with no test of the first report's.
fn disjoint<R: Read + Seek>(
    file: &mut ReportFile<R>,
    first: &str,
    read: &ReportRead,
) -> SuiteError {
    let problem = Problem::new(
        "trailgate::compare::disjoint",
        format!(
            "`{}` has no test in common with `{first}`, the first report: {} tests, no name in \
             both",
            file.name,
            read.tests.len()
        ),
        "no test of this list is in the first report",
    )
    .with_help(
        "compare reports of the same suite, each written by `trailgate check --format json` \
         for one agent, model or setting",
    );
    fail(&file.name, &mut file.reader, problem, read.tests_at)
}

/// How many of the reports' metric names the help of an unknown metric lists.
const METRICS_SHOWN: usize = 12;

/// A `--metric` that no test of any report has.
fn unknown_metric(name: &str, reads: &[ReportRead]) -> SuiteError {
    let known: BTreeSet<&str> = reads
        .iter()
        .flat_map(|read| read.tests.iter())
        .flat_map(|test| test.metrics.keys().map(String::as_str))
        .collect();
    let shown: Vec<String> = known
        .iter()
        .take(METRICS_SHOWN)
        .map(|m| format!("`{m}`"))
        .collect();
    let help = if known.is_empty() {
        "the reports have no metric at all".to_owned()
    } else if known.len() > METRICS_SHOWN {
        format!(
            "the reports' metrics: {} and {} more",
            shown.join(", "),
            known.len() - METRICS_SHOWN
        )
    } else {
        format!("the reports' metrics: {}", shown.join(", "))
    };
    SuiteError::detached(
        Problem::new(
            "trailgate::compare::unknown_metric",
            format!("no test of any report has a metric `{name}`"),
            "",
        )
        .with_help(help),
    )
}

/// The comparison of the reports read, with their columns.
fn comparison(columns: Vec<Column>, reads: Vec<ReportRead>, metric: Option<Metric>) -> Comparison {
    let count = reads.len();
    let mut rows: Vec<Row> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for (report, read) in reads.into_iter().enumerate() {
        for test in read.tests {
            let cell = cell(&test, metric.as_ref());
            let at = *index.entry(test.name).or_insert_with_key(|name| {
                rows.push(Row {
                    name: name.clone(),
                    cells: vec![None; count],
                    rates: vec![None; count - 1],
                });
                rows.len() - 1
            });
            rows[at].cells[report] = Some(cell);
        }
    }
    let mut against_first: Vec<Pair> = (1..count)
        .map(|_| Pair {
            in_both: 0,
            b: 0,
            c: 0,
            p: PValue::ONE,
        })
        .collect();
    for row in &mut rows {
        let Some(Some(first)) = row.cells.first().copied() else {
            continue;
        };
        for (other, (pair, rate)) in row.cells[1..]
            .iter()
            .zip(against_first.iter_mut().zip(&mut row.rates))
        {
            let Some(other) = other else {
                continue;
            };
            pair.in_both += 1;
            pair.b += usize::from(first.passed && !other.passed);
            pair.c += usize::from(!first.passed && other.passed);
            *rate = first.tally.zip(other.tally).map(|(f, o)| RateChange {
                first: f,
                other: o,
                interval: pass_rate_interval(f, o),
            });
        }
    }
    for pair in &mut against_first {
        pair.p = mcnemar::mcnemar(pair.b, pair.c);
    }
    Comparison {
        reports: columns,
        metric,
        rows,
        against_first,
    }
}

fn cell(test: &TestRead, metric: Option<&Metric>) -> Cell {
    Cell {
        passed: test.passed,
        runs: test.runs,
        metric: metric.and_then(|m| test.metrics.get(&m.name).copied()),
        tally: run_tally(test),
    }
}

#[cfg(test)]
mod tests;
