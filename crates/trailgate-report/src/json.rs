//! The JSON report: a versioned document built from structs in declaration order, with
//! each grader's object as the grader serialized it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use trailgate_expect::MetricValue;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use trailgate_expect::{
    Entries, EntrySink, JSON_LISTS, JsonContext, JsonField, JsonPart, RunInfo, RunOutcome,
    RunTools, Shard, Stability, SuiteOutcome, Tally, Test as SuiteTest, TestOutcome,
};

use crate::layout::{RawJson, write_report};
use crate::spill::Spill;
use crate::transcode::JsonText;

/// The version of the JSON report's layout. It changes only when a field changes meaning
/// or disappears; new fields may be added within a version.
///
/// Version 2 (issue 24) says each thing once: a grader's run entries no longer repeat the
/// run's source and line (they are in `sources`), nor what the test expects (named by its
/// number in the grader's object), and each entry of a list in a test is one line.
///
/// Version 3 (issue 41) says each call's tool once per run: a run's `sources` entry lists
/// the tool of each of its calls (`tools`), and a finding names a call by its number alone;
/// the equal-function sets name their classes once, and a run's entry lists which call
/// satisfied each, in the classes' order.
pub const JSON_VERSION: u32 = 3;

/// The oldest version `diff`, `trend`, `compare` and `check --baseline` read: what they read
/// of a report (its tests' names, verdicts, metrics, gates and runs' sources) is the same
/// from version 2 on. `merge`, which puts the graders' objects together, reads
/// [`JSON_VERSION`] only.
pub(crate) const OLDEST_READ_VERSION: u32 = 2;

// The readers' messages name the versions they read as "2 and 3": a third needs them reworded.
const _: () = assert!(OLDEST_READ_VERSION + 1 == JSON_VERSION);

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

/// A report's counts (docs/reports.md): `passed` and `failed` count unmarked tests, and
/// `xfailed` and `xpassed`, present when a test is marked, the marked ones
/// (docs/reliability.md#expected-failures).
#[derive(Serialize)]
pub(crate) struct Summary {
    pub(crate) tests: usize,
    pub(crate) passed: usize,
    pub(crate) failed: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) xfailed: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) xpassed: Option<usize>,
}

impl From<Tally> for Summary {
    fn from(tally: Tally) -> Self {
        Self {
            tests: tally.tests(),
            passed: tally.passed,
            failed: tally.failed,
            xfailed: tally.marked.then_some(tally.xfailed),
            xpassed: tally.marked.then_some(tally.xpassed),
        }
    }
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
#[derive(Debug, Clone)]
pub struct ShardOrigin {
    /// The share of the tests.
    pub shard: Shard,
    /// The suite file, as named on the command line.
    pub suite: String,
    /// How many tests the whole suite has.
    pub suite_tests: usize,
    /// A digest of the suite file's text (SHA-256, in hex), so that `merge` refuses shards
    /// of different suites.
    pub suite_digest: String,
}

#[derive(Serialize)]
struct Test<'a> {
    name: &'a str,
    agent: Option<&'a str>,
    passed: bool,
    runs: usize,
    passed_runs: usize,
    /// With two runs or more (docs/reliability.md#flaky-tests-and-quarantine).
    #[serde(skip_serializing_if = "Option::is_none")]
    stability: Option<&'static str>,
    /// Why a marked test is expected to fail, and its verdict, `xfail` or `xpass`.
    #[serde(skip_serializing_if = "Option::is_none")]
    xfail: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<&'static str>,
    sources: Listed<'a>,
    metrics: BTreeMap<&'static str, MetricValue>,
    gates: Vec<Gate<'a>>,
    /// Only when a call has an agent, so that reports of traces without agents keep their
    /// bytes (docs/reports.md#agents).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    agents: Vec<AgentRow<'a>>,
    #[serde(flatten)]
    graders: Parts<'a>,
}

