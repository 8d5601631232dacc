//! The JSON report: a versioned document built from structs in declaration order.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;
use toolgate_core::{AccuracyCounts, AccuracyMetrics, Counts, SelectionMetrics};
use toolgate_expect::{
    CallAccuracyOutcome, CalledTool, Miss, NearMiss, SelectionOutcome, Shard, SuiteOutcome,
    TestOutcome, ToolCallsOutcome, ToolCorrectnessOutcome,
};

/// The version of the JSON report's layout. It changes only when a field changes meaning
/// or disappears; new fields may be added within a version.
pub const JSON_VERSION: u32 = 1;

#[derive(Serialize)]
struct Report<'a> {
    version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<ShardJson<'a>>,
    passed: bool,
    summary: Summary,
    tests: Vec<Test<'a>>,
}

#[derive(Serialize)]
pub(crate) struct Summary {
    pub(crate) tests: usize,
    pub(crate) passed: usize,
    pub(crate) failed: usize,
}

/// Which share of which suite a shard report holds.
#[derive(Serialize)]
struct ShardJson<'a> {
    index: usize,
    count: usize,
    suite: &'a str,
    suite_tests: usize,
}

/// Where a shard report's tests come from: the shard, the suite file as named on the
/// command line, and how many tests the whole suite has.
#[derive(Debug, Clone, Copy)]
pub struct ShardOrigin<'a> {
    /// The share of the tests.
    pub shard: Shard,
    /// The suite file, as named on the command line.
    pub suite: &'a str,
    /// How many tests the whole suite has.
    pub suite_tests: usize,
}

#[derive(Serialize)]
struct Test<'a> {
    name: &'a str,
    agent: Option<&'a str>,
    passed: bool,
    runs: usize,
    sources: Vec<RunOrigin<'a>>,
    metrics: BTreeMap<&'static str, u8>,
    gates: Vec<Gate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    equal_function_sets: Option<Selection<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<ToolCalls<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_correctness: Option<Correctness<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    call_accuracy: Option<Accuracy<'a>>,
}

#[derive(Serialize)]
struct Correctness<'a> {
    mode: &'static str,
    expected_tools: &'a [String],
    matched: u64,
    expected_total: u64,
    exact_runs: Option<u64>,
    score: u8,
    runs: Vec<CorrectnessRun<'a>>,
}

#[derive(Serialize)]
struct CorrectnessRun<'a> {
    run: usize,
    source: &'a str,
    line: Option<usize>,
    score: u8,
    exact: Option<bool>,
    expected: Vec<ExpectedTool<'a>>,
    extra_calls: Vec<Call>,
}

#[derive(Serialize)]
struct ExpectedTool<'a> {
    tool: &'a str,
    matched_by: Option<Call>,
}

/// Call-accuracy counts and percents of one run or of the total, in this order in both.
#[derive(Serialize)]
struct AccuracyScores {
    correct: u64,
    expected: u64,
    actual: u64,
    precision: u8,
    recall: u8,
    f1: u8,
}

impl AccuracyScores {
    fn new(counts: AccuracyCounts, metrics: AccuracyMetrics) -> Self {
        Self {
            correct: counts.correct,
            expected: counts.expected,
            actual: counts.actual,
            precision: metrics.precision.value(),
            recall: metrics.recall.value(),
            f1: metrics.f1.value(),
        }
    }
}

#[derive(Serialize)]
struct Accuracy<'a> {
    #[serde(flatten)]
    scores: AccuracyScores,
    runs: Vec<AccuracyRun<'a>>,
}

#[derive(Serialize)]
struct AccuracyRun<'a> {
    run: usize,
    source: &'a str,
    line: Option<usize>,
    #[serde(flatten)]
    scores: AccuracyScores,
    correct_calls: Vec<PairedCall<'a>>,
    incorrect_calls: Vec<IncorrectCall<'a>>,
    missed_calls: Vec<ExpectedCallJson<'a>>,
    extra_calls: Vec<Call>,
}

#[derive(Serialize)]
struct ExpectedCallJson<'a> {
    tool: &'a str,
    args: &'a Value,
}

#[derive(Serialize)]
struct PairedCall<'a> {
    expected: ExpectedCallJson<'a>,
    call: usize,
    tool: String,
}

