//! Reading a JSON report for `diff`, `compare` and `check --baseline`, as a stream: of each
//! test, its name, verdict, metrics, gates, and its runs' sources with a verdict each; every
//! other value is skipped as it is read. What is kept grows with the number of tests and
//! runs, a few words per run, never with the size of the graders' findings.
//!
//! The reader names no grader: a test's keys other than its own (`name`, `passed`, `runs`,
//! `passed_runs`, `sources`, `metrics`, `gates`) are skipped, the graders' objects among
//! them. A run's verdict is its `sources` entry's `passed` (docs/reports.md#each-runs-verdict),
//! never a grader's.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::rc::Rc;
use trailgate_expect::{MetricValue, names_percent};

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::json::{JSON_VERSION, OLDEST_READ_VERSION};
use crate::merge::read::{BUFFER_BYTES, Counting};
use crate::merge::source::At;

/// What `diff` keeps of one report.
#[derive(Debug)]
pub(crate) struct ReportRead {
    /// The `shard` object's index and count, when the report is a shard's.
    pub(crate) shard: Option<ShardOf>,
    /// Where the `shard` key is.
    pub(crate) shard_at: Option<At>,
    pub(crate) tests: Vec<TestRead>,
    /// Where the `tests` key is.
    pub(crate) tests_at: Option<At>,
    /// The first test named as an earlier one: its name and where it starts.
    pub(crate) duplicate: Option<(String, u64)>,
    /// The first test that says more of its runs passed than it has (`passed_runs` past
    /// `runs`): its name and where it starts. `compare` refuses such a report.
    pub(crate) inconsistent: Option<(String, u64)>,
}

/// The `shard` object of a shard report, as far as `diff` needs it.
#[derive(Debug, Clone, Copy, Deserialize)]
pub(crate) struct ShardOf {
    pub(crate) index: usize,
    pub(crate) count: usize,
}

/// One test of a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TestRead {
    pub(crate) name: String,
    pub(crate) passed: bool,
    /// How many runs the test has (`runs`).
    pub(crate) runs: usize,
    /// How many of them passed on their own (`passed_runs`), when the report says.
    pub(crate) passed_runs: Option<usize>,
    /// Each metric by name, as the report gives it.
    pub(crate) metrics: BTreeMap<String, MetricValue>,
    pub(crate) gates: Vec<GateRead>,
    /// The runs the report lists (`sources`), in its order.
    pub(crate) listed: Vec<RunRead>,
}

/// One gate of a test, as the report gives it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct GateRead {
    pub(crate) target: String,
    pub(crate) op: String,
    /// `None` for a gate on the baseline that was skipped.
    pub(crate) value: Option<MetricValue>,
    pub(crate) actual: MetricValue,
    /// `None` for a skipped gate, which neither passes nor fails.
    pub(crate) passed: Option<bool>,
    /// For a gate on the baseline, its expression.
    #[serde(default)]
    pub(crate) baseline: Option<BaselineRead>,
}

/// What `diff` reads of a gate's `baseline` object: the expression as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct BaselineRead {
    pub(crate) expression: String,
}

impl GateRead {
    /// The gate as written: `target op value`, or `target op baseline - 2` for a gate on
    /// the baseline (the value it compared with in parentheses, when it had one).
    pub(crate) fn written(&self) -> String {
        match (&self.baseline, self.value) {
            (Some(baseline), Some(value)) => {
                format!(
                    "{} {} {} (so {value})",
                    self.target, self.op, baseline.expression
                )
            }
            (Some(baseline), None) => {
                format!("{} {} {}", self.target, self.op, baseline.expression)
            }
            (None, value) => format!(
                "{} {} {}",
                self.target,
                self.op,
                value.map_or_else(String::new, |v| v.to_string())
            ),
        }
    }

    /// Whether the gate failed: a skipped gate did not.
    pub(crate) fn failed(&self) -> bool {
        self.passed == Some(false)
    }
}

/// One listed run: its number, where it came from, and its verdict: the `passed` of its
/// `sources` entry, every gate of the test holding on that run alone
/// (docs/reports.md#each-runs-verdict). A report
/// whose entry has no `passed` gives the run no verdict; the graders' own per-run `passed`
/// (a `runs` entry of a grader's object) is not the run's verdict and is not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunRead {
    pub(crate) run: usize,
    pub(crate) source: Rc<str>,
    pub(crate) line: Option<u64>,
    pub(crate) verdict: Option<bool>,
}

/// Why a report could not be read through.
#[derive(Debug)]
pub(crate) enum ReadError {
    Io(std::io::Error),
    /// Not JSON, or not the shape of a trailgate report.
    Json(serde_json::Error),
    /// A report of another version: the version, and where its key is. Reading stops there.
    Version(u32, Option<At>),
}

impl From<serde_json::Error> for ReadError {
    fn from(error: serde_json::Error) -> Self {
        if error.is_io() {
            Self::Io(error.into())
        } else {
            Self::Json(error)
        }
    }
}

