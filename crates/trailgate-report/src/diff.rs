//! Comparing two JSON reports of one suite (docs/baselines.md): `trailgate diff BASE.json
//! HEAD.json`.
//!
//! Tests are matched by name. For each test in both: each metric's base and head value and
//! their difference, each gate's verdict on both sides, and, for the runs both reports list
//! with the same source and line, the runs whose verdict changed. Tests only in one report
//! are added or removed. The numbers are the reports' own: nothing is scored again.
//!
//! A report is read as a stream (`read.rs`), keeping a few words per run, so a report of
//! tens of thousands of runs is compared in megabytes. The outputs are in `render.rs`
//! (text, Markdown, GitHub workflow commands) and `json.rs`.

mod baseline;
mod json;
pub(crate) mod read;
mod render;

use std::collections::{BTreeMap, VecDeque};
use std::io::{Read, Seek};
use std::rc::Rc;

use serde_json::error::Category;
use trailgate_core::reliability::{Confidence, difference_interval};
use trailgate_expect::{MetricChange, MetricValue, Problem, SuiteError};

use self::read::{GateRead, ReadError, ReportRead, TestRead, read_report};
use crate::direction::Better;
use crate::json::{JSON_VERSION, OLDEST_READ_VERSION};
use crate::merge::source::{At, fail, json_message, offset_of};

pub use self::baseline::read_baseline;
pub use self::json::{DIFF_JSON_VERSION, render_diff_json};
pub use self::render::{render_diff_github, render_diff_markdown, render_diff_text};

/// One report to compare: its name, for diagnostics and the text output, and its bytes.
#[derive(Debug)]
pub struct ReportFile<R> {
    /// The file's name, as given on the command line.
    pub name: String,
    /// Its content: a file, or bytes in memory (`io::Cursor`).
    pub reader: R,
}

/// The comparison of two reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    base: Side,
    head: Side,
    /// The tests of both reports, in the head report's order.
    tests: Vec<TestDiff>,
    /// The tests only the head report has, in its order.
    added: Vec<TestRead>,
    /// The tests only the base report has, in its order.
    removed: Vec<TestRead>,
}

/// One report as a whole: its file's name, how many tests it has and how many passed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Side {
    name: String,
    tests: usize,
    passed: usize,
}

/// One test of both reports.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TestDiff {
    name: String,
    base: Verdict,
    head: Verdict,
    /// Every metric of either side, by name.
    metrics: Vec<MetricDiff>,
    /// The head's gates in its order, each with the base's gate of the same target and
    /// operator (the first with the first, ...); then the base's gates the head lacks.
    gates: Vec<GateDiff>,
    runs: RunsDiff,
    /// How many runs passed on each side, when every run of both has a verdict and both
    /// have several runs.
    pass_rate: Option<PassRates>,
}

/// A test's verdict and number of runs in one report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Verdict {
    passed: bool,
    runs: usize,
}

/// One metric of a test: its value in each report that has it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MetricDiff {
    name: String,
    base: Option<MetricValue>,
    head: Option<MetricValue>,
}

impl MetricDiff {
    /// Head minus base, in the metric's units, when both have the metric.
    fn change(&self) -> Option<MetricChange> {
        Some(self.base?.change_to(self.head?))
    }

    /// How much worse the head's value is than the base's, in the metric's better direction
    /// (docs/baselines.md#which-way-is-better), when both have the metric.
    fn worsening(&self) -> Option<i128> {
        let (base, head) = self.base.zip(self.head)?;
        Some(Better::of(&self.name).worsening(base, head))
    }

    /// Whether the metric is worse in the head report: lower, or higher for a metric that is
    /// better lower (`errors.rate`).
    fn worsened(&self) -> bool {
        self.worsening().is_some_and(|worse| worse > 0)
    }

    /// Whether the metric is better in the head report.
    fn improved(&self) -> bool {
        self.worsening().is_some_and(|worse| worse < 0)
    }

    /// Whether the metric differs between the reports, or only one has it.
    fn moved(&self) -> bool {
        self.base != self.head
    }
}

/// One gate of a test: its value, the metric's value and its verdict in each report that
/// has it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct GateDiff {
    target: String,
    op: String,
    /// For a gate on the baseline: its expression, in the head report or else the base's.
    expression: Option<String>,
    base: Option<GateSide>,
    head: Option<GateSide>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct GateSide {
    /// `None` for a skipped gate on the baseline.
    value: Option<MetricValue>,
    actual: MetricValue,
    /// `None` for a skipped gate, which neither passes nor fails.
    passed: Option<bool>,
}

