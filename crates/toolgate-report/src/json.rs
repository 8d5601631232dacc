//! The JSON report: a versioned document built from structs in declaration order.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{self, BufRead, Seek, Write};

use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};
use serde_json::Value;
use toolgate_core::{AccuracyCounts, AccuracyMetrics, Counts, SelectionMetrics};
use toolgate_expect::{
    ArgumentCounts, CalledTool, Miss, NearMiss, RunAccuracy, RunCorrectness, RunInfo, RunOutcome,
    RunSelectionOutcome, RunToolCalls, Shard, SuiteOutcome, Test as SuiteTest, TestOutcome,
    ToolMatch,
};

use crate::transcode::JsonText;

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
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
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
    suite_digest: &'a str,
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
    /// A digest of the suite file's text (SHA-256, in hex), so that `merge` refuses shards
    /// of different suites.
    pub suite_digest: &'a str,
}

#[derive(Serialize)]
struct Test<'a> {
    name: &'a str,
    agent: Option<&'a str>,
    passed: bool,
    runs: usize,
    sources: Listed<'a>,
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
    runs: Listed<'a>,
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
    /// With `check_ordering`: the call of this tool made out of order, when none was in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    out_of_order: Option<Call>,
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
    /// Expected top-level arguments matched in paired calls, and expected in all.
    arguments_matched: u64,
    arguments_expected: u64,
    arguments: u8,
}

impl AccuracyScores {
    fn new(counts: AccuracyCounts, metrics: AccuracyMetrics, arguments: ArgumentCounts) -> Self {
        Self {
            correct: counts.correct,
            expected: counts.expected,
            actual: counts.actual,
            precision: metrics.precision.value(),
            recall: metrics.recall.value(),
            f1: metrics.f1.value(),
            arguments_matched: arguments.matched,
            arguments_expected: arguments.expected,
            arguments: arguments.percent().value(),
        }
    }
}

#[derive(Serialize)]
struct Accuracy<'a> {
    #[serde(flatten)]
    scores: AccuracyScores,
    runs: Listed<'a>,
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
    /// The first argument that failed its matcher: where, the matcher, and what the call had.
    mismatch: Option<MismatchJson<'a>>,
}

#[derive(Serialize)]
struct MismatchJson<'a> {
    path: &'a str,
    expected: &'a str,
    found: Option<&'a str>,
}

#[derive(Serialize)]
struct ToolCalls<'a> {
    passed_runs: usize,
    pass_rate: u8,
    required: &'a [String],
    disallowed: &'a [String],
    sequence: &'a [String],
    runs: Listed<'a>,
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
    missed_classes: Listed<'a>,
    unexpected_calls: Listed<'a>,
    repeats: Listed<'a>,
    runs: Listed<'a>,
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
///
/// The runs listed are the outcome's own ([`TestOutcome::runs`]): every run of a test with
/// at most [`toolgate_expect::LISTED_RUNS`]. A report of every run of larger tests is
/// written from [`JsonRuns`] collected while the runs were scored, with
/// [`render_json_runs`].
pub fn render_json(outcome: &SuiteOutcome, out: &mut dyn Write) -> io::Result<()> {
    render_json_runs(outcome, JsonRuns::from_outcome(outcome)?, None, out)
}

/// Writes the JSON report of one shard of a suite: the report of its tests, with a `shard`
/// object that lets `toolgate merge` put the whole suite's report back together.
pub fn render_json_shard(
    outcome: &SuiteOutcome,
    origin: ShardOrigin<'_>,
    out: &mut dyn Write,
) -> io::Result<()> {
    render_json_runs(outcome, JsonRuns::from_outcome(outcome)?, Some(origin), out)
}

