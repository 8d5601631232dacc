//! Diagnostics that point into a shard's file without holding it: the place of a problem is a
//! byte offset, and the diagnostic carries the few lines around it, read again from the file
//! when the problem is found, with their real line numbers.

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::sync::Arc;

use miette::{NamedSource, SourceSpan};
use trailgate_expect::{Problem, SuiteError, SuiteSource};
use trailgate_trace::LineSource;

/// A span's line is shown from its start when that is at most this far before the span.
/// Beyond it (a report written on one line, of megabytes), the text shown starts this far
/// before the span, and the column the diagnostic gives counts from there.
const LINE_BYTES: u64 = 1 << 20;

/// Of the line before a span's, and of the text after it, at most this much is read.
const CONTEXT_BYTES: u64 = 64 << 10;

/// The buffer the file is scanned through for line ends.
const SCAN_BYTES: usize = 64 << 10;

/// Where in a file a problem is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum At {
    /// These bytes.
    Span(u64, usize),
    /// The character at this byte offset, or the end of the file.
    Character(u64),
}

impl At {
    /// The span of a key just read, when `read` bytes of the file have been read:
    /// `serde_json` has read through the key's closing quote.
    pub(crate) fn key(read: u64, key: &str) -> Option<Self> {
        let quoted = key.len() + 2;
        read.checked_sub(quoted as u64)
            .map(|start| Self::Span(start, quoted))
    }
}

/// The diagnostic of `problem` in the shard `name`, placed at `at`, in bytes of its file.
pub(crate) fn fail<R: Read + Seek>(
    name: &str,
    reader: &mut R,
    problem: Problem,
    at: Option<At>,
) -> SuiteError {
    // A file that cannot be read again is still named; the problem then has no place.
    let (text, first_line, span) = at
        .and_then(|at| window(reader, at).ok())
        .map_or((String::new(), 1, None), |(text, first_line, span)| {
            (text, first_line, Some(span))
        });
    let source: SuiteSource = Arc::new(NamedSource::new(name, LineSource::new(text, first_line)));
    SuiteError::new(&source, vec![problem.at(span)])
}

/// The byte offset of a 1-based line and a 1-based byte column (as `serde_json` reports
/// them) of the text at `from..to` of the file, clamped into that text.
pub(crate) fn offset_of<R: Read + Seek>(
    reader: &mut R,
    from: u64,
    to: u64,
    line: usize,
    column: usize,
) -> io::Result<u64> {
    let to = to.min(reader.seek(SeekFrom::End(0))?);
    reader.seek(SeekFrom::Start(from))?;
    let mut buffered = BufReader::with_capacity(SCAN_BYTES, reader.take(to.saturating_sub(from)));
    let mut newlines = line.saturating_sub(1);
    let mut offset = from;
    while newlines > 0 {
        let chunk = buffered.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        let mut used = chunk.len();
        for (index, _) in chunk.iter().enumerate().filter(|&(_, &b)| b == b'\n') {
            newlines -= 1;
            if newlines == 0 {
                used = index + 1;
                break;
            }
        }
        buffered.consume(used);
        offset += used as u64;
    }
    Ok((offset + column.saturating_sub(1) as u64).min(to))
}

/// The most bytes of a number read back for [`json_message`]; a longer number keeps
/// `serde_json`'s words.
const NUMBER_BYTES: u64 = 4096;

/// `serde_json`'s message for `error`, found at `at` in the file, with a number that does not
/// fit the type it was read into named as the file writes it.
///
/// `serde_json` reads an integer past 64 bits into a float and names that float in its
/// message (`invalid type: floating point `1.8446744073709552e+19`, expected u64` for
/// 18446744073709551616), which is another number. The error's place is just past the
/// number, so the number as written is read back from the file and named instead:
/// ``invalid value: integer `18446744073709551616`, expected u64``.
pub(crate) fn json_message<R: Read + Seek>(
    reader: &mut R,
    error: &serde_json::Error,
    at: Option<u64>,
) -> String {
    const FLOAT: &str = "invalid type: floating point `";
    let message = error.to_string();
    let Some(start) = message.find(FLOAT) else {
        return message;
    };
    let rest = &message[start + FLOAT.len()..];
    let Some(end) = rest.find('`') else {
        return message;
    };
    let Some(written) = at.and_then(|at| number_before(reader, at).ok().flatten()) else {
        return message;
    };
    let integer = written
        .strip_prefix('-')
        .unwrap_or(&written)
        .bytes()
        .all(|byte| byte.is_ascii_digit());
    let named = if integer {
        format!("invalid value: integer `{written}`")
    } else {
        format!("invalid type: floating point `{written}`")
    };
    format!("{}{named}{}", &message[..start], &rest[end + 1..])
}

