//! Unit tests of the `openhands` adapter, through the public reader: actions with tool call
//! metadata as calls, pairing by cause and by call id, status, steps by model response,
//! usage and times.

use rstest::rstest;
use serde_json::{Value, json};

use crate::formats::testing::{assert_bad_count, ns, read, summary, usage};
use crate::{Interval, Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

/// The events copied into the convert fixture.
const EVENTS: &str = include_str!(
    "../../../../../fixtures/format-openhands-events/harbor-rfc__openhands_trajectory.json"
);

#[track_caller]
fn run(text: &str, lines: bool) -> Run {
    let (format, mut runs) = read(text, lines).unwrap();
    assert_eq!(format, "openhands");
    assert_eq!(runs.len(), 1);
    runs.remove(0)
}

fn rows(rows: &[(&str, u32, bool, Status)]) -> Vec<(String, u32, bool, Status)> {
    rows.iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect()
}

#[test]
fn reads_a_real_event_stream() {
    let run = run(EVENTS, false);
    assert_eq!(
        summary(&run),
        rows(&[("execute_bash", 0, true, O), ("finish", 1, false, U)])
    );
    assert_eq!(run.calls[0].args()["timeout"], json!(120));
}

fn action(id: u32, name: &str, call: &str, response: &str) -> Value {
    json!({"id": id, "source": "agent", "action": "run", "args": {"command": name},
           "tool_call_metadata": {"function_name": name, "tool_call_id": call,
                                  "model_response": {"id": response, "choices": []}}})
}

fn observation(id: u32, cause: Option<u32>, extra: &Value) -> Value {
    let mut event = json!({"id": id, "source": "agent", "observation": "run", "content": "out"});
    if let Some(cause) = cause {
        event["cause"] = json!(cause);
    }
    if let (Value::Object(map), Value::Object(more)) = (&mut event, extra) {
        map.extend(more.clone());
    }
    event
}

#[rstest]
#[case::parallel_calls_share_a_step(vec![
    action(1, "a", "c1", "r1"),
    action(2, "b", "c2", "r1"),
    action(3, "c", "c3", "r2"),
], &[("a", 0, false, U), ("b", 0, false, U), ("c", 1, false, U)])]
#[case::status_from_exit_code(vec![
    action(1, "a", "c1", "r1"),
    observation(2, Some(1), &json!({"extras": {"metadata": {"exit_code": 2}}})),
], &[("a", 0, true, E)])]
#[case::error_observation(vec![
    action(1, "a", "c1", "r1"),
    {
        let mut event = observation(2, Some(1), &json!({}));
        event["observation"] = json!("error");
        event
    },
], &[("a", 0, true, E)])]
#[case::paired_by_call_id_without_cause(vec![
    action(1, "a", "c1", "r1"),
    observation(2, None, &json!({"success": true, "tool_call_metadata": {"function_name": "a", "tool_call_id": "c1"}})),
], &[("a", 0, true, O)])]
#[case::actions_without_metadata_are_no_calls(vec![
    json!({"id": 1, "source": "user", "action": "message", "args": {"content": "hi"}}),
    observation(2, Some(1), &json!({})),
], &[])]
fn event_streams(#[case] events: Vec<Value>, #[case] expected: &[(&str, u32, bool, Status)]) {
    assert_eq!(
        summary(&run(&Value::Array(events.clone()).to_string(), false)),
        rows(expected)
    );
    let mut lines = String::new();
    for event in &events {
        lines.push_str(&event.to_string());
        lines.push('\n');
    }
    assert_eq!(
        summary(&run(&lines, true)),
        rows(expected),
        "one event per line"
    );
}