/// Writes the JSON report of a suite's outcome with every run that `runs` collected, one
/// test of `runs` per test of `outcome`, in order; with `origin`, as the report of a shard.
pub fn render_json_runs(
    outcome: &SuiteOutcome,
    runs: JsonRuns,
    origin: Option<ShardOrigin<'_>>,
    out: &mut dyn Write,
) -> io::Result<()> {
    if runs.spills.tests.len() != outcome.tests.len() {
        return Err(io::Error::other(
            "the runs collected are not those of the outcome's tests",
        ));
    }
    let Spills { lists, tests, .. } = runs.spills;
    let readers = lists
        .into_iter()
        .map(Spill::into_reader)
        .collect::<io::Result<Vec<_>>>()?;
    let passed = outcome.tests.iter().filter(|t| t.passed).count();
    let report = Report {
        version: JSON_VERSION,
        shard: origin.map(|origin| ShardJson {
            index: origin.shard.index(),
            count: origin.shard.count(),
            suite: origin.suite,
            suite_tests: origin.suite_tests,
            suite_digest: origin.suite_digest,
        }),
        passed: outcome.passed(),
        summary: Summary {
            tests: outcome.tests.len(),
            passed,
            failed: outcome.tests.len() - passed,
        },
        tests: outcome
            .tests
            .iter()
            .zip(&tests)
            .map(|(outcome, counts)| test(outcome, &readers, counts))
            .collect(),
        notes: &outcome.notes,
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}

/// The lists of the JSON report that hold an entry per run (or per call of a run), in the
/// order of [`JsonRuns::lists`].
#[derive(Debug, Clone, Copy)]
enum List {
    Sources,
    MissedClasses,
    UnexpectedCalls,
    Repeats,
    SelectionRuns,
    ToolCallsRuns,
    CorrectnessRuns,
    AccuracyRuns,
}

const LISTS: usize = 8;

/// The entries of every run-sized list of the JSON report, written one compact JSON line
/// each as the runs are scored, and read back, in order, while the report is written.
/// Spilled to anonymous temporary files, a report of a million runs holds none of them in
/// memory.
#[derive(Debug)]
pub struct JsonRuns {
    spills: Spills,
    /// The names and descriptions of the test being collected.
    context: Context,
}

/// The entries written so far: one spill per list, and per test how many each holds.
#[derive(Debug)]
struct Spills {
    lists: Vec<Spill>,
    /// Per test, how many entries each list holds.
    tests: Vec<[usize; LISTS]>,
    line: Vec<u8>,
}

#[derive(Debug)]
enum Spill {
    Memory(Vec<u8>),
    File(io::BufWriter<std::fs::File>),
}

impl JsonRuns {
    /// Collects the entries in anonymous temporary files.
    pub fn spilled() -> io::Result<Self> {
        let lists = (0..LISTS)
            .map(|_| tempfile::tempfile().map(|file| Spill::File(io::BufWriter::new(file))))
            .collect::<io::Result<_>>()?;
        Ok(Self::with(lists))
    }

    /// Collects the entries in memory.
    pub fn in_memory() -> Self {
        Self::with((0..LISTS).map(|_| Spill::Memory(Vec::new())).collect())
    }

    fn with(lists: Vec<Spill>) -> Self {
        Self {
            spills: Spills {
                lists,
                tests: Vec::new(),
                line: Vec::new(),
            },
            context: Context::default(),
        }
    }

    /// The entries of the runs an outcome lists.
    fn from_outcome(outcome: &SuiteOutcome) -> io::Result<Self> {
        let mut runs = Self::in_memory();
        for test in &outcome.tests {
            runs.context = Context::of_outcome(test);
            runs.spills.tests.push([0; LISTS]);
            for (index, info) in test.runs.iter().enumerate() {
                runs.push_parts(RunParts {
                    info,
                    selection: test.selection.as_ref().and_then(|s| s.runs.get(index)),
                    tool_calls: test.tool_calls.as_ref().and_then(|t| t.runs.get(index)),
                    correctness: test
                        .tool_correctness
                        .as_ref()
                        .and_then(|t| t.runs.get(index)),
                    accuracy: test.call_accuracy.as_ref().and_then(|a| a.runs.get(index)),
                })?;
            }
        }
        Ok(runs)
    }

    /// Begins the next test; its runs follow with [`push`](Self::push).
    pub fn start_test(&mut self, test: &SuiteTest) {
        self.context = Context::of_test(test);
        self.spills.tests.push([0; LISTS]);
    }

    /// Adds the entries of the test's next run.
    pub fn push(&mut self, run: &RunOutcome) -> io::Result<()> {
        self.push_parts(RunParts {
            info: &run.info,
            selection: run.selection.as_ref(),
            tool_calls: run.tool_calls.as_ref(),
            correctness: run.tool_correctness.as_ref(),
            accuracy: run.call_accuracy.as_ref(),
        })
    }

    fn push_parts(&mut self, run: RunParts<'_>) -> io::Result<()> {
        self.spills.push(&self.context, &run)
    }
}

impl Spills {
    /// Writes every entry of one run.
    fn push(&mut self, context: &Context, run: &RunParts<'_>) -> io::Result<()> {
        let info = run.info;
        let number = info.number;
        self.entry(
            List::Sources,
            &RunOrigin {
                run: number,
                source: &info.source.file,
                line: info.source.line,
                format: info.format,
                calls: info.calls,
            },
        )?;
        if let Some(selection) = run.selection {
            let class_name = |index: usize| context.classes.get(index).map_or("", String::as_str);
            for (index, satisfied) in selection.satisfied_by.iter().enumerate() {
                if satisfied.is_none() {
                    self.entry(
                        List::MissedClasses,
                        &RunClass {
                            run: number,
                            class: class_name(index),
                        },
                    )?;
                }
            }
            for c in &selection.unexpected {
                self.entry(
                    List::UnexpectedCalls,
                    &RunCall {
                        run: number,
                        call: c.call,
                        tool: c.tool.to_string(),
                    },
                )?;
            }
            for (c, class) in &selection.repeats {
                self.entry(
                    List::Repeats,
                    &RunRepeat {
                        run: number,
                        call: c.call,
                        tool: c.tool.to_string(),
                        class: class_name(*class),
                    },
                )?;
            }
            self.entry(
                List::SelectionRuns,
                &SelectionRun {
                    run: number,
                    source: &info.source.file,
                    line: info.source.line,
                    calls: info.calls,
                    scores: Scores::new(selection.counts, selection.metrics),
                    classes: selection
                        .satisfied_by
                        .iter()
                        .enumerate()
                        .map(|(index, satisfied)| ClassMatch {
                            class: class_name(index),
                            satisfied_by: satisfied.as_ref().map(call),
                        })
                        .collect(),
                },
            )?;
        }
        if let Some(verdict) = run.tool_calls {
            self.entry(List::ToolCallsRuns, &tool_calls_run(context, info, verdict))?;
        }
        if let Some(correctness) = run.correctness {
            self.entry(
                List::CorrectnessRuns,
                &correctness_run(context, info, correctness),
            )?;
        }
        if let Some(accuracy) = run.accuracy {
            self.entry(List::AccuracyRuns, &accuracy_run(context, info, accuracy))?;
        }
        Ok(())
    }

    /// Writes one entry of `list` for the current test.
    fn entry(&mut self, list: List, entry: &impl Serialize) -> io::Result<()> {
        let index = list as usize;
        self.line.clear();
        serde_json::to_writer(&mut self.line, entry)?;
        self.line.push(b'\n');
        match &mut self.lists[index] {
            Spill::Memory(bytes) => bytes.extend_from_slice(&self.line),
            Spill::File(file) => file.write_all(&self.line)?,
        }
        if let Some(counts) = self.tests.last_mut() {
            counts[index] += 1;
        }
        Ok(())
    }
}

impl Spill {
    /// The entries written, for reading from the first.
    fn into_reader(self) -> io::Result<RefCell<Box<dyn BufRead>>> {
        let reader: Box<dyn BufRead> = match self {
            Self::Memory(bytes) => Box::new(io::Cursor::new(bytes)),
            Self::File(file) => {
                let mut file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
                file.seek(io::SeekFrom::Start(0))?;
                Box::new(io::BufReader::new(file))
            }
        };
        Ok(RefCell::new(reader))
    }
}

/// One run's parts, from a [`RunOutcome`] or from the lists of a [`TestOutcome`].
#[derive(Clone, Copy)]
struct RunParts<'a> {
    info: &'a RunInfo,
    selection: Option<&'a RunSelectionOutcome>,
    tool_calls: Option<&'a RunToolCalls>,
    correctness: Option<&'a RunCorrectness>,
    accuracy: Option<&'a RunAccuracy>,
}

