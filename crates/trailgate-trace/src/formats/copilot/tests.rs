//! Unit tests of the `copilot` adapter, through the public reader. There is no recorded
//! session-event sample, so the records are written here after the event schema
//! (github/copilot-sdk `session-events.ts`).

use crate::formats::testing;
use crate::formats::testing::{assert_bad_count, ns, usage};
use rstest::rstest;
use serde_json::{Value, json};

use super::Copilot;
use crate::formats::Adapter;
use crate::{Interval, Naming, ReadOptions, Run, Status, TraceError, read_trace};

use Status::{Error as E, Ok as O, Unknown as U};

fn read_with(text: &str, lines: bool, naming: Naming) -> Result<Vec<Run>, TraceError> {
    let options = ReadOptions {
        format: None,
        naming,
    };
    testing::read_with(text, lines, &options).map(|(_, runs)| runs)
}

fn read(text: &str, lines: bool) -> Run {
    let mut runs = read_with(text, lines, Naming::Default).unwrap();
    assert_eq!(runs.len(), 1, "one run per file");
    let run = runs.remove(0);
    assert_eq!(run.format, "copilot");
    run
}

fn ids(run: &Run) -> Vec<(String, u32, bool, Status)> {
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
fn check(text: &str, lines: bool, expected: &[(&str, u32, bool, Status)]) {
    let expected: Vec<_> = expected
        .iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect();
    assert_eq!(ids(&read(text, lines)), expected);
}

/// A session event envelope.
fn event(kind: &str, data: &str) -> String {
    format!(
        r#"{{"id": "e-{kind}", "parentId": null, "timestamp": "2026-01-01T00:00:00Z", "type": "{kind}", "data": {data}}}"#
    )
}

fn message(requests: &str) -> String {
    event(
        "assistant.message",
        &format!(
            r#"{{"messageId": "m", "content": "", "toolRequests": [{requests}], "outputTokens": 5}}"#
        ),
    )
}

fn request(id: &str, name: &str) -> String {
    format!(
        r#"{{"toolCallId": "{id}", "name": "{name}", "arguments": {{"n": "{id}"}}, "type": "function"}}"#
    )
}

fn start(id: &str, name: &str) -> String {
    event(
        "tool.execution_start",
        &format!(r#"{{"toolCallId": "{id}", "toolName": "{name}", "arguments": {{"n": "{id}"}}}}"#),
    )
}

fn done(id: &str, success: bool) -> String {
    event(
        "tool.execution_complete",
        &format!(
            r#"{{"toolCallId": "{id}", "success": {success}, "result": {{"content": "out {id}"}}}}"#
        ),
    )
}

#[rstest]
#[case::session_start(
    r#"{"type": "session.start", "data": {"sessionId": "s"}, "id": "1", "parentId": null}"#
)]
#[case::user_message(r#"{"type": "user.message", "data": {"content": "hi"}}"#)]
#[case::array_of_events(r#"[{"type": "assistant.turn_start", "data": {"turnId": "0"}}]"#)]
#[case::events_object(r#"{"events": [{"type": "tool.execution_start", "data": {}}]}"#)]
#[case::flat_message(r#"{"type": "message", "role": "user", "content": "hi"}"#)]
#[case::flat_tool_use(r#"{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}"#)]
fn detects(#[case] text: &str) {
    let value: Value = serde_json::from_str(text).unwrap();
    assert!(Copilot.detect(&value), "{text}");
}

