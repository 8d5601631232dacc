//! Unit tests of the `mcp` adapter, through the public reader: detection, the fields of a
//! call, pairing by id, the `input_required` retry, and malformed captures.

use crate::formats::testing;
use crate::formats::testing::summary;
use rstest::rstest;
use serde_json::{Value, json};

use super::Mcp;
use crate::formats::Adapter;
use crate::{Naming, ReadOptions, Run, Status, TraceError, read_trace};

use Status::{Error as E, Ok as O, Unknown as U};

/// Reads `lines` as a JSON Lines capture with these options.
fn read_with(lines: &[&str], options: &ReadOptions) -> Result<Vec<Run>, TraceError> {
    let (format, runs) = testing::read_with(&lines.join("\n"), true, options)?;
    assert_eq!(format, "mcp");
    Ok(runs)
}

/// The one run of a JSON Lines capture.
fn run(lines: &[&str]) -> Run {
    let mut runs = read_with(lines, &ReadOptions::default()).unwrap();
    assert_eq!(runs.len(), 1, "a capture is one run");
    runs.remove(0)
}

#[track_caller]
fn check(lines: &[&str], expected: &[(&str, bool, Status)]) {
    let got = summary(&run(lines));
    let expected: Vec<_> = expected
        .iter()
        .map(|(id, done, status)| ((*id).to_owned(), 0, *done, *status))
        .collect();
    assert_eq!(got, expected);
}

#[rstest]
#[case::request(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}))]
#[case::initialize(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}))]
#[case::notification(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))]
#[case::response(json!({"jsonrpc": "2.0", "id": "a", "result": {"content": []}}))]
#[case::error_response(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}))]
#[case::array_of_messages(json!([{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}]))]
#[case::bare_call_result(json!({"resultType": "complete", "content": [], "isError": true}))]
#[case::bare_call_result_before_2026(json!({"content": [{"type": "text", "text": "hi"}], "isError": false}))]
#[case::bare_structured_result(json!({"content": [], "structuredContent": {"a": 1}}))]
#[case::bare_tool_list(json!({"tools": [{"name": "get_weather", "inputSchema": {"type": "object"}}]}))]
#[case::bare_error(json!({"code": -32602, "message": "Unknown tool: x"}))]
#[case::bare_error_with_data(json!({"code": -32602, "message": "Unknown tool: x", "data": {}}))]
fn detects_mcp(#[case] first: Value) {
    assert!(Mcp.detect(&first), "{first}");
}

#[rstest]
#[case::trailgate_call_list(json!({"tool_calls": [{"name": "x"}]}))]
#[case::trailgate_events(json!({"events": [{"type": "tool_call", "toolName": "x"}]}))]
#[case::atif(json!({"schema_version": "ATIF-v1.4", "steps": []}))]
#[case::otel(json!({"resourceSpans": []}))]
#[case::claude_code_line(json!({"type": "assistant", "message": {"role": "assistant", "content": []}}))]
#[case::anthropic_tool_result(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x", "is_error": true}]}))]
#[case::anthropic_block(json!({"type": "tool_result", "content": [], "isError": false}))]
#[case::openai_chat_message(json!({"role": "assistant", "content": null, "tool_calls": []}))]
#[case::openai_completion(json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": []}))]
#[case::openai_responses_item(json!({"type": "function_call", "call_id": "c", "name": "x", "arguments": "{}"}))]
#[case::codex_rollout(json!({"timestamp": "t", "type": "session_meta", "payload": {}}))]
#[case::copilot_event(json!({"id": "e", "type": "user.message", "data": {"content": "hi"}}))]
#[case::gemini_response(json!({"candidates": [{"content": {"parts": []}}]}))]
#[case::adk_session(json!({"id": "s", "app_name": "a", "events": []}))]
#[case::langchain_messages(json!([{"type": "ai", "data": {"content": "", "tool_calls": []}}]))]
#[case::vercel_steps(json!([{"stepNumber": 0, "content": [], "toolCalls": []}]))]
#[case::content_alone(json!({"content": [{"type": "text", "text": "hi"}]}))]
#[case::error_with_other_keys(json!({"code": 1, "message": "m", "status": 500}))]
#[case::tools_without_schema(json!({"tools": [{"name": "x", "input_schema": {}}]}))]
#[case::empty_array(json!([]))]
#[case::scalar(json!("jsonrpc"))]
fn does_not_detect_other_shapes(#[case] first: Value) {
    assert!(!Mcp.detect(&first), "{first}");
}