/// What a test's run entries name: its classes, its `tool-calls` entries described, its
/// expected tools and calls.
#[derive(Debug, Default)]
struct Context {
    classes: Vec<String>,
    required: Vec<String>,
    disallowed: Vec<String>,
    sequence: Vec<String>,
    expected_tools: Vec<String>,
    expected_calls: Vec<(String, Value)>,
}

impl Context {
    fn of_test(test: &SuiteTest) -> Self {
        let described = |list: &[ToolMatch]| list.iter().map(ToString::to_string).collect();
        Self {
            classes: test
                .equal_function_sets
                .as_ref()
                .map(|efs| {
                    efs.classes
                        .classes()
                        .iter()
                        .map(|c| c.name.as_str().to_owned())
                        .collect()
                })
                .unwrap_or_default(),
            required: test
                .tool_calls
                .as_ref()
                .map(|g| g.required.iter().map(ToString::to_string).collect())
                .unwrap_or_default(),
            disallowed: test
                .tool_calls
                .as_ref()
                .map(|g| described(&g.disallowed))
                .unwrap_or_default(),
            sequence: test
                .tool_calls
                .as_ref()
                .map(|g| described(&g.sequence))
                .unwrap_or_default(),
            expected_tools: test
                .tool_correctness
                .as_ref()
                .map(|g| g.expected.iter().map(ToString::to_string).collect())
                .unwrap_or_default(),
            expected_calls: test
                .call_accuracy
                .as_ref()
                .map(|g| {
                    g.expected
                        .iter()
                        .map(|call| (call.tool.to_string(), call.args_as_written()))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    fn of_outcome(test: &TestOutcome) -> Self {
        Self {
            classes: test
                .selection
                .as_ref()
                .map(|s| s.classes.iter().map(|c| c.as_str().to_owned()).collect())
                .unwrap_or_default(),
            required: test
                .tool_calls
                .as_ref()
                .map(|t| t.required.clone())
                .unwrap_or_default(),
            disallowed: test
                .tool_calls
                .as_ref()
                .map(|t| t.disallowed.clone())
                .unwrap_or_default(),
            sequence: test
                .tool_calls
                .as_ref()
                .map(|t| t.sequence.clone())
                .unwrap_or_default(),
            expected_tools: test
                .tool_correctness
                .as_ref()
                .map(|t| t.expected.clone())
                .unwrap_or_default(),
            expected_calls: test
                .call_accuracy
                .as_ref()
                .map(|a| a.expected.clone())
                .unwrap_or_default(),
        }
    }
}

/// A run-sized list of the report, read back from its spill as it is written.
struct Listed<'a> {
    reader: &'a RefCell<Box<dyn BufRead>>,
    count: usize,
}

impl Serialize for Listed<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut reader = self
            .reader
            .try_borrow_mut()
            .map_err(serde::ser::Error::custom)?;
        let mut seq = serializer.serialize_seq(Some(self.count))?;
        let mut line = String::new();
        for _ in 0..self.count {
            line.clear();
            reader
                .read_line(&mut line)
                .map_err(serde::ser::Error::custom)?;
            seq.serialize_element(&JsonText(line.trim_end()))?;
        }
        seq.end()
    }
}

fn test<'a>(
    test: &'a TestOutcome,
    readers: &'a [RefCell<Box<dyn BufRead>>],
    counts: &[usize; LISTS],
) -> Test<'a> {
    let listed = |list: List| Listed {
        reader: &readers[list as usize],
        count: counts[list as usize],
    };
    Test {
        name: &test.name,
        agent: test.agent.as_deref(),
        passed: test.passed,
        runs: test.run_count,
        sources: listed(List::Sources),
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
        equal_function_sets: test.selection.as_ref().map(|s| Selection {
            scores: Scores::new(s.counts, s.metrics),
            missed_classes: listed(List::MissedClasses),
            unexpected_calls: listed(List::UnexpectedCalls),
            repeats: listed(List::Repeats),
            runs: listed(List::SelectionRuns),
        }),
        tool_calls: test.tool_calls.as_ref().map(|t| ToolCalls {
            passed_runs: t.passed_runs,
            pass_rate: t.pass_rate.value(),
            required: &t.required,
            disallowed: &t.disallowed,
            sequence: &t.sequence,
            runs: listed(List::ToolCallsRuns),
        }),
        tool_correctness: test.tool_correctness.as_ref().map(|t| Correctness {
            mode: t.mode,
            expected_tools: &t.expected,
            matched: t.matched,
            expected_total: t.expected_total,
            exact_runs: t.exact_runs,
            score: t.score.value(),
            runs: listed(List::CorrectnessRuns),
        }),
        call_accuracy: test.call_accuracy.as_ref().map(|a| Accuracy {
            scores: AccuracyScores::new(a.counts, a.metrics, a.arguments),
            runs: listed(List::AccuracyRuns),
        }),
    }
}

