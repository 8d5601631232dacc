//! Hostile traces: a line of gigabytes, a huge document, nesting thousands deep, a million
//! runs. Each ends in its own error or a normal result, holding no more than its limit.

use std::cell::Cell;
use std::io::{self, BufRead, Read};
use std::rc::Rc;

use miette::Diagnostic;
use trailgate_trace::{
    MAX_DOCUMENT_BYTES, MAX_LINE_BYTES, MAX_NESTING_DEPTH, MAX_VALUE_DEPTH, PART_RUNS, ReadOptions,
    Run, TraceError, args_equal, format_names, read_trace, write_run,
};

/// A reader that serves `prefix`, then `filler` bytes up to `len` bytes in all, in chunks
/// of 1 MiB, without ever holding more than one chunk; it counts what was consumed.
struct Generated {
    prefix: Vec<u8>,
    chunk: Vec<u8>,
    len: u64,
    served: u64,
}

impl Generated {
    fn new(prefix: &str, filler: u8, len: u64) -> Self {
        Self {
            prefix: prefix.as_bytes().to_vec(),
            chunk: vec![filler; 1 << 20],
            len,
            served: 0,
        }
    }
}

impl Read for Generated {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Generated {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let left = self.len - self.served;
        let prefix_len = self.prefix.len() as u64;
        if self.served < prefix_len {
            let start = usize::try_from(self.served).unwrap();
            return Ok(&self.prefix[start..]);
        }
        let n = usize::try_from(left.min(self.chunk.len() as u64)).unwrap();
        Ok(&self.chunk[..n])
    }

    fn consume(&mut self, amount: usize) {
        self.served += amount as u64;
    }
}

fn read_all(file: &str, reader: impl BufRead, lines: bool) -> Result<Vec<Run>, TraceError> {
    let mut runs = Vec::new();
    read_trace(file, reader, lines, &ReadOptions::default(), |run| {
        runs.push(run);
    })?;
    Ok(runs)
}

fn code(error: &TraceError) -> String {
    error
        .code()
        .map(|code| code.to_string())
        .unwrap_or_default()
}

#[test]
fn a_line_of_gigabytes_is_refused_at_the_limit_without_being_read_whole() {
    // Two good lines, then a line of 4 GiB with no line break in sight.
    let prefix = "{\"tool_calls\": [{\"name\": \"a\"}]}\n\n{\"tool_calls\": [";
    let mut reader = Generated::new(prefix, b' ', 4 << 30);
    let mut runs = Vec::new();
    let error = read_trace(
        "huge.jsonl",
        &mut reader,
        true,
        &ReadOptions::default(),
        |run| runs.push(run),
    )
    .unwrap_err();
    assert_eq!(code(&error), "trailgate::trace::line_too_long");
    assert_eq!(
        error.to_string(),
        "line 3 of `huge.jsonl` is longer than 64 MiB"
    );
    assert!(
        matches!(error, TraceError::LineTooLong { line: 3, limit, .. } if limit == MAX_LINE_BYTES)
    );
    // The run before it was read; of the long line, no more than the limit was ever taken
    // from the reader.
    assert_eq!(runs.len(), 1);
    assert!(reader.served <= (prefix.len() + MAX_LINE_BYTES) as u64);
}

#[test]
fn a_document_past_the_limit_is_refused_after_one_byte_more() {
    let mut reader = Generated::new("{\"tool_calls\": [", b' ', 8 << 30);
    let error = read_trace(
        "huge.json",
        &mut reader,
        false,
        &ReadOptions::default(),
        |_| {},
    )
    .unwrap_err();
    assert_eq!(code(&error), "trailgate::trace::too_large");
    assert_eq!(error.to_string(), "`huge.json` is larger than 256 MiB");
    assert_eq!(reader.served, MAX_DOCUMENT_BYTES as u64 + 1);
}

#[test]
fn text_that_is_not_utf8_names_its_line_and_byte() {
    let text: &[u8] = b"{\"tool_calls\": []}\n{\"tool_calls\": [{\"name\": \"\xff\"}]}\n";
    for (lines, file) in [(true, "bad.jsonl"), (false, "bad.json")] {
        let error = read_all(file, text, lines).unwrap_err();
        assert_eq!(code(&error), "trailgate::trace::io");
        assert_eq!(
            error.to_string(),
            format!(
                "cannot read trace `{file}`: line 2, byte 27: the text is not valid UTF-8 \
                 (a trace is JSON, which is UTF-8)"
            )
        );
    }
}

