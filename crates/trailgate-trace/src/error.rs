//! Trace errors as diagnostics that point into the file, and the source type that lets a
//! JSON Lines error show its real line number without keeping the whole file.

use std::sync::Arc;

use miette::{
    Diagnostic, MietteError, MietteSpanContents, NamedSource, SourceCode, SourceSpan, SpanContents,
};
use thiserror::Error;

/// How deep arrays and objects may nest in a JSON text trailgate reads: 127 levels, the most
/// `serde_json`'s parser accepts.
///
/// The parser refuses deeper input with an error instead of recursing further, so no trace
/// can exhaust the stack; [`TraceError::TooDeep`] says so in words.
pub const MAX_NESTING_DEPTH: usize = 127;

/// How deep a call's arguments or result may nest: 124 levels, so that the call written
/// back by `trailgate convert` (inside a line object, its `tool_calls` list and the call's
/// entry) is still within [`MAX_NESTING_DEPTH`]. Arguments written as a JSON string inside
/// a trace are parsed on their own and could otherwise nest deeper than the trace.
pub const MAX_VALUE_DEPTH: usize = MAX_NESTING_DEPTH - 3;

/// What a trace looks like, for the help line of a shape error.
pub(crate) const TRACE_SHAPE: &str = "a trace is `{\"tool_calls\": [{\"name\": ..., \"server\": ...}]}` \
                                      or `{\"events\": [{\"type\": \"tool_call\", ...}]}`; see docs/suite.md";

