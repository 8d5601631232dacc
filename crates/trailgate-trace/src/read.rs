//! Reading a trace file of any supported format: find the format, convert record by record,
//! split tool names by the naming scheme, and hand each run over as soon as it is complete.

use std::collections::VecDeque;
use std::io::BufRead;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use miette::{NamedSource, SourceSpan};
use serde_json::Value;

use crate::error::{LineSource, MAX_VALUE_DEPTH, TraceError};
use crate::formats::{ADAPTERS, Adapter, Converter, Record, RecordError};
use crate::limited::{Limited, read_document_limited, read_line_limited};
use crate::model::Run;
use crate::naming::Naming;

mod parquet_parts;

/// The longest line of a JSON Lines trace, in bytes, not counting its line break: 64 MiB.
///
/// A line is one record and is held whole while it is parsed; a longer one is refused as
/// soon as the limit is passed, before it is read further
/// ([`TraceError::LineTooLong`]). One record of a real agent's transcript is a message,
/// at most a few megabytes even with a file or an image inlined.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// The largest `.json` trace, in bytes: 256 MiB.
///
/// A `.json` file is one document, held whole while it is parsed; a larger one is refused
/// after reading one byte past the limit ([`TraceError::TooLarge`]). A trace that large is
/// better written as JSON Lines, which is read one record at a time.
pub const MAX_DOCUMENT_BYTES: usize = 256 << 20;

/// How to read a trace file.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// The format's name; `None` detects it from the content.
    pub format: Option<String>,
    /// How to split tool names into server and tool.
    pub naming: Naming,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            format: None,
            naming: Naming::Default,
        }
    }
}

/// What reading a trace file found besides its runs: the format, and whether the file
/// said nothing (docs/formats.md#a-file-that-says-nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TraceRead {
    /// The name of the format read.
    pub format: &'static str,
    /// Whether the file, which is not empty, gave no tool call at all. Never set for
    /// trailgate's own formats, whose records state their calls, an empty list included.
    pub no_calls: bool,
}

impl TraceRead {
    /// The warning for a file that gave no call, naming it `file`; none otherwise.
    pub fn warning(&self, file: &str) -> Option<String> {
        self.no_calls.then(|| {
            format!(
                "`{file}` was read as `{}` and holds no tool call; if it is in another \
                 format, name it with `--trace-format` (see docs/formats.md)",
                self.format
            )
        })
    }
}

/// Reads the runs of one trace file from `reader`, calling `on_run` with each as soon as it
/// is complete. `file` names it in diagnostics; `lines` says whether it is JSON Lines (one
/// record per line, read one line at a time) or one JSON document.
///
/// Returns the format read and whether the file gave no call. A format named in `options`
/// that finds none of its records in the file is an error ([`TraceError::NoRecords`]).
pub fn read_trace(
    file: &str,
    reader: impl BufRead,
    lines: bool,
    options: &ReadOptions,
    mut on_run: impl FnMut(Run),
) -> Result<TraceRead, TraceError> {
    read_trace_in_parts(file, reader, lines, options, |part| {
        for run in part.into_runs() {
            on_run(run?);
        }
        Ok(())
    })
}

/// How many runs a [`TracePart`] holds at most.
pub const PART_RUNS: usize = 32;

/// How many bytes of lines a [`TracePart`] holds, past which it is handed over. A part's
/// buffer is made this large at once, so that it is not grown line by line.
const PART_BYTES: usize = 512 << 10;

/// Reads one trace file as [`read_trace`] does, but hands over its runs in parts of at most
/// [`PART_RUNS`], in order, as soon as each is complete. A part of trailgate's own JSON
/// Lines holds the lines still unparsed: [`TracePart::into_runs`] parses them on whichever
/// thread calls it, so that several threads can parse the parts of one file while another
/// reads on ([`PartReader`] gives the parts as they are asked for). Parsing a part gives
/// the same runs and the same first error as [`read_trace`].
///
/// An error of `on_part` stops the reading and is returned. An error of the reading itself
/// (the file, a line too long, text that is not UTF-8) is returned after the part holding
/// the lines before it has been handed over, so that the first error in the file's order is
/// the one a caller that parses every part before looking at this result sees.
pub fn read_trace_in_parts(
    file: &str,
    reader: impl BufRead,
    lines: bool,
    options: &ReadOptions,
    mut on_part: impl FnMut(TracePart) -> Result<(), TraceError>,
) -> Result<TraceRead, TraceError> {
    let mut parts = PartReader::new(file, reader, lines, options)?;
    while let Some(part) = parts.next_part()? {
        on_part(part)?;
    }
    parts.finish()
}

