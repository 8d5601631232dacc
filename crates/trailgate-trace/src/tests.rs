//! Unit tests of the trace shapes, one `check` per shape and a row per case.

use rstest::rstest;
use serde_json::json;

use crate::{
    Naming, PART_RUNS, PartReader, ReadOptions, Run, Status, TraceError, args_equal,
    parse_accuracy_input, parse_run, read_text_limited, read_trace,
};

fn run(text: &str) -> Run {
    parse_run("t.json", text, 1).unwrap()
}

/// `(server.name, step, completed, status)` of each call.
fn summary(run: &Run) -> Vec<(String, u32, bool, Status)> {
    run.calls
        .iter()
        .map(|c| {
            let id = match &c.server {
                Some(s) => format!("{s}.{}", c.name),
                None => c.name.clone(),
            };
            (id, c.step, c.completed, c.status)
        })
        .collect()
}

#[track_caller]
fn check(text: &str, expected: &[(&str, u32, bool, Status)]) {
    let got = summary(&run(text));
    let expected: Vec<_> = expected
        .iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect();
    assert_eq!(got, expected);
}

use Status::{Error as E, Ok as O, Unknown as U};

#[rstest]
#[case::seed_call_list(r#"{"tool_calls": [{"name": "web_search", "server": "brave"}, {"name": "get", "server": "http"}]}"#, &[("brave.web_search", 0, true, U), ("http.get", 0, true, U)])]
#[case::call_list_fields(r#"{"tool_calls": [{"name": "x", "step": 2, "status": "error", "arguments": {"a": 1}}]}"#, &[("x", 2, true, E)])]
#[case::call_list_ignores_unknown_fields(r#"{"agent": "r", "tool_calls": [{"name": "x", "id": 7}]}"#, &[("x", 0, true, U)])]
#[case::events_pair_by_id(r#"{"events": [{"type": "tool_call", "toolName": "a", "toolCallId": "1"}, {"type": "tool_call", "toolName": "a", "toolCallId": "2"}, {"type": "tool_result", "toolName": "a", "toolCallId": "2", "success": false}]}"#, &[("a", 0, false, U), ("a", 0, true, E)])]
#[case::events_fields_under_data(r#"{"events": [{"type": "tool_call", "data": {"toolName": "b", "toolCallId": "1", "server": "s"}}, {"type": "tool_result", "data": {"toolCallId": "1", "success": true}}]}"#, &[("s.b", 0, true, O)])]
#[case::result_without_id_completes_earliest_open(r#"{"events": [{"type": "tool_call", "toolName": "a", "toolCallId": "1"}, {"type": "tool_call", "toolName": "a"}, {"type": "tool_result", "toolName": "a", "toolCallId": "1"}, {"type": "tool_result", "toolName": "a"}]}"#, &[("a", 0, true, U), ("a", 0, true, U)])]
#[case::result_completing_nothing_is_ignored(r#"{"events": [{"type": "tool_result", "toolName": "a", "toolCallId": "9"}, {"type": "tool_call", "toolName": "a", "toolCallId": "1"}, {"type": "tool_result", "toolCallId": "2"}]}"#, &[("a", 0, false, U)])]
#[case::steps_from_turn_start(r#"{"events": [{"type": "tool_call", "toolName": "pre"}, {"type": "turn_start"}, {"type": "tool_call", "toolName": "t0"}, {"type": "turn_end"}, {"type": "turn_start"}, {"type": "assistant_message", "text": "hi"}, {"type": "tool_call", "toolName": "t1"}]}"#, &[("pre", 0, false, U), ("t0", 0, false, U), ("t1", 1, false, U)])]
fn shapes(#[case] text: &str, #[case] expected: &[(&str, u32, bool, Status)]) {
    check(text, expected);
}

