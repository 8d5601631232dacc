//! What `check` reads: the suite, the `--baseline` report, and each test's trace files,
//! in parts, one file after another (`read_parts`) or by the workers in turn (`Source`).

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use trailgate_expect::{Baseline, MAX_SUITE_BYTES, Problem, SuiteError, Test};
use trailgate_report::{ReportFile, read_baseline};
use trailgate_trace::{
    FileLayout, Naming, PartReader, ReadOptions, TraceError, TracePart, read_text_limited,
};

use crate::discover::{TraceFile, display};
use crate::error::Error;
use crate::options::CheckOptions;

/// The suite file's text, within [`MAX_SUITE_BYTES`].
pub(super) fn read_suite(path: &Path, name: &str) -> Result<String, Error> {
    let cannot_read = |error: &dyn std::fmt::Display| {
        Error::Suite(SuiteError::detached(
            Problem::new(
                "trailgate::suite::io",
                format!("cannot read suite `{name}`: {error}"),
                "",
            )
            .with_help(
                "pass the suite's path, `trailgate check path/to/trailgate.yaml`; without one, \
                 trailgate reads `trailgate.yaml` in the current folder",
            ),
        ))
    };
    match File::open(path)
        .and_then(|file| read_text_limited(file, MAX_SUITE_BYTES))
        .map_err(|error| cannot_read(&error))?
    {
        Some(text) => Ok(text),
        None => Err(Error::Suite(SuiteError::detached(
            Problem::new(
                "trailgate::suite::too_large",
                format!(
                    "suite `{name}` is larger than {} MiB",
                    MAX_SUITE_BYTES >> 20
                ),
                "",
            )
            .with_help("a suite is written by hand and read whole; put large data in trace files"),
        ))),
    }
}

/// The baseline report of `--baseline`: the metrics of each of its tests. An invalid file
/// stops the check before any trace is read, with a diagnostic that names it.
pub(super) fn read_base(path: &Path) -> Result<Baseline, Error> {
    let name = display(path);
    // A pipe (`--baseline <(...)`) is copied to a temporary file, within the size of a
    // document, as `diff` and `merge` do: the report is read again at each test's place.
    let file = crate::report_file::open(path).map_err(|error| {
        Error::Suite(SuiteError::detached(
            Problem::new(
                "trailgate::baseline::io",
                format!("cannot read baseline `{name}`: {error}"),
                "",
            )
            .with_help(
                "pass `--baseline` a JSON report written by `trailgate check --format json` (or \
                 `trailgate merge --format json`), e.g. main's",
            ),
        ))
    })?;
    Ok(read_baseline(ReportFile { name, reader: file })?)
}

/// How to read a test's traces: the test's own `trace_format` and `naming` win over the
/// command line's.
pub(super) fn read_options(test: &Test, options: &CheckOptions, naming: &Naming) -> ReadOptions {
    ReadOptions {
        format: test
            .trace_format
            .clone()
            .or_else(|| options.read.trace_format.clone()),
        naming: test.naming.clone().unwrap_or_else(|| naming.clone()),
    }
}

/// The read buffer of a trace file: a record of a JSON Lines trace is often several
/// kilobytes, more than `BufReader`'s default 8 KiB.
const READ_BUFFER: usize = 1 << 16;

/// Reads one trace file in whatever format it holds, handing its runs over in parts as
/// soon as each is complete; returns the warning for a file that gave no call
/// (docs/formats.md#a-file-that-says-nothing).
pub(crate) fn read_parts(
    trace: &TraceFile,
    options: &ReadOptions,
    on_part: impl FnMut(TracePart) -> Result<(), TraceError>,
) -> Result<Option<String>, TraceError> {
    let name = display(&trace.path);
    let mut parts = open_parts(trace, &name, options)?;
    let mut on_part = on_part;
    while let Some(part) = parts.next_part()? {
        on_part(part)?;
    }
    Ok(parts.finish()?.warning(&trace.label))
}

/// Opens a trace file, named `name` in diagnostics, to read its parts: JSON and JSON Lines
/// as text, a Parquet export by its row groups.
fn open_parts<'a>(
    trace: &TraceFile,
    name: &'a str,
    options: &'a ReadOptions,
) -> Result<PartReader<'a, BufReader<File>>, TraceError> {
    let file = File::open(&trace.path).map_err(|error| TraceError::Io {
        file: name.to_owned(),
        message: error.to_string(),
    })?;
    match trace.layout {
        FileLayout::Parquet => PartReader::parquet(name, file, options),
        FileLayout::Json | FileLayout::JsonLines => {
            let lines = trace.layout == FileLayout::JsonLines;
            let reader = BufReader::with_capacity(READ_BUFFER, file);
            PartReader::new(name, reader, lines, options)
        }
    }
}

/// The trace files of a test as the workers read them: each part read gets the number of
/// its first run and its order among the parts.
pub(super) struct Source<'a, I> {
    /// The files not opened yet, with their names in diagnostics.
    files: I,
    /// The file being read: its parts, and its label in reports.
    reading: Option<(PartReader<'a, BufReader<File>>, &'a str)>,
    options: &'a ReadOptions,
    /// The number of the next part's first run.
    next: usize,
    /// The next part's order.
    order: usize,
    /// The warnings of the files read to their end (docs/formats.md#a-file-that-says-nothing).
    pub(super) warnings: Vec<String>,
    /// Whether every file is read, or an error was met.
    pub(super) done: bool,
}

/// A part read by a worker, with the number of its first run and its file's label, or the
/// error that ends the reading.
pub(super) type ReadPart<'a> = Result<(usize, &'a str, TracePart), TraceError>;

impl<'a, I: Iterator<Item = (&'a TraceFile, &'a String)>> Source<'a, I> {
    /// The files, with their names in diagnostics, none read yet; the first run is run 1.
    pub(super) fn new(files: I, options: &'a ReadOptions) -> Self {
        Self {
            files,
            reading: None,
            options,
            next: 1,
            order: 0,
            warnings: Vec::new(),
            done: false,
        }
    }

    /// The next part of the files and its order, `None` after the last; an error is the
    /// last item.
    pub(super) fn next_part(&mut self) -> Option<(usize, ReadPart<'a>)> {
        let read = self.read_next()?;
        if read.is_err() {
            self.done = true;
        }
        let order = self.order;
        self.order += 1;
        Some((order, read))
    }

    fn read_next(&mut self) -> Option<ReadPart<'a>> {
        loop {
            if self.done {
                return None;
            }
            let Some((parts, label)) = &mut self.reading else {
                let Some((trace, name)) = self.files.next() else {
                    self.done = true;
                    return None;
                };
                let opened = open_parts(trace, name, self.options);
                match opened {
                    Ok(parts) => self.reading = Some((parts, &trace.label)),
                    Err(error) => return Some(Err(error)),
                }
                continue;
            };
            match parts.next_part() {
                Ok(Some(part)) => {
                    let first = self.next;
                    self.next += part.len();
                    return Some(Ok((first, *label, part)));
                }
                Ok(None) => {}
                Err(error) => return Some(Err(error)),
            }
            // The file is read to its end: the next one is opened on the next turn.
            if let Some((parts, label)) = self.reading.take() {
                match parts.finish() {
                    Ok(read) => self.warnings.extend(read.warning(label)),
                    Err(error) => return Some(Err(error)),
                }
            }
        }
    }
}
