//! Unit tests of the `claude-code` adapter, through the public reader: detection of
//! transcripts and stream-json output, each call field, pairing, status, steps by message
//! id, naming, robustness and malformed records.

use crate::formats::testing::{read, read_with, summary};
use rstest::rstest;
use serde_json::{Value, json};

use crate::{Naming, ReadOptions, Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

/// The samples copied into the convert fixtures.
const STREAM_JSON: &str = include_str!(
    "../../../../../fixtures/format-claude-code-stream-json/claude-code-action__test__fixtures__sample-turns.json"
);
const SESSION: &str = include_str!(
    "../../../../../fixtures/format-claude-code-session/simonw-claude-code-transcripts__tests__sample_session.jsonl"
);

/// The one run of a `claude-code` file.
#[track_caller]
fn run(text: &str, lines: bool) -> Run {
    let (format, mut runs) = read(text, lines).unwrap();
    assert_eq!(format, "claude-code");
    assert_eq!(runs.len(), 1, "one run per file");
    runs.remove(0)
}

fn expected(rows: &[(&str, u32, bool, Status)]) -> Vec<(String, u32, bool, Status)> {
    rows.iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect()
}

/// Records as JSON Lines.
fn lines(records: &[Value]) -> String {
    let mut text = String::new();
    for record in records {
        text.push_str(&record.to_string());
        text.push('\n');
    }
    text
}

/// An assistant record with this message id (or none) and these content blocks.
fn assistant(id: Option<&str>, content: &Value) -> Value {
    let mut message = json!({"role": "assistant", "type": "message", "content": content});
    if let Some(id) = id {
        message["id"] = json!(id);
    }
    json!({"type": "assistant", "sessionId": "s", "uuid": "u", "message": message})
}

fn tool_use(id: &str, name: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": {}})
}

/// A user record answering `id`, with `is_error` when given.
fn result(id: &str, is_error: Option<bool>) -> Value {
    let mut block = json!({"type": "tool_result", "tool_use_id": id, "content": "r"});
    if let Some(is_error) = is_error {
        block["is_error"] = json!(is_error);
    }
    json!({"type": "user", "message": {"role": "user", "content": [block]}})
}

fn prompt(text: &str) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": text}})
}

fn init(servers: &[&str]) -> Value {
    let servers: Vec<Value> = servers
        .iter()
        .map(|name| json!({"name": name, "status": "connected"}))
        .collect();
    json!({"type": "system", "subtype": "init", "session_id": "s", "tools": [], "mcp_servers": servers})
}

#[rstest]
#[case::summary_first(r#"{"type": "summary", "summary": "s", "leafUuid": "l"}"#)]
#[case::user_first(r#"{"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}, "uuid": "u"}"#)]
#[case::assistant_first(r#"{"type": "assistant", "message": {"id": "m1", "content": []}}"#)]
#[case::init_first(
    r#"{"type": "system", "subtype": "init", "session_id": "s", "mcp_servers": []}"#
)]
#[case::transcript_system_first(
    r#"{"type": "system", "content": "x", "sessionId": "s", "uuid": "u"}"#
)]
#[case::snapshot_first(r#"{"type": "file-history-snapshot", "messageId": "m", "snapshot": {}, "isSnapshotUpdate": false}"#)]
#[case::queue_operation_first(
    r#"{"type": "queue-operation", "operation": "enqueue", "sessionId": "s"}"#
)]
fn detects_a_transcript_by_its_first_line(#[case] first: &str) {
    let text = format!(
        "{first}\n{}",
        lines(&[assistant(Some("m1"), &json!([tool_use("t1", "Read")]))])
    );
    assert_eq!(
        summary(&run(&text, true)),
        expected(&[("Read", 0, false, U)])
    );
}

#[rstest]
#[case::init_first(json!([init(&[]), assistant(Some("m1"), &json!([tool_use("t1", "Read")]))]))]
#[case::assistant_first(json!([assistant(Some("m1"), &json!([tool_use("t1", "Read")]))]))]
#[case::result_first(json!([{"type": "result", "subtype": "success"}, assistant(Some("m1"), &json!([tool_use("t1", "Read")]))]))]
#[case::one_record_document(assistant(Some("m1"), &json!([tool_use("t1", "Read")])))]
fn detects_a_json_document(#[case] document: Value) {
    assert_eq!(
        summary(&run(&document.to_string(), false)),
        expected(&[("Read", 0, false, U)])
    );
}