/// The parts of one trace file, read as they are asked for: what
/// [`read_trace_in_parts`] hands over, in the same order and with the same errors, to a
/// caller that asks for each part in turn (say, whichever of several threads is free).
///
/// [`next_part`](Self::next_part) gives the parts, then `None` at the end of the file, after
/// which [`finish`](Self::finish) tells what the reading found; an error ends the parts.
pub struct PartReader<'a, R> {
    file: &'a str,
    /// The text read, for a JSON or JSON Lines file; `None` for a Parquet export.
    reader: Option<R>,
    /// A Parquet export being read, and how to name its tools.
    #[cfg(feature = "parquet")]
    parquet: Option<(Box<crate::columnar::ParquetRuns>, Naming)>,
    lines: bool,
    options: &'a ReadOptions,
    forced: Option<&'static dyn Adapter>,
    /// The format and what is read but not handed over, once the first record is read.
    state: Option<State>,
    /// The record being read, for a format whose lines do not go straight into parts.
    bytes: Vec<u8>,
    /// The last line read, counted from 1.
    line: usize,
    /// Parts complete and not yet asked for, in order.
    ready: VecDeque<TracePart>,
    /// The error that ends the parts, once those before it are asked for.
    error: Option<TraceError>,
    /// What the reading found, once the file is read to its end.
    read: Option<TraceRead>,
    /// Whether the parts have ended: the end of the file, or an error told.
    done: bool,
}

impl<'a, R: BufRead> PartReader<'a, R> {
    /// Starts reading `file` from `reader`; see [`read_trace_in_parts`].
    pub fn new(
        file: &'a str,
        reader: R,
        lines: bool,
        options: &'a ReadOptions,
    ) -> Result<Self, TraceError> {
        let forced = forced_adapter(file, options)?;
        Ok(Self::unread(file, Some(reader), lines, options, forced))
    }

    /// A reader of `file` that has read nothing yet, from `reader` (none for a Parquet
    /// export, which sets its own source).
    fn unread(
        file: &'a str,
        reader: Option<R>,
        lines: bool,
        options: &'a ReadOptions,
        forced: Option<&'static dyn Adapter>,
    ) -> Self {
        Self {
            file,
            reader,
            #[cfg(feature = "parquet")]
            parquet: None,
            lines,
            options,
            forced,
            state: None,
            bytes: Vec::new(),
            line: 0,
            ready: VecDeque::new(),
            error: None,
            read: None,
            done: false,
        }
    }

    /// The next part of the file, `None` after the last; an error of the reading comes
    /// after the part holding the lines before it, and ends the parts.
    pub fn next_part(&mut self) -> Result<Option<TracePart>, TraceError> {
        loop {
            if let Some(part) = self.ready.pop_front() {
                return Ok(Some(part));
            }
            if let Some(error) = self.error.take() {
                // Nothing more is read once an error is told.
                self.done = true;
                return Err(error);
            }
            if self.done {
                return Ok(None);
            }
            if let Err(error) = self.step() {
                self.error = Some(error);
            }
        }
    }

    /// What the reading found: the format and whether the file gave no call. An error
    /// unless [`next_part`](Self::next_part) gave `None`.
    pub fn finish(self) -> Result<TraceRead, TraceError> {
        self.read.ok_or_else(|| TraceError::Io {
            file: self.file.to_owned(),
            message: "the file was not read to its end".to_owned(),
        })
    }

