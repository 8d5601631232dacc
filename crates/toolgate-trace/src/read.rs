//! Reading a trace file of any supported format: find the format, convert record by record,
//! split tool names by the naming scheme, and hand each run over as soon as it is complete.

use std::io::{self, BufRead, Read};
use std::sync::Arc;

use miette::{NamedSource, SourceSpan};
use serde_json::Value;

use crate::error::{LineSource, MAX_VALUE_DEPTH, TraceError};
use crate::formats::{ADAPTERS, Adapter, Converter, Record, RecordError};
use crate::model::Run;
use crate::naming::Naming;

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

/// Reads the runs of one trace file from `reader`, calling `on_run` with each as soon as it
/// is complete. `file` names it in diagnostics; `lines` says whether it is JSON Lines (one
/// record per line, read one line at a time) or one JSON document.
///
/// Returns the name of the format read.
pub fn read_trace(
    file: &str,
    mut reader: impl BufRead,
    lines: bool,
    options: &ReadOptions,
    mut on_run: impl FnMut(Run),
) -> Result<&'static str, TraceError> {
    let forced = match &options.format {
        Some(name) => Some(
            ADAPTERS
                .iter()
                .copied()
                .find(|adapter| adapter.name() == name)
                .ok_or_else(|| TraceError::Io {
                    file: file.to_owned(),
                    message: format!("unknown trace format `{name}`"),
                })?,
        ),
        None => None,
    };
    let mut state: Option<(&'static dyn Adapter, Box<dyn Converter>, Naming)> = None;
    let mut bytes = Vec::new();
    let mut line = 0;
    loop {
        bytes.clear();
        let first_line = line + 1;
        if !next_record(file, &mut reader, &mut bytes, lines, first_line)? {
            break;
        }
        let buffer = std::str::from_utf8(&bytes)
            .map_err(|error| not_utf8(file, &bytes, first_line, error.valid_up_to()))?;
        line += if lines {
            1
        } else {
            buffer.lines().count().max(1)
        };
        let text = buffer.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            if lines {
                continue;
            }
            break;
        }
        let record = Record {
            text,
            line: first_line,
            lines,
        };
        if state.is_none() {
            let adapter = match forced {
                Some(adapter) => adapter,
                None => detect(file, &record)?,
            };
            let naming = match &options.naming {
                Naming::Default => adapter.naming(),
                other => other.clone(),
            };
            state = Some((adapter, adapter.converter(), naming));
        }
        if let Some((adapter, converter, naming)) = &mut state {
            let runs = converter
                .record(&record)
                .map_err(|error| record_error(file, &record, error, adapter.expects()))?;
            let line = lines.then_some(first_line);
            for run in runs {
                on_run(finish_run(run, adapter.name(), naming, file, line)?);
            }
        }
        if !lines {
            break;
        }
    }
    let Some((adapter, converter, naming)) = state else {
        return Err(TraceError::Shape {
            file: file.to_owned(),
            message: "the file holds no record".to_owned(),
            source_code: Arc::new(NamedSource::new(file, LineSource::new(String::new(), 1))),
            span: SourceSpan::new(0.into(), 0),
            help: "a trace file holds JSON; see docs/formats.md for the formats toolgate reads",
        });
    };
    for run in converter.finish() {
        let line = run.line;
        on_run(finish_run(run, adapter.name(), &naming, file, line)?);
    }
    Ok(adapter.name())
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

/// What a limited read found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Limited {
    /// A line or a document, now in the buffer.
    Read,
    /// Nothing more: the end of the input.
    End,
    /// More than the limit; the buffer holds at most the limit.
    TooLong,
}

/// Reads one line, with its line break, into `buffer`, refusing a line whose text (without
/// the line break) is longer than `limit` bytes. At most `limit` bytes and the line break
/// are read (with the standard library's fast search for the break); on refusal the buffer
/// holds at most the limit.
pub(crate) fn read_line_limited(
    reader: &mut impl BufRead,
    buffer: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Limited> {
    let start = buffer.len();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    if reader.take(cap).read_until(b'\n', buffer)? == 0 {
        return Ok(if buffer.is_empty() {
            Limited::End
        } else {
            Limited::Read
        });
    }
    if buffer.ends_with(b"\n") || buffer.len() - start <= limit {
        return Ok(Limited::Read);
    }
    buffer.truncate(start + limit);
    Ok(Limited::TooLong)
}

/// Reads the whole input into `buffer`, refusing more than `limit` bytes: at most one byte
/// past the limit is read.
pub(crate) fn read_document_limited(
    reader: &mut impl Read,
    buffer: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Limited> {
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    reader.take(cap).read_to_end(buffer)?;
    Ok(if buffer.len() > limit {
        Limited::TooLong
    } else if buffer.is_empty() {
        Limited::End
    } else {
        Limited::Read
    })
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
        for (part, value) in [
            ("arguments", Some(&call.args)),
            ("result", call.result.as_ref()),
        ] {
            if value.is_some_and(|value| value.nests_deeper_than(MAX_VALUE_DEPTH)) {
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