/// A trace that could not be read.
#[derive(Debug, Error, Diagnostic)]
#[non_exhaustive]
pub enum TraceError {
    /// The text is not valid JSON.
    #[error("invalid JSON in `{file}`: {message}")]
    #[diagnostic(code(trailgate::trace::syntax))]
    Syntax {
        /// The file's name, as the caller gave it.
        file: String,
        /// What the JSON parser said.
        message: String,
        /// The file, or the line of it that failed.
        #[source_code]
        source_code: Arc<NamedSource<LineSource>>,
        /// Where it failed.
        #[label("here")]
        span: SourceSpan,
        /// For text that is not JSON at all (a YAML file, say): the formats trailgate reads.
        #[help]
        help: Option<String>,
    },
    /// The text is JSON, but not a trace.
    #[error("`{file}` has the wrong shape: {message}")]
    #[diagnostic(code(trailgate::trace::shape))]
    Shape {
        /// The file's name, as the caller gave it.
        file: String,
        /// What was wrong.
        message: String,
        /// The file, or the line of it that failed.
        #[source_code]
        source_code: Arc<NamedSource<LineSource>>,
        /// Where.
        #[label("here")]
        span: SourceSpan,
        /// What the file should look like.
        #[help]
        help: &'static str,
    },
    /// No format trailgate reads accepts the file's first record.
    #[error("`{file}` matches no trace format trailgate reads")]
    #[diagnostic(
        code(trailgate::trace::unknown_format),
        help(
            "name the format with `trace_format:` in the suite or `--trace-format`, or \
              convert the file; the formats tried, and what each expects:\n{tried}"
        )
    )]
    UnknownFormat {
        /// The file's name, as the caller gave it.
        file: String,
        /// Each format tried, with what it expects, one per line.
        tried: String,
        /// The first record.
        #[source_code]
        source_code: Arc<NamedSource<LineSource>>,
        /// Its start.
        #[label("no format starts like this")]
        span: SourceSpan,
    },
    /// A format named by hand found none of its records in the file
    /// (docs/formats.md#a-file-that-says-nothing): read on,
    /// the file would silently hold no call.
    #[error("`{file}` holds no record of the trace format `{format}`")]
    #[diagnostic(
        code(trailgate::trace::no_records),
        help(
            "`{format}` looks for {expects}; drop the forced format to detect the file's own, \
             or see docs/formats.md"
        )
    )]
    NoRecords {
        /// The file's name, as the caller gave it.
        file: String,
        /// The format named.
        format: &'static str,
        /// What the format looks for.
        expects: &'static str,
    },
    /// A Parquet export that cannot be read: not Parquet, cut short, a column missing or of
    /// another type, a string that is not UTF-8, or a row group larger than
    /// `MAX_ROW_GROUP_BYTES` (docs/robustness.md#parquet).
    #[error("`{file}`{place}: {message}")]
    #[diagnostic(
        code(trailgate::trace::parquet),
        help(
            "trailgate reads the Parquet exports of Langfuse (observations) and LangSmith \
             (runs) as the platforms write them; see docs/formats.md#parquet-exports"
        )
    )]
    Parquet {
        /// The file's name, as the caller gave it.
        file: String,
        /// Where in the file (", row group 2, column `input`"), or nothing.
        place: String,
        /// What was wrong.
        message: String,
    },
    /// The JSON nests deeper than [`MAX_NESTING_DEPTH`] arrays and objects.
    #[error("`{file}` nests arrays and objects more than {MAX_NESTING_DEPTH} deep")]
    #[diagnostic(
        code(trailgate::trace::too_deep),
        help(
            "trailgate reads JSON nested up to {MAX_NESTING_DEPTH} levels of arrays and objects, \
             which no agent's trace comes near; this file is likely corrupt or generated \
             to attack the parser"
        )
    )]
    TooDeep {
        /// The file's name, as the caller gave it.
        file: String,
        /// The file, or the line of it that failed.
        #[source_code]
        source_code: Arc<NamedSource<LineSource>>,
        /// The opening bracket one level too deep.
        #[label("level {} starts here", MAX_NESTING_DEPTH + 1)]
        span: SourceSpan,
    },
    /// A call's arguments or result nest deeper than [`MAX_VALUE_DEPTH`] (they were
    /// written as a JSON string, or sit near the top of the record).
    #[error(
        "`{file}`{}: the {part} of call {call} nest arrays and objects more than \
         {MAX_VALUE_DEPTH} deep",
        line.map(|line| format!(", line {line}")).unwrap_or_default()
    )]
    #[diagnostic(
        code(trailgate::trace::too_deep),
        help(
            "trailgate keeps arguments and results nested up to {MAX_VALUE_DEPTH} levels, so \
             that `trailgate convert` writes every call back within the {MAX_NESTING_DEPTH} \
             levels a trace may have"
        )
    )]
    TooDeepValue {
        /// The file's name, as the caller gave it.
        file: String,
        /// The record's 1-based line, for a JSON Lines file.
        line: Option<usize>,
        /// The call's 1-based position in its run.
        call: usize,
        /// `arguments` or `result`.
        part: &'static str,
    },
    /// A line of a JSON Lines file is longer than [`MAX_LINE_BYTES`](crate::MAX_LINE_BYTES).
    #[error("line {line} of `{file}` is longer than {} MiB", limit >> 20)]
    #[diagnostic(
        code(trailgate::trace::line_too_long),
        help(
            "a JSON Lines trace holds one record per line, and trailgate reads lines of up to \
             {} MiB; the line was refused without reading the rest of it. Check that the \
             file really is JSON Lines (a `.json` document is read whole, up to {} MiB)",
            limit >> 20, crate::MAX_DOCUMENT_BYTES >> 20
        )
    )]
    LineTooLong {
        /// The file's name, as the caller gave it.
        file: String,
        /// The 1-based line.
        line: usize,
        /// The limit, in bytes.
        limit: usize,
    },
    /// A `.json` trace is larger than [`MAX_DOCUMENT_BYTES`](crate::MAX_DOCUMENT_BYTES).
    #[error("`{file}` is larger than {} MiB", limit >> 20)]
    #[diagnostic(
        code(trailgate::trace::too_large),
        help(
            "a `.json` trace is one document, read whole, of up to {} MiB; write a larger \
             trace as JSON Lines (`.jsonl`), which is read one line at a time",
            limit >> 20
        )
    )]
    TooLarge {
        /// The file's name, as the caller gave it.
        file: String,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The file could not be read.
    #[error("cannot read trace `{file}`: {message}")]
    #[diagnostic(code(trailgate::trace::io))]
    Io {
        /// The file's name, as the caller gave it.
        file: String,
        /// What the system said.
        message: String,
    },
}

