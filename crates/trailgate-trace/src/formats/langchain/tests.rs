//! Unit tests of the `langchain` adapter, through the public reader: calls, results,
//! detection and usage.

use crate::formats::testing;
use crate::formats::testing::{assert_bad_count, usage};
use rstest::rstest;
use serde_json::{Value, json};

use super::LangChain;
use crate::formats::Adapter;
use crate::{Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

fn read_with(text: &str, lines: bool) -> Result<Vec<Run>, TraceError> {
    testing::read(text, lines).map(|(_, runs)| runs)
}

fn read(text: &str, lines: bool) -> Run {
    let mut runs = read_with(text, lines).unwrap();
    assert_eq!(runs.len(), 1, "one run per file");
    let run = runs.remove(0);
    assert_eq!(run.format, "langchain");
    run
}

#[track_caller]
fn check(text: &str, lines: bool, expected: &[(&str, u32, bool, Status)]) {
    let got: Vec<_> = read(text, lines)
        .calls
        .iter()
        .map(|c| (c.name.clone(), c.step, c.completed, c.status))
        .collect();
    let expected: Vec<_> = expected
        .iter()
        .map(|(name, step, done, status)| ((*name).to_owned(), *step, *done, *status))
        .collect();
    assert_eq!(got, expected);
}

fn human(text: &str) -> String {
    format!(r#"{{"type": "human", "data": {{"content": "{text}", "type": "human", "id": null}}}}"#)
}

/// An AI message with `tool_calls` given as `(name, id)`.
fn ai(calls: &[(&str, &str)]) -> String {
    let calls: Vec<String> = calls
        .iter()
        .map(|(name, id)| {
            format!(r#"{{"name": "{name}", "args": {{"k": "{name}"}}, "id": "{id}", "type": "tool_call"}}"#)
        })
        .collect();
    format!(
        r#"{{"type": "ai", "data": {{"content": "", "type": "ai", "tool_calls": [{}], "invalid_tool_calls": [], "usage_metadata": null}}}}"#,
        calls.join(", ")
    )
}

fn tool(id: &str, status: &str) -> String {
    format!(
        r#"{{"type": "tool", "data": {{"content": "out {id}", "type": "tool", "tool_call_id": "{id}", "artifact": null, "status": "{status}"}}}}"#
    )
}

fn list(messages: &[String]) -> String {
    format!("[{}]", messages.join(",\n"))
}

#[rstest]
#[case::messages_to_dict(r#"[{"type": "human", "data": {"content": "hi"}}]"#)]
#[case::chunk(r#"[{"type": "AIMessageChunk", "data": {"content": "", "tool_calls": []}}]"#)]
#[case::one_message_per_line(r#"{"type": "ai", "data": {"content": "x"}}"#)]
#[case::dumpd(r#"[{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"], "kwargs": {"content": "hi"}}]"#)]
#[case::graph_state(r#"{"messages": [{"type": "human", "data": {"content": "hi"}}]}"#)]
fn detects(#[case] text: &str) {
    let value: Value = serde_json::from_str(text).unwrap();
    assert!(LangChain.detect(&value), "{text}");
}

#[rstest]
#[case::openai_messages(r#"[{"role": "assistant", "tool_calls": []}]"#)]
#[case::openai_request(r#"{"messages": [{"role": "user", "content": "hi"}]}"#)]
#[case::copilot(r#"{"type": "assistant.message", "data": {"content": "x"}}"#)]
#[case::copilot_array(r#"[{"type": "tool.execution_complete", "data": {"toolCallId": "1"}}]"#)]
#[case::claude_code(r#"{"type": "user", "message": {"role": "user", "content": "x"}}"#)]
#[case::gemini(r#"[{"role": "user", "parts": [{"text": "hi"}]}]"#)]
#[case::adk(r#"[{"author": "a", "invocation_id": "i"}]"#)]
#[case::unknown_type_with_data(r#"[{"type": "session", "data": {}}]"#)]
#[case::dumpd_of_something_else(r#"[{"lc": 1, "type": "constructor", "id": ["langchain", "prompts", "PromptTemplate"], "kwargs": {}}]"#)]
#[case::not_constructor(
    r#"[{"lc": 1, "type": "not_implemented", "id": ["x", "AIMessage"], "kwargs": {}}]"#
)]
#[case::empty("[]")]
fn does_not_detect(#[case] text: &str) {
    let value: Value = serde_json::from_str(text).unwrap();
    assert!(!LangChain.detect(&value), "{text}");
}

#[rstest]
// The sample's shape: two AI messages with one call each, a success and an error.
#[case::steps_are_ai_messages(
    &list(&[human("q"), ai(&[("a", "1")]), tool("1", "success"), ai(&[]), ai(&[("b", "2"), ("c", "3")]), tool("3", "error"), tool("2", "success")]),
    false,
    &[("a", 0, true, O), ("b", 2, true, O), ("c", 2, true, E)],
)]
#[case::one_message_per_line(
    &[human("q"), ai(&[("a", "1")]), tool("1", "success")].join("\n"),
    true,
    &[("a", 0, true, O)],
)]
#[case::missing_status_is_ok(
    &list(&[ai(&[("a", "1")]), r#"{"type": "tool", "data": {"content": "x", "tool_call_id": "1"}}"#.to_owned()]),
    false,
    &[("a", 0, true, O)],
)]
#[case::results_before_calls_and_unpaired_results_are_ignored(
    &list(&[tool("1", "success"), ai(&[("a", "1")]), tool("9", "error"), r#"{"type": "tool", "data": {"content": "x"}}"#.to_owned()]),
    false,
    &[("a", 0, false, U)],
)]
#[case::duplicate_ids_pair_in_order(
    &list(&[ai(&[("a", "1"), ("b", "1")]), tool("1", "error"), tool("1", "success"), tool("1", "error")]),
    false,
    &[("a", 0, true, E), ("b", 0, true, O)],
)]
#[case::numeric_ids(
    r#"[{"type": "ai", "data": {"tool_calls": [{"name": "a", "args": {}, "id": 5}]}}, {"type": "tool", "data": {"content": "x", "tool_call_id": 5}}]"#,
    false,
    &[("a", 0, true, O)],
)]
#[case::invalid_tool_calls_are_errors(
    r#"[{"type": "ai", "data": {"tool_calls": [{"name": "a", "args": {}, "id": "1"}], "invalid_tool_calls": [{"name": "b", "args": "{\"x\": ", "id": "2", "error": "bad json", "type": "invalid_tool_call"}, {"name": null, "args": "??", "id": "3", "error": null}]}},
        {"type": "ai", "data": {"tool_calls": [], "invalid_tool_calls": [{"name": "c", "args": "{", "id": "4"}]}},
        {"type": "tool", "data": {"content": "Error: invalid", "tool_call_id": "4", "status": "error"}}]"#,
    false,
    &[("a", 0, false, U), ("b", 0, false, E), ("c", 1, true, E)],
)]
#[case::dumpd(
    r#"[{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"], "kwargs": {"content": "q"}},
        {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"], "kwargs": {"content": "", "tool_calls": [{"name": "a", "args": {"x": 1}, "id": "1", "type": "tool_call"}]}},
        {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"], "kwargs": {"content": "x", "tool_call_id": "1", "status": "error"}}]"#,
    false,
    &[("a", 0, true, E)],
)]
#[case::chunks(
    r#"[{"type": "AIMessageChunk", "data": {"tool_calls": [{"name": "a", "args": {}, "id": "1"}]}}, {"type": "ToolMessageChunk", "data": {"content": "x", "tool_call_id": "1"}}]"#,
    false,
    &[("a", 0, true, O)],
)]
#[case::graph_state(
    &format!(r#"{{"messages": {}, "remaining_steps": 3}}"#, list(&[ai(&[("a", "1")]), tool("1", "success")])),
    false,
    &[("a", 0, true, O)],
)]
#[case::legacy_openai_tool_calls(
    r#"[{"type": "ai", "data": {"content": "", "additional_kwargs": {"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{\"q\": 1}"}}]}}}, {"type": "tool", "data": {"content": "x", "tool_call_id": "c1"}}]"#,
    false,
    &[("a", 0, true, O)],
)]
// Current messages keep the provider's raw calls beside `tool_calls`; they are not counted twice.
#[case::raw_calls_beside_tool_calls_are_not_doubled(
    r#"[{"type": "ai", "data": {"tool_calls": [{"name": "a", "args": {}, "id": "c1"}], "invalid_tool_calls": [], "additional_kwargs": {"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{}"}}]}}}]"#,
    false,
    &[("a", 0, false, U)],
)]
#[case::unknown_messages_and_fields_are_skipped(
    r#"[{"type": "system", "data": {"content": "s"}}, {"type": "remove", "data": {"id": "x"}}, {"type": "future", "data": {}}, {"no": "type"}, 3, {"type": "ai", "data": {"tool_calls": [{"name": "a", "args": {}, "id": "1", "extra": 1}], "future": true}}]"#,
    false,
    &[("a", 0, false, U)],
)]
fn calls(#[case] text: &str, #[case] lines: bool, #[case] expected: &[(&str, u32, bool, Status)]) {
    check(text, lines, expected);
}

