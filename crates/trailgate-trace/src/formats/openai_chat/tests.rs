//! Unit tests of the `openai-chat` adapter, through the public reader.

use crate::formats::testing::{read, summary};
use rstest::rstest;
use serde_json::{Value, json};

use crate::{ReadOptions, Run, Status, TraceError, read_trace};

use Status::Unknown as U;

/// The sample in `samples/openai/`: a recorded `chat.completion` with two parallel calls.
const COMPLETION: &str = r#"{"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": null,
    "tool_calls": [
      {"id": "call_a", "type": "function", "function": {"name": "GetWeatherArgs", "arguments": "{\"city\": \"Edinburgh\"}"}},
      {"id": "call_b", "type": "function", "function": {"name": "get_stock_price", "arguments": "{\"ticker\": \"AAPL\"}"}}]},
    "finish_reason": "tool_calls"}]}"#;

/// A conversation: two assistant messages with calls, a text-only one, and results.
const CONVERSATION: &str = r#"[
  {"role": "system", "content": "be brief"},
  {"role": "user", "content": "weather and files"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "mcp__weather__forecast", "arguments": "{\"city\": \"Oslo\"}"}},
    {"id": "c2", "type": "function", "function": {"name": "list_files", "arguments": "{}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "rain"},
  {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "a.txt"}, {"type": "text", "text": "b.txt"}]},
  {"role": "assistant", "content": "Rain; two files."},
  {"role": "user", "content": "read a"},
  {"role": "assistant", "tool_calls": [{"id": "c3", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a.txt\"}"}}]}
]"#;

/// The one run of `text`, read as the chat format.
#[track_caller]
fn one_run(text: &str, lines: bool) -> Run {
    let (format, mut runs) = read(text, lines).unwrap();
    assert_eq!(format, "openai-chat");
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs.remove(0)
}

#[track_caller]
fn check(text: &str, lines: bool, expected: &[(&str, u32, bool, Status)]) {
    let got = summary(&one_run(text, lines));
    let expected: Vec<_> = expected
        .iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect();
    assert_eq!(got, expected);
}

#[rstest]
#[case::completion(COMPLETION, true)]
#[case::completion_without_object(
    r#"{"choices": [{"message": {"role": "assistant", "content": "hi"}}]}"#,
    true
)]
#[case::message_list(CONVERSATION, true)]
#[case::request_body(r#"{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", "function": {"name": "f"}}]}"#, true)]
#[case::one_message_per_line(r#"{"role": "user", "content": "hi"}"#, true)]
#[case::tool_message_line(r#"{"role": "tool", "tool_call_id": "1", "content": "x"}"#, true)]
#[case::stream_chunk(
    r#"{"object": "chat.completion.chunk", "choices": [{"delta": {"role": "assistant"}}]}"#,
    false
)]
#[case::responses_object(r#"{"object": "response", "output": []}"#, false)]
#[case::anthropic_blocks(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}]"#, false)]
#[case::anthropic_request(
    r#"{"system": "s", "max_tokens": 9, "messages": [{"role": "user", "content": "hi"}]}"#,
    false
)]
#[case::gemini_parts(r#"[{"role": "user", "parts": [{"text": "hi"}]}]"#, false)]
#[case::otel_parts(
    r#"[{"role": "assistant", "parts": [{"type": "tool_call", "id": "1", "name": "f"}]}]"#,
    false
)]
#[case::langchain(
    r#"[{"type": "ai", "data": {"content": "", "tool_calls": []}}]"#,
    false
)]
#[case::unknown_role(r#"{"role": "narrator", "content": "once"}"#, false)]
#[case::empty_list("[]", false)]
#[case::mixed_list(r#"[{"role": "user", "content": "hi"}, {"note": 1}]"#, false)]
#[case::native_call_list(r#"{"tool_calls": [{"name": "x"}]}"#, false)]
fn detection(#[case] text: &str, #[case] chat: bool) {
    let value: Value = serde_json::from_str(text).unwrap();
    let detected = crate::formats::ADAPTERS
        .iter()
        .find(|adapter| adapter.name() == "openai-chat")
        .is_some_and(|adapter| adapter.detect(&value));
    assert_eq!(detected, chat);
}