#[rstest]
#[case::anthropic_messages(r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}]"#, false)]
#[case::anthropic_response(
    r#"{"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}"#,
    false
)]
#[case::anthropic_cassette(r#"[{"request_body": {"messages": []}, "response_body": {"type": "message", "content": [], "stop_reason": "end_turn"}}]"#, false)]
#[case::openai_chat_messages(
    r#"[{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]"#,
    false
)]
#[case::langchain_system_message(r#"[{"type": "system", "data": {"content": "be brief", "type": "system"}}, {"type": "ai", "data": {"content": "", "tool_calls": []}}]"#, false)]
#[case::langchain_human_line(r#"{"type": "human", "data": {"content": "hi"}}"#, true)]
#[case::codex_rollout(
    r#"{"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}"#,
    true
)]
#[case::copilot_event(r#"{"id": "e1", "parentId": null, "timestamp": "t", "type": "user.message", "data": {"content": "hi"}}"#, true)]
#[case::copilot_anthropic_stream(
    r#"{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}"#,
    true
)]
#[case::openai_responses_item(
    r#"{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}"#,
    true
)]
#[case::user_without_message(r#"{"type": "user", "content": "hi"}"#, true)]
#[case::bare_system(r#"{"type": "system"}"#, true)]
#[case::mcp_request(
    r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"}}"#,
    true
)]
#[case::trailgate_events(r#"{"events": [{"type": "tool_call", "toolName": "a"}]}"#, false)]
fn leaves_other_formats_alone(#[case] text: &str, #[case] lines: bool) {
    let format = read(text, lines).map(|(format, _)| format);
    assert!(!matches!(format, Ok("claude-code")), "{format:?}");
}