#[test]
fn metadata_without_a_function_name_is_an_error() {
    let text = json!([{"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "c"}}]);
    let error = read(&text.to_string(), false).unwrap_err();
    assert!(matches!(error, TraceError::Shape { .. }), "{error:?}");
}

#[test]
fn usage_and_times_of_a_real_event_stream() {
    let run = run(EVENTS, false);
    // Two responses, 5863 + 5996 prompt tokens (5632 cached) and 1042 + 44 completion
    // tokens: the running total of the last `llm_metrics`, nothing beyond.
    assert_eq!(
        usage(&run),
        [("gpt-5-2025-08-07".to_owned(), 11_859, 1086, Some(5632))]
    );
    // Times without an offset, read as UTC.
    assert_eq!(
        run.time,
        Some(Interval {
            start_ns: ns("2025-10-10T06:10:15.15809Z"),
            end_ns: ns("2025-10-10T06:10:41.015583Z")
        })
    );
    assert_eq!(
        run.calls[0].time,
        Some(Interval {
            start_ns: ns("2025-10-10T06:10:38.391633Z"),
            end_ns: ns("2025-10-10T06:10:39.080817Z")
        })
    );
    // `finish` got no observation: no duration.
    assert_eq!(run.calls[1].time, None);
}

fn timed_action(id: u64, response: &Value, metrics: &Value) -> Value {
    json!({"id": id, "source": "agent", "action": "run", "timestamp": "2025-01-01T00:00:00", "args": {}, "llm_metrics": metrics,
        "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": format!("c{id}"), "model_response": response}})
}

fn total(prompt: u64, completion: u64) -> Value {
    json!({"accumulated_token_usage": {"model": "default", "prompt_tokens": prompt, "completion_tokens": completion, "cache_read_tokens": 0}})
}

#[rstest]
#[case::a_response_counts_once(vec![
    timed_action(1, &json!({"id": "r1", "model": "m", "usage": {"prompt_tokens": 10, "completion_tokens": 2}}), &total(10, 2)),
    json!({"id": 2, "source": "agent", "observation": "run", "cause": 1, "content": "ok",
        "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "c1", "model_response": {"id": "r1", "model": "m", "usage": {"prompt_tokens": 10, "completion_tokens": 2}}}}),
], &[("m", 10, 2, None)])]
#[case::responses_without_calls_from_the_running_total(vec![
    timed_action(1, &json!({"id": "r1", "model": "m", "usage": {"prompt_tokens": 10, "completion_tokens": 2}}), &total(10, 2)),
    json!({"id": 2, "source": "agent", "action": "message", "args": {"content": "done"}, "llm_metrics": total(25, 5)}),
], &[("default", 15, 3, Some(0)), ("m", 10, 2, None)])]
#[case::the_running_total_alone(vec![
    json!({"id": 1, "source": "agent", "action": "message", "args": {}, "llm_metrics": total(7, 1)}),
], &[("default", 7, 1, Some(0))])]
fn usage_of_events(#[case] events: Vec<Value>, #[case] expected: &[(&str, u64, u64, Option<u64>)]) {
    let run = run(&Value::Array(events).to_string(), false);
    let expected: Vec<_> = expected
        .iter()
        .map(|(model, input, output, cached)| ((*model).to_owned(), *input, *output, *cached))
        .collect();
    assert_eq!(usage(&run), expected);
}

#[rstest]
#[case::negative_in_a_response("prompt_tokens", "-1", true)]
#[case::fraction_in_a_response("completion_tokens", "1.5", true)]
#[case::past_64_bits_in_the_total("prompt_tokens", "18446744073709551616", false)]
fn a_bad_token_count_is_an_error(
    #[case] key: &str,
    #[case] count: &str,
    #[case] in_response: bool,
) {
    let mut response =
        json!({"id": "r1", "model": "m", "usage": {"prompt_tokens": 1, "completion_tokens": 1}});
    let mut metrics = total(1, 1);
    let bad: Value = serde_json::from_str(count).unwrap();
    if in_response {
        response["usage"][key] = bad;
    } else {
        metrics["accumulated_token_usage"][key] = bad;
    }
    let text = Value::Array(vec![timed_action(1, &response, &metrics)]).to_string();
    assert_bad_count(&text, false, key, count);
}
