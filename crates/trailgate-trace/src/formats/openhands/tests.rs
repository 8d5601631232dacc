//! Unit tests of the `openhands` adapter, through the public reader: actions with tool call
//! metadata as calls, pairing by cause and by call id, status, steps by model response.

use rstest::rstest;
use serde_json::{Value, json};

use crate::formats::testing::{read, summary};
use crate::{Run, Status, TraceError};

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