    /// Reads one line (or the whole document), putting the parts it completes in
    /// [`ready`](Self::ready); at the end of the file, hands over the rest and sets
    /// [`read`](Self::read).
    fn step(&mut self) -> Result<(), TraceError> {
        #[cfg(feature = "parquet")]
        if self.parquet.is_some() {
            return self.parquet_step();
        }
        let file = self.file;
        let Some(reader) = self.reader.as_mut() else {
            return self.end();
        };
        // Once a format whose lines convert alone is known, each line goes straight into
        // the part that carries it to the thread that parses it.
        if let Some(State {
            lines: Some(part), ..
        }) = &mut self.state
        {
            let first_line = self.line + 1;
            let read = part.read_line(file, reader, first_line);
            self.line += 1;
            return match read {
                Ok(true) => {
                    if part.is_full() {
                        part.hand_over(file, &mut self.ready)?;
                    }
                    Ok(())
                }
                Ok(false) => self.end(),
                Err(error) => {
                    // A line before this one may not be UTF-8: that error comes first.
                    part.hand_over(file, &mut self.ready)?;
                    Err(error)
                }
            };
        }
        self.bytes.clear();
        let first_line = self.line + 1;
        let lines = self.lines;
        if !next_record(file, reader, &mut self.bytes, lines, first_line)? {
            return self.end();
        }
        let buffer = std::str::from_utf8(&self.bytes)
            .map_err(|error| not_utf8(file, &self.bytes, first_line, error.valid_up_to()))?;
        self.line += if lines {
            1
        } else {
            buffer.lines().count().max(1)
        };
        let mut text = buffer.trim_end_matches(['\n', '\r']);
        if first_line == 1 {
            // A UTF-8 byte order mark, which some Windows tools write, is not JSON; it is
            // skipped, as most JSON readers do.
            text = text.strip_prefix('\u{feff}').unwrap_or(text);
        }
        if text.trim().is_empty() {
            if lines {
                return Ok(());
            }
            return self.end();
        }
        let record = Record {
            text,
            line: first_line,
            lines,
        };
        let state = match &mut self.state {
            Some(state) => state,
            None => self
                .state
                .insert(State::new(file, self.forced, &record, lines, self.options)?),
        };
        if let Some(part) = &mut state.lines {
            // The first record, read to detect the format.
            part.push(text, first_line);
            return Ok(());
        }
        if !state.recognised {
            // A format named by hand has not met a record of its own yet: one that its
            // detection would accept. Read twice, but only until the first such record.
            state.recognised = record
                .value()
                .is_ok_and(|value| state.adapter.detect(&value));
        }
        let runs = state
            .converter
            .record(&record)
            .map_err(|error| record_error(file, &record, error, state.adapter.expects()))?;
        let line = lines.then_some(first_line);
        for run in runs {
            state.calls |= !run.calls.is_empty();
            state.runs.push(finish_run(
                run,
                state.adapter.name(),
                &state.naming,
                file,
                line,
            )?);
            if state.runs.len() == PART_RUNS {
                self.ready
                    .push_back(TracePart(Part::Runs(std::mem::take(&mut state.runs))));
            }
        }
        if !lines {
            return self.end();
        }
        Ok(())
    }

    /// The end of the file: hands over what is left and tells what the reading found.
    fn end(&mut self) -> Result<(), TraceError> {
        self.done = true;
        let Some(state) = self.state.take() else {
            return Err(TraceError::Shape {
                file: self.file.to_owned(),
                message: "the file holds no record".to_owned(),
                source_code: Arc::new(NamedSource::new(
                    self.file,
                    LineSource::new(String::new(), 1),
                )),
                span: SourceSpan::new(0.into(), 0),
                help: "a trace file holds JSON; see docs/formats.md for the formats trailgate reads",
            });
        };
        self.read = Some(state.finish(self.file, &mut self.ready)?);
        Ok(())
    }
}

/// The adapter of the format `options` name, if they name one.
fn forced_adapter(
    file: &str,
    options: &ReadOptions,
) -> Result<Option<&'static dyn Adapter>, TraceError> {
    let Some(name) = &options.format else {
        return Ok(None);
    };
    ADAPTERS
        .iter()
        .copied()
        .find(|adapter| adapter.name() == name)
        .map(Some)
        .ok_or_else(|| TraceError::Io {
            file: file.to_owned(),
            message: format!("unknown trace format `{name}`"),
        })
}

