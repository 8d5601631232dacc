//! Merging shard reports: the JSON reports of `toolgate check --shard K/N`, one per shard,
//! put back together into the report of the whole suite.
//!
//! A shard holds whole tests, so every test's metrics were computed from all of its runs in
//! one job. Merging puts the tests back in suite order, re-derives each test's aggregates
//! from its runs' counts, re-applies its gates, and writes the report the unsharded run
//! writes, byte for byte: each test's JSON is carried over field by field (transcoded, so
//! its layout is toolgate's own whatever the file's), and the verdicts and summary around
//! it are recomputed.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::Arc;

use miette::{NamedSource, SourceSpan};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use toolgate_core::{AccuracyCounts, Counts, Percent};
use toolgate_expect::{
    ArgumentCounts, Op, Problem, Shard, SuiteError, SuiteSource, ToolCorrectnessOutcome,
};
use toolgate_trace::json_error_span;

use crate::json::{JSON_VERSION, Summary};
use crate::text::{Painter, TextOptions, write_footer, write_gate, write_header};
use crate::transcode::JsonText;

/// One shard report, as read from its file.
#[derive(Debug, Clone)]
pub struct ShardFile {
    /// The file's name, for diagnostics.
    pub name: String,
    /// Its whole text.
    pub text: String,
}

/// The whole suite's report, put together from its shards.
#[derive(Debug)]
pub struct Merged<'a> {
    tests: Vec<MergedTest<'a>>,
    shards: usize,
    suite: String,
}

#[derive(Debug)]
struct MergedTest<'a> {
    json: &'a RawValue,
    view: TestView,
    /// Where the test starts in its shard's file.
    span: SourceSpan,
}

impl Merged<'_> {
    /// Whether every test passed.
    pub fn passed(&self) -> bool {
        self.tests.iter().all(|t| t.view.passed)
    }
}

/// Combines shard reports into the report of the whole suite.
///
/// Every shard `1..=N` of one split of one suite must be given exactly once, in any order.
/// A report that is not a shard report, that belongs to another suite or split, or whose
/// numbers do not add up is refused with a diagnostic pointing into its file.
pub fn merge_shards(files: &[ShardFile]) -> Result<Merged<'_>, SuiteError> {
    let mut shards: BTreeMap<usize, (&ShardFile, Vec<&RawValue>)> = BTreeMap::new();
    let mut first: Option<(&ShardFile, ShardHeader)> = None;
    for file in files {
        let (header, tests) = read_shard(file)?;
        if let Some((other, expected)) = &first {
            same_split(file, &header, other, expected)?;
        }
        if let Some((other, _)) = shards.get(&header.index) {
            return Err(fail(
                file,
                Problem::new(
                    "toolgate::merge::duplicate",
                    format!(
                        "`{}` and `{}` are both shard {}/{}",
                        other.name, file.name, header.index, header.count
                    ),
                    "given twice",
                )
                .at(key_span(&file.text, "shard")),
            ));
        }
        shards.insert(header.index, (file, tests));
        if first.is_none() {
            first = Some((file, header));
        }
    }
    let Some((file, header)) = first else {
        return Err(SuiteError::detached(Problem::new(
            "toolgate::merge::none",
            "no shard reports to merge",
            "",
        )));
    };
    if let Some(missing) = (1..=header.count).find(|index| !shards.contains_key(index)) {
        return Err(fail(
            file,
            Problem::new(
                "toolgate::merge::missing",
                format!(
                    "shard {missing}/{} is missing: {} of {} shard reports given",
                    header.count,
                    shards.len(),
                    header.count
                ),
                "a shard of this split",
            )
            .with_help("pass every shard's report, e.g. `toolgate merge shards/*.json`")
            .at(key_span(&file.text, "shard")),
        ));
    }
    // Shard K holds the tests at positions K-1, K-1+N, ...: deal them back in turn.
    let mut queues: Vec<_> = shards
        .into_values()
        .map(|(file, tests)| (file, tests.into_iter()))
        .collect();
    let mut tests = Vec::with_capacity(header.suite_tests);
    // A suite's test names are unique: a name twice means shards of different suites.
    let mut names: BTreeMap<String, &ShardFile> = BTreeMap::new();
    for position in 0..header.suite_tests {
        let Some((file, queue)) = queues.get_mut(position % header.count) else {
            break;
        };
        let Some(json) = queue.next() else { break };
        let test = recheck(file, json)?;
        if let Some(other) = names.insert(test.view.name.clone(), file) {
            return Err(fail(
                file,
                Problem::new(
                    "toolgate::merge::duplicate_test",
                    format!(
                        "test `{}` is in `{}` and in `{}`; a suite names each test once",
                        test.view.name, other.name, file.name
                    ),
                    "this test",
                )
                .with_help(
                    "merge the shards of one `toolgate check --shard K/N` matrix, run on the \
                     same suite",
                )
                .at(Some(test.span)),
            ));
        }
        tests.push(test);
    }
    Ok(Merged {
        tests,
        shards: header.count,
        suite: header.suite,
    })
}