#[derive(Serialize)]
struct IncorrectCall<'a> {
    expected: ExpectedCallJson<'a>,
    call: usize,
    tool: String,
    args: &'a Value,
    differing_keys: &'a [String],
}

#[derive(Serialize)]
struct ToolCalls<'a> {
    passed_runs: usize,
    pass_rate: u8,
    required: &'a [String],
    disallowed: &'a [String],
    sequence: &'a [String],
    runs: Vec<ToolCallsRun<'a>>,
}

#[derive(Serialize)]
struct ToolCallsRun<'a> {
    run: usize,
    source: &'a str,
    line: Option<usize>,
    passed: bool,
    unmet_required: Vec<UnmetEntry<'a>>,
    disallowed_calls: Vec<DisallowedCall<'a>>,
    sequence: Option<SequenceProgress<'a>>,
}

#[derive(Serialize)]
struct UnmetEntry<'a> {
    entry: usize,
    matcher: &'a str,
    found: u32,
    needed: u32,
    near_miss: Option<NearMissJson<'a>>,
}

/// Why a call whose name matched missed: `field` is `command`, `path`, `args.<name>`,
/// `result`, `step` or `final`; `found` is what the call had.
#[derive(Serialize)]
struct NearMissJson<'a> {
    call: usize,
    tool: &'a str,
    field: String,
    found: Option<String>,
}

#[derive(Serialize)]
struct DisallowedCall<'a> {
    entry: usize,
    matcher: &'a str,
    call: usize,
    tool: &'a str,
}

#[derive(Serialize)]
struct SequenceProgress<'a> {
    matched: usize,
    entries: usize,
    stopped_at: usize,
    matcher: &'a str,
}

/// Where each run came from, in run order.
#[derive(Serialize)]
struct RunOrigin<'a> {
    run: usize,
    source: &'a str,
    line: Option<usize>,
    format: &'a str,
    calls: usize,
}

#[derive(Serialize)]
struct Gate {
    target: &'static str,
    op: &'static str,
    value: u8,
    actual: u8,
    passed: bool,
    line: Option<usize>,
}

/// The counts and percents of one run or of the total, in this order in both.
#[derive(Serialize)]
struct Scores {
    true_positives: u64,
    false_positives: u64,
    false_negatives: u64,
    precision: u8,
    recall: u8,
    f1: u8,
}

impl Scores {
    fn new(counts: Counts, metrics: SelectionMetrics) -> Self {
        Self {
            true_positives: counts.true_positives,
            false_positives: counts.false_positives,
            false_negatives: counts.false_negatives,
            precision: metrics.precision.value(),
            recall: metrics.recall.value(),
            f1: metrics.f1.value(),
        }
    }
}

#[derive(Serialize)]
struct Selection<'a> {
    #[serde(flatten)]
    scores: Scores,
    missed_classes: Vec<RunClass<'a>>,
    unexpected_calls: Vec<RunCall>,
    repeats: Vec<RunRepeat<'a>>,
    runs: Vec<SelectionRun<'a>>,
}

#[derive(Serialize)]
struct RunClass<'a> {
    run: usize,
    class: &'a str,
}

#[derive(Serialize)]
struct RunCall {
    run: usize,
    call: usize,
    tool: String,
}

#[derive(Serialize)]
struct RunRepeat<'a> {
    run: usize,
    call: usize,
    tool: String,
    class: &'a str,
}

#[derive(Serialize)]
struct SelectionRun<'a> {
    run: usize,
    source: &'a str,
    line: Option<usize>,
    calls: usize,
    #[serde(flatten)]
    scores: Scores,
    classes: Vec<ClassMatch<'a>>,
}

#[derive(Serialize)]
struct ClassMatch<'a> {
    class: &'a str,
    satisfied_by: Option<Call>,
}

#[derive(Serialize)]
struct Call {
    call: usize,
    tool: String,
}

/// Writes the JSON report of a suite's outcome, pretty-printed, with a trailing newline.
pub fn render_json(outcome: &SuiteOutcome, out: &mut dyn Write) -> io::Result<()> {
    write_report(outcome, None, out)
}