impl State {
    /// The end of the file: hands over the lines and runs not handed over yet, and the runs
    /// the converter still holds open.
    fn finish(
        mut self,
        file: &str,
        ready: &mut VecDeque<TracePart>,
    ) -> Result<TraceRead, TraceError> {
        let own_lines = self.lines.is_some();
        if let Some(part) = &mut self.lines {
            part.hand_over(file, ready)?;
        }
        for run in self.converter.finish() {
            let line = run.line;
            self.calls |= !run.calls.is_empty();
            self.runs.push(finish_run(
                run,
                self.adapter.name(),
                &self.naming,
                file,
                line,
            )?);
        }
        if !self.recognised && !self.calls {
            return Err(TraceError::NoRecords {
                file: file.to_owned(),
                format: self.adapter.name(),
                expects: self.adapter.expects(),
            });
        }
        if !self.runs.is_empty() {
            ready.push_back(TracePart(Part::Runs(self.runs)));
        }
        Ok(TraceRead {
            format: self.adapter.name(),
            // trailgate's own shapes state their calls; an empty list is what they mean.
            no_calls: !own_lines && !self.calls && !self.adapter.states_its_calls(),
        })
    }
}

/// The format of a file once its first record is read, and the runs not yet handed over.
struct State {
    adapter: &'static dyn Adapter,
    converter: Box<dyn Converter>,
    naming: Arc<Naming>,
    /// The runs converted and not yet handed over.
    runs: Vec<Run>,
    /// For a JSON Lines file of a format whose lines convert alone: the lines not yet
    /// handed over.
    lines: Option<Lines>,
    /// Whether a record the format's detection accepts has been read: the first one of a
    /// detected format, some record of a format named by hand.
    recognised: bool,
    /// Whether a run with a call has been converted.
    calls: bool,
}

impl State {
    fn new(
        file: &str,
        forced: Option<&'static dyn Adapter>,
        first: &Record<'_>,
        lines: bool,
        options: &ReadOptions,
    ) -> Result<Self, TraceError> {
        let adapter = match forced {
            Some(adapter) => adapter,
            None => detect(file, first)?,
        };
        let naming = Arc::new(match &options.naming {
            Naming::Default => adapter.naming(),
            other => other.clone(),
        });
        let lines = (lines && adapter.one_run_per_line()).then(|| Lines {
            file: Arc::from(file),
            adapter,
            naming: Arc::clone(&naming),
            text: spare_text(),
            records: Vec::new(),
        });
        Ok(Self {
            adapter,
            converter: adapter.converter(),
            naming,
            runs: Vec::new(),
            // trailgate's own JSON Lines are parsed apart and not judged (see `finish`).
            recognised: forced.is_none() || lines.is_some() || adapter.states_its_calls(),
            lines,
            calls: false,
        })
    }
}

/// Part of a trace file, handed over by [`read_trace_in_parts`]: runs converted already,
/// or lines of a format that converts each line alone into one run, still to be parsed.
/// It can be sent to another thread and turned into runs there.
pub struct TracePart(Part);

enum Part {
    Runs(Vec<Run>),
    /// The lines' text, checked to be UTF-8, and the lines.
    Lines(String, Lines),
}

/// Lines of a JSON Lines file whose format converts each line alone into one run: their
/// text, without blank lines, and what parsing them needs.
struct Lines {
    file: Arc<str>,
    adapter: &'static dyn Adapter,
    naming: Arc<Naming>,
    /// The lines, one after the other, without their line breaks; checked to be UTF-8 when
    /// the part is taken ([`Lines::take`]), in one pass over the part.
    text: Vec<u8>,
    /// Where each line ends in `text`, and its 1-based line in the file.
    records: Vec<(usize, usize)>,
}

impl Lines {
    /// Reads the next line onto the end of the part: `true` when a line was read (a blank
    /// one is dropped again), `false` at the end of the input.
    fn read_line(
        &mut self,
        file: &str,
        reader: &mut impl BufRead,
        line: usize,
    ) -> Result<bool, TraceError> {
        let start = self.text.len();
        let read = read_line_limited(reader, &mut self.text, MAX_LINE_BYTES);
        let read = read.map_err(|error| TraceError::Io {
            file: file.to_owned(),
            message: error.to_string(),
        });
        match read {
            Err(error) => {
                self.text.truncate(start);
                return Err(error);
            }
            Ok(Limited::End) => return Ok(false),
            Ok(Limited::TooLong) => {
                self.text.truncate(start);
                return Err(TraceError::LineTooLong {
                    file: file.to_owned(),
                    line,
                    limit: MAX_LINE_BYTES,
                });
            }
            Ok(Limited::Read) => {}
        }
        let added = self.text.get(start..).unwrap_or_default();
        let kept = without_breaks(added);
        // Blank as `str::trim` sees it. Only a line that starts with a non-ASCII character
        // after its white space needs decoding to tell.
        let blank = match kept
            .iter()
            .find(|&&byte| !(byte.is_ascii() && char::from(byte).is_whitespace()))
        {
            None => true,
            Some(byte) if byte.is_ascii() => false,
            Some(_) => match std::str::from_utf8(kept) {
                Ok(text) => text.trim().is_empty(),
                Err(error) => {
                    let error = not_utf8(file, kept, line, error.valid_up_to());
                    self.text.truncate(start);
                    return Err(error);
                }
            },
        };
        let end = if blank { start } else { start + kept.len() };
        self.text.truncate(end);
        if end > start {
            self.records.push((end, line));
        }
        Ok(true)
    }

