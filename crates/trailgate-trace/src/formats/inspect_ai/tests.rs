//! Unit tests of the `inspect-ai` adapter, through the public reader: samples as runs,
//! messages paired by id with status from `error`, tool messages alone, and events.

use rstest::rstest;
use serde_json::{Value, json};

use crate::formats::testing::{read, summary};
use crate::{Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

/// A real evaluation log, in the wild files of the integration tests.
const BROWSER: &str = include_str!(
    "../../../tests/wild/more/inspect_ai/inspect_ai__analysis__test_logs__browser.json"
);

fn rows(rows: &[(&str, u32, bool, Status)]) -> Vec<(String, u32, bool, Status)> {
    rows.iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect()
}

#[track_caller]
fn runs(text: &str) -> Vec<Run> {
    let (format, runs) = read(text, false).unwrap();
    assert_eq!(format, "inspect-ai");
    runs
}

#[test]
fn reads_a_real_log() {
    let runs = runs(BROWSER);
    assert_eq!(runs.len(), 1);
    assert_eq!(
        summary(&runs[0]),
        rows(&[
            ("web_browser_go", 0, true, O),
            ("web_browser_click", 1, true, O),
            ("web_browser_click", 2, true, O),
            ("web_browser_click", 3, true, O),
        ])
    );
    assert_eq!(runs[0].calls[1].args(), &json!({"element_id": 151}));
}

fn log(samples: &Value) -> String {
    json!({"version": 2, "status": "success", "eval": {"task": "t"}, "samples": samples})
        .to_string()
}

fn call(id: &str, name: &str) -> Value {
    json!({"id": id, "function": name, "arguments": {"x": 1}, "type": "function"})
}

#[rstest]
#[case::paired_with_error_status(json!([
    {"role": "user", "content": "go"},
    {"role": "assistant", "content": "", "tool_calls": [call("a", "bash"), call("b", "python")]},
    {"role": "tool", "tool_call_id": "a", "function": "bash", "content": "ok"},
    {"role": "tool", "tool_call_id": "b", "function": "python", "content": "", "error": {"type": "timeout", "message": "t"}},
    {"role": "assistant", "content": "", "tool_calls": [call("c", "submit")]},
]), &[("bash", 0, true, O), ("python", 0, true, E), ("submit", 1, false, U)])]
#[case::a_tool_message_alone_is_a_call(json!([
    {"role": "tool", "tool_call_id": "z", "function": "bash", "content": "", "error": {"type": "parsing", "message": "m"}},
]), &[("bash", 0, true, E)])]
fn sample_messages(#[case] messages: Value, #[case] expected: &[(&str, u32, bool, Status)]) {
    let runs = runs(&log(&json!([{"id": 1, "epoch": 1, "messages": messages}])));
    assert_eq!(summary(&runs[0]), rows(expected));
}

#[test]
fn each_sample_and_epoch_is_a_run() {
    let sample = |epoch: u32| json!({"id": 1, "epoch": epoch, "messages": [{"role": "assistant", "tool_calls": [call("a", "bash")]}]});
    assert_eq!(runs(&log(&json!([sample(1), sample(2)]))).len(), 2);
}

#[rstest]
#[case::events_of_a_sample(log(&json!([{"id": 1, "epoch": 1, "messages": [], "events": [
    {"event": "model"},
    {"event": "tool", "id": "a", "function": "bash", "arguments": {"cmd": "ls"}, "result": "x"},
    {"event": "model"},
    {"event": "tool", "id": "b", "function": "bash", "arguments": {}, "error": {"type": "timeout", "message": "m"}},
]}])), &[("bash", 0, true, O), ("bash", 1, true, E)])]
#[case::events_alone(json!({"events": [{"event": "span_begin"}, {"event": "tool", "function": "bash", "pending": true}]}).to_string(), &[("bash", 0, false, U)])]
fn tool_events(#[case] text: String, #[case] expected: &[(&str, u32, bool, Status)]) {
    assert_eq!(summary(&runs(&text)[0]), rows(expected));
}

#[test]
fn a_call_without_a_function_is_an_error() {
    let text = log(&json!([{"messages": [{"role": "assistant", "tool_calls": [{"id": "a"}]}]}]));
    let error = read(&text, false).unwrap_err();
    assert!(matches!(error, TraceError::Shape { .. }), "{error:?}");
}