#[test]
fn args_default_to_an_empty_object_and_keep_results() {
    let run = run(
        r#"{"events": [{"type": "tool_call", "toolName": "a", "toolCallId": 3, "arguments": {"q": "x"}}, {"type": "tool_result", "toolCallId": 3, "result": "done"}, {"type": "tool_call", "toolName": "b"}]}"#,
    );
    assert_eq!(run.calls[0].args, json!({"q": "x"}));
    assert_eq!(run.calls[0].result().cloned(), Some(json!("done")));
    assert_eq!(run.calls[1].args, json!({}));
}

#[rstest]
#[case::syntax(r#"{"tool_calls": [}"#, "syntax")]
#[case::neither_shape(r#"{"calls": []}"#, "shape")]
#[case::both_shapes(r#"{"calls": [], "tool_calls": [], "events": []}"#, "shape")]
#[case::wrong_type(r#"{"tool_calls": [{"name": 5}]}"#, "shape")]
#[case::missing_name(r#"{"tool_calls": [{"server": "a"}]}"#, "shape")]
#[case::event_without_type(r#"{"events": [{"toolName": "a"}]}"#, "shape")]
#[case::tool_call_without_name(r#"{"events": [{"type": "tool_call"}]}"#, "shape")]
#[case::top_level_array("[]", "shape")]
#[case::empty("", "syntax")]
fn bad_traces_are_errors(#[case] text: &str, #[case] kind: &str) {
    let error = parse_run("t.json", text, 1).unwrap_err();
    let got = match error {
        TraceError::Syntax { .. } => "syntax",
        TraceError::Shape { .. } => "shape",
        _ => "other",
    };
    assert_eq!(got, kind, "{error:?}");
}

/// Reads `text` as a trace file with the default options.
fn read(text: &str, lines: bool) -> Result<(&'static str, Vec<Run>), TraceError> {
    let mut runs = Vec::new();
    let format = read_trace(
        "t",
        text.as_bytes(),
        lines,
        &ReadOptions::default(),
        |run| runs.push(run),
    )?
    .format;
    Ok((format, runs))
}

#[test]
fn jsonl_skips_blank_lines_and_numbers_runs_by_line() {
    let text = "{\"tool_calls\": [{\"name\": \"a\"}]}\n\n  \n{\"tool_calls\": []}\n";
    let (format, runs) = read(text, true).unwrap();
    assert_eq!(format, "trailgate");
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0].line, runs[1].line), (Some(1), Some(4)));
    assert_eq!(runs[1].calls.len(), 0);
}

/// Parts asked for one at a time: the runs of each part in file order, the end, then what
/// the reading found; a line that is not UTF-8 ends the parts after the runs of the lines
/// before it, and nothing is read after the error.
#[rstest]
#[case::whole_file(None)]
#[case::a_line_not_utf8(Some(PART_RUNS + 3))]
fn parts_are_read_as_they_are_asked_for(#[case] bad: Option<usize>) {
    let runs = 2 * PART_RUNS + 5;
    let mut text = Vec::new();
    for line in 1..=runs {
        if Some(line) == bad {
            text.extend_from_slice(b"{\"tool_calls\": []} \xff\n");
        } else {
            text.extend_from_slice(
                format!("{{\"tool_calls\": [{{\"name\": \"t{line}\"}}]}}\n").as_bytes(),
            );
        }
    }
    let options = ReadOptions::default();
    let mut parts = PartReader::new("t", text.as_slice(), true, &options).unwrap();
    let mut names = Vec::new();
    let error = loop {
        match parts.next_part() {
            Ok(Some(part)) => {
                assert!(!part.is_empty() && part.len() <= PART_RUNS);
                names.extend(
                    part.into_runs()
                        .map(|run| run.unwrap().calls[0].name.clone()),
                );
            }
            Ok(None) => break None,
            Err(error) => break Some(error),
        }
    };
    let read_to = bad.map_or(runs, |bad| bad - 1);
    let expected: Vec<String> = (1..=read_to).map(|line| format!("t{line}")).collect();
    assert_eq!(names, expected);
    assert!(
        matches!(parts.next_part(), Ok(None)),
        "the parts stay ended"
    );
    if let Some(bad) = bad {
        let message = error.map(|error| error.to_string()).unwrap_or_default();
        assert!(
            message.contains(&format!("line {bad}, byte 20")),
            "{message}"
        );
        assert!(parts.finish().is_err());
    } else {
        assert!(error.is_none(), "{error:?}");
        assert_eq!(parts.finish().unwrap().format, "trailgate");
    }
}