    /// Adds a line read already.
    fn push(&mut self, text: &str, line: usize) {
        self.text.extend_from_slice(text.as_bytes());
        self.records.push((self.text.len(), line));
    }

    fn is_full(&self) -> bool {
        self.records.len() >= PART_RUNS || self.text.len() >= PART_BYTES
    }

    /// Puts the lines so far in `ready` as one part ([`Lines::take`]); then the error of the
    /// first line that is not UTF-8, if one is not.
    fn hand_over(&mut self, file: &str, ready: &mut VecDeque<TracePart>) -> Result<(), TraceError> {
        let (part, error) = self.take(file);
        ready.push_back(part);
        error.map_or(Ok(()), Err)
    }

    /// The lines so far, checked to be UTF-8 in one pass, leaving this part empty. When a
    /// line is not UTF-8, the part holds the lines before it, and its error comes with it.
    fn take(&mut self, file: &str) -> (TracePart, Option<TraceError>) {
        let mut records = std::mem::take(&mut self.records);
        let (text, error) = match String::from_utf8(std::mem::replace(&mut self.text, spare_text()))
        {
            Ok(text) => (text, None),
            Err(error) => {
                let valid = error.utf8_error().valid_up_to();
                let mut bytes = error.into_bytes();
                let bad = records.partition_point(|&(end, _)| end <= valid);
                let start = bad
                    .checked_sub(1)
                    .and_then(|before| records.get(before))
                    .map_or(0, |&(end, _)| end);
                let (end, line) = records.get(bad).copied().unwrap_or((bytes.len(), 0));
                let bad_line = bytes.get(start..end).unwrap_or_default();
                let error = not_utf8(file, bad_line, line, valid - start);
                records.truncate(bad);
                bytes.truncate(start);
                // The lines before the bad one are valid UTF-8.
                (String::from_utf8(bytes).unwrap_or_default(), Some(error))
            }
        };
        let lines = Self {
            file: Arc::clone(&self.file),
            adapter: self.adapter,
            naming: Arc::clone(&self.naming),
            text: Vec::new(),
            records,
        };
        (TracePart(Part::Lines(text, lines)), error)
    }
}

impl TracePart {
    /// How many runs the part holds.
    pub fn len(&self) -> usize {
        match &self.0 {
            Part::Runs(runs) => runs.len(),
            Part::Lines(_, lines) => lines.records.len(),
        }
    }

    /// Whether the part holds no run.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The runs of the part, in order, parsed as they are taken; parsing stops at the
    /// first error.
    pub fn into_runs(self) -> PartRuns {
        let part = match self.0 {
            Part::Runs(runs) => Taken::Runs(runs),
            // Checked to be UTF-8 when the part was taken; the runs' values share it.
            Part::Lines(text, lines) => Taken::Lines(Arc::new(text), lines),
        };
        PartRuns {
            part,
            next: 0,
            failed: false,
            spare: Run::default(),
        }
    }
}

/// The runs of a [`TracePart`], parsed as they are taken.
///
/// A run handed back with [`recycle`](Self::recycle) once it is done with is read over
/// by the next line: its calls and their names' buffers are reused.
pub struct PartRuns {
    part: Taken,
    next: usize,
    failed: bool,
    spare: Run,
}

impl PartRuns {
    /// Hands a run taken from this part back, to be read over by the next one.
    pub fn recycle(&mut self, run: Run) {
        self.spare = run;
    }
}

