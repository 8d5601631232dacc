//! Unit tests of the `openai-responses` adapter (Responses API items and Codex CLI
//! rollouts), through the public reader.

use crate::formats::testing::{read, summary};
use rstest::rstest;
use serde_json::{Value, json};

use crate::{Naming, ReadOptions, Run, Status, TraceError, read_trace};

use Status::{Error as E, Ok as O, Unknown as U};

/// The shape of the sample in `samples/openai/`: a response with one `function_call`.
const RESPONSE: &str = r#"{"id": "resp_1", "object": "response", "status": "completed",
  "output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_current_weather",
    "arguments": "{\"location\":\"Boston, MA\",\"unit\":\"celsius\"}", "status": "completed"}],
  "tools": [{"type": "function", "name": "get_current_weather"}]}"#;

/// The shape of the sample in `samples/codex/`: a Codex rollout with three calls.
const ROLLOUT: &str = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/w","cli_version":"0.0.0"}}
{"timestamp":"t","type":"turn_context","payload":{"cwd":"/w","model":"m"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"go"}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[],"encrypted_content":"x"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a.txt"}}
{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c2"}}
{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":[{"type":"output_text","text":"Done!"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"mcp__synthetic__lookup","arguments":"{\"query\":\"q\"}","call_id":"c3"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":"{\"status\":\"ok\"}"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"done"}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}
{"timestamp":"t","type":"future_synthetic_record","payload":{"safe":"ignored"}}
"#;

fn options(format: Option<&str>, naming: Naming) -> ReadOptions {
    ReadOptions {
        format: format.map(str::to_owned),
        naming,
    }
}

#[track_caller]
fn one_run(text: &str, lines: bool) -> Run {
    let (format, mut runs) = read(text, lines).unwrap();
    assert_eq!(format, "openai-responses");
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

/// Items as a JSON array, the calls of one session.
fn items(items: &[Value]) -> String {
    Value::Array(items.to_vec()).to_string()
}

#[rstest]
#[case::response(RESPONSE, true)]
#[case::response_without_object(
    r#"{"output": [{"type": "function_call", "name": "f", "call_id": "1", "arguments": "{}"}]}"#,
    true
)]
#[case::request_body(r#"{"model": "gpt-5", "input": [{"type": "function_call_output", "call_id": "1", "output": "x"}]}"#, true)]
#[case::item_line(
    r#"{"type": "function_call", "name": "f", "call_id": "1", "arguments": "{}"}"#,
    true
)]
#[case::message_item(
    r#"{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}"#,
    true
)]
#[case::message_item_with_text(r#"{"type": "message", "role": "user", "content": "hi"}"#, true)]
#[case::item_list(r#"[{"role": "user", "content": "hi"}, {"type": "mcp_call", "name": "f", "server_label": "s"}]"#, true)]
#[case::codex_session_meta(
    r#"{"timestamp": "t", "type": "session_meta", "payload": {"id": "s"}}"#,
    true
)]
#[case::codex_rollout_as_array(
    r#"[{"timestamp": "t", "type": "response_item", "payload": {"type": "reasoning"}}]"#,
    true
)]
#[case::legacy_codex_header(
    r#"{"id": "s", "timestamp": "t", "instructions": null, "git": {}}"#,
    true
)]
#[case::stream_event(r#"{"type": "response.created", "sequence_number": 0, "response": {"object": "response", "output": []}}"#, true)]
#[case::web_search_item(r#"{"type": "web_search_call", "id": "ws", "status": "completed", "action": {"type": "search"}}"#, true)]
#[case::chat_message(r#"{"role": "user", "content": "hi"}"#, false)]
#[case::chat_completion(r#"{"object": "chat.completion", "choices": []}"#, false)]
#[case::anthropic_response(r#"{"type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}], "stop_reason": "tool_use"}"#, false)]
#[case::anthropic_text_response(r#"{"type": "message", "role": "assistant", "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn"}"#, false)]
#[case::copilot_event(
    r#"{"type": "tool.execution_start", "data": {"toolName": "f"}}"#,
    false
)]
#[case::langchain(
    r#"[{"type": "ai", "data": {"tool_calls": []}}, {"type": "tool", "data": {}}]"#,
    false
)]
#[case::claude_code(
    r#"{"type": "assistant", "message": {"role": "assistant", "content": []}}"#,
    false
)]
#[case::otel_tool_call_part(r#"[{"type": "tool_call", "id": "1", "name": "f"}]"#, false)]
#[case::native_events(r#"{"events": [{"type": "tool_call", "toolName": "f"}]}"#, false)]
#[case::embeddings_request(r#"{"model": "e", "input": ["text"]}"#, false)]
fn detection(#[case] text: &str, #[case] responses: bool) {
    let value: Value = serde_json::from_str(text).unwrap();
    let detected = crate::formats::ADAPTERS
        .iter()
        .find(|adapter| adapter.name() == "openai-responses")
        .is_some_and(|adapter| adapter.detect(&value));
    assert_eq!(detected, responses);
}