#[test]
fn jsonl_error_reports_the_file_line() {
    let text = "{\"tool_calls\": []}\n{\"tool_calls\": [}\n{\"tool_calls\": []}\n";
    let error = read(text, true).unwrap_err();
    let TraceError::Syntax {
        source_code, span, ..
    } = &error
    else {
        panic!("{error:?}")
    };
    let contents = miette::SourceCode::read_span(source_code.as_ref(), span, 0, 0).unwrap();
    assert_eq!(
        contents.line(),
        1,
        "0-based line 1 is the file's second line"
    );
}

#[test]
fn unknown_format_lists_what_each_format_expects() {
    let error = read(r#"{"something": "else"}"#, false).unwrap_err();
    let TraceError::UnknownFormat { tried, .. } = &error else {
        panic!("{error:?}")
    };
    assert!(tried.contains("`trailgate`"), "{tried}");
}

#[test]
fn naming_splits_names_without_a_server() {
    let (_, runs) = read(
        r#"{"tool_calls": [{"name": "mcp__github__list_issues"}, {"name": "mcp__x__y", "server": "explicit"}, {"name": "plain"}]}"#,
        false,
    )
    .unwrap();
    let ids: Vec<(Option<&str>, &str)> = runs[0]
        .calls
        .iter()
        .map(|c| (c.server.as_deref(), c.name.as_str()))
        .collect();
    assert_eq!(
        ids,
        vec![
            (Some("github"), "list_issues"),
            (Some("explicit"), "mcp__x__y"),
            (None, "plain")
        ]
    );
}

#[rstest]
#[case::double("mcp-double", &[], "mcp__context7__get-docs", Some(("context7", "get-docs")))]
#[case::double_first_separator("mcp-double", &[], "mcp__plugin_docs__doc__export", Some(("plugin_docs", "doc__export")))]
#[case::double_not_prefixed("mcp-double", &[], "Read", None)]
#[case::single_longest_server("mcp-single", &["git", "git_hub"], "mcp_git_hub_list", Some(("git_hub", "list")))]
#[case::single_unknown_server("mcp-single", &["brave"], "mcp_github_list", None)]
#[case::dash_known("dash", &["env-echo"], "env-echo-get_env", Some(("env-echo", "get_env")))]
#[case::dash_no_list("dash", &[], "meta-echo_meta", Some(("meta", "echo_meta")))]
#[case::none("none", &[], "mcp__a__b", None)]
fn naming_schemes(
    #[case] scheme: &str,
    #[case] servers: &[&str],
    #[case] name: &str,
    #[case] split: Option<(&str, &str)>,
) {
    let naming = Naming::from_parts(
        scheme,
        servers.iter().map(|s| (*s).to_owned()).collect(),
        None,
    )
    .unwrap();
    let got = naming.split(name);
    assert_eq!(got.as_ref().map(|(s, t)| (s.as_str(), t.as_str())), split);
}

#[test]
fn regex_naming_needs_server_and_tool_groups() {
    let naming = Naming::from_parts(
        "regex",
        Vec::new(),
        Some(r"^(?P<server>[a-z]+)\.(?P<tool>.+)$"),
    )
    .unwrap();
    assert_eq!(
        naming.split("gh.list"),
        Some(("gh".to_owned(), "list".to_owned()))
    );
    assert!(Naming::from_parts("regex", Vec::new(), Some("^(?P<tool>.+)$")).is_err());
    assert!(Naming::from_parts("regex", Vec::new(), None).is_err());
}

#[rstest]
#[case::key_order_ignored(json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1}), true)]
#[case::integer_equals_float(json!({"n": 1}), json!({"n": 1.0}), true)]
#[case::different_numbers(json!(1), json!(1.5), false)]
#[case::arrays_are_ordered(json!([1, 2]), json!([2, 1]), false)]
#[case::array_never_equals_object(json!([]), json!({}), false)]
#[case::extra_key(json!({"a": 1}), json!({"a": 1, "b": null}), false)]
#[case::nested(json!({"a": {"b": [1, {"c": "x"}]}}), json!({"a": {"b": [1.0, {"c": "x"}]}}), true)]
#[case::string_is_not_a_number(json!("1"), json!(1), false)]
#[case::large_integers_exact(json!(9_007_199_254_740_993_u64), json!(9_007_199_254_740_992_u64), false)]
#[case::integer_against_float_exact(json!(9_007_199_254_740_993_u64), json!(9_007_199_254_740_992.0), false)]
#[case::integer_equals_its_float(json!(9_007_199_254_740_992_u64), json!(9_007_199_254_740_992.0), true)]
#[case::negative_against_unsigned(json!(-1), json!(u64::MAX), false)]
#[case::exponent_spelling(json!(100), json!(1e2), true)]
#[case::fractions_exact(json!(0.1), json!(0.100_000_000_000_000_02), false)]
fn argument_equality(
    #[case] a: serde_json::Value,
    #[case] b: serde_json::Value,
    #[case] equal: bool,
) {
    assert_eq!(args_equal(&a, &b), equal);
    assert_eq!(args_equal(&b, &a), equal, "symmetric");
}

#[test]
fn accuracy_input_reads_the_seed_shape() {
    let input = parse_accuracy_input(
        "in.json",
        r#"{"expected": [{"tool": "searchWeb", "args": {"query": "AI news"}}], "actual": [{"tool": "x"}]}"#,
    )
    .unwrap();
    assert_eq!(input.expected[0].tool, "searchWeb");
    assert_eq!(input.actual[0].args, json!({}));
    assert!(
        parse_accuracy_input("in.json", r#"{"expected": [{"args": {}}], "actual": []}"#).is_err()
    );
}

/// Every real sample of every format, cut short at many points and with single characters
/// removed, is read without a panic: the reader either returns runs or an error.
#[test]
fn damaged_samples_never_panic() {
    let fixtures = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"));
    let mut files = Vec::new();
    for entry in std::fs::read_dir(fixtures).unwrap() {
        let dir = entry.unwrap().path();
        let is_format = dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("format-"));
        if !is_format {
            continue;
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("json" | "jsonl")
            ) {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 15, "the format samples are found: {files:?}");
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let lines = path.extension().is_some_and(|e| e == "jsonl");
        let boundaries: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let step = (boundaries.len() / 60).max(1);
        for &cut in boundaries.iter().step_by(step) {
            let damaged = [
                text[..cut].to_owned(),
                format!(
                    "{}{}",
                    &text[..cut],
                    text[cut..].chars().skip(1).collect::<String>()
                ),
            ];
            for candidate in damaged {
                let outcome = std::panic::catch_unwind(|| {
                    let mut calls = 0;
                    let _ = read_trace(
                        "t",
                        candidate.as_bytes(),
                        lines,
                        &ReadOptions::default(),
                        |run| {
                            calls += run.calls.len();
                        },
                    );
                });
                assert!(
                    outcome.is_ok(),
                    "{} panicked when cut at byte {cut}",
                    path.display()
                );
            }
        }
    }
}

/// Lines as `read_line_limited` returns them with a limit of 4 bytes, through a reader
/// that hands out `chunk` bytes at a time.
fn limited_lines(text: &str, chunk: usize) -> Vec<Result<String, &'static str>> {
    use crate::limited::{Limited, read_line_limited};
    let mut reader = std::io::BufReader::with_capacity(chunk, text.as_bytes());
    let mut lines = Vec::new();
    loop {
        let mut buffer = Vec::new();
        match read_line_limited(&mut reader, &mut buffer, 4).unwrap() {
            Limited::End => return lines,
            Limited::TooLong => {
                assert!(buffer.len() <= 4, "held {} bytes", buffer.len());
                lines.push(Err("too long"));
                return lines;
            }
            Limited::Read => lines.push(Ok(String::from_utf8(buffer).unwrap())),
        }
    }
}

