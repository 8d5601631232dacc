//! Unit tests of the `adk` adapter, through the public reader.

use crate::formats::testing;
use crate::formats::testing::ns;
use rstest::rstest;
use serde_json::{Value, json};

use super::Adk;
use crate::formats::Adapter;
use crate::{Interval, Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

fn read_with(text: &str, lines: bool) -> Result<Vec<Run>, TraceError> {
    testing::read(text, lines).map(|(_, runs)| runs)
}

fn read(text: &str, lines: bool) -> Vec<Run> {
    let runs = read_with(text, lines).unwrap();
    assert!(runs.iter().all(|run| run.format == "adk"));
    runs
}

type Row = (&'static str, u32, bool, Status);

/// `(name, step, completed, status)` of each call of each run.
fn summary(runs: &[Run]) -> Vec<Vec<(String, u32, bool, Status)>> {
    runs.iter()
        .map(|run| {
            run.calls
                .iter()
                .map(|c| (c.name.clone(), c.step, c.completed, c.status))
                .collect()
        })
        .collect()
}

#[track_caller]
fn check(text: &str, lines: bool, expected: &[Vec<Row>]) {
    let expected: Vec<Vec<_>> = expected
        .iter()
        .map(|run| {
            run.iter()
                .map(|(name, step, done, status)| ((*name).to_owned(), *step, *done, *status))
                .collect()
        })
        .collect();
    assert_eq!(summary(&read(text, lines)), expected);
}

/// An event with `parts`, in the `snake_case` of the sample.
fn event(author: &str, parts: &str) -> String {
    format!(
        r#"{{"invocation_id": "i1", "author": "{author}", "id": "e", "timestamp": 1.0, "content": {{"role": "model", "parts": [{parts}]}}}}"#
    )
}

fn call(name: &str) -> String {
    format!(r#"{{"function_call": {{"name": "{name}", "args": {{"n": "{name}"}}}}}}"#)
}

fn response(name: &str, body: &str) -> String {
    format!(r#"{{"function_response": {{"name": "{name}", "response": {body}}}}}"#)
}

fn session(events: &[String]) -> String {
    format!(
        r#"{{"id": "s", "events": [{}], "state": {{}}}}"#,
        events.join(", ")
    )
}

#[rstest]
#[case::session(r#"{"id": "s", "events": [{"author": "user", "invocation_id": "i", "content": {"parts": [{"text": "hi"}]}}]}"#)]
#[case::camel_case_session(
    r#"{"id": "s", "appName": "a", "events": [{"author": "user", "invocationId": "i"}]}"#
)]
#[case::event(r#"{"author": "agent", "invocationId": "i", "content": {"parts": []}}"#)]
#[case::list_of_events(r#"[{"author": "agent", "invocation_id": "i"}]"#)]
#[case::eval_set(r#"{"eval_set_id": "s", "eval_cases": []}"#)]
#[case::camel_case_eval_set(r#"{"evalSetId": "s", "evalCases": []}"#)]
#[case::eval_case(r#"{"eval_id": "c", "conversation": []}"#)]
#[case::list_of_eval_cases(r#"[{"evalId": "c", "conversation": null}]"#)]
#[case::old_test_file(r#"[{"query": "hi", "expected_tool_use": [], "reference": "x"}]"#)]
fn detects(#[case] text: &str) {
    let value: Value = serde_json::from_str(text).unwrap();
    assert!(Adk.detect(&value), "{text}");
}

#[rstest]
#[case::gemini_response(r#"{"candidates": [{"content": {"role": "model", "parts": []}}]}"#)]
#[case::gemini_request(r#"{"contents": [{"role": "user", "parts": [{"text": "x"}]}]}"#)]
#[case::gemini_recorded(r#"{"method": "generateContent", "response": {}}"#)]
#[case::native_events(r#"{"events": [{"type": "tool_call", "toolName": "x"}]}"#)]
#[case::copilot_event(r#"{"type": "tool.execution_start", "data": {"toolCallId": "1"}}"#)]
#[case::langchain(r#"[{"type": "human", "data": {"content": "x"}}]"#)]
#[case::openai_messages(r#"[{"role": "user", "content": "hi"}]"#)]
#[case::atif(r#"{"schema_version": "ATIF-v1.4", "steps": []}"#)]
#[case::events_of_something_else(r#"{"events": [{"name": "x"}]}"#)]
#[case::author_without_invocation(r#"{"author": "a", "content": {}}"#)]
fn does_not_detect(#[case] text: &str) {
    let value: Value = serde_json::from_str(text).unwrap();
    assert!(!Adk.detect(&value), "{text}");
}

#[rstest]
// The sample's shape: a call in one event, its response in the next, twice.
#[case::session_steps_are_events_with_calls(
    &session(&[
        r#"{"invocation_id": "i", "author": "user", "content": {"role": "user", "parts": [{"text": "go"}]}}"#.to_owned(),
        event("root", &call("a")),
        event("root", &response("a", r#"{"status": "ok"}"#)),
        event("sub", r#"{"text": "thinking"}"#),
        event("root", &format!("{}, {}", call("b"), call("c"))),
        event("root", &format!("{}, {}", response("c", r#"{"error": "no"}"#), response("b", r#"{"result": 1}"#))),
    ]),
    false,
    vec![vec![("a", 0, true, O), ("b", 1, true, O), ("c", 1, true, E)]],
)]
#[case::events_one_per_line(
    &[event("root", &call("a")), event("root", &response("a", "{}")), event("root", &call("b"))].join("\n"),
    true,
    vec![vec![("a", 0, true, O), ("b", 1, false, U)]],
)]
#[case::list_of_events(
    &format!("[{}, {}]", event("root", &call("a")), event("root", &response("a", r#"{"isError": true, "content": []}"#))),
    false,
    vec![vec![("a", 0, true, E)]],
)]
#[case::camel_case_with_ids(
    r#"{"events": [
        {"invocationId": "i", "author": "root", "content": {"role": "model", "parts": [{"functionCall": {"id": "adk-1", "name": "a"}}, {"functionCall": {"id": "adk-2", "name": "a"}}]}},
        {"invocationId": "i", "author": "root", "content": {"role": "user", "parts": [{"functionResponse": {"id": "adk-2", "name": "a", "response": {}}}]}}
    ]}"#,
    false,
    vec![vec![("a", 0, false, U), ("a", 0, true, O)]],
)]
#[case::partial_events_are_skipped(
    &session(&[
        r#"{"invocation_id": "i", "author": "root", "partial": true, "content": {"parts": [{"function_call": {"name": "a"}}]}}"#.to_owned(),
        event("root", &call("a")),
    ]),
    false,
    vec![vec![("a", 0, false, U)]],
)]
#[case::results_before_calls_and_unpaired_results_are_ignored(
    &session(&[event("root", &response("a", "{}")), event("root", &call("a")), event("root", &response("z", "{}"))]),
    false,
    vec![vec![("a", 0, false, U)]],
)]
#[case::events_without_content_and_unknown_fields(
    &session(&[
        r#"{"invocation_id": "i", "author": "root", "actions": {"transfer_to_agent": "x"}}"#.to_owned(),
        r#"{"invocation_id": "i", "author": "root", "content": null, "future": 1}"#.to_owned(),
        r#"{"invocation_id": "i", "author": "root", "content": {"parts": [{"function_call": {"name": "a", "extra": true}, "thought_signature": "x"}]}}"#.to_owned(),
    ]),
    false,
    vec![vec![("a", 0, false, U)]],
)]
// (An empty `events` list is trailgate's own event trajectory, read before this format.)
#[case::session_without_calls_is_one_run(
    r#"{"id": "s", "events": [{"author": "user", "invocation_id": "i", "content": {"parts": [{"text": "hi"}]}}]}"#,
    false,
    vec![vec![]],
)]
// The sample's shape: each eval case is a run, each turn's `tool_uses` one step, and
// without `tool_responses` nothing is completed.
#[case::eval_set_runs_are_cases(
    r#"{"eval_set_id": "s", "eval_cases": [
        {"eval_id": "c1", "conversation": [
            {"invocation_id": "i1", "intermediate_data": {"tool_uses": [{"id": null, "name": "a", "args": {}}, {"name": "b", "args": {}}], "intermediate_responses": []}},
            {"invocation_id": "i2", "intermediate_data": {"tool_uses": []}},
            {"invocation_id": "i3", "intermediate_data": {"tool_uses": [{"name": "c"}]}}
        ]},
        {"eval_id": "c2", "conversation": null}
    ]}"#,
    false,
    vec![vec![("a", 0, false, U), ("b", 0, false, U), ("c", 1, false, U)], vec![]],
)]
#[case::eval_tool_responses_pair(
    r#"{"evalSetId": "s", "evalCases": [{"evalId": "c", "conversation": [
        {"invocationId": "i", "intermediateData": {"toolUses": [{"id": "1", "name": "a"}, {"name": "b"}], "toolResponses": [{"id": "1", "name": "a", "response": {"error": "x"}}, {"name": "b", "response": {"result": 2}}]}}
    ]}]}"#,
    false,
    vec![vec![("a", 0, true, E), ("b", 0, true, O)]],
)]
#[case::eval_invocation_events(
    r#"{"eval_id": "c", "conversation": [{"intermediate_data": {"invocation_events": [
        {"author": "root", "content": {"parts": [{"function_call": {"name": "a"}}]}},
        {"author": "root", "content": {"parts": [{"function_response": {"name": "a", "response": {}}}]}},
        {"author": "root", "content": {"parts": [{"function_call": {"name": "b"}}]}}
    ]}}]}"#,
    false,
    vec![vec![("a", 0, true, O), ("b", 1, false, U)]],
)]
#[case::eval_sets_one_per_line(
    "{\"eval_set_id\": \"s1\", \"eval_cases\": [{\"eval_id\": \"c\", \"conversation\": [{\"intermediate_data\": {\"tool_uses\": [{\"name\": \"a\"}]}}]}]}\n{\"eval_set_id\": \"s2\", \"eval_cases\": [{\"eval_id\": \"c\", \"conversation\": [{\"intermediate_data\": {\"tool_uses\": [{\"name\": \"b\"}]}}]}]}",
    true,
    vec![vec![("a", 0, false, U)], vec![("b", 0, false, U)]],
)]
#[case::old_test_file(
    r#"[{"query": "q1", "expected_tool_use": [{"tool_name": "a", "tool_input": {"x": 1}}]}, {"query": "q2", "expected_tool_use": []}, {"query": "q3", "expected_tool_use": [{"tool_name": "b", "tool_input": {}}, {"tool_name": "c"}]}]"#,
    false,
    vec![vec![("a", 0, false, U), ("b", 1, false, U), ("c", 1, false, U)]],
)]
fn calls(#[case] text: &str, #[case] lines: bool, #[case] expected: Vec<Vec<Row>>) {
    check(text, lines, &expected);
}