#[rstest]
#[case::request_and_result(&[
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"New York"}}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"72°F"}],"isError":false}}"#,
], &[("get_weather", true, O)])]
#[case::lone_request(&[
    r#"{"jsonrpc":"2.0","id":"call-tool-example","method":"tools/call","params":{"name":"get_weather","arguments":{}}}"#,
], &[("get_weather", false, U)])]
#[case::lone_response_has_no_call(&[
    r#"{"jsonrpc":"2.0","id":"call-tool-example","result":{"resultType":"complete","content":[],"isError":false}}"#,
], &[])]
#[case::bare_result_has_no_call(&[
    r#"{"resultType":"complete","content":[{"type":"text","text":"x"}],"isError":true}"#,
], &[])]
#[case::tool_error(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book","arguments":{}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Invalid date"}],"isError":true}}"#,
], &[("book", true, E)])]
#[case::protocol_error(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: nope"}}"#,
], &[("nope", true, E)])]
#[case::is_error_absent_is_ok(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
], &[("a", true, O)])]
#[case::server_from_result_meta(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{"content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}}}}"#,
], &[("a", false, U), ("weather.b", true, O)])]
#[case::other_methods_are_skipped(&[
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a"}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#,
], &[("a", true, O)])]
#[case::string_and_number_ids(&[
    r#"{"jsonrpc":"2.0","id":"x-1","method":"tools/call","params":{"name":"a"}}"#,
    r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"b"}}"#,
    r#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":true}}"#,
    r#"{"jsonrpc":"2.0","id":"x-1","result":{"content":[]}}"#,
], &[("a", true, O), ("b", true, E)])]
#[case::result_before_request_is_ignored(&[
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#,
], &[("a", false, U)])]
#[case::unpaired_result_is_ignored(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#,
    r#"{"jsonrpc":"2.0","id":9,"result":{"content":[],"isError":true}}"#,
], &[("a", false, U)])]
#[case::second_result_for_one_id_is_ignored(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}"#,
], &[("a", true, O)])]
#[case::id_reused_after_its_response(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
], &[("a", true, E), ("b", true, O)])]
#[case::server_request_with_the_same_id(&[
    r#"{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"a"}}"#,
    r#"{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"who?","requestedSchema":{}}}"#,
    r#"{"jsonrpc":"2.0","id":0,"result":{"action":"decline"}}"#,
    r#"{"jsonrpc":"2.0","id":0,"result":{"content":[],"isError":true}}"#,
], &[("a", true, E)])]
#[case::cancelled_request_frees_its_id(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"timeout"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fast"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
], &[("slow", false, U), ("fast", true, O)])]
#[case::input_required_then_retry_is_one_call(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update","arguments":{"id":4522}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"r":{"method":"elicitation/create","params":{}}}}}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"update","arguments":{"id":4522.0},"inputResponses":{"r":{"result":{"action":"accept"}}},"requestState":"s"}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"done"}]}}"#,
], &[("update", true, O)])]
#[case::two_rounds_of_input(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update","arguments":{}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"a"}}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"update","arguments":{},"requestState":"a"}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"b"}}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"update","arguments":{},"requestState":"b"}}"#,
    r#"{"jsonrpc":"2.0","id":3,"result":{"content":[],"isError":true}}"#,
], &[("update", true, E)])]
#[case::draft_incomplete_result_is_pending(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"inputRequests":{"r":{"method":"elicitation/create"}}}}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"update","inputResponses":{"r":{}}}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#,
], &[("update", true, O)])]
#[case::input_required_without_retry_stays_open(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update","arguments":{}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{}}}"#,
], &[("update", false, U)])]
#[case::retry_with_other_arguments_is_a_new_call(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update","arguments":{"a":1}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"update","arguments":{"a":2},"requestState":"s"}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#,
], &[("update", false, U), ("update", true, O)])]
#[case::same_call_without_retry_fields_is_a_new_call(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"update"}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#,
], &[("update", false, U), ("update", true, O)])]
#[case::batch_on_one_line(&[
    r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}]"#,
    r#"[{"jsonrpc":"2.0","id":2,"result":{"content":[]}},{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}]"#,
], &[("a", true, E), ("b", true, O)])]
#[case::unknown_fields_and_records_are_skipped(&[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","task":{"ttl":1},"_meta":{"progressToken":1}},"x-capture":{"at":"t"}}"#,
    r#"{"direction":"in","note":"not a JSON-RPC message"}"#,
    "42",
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false,"x":1},"extra":true}"#,
], &[("a", true, O)])]
#[case::odd_values_do_not_panic(&[
    r#"{"jsonrpc":"2.0","id":{"no":"id"},"method":"tools/call","params":{"name":"a","arguments":[1,2]}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b","arguments":null}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
    r#"{"jsonrpc":"2.0","id":true,"result":{}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#,
], &[("a", false, U), ("b", true, O)])]
fn captures(#[case] lines: &[&str], #[case] expected: &[(&str, bool, Status)]) {
    check(lines, expected);
}