#[rstest]
#[case::at_the_limit("abcd\nef", &[Ok("abcd\n"), Ok("ef")])]
#[case::line_break_not_counted("abcd\n\nabcd", &[Ok("abcd\n"), Ok("\n"), Ok("abcd")])]
#[case::one_past_the_limit("ab\nabcde\nab\n", &[Ok("ab\n"), Err("too long")])]
#[case::last_line_without_break_past_the_limit("abcde", &[Err("too long")])]
#[case::carriage_return_counts("abcd\r\n", &[Err("too long")])]
#[case::empty("", &[])]
fn lines_are_limited_at_any_chunk_size(
    #[case] text: &str,
    #[case] expected: &[Result<&str, &str>],
    #[values(1, 2, 3, 5, 64)] chunk: usize,
) {
    let expected: Vec<Result<String, &str>> = expected
        .iter()
        .map(|line| line.map(str::to_owned))
        .collect();
    assert_eq!(limited_lines(text, chunk), expected);
}

#[rstest]
#[case::under("abc", Some("abc"))]
#[case::at("abcd", Some("abcd"))]
#[case::past("abcde", None)]
fn documents_are_limited(#[case] text: &str, #[case] expected: Option<&str>) {
    use crate::limited::{Limited, read_document_limited};
    let mut buffer = Vec::new();
    let read = read_document_limited(&mut text.as_bytes(), &mut buffer, 4).unwrap();
    match expected {
        Some(expected) => assert_eq!(
            (read, buffer.as_slice()),
            (Limited::Read, expected.as_bytes())
        ),
        None => assert_eq!((read, buffer.len()), (Limited::TooLong, 5)),
    }
}