/// The JSON number that ends just before `at` in the file, as written; `None` when the text
/// there is no number, or one longer than [`NUMBER_BYTES`].
fn number_before<R: Read + Seek>(reader: &mut R, at: u64) -> io::Result<Option<String>> {
    let from = at.saturating_sub(NUMBER_BYTES);
    reader.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::new();
    reader.take(at - from).read_to_end(&mut bytes)?;
    let length = bytes
        .iter()
        .rev()
        .take_while(|byte| matches!(byte, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .count();
    if length == bytes.len() && from > 0 {
        return Ok(None);
    }
    let number = &bytes[bytes.len() - length..];
    let number_start = number.strip_prefix(b"-").unwrap_or(number).first();
    Ok(number_start
        .is_some_and(u8::is_ascii_digit)
        .then(|| String::from_utf8_lossy(number).into_owned()))
}

/// Where an offset is: its 1-based line, where that line starts and where the one before it
/// starts.
struct Place {
    line: usize,
    start: u64,
    previous: Option<u64>,
}

fn place<R: Read + Seek>(reader: &mut R, at: u64) -> io::Result<Place> {
    reader.seek(SeekFrom::Start(0))?;
    let mut buffered = BufReader::with_capacity(SCAN_BYTES, reader.take(at));
    let mut place = Place {
        line: 1,
        start: 0,
        previous: None,
    };
    let mut offset = 0_u64;
    loop {
        let chunk = buffered.fill_buf()?;
        if chunk.is_empty() {
            return Ok(place);
        }
        #[expect(
            clippy::naive_bytecount,
            reason = "an error's place is found once; not worth a dependency"
        )]
        let newlines = chunk.iter().filter(|&&b| b == b'\n').count();
        let mut ends = chunk.iter().enumerate().rev().filter(|&(_, &b)| b == b'\n');
        if let Some((last, _)) = ends.next() {
            place.previous = Some(match ends.next() {
                Some((before, _)) => offset + before as u64 + 1,
                None => place.start,
            });
            place.start = offset + last as u64 + 1;
            place.line += newlines;
        }
        let used = chunk.len();
        buffered.consume(used);
        offset += used as u64;
    }
}

/// The text around `at`: from the start of the line before it to the end of the line after
/// it, each cut to its bounds; the line the text starts on; and `at` within the text.
fn window<R: Read + Seek>(reader: &mut R, at: At) -> io::Result<(String, usize, SourceSpan)> {
    let len = reader.seek(SeekFrom::End(0))?;
    let (offset, span_len) = match at {
        At::Span(offset, span_len) => (offset.min(len), span_len as u64),
        At::Character(offset) => (offset.min(len), 0),
    };
    let place = place(reader, offset)?;
    let (low, first_line) = if offset - place.start > LINE_BYTES {
        (offset - LINE_BYTES, place.line)
    } else if let Some(previous) = place.previous {
        (
            previous.max(place.start.saturating_sub(CONTEXT_BYTES)),
            place.line - 1,
        )
    } else {
        (place.start, place.line)
    };
    reader.seek(SeekFrom::Start(low))?;
    let mut bytes = Vec::new();
    let through = (offset + span_len).min(len);
    reader.take(through - low).read_to_end(&mut bytes)?;
    // The rest of the span's line and two lines more, so that the lines shown after the span
    // are the file's whole lines.
    let mut after = BufReader::new(reader.take(CONTEXT_BYTES));
    for _ in 0..3 {
        if after.read_until(b'\n', &mut bytes)? == 0 {
            break;
        }
    }
    let text = text_of(bytes);
    let mut start = usize::try_from(offset - low)
        .unwrap_or(usize::MAX)
        .min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let rest = &text[start..];
    let span_len = match at {
        At::Span(_, span_len) => span_len.min(rest.len()),
        At::Character(_) => rest.chars().next().map_or(0, char::len_utf8),
    };
    Ok((text, first_line, SourceSpan::from((start, span_len))))
}

/// The bytes as text, each byte that is not UTF-8 shown as `?`, so that every offset still
/// points at the same place.
fn text_of(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            let bytes = error.into_bytes();
            let mut text = String::with_capacity(bytes.len());
            for chunk in bytes.utf8_chunks() {
                text.push_str(chunk.valid());
                text.extend(std::iter::repeat_n('?', chunk.invalid().len()));
            }
            text
        }
    }
}