#[rstest]
#[case::records_sharing_a_message_id_are_one_step(vec![
    prompt("go"),
    assistant(Some("m1"), &json!([{"type": "text", "text": "two reads"}])),
    assistant(Some("m1"), &json!([tool_use("t1", "Read")])),
    assistant(Some("m1"), &json!([tool_use("t2", "Read")])),
    result("t1", Some(false)),
    result("t2", None),
    assistant(Some("m2"), &json!([tool_use("t3", "Edit")])),
], &[("Read", 0, true, O), ("Read", 0, true, O), ("Edit", 1, false, U)])]
#[case::a_message_id_interleaved_with_results_is_still_one_step(vec![
    assistant(Some("m1"), &json!([tool_use("t1", "Read")])),
    result("t1", None),
    assistant(Some("m1"), &json!([tool_use("t2", "Grep")])),
    result("t2", None),
    assistant(Some("m2"), &json!([tool_use("t3", "Edit")])),
], &[("Read", 0, true, O), ("Grep", 0, true, O), ("Edit", 1, false, U)])]
#[case::records_without_ids_are_a_step_each(vec![
    assistant(None, &json!([tool_use("t1", "Read")])),
    assistant(None, &json!([tool_use("t2", "Read")])),
], &[("Read", 0, false, U), ("Read", 1, false, U)])]
#[case::text_only_messages_are_steps(vec![
    assistant(Some("m1"), &json!([{"type": "text", "text": "hello"}])),
    prompt("now read"),
    assistant(Some("m2"), &json!([tool_use("t1", "Read")])),
], &[("Read", 1, false, U)])]
#[case::is_error_true_is_an_error(vec![assistant(Some("m1"), &json!([tool_use("t1", "Bash")])), result("t1", Some(true))], &[("Bash", 0, true, E)])]
#[case::is_error_false_is_ok(vec![assistant(Some("m1"), &json!([tool_use("t1", "Bash")])), result("t1", Some(false))], &[("Bash", 0, true, O)])]
#[case::no_is_error_is_ok(vec![assistant(Some("m1"), &json!([tool_use("t1", "Bash")])), result("t1", None)], &[("Bash", 0, true, O)])]
#[case::mcp_names_split_by_default(vec![assistant(Some("m1"), &json!([tool_use("t1", "mcp__github__get_file_contents"), tool_use("t2", "mcp__plugin_docs_docs__doc_export")]))], &[("github.get_file_contents", 0, false, U), ("plugin_docs_docs.doc_export", 0, false, U)])]
#[case::init_servers_with_double_underscores(vec![
    init(&["my__srv", "my"]),
    assistant(Some("m1"), &json!([tool_use("t1", "mcp__my__srv__list"), tool_use("t2", "mcp__my__get"), tool_use("t3", "mcp__other__x")])),
], &[("my__srv.list", 0, false, U), ("my.get", 0, false, U), ("other.x", 0, false, U)])]
#[case::init_server_names_normalised(vec![
    init(&["a..b"]),
    assistant(Some("m1"), &json!([tool_use("t1", "mcp__a__b__go")])),
], &[("a__b.go", 0, false, U)])]
#[case::without_init_the_first_separator_splits(vec![
    assistant(Some("m1"), &json!([tool_use("t1", "mcp__my__srv__list")])),
], &[("my.srv__list", 0, false, U)])]
#[case::subagent_calls_take_the_task_step(vec![
    assistant(Some("m1"), &json!([tool_use("task1", "Task")])),
    {
        let mut record = assistant(Some("sub1"), &json!([tool_use("t1", "Grep")]));
        record["parent_tool_use_id"] = json!("task1");
        record
    },
    {
        let mut record = result("t1", None);
        record["parent_tool_use_id"] = json!("task1");
        record
    },
    result("task1", None),
    assistant(Some("m2"), &json!([tool_use("t2", "Edit")])),
], &[("Task", 0, true, O), ("Grep", 0, true, O), ("Edit", 1, false, U)])]
#[case::sidechain_calls_take_the_current_step(vec![
    assistant(Some("m1"), &json!([{"type": "text", "text": "start"}])),
    assistant(Some("m2"), &json!([tool_use("task1", "Task")])),
    {
        let mut record = assistant(Some("side1"), &json!([tool_use("t1", "Grep")]));
        record["isSidechain"] = json!(true);
        record
    },
    assistant(Some("m3"), &json!([tool_use("t2", "Edit")])),
], &[("Task", 1, false, U), ("Grep", 1, false, U), ("Edit", 2, false, U)])]
#[case::a_subagent_file_takes_its_own_steps(vec![
    {
        let mut record = prompt("explore");
        record["isSidechain"] = json!(true);
        record
    },
    {
        let mut record = assistant(Some("side1"), &json!([tool_use("t1", "Read")]));
        record["isSidechain"] = json!(true);
        record
    },
    {
        let mut record = assistant(Some("side1"), &json!([tool_use("t2", "Grep")]));
        record["isSidechain"] = json!(true);
        record
    },
    {
        let mut record = assistant(Some("side2"), &json!([tool_use("t3", "Read")]));
        record["isSidechain"] = json!(true);
        record
    },
], &[("Read", 0, false, U), ("Grep", 0, false, U), ("Read", 1, false, U)])]
#[case::parent_null_is_the_main_agent(vec![
    {
        let mut record = assistant(Some("m1"), &json!([tool_use("t1", "Read")]));
        record["parent_tool_use_id"] = Value::Null;
        record
    },
    assistant(Some("m2"), &json!([tool_use("t2", "Read")])),
], &[("Read", 0, false, U), ("Read", 1, false, U)])]
#[case::a_record_written_twice_is_one_call(vec![
    assistant(Some("m1"), &json!([tool_use("t1", "Read")])),
    assistant(Some("m1"), &json!([tool_use("t1", "Read")])),
    result("t1", None),
    result("t1", Some(true)),
], &[("Read", 0, true, O)])]
#[case::ids_as_numbers(vec![
    assistant(Some("m1"), &json!([{"type": "tool_use", "id": 5, "name": "Read", "input": {}}])),
    json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": 5, "content": "r"}]}}),
], &[("Read", 0, true, O)])]
#[case::result_before_call_is_ignored(vec![
    result("t1", Some(true)),
    assistant(Some("m1"), &json!([tool_use("t1", "Read")])),
], &[("Read", 0, false, U)])]
#[case::unknown_records_and_fields_are_skipped(vec![
    json!({"type": "summary", "summary": "s"}),
    json!({"type": "progress", "data": {"type": "tool_use", "name": "x"}}),
    json!({"type": "system", "subtype": "compact_boundary", "content": "c"}),
    json!({"type": "result", "subtype": "success", "result": "done"}),
    json!({"type": "future-thing", "message": {"content": [{"type": "tool_use", "id": "z", "name": "z"}]}}),
    json!({"no_type": true}),
    {
        let mut record = assistant(Some("m1"), &json!([{"type": "future_block"}, tool_use("t1", "Read")]));
        record["costUSD"] = json!(0.1);
        record["message"]["usage"] = json!({"input_tokens": 1});
        record
    },
    json!({"type": "user", "toolUseResult": {"stdout": "x"}, "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r", "extra": 1}]}}),
], &[("Read", 0, true, O)])]
#[case::tool_use_in_a_user_record_is_no_call(vec![
    json!({"type": "user", "message": {"content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}]}}),
], &[])]
fn calls_pairing_status_and_steps(
    #[case] records: Vec<Value>,
    #[case] rows: &[(&str, u32, bool, Status)],
) {
    // The same records as JSON Lines and as a stream-json array.
    let jsonl = lines(&records);
    assert_eq!(summary(&run(&jsonl, true)), expected(rows), "as JSON Lines");
    let array = Value::Array(records).to_string();
    assert_eq!(summary(&run(&array, false)), expected(rows), "as an array");
}