#[test]
fn args_and_results() {
    let run = read(
        r#"[{"type": "ai", "data": {"tool_calls": [
                {"name": "obj", "args": {"q": "x"}, "id": "1"},
                {"name": "text", "args": "{\"q\": 2}", "id": "2"},
                {"name": "none", "id": "3"}
            ], "invalid_tool_calls": [{"name": "raw", "args": "{\"city\": ", "id": "4"}]}},
            {"type": "tool", "data": {"content": "plain", "tool_call_id": "1"}},
            {"type": "tool", "data": {"content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}], "tool_call_id": "2"}}]"#,
        false,
    );
    let calls = &run.calls;
    assert_eq!(calls[0].args, json!({"q": "x"}));
    assert_eq!(calls[0].result().cloned(), Some(json!("plain")));
    assert_eq!(calls[1].args, json!({"q": 2}));
    assert_eq!(calls[1].result().cloned(), Some(json!("one\ntwo")));
    assert_eq!(calls[2].args, json!({}));
    assert_eq!(calls[3].args, json!("{\"city\": "));
    assert_eq!(calls[3].args_raw.as_deref(), Some("{\"city\": "));
    assert!(calls.iter().all(|call| call.server.is_none()));
}

#[test]
fn default_naming_splits_only_mcp_double_names() {
    let run = read(
        r#"[{"type": "ai", "data": {"tool_calls": [{"name": "mcp__github__list", "args": {}, "id": "1"}, {"name": "weather_search", "args": {}, "id": "2"}]}}]"#,
        false,
    );
    assert_eq!(run.calls[0].server.as_deref(), Some("github"));
    assert_eq!(run.calls[0].name, "list");
    assert_eq!(run.calls[1].server, None);
    assert_eq!(run.calls[1].name, "weather_search");
}

