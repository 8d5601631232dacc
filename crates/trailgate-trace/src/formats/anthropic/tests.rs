//! Unit tests of the `anthropic` adapter, through the public reader: detection, each call
//! field, pairing, status, steps, naming, robustness and malformed records.

use crate::formats::testing::{read, read_with, summary};
use rstest::rstest;
use serde_json::{Value, json};

use crate::{Naming, ReadOptions, Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

/// The sample copied into the convert fixture.
const CASSETTE: &str = include_str!(
    "../../../../../fixtures/format-anthropic-tool-runner/anthropic-sdk-python__tool-runner-cassette__e075a6c2-de4d-4125-9709-f0e178058190.json"
);

/// The one run of an `anthropic` file.
#[track_caller]
fn run(text: &str, lines: bool) -> Run {
    let (format, mut runs) = read(text, lines).unwrap();
    assert_eq!(format, "anthropic");
    assert_eq!(runs.len(), 1, "one run per file");
    runs.remove(0)
}

#[track_caller]
fn check(text: &str, lines: bool, expected: &[(&str, u32, bool, Status)]) {
    let got = summary(&run(text, lines));
    let expected: Vec<_> = expected
        .iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect();
    assert_eq!(got, expected);
}

// A user prompt, an assistant message calling `a` (id t1), and the user's result.
const BASIC: &str = r#"[
  {"role": "user", "content": "hi"},
  {"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "t1", "name": "a", "input": {"q": 1}}]},
  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "done"}]}
]"#;

#[rstest]
#[case::messages_list(BASIC, false, &[("a", 0, true, O)])]
#[case::request_body(r#"{"model": "claude-x", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}]}"#, false, &[("a", 0, true, O)])]
#[case::request_body_with_input_schema_tools(r#"{"messages": [{"role": "user", "content": "hi"}], "tools": [{"name": "a", "input_schema": {"type": "object"}}]}"#, false, &[])]
#[case::request_body_with_system(r#"{"system": "be brief", "messages": [{"role": "user", "content": "hi"}]}"#, false, &[])]
#[case::response(r#"{"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}], "stop_reason": "tool_use"}"#, false, &[("a", 0, false, U)])]
#[case::response_without_role(r#"{"type": "message", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}"#, false, &[("a", 0, false, U)])]
#[case::cassette(r#"[{"request_body": {"messages": [{"role": "user", "content": "hi"}]}, "response_body": {"type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}], "stop_reason": "tool_use"}}]"#, false, &[("a", 0, false, U)])]
#[case::cassette_lines("{\"request_body\": {\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}, \"response_body\": {\"type\": \"message\", \"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"a\", \"input\": {}}], \"stop_reason\": \"tool_use\"}}\n{\"request_body\": {\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}, {\"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"a\", \"input\": {}}]}, {\"role\": \"user\", \"content\": [{\"type\": \"tool_result\", \"tool_use_id\": \"t1\", \"content\": \"r\"}]}]}, \"response_body\": {\"type\": \"message\", \"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": \"bye\"}], \"stop_reason\": \"end_turn\"}}\n", true, &[("a", 0, true, O)])]
#[case::messages_as_lines("{\"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"a\", \"input\": {}}]}\n{\"role\": \"user\", \"content\": [{\"type\": \"tool_result\", \"tool_use_id\": \"t1\", \"content\": \"r\", \"is_error\": true}]}\n{\"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"t2\", \"name\": \"b\", \"input\": {}}]}\n", true, &[("a", 0, true, E), ("b", 1, false, U)])]
#[case::list_of_responses(r#"[{"type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}], "stop_reason": "tool_use"}, {"type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "b", "input": {}}], "stop_reason": "tool_use"}]"#, false, &[("a", 0, false, U), ("b", 1, false, U)])]
#[case::thinking_block_tells(r#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"}, {"type": "text", "text": "no tools"}]}]"#, false, &[])]
fn detects_and_reads_each_shape(
    #[case] text: &str,
    #[case] lines: bool,
    #[case] expected: &[(&str, u32, bool, Status)],
) {
    check(text, lines, expected);
}

