//! The trend of a suite over several JSON reports (docs/baselines.md#trends): `trailgate trend
//! R1.json ... Rk.json`, oldest first.
//!
//! For each test and metric, the series of its values, one per report (a gap where the
//! report lacks the test or the metric). Inside the window (the last W reports), a metric
//! **drifts** when it never moves in its better direction from one report that has it to the
//! next, and its last value is worse than its first by at least the minimum change. The
//! numbers are the reports' own: nothing is scored again.
//!
//! The reports are read by `diff`'s reader (`diff/read.rs`), with its refusals. The outputs
//! are in `render.rs` (text, Markdown, GitHub workflow commands) and `json.rs`.

mod json;
mod render;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Seek};

use trailgate_expect::{MetricChange, MetricValue, Problem, SuiteError, names_percent};

use crate::diff::{Reader, ReportFile, read_checked, unreadable};
use crate::direction::Better;
use crate::merge::source::fail;

pub use self::json::{TREND_JSON_VERSION, render_trend_json};
pub use self::render::{render_trend_github, render_trend_markdown, render_trend_text};

/// What `trend` is asked: how many of the last reports it judges, and the smallest change
/// that is a drift.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TrendOptions {
    /// The window: the last `window` reports are judged (all of them when there are fewer).
    /// At least 2.
    pub window: usize,
    /// The smallest worsening that is a drift: points, or for a `usage.*` metric percent of
    /// the window's first value.
    pub min_change: u32,
}

impl TrendOptions {
    /// The default window, 5 reports.
    pub const DEFAULT_WINDOW: usize = 5;
    /// The default minimum change, 3 points.
    pub const DEFAULT_MIN_CHANGE: u32 = 3;

    /// A window of the last `window` reports and a minimum change of `min_change`.
    pub fn new(window: usize, min_change: u32) -> Self {
        Self { window, min_change }
    }
}

impl Default for TrendOptions {
    fn default() -> Self {
        Self::new(Self::DEFAULT_WINDOW, Self::DEFAULT_MIN_CHANGE)
    }
}

/// The trend of a suite's tests over several reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trend {
    /// The reports' names, oldest first.
    reports: Vec<String>,
    /// The index in `reports` of the window's first report.
    window_start: usize,
    options: TrendOptions,
    /// The tests in the first report's order, then the others in the order they appear.
    tests: Vec<TestTrend>,
}

/// One test over the reports.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TestTrend {
    name: String,
    /// Whether each report has the test, oldest first.
    present: Vec<bool>,
    /// Every metric any report gives the test, by name.
    metrics: Vec<MetricTrend>,
}

/// One metric of a test over the reports.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MetricTrend {
    name: String,
    better: Better,
    /// Its value in each report, oldest first; `None` where the report lacks it.
    values: Vec<Option<MetricValue>>,
    status: Status,
}

/// What the window says of a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Never better from one report to the next, and the last value worse than the first by
    /// at least the minimum change.
    Drifts,
    /// Never better, and worse in the end, by less than the minimum change.
    BelowMinChange,
    /// Better from the report `from` to the report `to` (indices into the reports: the first
    /// such step), so no drift, however it ends.
    Improved { from: usize, to: usize },
    /// The same value in every report of the window that has it.
    Steady,
    /// Fewer than two reports of the window have it: nothing to judge.
    TooFew,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Self::Drifts => "drifts",
            Self::BelowMinChange => "below_min_change",
            Self::Improved { .. } => "improved",
            Self::Steady => "steady",
            Self::TooFew => "too_few_values",
        }
    }
}

impl MetricTrend {
    /// The values inside the window that are there, with their report's index.
    fn judged(&self, window_start: usize) -> impl Iterator<Item = (usize, MetricValue)> + '_ {
        self.values
            .iter()
            .enumerate()
            .skip(window_start)
            .filter_map(|(index, value)| value.map(|v| (index, v)))
    }

    /// The first and the last value inside the window, with their report's index.
    fn ends(&self, window_start: usize) -> Option<((usize, MetricValue), (usize, MetricValue))> {
        let first = self.judged(window_start).next()?;
        let last = self.judged(window_start).last()?;
        Some((first, last))
    }

    /// The last value of the window minus its first, when it has two.
    fn change(&self, window_start: usize) -> Option<MetricChange> {
        let ((first, a), (last, b)) = self.ends(window_start)?;
        (first != last).then(|| a.change_to(b))
    }

    fn drifts(&self) -> bool {
        self.status == Status::Drifts
    }

    /// Whether its values inside the window are not all the same.
    fn moved(&self) -> bool {
        !matches!(self.status, Status::Steady | Status::TooFew)
    }
}