/// A refused line or document never makes its buffer larger than the limit and one byte,
/// whatever the input's size (a `Vec` doubling its way past the limit held twice as much,
/// and three times while copying): limits of 1 MiB and 1 MiB + 3, inputs of 3 MiB.
#[rstest]
fn a_refused_input_grows_no_buffer_past_the_limit(
    #[values(1 << 20, (1 << 20) + 3)] limit: usize,
    #[values(1, 1000, 1 << 16)] chunk: usize,
) {
    use crate::limited::{Limited, read_document_limited, read_line_limited};
    let text = vec![b'x'; 3 << 20];
    let mut reader = std::io::BufReader::with_capacity(chunk, text.as_slice());
    let mut buffer = Vec::new();
    let read = read_line_limited(&mut reader, &mut buffer, limit).unwrap();
    assert_eq!(read, Limited::TooLong);
    assert!(
        buffer.capacity() <= limit + 1,
        "line: {}",
        buffer.capacity()
    );
    let mut reader = std::io::BufReader::with_capacity(chunk, text.as_slice());
    let mut buffer = Vec::new();
    let read = read_document_limited(&mut reader, &mut buffer, limit).unwrap();
    assert_eq!(read, Limited::TooLong);
    assert!(
        buffer.capacity() <= limit + 1,
        "document: {}",
        buffer.capacity()
    );
}

/// An endless input (a suite path pointing at `/dev/zero`) is refused one byte past the
/// limit, with no buffer larger than that, whatever the limit.
#[rstest]
fn a_refused_input_holds_no_more_than_the_limit(#[values(1, 1000, (1 << 20) + 7)] limit: usize) {
    use crate::limited::{Limited, read_document_limited};
    let mut buffer = Vec::new();
    let read = read_document_limited(&mut std::io::repeat(b'x'), &mut buffer, limit).unwrap();
    assert_eq!((read, buffer.len()), (Limited::TooLong, limit + 1));
    assert!(
        buffer.capacity() <= limit + 1,
        "{} for {limit}",
        buffer.capacity()
    );
    assert_eq!(
        read_text_limited(std::io::repeat(b'x'), limit).unwrap(),
        None
    );
}

