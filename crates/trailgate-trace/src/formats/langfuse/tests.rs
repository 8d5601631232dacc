//! Unit tests of the `langfuse` adapter, through the public reader: detection, `TOOL`
//! observations as calls, order and steps by start time, status, and several traces.

use rstest::rstest;
use serde_json::{Value, json};

use crate::formats::testing::{read, summary};
use crate::{Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

/// The export copied into the convert fixture.
const EXPORT: &str = include_str!(
    "../../../../../fixtures/format-langfuse-pydantic-ai/langfuse__pydantic-ai-tools-2025-12-04.json"
);

fn rows(rows: &[(&str, u32, bool, Status)]) -> Vec<(String, u32, bool, Status)> {
    rows.iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect()
}

#[track_caller]
fn runs(text: &str) -> Vec<Run> {
    let (format, runs) = read(text, false).unwrap();
    assert_eq!(format, "langfuse");
    runs
}

#[test]
fn reads_a_pydantic_ai_export() {
    let runs = runs(EXPORT);
    assert_eq!(runs.len(), 1);
    assert_eq!(
        summary(&runs[0]),
        rows(&[
            ("get_pun_suggestion", 0, true, O),
            ("get_dad_joke_suggestion", 0, true, O),
            ("get_one_liner_suggestion", 0, true, O),
        ])
    );
    assert_eq!(runs[0].calls[0].args(), &json!({"topic": "programming"}));
}

fn observation(kind: &str, name: &str, start: &str, extra: &Value) -> Value {
    let mut observation =
        json!({"id": name, "traceId": "t", "type": kind, "name": name, "startTime": start});
    if let (Value::Object(map), Value::Object(more)) = (&mut observation, extra) {
        map.extend(more.clone());
    }
    observation
}

#[rstest]
#[case::steps_follow_generations_by_start_time(vec![
    observation("TOOL", "second", "2025-01-01T00:00:03Z", &json!({"output": "r", "endTime": "x"})),
    observation("GENERATION", "g1", "2025-01-01T00:00:01Z", &json!({})),
    observation("TOOL", "first", "2025-01-01T00:00:01.5Z", &json!({"output": "r"})),
    observation("GENERATION", "g2", "2025-01-01T00:00:02Z", &json!({})),
], &[("first", 0, true, O), ("second", 1, true, O)])]
#[case::error_level(vec![
    observation("TOOL", "t", "2025-01-01T00:00:01Z", &json!({"level": "ERROR", "statusMessage": "boom"})),
], &[("t", 0, true, E)])]
#[case::not_ended(vec![
    observation("TOOL", "t", "2025-01-01T00:00:01Z", &json!({"endTime": null})),
], &[("t", 0, false, U)])]
#[case::name_from_attributes_and_server(vec![
    observation("TOOL", "running tool: x", "2025-01-01T00:00:01Z", &json!({"metadata": {"attributes": {"gen_ai.tool.name": "search", "mcp.server.name": "brave"}}})),
], &[("brave.search", 0, false, U)])]
#[case::spans_are_no_calls(vec![
    observation("SPAN", "agent run", "2025-01-01T00:00:01Z", &json!({})),
    observation("EVENT", "e", "2025-01-01T00:00:01Z", &json!({})),
], &[])]
fn tool_observations(
    #[case] observations: Vec<Value>,
    #[case] expected: &[(&str, u32, bool, Status)],
) {
    let text = json!({"trace": {"id": "t"}, "observations": observations}).to_string();
    let runs = runs(&text);
    assert_eq!(summary(&runs[0]), rows(expected));
}

#[test]
fn a_list_of_exports_is_a_run_each() {
    let one = json!({"trace": {"id": "a"}, "observations": [observation("TOOL", "x", "2025-01-01T00:00:01Z", &json!({}))]});
    let runs = runs(&json!([one, one]).to_string());
    assert_eq!(runs.len(), 2);
}

#[rstest]
#[case::export(json!({"trace": {"id": "t"}, "observations": []}), true)]
#[case::trace_with_observations(json!({"id": "t", "observations": [{"type": "SPAN", "traceId": "t"}]}), true)]
#[case::ids_only(json!({"id": "t", "observations": ["o1", "o2"]}), false)]
fn detection(#[case] document: Value, #[case] detected: bool) {
    let format = read(&document.to_string(), false).map(|(format, _)| format);
    assert_eq!(format.ok() == Some("langfuse"), detected);
}

#[test]
fn a_tool_without_a_name_is_an_error() {
    let text = json!({"trace": {}, "observations": [{"type": "TOOL", "traceId": "t", "name": ""}]});
    let error = read(&text.to_string(), false).unwrap_err();
    assert!(matches!(error, TraceError::Shape { .. }), "{error:?}");
}

/// Each `TOOL` observation's agent is the `gen_ai.agent.name` of its nearest ancestor
/// observation that has one: pydantic-ai's `joke_agent run` span, two levels up.
#[test]
fn a_tool_s_agent_is_its_nearest_agent_observation_s() {
    let runs = runs(EXPORT);
    let agents: Vec<Option<&str>> = runs[0].calls.iter().map(|c| c.agent.as_deref()).collect();
    assert_eq!(agents, [Some("joke_agent"); 3]);
}