/// Reads one shard report: its `shard` object, checked, and its tests' JSON.
fn read_shard(file: &ShardFile) -> Result<(ShardHeader, Vec<&RawValue>), SuiteError> {
    let report: ReportView<'_> = serde_json::from_str(&file.text).map_err(|error| {
        let problem = Problem::new(
            "toolgate::merge::json",
            format!("`{}` is not a toolgate JSON report: {error}", file.name),
            "here",
        )
        .with_help("pass the files that `toolgate check --shard K/N --format json` wrote");
        fail(file, problem.at(Some(json_error_span(&file.text, &error))))
    })?;
    if report.version != JSON_VERSION {
        return Err(fail(
            file,
            Problem::new(
                "toolgate::merge::version",
                format!(
                    "`{}` is a version {} report; this toolgate merges version {JSON_VERSION}",
                    file.name, report.version
                ),
                "this version",
            )
            .with_help("write every shard and merge them with the same toolgate release")
            .at(key_span(&file.text, "version")),
        ));
    }
    let Some(header) = report.shard else {
        return Err(fail(
            file,
            Problem::new(
                "toolgate::merge::not_a_shard",
                format!(
                    "`{}` is the report of a whole suite, not of a shard",
                    file.name
                ),
                "no `shard` field in this report",
            )
            .with_help("write shard reports with `toolgate check --shard K/N --format json`")
            .at(Some(SourceSpan::from((0, 1)))),
        ));
    };
    let shard_problem = |code, message: String, label| {
        fail(
            file,
            Problem::new(code, message, label).at(key_span(&file.text, "shard")),
        )
    };
    let Some(shard) = Shard::new(header.index, header.count) else {
        return Err(shard_problem(
            "toolgate::merge::shard",
            format!(
                "`{}` claims to be shard {}/{}, which does not exist",
                file.name, header.index, header.count
            ),
            "this shard",
        ));
    };
    let holds = shard.len_of(header.suite_tests);
    if report.tests.len() != holds {
        return Err(shard_problem(
            "toolgate::merge::tests",
            format!(
                "`{}` holds {} tests, but shard {shard} of a suite of {} tests holds {holds}",
                file.name,
                report.tests.len(),
                header.suite_tests
            ),
            "this shard",
        ));
    }
    Ok((header, report.tests))
}

/// Refuses a shard of another split or another suite than the first one given.
fn same_split(
    file: &ShardFile,
    header: &ShardHeader,
    other: &ShardFile,
    expected: &ShardHeader,
) -> Result<(), SuiteError> {
    let differs = if expected.count != header.count {
        format!(
            "is shard {}/{} but `{}` is shard {}/{}: the suite was split differently",
            header.index, header.count, other.name, expected.index, expected.count
        )
    } else if expected.suite != header.suite
        || expected.suite_tests != header.suite_tests
        || expected.suite_digest != header.suite_digest
    {
        format!(
            "is a shard of `{}` ({} tests) but `{}` is a shard of `{}` ({} tests)",
            header.suite, header.suite_tests, other.name, expected.suite, expected.suite_tests
        )
    } else {
        return Ok(());
    };
    Err(fail(
        file,
        Problem::new(
            "toolgate::merge::mismatch",
            format!("`{}` {differs}", file.name),
            "this shard",
        )
        .with_help(
            "merge the shards of one `toolgate check --shard K/N` matrix, run on the same suite",
        )
        .at(key_span(&file.text, "shard")),
    ))
}