impl From<&GateRead> for GateSide {
    fn from(gate: &GateRead) -> Self {
        Self {
            value: gate.value,
            actual: gate.actual,
            passed: gate.passed,
        }
    }
}

/// How a gate's verdict changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GateChange {
    /// It fails in the head report and did not fail in the base report: it passed there, or
    /// was not there.
    NewlyFailing,
    /// It failed in the base report and passes in the head report.
    NewlyPassing,
    /// The same verdict in both.
    Unchanged,
    /// Only in the head report, where it passes.
    Added,
    /// Only in the base report.
    Removed,
}

impl GateChange {
    fn as_str(self) -> &'static str {
        match self {
            Self::NewlyFailing => "newly_failing",
            Self::NewlyPassing => "newly_passing",
            Self::Unchanged => "unchanged",
            Self::Added => "added",
            Self::Removed => "removed",
        }
    }
}

impl GateDiff {
    fn change(&self) -> GateChange {
        // A skipped gate fails nothing: it counts as holding.
        let holds = |g: GateSide| g.passed != Some(false);
        match (self.base.map(holds), self.head.map(holds)) {
            (Some(true) | None, Some(false)) => GateChange::NewlyFailing,
            (Some(false), Some(true)) => GateChange::NewlyPassing,
            (None, Some(true)) => GateChange::Added,
            (_, None) => GateChange::Removed,
            (Some(_), Some(_)) => GateChange::Unchanged,
        }
    }

    /// The gate as written in the head report, or else in the base report.
    fn written(&self) -> String {
        let value = self.head.or(self.base).and_then(|g| g.value);
        match (&self.expression, value) {
            (Some(expression), Some(value)) => {
                format!("{} {} {expression} (so {value})", self.target, self.op)
            }
            (Some(expression), None) => format!("{} {} {expression}", self.target, self.op),
            (None, value) => format!(
                "{} {} {}",
                self.target,
                self.op,
                value.map_or_else(String::new, |v| v.to_string())
            ),
        }
    }
}

/// The runs of a test that both reports list, lined up by source and line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct RunsDiff {
    /// Runs with the same source and line in both reports.
    lined_up: usize,
    /// Of those, the runs with a verdict in both.
    judged: usize,
    /// Listed runs with no counterpart in the other report.
    base_only: usize,
    head_only: usize,
    /// The lined-up runs whose verdict changed: those that now fail first, then those that
    /// now pass, each in the head report's run order.
    changed: Vec<RunChange>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct RunChange {
    source: Rc<str>,
    line: Option<u64>,
    base_run: usize,
    head_run: usize,
    /// Whether the run passes in the head report (and so failed in the base report).
    passes_now: bool,
}

/// How many runs passed in each report, by the runs' verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PassRates {
    base: RunTally,
    head: RunTally,
    interval: Option<PassRateInterval>,
}

/// `passed` of `runs` runs passed; serialized as the JSON of `diff` and `compare` write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub(crate) struct RunTally {
    pub(crate) passed: usize,
    pub(crate) runs: usize,
}

/// The 95 % interval of the change in pass rate (head minus base), in points; serialized
/// as the JSON of `diff` and `compare` write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub(crate) struct PassRateInterval {
    /// The lower bound, rounded down.
    pub(crate) lower: i16,
    /// The upper bound, rounded up.
    pub(crate) upper: i16,
    /// Whether the interval excludes 0 (`DifferenceInterval::is_significant`).
    pub(crate) significant: bool,
}

impl PassRateInterval {
    /// Whether the pass rate fell, and the interval says the fall is unlikely to be sampling
    /// alone.
    fn significant_drop(self) -> bool {
        self.significant && self.upper < 0
    }

    /// Whether the pass rate rose, significantly.
    fn significant_rise(self) -> bool {
        self.significant && self.lower > 0
    }
}

/// The 95 % interval for the difference of the two pass rates, head minus base (docs/baselines.md:
/// Newcombe's hybrid score method, from the two Wilson intervals of docs/reliability.md), computed
/// exactly by `trailgate_core::reliability`.
///
/// `None` only for counts that are not counts of runs (no run, or more passed than ran),
/// which a report written by `check` never holds.
pub(crate) fn pass_rate_interval(base: RunTally, head: RunTally) -> Option<PassRateInterval> {
    let count = |n: usize| u64::try_from(n).ok();
    let head = (count(head.runs)?, count(head.passed)?);
    let base = (count(base.runs)?, count(base.passed)?);
    let interval = difference_interval(head, base, Confidence::NinetyFive).ok()?;
    Some(PassRateInterval {
        lower: i16::from(interval.lower.value()),
        upper: i16::from(interval.upper.value()),
        significant: interval.is_significant(),
    })
}