#[rstest]
#[case::completion_calls_share_step_zero(COMPLETION, false, &[("GetWeatherArgs", 0, false, U), ("get_stock_price", 0, false, U)])]
#[case::conversation_steps_and_pairing(CONVERSATION, false, &[("weather.forecast", 0, true, U), ("list_files", 0, true, U), ("read_file", 2, false, U)])]
#[case::request_body(r#"{"messages": [{"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "a", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "1", "content": "ok"}]}"#, false, &[("a", 0, true, U)])]
#[case::jsonl_messages_make_one_conversation("{\"role\": \"user\", \"content\": \"go\"}\n{\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"1\", \"type\": \"function\", \"function\": {\"name\": \"a\", \"arguments\": \"{}\"}}]}\n\n{\"role\": \"tool\", \"tool_call_id\": \"1\", \"content\": \"ok\"}\n{\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"2\", \"type\": \"function\", \"function\": {\"name\": \"b\", \"arguments\": \"{}\"}}]}\n", true, &[("a", 0, true, U), ("b", 1, false, U)])]
#[case::legacy_function_call_pairs_by_name(r#"[{"role": "assistant", "content": null, "function_call": {"name": "get_time", "arguments": "{\"tz\": \"UTC\"}"}}, {"role": "function", "name": "other", "content": "no"}, {"role": "function", "name": "get_time", "content": "noon"}]"#, false, &[("get_time", 0, true, U)])]
#[case::custom_tool_call(r#"[{"role": "assistant", "tool_calls": [{"id": "1", "type": "custom", "custom": {"name": "apply_patch", "input": "*** Begin Patch"}}]}, {"role": "tool", "tool_call_id": "1", "content": "done"}]"#, false, &[("apply_patch", 0, true, U)])]
#[case::ids_as_numbers(r#"[{"role": "assistant", "tool_calls": [{"id": 7, "type": "function", "function": {"name": "a", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": 7, "content": "ok"}]"#, false, &[("a", 0, true, U)])]
#[case::result_before_call_is_ignored(r#"[{"role": "tool", "tool_call_id": "1", "content": "early"}, {"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "a", "arguments": "{}"}}]}]"#, false, &[("a", 0, false, U)])]
#[case::unpaired_result_is_ignored(r#"[{"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "a", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "9", "content": "x"}]"#, false, &[("a", 0, false, U)])]
#[case::duplicate_ids_answer_in_order(r#"[{"role": "assistant", "tool_calls": [{"id": "d", "type": "function", "function": {"name": "a", "arguments": "{}"}}, {"id": "d", "type": "function", "function": {"name": "b", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "d", "content": "first"}]"#, false, &[("a", 0, true, U), ("b", 0, false, U)])]
#[case::missing_type_and_unknown_fields(r#"[{"role": "assistant", "audio": null, "tool_calls": [{"id": "1", "index": 0, "function": {"name": "a", "arguments": "{}", "extra": 1}}]}, {"role": "tool", "tool_call_id": "1", "content": null, "x": 2}]"#, false, &[("a", 0, true, U)])]
#[case::null_tool_calls_is_no_call(r#"[{"role": "assistant", "content": "hi", "tool_calls": null}, {"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "a"}}]}]"#, false, &[("a", 1, false, U)])]
#[case::unknown_call_type_is_skipped(r#"[{"role": "assistant", "tool_calls": [{"id": "1", "type": "future", "future": {}}, {"id": "2", "type": "function", "function": {"name": "a"}}]}]"#, false, &[("a", 0, false, U)])]
#[case::message_without_role_with_calls(r#"{"choices": [{"message": {"tool_calls": [{"id": "1", "type": "function", "function": {"name": "a"}}]}}]}"#, false, &[("a", 0, false, U)])]
fn calls(#[case] text: &str, #[case] lines: bool, #[case] expected: &[(&str, u32, bool, Status)]) {
    check(text, lines, expected);
}

