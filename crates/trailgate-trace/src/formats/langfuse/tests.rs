//! Unit tests of the `langfuse` adapter, through the public reader: detection, `TOOL`
//! observations as calls, order and steps by start time, status, and several traces; the
//! usage and times of an observations export's rows.

use rstest::rstest;
use serde_json::{Value, json};

use crate::formats::testing::{assert_bad_count, ns, read, summary, usage};
use crate::{Interval, Run, Status, TraceError};

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

/// A row of the blob storage export (snake case) with `fields` added.
fn row(trace: &str, kind: &str, start: &str, fields: &Value) -> String {
    let mut row = json!({"trace_id": trace, "type": kind, "name": kind, "start_time": start});
    if let (Value::Object(map), Value::Object(more)) = (&mut row, fields) {
        map.extend(more.clone());
    }
    row.to_string()
}

#[test]
fn an_observations_export_sums_each_trace_s_generations_per_model_and_spans_its_rows() {
    let text = [
        row("a", "SPAN", "2025-01-01 00:00:00.000000", &json!({"end_time": "2025-01-01 00:00:09.000000"})),
        row("a", "GENERATION", "2025-01-01 00:00:01.000000", &json!({"end_time": "2025-01-01 00:00:02.000000", "provided_model_name": "gpt-4o",
            "usage_details": {"input": 100, "input_cached_tokens": 40, "output": 10, "total": 150, "reasoning_tokens": 7}})),
        row("a", "TOOL", "2025-01-01 00:00:03.000000", &json!({"end_time": "2025-01-01 00:00:04.000000", "output": "r"})),
        row("a", "GENERATION", "2025-01-01 00:00:05.000000", &json!({"provided_model_name": "gpt-4o",
            "usage_details": {"input": 200, "output": 20, "input_cache_creation": 5}})),
        // The API's rows: camel case, `model`; an empty provided model name is none.
        json!({"traceId": "a", "type": "GENERATION", "startTime": "2025-01-01T00:00:06Z", "endTime": "2025-01-01T00:00:10Z",
            "providedModelName": "", "model": "claude-sonnet-4-0", "usageDetails": {"input": 50, "output": 5}}).to_string(),
        // Without usage details, the older `usage`; a model row with neither adds nothing.
        row("a", "GENERATION", "2025-01-01 00:00:07.000000", &json!({"model": "gpt-4o-mini", "usage": {"input": 3, "output": 1}})),
        row("a", "GENERATION", "2025-01-01 00:00:08.000000", &json!({"provided_model_name": "gpt-4o", "usage_details": {"total": 99}})),
        // Usage on a row that is not a generation is not read.
        row("a", "SPAN", "2025-01-01 00:00:08.500000", &json!({"usage_details": {"input": 1000}})),
        row("b", "GENERATION", "2025-01-01 00:01:00.000000", &json!({"usage_details": {"input": 1, "output": 2}})),
    ]
    .join("\n");
    let (format, runs) = read(&text, true).unwrap();
    assert_eq!(format, "langfuse");
    assert_eq!(
        usage(&runs[0]),
        [
            ("claude-sonnet-4-0".to_owned(), 50, 5, None),
            ("gpt-4o".to_owned(), 345, 30, Some(40)),
            ("gpt-4o-mini".to_owned(), 3, 1, None),
        ]
    );
    assert_eq!(
        runs[0].time,
        Some(Interval {
            start_ns: ns("2025-01-01T00:00:00Z"),
            end_ns: ns("2025-01-01T00:00:10Z")
        })
    );
    assert_eq!(summary(&runs[0]), rows(&[("TOOL", 0, true, O)]));
    // A generation naming no model counts under "".
    assert_eq!(usage(&runs[1]), [(String::new(), 1, 2, None)]);
    let at = ns("2025-01-01T00:01:00Z");
    assert_eq!(
        runs[1].time,
        Some(Interval {
            start_ns: at,
            end_ns: at
        })
    );
}

#[rstest]
#[case::negative("input", "-1")]
#[case::fraction("output_audio", "1.5")]
#[case::past_64_bits("input_cached_tokens", "18446744073709551616")]
fn a_bad_usage_detail_is_an_error(#[case] key: &str, #[case] count: &str) {
    let mut details = json!({"input": 1, "output": 1});
    details[key] = serde_json::from_str(count).unwrap();
    let text = row(
        "a",
        "GENERATION",
        "2025-01-01 00:00:00.000000",
        &json!({"usage_details": details}),
    );
    assert_bad_count(&text, true, key, count);
}
