//! Merging shard reports: the JSON reports of `trailgate check --shard K/N`, one per shard,
//! put back together into the report of the whole suite.
//!
//! A shard holds whole tests, so every test's metrics were computed from all of its runs in
//! one job. Merging puts the tests back in suite order, re-derives each test's aggregates
//! from its runs' counts, re-applies its gates, and writes the report the unsharded run
//! writes, byte for byte: each test's JSON is carried over field by field (transcoded, so
//! its layout is trailgate's own whatever the file's), and the verdicts and summary around
//! it are recomputed.
//!
//! A shard report can be gigabytes, and one test can list tens of thousands of runs, so no
//! report is held: a first pass reads each file as a stream and checks each test as it goes,
//! run by run (`read.rs`, and each grader's `recheck.rs` in `trailgate-expect`), keeping of a
//! test its verdict, its gates and where its JSON is in the file; the JSON report then reads
//! each test again from its place, in suite order, and transcodes it as a stream. A
//! diagnostic reads the lines it shows again from the file (`source.rs`). What merging holds
//! is about one run's entry, and a few words per test.

pub(crate) mod read;
pub(crate) mod source;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};

use serde::ser::{self, SerializeSeq};
use serde::{Serialize, Serializer};
use trailgate_expect::{KeptTest as Kept, Problem, Shard, SuiteError, Tally};

use self::read::{
    BUFFER_BYTES, ReadError, ShardHeader, ShardRead, inconsistent_test, read_shard, read_test,
};
use self::source::{At, fail, json_message, offset_of};
use crate::escape::escape_terminal;
use crate::json::{JSON_VERSION, Summary};
use crate::text::{
    Header, Painter, TextOptions, inconclusive_line, write_footer, write_gate, write_header,
    write_skipped,
};
use crate::transcode::JsonRead;

/// One shard report: its name, for diagnostics, and its bytes, read from the start twice
/// (once to check it, once to write the merged JSON report) and around a problem.
#[derive(Debug)]
pub struct ShardFile<R> {
    /// The file's name, for diagnostics.
    pub name: String,
    /// Its content: a file, or bytes in memory (`io::Cursor`).
    pub reader: R,
}

/// The whole suite's report, put together from its shards.
#[derive(Debug)]
pub struct Merged<R> {
    /// The shards' files, shard 1 first.
    files: Vec<ShardFile<R>>,
    tests: Vec<MergedTest>,
    suite: String,
}

#[derive(Debug)]
struct MergedTest {
    /// Which of `files` holds the test.
    file: usize,
    kept: Kept,
    /// Where the test's JSON is in its file.
    start: u64,
    end: u64,
}

impl<R> Merged<R> {
    /// Whether the merged check passes: no unmarked test failed and no marked test passed
    /// (docs/reliability.md#expected-failures).
    pub fn passed(&self) -> bool {
        self.tally().passes()
    }

    /// The summary's counts.
    fn tally(&self) -> Tally {
        Tally::of(self.tests.iter().map(|t| t.kept.verdict()))
    }
}