#[rstest]
#[case::response_call(RESPONSE, false, &[("get_current_weather", 0, false, U)])]
#[case::codex_rollout(ROLLOUT, true, &[("exec_command", 0, true, U), ("apply_patch", 1, true, U), ("synthetic.lookup", 2, true, U)])]
#[case::parallel_calls_share_a_step(&items(&[
    json!({"type": "message", "role": "user", "content": "go"}),
    json!({"type": "reasoning", "summary": []}),
    json!({"type": "function_call", "name": "a", "call_id": "1", "arguments": "{}"}),
    json!({"type": "function_call", "name": "b", "call_id": "2", "arguments": "{}"}),
    json!({"type": "function_call_output", "call_id": "2", "output": "B"}),
    json!({"type": "function_call_output", "call_id": "1", "output": "A"}),
    json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "so"}]}),
    json!({"role": "user", "content": "again"}),
    json!({"type": "function_call", "name": "c", "call_id": "3", "arguments": "{}"}),
]), false, &[("a", 0, true, U), ("b", 0, true, U), ("c", 2, false, U)])]
#[case::turn_records_end_a_response(r#"[{"type": "response_item", "payload": {"type": "function_call", "name": "a", "call_id": "1"}},
    {"type": "turn_context", "payload": {}},
    {"type": "response_item", "payload": {"type": "function_call", "name": "b", "call_id": "2"}},
    {"type": "event_msg", "payload": {"type": "user_message", "message": "x"}},
    {"type": "event_msg", "payload": {"type": "token_count"}},
    {"type": "response_item", "payload": {"type": "function_call", "name": "c", "call_id": "3"}}]"#, false, &[("a", 0, false, U), ("b", 1, false, U), ("c", 2, false, U)])]