#[rstest]
#[case::anthropic_response(r#"{"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "x"}], "stop_reason": "end_turn"}"#)]
#[case::anthropic_string_with_stop(
    r#"{"type": "message", "role": "assistant", "content": "x", "stop_reason": "end_turn"}"#
)]
#[case::claude_code(r#"{"type": "assistant", "message": {"role": "assistant", "content": []}}"#)]
#[case::claude_code_result(r#"{"type": "result", "subtype": "success", "result": "x"}"#)]
#[case::codex(
    r#"{"timestamp": "t", "type": "response_item", "payload": {"type": "function_call"}}"#
)]
#[case::native_events(r#"{"events": [{"type": "tool_call", "toolName": "x"}]}"#)]
#[case::langchain(r#"[{"type": "ai", "data": {"tool_calls": []}}]"#)]
#[case::openai_messages(r#"[{"role": "assistant", "tool_calls": []}]"#)]
#[case::otel(r#"{"resourceSpans": []}"#)]
#[case::unknown_namespace(r#"{"type": "response.output_item.done", "data": {}}"#)]
#[case::event_without_data(r#"{"type": "tool.execution_start", "toolCallId": "1"}"#)]
#[case::anthropic_block_list(r#"[{"type": "tool_use", "id": "t", "name": "x", "input": {}}]"#)]
fn does_not_detect(#[case] text: &str) {
    let value: Value = serde_json::from_str(text).unwrap();
    assert!(!Copilot.detect(&value), "{text}");
}