/// Documents nesting `depth` levels, in `open`/`close` shape, at the top, in a field no
/// format knows, and inside a call's arguments; each on line 3 of its file.
fn deep_documents(depth: usize) -> Vec<(String, usize)> {
    let mut documents = Vec::new();
    for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
        let core = format!("{}1{}", open.repeat(depth), close.repeat(depth));
        for (before, after, levels_before) in [
            ("", "", 0),
            ("{\"x\": ", "}", 1),
            ("{\"tool_calls\": [{\"name\": \"a\", \"args\": ", "}]}", 3),
        ] {
            // The offset, in the record, of the first bracket past the limit.
            let offset = before.len() + (MAX_NESTING_DEPTH - levels_before) * open.len();
            documents.push((format!("\n\n{before}{core}{after}\n"), offset));
        }
    }
    documents
}

#[test]
fn nesting_past_the_limit_is_its_own_error_in_every_format_and_layout() {
    let mut formats: Vec<Option<&str>> = vec![None];
    formats.extend(format_names().into_iter().map(Some));
    for depth in [MAX_NESTING_DEPTH + 1, 100_000] {
        for (text, offset) in deep_documents(depth) {
            for format in &formats {
                for lines in [true, false] {
                    let options = ReadOptions {
                        format: format.map(str::to_owned),
                        ..ReadOptions::default()
                    };
                    let error =
                        read_trace("deep", text.as_bytes(), lines, &options, |_| {}).unwrap_err();
                    let case = format!("{format:?} lines={lines} {}", &text[..12]);
                    let code = code(&error);
                    // A format named on the command line reads its own shape; one that
                    // parses straight into its types stops at the first wrong type, which
                    // may come before the depth does. Detection always reads JSON first.
                    if code == "trailgate::trace::shape" && format.is_some() {
                        continue;
                    }
                    assert_eq!(code, "trailgate::trace::too_deep", "{case}: {error:?}");
                    assert_eq!(
                        error.to_string(),
                        "`deep` nests arrays and objects more than 127 deep"
                    );
                    let TraceError::TooDeep { span, .. } = &error else {
                        unreachable!()
                    };
                    // The label is on the first bracket past the limit, on line 3 of the
                    // file whichever way it was read.
                    let base = if lines { 0 } else { 2 };
                    assert_eq!(span.offset(), base + offset, "{case}");
                }
            }
        }
    }
}

fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

/// An `OpenAI` chat trace whose one call has `arguments` written as a JSON string.
fn string_arguments(arguments: &str) -> String {
    serde_json::json!({
        "messages": [{
            "role": "assistant",
            "tool_calls": [{
                "id": "c1",
                "type": "function",
                "function": {"name": "deep", "arguments": arguments},
            }],
        }],
    })
    .to_string()
}

#[test]
fn values_at_the_limit_are_read_scored_and_written_back_readable() {
    // Arguments and result nested as deep as a call-list document allows, and arguments
    // written as a JSON string nested to the value limit.
    let deepest = nested(MAX_VALUE_DEPTH);
    let native = format!(
        "{{\"tool_calls\": [{{\"name\": \"deep\", \"args\": {deepest}, \"result\": {deepest}}}]}}"
    );
    for text in [native, string_arguments(&deepest)] {
        let runs = read_all("deep.json", text.as_bytes(), false).unwrap();
        let args = runs[0].calls[0].args();
        assert!(args_equal(args, &args.clone()));
        let mut out = Vec::new();
        write_run(&runs[0], "deep.json", &mut out).unwrap();
        // What `trailgate convert` writes reads back as the same call.
        let back = read_all("converted.jsonl", out.as_slice(), true).unwrap();
        assert!(args_equal(back[0].calls[0].args(), args));
    }
}