impl TestTrend {
    fn drifts(&self) -> bool {
        self.metrics.iter().any(MetricTrend::drifts)
    }

    fn moved(&self) -> bool {
        self.metrics.iter().any(MetricTrend::moved)
    }
}

impl Trend {
    /// Whether a metric of a test drifts: the exit code 1.
    pub fn drifted(&self) -> bool {
        self.tests.iter().any(TestTrend::drifts)
    }

    /// The tests with a drifting metric, then the others whose metrics moved inside the
    /// window, each in the tests' order.
    fn moved_tests(&self) -> impl Iterator<Item = &TestTrend> {
        let drifting = self.tests.iter().filter(|t| t.drifts());
        let others = self.tests.iter().filter(|t| !t.drifts() && t.moved());
        drifting.chain(others)
    }

    /// How many metrics of all tests have this status.
    fn count(&self, keep: impl Fn(Status) -> bool) -> usize {
        self.tests
            .iter()
            .flat_map(|t| &t.metrics)
            .filter(|m| keep(m.status))
            .count()
    }

    /// The indices of the reports inside the window.
    fn window(&self) -> std::ops::Range<usize> {
        self.window_start..self.reports.len()
    }
}

/// Whether a metric whose window starts at `first` and ends at `last` worsened by at least
/// `min_change` (docs/baselines.md#trends): points, or for a `usage.*` metric percent of
/// `first`, compared exactly in integers (`100 × worsening ≥ P × first`).
fn meets_min_change(
    name: &str,
    better: Better,
    first: MetricValue,
    last: MetricValue,
    min_change: u32,
) -> bool {
    // In millionths: the share of `first` is a ratio, the same in any unit.
    let worse = better.worsening(first, last);
    let first = i128::try_from(first.millionths()).unwrap_or(i128::MAX);
    if names_percent(name) {
        let points = i128::try_from(MetricValue::whole(u128::from(min_change)).millionths());
        worse >= points.unwrap_or(i128::MAX)
    } else {
        worse.saturating_mul(100) >= i128::from(min_change).saturating_mul(first)
    }
}

/// What the window of `values` (from `window_start` on) says of a metric.
fn judge(
    name: &str,
    values: &[Option<MetricValue>],
    window_start: usize,
    min_change: u32,
) -> Status {
    let better = Better::of(name);
    let judged: Vec<(usize, MetricValue)> = values
        .iter()
        .enumerate()
        .skip(window_start)
        .filter_map(|(index, value)| value.map(|v| (index, v)))
        .collect();
    let (Some(&(_, first)), Some(&(_, last))) = (judged.first(), judged.last()) else {
        return Status::TooFew;
    };
    if judged.len() < 2 {
        return Status::TooFew;
    }
    let improved = judged
        .windows(2)
        .find(|pair| better.worsening(pair[0].1, pair[1].1) < 0);
    if let Some(pair) = improved {
        return Status::Improved {
            from: pair[0].0,
            to: pair[1].0,
        };
    }
    if better.worsening(first, last) == 0 {
        // Never better and no worse in the end: every value is the first.
        Status::Steady
    } else if meets_min_change(name, better, first, last, min_change) {
        Status::Drifts
    } else {
        Status::BelowMinChange
    }
}