#[rstest]
#[case::requests_started_and_completed(
    &[
        event("session.start", r#"{"sessionId": "s"}"#),
        event("user.message", r#"{"content": "go"}"#),
        event("assistant.turn_start", r#"{"turnId": "0"}"#),
        message(&format!("{}, {}", request("1", "view"), request("2", "bash"))),
        start("1", "view"),
        start("2", "bash"),
        event("tool.execution_progress", r#"{"toolCallId": "2", "progressMessage": "..."}"#),
        done("2", false),
        done("1", true),
        event("assistant.turn_end", r#"{"turnId": "0"}"#),
        message(""),
        message(&request("3", "view")),
        event("result", r#"{"exitCode": 0}"#),
    ].join("\n"),
    true,
    &[("view", 0, true, O), ("bash", 0, true, E), ("view", 2, false, U)],
)]
#[case::mcp_names_from_the_start_event(
    &[
        message(&request("1", "env-echo-get_env")),
        event("tool.execution_start", r#"{"toolCallId": "1", "toolName": "env-echo-get_env", "mcpServerName": "env-echo", "mcpToolName": "get_env", "arguments": {"name": "X"}}"#),
        done("1", true),
    ].join("\n"),
    true,
    &[("env-echo.get_env", 0, true, O)],
)]
#[case::mcp_names_on_the_request(
    &message(r#"{"toolCallId": "1", "name": "github-mcp-server-get_issue", "mcpServerName": "github-mcp-server", "mcpToolName": "get_issue", "arguments": {}}"#),
    true,
    &[("github-mcp-server.get_issue", 0, false, U)],
)]
#[case::start_without_a_request(
    &[message(""), start("7", "bash"), done("7", true), start("8", "view")].join("\n"),
    true,
    &[("bash", 0, true, O), ("view", 0, false, U)],
)]
#[case::start_before_any_message(&[start("1", "bash"), done("1", true)].join("\n"), true, &[("bash", 0, true, O)])]
#[case::error_without_success_flag(
    &[message(&request("1", "bash")), event("tool.execution_complete", r#"{"toolCallId": "1", "error": {"message": "denied", "code": "denied"}}"#)].join("\n"),
    true,
    &[("bash", 0, true, E)],
)]
#[case::success_without_result(
    &[message(&request("1", "bash")), event("tool.execution_complete", r#"{"toolCallId": "1", "success": true, "error": null}"#)].join("\n"),
    true,
    &[("bash", 0, true, O)],
)]
#[case::results_before_calls_and_unpaired_results_are_ignored(
    &[done("1", true), message(&request("1", "bash")), done("9", false), done("1", false), done("1", true)].join("\n"),
    true,
    &[("bash", 0, true, E)],
)]
#[case::duplicate_ids_pair_with_the_latest(
    &[message(&request("1", "a")), done("1", true), message(&request("1", "b")), done("1", false)].join("\n"),
    true,
    &[("a", 0, true, O), ("b", 1, true, E)],
)]
#[case::numeric_ids(
    &[message(r#"{"toolCallId": 4, "name": "a"}"#), event("tool.execution_complete", r#"{"toolCallId": 4, "success": true}"#)].join("\n"),
    true,
    &[("a", 0, true, O)],
)]
#[case::json_array_of_events(
    &format!("[{}, {}]", message(&request("1", "a")), done("1", true)),
    false,
    &[("a", 0, true, O)],
)]
#[case::unknown_events_and_fields_are_skipped(
    &[
        event("session.future_thing", r#"{"x": 1}"#),
        event("assistant.message_delta", r#"{"messageId": "m", "deltaContent": "h"}"#),
        event("assistant.message", r#"{"content": "x", "toolRequests": [{"toolCallId": "1", "name": "a", "intentionSummary": "s", "future": 2}], "future": {}}"#),
        r#"{"no_type": true}"#.to_owned(),
    ].join("\n"),
    true,
    &[("a", 0, false, U)],
)]
fn calls(#[case] text: &str, #[case] lines: bool, #[case] expected: &[(&str, u32, bool, Status)]) {
    check(text, lines, expected);
}

#[test]
fn args_and_results() {
    let run = read(
        &[
            message(
                r#"{"toolCallId": "1", "name": "a", "arguments": {"q": 1}}, {"toolCallId": "2", "name": "b", "arguments": "{\"q\": 2}"}, {"toolCallId": "3", "name": "c", "arguments": "*** Begin Patch"}, {"toolCallId": "4", "name": "d"}"#,
            ),
            event(
                "tool.execution_start",
                r#"{"toolCallId": "4", "toolName": "d", "arguments": {"late": true}}"#,
            ),
            event(
                "tool.execution_start",
                r#"{"toolCallId": "1", "toolName": "a", "arguments": {"other": true}}"#,
            ),
            event(
                "tool.execution_complete",
                r#"{"toolCallId": "1", "success": true, "result": {"content": "short", "detailedContent": "long"}}"#,
            ),
            event(
                "tool.execution_complete",
                r#"{"toolCallId": "2", "success": true, "result": {"contents": [{"type": "text", "text": "x"}]}}"#,
            ),
            event(
                "tool.execution_complete",
                r#"{"toolCallId": "3", "success": false, "error": {"message": "denied"}}"#,
            ),
            event(
                "tool.execution_complete",
                r#"{"toolCallId": "4", "success": false, "error": "boom"}"#,
            ),
        ]
        .join("\n"),
        true,
    );
    let calls = &run.calls;
    // The request's arguments win; a start only fills in arguments the request lacked.
    assert_eq!(calls[0].args, json!({"q": 1}));
    assert_eq!(calls[0].result().cloned(), Some(json!("short")));
    assert_eq!(calls[1].args, json!({"q": 2}));
    assert_eq!(calls[1].result().cloned(), Some(json!("x")));
    assert_eq!(calls[2].args, json!("*** Begin Patch"));
    assert_eq!(calls[2].args_raw.as_deref(), Some("*** Begin Patch"));
    assert_eq!(calls[2].result().cloned(), Some(json!("denied")));
    assert_eq!(calls[3].args, json!({"late": true}));
    assert_eq!(calls[3].result().cloned(), Some(json!("boom")));
}

#[rstest]
// Without a server list the default `dash` scheme splits at the first `-`.
#[case::default_splits_at_the_first_dash(Naming::Default, "env.echo-get_env")]
#[case::servers_resolve_the_split(Naming::Dash { servers: vec!["env-echo".to_owned()] }, "env-echo.get_env")]
#[case::none(Naming::None, "env-echo-get_env")]
fn naming_of_names_without_a_server(#[case] naming: Naming, #[case] expected: &str) {
    let runs = read_with(&message(&request("1", "env-echo-get_env")), true, naming).unwrap();
    assert_eq!(ids(&runs[0])[0].0, expected);
}

#[test]
fn an_explicit_server_is_never_split_again() {
    let text = message(
        r#"{"toolCallId": "1", "name": "x", "mcpServerName": "a-b", "mcpToolName": "c-d"}"#,
    );
    let runs = read_with(&text, true, Naming::Default).unwrap();
    assert_eq!(ids(&runs[0])[0].0, "a-b.c-d");
}

#[rstest]
#[case::request_without_name(&message(r#"{"toolCallId": "1", "arguments": {}}"#), "data.toolRequests[0]")]
#[case::start_without_name(&event("tool.execution_start", r#"{"toolCallId": "9"}"#), "data")]
#[case::in_an_array(&format!("[{}, {}]", message(""), message(r#"{"name": 3}"#)), "[1].data.toolRequests[0]")]
fn unusable_records_are_errors(#[case] text: &str, #[case] path: &str) {
    let lines = !text.starts_with('[');
    match read_with(text, lines, Naming::Default) {
        Err(TraceError::Shape { message, .. }) => {
            assert!(message.contains(&format!("`{path}`")), "{message}");
        }
        other => panic!("expected a shape error, got {other:?}"),
    }
}

#[test]
fn a_line_that_is_not_json_is_an_error() {
    let text = format!("{}\n{{\"type\": ", message(""));
    assert!(matches!(
        read_with(&text, true, Naming::Default),
        Err(TraceError::Syntax { .. })
    ));
}

/// `Some(calls)` when the file reads, `None` when it is a shape error.
#[rstest]
#[case::requests_not_a_list(&message("").replace("[]", "{}"), Some(0))]
#[case::requests_of_scalars(&message("1, null"), None)]
#[case::result_of_scalars(&[message(&request("1", "a")), event("tool.execution_complete", r#"{"toolCallId": "1", "result": 5, "error": [1]}"#)].join("\n"), Some(1))]
#[case::data_not_an_object(&[message(""), event("assistant.message", "[1]"), event("tool.execution_start", "null")].join("\n"), Some(0))]
fn odd_shapes_never_panic(#[case] text: &str, #[case] calls: Option<usize>) {
    let got = match read_with(text, true, Naming::Default) {
        Ok(runs) => Some(runs[0].calls.len()),
        Err(TraceError::Shape { .. }) => None,
        Err(other) => panic!("unexpected error {other:?}"),
    };
    assert_eq!(got, calls);
}

/// Reads `text` (JSON Lines) with the format named, as a suite's `trace_format: copilot`
/// does.
fn read_as_copilot(text: &str) -> Result<Vec<Run>, TraceError> {
    let mut runs = Vec::new();
    let options = ReadOptions {
        format: Some("copilot".to_owned()),
        naming: Naming::Default,
    };
    read_trace("t", text.as_bytes(), true, &options, |run| runs.push(run))?;
    Ok(runs)
}

/// A flat stream that opens with `{"type": "message", "role": ..., "content": "..."}` is
/// also a valid list of Responses API input items, and `openai-responses` comes first in
/// detection; such a file names its format.
#[test]
fn flat_stream_read_as_copilot() {
    let text = [
        r#"{"type": "message", "role": "user", "content": "go"}"#,
        r#"{"type": "message", "role": "assistant", "content": "I will look"}"#,
        r#"{"type": "tool_use", "id": "t1", "name": "view", "input": {"path": "a"}}"#,
        r#"{"type": "tool_use", "id": "t2", "name": "bash", "input": {"command": "ls"}}"#,
        r#"{"type": "tool_result", "tool_use_id": "t2", "content": "x", "is_error": true}"#,
        r#"{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "y"}]}"#,
        r#"{"type": "tool_use", "id": "t3", "name": "view", "input": {}}"#,
        r#"{"type": "usage", "input_tokens": 3, "output_tokens": 4}"#,
    ]
    .join("\n");
    let runs = read_as_copilot(&text).unwrap();
    assert_eq!(
        ids(&runs[0]),
        vec![
            ("view".to_owned(), 0, true, O),
            ("bash".to_owned(), 0, true, E),
            ("view".to_owned(), 1, false, U),
        ]
    );
}

#[test]
fn flat_tool_use_without_name_is_an_error() {
    let text = "{\"type\": \"message\", \"role\": \"user\", \"content\": \"go\"}\n{\"type\": \"tool_use\", \"id\": \"t\", \"input\": {}}";
    match read_as_copilot(text) {
        Err(TraceError::Shape { message, .. }) => assert!(message.contains("`name`"), "{message}"),
        other => panic!("expected a shape error, got {other:?}"),
    }
}

/// The events of the usage fixture, written after the event schema.
const EVENTS: &str = include_str!("../../../../../fixtures/usage-copilot-events/events.jsonl");

#[test]
fn usage_and_times_of_session_events() {
    let run = read(EVENTS, true);
    // The two `assistant.usage` events, not the `session.shutdown` totals besides them.
    assert_eq!(
        usage(&run),
        [("claude-sonnet-4.5".to_owned(), 18_371, 100, Some(17_792))]
    );
    assert_eq!(
        run.time,
        Some(Interval {
            start_ns: ns("2026-03-02T09:14:00.12Z"),
            end_ns: ns("2026-03-02T09:14:04.31Z")
        })
    );
    // From the assistant message that asked for it to its completion.
    assert_eq!(
        run.calls[0].time,
        Some(Interval {
            start_ns: ns("2026-03-02T09:14:02.544Z"),
            end_ns: ns("2026-03-02T09:14:02.873Z")
        })
    );
}

#[test]
fn a_session_file_has_the_shutdown_totals() {
    // On disk the ephemeral `assistant.usage` events are not kept.
    let kept: Vec<&str> = EVENTS
        .lines()
        .filter(|line| !line.contains("\"assistant.usage\""))
        .collect();
    let run = read(&kept.join("\n"), true);
    assert_eq!(
        usage(&run),
        [("claude-sonnet-4.5".to_owned(), 18_371, 100, Some(17_792))]
    );
}

#[test]
fn a_call_without_completion_has_no_time() {
    let text = [
        json!({"type": "assistant.message", "timestamp": "2026-01-01T00:00:00Z", "data": {"content": "", "toolRequests": [{"toolCallId": "a", "name": "x", "arguments": {}}]}}),
        json!({"type": "tool.execution_start", "timestamp": "2026-01-01T00:00:01Z", "data": {"toolCallId": "b", "toolName": "y", "arguments": {}}}),
        json!({"type": "tool.execution_complete", "timestamp": "2026-01-01T00:00:03Z", "data": {"toolCallId": "b", "success": true}}),
    ]
    .map(|event| event.to_string())
    .join("\n");
    let run = read(&text, true);
    assert_eq!(run.calls[0].time, None);
    assert_eq!(
        run.calls[1].time,
        Some(Interval {
            start_ns: ns("2026-01-01T00:00:01Z"),
            end_ns: ns("2026-01-01T00:00:03Z")
        })
    );
    assert!(run.usage.models.is_empty());
}

#[rstest]
#[case::negative_per_call("assistant.usage", "inputTokens", "-1")]
#[case::fraction_per_call("assistant.usage", "outputTokens", "1.5")]
#[case::past_64_bits_in_the_totals("session.shutdown", "cacheReadTokens", "18446744073709551616")]
fn a_bad_token_count_is_an_error(#[case] kind: &str, #[case] key: &str, #[case] count: &str) {
    let mut counts = json!({"inputTokens": 1, "outputTokens": 1, "cacheReadTokens": 0});
    counts[key] = serde_json::from_str(count).unwrap();
    let data = if kind == "assistant.usage" {
        let mut data = counts;
        data["model"] = json!("m");
        data
    } else {
        json!({"modelMetrics": {"m": {"requests": {"count": 1}, "usage": counts}}})
    };
    let text = json!({"type": kind, "timestamp": "2026-01-01T00:00:00Z", "data": data}).to_string();
    assert_bad_count(&text, true, key, count);
}