fn accuracy_run<'a>(
    context: &'a Context,
    info: &'a RunInfo,
    run: &'a RunAccuracy,
) -> AccuracyRun<'a> {
    const NO_ARGS: &Value = &Value::Null;
    let expected = |index: usize| {
        context.expected_calls.get(index).map_or(
            ExpectedCallJson {
                tool: "",
                args: NO_ARGS,
            },
            |(tool, args)| ExpectedCallJson { tool, args },
        )
    };
    AccuracyRun {
        run: info.number,
        source: &info.source.file,
        line: info.source.line,
        scores: AccuracyScores::new(run.counts, run.metrics, run.arguments),
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
                args: mismatch.args.get(),
                differing_keys: &mismatch.differing,
                mismatch: mismatch.why.as_ref().map(|why| MismatchJson {
                    path: &why.path,
                    expected: &why.expected,
                    found: why.actual.as_deref(),
                }),
            })
            .collect(),
        missed_calls: run.missed.iter().map(|index| expected(*index)).collect(),
        extra_calls: run.extra.iter().map(call).collect(),
    }
}

fn tool_calls_run<'a>(
    context: &'a Context,
    info: &'a RunInfo,
    run: &'a RunToolCalls,
) -> ToolCallsRun<'a> {
    let described = |list: &'a [String], index: usize| list.get(index).map_or("", String::as_str);
    ToolCallsRun {
        run: info.number,
        source: &info.source.file,
        line: info.source.line,
        passed: run.passed,
        unmet_required: run
            .unmet
            .iter()
            .map(|unmet| UnmetEntry {
                entry: unmet.entry + 1,
                matcher: described(&context.required, unmet.entry),
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
                matcher: described(&context.disallowed, violation.entry),
                call: violation.call,
                tool: &violation.tool,
            })
            .collect(),
        sequence: run.sequence_stopped_at.map(|stopped| SequenceProgress {
            matched: stopped,
            entries: context.sequence.len(),
            stopped_at: stopped + 1,
            matcher: described(&context.sequence, stopped),
        }),
    }
}