#[test]
fn args_and_results() {
    let runs = read(
        &session(&[
            event(
                "root",
                r#"{"function_call": {"name": "a", "args": {"q": 1}}}, {"function_call": {"name": "b", "args": "{\"q\": 2}"}}, {"function_call": {"name": "c", "args": "{oops"}}"#,
            ),
            event("root", &response("a", r#"{"status": "ok", "n": 3}"#)),
        ]),
        false,
    );
    let calls = &runs[0].calls;
    assert_eq!(calls[0].args, json!({"q": 1}));
    assert_eq!(
        calls[0].result().cloned(),
        Some(json!({"status": "ok", "n": 3}))
    );
    assert_eq!(calls[1].args, json!({"q": 2}));
    assert_eq!(calls[2].args, json!("{oops"));
    assert_eq!(calls[2].args_raw.as_deref(), Some("{oops"));
    assert_eq!(calls[2].server, None);
}

#[rstest]
#[case::event_call_without_name(&session(&[event("root", r#"{"function_call": {"args": {}}}"#)]), "events[0].content.parts[0]")]
#[case::tool_use_without_name(r#"{"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [{"intermediate_data": {"tool_uses": [{"args": {}}]}}]}]}"#, "eval_cases[0].conversation[0].intermediate_data.tool_uses[0]")]
#[case::camel_case_path(r#"{"evalCases": [{"evalId": "c", "conversation": [{"intermediateData": {"toolUses": [{"name": null}]}}]}]}"#, "evalCases[0].conversation[0].intermediateData.toolUses[0]")]
#[case::old_test_without_tool_name(
    r#"[{"query": "q", "expected_tool_use": [{"tool_input": {}}]}]"#,
    "[0].expected_tool_use[0]"
)]
fn unusable_records_are_errors(#[case] text: &str, #[case] path: &str) {
    match read_with(text, false) {
        Err(TraceError::Shape { message, .. }) => assert!(message.contains(path), "{message}"),
        other => panic!("expected a shape error, got {other:?}"),
    }
}