/// A row of a test's per-agent table.
#[derive(Serialize)]
pub(crate) struct AgentRow<'a> {
    agent: &'a str,
    calls: u64,
    errors: u64,
    tools: Vec<&'a str>,
}

/// A test's per-agent table, by agent name; empty when no call has an agent.
pub(crate) fn agent_rows(test: &TestOutcome) -> Vec<AgentRow<'_>> {
    test.agents
        .rows()
        .map(|(agent, row)| AgentRow {
            agent,
            calls: row.calls,
            errors: row.errors,
            tools: row.tools.iter().map(String::as_str).collect(),
        })
        .collect()
}

/// Each grader's object, under its key, as the grader wrote it.
struct Parts<'a> {
    each: Vec<JsonPart>,
    readers: &'a [RefCell<Box<dyn BufRead>>],
    counts: &'a [usize; LISTS],
}

impl Serialize for Parts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.each.len()))?;
        for part in &self.each {
            map.serialize_entry(part.key, &Part { part, parts: self })?;
        }
        map.end()
    }
}

/// One grader's object: its values as the grader serialized them, its lists read back.
struct Part<'a> {
    part: &'a JsonPart,
    parts: &'a Parts<'a>,
}

impl Serialize for Part<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.part.fields.len()))?;
        for (name, field) in &self.part.fields {
            match field {
                JsonField::Value(text) => map.serialize_entry(name, &JsonText(text))?,
                JsonField::List(list) => {
                    let (Some(reader), Some(count)) =
                        (self.parts.readers.get(*list), self.parts.counts.get(*list))
                    else {
                        return Err(serde::ser::Error::custom("a grader names an unknown list"));
                    };
                    map.serialize_entry(
                        name,
                        &Listed {
                            reader,
                            count: *count,
                        },
                    )?;
                }
            }
        }
        map.end()
    }
}

/// Where each run came from, in run order: an entry of a test's `sources`, and the head of
/// a run's line in JSON Lines.
#[derive(Serialize)]
pub(crate) struct RunOrigin<'a> {
    run: usize,
    source: std::borrow::Cow<'a, str>,
    line: Option<usize>,
    format: &'a str,
    calls: usize,
    passed: bool,
    /// Each call's tool, in call order: the findings name a call by its number alone.
    tools: &'a RunTools,
}

impl<'a> RunOrigin<'a> {
    pub(crate) fn of(info: &'a RunInfo) -> Self {
        Self {
            run: info.number,
            source: info.source.file_and_trace(),
            line: info.source.line,
            format: info.format,
            calls: info.calls,
            passed: info.passed,
            tools: &info.tools,
        }
    }
}

#[derive(Serialize)]
pub(crate) struct Gate<'a> {
    target: &'static str,
    op: &'static str,
    /// `None` (null) for a skipped gate: there was nothing to compare with.
    value: Option<MetricValue>,
    actual: MetricValue,
    /// `None` (null) for a skipped gate, which neither passes nor fails.
    passed: Option<bool>,
    line: Option<usize>,
    /// A remark on a verdict that stands (an inconclusive reliability gate).
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<crate::baseline::GateBaseline>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<&'a str>,
}

/// Writes the JSON report of a suite's outcome, in the layout of [`crate::layout`], with a
/// trailing newline.
///
/// The runs listed are the outcome's own ([`TestOutcome::runs`]): every run of a test with
/// at most [`trailgate_expect::LISTED_RUNS`]. A report of every run of larger tests is
/// written from [`JsonRuns`] collected while the runs were scored, with
/// [`render_json_runs`].
pub fn render_json(outcome: &SuiteOutcome, out: &mut dyn Write) -> io::Result<()> {
    render_json_runs(outcome, JsonRuns::from_outcome(outcome)?, None, out)
}