#[case::mcp_call_ok_and_failed(&items(&[
    json!({"type": "mcp_list_tools", "server_label": "gh", "tools": []}),
    json!({"type": "mcp_call", "id": "m1", "server_label": "gh", "name": "list_issues", "arguments": "{\"repo\": \"r\"}", "output": "[]", "error": null, "status": "completed"}),
    json!({"type": "mcp_call", "id": "m2", "server_label": "gh", "name": "get_issue", "arguments": "{}", "error": "not found"}),
    json!({"type": "mcp_call", "id": "m3", "server_label": "gh", "name": "close", "arguments": "{}", "error": {"type": "mcp_tool_execution_error", "content": []}}),
    json!({"type": "mcp_call", "id": "m4", "server_label": "gh", "name": "lock", "arguments": "{}", "status": "failed"}),
    json!({"type": "mcp_call", "id": "m5", "server_label": "gh", "name": "wait", "arguments": "{}", "status": "in_progress"}),
]), false, &[("gh.list_issues", 0, true, O), ("gh.get_issue", 0, true, E), ("gh.close", 0, true, E), ("gh.lock", 0, true, E), ("gh.wait", 0, false, U)])]
#[case::approvals(&items(&[
    json!({"type": "mcp_approval_request", "id": "ar1", "server_label": "gh", "name": "merge", "arguments": "{}"}),
    json!({"type": "mcp_approval_request", "id": "ar2", "server_label": "gh", "name": "delete", "arguments": "{}"}),
    json!({"type": "mcp_approval_response", "approval_request_id": "ar1", "approve": true}),
    json!({"type": "mcp_approval_response", "approval_request_id": "ar2", "approve": false, "reason": "no"}),
    json!({"type": "mcp_call", "id": "m1", "approval_request_id": "ar1", "server_label": "gh", "name": "merge", "arguments": "{}", "output": "merged"}),
]), false, &[("gh.merge", 0, true, O), ("gh.delete", 0, true, E)])]
#[case::namespaces(&items(&[
    json!({"type": "function_call", "namespace": "mcp__github", "name": "list_issues", "call_id": "1"}),
    json!({"type": "function_call", "namespace": "mcp__docs__", "name": "search", "call_id": "2"}),
    json!({"type": "function_call", "namespace": "kusto", "name": "query", "call_id": "3"}),
    json!({"type": "function_call", "namespace": "", "name": "mcp__a__b", "call_id": "4"}),
]), false, &[("github.list_issues", 0, false, U), ("docs.search", 0, false, U), ("kusto.query", 0, false, U), ("a.b", 0, false, U)])]
#[case::builtin_tools(&items(&[
    json!({"type": "web_search_call", "id": "ws", "status": "completed", "action": {"type": "search", "query": "q"}}),
    json!({"type": "file_search_call", "id": "fs", "status": "failed", "queries": ["q"]}),
    json!({"type": "code_interpreter_call", "id": "ci", "status": "in_progress", "code": "1+1"}),
    json!({"type": "local_shell_call", "id": "ls", "call_id": "s1", "status": "completed", "action": {"type": "exec", "command": ["ls"]}}),
    json!({"type": "apply_patch_call", "id": "ap", "call_id": "p1", "status": "completed", "operation": {"type": "create_file", "path": "a"}}),
    json!({"type": "apply_patch_call", "id": "ap2", "call_id": "p2", "operation": {"type": "delete_file", "path": "b"}}),
    json!({"type": "future_tool_call", "call_id": "f1", "arguments": "{\"x\": 1}"}),
    json!({"type": "local_shell_call_output", "id": "s1", "output": "a.txt"}),
    json!({"type": "apply_patch_call_output", "call_id": "p1", "status": "completed"}),
    json!({"type": "apply_patch_call_output", "call_id": "p2", "status": "failed", "output": "no such file"}),
    json!({"type": "future_tool_call_output", "call_id": "f1", "output": "ok"}),
]), false, &[("web_search", 0, true, O), ("file_search", 0, true, E), ("code_interpreter", 0, false, U), ("local_shell", 0, true, U), ("apply_patch", 0, true, O), ("apply_patch", 0, true, E), ("future_tool", 0, true, U)])]
#[case::codex_success_flag(&items(&[
    json!({"type": "function_call", "name": "a", "call_id": "1"}),
    json!({"type": "function_call", "name": "b", "call_id": "2"}),
    json!({"type": "function_call_output", "call_id": "1", "output": {"content": "boom", "success": false}}),
    json!({"type": "function_call_output", "call_id": "2", "output": {"content": "fine", "success": true}}),
]), false, &[("a", 0, true, E), ("b", 0, true, O)])]
#[case::ids_as_numbers(r#"[{"type": "function_call", "name": "a", "call_id": 5}, {"type": "function_call_output", "call_id": 5, "output": "x"}]"#, false, &[("a", 0, true, U)])]
#[case::output_before_call_is_ignored(r#"[{"type": "function_call_output", "call_id": "1", "output": "early"}, {"type": "function_call", "name": "a", "call_id": "1"}]"#, false, &[("a", 0, false, U)])]
#[case::duplicate_ids_answer_in_order(r#"[{"type": "function_call", "name": "a", "call_id": "d"}, {"type": "function_call", "name": "b", "call_id": "d"}, {"type": "function_call_output", "call_id": "d", "output": "1"}]"#, false, &[("a", 0, true, U), ("b", 0, false, U)])]
#[case::unknown_items_and_fields(r#"[{"type": "compaction", "encrypted_content": "x"}, {"type": "ghost_snapshot"}, {"record_type": "state"}, {"type": "function_call", "name": "a", "call_id": "1", "caller": {"type": "direct"}, "extra": [1]}, 7, "text"]"#, false, &[("a", 0, false, U)])]
#[case::arguments_as_object(r#"[{"type": "function_call", "name": "a", "call_id": "1", "arguments": {"k": 1}}]"#, false, &[("a", 0, false, U)])]
#[case::legacy_codex_rollout("{\"id\": \"s\", \"timestamp\": \"t\", \"instructions\": null}\n{\"record_type\": \"state\"}\n{\"type\": \"function_call\", \"name\": \"shell\", \"arguments\": \"{\\\"command\\\": [\\\"ls\\\"]}\", \"call_id\": \"1\"}\n{\"type\": \"function_call_output\", \"call_id\": \"1\", \"output\": \"x\"}\n", true, &[("shell", 0, true, U)])]
#[case::exchange_with_input_and_output(r#"{"input": [{"role": "user", "content": "go"}, {"type": "function_call", "name": "a", "call_id": "1"}, {"type": "function_call_output", "call_id": "1", "output": "x"}], "output": [{"type": "function_call", "name": "b", "call_id": "2"}]}"#, false, &[("a", 0, true, U), ("b", 1, false, U)])]
#[case::stream_keeps_only_the_final_response("{\"type\": \"response.created\", \"response\": {\"object\": \"response\", \"output\": []}}\n{\"type\": \"response.output_item.done\", \"item\": {\"type\": \"function_call\", \"name\": \"a\", \"call_id\": \"1\"}}\n{\"type\": \"response.completed\", \"response\": {\"object\": \"response\", \"output\": [{\"type\": \"function_call\", \"name\": \"a\", \"call_id\": \"1\"}]}}\n", true, &[("a", 0, false, U)])]
fn calls(#[case] text: &str, #[case] lines: bool, #[case] expected: &[(&str, u32, bool, Status)]) {
    check(text, lines, expected);
}