/// `head`, then `length` bytes of `x` with no line break, served 64 KiB at a time as the
/// command line's reader does, without holding them.
struct LongLine {
    head: Vec<u8>,
    chunk: Vec<u8>,
    left: usize,
}

impl LongLine {
    fn new(head: &str, length: usize) -> Self {
        Self {
            head: head.as_bytes().to_vec(),
            chunk: vec![b'x'; 1 << 16],
            left: length,
        }
    }
}

impl std::io::Read for LongLine {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        use std::io::BufRead;
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl std::io::BufRead for LongLine {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if !self.head.is_empty() {
            return Ok(&self.head);
        }
        Ok(&self.chunk[..self.left.min(self.chunk.len())])
    }

    fn consume(&mut self, amount: usize) {
        if self.head.is_empty() {
            self.left -= amount;
        } else {
            self.head.drain(..amount);
        }
    }
}

/// Every reader of JSON Lines refuses a line past `MAX_LINE_BYTES` holding little more than
/// the limit: the first line (read to detect the format), a later line of trailgate's own
/// lines, detected or named (appended to the part of the lines before it), and a later
/// line of a format read a record at a time (Claude Code). What is measured is the most the
/// line's buffer held at once while it grew (its old room and its new, which coexist while
/// the bytes are copied), not the room it ends with, which
/// `a_refused_input_grows_no_buffer_past_the_limit` checks: that room stayed within the
/// limit and one byte, while the growth to it, from exactly the limit to the limit and one
/// byte, held both buffers, twice the limit (128 MiB; refusing a 150 MB line held 157 MB).
#[rstest]
#[case::the_first_line("", None, 1)]
#[case::own_lines("{\"tool_calls\": [{\"name\": \"x\"}]}\n", None, 2)]
#[case::own_lines_named("{\"tool_calls\": [{\"name\": \"x\"}]}\n", Some("trailgate"), 2)]
#[case::claude_code(
    "{\"type\": \"assistant\", \"message\": {\"id\": \"m1\", \"content\": []}}\n",
    None,
    2
)]
fn every_line_reader_refuses_a_long_line_within_its_limit(
    #[case] head: &str,
    #[case] format: Option<&str>,
    #[case] line: usize,
) {
    let options = ReadOptions {
        format: format.map(str::to_owned),
        naming: Naming::Default,
    };
    let reader = LongLine::new(head, crate::MAX_LINE_BYTES + (8 << 20));
    let (read, held) =
        crate::limited::most_held(|| crate::read_trace("t.jsonl", reader, true, &options, |_| {}));
    assert!(
        matches!(read, Err(TraceError::LineTooLong { line: at, .. }) if at == line),
        "{read:?}"
    );
    assert!(
        held <= crate::MAX_LINE_BYTES + crate::MAX_LINE_BYTES / 16,
        "{held} bytes held at once"
    );
}

#[rstest]
#[case::empty("", Some(""))]
#[case::under("abc", Some("abc"))]
#[case::at_the_limit("abcd", Some("abcd"))]
#[case::one_byte_past("abcde", None)]
#[case::non_ascii_at_the_limit("é…", None)]
#[case::non_ascii_under("éé", Some("éé"))]
fn text_is_read_whole_within_the_limit(#[case] text: &str, #[case] expected: Option<&str>) {
    let read = read_text_limited(text.as_bytes(), 4).unwrap();
    assert_eq!(read.as_deref(), expected);
}

#[test]
fn bytes_that_are_not_utf8_are_an_error() {
    let error = read_text_limited(&b"ok \xff"[..], 10).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
    assert_eq!(
        error.to_string(),
        "not UTF-8 text (invalid utf-8 sequence of 1 bytes from index 3)"
    );
}