/// The arguments and result of the one call of a request and its response.
#[track_caller]
fn call_of(request_params: &str, result: &str) -> (Value, Option<String>, Option<Value>) {
    let request =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{request_params}}}"#);
    let response = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{result}}}"#);
    let mut run = run(&[&request, &response]);
    let call = run.calls.remove(0);
    (
        call.args().clone(),
        call.args_raw.clone(),
        call.result().cloned(),
    )
}

#[rstest]
#[case::object(r#"{"name":"a","arguments":{"q":"x","n":[1,2]}}"#, json!({"q": "x", "n": [1, 2]}), None)]
#[case::missing(r#"{"name":"a"}"#, json!({}), None)]
#[case::json_string(r#"{"name":"a","arguments":"{\"q\":\"x\"}"}"#, json!({"q": "x"}), None)]
#[case::invalid_string(r#"{"name":"a","arguments":"q=x"}"#, json!("q=x"), Some("q=x"))]
fn argument_shapes(#[case] params: &str, #[case] args: Value, #[case] raw: Option<&str>) {
    let (got, got_raw, _) = call_of(params, r#"{"content":[]}"#);
    assert_eq!((got, got_raw.as_deref()), (args, raw));
}

#[rstest]
#[case::joined_text(r#"{"content":[{"type":"text","text":"a"},{"type":"image","data":"..","mimeType":"image/png"},{"type":"text","text":"b"}]}"#, Some(json!("a\nb")))]
#[case::structured_object(r#"{"content":[{"type":"text","text":"{\"t\":22.5}"}],"structuredContent":{"t":22.5}}"#, Some(json!({"t": 22.5})))]
#[case::structured_array(r#"{"content":[],"structuredContent":[{"id":"1"}]}"#, Some(json!([{"id": "1"}])))]
#[case::structured_null_falls_back(r#"{"content":[{"type":"text","text":"a"}],"structuredContent":null}"#, Some(json!("a")))]
#[case::no_text_keeps_blocks(r#"{"content":[{"type":"image","data":"..","mimeType":"image/png"}]}"#, Some(json!([{"type": "image", "data": "..", "mimeType": "image/png"}])))]
#[case::empty_content(r#"{"content":[]}"#, Some(json!("")))]
#[case::no_content("{}", None)]
fn result_shapes(#[case] result: &str, #[case] expected: Option<Value>) {
    let (_, _, got) = call_of(r#"{"name":"a"}"#, result);
    assert_eq!(got, expected);
}

#[test]
fn a_protocol_error_keeps_the_error_object_as_result() {
    let run = run(&[
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"calculate","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Missing required property 'expression'"}}"#,
    ]);
    assert_eq!(
        run.calls[0].result().cloned(),
        Some(json!({"code": -32602, "message": "Missing required property 'expression'"}))
    );
}

#[test]
fn a_retry_keeps_the_first_request_position_and_takes_the_final_result() {
    let run = run(&[
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update","arguments":{"k":1}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"other"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"update","arguments":{"k":1},"requestState":"s"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"updated"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ado"}}}}"#,
    ]);
    assert_eq!(
        summary(&run),
        [
            ("ado.update".to_owned(), 0, true, O),
            ("other".to_owned(), 0, false, U)
        ]
    );
    assert_eq!(run.calls[0].result().cloned(), Some(json!("updated")));
}