impl TestDiff {
    /// Whether a gate newly fails, a metric worsened, or the runs' pass rate fell significantly
    /// (`docs/baselines.md`, "What regressed": a significant drop is a regression even when
    /// no metric or gate moved, a drop that is not significant is not one by itself).
    fn regressed(&self) -> bool {
        self.gates
            .iter()
            .any(|g| g.change() == GateChange::NewlyFailing)
            || self.metrics.iter().any(MetricDiff::worsened)
            || self
                .pass_rate_interval()
                .is_some_and(PassRateInterval::significant_drop)
    }

    /// Whether a gate newly passes, a metric improved, or the pass rate rose significantly.
    fn improved(&self) -> bool {
        self.gates
            .iter()
            .any(|g| g.change() == GateChange::NewlyPassing)
            || self.metrics.iter().any(MetricDiff::improved)
            || self
                .pass_rate_interval()
                .is_some_and(PassRateInterval::significant_rise)
    }

    /// Whether anything differs: a metric, a gate's verdict, a gate added or removed, a
    /// run's verdict, the number of runs that passed.
    fn moved(&self) -> bool {
        self.metrics.iter().any(MetricDiff::moved)
            || self
                .gates
                .iter()
                .any(|g| g.change() != GateChange::Unchanged)
            || !self.runs.changed.is_empty()
            || self.pass_rate.is_some_and(|r| r.base != r.head)
    }

    fn pass_rate_interval(&self) -> Option<PassRateInterval> {
        self.pass_rate.and_then(|rates| rates.interval)
    }
}

/// Whether an added test fails a gate: a gate that did not fail before fails now.
fn fails_a_gate(test: &TestRead) -> bool {
    test.gates.iter().any(GateRead::failed)
}

impl Diff {
    /// Whether something regressed: a gate of a test in both reports that passed now fails,
    /// a gate that was not there fails, a test added fails a gate, a metric worsened, or a
    /// pass rate fell significantly.
    pub fn regressed(&self) -> bool {
        self.tests.iter().any(TestDiff::regressed) || self.added.iter().any(fails_a_gate)
    }

    /// The tests in both reports that regressed, then the others that moved, each in the
    /// head report's order.
    fn moved_tests(&self) -> impl Iterator<Item = &TestDiff> {
        let regressed = self.tests.iter().filter(|t| t.regressed());
        let others = self.tests.iter().filter(|t| !t.regressed() && t.moved());
        regressed.chain(others)
    }

    fn count(&self, keep: impl Fn(&TestDiff) -> bool) -> usize {
        self.tests.iter().filter(|t| keep(t)).count()
    }
}

/// Compares two JSON reports of one suite, written by `trailgate check --format json` (or
/// `trailgate merge --format json`).
///
/// Refused with a diagnostic naming the file: a file that cannot be read, that is not JSON
/// (with its line and column), not a trailgate report, a report of another version, a shard's
/// report, a report that names a test twice, and two reports with no test in common.
pub fn diff_reports<R: Read + Seek>(
    mut base: ReportFile<R>,
    mut head: ReportFile<R>,
) -> Result<Diff, SuiteError> {
    let base_read = read_checked(&mut base, None, Reader::Diff)?;
    let head_read = read_checked(&mut head, Some(&base.name), Reader::Diff)?;
    let tests_at = head_read.tests_at;
    let diff = compare(&base.name, base_read, &head.name, head_read);
    if diff.tests.is_empty() {
        let problem = Problem::new(
            "trailgate::diff::disjoint",
            format!(
                "`{}` and `{}` have no test in common: {} and {} tests, no name in both",
                base.name,
                head.name,
                diff.removed.len(),
                diff.added.len()
            ),
            "no test of this list is in the base report",
        )
        .with_help(
            "compare two reports of the same suite, e.g. main's report and this branch's, \
             both written by `trailgate check --format json`",
        );
        return Err(fail(&head.name, &mut head.reader, problem, tests_at));
    }
    Ok(diff)
}