#[rstest]
#[case::huge(r"^(?P<server>\w{1000})_(?P<tool>.+)$", Some(crate::NamingError::TooBig { limit: crate::MAX_REGEX_BYTES }))]
#[case::fits(r"^(?P<server>\w{1,64})_(?P<tool>.+)$", None)]
fn naming_patterns_compile_within_the_limit(
    #[case] pattern: &str,
    #[case] expected: Option<crate::NamingError>,
) {
    let got = Naming::from_parts("regex", Vec::new(), Some(pattern)).err();
    assert_eq!(got, expected);
}

/// docs/formats.md#a-file-that-says-nothing: a file that gives no call is flagged, unless it is
/// in trailgate's own shapes,
/// which state their calls (an empty list is what they mean).
#[rstest::rstest]
#[case::own_call_list("{\"tool_calls\": []}", false, None, false)]
#[case::own_lines("{\"tool_calls\": []}\n{\"tool_calls\": []}\n", true, None, false)]
#[case::own_lines_forced("{\"tool_calls\": []}\n", true, Some("trailgate"), false)]
#[case::chat_without_calls("[{\"role\": \"user\", \"content\": \"hi\"}]", false, None, true)]
#[case::claude_code_text_only(
    "{\"type\": \"user\", \"message\": {\"role\": \"user\", \"content\": \"hi\"}}\n",
    true,
    None,
    true
)]
#[case::forced_with_its_records_but_no_call(
    "[{\"role\": \"user\", \"content\": \"hi\"}]",
    false,
    Some("openai-chat"),
    true
)]
#[case::chat_with_a_call(
    "{\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"1\", \"type\": \"function\", \"function\": {\"name\": \"x\", \"arguments\": \"{}\"}}]}",
    false,
    None,
    false
)]
fn a_file_without_calls_is_flagged(
    #[case] text: &str,
    #[case] lines: bool,
    #[case] format: Option<&str>,
    #[case] flagged: bool,
) {
    let options = ReadOptions {
        format: format.map(str::to_owned),
        naming: crate::Naming::Default,
    };
    let read = read_trace("t.json", text.as_bytes(), lines, &options, |_| {}).unwrap();
    assert_eq!(read.no_calls, flagged);
    assert_eq!(read.warning("t.json").is_some(), flagged);
}

/// docs/formats.md#a-file-that-says-nothing: a format named by hand that finds none of its
/// records is an error naming it
/// and what it looks for, whatever the file's own format.
#[rstest::rstest]
#[case::claude_code_on_chat("[{\"role\": \"user\", \"content\": \"hi\"}]", false, "claude-code")]
#[case::atif_lines_on_claude_code(
    "{\"type\": \"user\", \"message\": {\"role\": \"user\", \"content\": \"hi\"}}\n",
    true,
    "atif"
)]
#[case::chat_on_an_unrelated_object("{\"note\": 1}", false, "openai-chat")]
fn a_forced_format_without_its_records_is_an_error(
    #[case] text: &str,
    #[case] lines: bool,
    #[case] format: &str,
) {
    let options = ReadOptions {
        format: Some(format.to_owned()),
        naming: crate::Naming::Default,
    };
    let error = read_trace("t", text.as_bytes(), lines, &options, |_| {}).unwrap_err();
    let TraceError::NoRecords {
        format: named,
        expects,
        ..
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(*named, format);
    assert!(
        error.to_string().contains(&format!("`{format}`")),
        "{error}"
    );
    assert!(!expects.is_empty());
}

#[rstest::rstest]
#[case::yaml("models:\n  - claude\n", true)]
#[case::markdown("# A transcript\n", true)]
#[case::broken_json("{\"tool_calls\": [}", false)]
fn text_that_is_not_json_names_the_formats(#[case] text: &str, #[case] helped: bool) {
    let error = read(text, false).unwrap_err();
    let TraceError::Syntax { help, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(help.is_some(), helped, "{error:?}");
    if let Some(help) = help {
        assert!(
            help.contains("openai-chat") && help.contains("claude-code"),
            "{help}"
        );
    }
}

#[test]
fn the_not_json_help_lists_every_format_in_detection_order() {
    assert_eq!(
        crate::error::FORMAT_NAMES.to_vec(),
        crate::formats::format_names()
    );
}