impl Drop for PartRuns {
    /// Gives the part's text back for another part, unless a value read from it is still
    /// held somewhere.
    fn drop(&mut self) {
        self.spare = Run::default();
        if let Taken::Lines(text, _) = std::mem::replace(&mut self.part, Taken::Runs(Vec::new()))
            && let Ok(text) = Arc::try_unwrap(text)
        {
            give_back(text.into_bytes());
        }
    }
}

/// Part texts given back once their runs are read, for the reader to fill again: a buffer
/// of half a megabyte made on one thread and freed on another would otherwise be fresh
/// memory each time, which the system maps and zeroes anew. At most [`SPARE_TEXTS`]
/// are kept; they hold no data of a trace once cleared.
static SPARE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// How many part texts [`SPARE`] keeps: a few more than are in flight between reading and
/// parsing.
const SPARE_TEXTS: usize = 8;

/// A part text to fill: one given back, or a new one.
fn spare_text() -> Vec<u8> {
    SPARE
        .lock()
        .ok()
        .and_then(|mut spare| spare.pop())
        .unwrap_or_else(|| Vec::with_capacity(PART_BYTES))
}

/// Keeps a part text for [`spare_text`], cleared, if there is room and it is of the usual
/// size (a part that held a very long line is let go).
fn give_back(mut text: Vec<u8>) {
    if text.capacity() > 2 * PART_BYTES {
        return;
    }
    text.clear();
    if let Ok(mut spare) = SPARE.lock()
        && spare.len() < SPARE_TEXTS
    {
        spare.push(text);
    }
}

/// A part whose runs are being taken: the lines' text, moved out of the [`Lines`], is
/// shared by the values of their runs.
enum Taken {
    Runs(Vec<Run>),
    Lines(Arc<String>, Lines),
}

impl Iterator for PartRuns {
    type Item = Result<Run, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let index = self.next;
        self.next += 1;
        let (text, lines) = match &mut self.part {
            Taken::Runs(runs) => return runs.get_mut(index).map(|run| Ok(std::mem::take(run))),
            Taken::Lines(text, lines) => (&*text, &*lines),
        };
        let &(end, line) = lines.records.get(index)?;
        let start = index
            .checked_sub(1)
            .and_then(|before| lines.records.get(before))
            .map_or(0, |&(end, _)| end);
        let run = std::mem::take(&mut self.spare);
        let result = lines.parse(run, text, start..end, line);
        self.failed = result.is_err();
        Some(result)
    }
}

impl Lines {
    /// Parses one line, the text at `range` in `text`, over `run`.
    fn parse(
        &self,
        mut run: Run,
        text: &Arc<String>,
        range: Range<usize>,
        line: usize,
    ) -> Result<Run, TraceError> {
        let file = &*self.file;
        self.adapter
            .line_run_into(&mut run, text, range.clone(), line)
            .map_err(|error| {
                // Cut at line breaks, which are ASCII.
                let record = Record {
                    text: text.get(range).unwrap_or_default(),
                    line,
                    lines: true,
                };
                record_error(file, &record, error, self.adapter.expects())
            })?;
        finish_run(run, self.adapter.name(), &self.naming, file, Some(line))
    }
}

/// Reads the next line, or the whole document, into `bytes` within its limit; `false` at
/// the end of the input.
fn next_record(
    file: &str,
    reader: &mut impl BufRead,
    bytes: &mut Vec<u8>,
    lines: bool,
    first_line: usize,
) -> Result<bool, TraceError> {
    let read = if lines {
        read_line_limited(reader, bytes, MAX_LINE_BYTES)
    } else {
        read_document_limited(reader, bytes, MAX_DOCUMENT_BYTES)
    }
    .map_err(|error| TraceError::Io {
        file: file.to_owned(),
        message: error.to_string(),
    })?;
    match read {
        Limited::End => Ok(false),
        Limited::Read => Ok(true),
        Limited::TooLong if lines => Err(TraceError::LineTooLong {
            file: file.to_owned(),
            line: first_line,
            limit: MAX_LINE_BYTES,
        }),
        Limited::TooLong => Err(TraceError::TooLarge {
            file: file.to_owned(),
            limit: MAX_DOCUMENT_BYTES,
        }),
    }
}