/// Writes the JSON report of one shard of a suite: the report of its tests, with a `shard`
/// object that lets `toolgate merge` put the whole suite's report back together.
pub fn render_json_shard(
    outcome: &SuiteOutcome,
    origin: ShardOrigin<'_>,
    out: &mut dyn Write,
) -> io::Result<()> {
    write_report(outcome, Some(origin), out)
}

fn write_report(
    outcome: &SuiteOutcome,
    origin: Option<ShardOrigin<'_>>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let passed = outcome.tests.iter().filter(|t| t.passed).count();
    let report = Report {
        version: JSON_VERSION,
        shard: origin.map(|origin| ShardJson {
            index: origin.shard.index(),
            count: origin.shard.count(),
            suite: origin.suite,
            suite_tests: origin.suite_tests,
        }),
        passed: outcome.passed(),
        summary: Summary {
            tests: outcome.tests.len(),
            passed,
            failed: outcome.tests.len() - passed,
        },
        tests: outcome.tests.iter().map(test).collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}

fn test(test: &TestOutcome) -> Test<'_> {
    Test {
        name: &test.name,
        agent: test.agent.as_deref(),
        passed: test.passed,
        runs: test.runs.len(),
        sources: (1..)
            .zip(&test.runs)
            .map(|(run, info)| RunOrigin {
                run,
                source: &info.source.file,
                line: info.source.line,
                format: info.format,
                calls: info.calls,
            })
            .collect(),
        metrics: test
            .metrics
            .iter()
            .map(|(target, value)| (target.as_str(), value.value()))
            .collect(),
        gates: test
            .gates
            .iter()
            .map(|g| Gate {
                target: g.gate.target.as_str(),
                op: g.gate.op.as_str(),
                value: g.gate.value.value(),
                actual: g.actual.value(),
                passed: g.passed,
                line: g.gate.line,
            })
            .collect(),
        equal_function_sets: test.selection.as_ref().map(|s| selection(test, s)),
        tool_calls: test.tool_calls.as_ref().map(|t| tool_calls(test, t)),
        tool_correctness: test.tool_correctness.as_ref().map(|t| correctness(test, t)),
        call_accuracy: test.call_accuracy.as_ref().map(|a| accuracy(test, a)),
    }
}

fn correctness<'a>(test: &'a TestOutcome, outcome: &'a ToolCorrectnessOutcome) -> Correctness<'a> {
    Correctness {
        mode: outcome.mode,
        expected_tools: &outcome.expected,
        matched: outcome.matched,
        expected_total: outcome.expected_total,
        exact_runs: outcome.exact_runs,
        score: outcome.score.value(),
        runs: (1..)
            .zip(&test.runs)
            .zip(&outcome.runs)
            .map(|((number, info), run)| CorrectnessRun {
                run: number,
                source: &info.source.file,
                line: info.source.line,
                score: run.score.value(),
                exact: run.exact,
                expected: outcome
                    .expected
                    .iter()
                    .zip(&run.matched)
                    .map(|(tool, matched)| ExpectedTool {
                        tool,
                        matched_by: matched.as_ref().map(call),
                    })
                    .collect(),
                extra_calls: run.extra.iter().map(call).collect(),
            })
            .collect(),
    }
}

fn accuracy<'a>(test: &'a TestOutcome, outcome: &'a CallAccuracyOutcome) -> Accuracy<'a> {
    const NO_ARGS: &Value = &Value::Null;
    let expected = |index: usize| {
        outcome.expected.get(index).map_or(
            ExpectedCallJson {
                tool: "",
                args: NO_ARGS,
            },
            |(tool, args)| ExpectedCallJson { tool, args },
        )
    };
    Accuracy {
        scores: AccuracyScores::new(outcome.counts, outcome.metrics),
        runs: (1..)
            .zip(&test.runs)
            .zip(&outcome.runs)
            .map(|((number, info), run)| AccuracyRun {
                run: number,
                source: &info.source.file,
                line: info.source.line,
                scores: AccuracyScores::new(run.counts, run.metrics),
                correct_calls: run
                    .correct
                    .iter()
                    .map(|(index, called)| PairedCall {
                        expected: expected(*index),
                        call: called.call,
                        tool: called.tool.to_string(),
                    })
                    .collect(),
                incorrect_calls: run
                    .incorrect
                    .iter()
                    .map(|mismatch| IncorrectCall {
                        expected: expected(mismatch.expected),
                        call: mismatch.call.call,
                        tool: mismatch.call.tool.to_string(),
                        args: &mismatch.args,
                        differing_keys: &mismatch.differing,
                    })
                    .collect(),
                missed_calls: run.missed.iter().map(|index| expected(*index)).collect(),
                extra_calls: run.extra.iter().map(call).collect(),
            })
            .collect(),
    }
}

