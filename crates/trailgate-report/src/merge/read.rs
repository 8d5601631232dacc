//! Reading a shard's file as a stream: the report as a whole (its `version` and `shard`,
//! and where each test's JSON is in the file), each test checked as it is read (its runs
//! folded one at a time, see `trailgate_expect::ShardTest`).
//!
//! A test's problems are reported in suite order, after the checks of the shards as a whole,
//! as when the reports were held whole: a test that does not add up is noted and reading
//! goes on; a test that is not even of a test's shape stops the reader, so the file is then
//! read again with its tests only placed, and each is read again from its place, in suite
//! order, when its turn comes ([`read_test`]).

use std::cell::Cell;
use std::fmt;
use std::io::{self, BufReader, Read, Seek, SeekFrom};

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::error::Category;
use trailgate_expect::{KeptTest as Kept, Problem, ShardTest as TestView};

use super::source::At;

/// The buffer a shard's file is read through: `serde_json` reads a reader byte by byte.
pub(crate) const BUFFER_BYTES: usize = 64 << 10;

/// What the first pass keeps of a shard report.
#[derive(Debug)]
pub(super) struct ShardRead {
    pub(super) version: u32,
    /// Where the `version` key is.
    pub(super) version_at: Option<At>,
    pub(super) header: Option<ShardHeader>,
    /// Where the `shard` key is.
    pub(super) shard_at: Option<At>,
    pub(super) tests: Vec<TestEntry>,
    /// The first test whose numbers do not add up, by its place among the shard's tests.
    pub(super) inconsistent: Option<(usize, Problem)>,
}

/// A test of a shard: where its JSON starts and ends in the file, and what the merged report
/// keeps of it when it was checked as it was read.
#[derive(Debug)]
pub(super) struct TestEntry {
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) kept: Option<Kept>,
}

/// The `shard` object of a shard report.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct ShardHeader {
    pub(super) index: usize,
    pub(super) count: usize,
    pub(super) suite: String,
    pub(super) suite_tests: usize,
    /// A digest of the suite's text; reports written before it was added have none.
    #[serde(default)]
    pub(super) suite_digest: Option<String>,
}

/// Why a shard's file, or a test in it, could not be read through.
#[derive(Debug)]
pub(super) enum ReadError {
    Io(io::Error),
    /// Not JSON, or not the shape of a report or of a test.
    Json(serde_json::Error),
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

/// Reads one shard report from its start, as a stream, checking each test as it goes; when
/// a test is not of a test's shape, reads it again with the tests only placed.
pub(super) fn read_shard<R: Read + Seek>(
    reader: &mut R,
    name: &str,
) -> Result<ShardRead, ReadError> {
    let in_test = Cell::new(false);
    match read_report(reader, name, Some(&in_test)) {
        Err(ReadError::Json(error)) if in_test.get() && error.classify() == Category::Data => {
            read_report(reader, name, None)
        }
        read => read,
    }
}

/// Reads one shard report from its start; with `checking`, each test is checked, and set
/// while one is read.
fn read_report<R: Read + Seek>(
    reader: &mut R,
    name: &str,
    checking: Option<&Cell<bool>>,
) -> Result<ShardRead, ReadError> {
    reader.seek(SeekFrom::Start(0)).map_err(ReadError::Io)?;
    let read = Cell::new(0);
    let counting = Counting {
        inner: BufReader::with_capacity(BUFFER_BYTES, reader),
        read: &read,
    };
    let mut deserializer = serde_json::Deserializer::from_reader(counting);
    let seed = ReportSeed {
        read: &read,
        checking,
        name,
    };
    let report = seed.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(report)
}

/// Reads the test whose JSON is at `start..end` of the file. An error in it is placed by
/// line and column within the test.
pub(super) fn read_test<R: Read + Seek>(
    reader: &mut R,
    start: u64,
    end: u64,
) -> Result<TestView, ReadError> {
    reader.seek(SeekFrom::Start(start)).map_err(ReadError::Io)?;
    let bytes = BufReader::with_capacity(BUFFER_BYTES, reader.take(end - start));
    let mut deserializer = serde_json::Deserializer::from_reader(bytes);
    let view = TestView::deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(view)
}

/// A reader that counts the bytes read through it: `serde_json` takes them one at a time and
/// looks one ahead at most, so the count places what it reads.
pub(crate) struct Counting<'c, R> {
    pub(crate) inner: R,
    pub(crate) read: &'c Cell<u64>,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.read.set(self.read.get() + read as u64);
        Ok(read)
    }
}