/// A line without the line breaks at its end, `\n` and `\r`.
fn without_breaks(line: &[u8]) -> &[u8] {
    let kept = line
        .iter()
        .rposition(|&byte| byte != b'\n' && byte != b'\r')
        .map_or(0, |last| last + 1);
    line.get(..kept).unwrap_or_default()
}

/// The error for text that is not UTF-8: the line and column of the first bad byte.
fn not_utf8(file: &str, bytes: &[u8], first_line: usize, valid_up_to: usize) -> TraceError {
    let before = &bytes[..valid_up_to];
    let line_start = before
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |newline| newline + 1);
    // The bytes before the first bad one are valid UTF-8.
    let line =
        first_line + std::str::from_utf8(before).map_or(0, |text| text.matches('\n').count());
    TraceError::Io {
        file: file.to_owned(),
        message: format!(
            "line {line}, byte {column}: the text is not valid UTF-8 (a trace is JSON, \
             which is UTF-8)",
            column = valid_up_to - line_start + 1
        ),
    }
}

/// Names the run's format and splits tool names whose server is not recorded; refuses a
/// call whose arguments or result nest deeper than [`MAX_VALUE_DEPTH`].
fn finish_run(
    mut run: Run,
    format: &'static str,
    naming: &Naming,
    file: &str,
    line: Option<usize>,
) -> Result<Run, TraceError> {
    run.format = format;
    let line = run.line.or(line);
    for (index, call) in run.calls.iter_mut().enumerate() {
        // Argument text that failed to parse only because it nests past the parser's limit
        // is refused as too deep, as the same arguments nested a little less are.
        let raw_too_deep = call.args_raw.as_deref().is_some_and(nests_past_the_parser);
        for (part, value) in [
            ("arguments", Some(&call.args)),
            ("result", call.result.as_ref()),
        ] {
            let too_deep = value.is_some_and(|value| value.nests_deeper_than(MAX_VALUE_DEPTH));
            if too_deep || (part == "arguments" && raw_too_deep) {
                return Err(TraceError::TooDeepValue {
                    file: file.to_owned(),
                    line,
                    call: index + 1,
                    part,
                });
            }
        }
        if call.server.is_none()
            && let Some((server, tool)) = naming.split(&call.name)
        {
            call.server = Some(server);
            call.name = tool;
        }
    }
    Ok(run)
}

/// Whether `text` is JSON that `serde_json` refuses for its nesting alone.
fn nests_past_the_parser(text: &str) -> bool {
    // Parsed into a value: `IgnoredAny` skips nesting without the parser's depth limit.
    serde_json::from_str::<Value>(text)
        .is_err_and(|error| error.to_string().starts_with("recursion limit exceeded"))
}

/// The first format, in table order, that accepts the first record.
fn detect(file: &str, record: &Record<'_>) -> Result<&'static dyn Adapter, TraceError> {
    let value: Value = record
        .value()
        .map_err(|error| record_error(file, record, error, "JSON"))?;
    ADAPTERS
        .iter()
        .copied()
        .find(|adapter| adapter.detect(&value))
        .ok_or_else(|| TraceError::UnknownFormat {
            file: file.to_owned(),
            tried: ADAPTERS
                .iter()
                .map(|adapter| format!("`{}`: {}", adapter.name(), adapter.expects()))
                .collect::<Vec<_>>()
                .join("\n"),
            source_code: Arc::new(
                NamedSource::new(file, LineSource::new(record.text.to_owned(), record.line))
                    .with_language("json"),
            ),
            span: SourceSpan::new(
                0.into(),
                record.text.chars().next().map_or(0, char::len_utf8),
            ),
        })
}

fn record_error(
    file: &str,
    record: &Record<'_>,
    error: RecordError,
    expects: &'static str,
) -> TraceError {
    match error {
        RecordError::Json(error) => {
            TraceError::from_json(file, record.text, record.line, &error, expects)
        }
        RecordError::Shape(message) => TraceError::Shape {
            file: file.to_owned(),
            message,
            source_code: Arc::new(
                NamedSource::new(file, LineSource::new(record.text.to_owned(), record.line))
                    .with_language("json"),
            ),
            span: SourceSpan::new(
                0.into(),
                record.text.chars().next().map_or(0, char::len_utf8),
            ),
            help: expects,
        },
    }
}