/// Combines shard reports into the report of the whole suite.
///
/// Every shard `1..=N` of one split of one suite must be given exactly once, in any order.
/// A report that is not a shard report, that belongs to another suite or split, or whose
/// numbers do not add up is refused with a diagnostic pointing into its file.
pub fn merge_shards<R: Read + Seek>(files: Vec<ShardFile<R>>) -> Result<Merged<R>, SuiteError> {
    let mut shards: BTreeMap<usize, Checked<R>> = BTreeMap::new();
    // The index of the first shard given: the split and suite the others must share.
    let mut first: Option<usize> = None;
    for mut file in files {
        let (read, header) = check_shard(&mut file)?;
        if let Some(expected) = first.and_then(|index| shards.get(&index)) {
            same_split(&mut file, &header, read.shard_at, expected)?;
        }
        if let Some(other) = shards.get(&header.index) {
            let problem = Problem::new(
                "trailgate::merge::duplicate",
                format!(
                    "`{}` and `{}` are both shard {}/{}",
                    other.file.name, file.name, header.index, header.count
                ),
                "given twice",
            );
            return Err(fail(&file.name, &mut file.reader, problem, read.shard_at));
        }
        first.get_or_insert(header.index);
        shards.insert(header.index, Checked { file, read, header });
    }
    let Some((first, count, suite_tests)) = first
        .and_then(|index| shards.get(&index))
        .map(|s| (s.header.index, s.header.count, s.header.suite_tests))
    else {
        return Err(SuiteError::detached(Problem::new(
            "trailgate::merge::none",
            "no shard reports to merge",
            "",
        )));
    };
    if let Some(missing) = (1..=count).find(|index| !shards.contains_key(index)) {
        let given = shards.len();
        if let Some(shard) = shards.get_mut(&first) {
            let problem = Problem::new(
                "trailgate::merge::missing",
                format!(
                    "shard {missing}/{count} is missing: {given} of {count} shard reports given"
                ),
                "a shard of this split",
            )
            .with_help("pass every shard's report, e.g. `trailgate merge shards/*.json`");
            let at = shard.read.shard_at;
            return Err(fail(&shard.file.name, &mut shard.file.reader, problem, at));
        }
    }
    // Shard K holds the tests at positions K-1, K-1+N, ...: deal them back in turn, each
    // read again from its place and checked.
    let mut shards: Vec<Checked<R>> = shards.into_values().collect();
    let suite = shards
        .first()
        .map(|s| s.header.suite.clone())
        .unwrap_or_default();
    let mut tests = Vec::with_capacity(suite_tests);
    // A suite's test names are unique: a name twice means shards of different suites.
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    for position in 0..suite_tests {
        let (file, within) = (position % count, position / count);
        let Some(shard) = shards.get_mut(file) else {
            break;
        };
        let Some(test) = shard.read.tests.get_mut(within) else {
            break;
        };
        let (start, end, kept) = (test.start, test.end, test.kept.take());
        if let Some((_, problem)) = shard.read.inconsistent.take_if(|(at, _)| *at == within) {
            return Err(fail(
                &shard.file.name,
                &mut shard.file.reader,
                problem,
                Some(At::Span(start, 1)),
            ));
        }
        let kept = match kept {
            Some(kept) => kept,
            None => recheck(&mut shard.file, start, end)?,
        };
        if let Some(other) = names.insert(kept.name.clone(), file) {
            let other = shards.get(other).map_or("", |s| s.file.name.as_str());
            let problem = Problem::new(
                "trailgate::merge::duplicate_test",
                format!(
                    "test `{}` is in `{other}` and in `{}`; a suite names each test once",
                    kept.name, shards[file].file.name
                ),
                "this test",
            )
            .with_help(
                "merge the shards of one `trailgate check --shard K/N` matrix, run on the \
                 same suite",
            );
            let Some(shard) = shards.get_mut(file) else {
                break;
            };
            return Err(fail(
                &shard.file.name,
                &mut shard.file.reader,
                problem,
                Some(At::Span(start, 1)),
            ));
        }
        tests.push(MergedTest {
            file,
            kept,
            start,
            end,
        });
    }
    let files = shards.into_iter().map(|s| s.file).collect();
    Ok(Merged {
        files,
        tests,
        suite,
    })
}

/// A shard report, read and checked as a whole.
struct Checked<R> {
    file: ShardFile<R>,
    read: ShardRead,
    header: ShardHeader,
}