/// Writes the merged JSON report: the unsharded run's bytes.
pub fn render_merged_json(merged: &Merged<'_>, out: &mut dyn Write) -> io::Result<()> {
    let passed = merged.tests.iter().filter(|t| t.view.passed).count();
    let report = MergedReport {
        version: JSON_VERSION,
        passed: merged.passed(),
        summary: Summary {
            tests: merged.tests.len(),
            passed,
            failed: merged.tests.len() - passed,
        },
        tests: merged.tests.iter().map(|t| Transcoded(t.json)).collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}

/// Writes the merged text report: each test's verdict and gates, in suite order. The runs'
/// details are in each shard's own report.
pub fn render_merged_text(
    merged: &Merged<'_>,
    options: TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let painter = Painter::new(options);
    writeln!(
        out,
        "{}: {} {} merged from {} shard {}",
        merged.suite,
        merged.tests.len(),
        if merged.tests.len() == 1 {
            "test"
        } else {
            "tests"
        },
        merged.shards,
        if merged.shards == 1 {
            "report"
        } else {
            "reports"
        }
    )?;
    for test in &merged.tests {
        writeln!(out)?;
        let view = &test.view;
        write_header(
            &painter,
            view.passed,
            &view.name,
            view.runs,
            view.agent.as_deref(),
            out,
        )?;
        writeln!(out, "  gates")?;
        for gate in &view.gates {
            let text = format!("{} {} {}", gate.target, gate.op, gate.value);
            write_gate(&painter, gate.passed, &text, gate.actual, out)?;
        }
    }
    let passed = merged.tests.iter().filter(|t| t.view.passed).count();
    write_footer(&painter, merged.tests.len(), passed, out)
}

#[derive(Serialize)]
struct MergedReport<'a> {
    version: u32,
    passed: bool,
    summary: Summary,
    tests: Vec<Transcoded<'a>>,
}

/// A test's JSON, re-serialised field by field in its own order.
struct Transcoded<'a>(&'a RawValue);

impl Serialize for Transcoded<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        JsonText(self.0.get()).serialize(serializer)
    }
}

#[derive(Deserialize)]
struct ReportView<'a> {
    version: u32,
    shard: Option<ShardHeader>,
    #[serde(borrow)]
    tests: Vec<&'a RawValue>,
}

/// The `shard` object of a shard report.
#[derive(Debug, Clone, Deserialize)]
struct ShardHeader {
    index: usize,
    count: usize,
    suite: String,
    suite_tests: usize,
    /// A digest of the suite's text; reports written before it was added have none.
    #[serde(default)]
    suite_digest: Option<String>,
}

/// What merging needs of a test: its verdict, its gates, and the counts they come from.
#[derive(Debug, Deserialize)]
struct TestView {
    name: String,
    agent: Option<String>,
    passed: bool,
    runs: usize,
    sources: Vec<IgnoredAny>,
    metrics: BTreeMap<String, u8>,
    gates: Vec<GateView>,
    equal_function_sets: Option<SelectionView>,
    tool_calls: Option<ToolCallsView>,
    tool_correctness: Option<CorrectnessView>,
    call_accuracy: Option<AccuracyView>,
}

#[derive(Debug, Deserialize)]
struct GateView {
    target: String,
    op: String,
    value: u8,
    actual: u8,
    passed: bool,
}

#[derive(Debug, Deserialize)]
struct SelectionCounts {
    true_positives: u64,
    false_positives: u64,
    false_negatives: u64,
}

