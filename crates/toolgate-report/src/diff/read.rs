//! Reading a JSON report for `diff`, as a stream: of each test, its name, verdict, metrics,
//! gates, and its runs' sources with a verdict each; every other value is skipped as it is
//! read. What is kept grows with the number of tests and runs, a few words per run, never
//! with the size of the graders' findings.
//!
//! The reader names no grader: a test's keys other than its own (`name`, `passed`, `runs`,
//! `sources`, `metrics`, `gates`, `agent`) are the graders' objects, and of those only a
//! `runs` list is read, and of its entries only `run` and `passed`.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::rc::Rc;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::json::JSON_VERSION;
use crate::merge::read::{BUFFER_BYTES, Counting};
use crate::merge::source::At;

/// What `diff` keeps of one report.
#[derive(Debug)]
pub(super) struct ReportRead {
    /// The `shard` object's index and count, when the report is a shard's.
    pub(super) shard: Option<ShardOf>,
    /// Where the `shard` key is.
    pub(super) shard_at: Option<At>,
    pub(super) tests: Vec<TestRead>,
    /// Where the `tests` key is.
    pub(super) tests_at: Option<At>,
    /// The first test named as an earlier one: its name and where it starts.
    pub(super) duplicate: Option<(String, u64)>,
}

/// The `shard` object of a shard report, as far as `diff` needs it.
#[derive(Debug, Clone, Copy, Deserialize)]
pub(super) struct ShardOf {
    pub(super) index: usize,
    pub(super) count: usize,
}

/// One test of a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TestRead {
    pub(super) name: String,
    pub(super) passed: bool,
    /// How many runs the test has (`runs`).
    pub(super) runs: usize,
    /// Each metric by name, as the report gives it.
    pub(super) metrics: BTreeMap<String, u8>,
    pub(super) gates: Vec<GateRead>,
    /// The runs the report lists (`sources`), in its order.
    pub(super) listed: Vec<RunRead>,
}

/// One gate of a test, as the report gives it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(super) struct GateRead {
    pub(super) target: String,
    pub(super) op: String,
    pub(super) value: u8,
    pub(super) actual: u8,
    pub(super) passed: bool,
}

/// One listed run: its number, where it came from, and its verdict (see [`run_verdict`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RunRead {
    pub(super) run: usize,
    pub(super) source: Rc<str>,
    pub(super) line: Option<u64>,
    pub(super) verdict: Option<bool>,
}

/// A run's verdict, from what today's JSON report says of it: every `passed` that an entry
/// about the run holds (its `sources` entry, and the entry of each grader's `runs` list
/// with its number), all of which must be true; `None` when no entry says.
///
/// Today only some graders write a per-run `passed`, so a run of a test scored by others
/// alone has no verdict, and a run is judged by those of its graders that say. Issue 20
/// gives every run its verdict (SPEC 14: every gate of the test holds on the run alone);
/// this function is then to read that verdict, and nothing else of the diff changes.
pub(super) fn run_verdict(own: Option<bool>, graders: Option<bool>) -> Option<bool> {
    match (own, graders) {
        (Some(a), Some(b)) => Some(a && b),
        (one, other) => one.or(other),
    }
}

/// Why a report could not be read through.
#[derive(Debug)]
pub(super) enum ReadError {
    Io(std::io::Error),
    /// Not JSON, or not the shape of a toolgate report.
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

/// The message of the error that stops reading at a version this toolgate does not read.
const OTHER_VERSION: &str = "a report of another version";

/// Reads one report from its start, as a stream.
pub(super) fn read_report<R: Read + Seek>(reader: &mut R) -> Result<ReportRead, ReadError> {
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
        (_, Some((found, at))) if found != JSON_VERSION => Err(ReadError::Version(found, at)),
        (report, _) => report.map_err(ReadError::from),
    }
}

#[derive(Clone, Copy)]
struct ReportSeed<'c> {
    read: &'c Cell<u64>,
    /// The version read, and where its key is.
    version: &'c Cell<Option<(u32, Option<At>)>>,
}