#[rstest]
#[case::tool_call_without_name(r#"[{"type": "human", "data": {}}, {"type": "ai", "data": {"tool_calls": [{"args": {}, "id": "1"}]}}]"#, false, "[1].data.tool_calls[0]")]
#[case::on_a_line(
    "{\"type\": \"ai\", \"data\": {\"tool_calls\": [{\"name\": 1}]}}",
    true,
    "data.tool_calls[0]"
)]
#[case::dumpd_without_name(r#"[{"lc": 1, "type": "constructor", "id": ["AIMessage"], "kwargs": {"tool_calls": [{"id": "1"}]}}]"#, false, "[0].kwargs.tool_calls[0]")]
#[case::legacy_without_name(r#"[{"type": "ai", "data": {"additional_kwargs": {"tool_calls": [{"id": "1", "function": {}}]}}}]"#, false, "[0].data.additional_kwargs.tool_calls[0]")]
fn unusable_records_are_errors(#[case] text: &str, #[case] lines: bool, #[case] path: &str) {
    match read_with(text, lines) {
        Err(TraceError::Shape { message, .. }) => assert!(message.contains(path), "{message}"),
        other => panic!("expected a shape error, got {other:?}"),
    }
}

#[rstest]
#[case::not_json(r#"[{"type": "ai", "data": }]"#, false)]
#[case::later_line_not_json("{\"type\": \"ai\", \"data\": {}}\nnope", true)]
fn malformed_json_is_an_error(#[case] text: &str, #[case] lines: bool) {
    assert!(matches!(
        read_with(text, lines),
        Err(TraceError::Syntax { .. })
    ));
}