#[rstest]
#[case::openai_chat_messages(r#"[{"role": "system", "content": "s"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "r"}]"#, false)]
#[case::openai_chat_text_parts(
    r#"[{"role": "user", "content": [{"type": "text", "text": "hi"}]}]"#,
    false
)]
#[case::openai_chat_completion(r#"{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{}"}}]}}]}"#, false)]
#[case::openai_chat_request(r#"{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", "function": {"name": "a", "parameters": {}}}]}"#, false)]
#[case::openai_responses_function_call(r#"{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "a", "arguments": "{}", "status": "completed"}"#, false)]
#[case::openai_responses_message_item(r#"{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "hi", "annotations": []}]}"#, false)]
#[case::claude_code_record(r#"{"type": "assistant", "sessionId": "s", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]}, "uuid": "u"}"#, true)]
#[case::claude_code_summary(r#"{"type": "summary", "summary": "s", "leafUuid": "l"}"#, true)]
#[case::codex_rollout(
    "{\"timestamp\": \"t\", \"type\": \"response_item\", \"payload\": {\"type\": \"function_call\", \"name\": \"a\", \"arguments\": \"{}\", \"call_id\": \"c\"}}",
    true
)]
#[case::mcp_request(r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "a", "arguments": {}}}"#, true)]
#[case::langchain(r#"[{"type": "ai", "data": {"content": "", "tool_calls": [{"name": "a", "args": {}, "id": "c1", "type": "tool_call"}]}}]"#, false)]
#[case::atif(
    r#"{"schema_version": "ATIF-v1.4", "session_id": "s", "agent": {"name": "a"}, "steps": []}"#,
    false
)]
#[case::gemini_contents(
    r#"{"contents": [{"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}}]}]}"#,
    false
)]
#[case::copilot_event(r#"{"id": "e1", "parentId": null, "timestamp": "t", "type": "tool.execution_start", "data": {"toolCallId": "c", "toolName": "a"}}"#, true)]
#[case::trailgate_call_list(r#"{"tool_calls": [{"name": "a"}]}"#, false)]
#[case::plain_text_messages(
    r#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]"#,
    false
)]
fn leaves_other_formats_alone(#[case] text: &str, #[case] lines: bool) {
    let format = read(text, lines).map(|(format, _)| format);
    assert!(!matches!(format, Ok("anthropic")), "{format:?}");
}