#[test]
fn a_value_deeper_than_the_limit_is_its_own_error() {
    // Valid JSON inside a string, one level deeper than a kept value may be: once parsed it
    // would make a call that `trailgate convert` cannot write back readably.
    let text = format!("\n{}\n", string_arguments(&nested(MAX_VALUE_DEPTH + 1)));
    let error = read_all("deep.jsonl", text.as_bytes(), true).unwrap_err();
    assert_eq!(code(&error), "trailgate::trace::too_deep");
    assert_eq!(
        error.to_string(),
        "`deep.jsonl`, line 2: the arguments of call 1 nest arrays and objects more than 124 deep"
    );
    // Nesting past the parser's own limit inside the string is refused the same way, not
    // kept as text that would score like any other unreadable arguments.
    for depth in [MAX_NESTING_DEPTH + 1, MAX_NESTING_DEPTH + 3, 1_000_000] {
        let text = string_arguments(&nested(depth));
        let error = read_all("deep.json", text.as_bytes(), false).unwrap_err();
        assert_eq!(code(&error), "trailgate::trace::too_deep", "depth {depth}");
    }
}

/// A JSON Lines file of `runs` lines, generated as it is read; `lines_read` counts the
/// lines the reader has fully handed out.
struct ManyRuns {
    line: &'static [u8],
    runs: usize,
    at: usize,
    lines_read: Rc<Cell<usize>>,
}

impl Read for ManyRuns {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ManyRuns {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(if self.lines_read.get() == self.runs {
            &[]
        } else {
            &self.line[self.at..]
        })
    }

    fn consume(&mut self, amount: usize) {
        self.at += amount;
        if self.at == self.line.len() {
            self.at = 0;
            self.lines_read.set(self.lines_read.get() + 1);
        }
    }
}

const RUNS: usize = 100_000;

#[test]
fn many_runs_stream_one_at_a_time() {
    // Runs are handed over in parts of at most `PART_RUNS`, as soon as a part is full: when
    // run `n` arrives the reader has given out at least `n` lines and fewer than
    // `n + PART_RUNS`, so the reader holds one part at a time, never the file, however many
    // lines follow. (A million runs take ten
    // seconds in a debug build; `docs/robustness.md` has the measurement of a million
    // through the release binary.)
    let lines_read = Rc::new(Cell::new(0));
    let reader = ManyRuns {
        line: b"{\"tool_calls\":[{\"name\":\"a\"}]}\n",
        runs: RUNS,
        at: 0,
        lines_read: Rc::clone(&lines_read),
    };
    let mut seen = 0_usize;
    let mut calls = 0_usize;
    read_trace("many.jsonl", reader, true, &ReadOptions::default(), |run| {
        seen += 1;
        calls += run.calls.len();
        assert_eq!(run.line, Some(seen));
        assert!((seen..seen + PART_RUNS).contains(&lines_read.get()));
    })
    .unwrap();
    assert_eq!((seen, calls), (RUNS, RUNS));
}

#[test]
fn the_first_line_that_is_not_utf8_is_the_error_whatever_follows_it() {
    // Lines are checked to be UTF-8 a part at a time: the bad line may be anywhere in a
    // part, and a line too long after it, in the same part, must not hide it.
    let good = "{\"tool_calls\": [{\"name\": \"a\"}]}\n";
    for before in [1, PART_RUNS - 1, PART_RUNS, 2 * PART_RUNS + 3] {
        let mut prefix = good.repeat(before).into_bytes();
        prefix.extend_from_slice(b"  {\"tool_calls\": [{\"name\": \"\xc3(\"}]}\n");
        prefix.extend_from_slice(good.repeat(3).as_bytes());
        let len = (prefix.len() + MAX_LINE_BYTES + 10) as u64;
        let mut reader = Generated::new("", b' ', len);
        reader.prefix = prefix;
        let mut runs = Vec::new();
        let error = read_trace(
            "bad.jsonl",
            &mut reader,
            true,
            &ReadOptions::default(),
            |run| {
                runs.push(run);
            },
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "cannot read trace `bad.jsonl`: line {}, byte 29: the text is not valid UTF-8 \
                 (a trace is JSON, which is UTF-8)",
                before + 1
            ),
            "{before} lines before"
        );
        assert_eq!(runs.len(), before, "the runs before the bad line are read");
    }
}

#[test]
fn lines_of_white_space_are_skipped_as_str_trim_sees_it() {
    let good = "{\"tool_calls\": [{\"name\": \"a\"}]}";
    // An ideographic space, a vertical tab (white space to `str::trim`, not to
    // `u8::is_ascii_whitespace`), a carriage return alone.
    let text = format!("{good}\n\u{3000}\n \u{b} \n\r\n{good}\n\t\u{a0}\n{good}");
    let runs = read_all("blank.jsonl", text.as_bytes(), true).unwrap();
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[2].line, Some(7));
}