#[test]
fn arguments_and_results() {
    let run = one_run(ROLLOUT, true);
    assert_eq!(run.calls[0].args, json!({"cmd": "ls"}));
    assert_eq!(run.calls[0].result().cloned(), Some(json!("a.txt")));
    // A custom tool's input is free-form text, kept as it was.
    assert_eq!(run.calls[1].args, json!({}));
    assert_eq!(run.calls[1].args_raw.as_deref(), Some("*** Begin Patch"));
    assert_eq!(run.calls[1].result().cloned(), Some(json!("Done!")));
    // An output that is JSON text stays text.
    assert_eq!(
        run.calls[2].result().cloned(),
        Some(json!("{\"status\":\"ok\"}"))
    );
    assert_eq!(run.line, None);

    let run = one_run(
        &items(&[
            json!({"type": "function_call", "name": "bad", "call_id": "1", "arguments": "{\"a\":"}),
            json!({"type": "mcp_call", "server_label": "s", "name": "m", "arguments": "{}", "error": {"type": "http_error", "code": 500}}),
            json!({"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "q"}}),
            json!({"type": "file_search_call", "status": "completed", "queries": ["q"], "results": [{"text": "hit"}]}),
            json!({"type": "mcp_approval_request", "id": "r", "server_label": "s", "name": "d", "arguments": "{}"}),
            json!({"type": "mcp_approval_response", "approval_request_id": "r", "approve": false}),
        ]),
        false,
    );
    assert_eq!(run.calls[0].args, json!("{\"a\":"));
    assert_eq!(run.calls[0].args_raw.as_deref(), Some("{\"a\":"));
    assert_eq!(
        run.calls[1].result().cloned(),
        Some(json!({"type": "http_error", "code": 500}))
    );
    assert_eq!(run.calls[2].args, json!({"type": "search", "query": "q"}));
    assert_eq!(run.calls[2].result().cloned(), None);
    assert_eq!(run.calls[3].args, json!({"queries": ["q"]}));
    assert_eq!(
        run.calls[3].result().cloned(),
        Some(json!([{"text": "hit"}]))
    );
    assert_eq!(run.calls[4].result().cloned(), None);
}

#[test]
fn documents_are_runs_of_their_own() {
    // A JSON Lines file of responses: one run per line.
    let line = RESPONSE.replace('\n', " ");
    let text = format!("{line}\n\n{line}\n");
    let (format, runs) = read(&text, true).unwrap();
    assert_eq!(format, "openai-responses");
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0].line, runs[1].line), (Some(1), Some(3)));

    // A rollout with no call is still one run.
    let text = "{\"timestamp\": \"t\", \"type\": \"session_meta\", \"payload\": {}}\n";
    assert!(one_run(text, true).calls.is_empty());
}