#[rstest]
#[case::parallel_calls_share_a_step(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}, {"type": "tool_use", "id": "t2", "name": "b", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "r"}, {"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}]"#, &[("a", 0, true, O), ("b", 0, true, O)])]
#[case::each_assistant_message_is_a_step(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}, {"role": "assistant", "content": "thinking aloud"}, {"role": "user", "content": "go on"}, {"role": "assistant", "content": [{"type": "text", "text": "now b"}, {"type": "tool_use", "id": "t2", "name": "b", "input": {}}]}]"#, &[("a", 0, true, O), ("b", 2, false, U)])]
#[case::is_error_true_is_an_error(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": true}]}]"#, &[("a", 0, true, E)])]
#[case::is_error_false_is_ok(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "fine", "is_error": false}]}]"#, &[("a", 0, true, O)])]
#[case::error_text_is_not_an_error(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "Error: failed"}]}]"#, &[("a", 0, true, O)])]
#[case::no_result_is_unknown(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}]"#, &[("a", 0, false, U)])]
#[case::mcp_tool_use_names_its_server(r#"[{"role": "assistant", "content": [{"type": "mcp_tool_use", "id": "m1", "name": "echo", "server_name": "srv", "input": {}}, {"type": "mcp_tool_result", "tool_use_id": "m1", "is_error": false, "content": [{"type": "text", "text": "hi"}]}, {"type": "mcp_tool_use", "id": "m2", "name": "echo", "server_name": "srv", "input": {}}, {"type": "mcp_tool_result", "tool_use_id": "m2", "is_error": true, "content": []}]}]"#, &[("srv.echo", 0, true, O), ("srv.echo", 0, true, E)])]
#[case::server_name_wins_over_the_name(r#"[{"role": "assistant", "content": [{"type": "mcp_tool_use", "id": "m1", "name": "mcp__x__y", "server_name": "srv", "input": {}}]}]"#, &[("srv.mcp__x__y", 0, false, U)])]
#[case::server_tools(r#"[{"role": "assistant", "content": [{"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}}, {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"type": "web_search_result", "url": "u", "title": "t"}]}, {"type": "server_tool_use", "id": "s2", "name": "web_search", "input": {"query": "q"}}, {"type": "web_search_tool_result", "tool_use_id": "s2", "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}}]}]"#, &[("web_search", 0, true, O), ("web_search", 0, true, E)])]
#[case::programmatic_calls_count(r#"[{"role": "assistant", "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution", "input": {"code": "x"}}, {"type": "tool_use", "id": "t1", "name": "a", "input": {}, "caller": {"type": "code_execution_20260120", "tool_id": "srvtoolu_1"}}]}]"#, &[("code_execution", 0, false, U), ("a", 0, false, U)])]
#[case::mcp_double_naming_by_default(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "mcp__github__list_issues", "input": {}}]}]"#, &[("github.list_issues", 0, false, U)])]
#[case::ids_as_numbers(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": 7, "name": "a", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": 7, "content": "r"}]}]"#, &[("a", 0, true, O)])]
#[case::string_and_number_ids_meet(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "7", "name": "a", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": 7, "content": "r"}]}]"#, &[("a", 0, true, O)])]
#[case::result_before_call_is_ignored(r#"[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "early"}]}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}]"#, &[("a", 0, false, U)])]
#[case::result_for_nothing_is_ignored(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "zz", "content": "r"}, {"type": "tool_result", "content": "no id"}]}]"#, &[("a", 0, false, U)])]
#[case::second_result_is_ignored(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}, {"type": "tool_result", "tool_use_id": "t1", "content": "again", "is_error": true}]}]"#, &[("a", 0, true, O)])]
#[case::duplicate_id_is_one_call(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}, {"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}]"#, &[("a", 0, true, O)])]
#[case::calls_without_ids_are_kept(r#"[{"role": "assistant", "content": [{"type": "tool_use", "name": "a", "input": {}}, {"type": "tool_use", "name": "a", "input": {}}]}]"#, &[("a", 0, false, U), ("a", 0, false, U)])]
#[case::tool_use_in_a_user_message_is_no_call(r#"[{"role": "user", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "b", "input": {}}]}]"#, &[("b", 0, false, U)])]
#[case::unknown_blocks_and_fields_are_skipped(r#"[{"role": "assistant", "future": 1, "content": [{"type": "future_block", "x": 1}, {"no_type": true}, "a string", 5, {"type": "tool_use", "id": "t1", "name": "a", "input": {}, "extra": [1]}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r", "cache_control": {"type": "ephemeral"}}]}, {"something": "else"}]"#, &[("a", 0, true, O)])]
fn calls_pairing_status_and_steps(
    #[case] text: &str,
    #[case] expected: &[(&str, u32, bool, Status)],
) {
    check(text, false, expected);
}

#[rstest]
#[case::object(json!({"q": "x", "n": 1}), json!({"q": "x", "n": 1}), None)]
#[case::json_string(json!("{\"q\": \"x\"}"), json!({"q": "x"}), None)]
#[case::invalid_string(json!("{not json"), json!("{not json"), Some("{not json"))]
#[case::missing(Value::Null, json!({}), None)]
fn arguments(#[case] input: Value, #[case] args: Value, #[case] raw: Option<&str>) {
    let mut block = json!({"type": "tool_use", "id": "t1", "name": "a"});
    if !input.is_null() {
        block["input"] = input;
    }
    let text = json!([{"role": "assistant", "content": [block]}]).to_string();
    let call = &run(&text, false).calls[0];
    assert_eq!(call.args, args);
    assert_eq!(call.args_raw.as_deref(), raw);
}