/// Who reads a report, for the words of its refusals: `diff`, `check --baseline`, `trend` or
/// `compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reader {
    Diff,
    Baseline,
    Trend,
    Compare,
}

impl Reader {
    /// The refusal's code: `diff`'s, the baseline's, or `trend`'s or `compare`'s (`diff`'s
    /// under `trailgate::trend::` or `trailgate::compare::`).
    fn code(self, diff: &'static str, baseline: &'static str) -> &'static str {
        match self {
            Self::Diff => diff,
            Self::Baseline => baseline,
            Self::Trend => other_code(diff, |codes| codes.1),
            Self::Compare => other_code(diff, |codes| codes.2),
        }
    }

    /// The help of a refusal of the file itself.
    fn help(self) -> &'static str {
        match self {
            Self::Diff => "pass two JSON reports written by `trailgate check --format json`",
            Self::Trend => {
                "pass JSON reports of one suite written by `trailgate check --format json`, \
                 oldest first"
            }
            Self::Baseline => {
                "pass `--baseline` a JSON report written by `trailgate check --format json` (or \
                 `trailgate merge --format json`), e.g. main's"
            }
            Self::Compare => {
                "pass JSON reports written by `trailgate check --format json` (or `trailgate \
                 merge --format json`)"
            }
        }
    }
}

/// The codes of `trend`'s and `compare`'s refusals of a report, beside `diff`'s.
const READER_CODES: [(&str, &str, &str); 5] = [
    (
        "trailgate::diff::io",
        "trailgate::trend::io",
        "trailgate::compare::io",
    ),
    (
        "trailgate::diff::json",
        "trailgate::trend::json",
        "trailgate::compare::json",
    ),
    (
        "trailgate::diff::version",
        "trailgate::trend::version",
        "trailgate::compare::version",
    ),
    (
        "trailgate::diff::shard",
        "trailgate::trend::shard",
        "trailgate::compare::shard",
    ),
    (
        "trailgate::diff::duplicate_test",
        "trailgate::trend::duplicate_test",
        "trailgate::compare::duplicate_test",
    ),
];