/// Reads one shard report, and checks its version, its `shard` object and how many tests
/// it holds. Whether its tests add up is checked later, in suite order.
fn check_shard<R: Read + Seek>(
    file: &mut ShardFile<R>,
) -> Result<(ShardRead, ShardHeader), SuiteError> {
    let mut read = match read_shard(&mut file.reader, &file.name) {
        Ok(read) => read,
        Err(ReadError::Io(error)) => return Err(cannot_read(&file.name, &error)),
        Err(ReadError::Json(error)) => {
            let offset =
                offset_of(&mut file.reader, 0, u64::MAX, error.line(), error.column()).ok();
            let message = json_message(&mut file.reader, &error, offset);
            let problem = Problem::new(
                "trailgate::merge::json",
                format!("`{}` is not a trailgate JSON report: {message}", file.name),
                "here",
            )
            .with_help("pass the files that `trailgate check --shard K/N --format json` wrote");
            return Err(fail(
                &file.name,
                &mut file.reader,
                problem,
                offset.map(At::Character),
            ));
        }
    };
    let mut refuse =
        |problem: Problem, at: Option<At>| fail(&file.name, &mut file.reader, problem, at);
    if read.version != JSON_VERSION {
        return Err(refuse(
            Problem::new(
                "trailgate::merge::version",
                format!(
                    "`{}` is a version {} report; this trailgate merges version {JSON_VERSION}",
                    file.name, read.version
                ),
                "this version",
            )
            .with_help(if read.version < JSON_VERSION {
                "an older trailgate wrote it: regenerate the shard with this release \
                 (`trailgate check --shard K/N --format json`), and merge shards of one release"
            } else {
                "write every shard and merge them with the same trailgate release"
            }),
            read.version_at,
        ));
    }
    let Some(header) = read.header.take() else {
        return Err(refuse(
            Problem::new(
                "trailgate::merge::not_a_shard",
                format!(
                    "`{}` is the report of a whole suite, not of a shard",
                    file.name
                ),
                "no `shard` field in this report",
            )
            .with_help("write shard reports with `trailgate check --shard K/N --format json`"),
            Some(At::Span(0, 1)),
        ));
    };
    let Some(shard) = Shard::new(header.index, header.count) else {
        return Err(refuse(
            Problem::new(
                "trailgate::merge::shard",
                format!(
                    "`{}` claims to be shard {}/{}, which does not exist",
                    file.name, header.index, header.count
                ),
                "this shard",
            ),
            read.shard_at,
        ));
    };
    let holds = shard.len_of(header.suite_tests);
    if read.tests.len() != holds {
        return Err(refuse(
            Problem::new(
                "trailgate::merge::tests",
                format!(
                    "`{}` holds {} tests, but shard {shard} of a suite of {} tests holds {holds}",
                    file.name,
                    read.tests.len(),
                    header.suite_tests
                ),
                "this shard",
            ),
            read.shard_at,
        ));
    }
    Ok((read, header))
}

/// Refuses a shard of another split or another suite than the first one given.
fn same_split<R: Read + Seek>(
    file: &mut ShardFile<R>,
    header: &ShardHeader,
    shard_at: Option<At>,
    expected: &Checked<R>,
) -> Result<(), SuiteError> {
    let other = &expected.header;
    let differs = if other.count != header.count {
        format!(
            "is shard {}/{} but `{}` is shard {}/{}: the suite was split differently",
            header.index, header.count, expected.file.name, other.index, other.count
        )
    } else if other.suite != header.suite
        || other.suite_tests != header.suite_tests
        || other.suite_digest != header.suite_digest
    {
        format!(
            "is a shard of `{}` ({} tests) but `{}` is a shard of `{}` ({} tests)",
            header.suite, header.suite_tests, expected.file.name, other.suite, other.suite_tests
        )
    } else {
        return Ok(());
    };
    let problem = Problem::new(
        "trailgate::merge::mismatch",
        format!("`{}` {differs}", file.name),
        "this shard",
    )
    .with_help(
        "merge the shards of one `trailgate check --shard K/N` matrix, run on the same suite",
    );
    Err(fail(&file.name, &mut file.reader, problem, shard_at))
}

/// Reads a test again from its place and checks that its numbers add up (`trailgate_expect::ShardTest::add_up`);
/// keeps what the merged report needs of it.
fn recheck<R: Read + Seek>(
    file: &mut ShardFile<R>,
    start: u64,
    end: u64,
) -> Result<Kept, SuiteError> {
    let view = match read_test(&mut file.reader, start, end) {
        Ok(view) => view,
        Err(ReadError::Io(error)) => return Err(cannot_read(&file.name, &error)),
        Err(ReadError::Json(error)) => {
            // The error's line and column count from the test's first byte.
            let offset = offset_of(&mut file.reader, start, end, error.line(), error.column()).ok();
            let message = json_message(&mut file.reader, &error, offset);
            let problem = Problem::new(
                "trailgate::merge::json",
                format!(
                    "a test in `{}` is not a trailgate test report: {message}",
                    file.name
                ),
                "here",
            );
            return Err(fail(
                &file.name,
                &mut file.reader,
                problem,
                offset.map(At::Character),
            ));
        }
    };
    if let Err(message) = view.add_up() {
        let problem = inconsistent_test(&view, &file.name, &message);
        return Err(fail(
            &file.name,
            &mut file.reader,
            problem,
            Some(At::Span(start, 1)),
        ));
    }
    Ok(view.keep())
}