/// The formats' names, in detection order, for the help of a file that is not JSON. The
/// adapters are the source of truth (`formats::format_names`); a test there keeps this list
/// equal to theirs. It is written here so that the errors do not import the formats, which
/// import the errors.
pub(crate) const FORMAT_NAMES: &[&str] = &[
    "trailgate",
    "otel",
    "openai-agents",
    "atif",
    "mini-swe-agent",
    "gemini-cli",
    "codex-exec",
    "langfuse",
    "langsmith",
    "swe-agent",
    "openhands",
    "bedrock",
    "cohere",
    "gemini-interactions",
    "inspect-ai",
    "mcp",
    "claude-code",
    "openai-responses",
    "copilot",
    "adk",
    "gemini",
    "langchain",
    "anthropic",
    "openai-chat",
];

impl TraceError {
    /// Builds the error for a `serde_json` failure on `text`, which starts on line
    /// `first_line` (1-based) of `file`; `shape` says what the file should look like.
    pub(crate) fn from_json(
        file: &str,
        text: &str,
        first_line: usize,
        error: &serde_json::Error,
        shape: &'static str,
    ) -> Self {
        let span = json_error_span(text, error);
        // serde_json appends " at line L column C"; the span says where, and for a JSON
        // Lines file the line within the text is not the line within the file.
        let message = name_lone_surrogate(text, span, strip_position(&error.to_string()));
        let source_code = Arc::new(
            NamedSource::new(file, LineSource::new(text.to_owned(), first_line))
                .with_language("json"),
        );
        let file = file.to_owned();
        if message.starts_with("recursion limit exceeded") {
            return Self::TooDeep {
                file,
                source_code,
                span,
            };
        }
        if error.is_data() {
            Self::Shape {
                file,
                message,
                source_code,
                span,
                help: shape,
            }
        } else {
            // Text whose first character cannot start JSON is another kind of file: say
            // what trailgate reads instead of only where the parser stopped.
            let not_json = !matches!(
                text.trim_start().chars().next(),
                Some('{' | '[' | '"' | '-' | '0'..='9' | 't' | 'f' | 'n') | None
            );
            let help = not_json.then(|| {
                format!(
                    "this is not JSON; trailgate reads traces written as JSON or JSON Lines, in \
                     these formats: {}; see docs/formats.md",
                    FORMAT_NAMES.join(", ")
                )
            });
            Self::Syntax {
                file,
                message,
                source_code,
                span,
                help,
            }
        }
    }
}

/// `serde_json` says "unexpected end of hex escape" when a `\uD800`-`\uDBFF` escape, the
/// first half of a UTF-16 surrogate pair, is not followed by its second half: that is
/// what the message names instead.
fn name_lone_surrogate(text: &str, span: SourceSpan, message: String) -> String {
    if message != "unexpected end of hex escape"
        && message != "lone leading surrogate in hex escape"
    {
        return message;
    }
    let before = &text.as_bytes()[..(span.offset() + span.len()).min(text.len())];
    let escape = before
        .windows(6)
        .rev()
        .find(|window| window.starts_with(b"\\u") && window[2..].iter().all(u8::is_ascii_hexdigit));
    let Some((escape, unit)) = escape
        .and_then(|window| std::str::from_utf8(window).ok())
        .and_then(|escape| Some((escape, u16::from_str_radix(&escape[2..], 16).ok()?)))
    else {
        return message;
    };
    match unit {
        0xd800..=0xdbff => format!(
            "`{escape}` is the first half of a UTF-16 surrogate pair, and its second half \
             (`\\uDC00` to `\\uDFFF`) does not follow; JSON text cannot hold half a character"
        ),
        0xdc00..=0xdfff => format!(
            "`{escape}` is the second half of a UTF-16 surrogate pair, without its first half \
             (`\\uD800` to `\\uDBFF`) before it; JSON text cannot hold half a character"
        ),
        _ => message,
    }
}

/// Removes `serde_json`'s trailing ` at line L column C`.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

