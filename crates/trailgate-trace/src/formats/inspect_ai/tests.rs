//! Unit tests of the `inspect-ai` adapter, through the public reader: samples as runs,
//! messages paired by id with status from `error`, tool messages alone, events, usage and
//! times.

use rstest::rstest;
use serde_json::{Value, json};

use crate::formats::testing::{assert_bad_count, ns, read, summary, usage};
use crate::{Interval, Run, Status, TraceError};

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

#[test]
fn usage_and_times_of_a_real_log() {
    let runs = runs(BROWSER);
    // Five model events: their usage under the model the responses name (the sample's
    // `model_usage`, under `openai/gpt-4o-mini`, holds the same sums).
    assert_eq!(
        usage(&runs[0]),
        [("gpt-4o-mini-2024-07-18".to_owned(), 15_235, 281, Some(9088))]
    );
    assert_eq!(
        runs[0].time,
        Some(Interval {
            start_ns: ns("2025-05-12T20:27:36.997226-04:00"),
            end_ns: ns("2025-05-12T20:27:56.689632-04:00")
        })
    );
    assert_eq!(
        runs[0].calls[0].time,
        Some(Interval {
            start_ns: ns("2025-05-12T20:27:39.762878-04:00"),
            end_ns: ns("2025-05-12T20:27:44.080452-04:00")
        })
    );
    assert!(runs[0].calls.iter().all(|call| call.time.is_some()));
}

fn model_event(usage: &Value) -> Value {
    json!({"event": "model", "timestamp": "2025-01-01T00:00:00+00:00", "model": "anthropic/claude-sonnet-4-0", "output": {"model": "claude-sonnet-4-20250514", "usage": usage}})
}

#[rstest]
#[case::openai_counts_the_cache_in_the_input(
    json!({"input_tokens": 100, "output_tokens": 10, "input_tokens_cache_read": 60, "reasoning_tokens": 4, "total_tokens": 110}),
    (100, 10, Some(60))
)]
#[case::anthropic_keeps_the_cache_apart(
    json!({"input_tokens": 40, "output_tokens": 10, "input_tokens_cache_read": 60, "input_tokens_cache_write": 5, "total_tokens": 115}),
    (105, 10, Some(60))
)]
#[case::google_keeps_the_reasoning_apart(
    json!({"input_tokens": 100, "output_tokens": 10, "reasoning_tokens": 30, "total_tokens": 140}),
    (100, 40, None)
)]
#[case::no_total_takes_the_counts_as_they_are(
    json!({"input_tokens": 40, "output_tokens": 10, "input_tokens_cache_read": 60}),
    (40, 10, Some(60))
)]
fn what_the_total_says_of_the_counts(
    #[case] recorded: Value,
    #[case] expected: (u64, u64, Option<u64>),
) {
    let text = json!({"events": [model_event(&recorded)]}).to_string();
    let (input, output, cached) = expected;
    assert_eq!(
        usage(&runs(&text)[0]),
        [("claude-sonnet-4-20250514".to_owned(), input, output, cached)]
    );
}

#[test]
fn model_usage_when_the_events_record_none() {
    let sample = json!({"id": 1, "epoch": 1, "messages": [{"role": "assistant", "content": "", "tool_calls": [{"id": "a", "function": "f", "arguments": {}}]}],
        "model_usage": {"openai/gpt-4o": {"input_tokens": 7, "output_tokens": 2, "total_tokens": 9}}});
    let text = json!({"version": 2, "eval": {"task": "t"}, "samples": [sample]}).to_string();
    let runs = runs(&text);
    assert_eq!(usage(&runs[0]), [("openai/gpt-4o".to_owned(), 7, 2, None)]);
    assert_eq!(runs[0].time, None);
}

#[rstest]
#[case::negative("input_tokens", "-1")]
#[case::fraction("output_tokens", "1.5")]
#[case::past_64_bits("total_tokens", "18446744073709551616")]
fn a_bad_token_count_is_an_error(#[case] key: &str, #[case] count: &str) {
    let mut recorded = json!({"input_tokens": 1, "output_tokens": 1, "total_tokens": 2});
    recorded[key] = serde_json::from_str(count).unwrap();
    let text = json!({"events": [model_event(&recorded)]}).to_string();
    assert_bad_count(&text, false, key, count);
}