/// `Some(calls)` when the file reads, `None` when it is a shape error.
#[rstest]
#[case::tool_calls_not_a_list(
    r#"[{"type": "ai", "data": {"tool_calls": {"name": "a"}, "invalid_tool_calls": "x"}}]"#,
    Some(0)
)]
#[case::tool_calls_of_scalars(r#"[{"type": "ai", "data": {"tool_calls": [1, null]}}]"#, None)]
#[case::tool_content_missing(r#"[{"type": "ai", "data": {"tool_calls": [{"name": "a", "id": "1"}]}}, {"type": "tool", "data": {"tool_call_id": "1", "status": 3}}]"#, Some(1))]
fn odd_shapes_never_panic(#[case] text: &str, #[case] expected: Option<usize>) {
    let got = match read_with(text, false) {
        Ok(runs) => Some(runs[0].calls.len()),
        Err(TraceError::Shape { .. }) => None,
        Err(other) => panic!("unexpected error {other:?}"),
    };
    assert_eq!(got, expected);
}

fn ai_with(fields: &Value) -> Value {
    let mut data =
        json!({"content": "", "type": "ai", "id": "m", "tool_calls": [], "invalid_tool_calls": []});
    for (key, value) in fields.as_object().unwrap() {
        data[key] = value.clone();
    }
    json!({"type": "ai", "data": data})
}

#[rstest]
#[case::usage_metadata(
    vec![ai_with(&json!({"usage_metadata": {"input_tokens": 350, "output_tokens": 240, "total_tokens": 590, "input_token_details": {"cache_read": 100, "audio": 0}, "output_token_details": {"reasoning": 200}}, "response_metadata": {"model_name": "gpt-4o-2024-08-06", "token_usage": {"prompt_tokens": 1, "completion_tokens": 1}}})),
         ai_with(&json!({"usage_metadata": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}, "response_metadata": {"model_name": "gpt-4o-2024-08-06"}}))],
    &[("gpt-4o-2024-08-06", 360, 245, Some(100))]
)]
#[case::anthropic_names_its_model_model(
    vec![ai_with(&json!({"usage_metadata": {"input_tokens": 12, "output_tokens": 3, "total_tokens": 15}, "response_metadata": {"model": "claude-sonnet-4-20250514"}}))],
    &[("claude-sonnet-4-20250514", 12, 3, None)]
)]
#[case::token_usage_of_older_messages(
    vec![ai_with(&json!({"usage_metadata": null, "response_metadata": {"token_usage": {"prompt_tokens": 20, "completion_tokens": 4, "prompt_tokens_details": {"cached_tokens": 8}}}}))],
    &[("", 20, 4, Some(8))]
)]
#[case::none_recorded(vec![ai_with(&json!({"usage_metadata": null, "response_metadata": {}}))], &[])]
fn usage_of_ai_messages(
    #[case] messages: Vec<Value>,
    #[case] expected: &[(&str, u64, u64, Option<u64>)],
) {
    let run = read(&Value::Array(messages).to_string(), false);
    let expected: Vec<_> = expected
        .iter()
        .map(|(model, input, output, cached)| ((*model).to_owned(), *input, *output, *cached))
        .collect();
    assert_eq!(usage(&run), expected);
    assert_eq!(run.time, None);
}

#[test]
fn usage_of_a_dumpd_message() {
    let message = json!({"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
        "kwargs": {"content": "", "type": "ai", "tool_calls": [], "usage_metadata": {"input_tokens": 9, "output_tokens": 1, "total_tokens": 10}, "response_metadata": {"model_name": "m"}}});
    assert_eq!(
        usage(&read(&json!([message]).to_string(), false)),
        [("m".to_owned(), 9, 1, None)]
    );
}

#[rstest]
#[case::negative("input_tokens", "-1")]
#[case::fraction("output_tokens", "1.5")]
#[case::past_64_bits("input_tokens", "18446744073709551616")]
fn a_bad_token_count_is_an_error(#[case] key: &str, #[case] count: &str) {
    let mut recorded = json!({"input_tokens": 1, "output_tokens": 1, "total_tokens": 2});
    recorded[key] = serde_json::from_str(count).unwrap();
    let text = Value::Array(vec![ai_with(&json!({"usage_metadata": recorded}))]).to_string();
    assert_bad_count(&text, false, key, count);
}