/// A shard report that cannot be read: opened, or read as it is streamed.
pub fn cannot_read(name: &str, error: &io::Error) -> SuiteError {
    SuiteError::detached(
        Problem::new(
            "trailgate::merge::io",
            format!("cannot read shard report `{name}`: {error}"),
            "",
        )
        .with_help("pass the files that `trailgate check --shard K/N --format json` wrote"),
    )
}

/// Writes the merged JSON report: the unsharded run's bytes. Each test's JSON is read again
/// from its shard's file.
pub fn render_merged_json<R: Read + Seek>(
    merged: &mut Merged<R>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let report = MergedReport {
        version: JSON_VERSION,
        passed: merged.passed(),
        summary: merged.tally().into(),
        tests: Transcoded {
            tests: &merged.tests,
            files: RefCell::new(&mut merged.files),
        },
    };
    crate::layout::write_report(out, &report)
}

/// Writes the merged text report: each test's verdict and gates, in suite order. The runs'
/// details are in each shard's own report.
pub fn render_merged_text<R>(
    merged: &Merged<R>,
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
        merged.files.len(),
        if merged.files.len() == 1 {
            "report"
        } else {
            "reports"
        }
    )?;
    for test in &merged.tests {
        writeln!(out)?;
        let view = &test.kept;
        let header = Header {
            verdict: view.verdict(),
            xfail: view.xfail.as_deref(),
            runs: view.runs,
            stability: view.stability,
            agent: view.agent.as_deref(),
        };
        write_header(&painter, &view.name, &header, out)?;
        writeln!(out, "  gates")?;
        for gate in &view.gates {
            let text = gate.written();
            if let Some(reason) = &gate.skipped {
                write_skipped(&painter, &text, reason, out)?;
                continue;
            }
            write_gate(&painter, !gate.failed(), &text, gate.actual, out)?;
            if let Some(note) = &gate.note {
                writeln!(out, "      {}", escape_terminal(note))?;
            }
        }
    }
    let inconclusive = merged
        .tests
        .iter()
        .filter(|test| test.kept.gates.iter().any(|gate| gate.note.is_some()))
        .map(|test| test.kept.name.as_str());
    if let Some(line) = inconclusive_line(inconclusive) {
        writeln!(out)?;
        writeln!(out, "{line}")?;
    }
    write_footer(&painter, merged.tally(), out)
}

#[derive(Serialize)]
struct MergedReport<T> {
    version: u32,
    passed: bool,
    summary: Summary,
    tests: T,
}

/// The tests' JSON, each read again from its place in its file and re-serialised field by
/// field in its own order.
struct Transcoded<'a, R> {
    tests: &'a [MergedTest],
    files: RefCell<&'a mut Vec<ShardFile<R>>>,
}

impl<R: Read + Seek> Serialize for Transcoded<'_, R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut files = self.files.borrow_mut();
        let mut seq = serializer.serialize_seq(Some(self.tests.len()))?;
        for test in self.tests {
            let file = files
                .get_mut(test.file)
                .ok_or_else(|| ser::Error::custom("a test of no shard"))?;
            let again = |error: io::Error| {
                ser::Error::custom(format!("cannot read `{}` again: {error}", file.name))
            };
            file.reader
                .seek(SeekFrom::Start(test.start))
                .map_err(again)?;
            let bytes = (&mut file.reader).take(test.end - test.start);
            seq.serialize_element(&JsonRead::new(BufReader::with_capacity(
                BUFFER_BYTES,
                bytes,
            )))?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests;