#[derive(Clone, Copy)]
struct ReportSeed<'c> {
    read: &'c Cell<u64>,
    /// Whether tests are checked as they are read, and then, whether one is being read.
    checking: Option<&'c Cell<bool>>,
    /// The file's name, for problems.
    name: &'c str,
}

impl<'de> DeserializeSeed<'de> for ReportSeed<'_> {
    type Value = ShardRead;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<ShardRead, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ReportSeed<'_> {
    type Value = ShardRead;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a trailgate JSON report")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ShardRead, A::Error> {
        let mut version = None;
        let mut version_at = None;
        let mut header = None;
        let mut shard_at = None;
        let mut tests = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "version" => {
                    if version.is_some() {
                        return Err(de::Error::duplicate_field("version"));
                    }
                    version_at = At::key(self.read.get(), &key);
                    version = Some(map.next_value::<u32>()?);
                }
                "shard" => {
                    if header.is_some() {
                        return Err(de::Error::duplicate_field("shard"));
                    }
                    shard_at = At::key(self.read.get(), &key);
                    header = Some(map.next_value::<Option<ShardHeader>>()?);
                }
                "tests" => {
                    if tests.is_some() {
                        return Err(de::Error::duplicate_field("tests"));
                    }
                    tests = Some(map.next_value_seed(TestsSeed(self))?);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let version = version.ok_or_else(|| de::Error::missing_field("version"))?;
        let (tests, inconsistent) = tests.ok_or_else(|| de::Error::missing_field("tests"))?;
        Ok(ShardRead {
            version,
            version_at,
            header: header.flatten(),
            shard_at,
            tests,
            inconsistent,
        })
    }
}

type Tests = (Vec<TestEntry>, Option<(usize, Problem)>);

/// The `tests` list.
struct TestsSeed<'c>(ReportSeed<'c>);

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
        let mut inconsistent = None;
        while let Some((start, end, view)) = seq.next_element_seed(TestSeed(self.0))? {
            if inconsistent.is_none()
                && let Some(view) = &view
                && let Err(message) = view.add_up()
            {
                inconsistent = Some((tests.len(), inconsistent_test(view, self.0.name, &message)));
            }
            tests.push(TestEntry {
                start,
                end,
                kept: view.map(TestView::keep),
            });
        }
        Ok((tests, inconsistent))
    }
}

/// The problem of a test whose numbers do not add up.
pub(super) fn inconsistent_test(view: &TestView, file: &str, message: &str) -> Problem {
    Problem::new(
        "trailgate::merge::inconsistent",
        format!("test `{}` in `{file}`: {message}", view.name()),
        "this test",
    )
    .with_help(
        "the report was edited, or written by another trailgate; write it again with \
         `trailgate check --shard K/N --format json`",
    )
}

/// One test, placed, and read when tests are checked: `serde_json` has looked at its first
/// byte when it is asked for it, and has read through its last when it is done.
struct TestSeed<'c>(ReportSeed<'c>);

impl<'de> DeserializeSeed<'de> for TestSeed<'_> {
    type Value = (u64, u64, Option<TestView>);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let start = self.0.read.get().saturating_sub(1);
        let view = if let Some(in_test) = self.0.checking {
            in_test.set(true);
            let view = TestView::deserialize(deserializer)?;
            in_test.set(false);
            Some(view)
        } else {
            IgnoredAny::deserialize(deserializer)?;
            None
        };
        Ok((start, self.0.read.get(), view))
    }
}
