//! Unit tests of the `codex-exec` adapter, through the public reader: detection, items as
//! calls, status, steps by turn, usage, and malformed items.

use rstest::rstest;
use serde_json::{Value, json};

use crate::formats::testing::{assert_bad_count, read, summary, usage};
use crate::{Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

const EXAMPLE: &str =
    include_str!("../../../../../fixtures/format-codex-exec-json/codex-exec.jsonl");

#[track_caller]
fn run(text: &str) -> Run {
    let (format, mut runs) = read(text, true).unwrap();
    assert_eq!(format, "codex-exec");
    assert_eq!(runs.len(), 1);
    runs.remove(0)
}

fn lines(events: &[Value]) -> String {
    let mut text = String::new();
    for event in events {
        text.push_str(&event.to_string());
        text.push('\n');
    }
    text
}

fn rows(rows: &[(&str, u32, bool, Status)]) -> Vec<(String, u32, bool, Status)> {
    rows.iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect()
}

#[test]
fn reads_the_example() {
    let run = run(EXAMPLE);
    assert_eq!(
        summary(&run),
        rows(&[
            ("command_execution", 0, true, O),
            ("github.list_issues", 0, true, O),
            ("command_execution", 1, true, E),
            ("file_change", 1, true, O),
            ("github.create_issue", 1, true, E),
        ])
    );
    assert_eq!(run.calls[0].args(), &json!({"command": "bash -lc ls"}));
    assert_eq!(run.calls[0].result(), Some(&json!("Cargo.toml\nsrc\n")));
    assert_eq!(
        run.calls[1].result(),
        Some(&json!("#22 Read what real agents write"))
    );
    assert_eq!(
        run.calls[4].result(),
        Some(&json!("user cancelled MCP tool call"))
    );
}

fn item(event: &str, item: &Value) -> Value {
    json!({"type": event, "item": item})
}

#[rstest]
#[case::started_only(vec![
    item("item.started", &json!({"id": "a", "type": "command_execution", "command": "ls", "status": "in_progress"})),
], &[("command_execution", 0, false, U)])]
#[case::completed_with_a_non_zero_exit(vec![
    item("item.completed", &json!({"id": "a", "type": "command_execution", "command": "ls", "aggregated_output": "", "exit_code": 1, "status": "completed"})),
], &[("command_execution", 0, true, E)])]
#[case::declined(vec![
    item("item.completed", &json!({"id": "a", "type": "command_execution", "command": "rm -rf /", "status": "declined"})),
], &[("command_execution", 0, true, E)])]
#[case::web_search_has_no_status(vec![
    item("item.completed", &json!({"id": "a", "type": "web_search", "query": "rust"})),
], &[("web_search", 0, true, U)])]
#[case::structured_content_wins(vec![
    item("item.completed", &json!({"id": "a", "type": "mcp_tool_call", "server": "s", "tool": "t", "arguments": {}, "result": {"content": [], "structured_content": {"n": 1}}, "status": "completed"})),
], &[("s.t", 0, true, O)])]
#[case::other_items_are_no_calls(vec![
    item("item.completed", &json!({"id": "a", "type": "agent_message", "text": "hi"})),
    item("item.updated", &json!({"id": "b", "type": "todo_list", "items": []})),
    item("item.completed", &json!({"id": "c", "type": "error", "message": "x"})),
], &[])]
#[case::steps_are_turns(vec![
    json!({"type": "turn.started"}),
    item("item.completed", &json!({"id": "a", "type": "web_search", "query": "1"})),
    json!({"type": "turn.started"}),
    json!({"type": "turn.started"}),
    item("item.completed", &json!({"id": "b", "type": "web_search", "query": "2"})),
], &[("web_search", 0, true, U), ("web_search", 2, true, U)])]
fn items(#[case] events: Vec<Value>, #[case] expected: &[(&str, u32, bool, Status)]) {
    let mut all = vec![json!({"type": "thread.started", "thread_id": "t"})];
    all.extend(events);
    assert_eq!(summary(&run(&lines(&all))), rows(expected));
}

#[rstest]
#[case::thread_started(json!({"type": "thread.started", "thread_id": "t"}), true)]
#[case::turn_started(json!({"type": "turn.started"}), true)]
#[case::item(item("item.completed", &json!({"id": "item_0", "type": "agent_message", "text": "hi"})), true)]
#[case::copilot_event(json!({"type": "assistant.message", "data": {}}), false)]
#[case::claude_code_record(json!({"type": "user", "message": {"role": "user", "content": "hi"}}), false)]
fn detection(#[case] first: Value, #[case] detected: bool) {
    let format = read(&format!("{first}\n"), true).map(|(format, _)| format);
    assert_eq!(format.ok() == Some("codex-exec"), detected);
}

#[rstest]
#[case::item_without_id(item("item.completed", &json!({"type": "command_execution", "command": "ls"})))]
#[case::mcp_call_without_tool(item("item.completed", &json!({"id": "a", "type": "mcp_tool_call", "server": "s"})))]
fn unusable_items_are_errors(#[case] event: Value) {
    let text = lines(&[json!({"type": "thread.started", "thread_id": "t"}), event]);
    let error = read(&text, true).unwrap_err();
    assert!(matches!(error, TraceError::Shape { .. }), "{error:?}");
}

#[test]
fn usage_is_the_last_turns_running_total() {
    let events = [
        json!({"type": "thread.started", "thread_id": "t"}),
        json!({"type": "turn.started"}),
        json!({"type": "turn.completed", "usage": {"input_tokens": 100, "cached_input_tokens": 0, "output_tokens": 7}}),
        json!({"type": "turn.started"}),
        json!({"type": "turn.failed", "error": {"message": "stream disconnected"}}),
        json!({"type": "turn.started"}),
        json!({"type": "turn.completed", "usage": {"input_tokens": 250, "cached_input_tokens": 96, "output_tokens": 20}}),
    ];
    let run = run(&lines(&events));
    // The second total holds the first: 250 in all, not 350. The events name no model.
    assert_eq!(usage(&run), [(String::new(), 250, 20, Some(96))]);
    assert_eq!(run.time, None);
}

#[test]
fn no_turn_completed_is_no_usage() {
    let events = [
        json!({"type": "thread.started", "thread_id": "t"}),
        json!({"type": "turn.started"}),
    ];
    assert!(run(&lines(&events)).usage.models.is_empty());
}

#[rstest]
#[case::negative("input_tokens", "-1")]
#[case::fraction("cached_input_tokens", "1.5")]
#[case::past_64_bits("output_tokens", "18446744073709551616")]
fn a_bad_token_count_is_an_error(#[case] key: &str, #[case] count: &str) {
    let mut usage = json!({"input_tokens": 1, "cached_input_tokens": 0, "output_tokens": 1});
    usage[key] = serde_json::from_str(count).unwrap();
    let events = [
        json!({"type": "turn.started"}),
        json!({"type": "turn.completed", "usage": usage}),
    ];
    assert_bad_count(&lines(&events), true, key, count);
}