#[test]
fn arguments_results_and_raw_input() {
    let run = one_run(CONVERSATION, false);
    assert_eq!(run.calls[0].args, json!({"city": "Oslo"}));
    assert_eq!(run.calls[0].result().cloned(), Some(json!("rain")));
    // Text parts are joined into one string.
    assert_eq!(run.calls[1].result().cloned(), Some(json!("a.txt\nb.txt")));
    assert_eq!(run.calls[2].result().cloned(), None);
    assert_eq!(run.line, None);

    let run = one_run(
        r#"[{"role": "assistant", "tool_calls": [
          {"id": "1", "type": "function", "function": {"name": "bad", "arguments": "{\"a\": "}},
          {"id": "2", "type": "function", "function": {"name": "obj", "arguments": {"a": 1}}},
          {"id": "3", "type": "function", "function": {"name": "none"}},
          {"id": "4", "type": "custom", "custom": {"name": "patch", "input": "{\"looks\": \"like json\"}"}}]},
          {"role": "tool", "tool_call_id": "3", "content": {"structured": true}}]"#,
        false,
    );
    let args: Vec<_> = run.calls.iter().map(|call| &call.args).collect();
    // Arguments that are not JSON are kept as text, never as `{}`; a custom tool's free-form
    // input is its `args_raw`, beside empty arguments.
    assert_eq!(
        args,
        [&json!("{\"a\": "), &json!({"a": 1}), &json!({}), &json!({})]
    );
    let raw: Vec<_> = run
        .calls
        .iter()
        .map(|call| call.args_raw.as_deref())
        .collect();
    assert_eq!(
        raw,
        [
            Some("{\"a\": "),
            None,
            None,
            Some("{\"looks\": \"like json\"}")
        ]
    );
    assert_eq!(
        run.calls[2].result().cloned(),
        Some(json!({"structured": true}))
    );
}

#[test]
fn choices_are_runs_and_jsonl_documents_are_runs_per_line() {
    let two = r#"{"object": "chat.completion", "choices": [
      {"index": 0, "message": {"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "a"}}]}},
      {"index": 1, "message": {"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "b"}}]}}]}"#;
    let (_, runs) = read(two, false).unwrap();
    let names: Vec<Vec<_>> = runs
        .iter()
        .map(|run| summary(run).into_iter().map(|c| c.0).collect())
        .collect();
    assert_eq!(names, [["a"], ["b"]]);

    // Fine-tuning and eval files: one conversation per line.
    let text = "{\"messages\": [{\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"1\", \"type\": \"function\", \"function\": {\"name\": \"a\"}}]}]}\n\n{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n";
    let (format, runs) = read(text, true).unwrap();
    assert_eq!(format, "openai-chat");
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0].line, runs[1].line), (Some(1), Some(3)));
    assert_eq!((runs[0].calls.len(), runs[1].calls.len()), (1, 0));

    let (_, runs) = read(r#"{"object": "chat.completion", "choices": []}"#, false).unwrap();
    assert_eq!(runs.len(), 1);
    assert!(runs[0].calls.is_empty());
}

#[rstest]
#[case::default_splits_mcp_double("mcp__github__list_issues", None, "github", "list_issues")]
#[case::none_keeps_the_name(
    "mcp__github__list_issues",
    Some("none"),
    "",
    "mcp__github__list_issues"
)]
#[case::plain_name_has_no_server("get_weather", None, "", "get_weather")]
fn naming(
    #[case] name: &str,
    #[case] scheme: Option<&str>,
    #[case] server: &str,
    #[case] tool: &str,
) {
    let text = format!(
        r#"[{{"role": "assistant", "tool_calls": [{{"id": "1", "type": "function", "function": {{"name": "{name}"}}}}]}}]"#
    );
    let options = ReadOptions {
        format: None,
        naming: match scheme {
            Some(scheme) => crate::Naming::from_parts(scheme, Vec::new(), None).unwrap(),
            None => crate::Naming::Default,
        },
    };
    let mut runs = Vec::new();
    read_trace("t", text.as_bytes(), false, &options, |run| runs.push(run)).unwrap();
    let call = &runs[0].calls[0];
    assert_eq!(call.server.as_deref().unwrap_or(""), server);
    assert_eq!(call.name, tool);
}