/// A run's entry of `equal_function_sets`: its counts, the metrics they give, and a line
/// per class.
#[derive(Debug, Deserialize)]
struct SelectionRunView {
    #[serde(flatten)]
    counts: SelectionCounts,
    precision: u8,
    recall: u8,
    f1: u8,
    classes: Vec<IgnoredAny>,
}

#[derive(Debug, Deserialize)]
struct SelectionView {
    #[serde(flatten)]
    counts: SelectionCounts,
    precision: u8,
    recall: u8,
    f1: u8,
    runs: Vec<SelectionRunView>,
}

#[derive(Debug, Deserialize)]
struct ToolCallsView {
    passed_runs: u64,
    pass_rate: u8,
    runs: Vec<PassedView>,
}

#[derive(Debug, Deserialize)]
struct PassedView {
    passed: bool,
}

#[derive(Debug, Deserialize)]
struct CorrectnessView {
    expected_tools: Vec<IgnoredAny>,
    matched: u64,
    expected_total: u64,
    exact_runs: Option<u64>,
    score: u8,
    runs: Vec<CorrectnessRunView>,
}

#[derive(Debug, Deserialize)]
struct CorrectnessRunView {
    score: u8,
    exact: Option<bool>,
    expected: Vec<ExpectedView>,
}

#[derive(Debug, Deserialize)]
struct ExpectedView {
    matched_by: Option<IgnoredAny>,
}

#[derive(Debug, Deserialize)]
struct AccuracyCountsView {
    correct: u64,
    expected: u64,
    actual: u64,
    arguments_matched: u64,
    arguments_expected: u64,
}

#[derive(Debug, Deserialize)]
struct AccuracyView {
    #[serde(flatten)]
    counts: AccuracyCountsView,
    precision: u8,
    recall: u8,
    f1: u8,
    arguments: u8,
    runs: Vec<AccuracyRunView>,
}

/// A run's entry of `call_accuracy`: its counts and the metrics they give.
#[derive(Debug, Deserialize)]
struct AccuracyRunView {
    #[serde(flatten)]
    counts: AccuracyCountsView,
    precision: u8,
    recall: u8,
    f1: u8,
    arguments: u8,
}

/// Reads a test's numbers and checks that they add up: each aggregate is what its runs'
/// counts give, each metric what its aggregate gives, each gate's verdict what its operator
/// says of the metric, and the test's verdict what its gates say.
fn recheck<'a>(file: &ShardFile, json: &'a RawValue) -> Result<MergedTest<'a>, SuiteError> {
    let start = json.get().as_ptr().addr() - file.text.as_ptr().addr();
    let span = SourceSpan::from((start, 1));
    let view: TestView = serde_json::from_str(json.get()).map_err(|error| {
        let within = json_error_span(json.get(), &error);
        let at = Some(SourceSpan::from((start + within.offset(), within.len())));
        fail(
            file,
            Problem::new(
                "toolgate::merge::json",
                format!(
                    "a test in `{}` is not a toolgate test report: {error}",
                    file.name
                ),
                "here",
            )
            .at(at),
        )
    })?;
    if let Err(message) = add_up(&view) {
        return Err(fail(
            file,
            Problem::new(
                "toolgate::merge::inconsistent",
                format!("test `{}` in `{}`: {message}", view.name, file.name),
                "this test",
            )
            .with_help(
                "the report was edited, or written by another toolgate; write it again with \
                 `toolgate check --shard K/N --format json`",
            )
            .at(Some(span)),
        ));
    }
    // What the runs said is checked; only the verdict, the gates and the test's place in
    // its file are kept, so that merging holds no more than the shards' text.
    let view = TestView {
        sources: Vec::new(),
        equal_function_sets: None,
        tool_calls: None,
        tool_correctness: None,
        call_accuracy: None,
        ..view
    };
    Ok(MergedTest { json, view, span })
}