#[rstest]
#[case::object(json!({"file_path": "/a", "limit": 5}), json!({"file_path": "/a", "limit": 5}), None)]
#[case::json_string(json!("{\"file_path\": \"/a\"}"), json!({"file_path": "/a"}), None)]
#[case::invalid_string(json!("{oops"), json!("{oops"), Some("{oops"))]
#[case::missing(Value::Null, json!({}), None)]
fn arguments(#[case] input: Value, #[case] args: Value, #[case] raw: Option<&str>) {
    let mut block = json!({"type": "tool_use", "id": "t1", "name": "Read"});
    if !input.is_null() {
        block["input"] = input;
    }
    let text = lines(&[assistant(Some("m1"), &json!([block]))]);
    let call = &run(&text, true).calls[0];
    assert_eq!(call.args, args);
    assert_eq!(call.args_raw.as_deref(), raw);
}

#[rstest]
#[case::string(json!("done"), Some(json!("done")))]
#[case::text_blocks_joined(json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]), Some(json!("a\nb")))]
#[case::image_kept(json!([{"type": "image", "source": {"type": "base64", "data": "x"}}]), Some(json!([{"type": "image", "source": {"type": "base64", "data": "x"}}])))]
#[case::missing(Value::Null, None)]
fn results(#[case] content: Value, #[case] expected: Option<Value>) {
    let mut block = json!({"type": "tool_result", "tool_use_id": "t1"});
    if !content.is_null() {
        block["content"] = content;
    }
    let text = lines(&[
        assistant(Some("m1"), &json!([tool_use("t1", "Read")])),
        // `toolUseResult` is the tool's structured output; the result is what the model saw.
        json!({"type": "user", "toolUseResult": {"stdout": "structured"}, "message": {"role": "user", "content": [block]}}),
    ]);
    let call = &run(&text, true).calls[0];
    assert!(call.completed);
    assert_eq!(call.result().cloned(), expected);
}

#[test]
fn the_stream_json_sample() {
    let run = run(STREAM_JSON, false);
    assert_eq!(
        summary(&run),
        expected(&[
            ("Read", 0, true, O),
            ("Edit", 1, true, O),
            ("github.add_pull_request_review_comment", 2, true, O),
        ])
    );
    assert_eq!(run.calls[2].args()["pull_number"], json!(123));
    assert_eq!(
        run.calls[2].result().cloned(),
        Some(json!("Successfully posted review comment to PR #123"))
    );
}

#[test]
fn the_session_sample() {
    let run = run(SESSION, true);
    assert_eq!(
        summary(&run),
        expected(&[("Write", 0, true, O), ("Bash", 1, true, O)])
    );
    assert_eq!(
        run.calls[1].args,
        json!({"command": "git add . && git commit -m 'Add hello function'", "description": "Commit changes"})
    );
    assert_eq!(
        run.calls[0].result().cloned(),
        Some(json!("File written successfully"))
    );
}

#[test]
fn naming_none_keeps_the_name_whole() {
    let options = ReadOptions {
        format: None,
        naming: Naming::None,
    };
    let text = lines(&[
        init(&["github"]),
        assistant(
            Some("m1"),
            &json!([tool_use("t1", "mcp__github__get_file_contents")]),
        ),
    ]);
    let (_, runs) = read_with(&text, true, &options).unwrap();
    assert_eq!(runs[0].calls[0].server, None);
    assert_eq!(runs[0].calls[0].name, "mcp__github__get_file_contents");
}