/// Writes the JSON report of one shard of a suite: the report of its tests, with a `shard`
/// object that lets `trailgate merge` put the whole suite's report back together.
pub fn render_json_shard(
    outcome: &SuiteOutcome,
    origin: &ShardOrigin,
    out: &mut dyn Write,
) -> io::Result<()> {
    render_json_runs(outcome, JsonRuns::from_outcome(outcome)?, Some(origin), out)
}

/// Writes the JSON report of a suite's outcome with every run that `runs` collected, one
/// test of `runs` per test of `outcome`, in order; with `origin`, as the report of a shard.
pub fn render_json_runs(
    outcome: &SuiteOutcome,
    runs: JsonRuns,
    origin: Option<&ShardOrigin>,
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
        .map(|spill| spill.into_reader().map(RefCell::new))
        .collect::<io::Result<Vec<_>>>()?;
    let report = Report {
        version: JSON_VERSION,
        shard: origin.map(|origin| ShardJson {
            index: origin.shard.index(),
            count: origin.shard.count(),
            suite: &origin.suite,
            suite_tests: origin.suite_tests,
            suite_digest: &origin.suite_digest,
        }),
        passed: outcome.passed(),
        summary: outcome.tally().into(),
        tests: outcome
            .tests
            .iter()
            .zip(&tests)
            .map(|(outcome, counts)| test(outcome, &readers, counts))
            .collect(),
        notes: &outcome.notes,
    };
    write_report(out, &report)
}

/// The run-sized lists of the JSON report: the graders' ([`JSON_LISTS`] of them), then
/// the test's sources.
const LISTS: usize = JSON_LISTS + 1;

/// The list of each run's source.
const SOURCES: usize = JSON_LISTS;

/// The entries of every run-sized list of the JSON report, written one compact JSON line
/// each as the runs are scored, and read back, in order, while the report is written.
/// Spilled to anonymous temporary files, a report of a million runs holds none of them in
/// memory.
#[derive(Debug)]
pub struct JsonRuns {
    spills: Spills,
    /// The names and descriptions of the test being collected.
    context: JsonContext,
}

/// The entries written so far: one spill per list, and per test how many each holds.
#[derive(Debug)]
struct Spills {
    lists: Vec<Spill>,
    /// Per test, how many entries each list holds.
    tests: Vec<[usize; LISTS]>,
    line: Vec<u8>,
}

impl JsonRuns {
    /// Collects the entries in anonymous temporary files.
    pub fn spilled() -> io::Result<Self> {
        let lists = (0..LISTS)
            .map(|_| Spill::file())
            .collect::<io::Result<_>>()?;
        Ok(Self::with(lists))
    }

    /// Collects the entries in memory.
    pub fn in_memory() -> Self {
        Self::with((0..LISTS).map(|_| Spill::memory()).collect())
    }

    fn with(lists: Vec<Spill>) -> Self {
        Self {
            spills: Spills {
                lists,
                tests: Vec::new(),
                line: Vec::new(),
            },
            context: JsonContext::default(),
        }
    }

    /// The entries of the runs an outcome lists.
    fn from_outcome(outcome: &SuiteOutcome) -> io::Result<Self> {
        let mut runs = Self::in_memory();
        for test in &outcome.tests {
            runs.context = JsonContext::of_outcome(test);
            runs.spills.tests.push([0; LISTS]);
            for (index, info) in test.runs.iter().enumerate() {
                runs.spills.source(info)?;
                test.write_listed_json_entries(
                    index,
                    &runs.context,
                    &mut Entries::new(&mut runs.spills),
                )?;
            }
        }
        Ok(runs)
    }

    /// Begins the next test; its runs follow with [`push`](Self::push).
    pub fn start_test(&mut self, test: &SuiteTest) {
        self.context = JsonContext::of_test(test);
        self.spills.tests.push([0; LISTS]);
    }

    /// Adds the entries of the test's next run.
    pub fn push(&mut self, run: &RunOutcome) -> io::Result<()> {
        self.spills.source(&run.info)?;
        run.write_json_entries(&self.context, &mut Entries::new(&mut self.spills))
    }
}