fn add_up(view: &TestView) -> Result<(), String> {
    let metrics = Metrics(&view.metrics);
    // A shard report lists every run of every block: each list is as long as `runs`.
    for (block, listed) in [
        ("sources", Some(view.sources.len())),
        (
            "equal_function_sets.runs",
            view.equal_function_sets.as_ref().map(|b| b.runs.len()),
        ),
        (
            "tool_calls.runs",
            view.tool_calls.as_ref().map(|b| b.runs.len()),
        ),
        (
            "tool_correctness.runs",
            view.tool_correctness.as_ref().map(|b| b.runs.len()),
        ),
        (
            "call_accuracy.runs",
            view.call_accuracy.as_ref().map(|b| b.runs.len()),
        ),
    ] {
        if let Some(listed) = listed
            && listed != view.runs
        {
            return Err(format!(
                "`{block}` lists {listed} runs but `runs` says {}",
                view.runs
            ));
        }
    }
    if let Some(efs) = &view.equal_function_sets {
        add_up_selection(efs, &metrics)?;
    }
    if let Some(calls) = &view.tool_calls {
        let passed = calls.runs.iter().filter(|r| r.passed).count() as u64;
        same("tool_calls.passed_runs", calls.passed_runs, passed)?;
        let rate = Percent::floor_of(passed, calls.runs.len() as u64);
        same_percent("tool_calls.pass_rate", calls.pass_rate, rate)?;
        metrics.check("tool_calls.pass_rate", rate)?;
    }
    if let Some(correctness) = &view.tool_correctness {
        add_up_correctness(correctness, &metrics)?;
    }
    if let Some(accuracy) = &view.call_accuracy {
        add_up_accuracy(accuracy, &metrics)?;
    }
    apply_gates(view)
}

/// The `metrics` a test states.
struct Metrics<'a>(&'a BTreeMap<String, u8>);

impl Metrics<'_> {
    fn check(&self, target: &str, derived: Percent) -> Result<(), String> {
        match self.0.get(target) {
            Some(&stated) if stated == derived.value() => Ok(()),
            Some(&stated) => Err(format!(
                "`metrics` says `{target}` is {stated} but the runs give {derived}"
            )),
            None => Err(format!("`{target}` is missing from `metrics`")),
        }
    }
}

/// The sum of `values`, or an error naming `what` when it passes `u64::MAX`: a sum that
/// wrapped could be made to look like any count.
fn checked_sum(what: &str, mut values: impl Iterator<Item = u64>) -> Result<u64, String> {
    values
        .try_fold(0_u64, u64::checked_add)
        .ok_or_else(|| format!("`{what}` add up past {}, the largest count", u64::MAX))
}

fn same(what: &str, stated: u64, derived: u64) -> Result<(), String> {
    if stated == derived {
        Ok(())
    } else {
        Err(format!("{what} is {stated} but its runs give {derived}"))
    }
}

fn same_percent(what: &str, stated: u8, derived: Percent) -> Result<(), String> {
    same(what, u64::from(stated), u64::from(derived.value()))
}