#[rstest]
#[case::default_keeps_the_name(Naming::Default, "mcp__github__list", None)]
#[case::a_scheme_can_split_it(Naming::McpDouble, "list", Some("github"))]
fn naming_schemes(#[case] naming: Naming, #[case] name: &str, #[case] server: Option<&str>) {
    let options = ReadOptions {
        format: None,
        naming,
    };
    let runs = read_with(
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp__github__list"}}"#,
        ],
        &options,
    )
    .unwrap();
    let call = &runs[0].calls[0];
    assert_eq!((call.name.as_str(), call.server.as_deref()), (name, server));
}

#[test]
fn a_json_document_may_be_one_message_or_an_array_of_them() {
    let read = |text: &str| {
        let mut runs = Vec::new();
        let format = read_trace(
            "t",
            text.as_bytes(),
            false,
            &ReadOptions::default(),
            |run| {
                runs.push(run);
            },
        )
        .unwrap()
        .format;
        assert_eq!(format, "mcp");
        runs
    };
    let single = read(
        r#"{"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": {"name": "get_weather"}}"#,
    );
    assert_eq!(
        summary(&single[0]),
        [("get_weather".to_owned(), 0, false, U)]
    );
    let array = read(
        r#"[{"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": {"name": "a"}},
            {"jsonrpc": "2.0", "id": "c", "result": {"content": [], "isError": true}}]"#,
    );
    assert_eq!(summary(&array[0]), [("a".to_owned(), 0, true, E)]);
    let bare = read(r#"{"code": -32602, "message": "Unknown tool: invalid_tool_name"}"#);
    assert_eq!(bare.len(), 1);
    assert!(bare[0].calls.is_empty());
}

#[rstest]
#[case::no_params(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#, "shape")]
#[case::name_not_a_string(
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#,
    "shape"
)]
#[case::params_not_an_object(
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"get_weather"}"#,
    "shape"
)]
#[case::in_a_batch(r#"[{"jsonrpc":"2.0","method":"tools/call","params":{}}]"#, "shape")]
#[case::not_json(r#"{"jsonrpc":"2.0","id":1,"#, "syntax")]
fn malformed_records_are_errors(#[case] bad: &str, #[case] kind: &str) {
    let first = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#;
    let error = read_with(&[first, bad], &ReadOptions::default()).unwrap_err();
    let got = match &error {
        TraceError::Syntax { .. } => "syntax",
        TraceError::Shape { .. } => "shape",
        _ => "other",
    };
    assert_eq!(got, kind, "{error:?}");
    if let TraceError::Shape { message, .. } = &error {
        assert!(message.contains("params.name"), "{message}");
    }
}

/// The cassette copied into the convert fixture.
const CASSETTE: &str = include_str!(
    "../../../../../fixtures/format-mcp-recorder-cassette/mcp-recorder__mock_session.cassette.json"
);

#[test]
fn a_recorder_cassette_is_read_with_its_server() {
    let (format, runs) = testing::read(CASSETTE, false).unwrap();
    assert_eq!(format, "mcp");
    let got = summary(&runs[0]);
    let expected: Vec<_> = ["add", "multiply", "echo", "get_weather"]
        .iter()
        .map(|name| (format!("Test Calculator.{name}"), 0, true, O))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(runs[0].calls[0].result(), Some(&json!({"result": 5})));
}

#[rstest]
#[case::direction_and_message(
    r#"{"direction": "client->server", "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}}"#,
    r#"{"direction": "server->client", "message": {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": true}}}"#
)]
#[case::dir_and_data(
    r#"{"dir": "out", "ts": 1, "data": {"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "x"}}}"#,
    r#"{"dir": "in", "ts": 2, "data": {"jsonrpc": "2.0", "id": "a", "result": {"content": [], "isError": true}}}"#
)]
fn direction_logs_are_read_by_their_messages(#[case] request: &str, #[case] response: &str) {
    check(&[request, response], &[("x", true, E)]);
}