/// The trend of the reports' metrics, judged over the window of `options`.
///
/// Refused with a diagnostic naming the file: fewer than two reports, a window of fewer
/// than two, any refusal of `diff`'s reader (a file that cannot be read, that is not JSON,
/// not a trailgate report, a report of another version, a shard's report, a report that
/// names a test twice or holds a metric outside 0..100), and a report with no test name in
/// common with the first.
pub fn trend_reports<R: Read + Seek>(
    mut files: Vec<ReportFile<R>>,
    options: TrendOptions,
) -> Result<Trend, SuiteError> {
    if files.len() < 2 {
        return Err(SuiteError::detached(
            Problem::new(
                "trailgate::trend::too_few",
                format!(
                    "`trend` needs at least 2 reports to follow a metric, and was given {}",
                    files.len()
                ),
                "",
            )
            .with_help(
                "pass the JSON reports of one suite oldest first, e.g. the reports kept by \
                 the last CI runs on main",
            ),
        ));
    }
    if options.window < 2 {
        return Err(SuiteError::detached(
            Problem::new(
                "trailgate::trend::window",
                format!(
                    "a window of {} report cannot show a change; the window is at least 2",
                    options.window
                ),
                "",
            )
            .with_help("`--window 2` compares the last two reports; the default is 5"),
        ));
    }
    let mut reports: Vec<ReportMetrics> = Vec::new();
    let first_name = files[0].name.clone();
    // The first report's test names: every other report shares one of them.
    let mut first_names: BTreeSet<String> = BTreeSet::new();
    for (index, file) in files.iter_mut().enumerate() {
        let base = (index > 0).then_some(first_name.as_str());
        let read = read_checked(file, base, Reader::Trend)?;
        let tests: Vec<TestMetrics> = read
            .tests
            .into_iter()
            .map(|test| (test.name, test.metrics))
            .collect();
        if index == 0 {
            first_names = tests.iter().map(|(name, _)| name.clone()).collect();
        } else if !tests.iter().any(|(name, _)| first_names.contains(name)) {
            let problem = Problem::new(
                "trailgate::trend::disjoint",
                format!(
                    "`{}` has no test in common with `{first_name}`: {} and {} tests, no name \
                     in both",
                    file.name,
                    tests.len(),
                    first_names.len()
                ),
                "no test of this list is in the first report",
            )
            .with_help(
                "follow the reports of one suite, each written by `trailgate check --format \
                 json`; a report of another suite has other tests",
            );
            return Err(fail(&file.name, &mut file.reader, problem, read.tests_at));
        }
        reports.push(ReportMetrics {
            name: file.name.clone(),
            tests,
        });
    }
    Ok(follow(reports, options))
}

/// A report given to `trend` that cannot be read: opened, or read as it is streamed.
pub fn cannot_read(name: &str, error: &std::io::Error) -> SuiteError {
    unreadable(name, error, Reader::Trend)
}

/// A test's name and its metrics, as one report gives them.
type TestMetrics = (String, BTreeMap<String, MetricValue>);

/// What `trend` keeps of a report once it is read: its name and its tests' metrics.
struct ReportMetrics {
    name: String,
    tests: Vec<TestMetrics>,
}

/// A test as the reports are followed: whether each report has it, and each metric's values.
struct Followed {
    name: String,
    present: Vec<bool>,
    series: BTreeMap<String, Vec<Option<MetricValue>>>,
}

/// The trend of reports read, oldest first.
fn follow(reports: Vec<ReportMetrics>, options: TrendOptions) -> Trend {
    let count = reports.len();
    let window_start = count.saturating_sub(options.window);
    let mut order: BTreeMap<String, usize> = BTreeMap::new();
    let mut tests: Vec<Followed> = Vec::new();
    let mut names = Vec::with_capacity(count);
    for (index, report) in reports.into_iter().enumerate() {
        names.push(report.name);
        for (test, metrics) in report.tests {
            let at = *order.entry(test.clone()).or_insert_with(|| {
                tests.push(Followed {
                    name: test,
                    present: vec![false; count],
                    series: BTreeMap::new(),
                });
                tests.len() - 1
            });
            let followed = &mut tests[at];
            followed.present[index] = true;
            for (metric, value) in metrics {
                followed
                    .series
                    .entry(metric)
                    .or_insert_with(|| vec![None; count])[index] = Some(value);
            }
        }
    }
    let tests = tests
        .into_iter()
        .map(
            |Followed {
                 name,
                 present,
                 series,
             }| TestTrend {
                name,
                present,
                metrics: series
                    .into_iter()
                    .map(|(metric, values)| MetricTrend {
                        status: judge(&metric, &values, window_start, options.min_change),
                        better: Better::of(&metric),
                        name: metric,
                        values,
                    })
                    .collect(),
            },
        )
        .collect();
    Trend {
        reports: names,
        window_start,
        options,
        tests,
    }
}

#[cfg(test)]
mod tests;