/// A tool-correctness run as the report lists it.
fn correctness_run<'a>(
    context: &'a Context,
    info: &'a RunInfo,
    correctness: &RunCorrectness,
) -> CorrectnessRun<'a> {
    CorrectnessRun {
        run: info.number,
        source: &info.source.file,
        line: info.source.line,
        score: correctness.score.value(),
        exact: correctness.exact,
        expected: context
            .expected_tools
            .iter()
            .zip(&correctness.matched)
            .enumerate()
            .map(|(index, (tool, matched))| ExpectedTool {
                tool,
                matched_by: matched.as_ref().map(call),
                out_of_order: correctness
                    .out_of_order
                    .get(index)
                    .and_then(Option::as_ref)
                    .map(call),
            })
            .collect(),
        extra_calls: correctness.extra.iter().map(call).collect(),
    }
}

fn near_miss(near: &NearMiss) -> NearMissJson<'_> {
    let (field, found) = match &near.miss {
        Miss::Field { field, found } => (field.clone(), found.clone()),
        Miss::Step { step } => ("step".to_owned(), Some(step.to_string())),
        Miss::NotFinal => ("final".to_owned(), None),
        Miss::NoResult => ("completed".to_owned(), None),
    };
    NearMissJson {
        call: near.call,
        tool: &near.tool,
        field,
        found,
    }
}

fn call(called: &CalledTool) -> Call {
    Call {
        call: called.call,
        tool: called.tool.to_string(),
    }
}