impl Spills {
    /// Writes the entry of where a run came from.
    fn source(&mut self, info: &RunInfo) -> io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, &RunOrigin::of(info))?;
        let line = std::mem::take(&mut self.line);
        let written = self.entry(SOURCES, &line);
        self.line = line;
        written
    }
}

impl EntrySink for Spills {
    /// Writes one entry of `list` for the current test, as one line.
    fn entry(&mut self, list: usize, json: &[u8]) -> io::Result<()> {
        let Some(spill) = self.lists.get_mut(list) else {
            return Err(io::Error::other("a grader writes to an unknown list"));
        };
        spill.line(&[json])?;
        if let Some(counts) = self.tests.last_mut() {
            counts[list] += 1;
        }
        Ok(())
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
        let mut left = self.count;
        let mut line = String::new();
        while left > 0 {
            // The whole lines in the reader's buffer, up to those left, in one block.
            let buffered = reader.fill_buf().map_err(serde::ser::Error::custom)?;
            if buffered.is_empty() {
                return Err(serde::ser::Error::custom("a list's spill ends early"));
            }
            let (lines, end) = whole_lines(buffered, left);
            if lines == 0 {
                // A line longer than the buffer: read on its own.
                line.clear();
                reader
                    .read_line(&mut line)
                    .map_err(serde::ser::Error::custom)?;
                seq.serialize_element(&RawJson(line.trim_end()))?;
                left -= 1;
                continue;
            }
            let block =
                std::str::from_utf8(&buffered[..end - 1]).map_err(serde::ser::Error::custom)?;
            seq.serialize_element(&RawJson(block))?;
            reader.consume(end);
            left -= lines;
        }
        seq.end()
    }
}

/// How many whole lines `bytes` begins with, at most `most`, and where the last of them
/// ends (past its line break).
fn whole_lines(bytes: &[u8], most: usize) -> (usize, usize) {
    let mut lines = 0;
    let mut end = 0;
    for newline in memchr::memchr_iter(b'\n', bytes) {
        lines += 1;
        end = newline + 1;
        if lines == most {
            break;
        }
    }
    (lines, end)
}

fn test<'a>(
    test: &'a TestOutcome,
    readers: &'a [RefCell<Box<dyn BufRead>>],
    counts: &'a [usize; LISTS],
) -> Test<'a> {
    Test {
        name: &test.name,
        agent: test.agent.as_deref(),
        passed: test.passed,
        runs: test.run_count,
        passed_runs: test.passed_runs,
        stability: test.stability().map(Stability::as_str),
        xfail: test.xfail.as_deref(),
        verdict: test.verdict().marked_word(),
        sources: Listed {
            reader: &readers[SOURCES],
            count: counts[SOURCES],
        },
        metrics: metrics(test),
        gates: gates(test),
        agents: agent_rows(test),
        graders: Parts {
            each: test.json_parts(),
            readers,
            counts,
        },
    }
}

/// A test's metrics, by name.
pub(crate) fn metrics(test: &TestOutcome) -> BTreeMap<&'static str, MetricValue> {
    test.metrics
        .iter()
        .map(|(target, value)| (target.as_str(), *value))
        .collect()
}

/// A test's gates, in the suite's order.
pub(crate) fn gates(test: &TestOutcome) -> Vec<Gate<'_>> {
    test.gates
        .iter()
        .map(|g| Gate {
            target: g.gate.target.as_str(),
            op: g.gate.op.as_str(),
            value: g.value(),
            actual: g.actual,
            passed: g.skipped().is_none().then_some(g.passed),
            line: g.gate.line,
            note: g.note.as_deref(),
            baseline: crate::baseline::GateBaseline::of(g),
            skipped: g.skipped(),
        })
        .collect()
}

#[cfg(test)]
mod tests;
