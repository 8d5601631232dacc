//! Unit tests of the `gemini-cli` adapter, through the public reader: detection, calls with
//! their results and status, steps, usage and times, and malformed sessions.

use rstest::rstest;
use serde_json::{Value, json};

use crate::formats::testing::{assert_bad_count, ns, read, summary, usage};
use crate::{Interval, Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

/// The session copied into the convert fixture.
const SESSION: &str = include_str!(
    "../../../../../fixtures/format-gemini-cli-session/codemie__session-2026-01-16T11-01-file-ops.json"
);

#[track_caller]
fn run(text: &str) -> Run {
    let (format, mut runs) = read(text, false).unwrap();
    assert_eq!(format, "gemini-cli");
    assert_eq!(runs.len(), 1);
    runs.remove(0)
}

fn session(messages: &Value) -> String {
    json!({"sessionId": "s", "projectHash": "h", "startTime": "t", "messages": messages})
        .to_string()
}

fn gemini(calls: &Value) -> Value {
    json!({"id": "m", "type": "gemini", "content": "", "toolCalls": calls})
}

#[test]
fn reads_a_real_session() {
    let run = run(SESSION);
    let names: Vec<(String, u32, Status)> = run
        .calls
        .iter()
        .map(|call| (call.name.clone(), call.step, call.status))
        .collect();
    // Gemini CLI appends the calls of a turn's later model responses to the turn's first
    // `gemini` message: the nine calls of message 3 share its step.
    let expected = [
        ("write_todos", 1),
        ("delegate_to_agent", 1),
        ("write_todos", 1),
        ("read_file", 1),
        ("read_file", 1),
        ("read_file", 1),
        ("write_todos", 1),
        ("search_file_content", 1),
        ("read_file", 1),
        ("write_file", 3),
        ("read_file", 5),
        ("write_file", 5),
        ("read_file", 7),
        ("write_file", 7),
    ];
    let expected: Vec<(String, u32, Status)> = expected
        .iter()
        .map(|(name, step)| ((*name).to_owned(), *step, O))
        .collect();
    assert_eq!(names, expected);
    let write = &run.calls[9];
    assert_eq!(
        write.args(),
        &json!({"content": "# Hello World", "file_path": "hello.md"})
    );
    assert!(
        write
            .result()
            .and_then(Value::as_str)
            .is_some_and(|text| text.starts_with("Successfully created and wrote to new file")),
        "{:?}",
        write.result()
    );
}

#[rstest]
#[case::success(json!([{"id": "1", "name": "a", "args": {}, "status": "success", "result": [{"functionResponse": {"id": "1", "name": "a", "response": {"output": "ok"}}}]}]), &[("a", 0, true, O)], Some(json!("ok")))]
#[case::error(json!([{"id": "1", "name": "a", "args": {}, "status": "error", "result": [{"functionResponse": {"id": "1", "name": "a", "response": {"error": "denied"}}}]}]), &[("a", 0, true, E)], Some(json!("denied")))]
#[case::cancelled_without_result(json!([{"id": "1", "name": "a", "args": {}, "status": "cancelled"}]), &[("a", 0, true, E)], None)]
#[case::no_status_no_result(json!([{"id": "1", "name": "a", "args": {}}]), &[("a", 0, false, U)], None)]
#[case::response_of_several_fields(json!([{"name": "a", "status": "success", "result": [{"functionResponse": {"response": {"output": "x", "llmContent": "y"}}}]}]), &[("a", 0, true, O)], Some(json!({"output": "x", "llmContent": "y"})))]
fn tool_calls(
    #[case] calls: Value,
    #[case] expected: &[(&str, u32, bool, Status)],
    #[case] result: Option<Value>,
) {
    let run = run(&session(
        &json!([{"type": "user", "content": "go"}, gemini(&calls)]),
    ));
    let expected: Vec<(String, u32, bool, Status)> = expected
        .iter()
        .map(|(name, step, done, status)| ((*name).to_owned(), *step, *done, *status))
        .collect();
    assert_eq!(summary(&run), expected);
    assert_eq!(run.calls[0].result().cloned(), result);
}

#[test]
fn each_gemini_message_is_a_step() {
    let call = json!([{"name": "a", "args": {}}]);
    let text = session(&json!([
        gemini(&call),
        {"type": "info", "content": "note"},
        {"type": "gemini", "content": "thinking aloud"},
        gemini(&call),
    ]));
    let steps: Vec<u32> = run(&text).calls.iter().map(|call| call.step).collect();
    assert_eq!(steps, [0, 2]);
}

#[rstest]
#[case::without_project_hash(json!({"sessionId": "s", "messages": [{"type": "gemini", "content": "hi"}]}), true)]
#[case::with_project_hash(json!({"sessionId": "s", "projectHash": "h", "messages": []}), true)]
#[case::adk_session_is_not(json!({"id": "s", "appName": "a", "events": []}), false)]
#[case::chat_messages_are_not(json!({"messages": [{"role": "user", "content": "hi"}]}), false)]
fn detection(#[case] document: Value, #[case] detected: bool) {
    let format = read(&document.to_string(), false).map(|(format, _)| format);
    assert_eq!(format.ok() == Some("gemini-cli"), detected);
}

#[rstest]
#[case::tool_calls_not_a_list(json!({"sessionId": "s", "projectHash": "h", "messages": [{"type": "gemini", "toolCalls": {}}]}))]
#[case::call_without_name(json!({"sessionId": "s", "projectHash": "h", "messages": [{"type": "gemini", "toolCalls": [{"args": {}}]}]}))]
fn unusable_sessions_are_errors(#[case] document: Value) {
    let error = read(&document.to_string(), false).unwrap_err();
    assert!(matches!(error, TraceError::Shape { .. }), "{error:?}");
}

#[test]
fn usage_and_times_of_a_real_session() {
    let run = run(SESSION);
    // Nine responses: output 4355 counts 2917 tokens of thoughts.
    assert_eq!(
        usage(&run),
        [("gemini-3-pro".to_owned(), 87_418, 4355, Some(62_117))]
    );
    assert_eq!(
        run.time,
        Some(Interval {
            start_ns: ns("2026-01-16T11:01:22.281Z"),
            end_ns: ns("2026-01-16T12:34:29.823Z")
        })
    );
    assert!(run.calls.iter().all(|call| call.time.is_none()));
}

#[rstest]
#[case::negative("input", "-1")]
#[case::fraction("thoughts", "1.5")]
#[case::past_64_bits("output", "18446744073709551616")]
fn a_bad_token_count_is_an_error(#[case] key: &str, #[case] count: &str) {
    let mut tokens = json!({"input": 1, "output": 1, "cached": 0, "thoughts": 0});
    tokens[key] = serde_json::from_str(count).unwrap();
    let message = json!({"type": "gemini", "content": "", "model": "m", "tokens": tokens});
    assert_bad_count(&session(&json!([message])), false, key, count);
}