/// Where in `text` a `serde_json` error on it points: the character at its line and column
/// (nothing at the end of the text).
pub fn json_error_span(text: &str, error: &serde_json::Error) -> SourceSpan {
    token_span(text, byte_offset(text, error.line(), error.column()))
}

/// The byte offset of a 1-based line and a 1-based byte column, clamped into `text`.
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let mut offset = (line_start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// A span starting at `offset` that covers one character, or nothing at the end of the text.
fn token_span(text: &str, offset: usize) -> SourceSpan {
    let len = text[offset..].chars().next().map_or(0, char::len_utf8);
    SourceSpan::new(offset.into(), len)
}

/// Source text that starts on a given line of its file.
///
/// A JSON Lines trace is read line by line; when one line fails, the diagnostic holds that
/// line alone and still reports its real line number.
#[derive(Debug, Clone)]
pub struct LineSource {
    text: String,
    /// The 0-based line of the file on which `text` starts.
    first_line: usize,
}

impl LineSource {
    /// `text`, which starts on the 1-based line `first_line` of its file. The text is kept
    /// as [`inert_source`] shows it: a diagnostic prints it to a terminal or a CI log.
    pub fn new(text: String, first_line: usize) -> Self {
        Self {
            text: inert_source(text),
            first_line: first_line.saturating_sub(1),
        }
    }
}

/// Source text made safe to show in a diagnostic, with every byte offset kept, so that the
/// spans into the original still point at the same characters: each control character
/// but the line feed and the tab, each bidirectional formatting character, and U+FFFE and
/// U+FFFF, is replaced
/// by a visible character of the same length in UTF-8 (`?` for one byte, `¿` for two, `�`
/// for three). A trace is written by an agent that echoes whatever a web page said: a
/// terminal escape or a carriage return in it must not reach the terminal, and a bidi
/// override must not reorder what a reviewer sees.
pub fn inert_source(text: String) -> String {
    let hostile = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(
                c,
                '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
                    | '\u{fffe}' | '\u{ffff}'
            )
    };
    if !text.contains(hostile) {
        return text;
    }
    text.chars()
        .map(|c| {
            if !hostile(c) {
                return c;
            }
            match c.len_utf8() {
                1 => '?',
                2 => '\u{bf}',
                _ => '\u{fffd}',
            }
        })
        .collect()
}

impl SourceCode for LineSource {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self
            .text
            .read_span(span, context_lines_before, context_lines_after)?;
        let data = inner.data();
        if data.len() <= SHOWN_BYTES {
            return Ok(Box::new(MietteSpanContents::new(
                data,
                *inner.span(),
                inner.line() + self.first_line,
                inner.column(),
                inner.line_count(),
            )));
        }
        // A long line (a record can be megabytes) is shown as a window around the span, so
        // that a diagnostic stays a few lines long; the line and column stay the real ones.
        let start = inner.span().offset();
        let at = span.offset().saturating_sub(start).min(data.len());
        // A span longer than a window (a value of megabytes) is shown by its start.
        let end = (at + span.len().min(WINDOW_BYTES)).min(data.len());
        let text = std::str::from_utf8(data).unwrap_or_default();
        let low = floor_boundary(text, at.saturating_sub(WINDOW_BYTES));
        let high = ceil_boundary(text, end.saturating_add(WINDOW_BYTES).min(text.len()));
        let window = &text[low..high];
        Ok(Box::new(MietteSpanContents::new(
            window.as_bytes(),
            SourceSpan::from((start + low, high - low)),
            inner.line() + self.first_line + text[..low].matches('\n').count(),
            inner.column(),
            window.lines().count().max(1),
        )))
    }
}

/// Source text up to this long is shown whole around a span.
const SHOWN_BYTES: usize = 1024;

/// Beyond [`SHOWN_BYTES`], this much is shown on each side of the span.
const WINDOW_BYTES: usize = 120;

/// The largest char boundary of `text` at or before `index`.
fn floor_boundary(text: &str, mut index: usize) -> usize {
    while index > 0 && !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// The smallest char boundary of `text` at or after `index`.
fn ceil_boundary(text: &str, mut index: usize) -> usize {
    while index < text.len() && !text.is_char_boundary(index) {
        index += 1;
    }
    index
}