fn add_up_selection(efs: &SelectionView, metrics: &Metrics<'_>) -> Result<(), String> {
    for (index, run) in efs.runs.iter().enumerate() {
        let c = &run.counts;
        let m = Counts::new(c.true_positives, c.false_positives, c.false_negatives).metrics();
        for (metric, stated, derived) in [
            ("precision", run.precision, m.precision),
            ("recall", run.recall, m.recall),
            ("f1", run.f1, m.f1),
        ] {
            same_percent(
                &format!("`equal_function_sets.runs[{index}].{metric}`"),
                stated,
                derived,
            )?;
        }
        // Each class is satisfied by the run or missed by it.
        let classes = c.true_positives.checked_add(c.false_negatives);
        if classes != Some(run.classes.len() as u64) {
            return Err(format!(
                "`equal_function_sets.runs[{index}]` has {} classes but counts {} true \
                 positives and {} false negatives",
                run.classes.len(),
                c.true_positives,
                c.false_negatives
            ));
        }
    }
    let counts = Counts::new(
        checked_sum(
            "equal_function_sets.runs[].true_positives",
            efs.runs.iter().map(|r| r.counts.true_positives),
        )?,
        checked_sum(
            "equal_function_sets.runs[].false_positives",
            efs.runs.iter().map(|r| r.counts.false_positives),
        )?,
        checked_sum(
            "equal_function_sets.runs[].false_negatives",
            efs.runs.iter().map(|r| r.counts.false_negatives),
        )?,
    );
    let stated = &efs.counts;
    same(
        "true_positives",
        stated.true_positives,
        counts.true_positives,
    )?;
    same(
        "false_positives",
        stated.false_positives,
        counts.false_positives,
    )?;
    same(
        "false_negatives",
        stated.false_negatives,
        counts.false_negatives,
    )?;
    let m = counts.metrics();
    for (target, stated, derived) in [
        ("tool_selection.precision", efs.precision, m.precision),
        ("tool_selection.recall", efs.recall, m.recall),
        ("tool_selection.f1", efs.f1, m.f1),
    ] {
        same_percent(target, stated, derived)?;
        metrics.check(target, derived)?;
    }
    Ok(())
}

fn add_up_correctness(correctness: &CorrectnessView, metrics: &Metrics<'_>) -> Result<(), String> {
    let runs = correctness.runs.len() as u64;
    let tools = correctness.expected_tools.len();
    for (index, run) in correctness.runs.iter().enumerate() {
        if run.expected.len() != tools {
            return Err(format!(
                "`tool_correctness.runs[{index}]` lists {} expected tools but the grader expects {tools}",
                run.expected.len()
            ));
        }
        let matched = run
            .expected
            .iter()
            .filter(|e| e.matched_by.is_some())
            .count() as u64;
        let exact = correctness
            .exact_runs
            .map(|_| u64::from(run.exact == Some(true)));
        let score = ToolCorrectnessOutcome::score_of(matched, tools as u64, exact, 1);
        same_percent(
            &format!("`tool_correctness.runs[{index}].score`"),
            run.score,
            score,
        )?;
    }
    let matched = correctness
        .runs
        .iter()
        .flat_map(|r| &r.expected)
        .filter(|e| e.matched_by.is_some())
        .count() as u64;
    same("tool_correctness.matched", correctness.matched, matched)?;
    let expected_total = (correctness.expected_tools.len() as u64).saturating_mul(runs);
    same(
        "tool_correctness.expected_total",
        correctness.expected_total,
        expected_total,
    )?;
    let exact = correctness.exact_runs.map(|_| {
        correctness
            .runs
            .iter()
            .filter(|r| r.exact == Some(true))
            .count() as u64
    });
    if let (Some(stated), Some(derived)) = (correctness.exact_runs, exact) {
        same("tool_correctness.exact_runs", stated, derived)?;
    }
    let score = ToolCorrectnessOutcome::score_of(matched, expected_total, exact, runs);
    same_percent("tool_correctness.score", correctness.score, score)?;
    metrics.check("tool_correctness.score", score)
}

/// A run's call-accuracy counts are possible and give the metrics it states.
fn check_accuracy_run(index: usize, run: &AccuracyRunView) -> Result<(), String> {
    let c = &run.counts;
    if c.correct > c.expected.min(c.actual) {
        return Err(format!(
            "`call_accuracy.runs[{index}]` counts {} correct calls of {} expected and {} made",
            c.correct, c.expected, c.actual
        ));
    }
    let m = AccuracyCounts {
        correct: c.correct,
        expected: c.expected,
        actual: c.actual,
    }
    .metrics();
    if c.arguments_matched > c.arguments_expected {
        return Err(format!(
            "`call_accuracy.runs[{index}]` counts {} matched arguments of {} expected",
            c.arguments_matched, c.arguments_expected
        ));
    }
    let arguments = ArgumentCounts {
        matched: c.arguments_matched,
        expected: c.arguments_expected,
    };
    for (metric, stated, derived) in [
        ("precision", run.precision, m.precision),
        ("recall", run.recall, m.recall),
        ("f1", run.f1, m.f1),
        ("arguments", run.arguments, arguments.percent()),
    ] {
        same_percent(
            &format!("`call_accuracy.runs[{index}].{metric}`"),
            stated,
            derived,
        )?;
    }
    Ok(())
}