/// The message of the error that stops reading at a version this trailgate does not read.
const OTHER_VERSION: &str = "a report of another version";

/// Whether reports of `version` are read: from [`OLDEST_READ_VERSION`] to [`JSON_VERSION`].
pub(crate) fn read_version(version: u32) -> bool {
    (OLDEST_READ_VERSION..=JSON_VERSION).contains(&version)
}

/// Reads one report from its start, as a stream.
pub(crate) fn read_report<R: Read + Seek>(reader: &mut R) -> Result<ReportRead, ReadError> {
    reader.seek(SeekFrom::Start(0)).map_err(ReadError::Io)?;
    let read = Cell::new(0);
    let version = Cell::new(None);
    let counting = Counting {
        inner: BufReader::with_capacity(BUFFER_BYTES, reader),
        read: &read,
    };
    let mut deserializer = serde_json::Deserializer::from_reader(counting);
    let seed = ReportSeed {
        read: &read,
        version: &version,
    };
    let report = seed.deserialize(&mut deserializer).and_then(|report| {
        deserializer.end()?;
        Ok(report)
    });
    match (report, version.get()) {
        (_, Some((found, at))) if !read_version(found) => Err(ReadError::Version(found, at)),
        (report, _) => report.map_err(ReadError::from),
    }
}

#[derive(Clone, Copy)]
struct ReportSeed<'c> {
    read: &'c Cell<u64>,
    /// The version read, and where its key is.
    version: &'c Cell<Option<(u32, Option<At>)>>,
}

impl<'de> DeserializeSeed<'de> for ReportSeed<'_> {
    type Value = ReportRead;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<ReportRead, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ReportSeed<'_> {
    type Value = ReportRead;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a trailgate JSON report")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ReportRead, A::Error> {
        let mut shard = None;
        let mut shard_at = None;
        let mut tests = None;
        let mut tests_at = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "version" => {
                    if self.version.get().is_some() {
                        return Err(de::Error::duplicate_field("version"));
                    }
                    let at = At::key(self.read.get(), &key);
                    let version = map.next_value::<u32>()?;
                    self.version.set(Some((version, at)));
                    // A report of another version may have another shape: its version is
                    // the reason to give, not the first place its shape differs.
                    if !read_version(version) {
                        return Err(de::Error::custom(OTHER_VERSION));
                    }
                }
                "shard" => {
                    if shard_at.is_some() {
                        return Err(de::Error::duplicate_field("shard"));
                    }
                    shard_at = At::key(self.read.get(), &key);
                    shard = map.next_value::<Option<ShardOf>>()?;
                }
                "tests" => {
                    if tests.is_some() {
                        return Err(de::Error::duplicate_field("tests"));
                    }
                    tests_at = At::key(self.read.get(), &key);
                    tests = Some(map.next_value_seed(TestsSeed(self))?);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if self.version.get().is_none() {
            return Err(de::Error::missing_field("version"));
        }
        let Tests {
            read: tests,
            duplicate,
            inconsistent,
        } = tests.ok_or_else(|| de::Error::missing_field("tests"))?;
        Ok(ReportRead {
            shard,
            shard_at: shard.and(shard_at),
            tests,
            tests_at,
            duplicate,
            inconsistent,
        })
    }
}

/// The `tests` list.
struct TestsSeed<'c>(ReportSeed<'c>);

/// The tests read, and the first of them a report may not hold (`ReportRead`).
struct Tests {
    read: Vec<TestRead>,
    duplicate: Option<(String, u64)>,
    inconsistent: Option<(String, u64)>,
}

impl<'de> DeserializeSeed<'de> for TestsSeed<'_> {
    type Value = Tests;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tests, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TestsSeed<'_> {
    type Value = Tests;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of tests")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tests, A::Error> {
        let mut tests = Vec::new();
        let mut names = BTreeSet::new();
        let mut duplicate = None;
        let mut inconsistent = None;
        while let Some((start, test)) = seq.next_element_seed(TestSeed(self.0.read))? {
            if !names.insert(test.name.clone()) && duplicate.is_none() {
                duplicate = Some((test.name.clone(), start));
            }
            if test.passed_runs.is_some_and(|passed| passed > test.runs) && inconsistent.is_none() {
                inconsistent = Some((test.name.clone(), start));
            }
            tests.push(test);
        }
        Ok(Tests {
            read: tests,
            duplicate,
            inconsistent,
        })
    }
}

/// One test, and where it starts: `serde_json` has looked at its first byte when it is
/// asked for it.
struct TestSeed<'c>(&'c Cell<u64>);

impl<'de> DeserializeSeed<'de> for TestSeed<'_> {
    type Value = (u64, TestRead);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let start = self.0.get().saturating_sub(1);
        let test = deserializer.deserialize_map(TestVisitor)?;
        Ok((start, test))
    }
}

/// The fields of one test.
struct TestVisitor;

/// The `sources` list: each run's number, source and line, and its verdict when the report
/// gives one there. Runs read from one file share its name, compared as it is read
/// and not copied again.
struct SourcesSeed;