#[rstest]
#[case::line_without_name(lines(&[prompt("go"), assistant(Some("m1"), &json!([{"type": "text", "text": "t"}, {"type": "tool_use", "id": "t1", "input": {}}]))]), true, "`message.content[1]`")]
#[case::name_not_a_string(lines(&[assistant(Some("m1"), &json!([{"type": "tool_use", "id": "t1", "name": ["Read"]}]))]), true, "`message.content[0]`")]
#[case::in_an_array(json!([init(&[]), prompt("go"), assistant(Some("m1"), &json!([{"type": "tool_use", "id": "t1"}]))]).to_string(), false, "`[2].message.content[0]`")]
fn unusable_calls_are_shape_errors(#[case] text: String, #[case] lines: bool, #[case] at: &str) {
    let error = read(&text, lines).unwrap_err();
    let TraceError::Shape { message, .. } = &error else {
        panic!("{error:?}")
    };
    assert!(message.contains(at), "{message}");
}

#[test]
fn a_line_that_is_not_json_is_a_syntax_error() {
    let text = format!("{}{{\"type\": \"user\",\n", lines(&[prompt("go")]));
    assert!(matches!(read(&text, true), Err(TraceError::Syntax { .. })));
}

#[rstest]
#[case::message_not_an_object(r#"{"type": "assistant", "message": "hi"}"#, false)]
#[case::content_not_blocks(r#"{"type": "assistant", "message": {"id": "m", "content": 5}}"#, true)]
#[case::user_message_of_any_type(r#"{"type": "user", "message": [1, 2]}"#, false)]
#[case::init_servers_of_any_type(
    r#"{"type": "system", "subtype": "init", "mcp_servers": [1, null, {"name": 2}, "plain"]}"#,
    true
)]
#[case::init_servers_not_a_list(
    r#"{"type": "system", "subtype": "init", "mcp_servers": {"name": "x"}}"#,
    true
)]
#[case::message_id_of_any_type(r#"{"type": "assistant", "parent_tool_use_id": 3, "isSidechain": "yes", "message": {"id": {"x": 1}, "content": []}}"#, true)]
#[case::scalar("5", false)]
#[case::nested_lists("[[1], [[]]]", false)]
/// A format named by hand reads odd input without a panic: into a run without calls
/// when some record is one of its own, or into the error that says it found none.
fn forced_on_odd_input_reads_no_calls(#[case] text: &str, #[case] recognised: bool) {
    let options = ReadOptions {
        format: Some("claude-code".to_owned()),
        naming: Naming::Default,
    };
    match read_with(text, true, &options) {
        Ok((format, runs)) if recognised => {
            assert_eq!(format, "claude-code");
            assert_eq!(runs.len(), 1);
            assert!(runs[0].calls.is_empty());
        }
        Err(TraceError::NoRecords { format, .. }) if !recognised => {
            assert_eq!(format, "claude-code");
        }
        other => panic!("{other:?}"),
    }
}

/// A subagent's calls carry its type: through `parent_tool_use_id` in stream-json, the
/// `subagent_type` of the `Task` call it names; in a transcript's side chain, that of the
/// last `Task` call; in a subagent's own file, its `agentId`. The main agent's have none.
#[test]
fn a_subagent_s_calls_carry_its_agent() {
    let task = |id: &str, kind: &str| {
        json!({"type": "assistant", "message": {"id": format!("m_{id}"), "content": [
            {"type": "tool_use", "id": id, "name": "Task", "input": {"prompt": "p", "subagent_type": kind}}]}})
    };
    let sub = |parent: &str, id: &str| {
        json!({"type": "assistant", "parent_tool_use_id": parent, "message": {"id": format!("m_{id}"), "content": [
            {"type": "tool_use", "id": id, "name": "Grep", "input": {"pattern": "x"}}]}})
    };
    let stream = Value::Array(vec![
        task("t1", "Explore"),
        task("t2", "code-reviewer"),
        sub("t2", "g1"),
        sub("t1", "g2"),
        sub("unknown", "g3"),
    ])
    .to_string();
    let agents = |run: &Run| -> Vec<Option<String>> {
        run.calls.iter().map(|call| call.agent.clone()).collect()
    };
    assert_eq!(
        agents(&run(&stream, false)),
        [
            None,
            None,
            Some("code-reviewer".to_owned()),
            Some("Explore".to_owned()),
            None
        ]
    );
    let own_file = [
        json!({"type": "user", "isSidechain": true, "agentId": "a2898e3", "message": {"role": "user", "content": "go"}}),
        json!({"type": "assistant", "isSidechain": true, "agentId": "a2898e3", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "a"}}]}}),
    ]
    .map(|record| record.to_string())
    .join("\n");
    assert_eq!(agents(&run(&own_file, true)), [Some("a2898e3".to_owned())]);
}