#[rstest]
#[case::default_splits_codex_names("mcp__synthetic__lookup", None, "synthetic", "lookup")]
#[case::none_keeps_the_name("mcp__synthetic__lookup", Some("none"), "", "mcp__synthetic__lookup")]
#[case::plain_name("exec_command", None, "", "exec_command")]
fn naming(
    #[case] name: &str,
    #[case] scheme: Option<&str>,
    #[case] server: &str,
    #[case] tool: &str,
) {
    let text = json!({"type": "function_call", "name": name, "call_id": "1"}).to_string();
    let naming = match scheme {
        Some(scheme) => Naming::from_parts(scheme, Vec::new(), None).unwrap(),
        None => Naming::Default,
    };
    let mut runs = Vec::new();
    read_trace("t", text.as_bytes(), true, &options(None, naming), |run| {
        runs.push(run);
    })
    .unwrap();
    let call = &runs[0].calls[0];
    assert_eq!(call.server.as_deref().unwrap_or(""), server);
    assert_eq!(call.name, tool);
}

#[rstest]
#[case::function_call_without_name(
    r#"{"output": [{"type": "function_call", "call_id": "1"}]}"#,
    "`output[0]`"
)]
#[case::mcp_call_without_name(r#"[{"type": "mcp_call", "server_label": "s"}]"#, "`[0]`")]
#[case::custom_call_without_name(
    r#"{"type": "response_item", "payload": {"type": "custom_tool_call", "input": "x"}}"#,
    "`payload`"
)]
#[case::approval_without_name(
    r#"{"input": [{"type": "mcp_approval_request", "id": "r"}]}"#,
    "`input[0]`"
)]
#[case::item_not_an_object(r#"{"object": "response", "output": ["text"]}"#, "`output[0]`")]
#[case::payload_not_an_object(r#"[{"type": "response_item", "payload": 3}]"#, "`[0].payload`")]
fn malformed_records_are_shape_errors(#[case] text: &str, #[case] at: &str) {
    let options = options(Some("openai-responses"), Naming::Default);
    let error = read_trace("t", text.as_bytes(), false, &options, |_| {}).unwrap_err();
    let TraceError::Shape { message, .. } = error else {
        panic!("not a shape error: {error:?}");
    };
    assert!(message.contains(at), "{message}");
}

#[rstest]
#[case::bad_jsonl_line("{\"type\": \"function_call\", \"name\": \"a\"}\n{\"type\": \n")]
#[case::odd_lines(
    "{\"type\": \"reasoning\"}\n[1, [2]]\n42\nnull\n{\"type\": 5}\n{\"type\": \"_call\"}\n{\"type\": \"function_call_output\", \"output\": {\"success\": \"no\"}}\n"
)]
#[case::odd_fields(
    "[{\"type\": \"mcp_call\", \"name\": \"a\", \"approval_request_id\": 3, \"error\": 0}, {\"type\": \"mcp_approval_response\", \"approve\": \"no\"}]"
)]
fn odd_input_never_panics(#[case] text: &str) {
    let _ = read(text, true);
    let _ = read(text, false);
}