impl<'de> DeserializeSeed<'de> for SourcesSeed {
    type Value = Vec<RunRead>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<RunRead>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for SourcesSeed {
    type Value = Vec<RunRead>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of run sources")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<RunRead>, A::Error> {
        let mut sources = Vec::new();
        let mut last: Option<Rc<str>> = None;
        while let Some(source) = seq.next_element_seed(SourceSeed { last: &mut last })? {
            sources.push(source);
        }
        Ok(sources)
    }
}

/// One `sources` entry; `last` is the file name of the entry before.
struct SourceSeed<'l> {
    last: &'l mut Option<Rc<str>>,
}

impl<'de> DeserializeSeed<'de> for SourceSeed<'_> {
    type Value = RunRead;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<RunRead, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SourceSeed<'_> {
    type Value = RunRead;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a run's source: `run`, `source` and `line`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RunRead, A::Error> {
        let (mut run, mut source, mut line, mut passed) = (None, None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "run" => run = Some(map.next_value::<usize>()?),
                "source" => {
                    source = Some(map.next_value_seed(SharedName {
                        last: &mut *self.last,
                    })?);
                }
                "line" => line = Some(map.next_value::<Option<u64>>()?),
                "passed" => passed = map.next_value::<Option<bool>>()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(RunRead {
            run: run.ok_or_else(|| de::Error::missing_field("run"))?,
            source: source.ok_or_else(|| de::Error::missing_field("source"))?,
            line: line.ok_or_else(|| de::Error::missing_field("line"))?,
            verdict: passed,
        })
    }
}

/// A file name, shared with the entry before when it is the same.
struct SharedName<'l> {
    last: &'l mut Option<Rc<str>>,
}

impl<'de> DeserializeSeed<'de> for SharedName<'_> {
    type Value = Rc<str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Rc<str>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for SharedName<'_> {
    type Value = Rc<str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a file name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Rc<str>, E> {
        if let Some(same) = self.last.as_ref().filter(|last| ***last == *name) {
            return Ok(Rc::clone(same));
        }
        let name: Rc<str> = Rc::from(name);
        *self.last = Some(Rc::clone(&name));
        Ok(name)
    }
}

impl<'de> Visitor<'de> for TestVisitor {
    type Value = TestRead;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a test of a trailgate JSON report")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TestRead, A::Error> {
        let mut name = None;
        let mut passed = None;
        let mut runs = None;
        let mut metrics = None;
        let mut gates = None;
        let mut passed_runs = None;
        let mut sources: Option<Vec<RunRead>> = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "name" => name = Some(map.next_value::<String>()?),
                "passed" => passed = Some(map.next_value::<bool>()?),
                "runs" => runs = Some(map.next_value::<usize>()?),
                "passed_runs" => passed_runs = Some(map.next_value::<usize>()?),
                "metrics" => {
                    metrics = Some(map.next_value_seed(MetricsSeed)?);
                }
                "gates" => gates = Some(map.next_value::<Vec<GateRead>>()?),
                "sources" => sources = Some(map.next_value_seed(SourcesSeed)?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let name = name.ok_or_else(|| de::Error::missing_field("name"))?;
        let mut listed = sources.unwrap_or_default();
        listed.shrink_to_fit();
        Ok(TestRead {
            passed: passed.ok_or_else(|| de::Error::missing_field("passed"))?,
            runs: runs.unwrap_or_default(),
            passed_runs,
            metrics: metrics.ok_or_else(|| de::Error::missing_field("metrics"))?,
            gates: gates.ok_or_else(|| de::Error::missing_field("gates"))?,
            name,
            listed,
        })
    }
}

/// A report's `metrics`, each value read by its name: a percent is a whole number from 0 to
/// 100 and a `usage.*` metric any non-negative number with at most six decimals. A value
/// outside its metric's range is no metric trailgate wrote, and the report is refused at
/// the value rather than read as a missing metric.
struct MetricsSeed;

impl<'de> DeserializeSeed<'de> for MetricsSeed {
    type Value = BTreeMap<String, MetricValue>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MetricsSeed {
    type Value = BTreeMap<String, MetricValue>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of metrics to their values")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut metrics = BTreeMap::new();
        while let Some(name) = map.next_key::<String>()? {
            let value = map.next_value_seed(MetricSeed(names_percent(&name)))?;
            metrics.insert(name, value);
        }
        Ok(metrics)
    }
}

/// One metric's value: a percent (`true`) or not.
struct MetricSeed(bool);

impl<'de> DeserializeSeed<'de> for MetricSeed {
    type Value = MetricValue;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<MetricValue, D::Error> {
        let value = MetricValue::deserialize(deserializer)?;
        if self.0 && value.percent().is_none() {
            return Err(de::Error::invalid_value(
                de::Unexpected::Other(&format!("number `{value}`")),
                &"a percent from 0 to 100",
            ));
        }
        Ok(value)
    }
}