#[rstest]
#[case::string(json!("done"), Some(json!("done")))]
#[case::text_blocks_joined(json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]), Some(json!("a\nb")))]
#[case::other_blocks_kept(json!([{"type": "image", "source": {"type": "base64", "data": "x"}}]), Some(json!([{"type": "image", "source": {"type": "base64", "data": "x"}}])))]
#[case::missing(Value::Null, None)]
fn results(#[case] content: Value, #[case] expected: Option<Value>) {
    let mut result = json!({"type": "tool_result", "tool_use_id": "t1"});
    if !content.is_null() {
        result["content"] = content;
    }
    let text = json!([
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]},
        {"role": "user", "content": [result]}
    ])
    .to_string();
    let call = &run(&text, false).calls[0];
    assert!(call.completed);
    assert_eq!(call.result().cloned(), expected);
}

/// One exchange: the request's messages and the response's content.
fn exchange(messages: &Value, response: Option<Value>) -> Value {
    let mut exchange = json!({"request_body": {"model": "m", "max_tokens": 10, "messages": messages}, "response_status": 200});
    if let Some(content) = response {
        exchange["response_body"] = json!({"type": "message", "role": "assistant", "content": content, "stop_reason": "tool_use"});
    }
    exchange
}

fn tool_use(id: &str, name: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": {}})
}

fn tool_result(id: &str) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "content": "r"})
}

#[test]
fn cassette_counts_each_call_once_and_pairs_from_the_next_request() {
    let user = json!({"role": "user", "content": "go"});
    let first = json!({"role": "assistant", "content": [tool_use("t1", "a")]});
    let result = json!({"role": "user", "content": [tool_result("t1")]});
    let second = json!({"role": "assistant", "content": [{"type": "text", "text": "hm"}]});
    let nudge = json!({"role": "user", "content": "and?"});
    let text = json!([
        exchange(&json!([user]), Some(json!([tool_use("t1", "a")]))),
        // An API error: no message, nothing read, and the request is retried.
        {"request_body": {"messages": [user, first, result]}, "response_status": 529, "response_body": {"type": "error", "error": {"type": "overloaded_error"}}},
        exchange(&json!([user, first, result]), Some(json!([{"type": "text", "text": "hm"}]))),
        exchange(&json!([user, first, result, second, nudge]), Some(json!([tool_use("t2", "b")]))),
    ])
    .to_string();
    check(&text, false, &[("a", 0, true, O), ("b", 2, false, U)]);
}

#[test]
fn cassette_bodies_may_be_json_text() {
    let request = json!({"messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": [tool_use("t1", "a")]}, {"role": "user", "content": [tool_result("t1")]}]});
    let response = json!({"type": "message", "role": "assistant", "content": [tool_use("t2", "b")], "stop_reason": "tool_use"});
    let text = json!([{"request_body": request.to_string(), "response_body": response.to_string()}, {"request_body": "not json", "response_body": "event: message_start"}]).to_string();
    check(&text, false, &[("a", 0, true, O), ("b", 1, false, U)]);
}

#[test]
fn a_rewritten_history_repeats_no_call_and_begins_steps_only_for_new_calls() {
    let user = json!({"role": "user", "content": "go"});
    let long = json!([
        user,
        {"role": "assistant", "content": [tool_use("t1", "a")]},
        {"role": "user", "content": [tool_result("t1")]},
        {"role": "assistant", "content": [tool_use("t2", "b")]},
        {"role": "user", "content": [tool_result("t2")]},
    ]);
    // The client dropped the older turns and replays a summary with one new call.
    let short = json!([
        {"role": "user", "content": "summary"},
        {"role": "assistant", "content": [tool_use("t2", "b"), tool_use("t3", "c")]},
    ]);
    let text = json!([exchange(&long, None), exchange(&short, None)]).to_string();
    check(
        &text,
        false,
        &[("a", 0, true, O), ("b", 1, true, O), ("c", 2, false, U)],
    );
}