#[rstest]
#[case::not_json(r#"{"events": [}"#, false)]
#[case::later_line_not_json("{\"author\": \"a\", \"invocation_id\": \"i\"}\n[", true)]
fn malformed_json_is_an_error(#[case] text: &str, #[case] lines: bool) {
    assert!(matches!(
        read_with(text, lines),
        Err(TraceError::Syntax { .. })
    ));
}

#[rstest]
#[case::events_of_scalars(
    r#"{"events": [{"author": "a", "invocation_id": "i"}, 1, "x", null]}"#,
    1
)]
#[case::parts_not_a_list(r#"{"events": [{"author": "a", "invocation_id": "i", "content": {"parts": {"function_call": {}}}}]}"#, 1)]
#[case::tool_uses_not_a_list(r#"{"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [{"intermediate_data": {"tool_uses": "x", "tool_responses": 3}}, 5]}, 2]}"#, 2)]
fn odd_shapes_never_panic(#[case] text: &str, #[case] runs: usize) {
    let read = read_with(text, false).unwrap();
    assert_eq!(read.len(), runs);
    assert!(read.iter().all(|run| run.calls.is_empty()));
}

const SPARK: &str = include_str!(
    "../../../../../fixtures/format-adk-flow-complex-spark/adk-python__flow_complex_spark__sample.session.json"
);

#[test]
fn a_call_spans_its_call_and_response_events() {
    let runs = read(SPARK, false);
    // `function_call` at 1734292272.522898, its `function_response` at 1734292272.524573.
    assert_eq!(
        runs[0].calls[0].time,
        Some(Interval {
            start_ns: ns("2024-12-15T19:51:12.522898Z"),
            end_ns: ns("2024-12-15T19:51:12.524573Z")
        })
    );
}

#[test]
fn a_call_without_a_timed_response_has_no_time() {
    let text = session(&[event("a", &call("f"))]);
    let runs = read(&text, false);
    assert_eq!(runs[0].calls[0].time, None);
}