/// The code `pick` takes from `diff`'s row of [`READER_CODES`]; `diff` itself when it has none.
fn other_code(
    diff: &'static str,
    pick: impl Fn(&(&'static str, &'static str, &'static str)) -> &'static str,
) -> &'static str {
    READER_CODES
        .iter()
        .find(|codes| codes.0 == diff)
        .map_or(diff, pick)
}

/// Reads one report and refuses what cannot be compared. `base` is the base report's name,
/// when this is the head report of a `diff` (or a report after the first of a `trend` or a
/// `compare`).
pub(crate) fn read_checked<R: Read + Seek>(
    file: &mut ReportFile<R>,
    base: Option<&str>,
    reader: Reader,
) -> Result<ReportRead, SuiteError> {
    let help = reader.help();
    let read = match read_report(&mut file.reader) {
        Ok(read) => read,
        Err(ReadError::Io(error)) => return Err(unreadable(&file.name, &error, reader)),
        Err(ReadError::Json(error)) => {
            let offset =
                offset_of(&mut file.reader, 0, u64::MAX, error.line(), error.column()).ok();
            let said = json_message(&mut file.reader, &error, offset);
            let message = if matches!(error.classify(), Category::Syntax | Category::Eof) {
                format!("`{}` is not valid JSON: {said}", file.name)
            } else {
                format!("`{}` is not a trailgate JSON report: {said}", file.name)
            };
            let code = reader.code("trailgate::diff::json", "trailgate::baseline::json");
            let problem = Problem::new(code, message, "here").with_help(help);
            return Err(fail(
                &file.name,
                &mut file.reader,
                problem,
                offset.map(At::Character),
            ));
        }
        Err(ReadError::Version(version, at)) => {
            let against = base.map_or_else(String::new, |base| format!(" (`{base}` is one)"));
            let (verb, which) = match reader {
                Reader::Diff => ("compares", "both reports"),
                Reader::Baseline => ("reads", "the baseline"),
                Reader::Trend => ("reads", "every report"),
                Reader::Compare => ("compares", "every report"),
            };
            let problem = Problem::new(
                reader.code("trailgate::diff::version", "trailgate::baseline::version"),
                format!(
                    "`{}` is a version {version} report; this trailgate {verb} reports of \
                     versions {OLDEST_READ_VERSION} and {JSON_VERSION}{against}",
                    file.name
                ),
                "this version",
            )
            .with_help(if version < OLDEST_READ_VERSION {
                "an older trailgate wrote it: regenerate it with this release \
                 (`trailgate check --format json`); a report's `version` changes when a field \
                 moves or changes meaning"
                    .to_owned()
            } else {
                format!(
                    "write {which} with the same trailgate release; a report's `version` \
                     changes when a field changes meaning"
                )
            });
            return Err(fail(&file.name, &mut file.reader, problem, at));
        }
    };
    if let Some(shard) = read.shard {
        let problem = Problem::new(
            reader.code("trailgate::diff::shard", "trailgate::baseline::shard"),
            format!(
                "`{}` is the report of shard {}/{}, not of the whole suite",
                file.name, shard.index, shard.count
            ),
            "a shard's report",
        )
        .with_help(
            "merge the shards first: `trailgate merge shards/*.json --format json --output \
             report.json`",
        );
        return Err(fail(&file.name, &mut file.reader, problem, read.shard_at));
    }
    if let Some((name, start)) = &read.duplicate {
        let problem = Problem::new(
            reader.code(
                "trailgate::diff::duplicate_test",
                "trailgate::baseline::duplicate_test",
            ),
            format!(
                "`{}` names test `{name}` twice; a suite names each test once",
                file.name
            ),
            "the second test of this name",
        )
        .with_help(help);
        return Err(fail(
            &file.name,
            &mut file.reader,
            problem,
            Some(At::Span(*start, 1)),
        ));
    }
    Ok(read)
}

/// A report given to `diff` that cannot be read: opened, or read as it is streamed.
pub fn cannot_read(name: &str, error: &std::io::Error) -> SuiteError {
    unreadable(name, error, Reader::Diff)
}

/// A report that cannot be read, by `diff`, as a baseline, or by `trend` or `compare`.
pub(crate) fn unreadable(name: &str, error: &std::io::Error, reader: Reader) -> SuiteError {
    SuiteError::detached(
        Problem::new(
            reader.code("trailgate::diff::io", "trailgate::baseline::io"),
            format!("cannot read report `{name}`: {error}"),
            "",
        )
        .with_help(reader.help()),
    )
}

/// The comparison of two reports, read.
fn compare(base_name: &str, base: ReportRead, head_name: &str, head: ReportRead) -> Diff {
    let side = |name: &str, read: &ReportRead| Side {
        name: name.to_owned(),
        tests: read.tests.len(),
        passed: read.tests.iter().filter(|t| t.passed).count(),
    };
    let (base_side, head_side) = (side(base_name, &base), side(head_name, &head));
    let by_name: BTreeMap<String, usize> = base
        .tests
        .iter()
        .enumerate()
        .map(|(index, test)| (test.name.clone(), index))
        .collect();
    let mut base_tests: Vec<Option<TestRead>> = base.tests.into_iter().map(Some).collect();
    let mut tests = Vec::new();
    let mut added = Vec::new();
    for head_test in head.tests {
        let base_test = by_name
            .get(&head_test.name)
            .and_then(|&index| base_tests.get_mut(index))
            .and_then(Option::take);
        match base_test {
            Some(base_test) => tests.push(compare_test(&base_test, head_test)),
            None => added.push(head_test),
        }
    }
    Diff {
        base: base_side,
        head: head_side,
        tests,
        added,
        removed: base_tests.into_iter().flatten().collect(),
    }
}

fn compare_test(base: &TestRead, head: TestRead) -> TestDiff {
    let mut metrics: BTreeMap<&str, MetricDiff> = BTreeMap::new();
    for (name, value) in &base.metrics {
        metrics.entry(name).or_insert_with(|| metric(name)).base = Some(*value);
    }
    for (name, value) in &head.metrics {
        metrics.entry(name).or_insert_with(|| metric(name)).head = Some(*value);
    }
    let runs = compare_runs(&base.listed, &head.listed);
    let pass_rate = run_tally(base)
        .zip(run_tally(&head))
        .map(|(b, h)| PassRates {
            base: b,
            head: h,
            interval: pass_rate_interval(b, h),
        });
    TestDiff {
        base: Verdict {
            passed: base.passed,
            runs: base.runs,
        },
        head: Verdict {
            passed: head.passed,
            runs: head.runs,
        },
        metrics: metrics.into_values().collect(),
        gates: compare_gates(&base.gates, &head.gates),
        runs,
        pass_rate,
        name: head.name,
    }
}

/// How many of a test's runs passed, when it has several: the test's own count when the
/// report gives it; else the runs' verdicts, when every run is listed with one.
pub(crate) fn run_tally(test: &TestRead) -> Option<RunTally> {
    let passed = test.passed_runs.or_else(|| {
        let judged: Option<Vec<bool>> = test.listed.iter().map(|r| r.verdict).collect();
        judged
            .filter(|v| v.len() == test.runs)
            .map(|v| v.iter().filter(|&&passed| passed).count())
    })?;
    (test.runs > 1 && passed <= test.runs).then_some(RunTally {
        passed,
        runs: test.runs,
    })
}

fn metric(name: &str) -> MetricDiff {
    MetricDiff {
        name: name.to_owned(),
        base: None,
        head: None,
    }
}

/// The expression of a gate on the baseline.
fn expression(gate: Option<&GateRead>) -> Option<String> {
    gate.and_then(|g| g.baseline.as_ref())
        .map(|baseline| baseline.expression.clone())
}

/// Pairs the gates of one target and operator in order: the first of the head's with the
/// first of the base's, and so on.
fn compare_gates(base: &[GateRead], head: &[GateRead]) -> Vec<GateDiff> {
    let mut unpaired: BTreeMap<(&str, &str), VecDeque<usize>> = BTreeMap::new();
    for (index, gate) in base.iter().enumerate() {
        unpaired
            .entry((&gate.target, &gate.op))
            .or_default()
            .push_back(index);
    }
    let mut paired = vec![false; base.len()];
    let mut gates: Vec<GateDiff> = head
        .iter()
        .map(|gate| {
            let other = unpaired
                .get_mut(&(gate.target.as_str(), gate.op.as_str()))
                .and_then(VecDeque::pop_front);
            if let Some(index) = other {
                paired[index] = true;
            }
            let base_gate = other.and_then(|index| base.get(index));
            GateDiff {
                target: gate.target.clone(),
                op: gate.op.clone(),
                expression: expression(Some(gate)).or_else(|| expression(base_gate)),
                base: base_gate.map(GateSide::from),
                head: Some(GateSide::from(gate)),
            }
        })
        .collect();
    gates.extend(
        base.iter()
            .zip(&paired)
            .filter(|(_, paired)| !**paired)
            .map(|(gate, _)| GateDiff {
                target: gate.target.clone(),
                op: gate.op.clone(),
                expression: expression(Some(gate)),
                base: Some(GateSide::from(gate)),
                head: None,
            }),
    );
    gates
}

/// Lines up the runs of both reports by source and line: a source and line listed twice is
/// lined up in order, the first with the first.
///
/// The base's runs are sorted by place (a stable sort, so equal places keep their order), and
/// each place remembers how many of its runs are taken: two words per base run, and a binary
/// search per head run.
fn compare_runs(base: &[read::RunRead], head: &[read::RunRead]) -> RunsDiff {
    let mut sorted: Vec<usize> = (0..base.len()).collect();
    sorted.sort_by(|&a, &b| {
        let (a, b) = (&base[a], &base[b]);
        (&*a.source, a.line).cmp(&(&*b.source, b.line))
    });
    // For the first position of each place in `sorted`: the position of its next untaken run.
    let mut next: Vec<usize> = (0..sorted.len()).collect();
    let mut diff = RunsDiff::default();
    let mut now_pass = Vec::new();
    for run in head {
        let key = (&*run.source, run.line);
        let first = sorted.partition_point(|&index| {
            let other = &base[index];
            (&*other.source, other.line) < key
        });
        let Some(at) = next.get(first).copied() else {
            continue;
        };
        let Some(other) = sorted.get(at).map(|&index| &base[index]) else {
            continue;
        };
        if (&*other.source, other.line) != key {
            continue;
        }
        next[first] = at + 1;
        diff.lined_up += 1;
        let (Some(was), Some(is)) = (other.verdict, run.verdict) else {
            continue;
        };
        diff.judged += 1;
        if was != is {
            let change = RunChange {
                source: Rc::clone(&run.source),
                line: run.line,
                base_run: other.run,
                head_run: run.run,
                passes_now: is,
            };
            if is {
                now_pass.push(change);
            } else {
                diff.changed.push(change);
            }
        }
    }
    diff.changed.extend(now_pass);
    diff.base_only = base.len() - diff.lined_up;
    diff.head_only = head.len() - diff.lined_up;
    diff
}

#[cfg(test)]
mod tests;