#[test]
fn the_sample_cassette() {
    let run = run(CASSETTE, false);
    assert_eq!(
        summary(&run),
        vec![
            ("get_weather".to_owned(), 0, true, O),
            ("get_weather".to_owned(), 1, false, U)
        ]
    );
    assert_eq!(
        run.calls[0].args,
        json!({"location": "San Francisco, CA", "units": "f"})
    );
    assert_eq!(
        run.calls[0].result().cloned(),
        Some(json!(
            "{\"location\": \"San Francisco, CA\", \"temperature\": \"68\\u00b0F\", \"condition\": \"Sunny\"}"
        ))
    );
    assert_eq!(
        run.calls[1].args,
        json!({"location": "New York, NY", "units": "f"})
    );
    assert_eq!(run.calls[1].result().cloned(), None);
}

#[test]
fn naming_none_keeps_the_name_whole() {
    let options = ReadOptions {
        format: None,
        naming: Naming::None,
    };
    let text = r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "mcp__github__list_issues", "input": {}}]}]"#;
    let (_, runs) = read_with(text, false, &options).unwrap();
    assert_eq!(runs[0].calls[0].server, None);
    assert_eq!(runs[0].calls[0].name, "mcp__github__list_issues");
}

#[rstest]
#[case::tool_use_without_name(r#"[{"role": "user", "content": "x"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "input": {}}]}]"#, false, "`[1].content[0]`")]
#[case::name_not_a_string(r#"{"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": [{"type": "text", "text": "t"}, {"type": "tool_use", "id": "t1", "name": 5}]}], "system": "s"}"#, false, "`messages[1].content[1]`")]
#[case::mcp_tool_use_without_name(r#"{"type": "message", "role": "assistant", "content": [{"type": "mcp_tool_use", "id": "m1", "server_name": "s"}], "stop_reason": "tool_use"}"#, false, "`content[0]`")]
#[case::in_a_cassette(r#"[{"request_body": {"messages": [{"role": "user", "content": "x"}]}, "response_body": {"type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "t1"}], "stop_reason": "tool_use"}}]"#, false, "`[0].response_body.content[0]`")]
#[case::on_a_later_line(
    "{\"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"a\"}]}\n{\"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"t2\"}]}\n",
    true,
    "`content[0]`"
)]
fn unusable_calls_are_shape_errors(#[case] text: &str, #[case] lines: bool, #[case] at: &str) {
    let error = read(text, lines).unwrap_err();
    let TraceError::Shape { message, .. } = &error else {
        panic!("{error:?}")
    };
    assert!(message.contains(at), "{message}");
}

#[test]
fn a_line_that_is_not_json_is_a_syntax_error() {
    let text = "{\"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"a\"}]}\n{\"role\": \n";
    assert!(matches!(read(text, true), Err(TraceError::Syntax { .. })));
}

#[rstest]
#[case::messages_not_a_list(r#"{"messages": 5}"#, false)]
#[case::content_not_blocks(r#"[{"role": "assistant", "content": 5}, {"role": "assistant", "content": {"type": "tool_use"}}]"#, false)]
#[case::bodies_of_any_type(r#"[{"request_body": 1, "response_body": [1]}, {"request_body": {"messages": [1, null, "x"]}}]"#, false)]
#[case::scalars("5", false)]
#[case::nested_lists("[[[]]]", false)]
#[case::null_fields(r#"[{"role": null, "content": null}, {"role": "assistant", "content": [{"type": null}, {"type": "tool_result", "tool_use_id": null}]}]"#, true)]
/// A format named by hand reads odd input without a panic: into a run without calls
/// when some record is one of its own, or into the error that says it found none.
fn forced_on_odd_input_reads_no_calls(#[case] text: &str, #[case] recognised: bool) {
    let options = ReadOptions {
        format: Some("anthropic".to_owned()),
        naming: Naming::Default,
    };
    match read_with(text, false, &options) {
        Ok((format, runs)) if recognised => {
            assert_eq!(format, "anthropic");
            assert_eq!(runs.len(), 1);
            assert!(runs[0].calls.is_empty());
        }
        Err(TraceError::NoRecords { format, .. }) if !recognised => assert_eq!(format, "anthropic"),
        other => panic!("{other:?}"),
    }
}