impl ReportSeed<'_> {
    /// The span of a key just read: `serde_json` has read through its closing quote.
    fn key_at(self, key: &str) -> Option<At> {
        let quoted = key.len() + 2;
        self.read
            .get()
            .checked_sub(quoted as u64)
            .map(|start| At::Span(start, quoted))
    }
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
        f.write_str("a toolgate JSON report")
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
                    let at = self.key_at(&key);
                    let version = map.next_value::<u32>()?;
                    self.version.set(Some((version, at)));
                    // A report of another version may have another shape: its version is
                    // the reason to give, not the first place its shape differs.
                    if version != JSON_VERSION {
                        return Err(de::Error::custom(OTHER_VERSION));
                    }
                }
                "shard" => {
                    if shard_at.is_some() {
                        return Err(de::Error::duplicate_field("shard"));
                    }
                    shard_at = self.key_at(&key);
                    shard = map.next_value::<Option<ShardOf>>()?;
                }
                "tests" => {
                    if tests.is_some() {
                        return Err(de::Error::duplicate_field("tests"));
                    }
                    tests_at = self.key_at(&key);
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
        let (tests, duplicate) = tests.ok_or_else(|| de::Error::missing_field("tests"))?;
        Ok(ReportRead {
            shard,
            shard_at: shard.and(shard_at),
            tests,
            tests_at,
            duplicate,
        })
    }
}

/// The `tests` list.
struct TestsSeed<'c>(ReportSeed<'c>);

type Tests = (Vec<TestRead>, Option<(String, u64)>);

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
        while let Some((start, test)) = seq.next_element_seed(TestSeed(self.0.read))? {
            if !names.insert(test.name.clone()) && duplicate.is_none() {
                duplicate = Some((test.name.clone(), start));
            }
            tests.push(test);
        }
        Ok((tests, duplicate))
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

/// The `sources` list: each run's number, source and line, and a verdict of its own when the
/// report gives one there. Runs read from one file share its name, compared as it is read
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
        // The verdict the entry gives, until the graders' are known.
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
        f.write_str("a test of a toolgate JSON report")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TestRead, A::Error> {
        let mut name = None;
        let mut passed = None;
        let mut runs = None;
        let mut metrics = None;
        let mut gates = None;
        let mut sources: Option<Vec<RunRead>> = None;
        // Per run number, whether every grader entry that says passed.
        let mut verdicts: BTreeMap<usize, bool> = BTreeMap::new();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "name" => name = Some(map.next_value::<String>()?),
                "passed" => passed = Some(map.next_value::<bool>()?),
                "runs" => runs = Some(map.next_value::<usize>()?),
                "metrics" => metrics = Some(map.next_value::<BTreeMap<String, u8>>()?),
                "gates" => gates = Some(map.next_value::<Vec<GateRead>>()?),
                "sources" => sources = Some(map.next_value_seed(SourcesSeed)?),
                "agent" => {
                    map.next_value::<IgnoredAny>()?;
                }
                _ => map.next_value_seed(Scan {
                    level: Level::Grader,
                    verdicts: &mut verdicts,
                })?,
            }
        }
        let name = name.ok_or_else(|| de::Error::missing_field("name"))?;
        let mut listed = sources.unwrap_or_default();
        listed.shrink_to_fit();
        for run in &mut listed {
            run.verdict = run_verdict(run.verdict, verdicts.get(&run.run).copied());
        }
        Ok(TestRead {
            passed: passed.ok_or_else(|| de::Error::missing_field("passed"))?,
            runs: runs.unwrap_or_default(),
            metrics: metrics.ok_or_else(|| de::Error::missing_field("metrics"))?,
            gates: gates.ok_or_else(|| de::Error::missing_field("gates"))?,
            name,
            listed,
        })
    }
}

/// Where [`Scan`] is within a grader's object.
#[derive(Clone, Copy)]
enum Level {
    /// The grader's object: its `runs` list is read.
    Grader,
    /// Its `runs` list: each entry is read.
    Runs,
    /// One entry: its `run` and `passed`.
    Entry,
}

/// A value of a grader's object, read for the runs' `passed` and otherwise skipped, whatever
/// its shape.
struct Scan<'v> {
    level: Level,
    verdicts: &'v mut BTreeMap<usize, bool>,
}

impl<'de> DeserializeSeed<'de> for Scan<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Scan<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut run = None;
        let mut passed = None;
        while let Some(key) = map.next_key::<String>()? {
            match (self.level, key.as_str()) {
                (Level::Grader, "runs") => map.next_value_seed(Scan {
                    level: Level::Runs,
                    verdicts: &mut *self.verdicts,
                })?,
                (Level::Entry, "run") => run = Some(map.next_value::<usize>()?),
                (Level::Entry, "passed") => passed = Some(map.next_value::<bool>()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if let (Some(run), Some(passed)) = (run, passed) {
            self.verdicts
                .entry(run)
                .and_modify(|all| *all &= passed)
                .or_insert(passed);
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if matches!(self.level, Level::Runs) {
            while seq
                .next_element_seed(Scan {
                    level: Level::Entry,
                    verdicts: &mut *self.verdicts,
                })?
                .is_some()
            {}
        } else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
        }
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}