fn add_up_accuracy(accuracy: &AccuracyView, metrics: &Metrics<'_>) -> Result<(), String> {
    for (index, run) in accuracy.runs.iter().enumerate() {
        check_accuracy_run(index, run)?;
    }
    // Each sum is checked for overflow, then against the block's stated one.
    let sum = |field: &str, stated: u64, of: fn(&AccuracyCountsView) -> u64| {
        let derived = checked_sum(
            &format!("call_accuracy.runs[].{field}"),
            accuracy.runs.iter().map(|r| of(&r.counts)),
        )?;
        same(&format!("call_accuracy.{field}"), stated, derived).map(|()| derived)
    };
    let stated = &accuracy.counts;
    let counts = AccuracyCounts {
        correct: sum("correct", stated.correct, |c| c.correct)?,
        expected: sum("expected", stated.expected, |c| c.expected)?,
        actual: sum("actual", stated.actual, |c| c.actual)?,
    };
    let arguments = ArgumentCounts {
        matched: sum("arguments_matched", stated.arguments_matched, |c| {
            c.arguments_matched
        })?,
        expected: sum("arguments_expected", stated.arguments_expected, |c| {
            c.arguments_expected
        })?,
    };
    let m = counts.metrics();
    for (target, stated, derived) in [
        ("call_accuracy.precision", accuracy.precision, m.precision),
        ("call_accuracy.recall", accuracy.recall, m.recall),
        ("call_accuracy.f1", accuracy.f1, m.f1),
        (
            "call_accuracy.arguments",
            accuracy.arguments,
            arguments.percent(),
        ),
    ] {
        same_percent(target, stated, derived)?;
        metrics.check(target, derived)?;
    }
    Ok(())
}

/// Applies each gate again to its metric, and the test's verdict to its gates.
fn apply_gates(view: &TestView) -> Result<(), String> {
    let mut all = true;
    for gate in &view.gates {
        let label = format!("gate `{} {} {}`", gate.target, gate.op, gate.value);
        let (Some(op), Some(value), Some(actual)) = (
            Op::from_symbol(&gate.op),
            Percent::new(gate.value),
            view.metrics
                .get(&gate.target)
                .copied()
                .and_then(Percent::new),
        ) else {
            return Err(format!("{label} does not name a metric of this test"));
        };
        if actual.value() != gate.actual {
            return Err(format!(
                "{label} compared {} but the metric is {actual}",
                gate.actual
            ));
        }
        let passed = op.holds(actual, value);
        if passed != gate.passed {
            return Err(format!(
                "{label} says {} but {actual} {} {value} is {passed}",
                verdict(gate.passed),
                gate.op
            ));
        }
        all &= passed;
    }
    if all != view.passed {
        return Err(format!(
            "the test says {} but its gates say {}",
            verdict(view.passed),
            verdict(all)
        ));
    }
    Ok(())
}

fn verdict(passed: bool) -> &'static str {
    if passed { "passed" } else { "failed" }
}

fn fail(file: &ShardFile, problem: Problem) -> SuiteError {
    let source: SuiteSource = Arc::new(NamedSource::new(
        &file.name,
        toolgate_trace::LineSource::new(file.text.clone(), 1),
    ));
    SuiteError::new(&source, vec![problem])
}

/// The span of a top-level key of a report toolgate wrote (`"shard"` at two spaces).
fn key_span(text: &str, key: &str) -> Option<SourceSpan> {
    let needle = format!("\n  \"{key}\"");
    text.find(&needle)
        .map(|at| SourceSpan::from((at + 3, key.len() + 2)))
}