fn tool_calls<'a>(test: &'a TestOutcome, outcome: &'a ToolCallsOutcome) -> ToolCalls<'a> {
    let described = |list: &'a [String], index: usize| list.get(index).map_or("", String::as_str);
    ToolCalls {
        passed_runs: outcome.passed_runs,
        pass_rate: outcome.pass_rate.value(),
        required: &outcome.required,
        disallowed: &outcome.disallowed,
        sequence: &outcome.sequence,
        runs: (1..)
            .zip(&test.runs)
            .zip(&outcome.runs)
            .map(|((number, info), run)| ToolCallsRun {
                run: number,
                source: &info.source.file,
                line: info.source.line,
                passed: run.passed,
                unmet_required: run
                    .unmet
                    .iter()
                    .map(|unmet| UnmetEntry {
                        entry: unmet.entry + 1,
                        matcher: described(&outcome.required, unmet.entry),
                        found: unmet.found,
                        needed: unmet.needed,
                        near_miss: unmet.near_miss.as_ref().map(near_miss),
                    })
                    .collect(),
                disallowed_calls: run
                    .violations
                    .iter()
                    .map(|violation| DisallowedCall {
                        entry: violation.entry + 1,
                        matcher: described(&outcome.disallowed, violation.entry),
                        call: violation.call,
                        tool: &violation.tool,
                    })
                    .collect(),
                sequence: run.sequence_stopped_at.map(|stopped| SequenceProgress {
                    matched: stopped,
                    entries: outcome.sequence.len(),
                    stopped_at: stopped + 1,
                    matcher: described(&outcome.sequence, stopped),
                }),
            })
            .collect(),
    }
}

fn near_miss(near: &NearMiss) -> NearMissJson<'_> {
    let (field, found) = match &near.miss {
        Miss::Field { field, found } => (field.clone(), found.clone()),
        Miss::Step { step } => ("step".to_owned(), Some(step.to_string())),
        Miss::NotFinal => ("final".to_owned(), None),
    };
    NearMissJson {
        call: near.call,
        tool: &near.tool,
        field,
        found,
    }
}

fn selection<'a>(test: &'a TestOutcome, selection: &'a SelectionOutcome) -> Selection<'a> {
    let class_name = |index: usize| selection.classes.get(index).map_or("", |c| c.as_str());
    let mut missed_classes = Vec::new();
    let mut unexpected_calls = Vec::new();
    let mut repeats = Vec::new();
    let mut runs = Vec::new();
    for ((number, info), run) in (1..).zip(&test.runs).zip(&selection.runs) {
        for (index, satisfied) in run.satisfied_by.iter().enumerate() {
            if satisfied.is_none() {
                missed_classes.push(RunClass {
                    run: number,
                    class: class_name(index),
                });
            }
        }
        unexpected_calls.extend(run.unexpected.iter().map(|c| RunCall {
            run: number,
            call: c.call,
            tool: c.tool.to_string(),
        }));
        repeats.extend(run.repeats.iter().map(|(c, class)| RunRepeat {
            run: number,
            call: c.call,
            tool: c.tool.to_string(),
            class: class_name(*class),
        }));
        runs.push(SelectionRun {
            run: number,
            source: &info.source.file,
            line: info.source.line,
            calls: info.calls,
            scores: Scores::new(run.counts, run.metrics),
            classes: run
                .satisfied_by
                .iter()
                .enumerate()
                .map(|(index, satisfied)| ClassMatch {
                    class: class_name(index),
                    satisfied_by: satisfied.as_ref().map(call),
                })
                .collect(),
        });
    }
    Selection {
        scores: Scores::new(selection.counts, selection.metrics),
        missed_classes,
        unexpected_calls,
        repeats,
        runs,
    }
}

fn call(called: &CalledTool) -> Call {
    Call {
        call: called.call,
        tool: called.tool.to_string(),
    }
}