#[rstest]
#[case::call_without_function(
    r#"[{"role": "assistant", "tool_calls": [{"id": "1", "type": "function"}]}]"#,
    "`[0].tool_calls[0]`"
)]
#[case::call_without_name(r#"{"messages": [{"role": "assistant", "tool_calls": [{"id": "1", "function": {"arguments": "{}"}}]}]}"#, "`messages[0].tool_calls[0]`")]
#[case::custom_without_name(
    r#"[{"role": "assistant", "tool_calls": [{"type": "custom", "custom": {"input": "x"}}]}]"#,
    "`[0].tool_calls[0]`"
)]
#[case::tool_calls_not_a_list(r#"[{"role": "assistant", "tool_calls": {"id": "1"}}]"#, "`[0]`")]
#[case::legacy_call_without_name(
    r#"[{"role": "assistant", "function_call": {"arguments": "{}"}}]"#,
    "`[0].function_call`"
)]
#[case::message_not_an_object(
    r#"{"messages": [{"role": "user", "content": "hi"}, 3]}"#,
    "`messages[1]`"
)]
#[case::choice_message_not_an_object(
    r#"{"object": "chat.completion", "choices": [{"message": "hi"}]}"#,
    "`choices[0].message`"
)]
fn malformed_records_are_shape_errors(#[case] text: &str, #[case] at: &str) {
    // Forced, since detection already refuses some of these shapes.
    let options = ReadOptions {
        format: Some("openai-chat".to_owned()),
        naming: crate::Naming::Default,
    };
    let error = read_trace("t", text.as_bytes(), false, &options, |_| {}).unwrap_err();
    let TraceError::Shape { message, .. } = error else {
        panic!("not a shape error: {error:?}");
    };
    assert!(message.contains(at), "{message}");
}

#[rstest]
#[case::bad_jsonl_line("{\"role\": \"user\", \"content\": \"hi\"}\n{\"role\": \n")]
#[case::later_lines_of_other_shapes(
    "{\"role\": \"user\", \"content\": \"hi\"}\n[1, 2]\n42\n\"text\"\n{\"unknown\": true}\n"
)]
#[case::deep_garbage("[{\"role\": \"assistant\", \"tool_calls\": [1, null, {\"function\": 3}]}]")]
fn odd_input_never_panics(#[case] text: &str) {
    let _ = read(text, true);
    let _ = read(text, false);
}

#[test]
fn forced_format_reads_what_detection_would_refuse() {
    let options = ReadOptions {
        format: Some("openai-chat".to_owned()),
        naming: crate::Naming::Default,
    };
    // A request body with `system` is taken for Anthropic's by detection.
    let text = r#"{"system": "s", "messages": [{"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "x", "arguments": "{}"}}]}]}"#;
    let mut runs = Vec::new();
    let read = read_trace("t", text.as_bytes(), false, &options, |run| {
        runs.push(run);
    })
    .unwrap();
    assert_eq!((read.format, read.no_calls), ("openai-chat", false));
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].calls.len(), 1);
}

#[test]
fn forced_format_without_its_records_is_an_error() {
    let options = ReadOptions {
        format: Some("openai-chat".to_owned()),
        naming: crate::Naming::Default,
    };
    let error = read_trace("t", "{\"note\": 1}".as_bytes(), false, &options, |_| {}).unwrap_err();
    assert!(
        matches!(
            error,
            crate::TraceError::NoRecords {
                format: "openai-chat",
                ..
            }
        ),
        "{error:?}"
    );
}
