//! Unit tests of the `swe-agent` adapter, through the public reader: the function-calling
//! history, the classic trajectory, demonstrations, usage, detection and malformed files.

use rstest::rstest;
use serde_json::{Value, json};

use crate::formats::testing::{assert_bad_count, read, summary, usage};
use crate::{Run, Status, TraceError};

use Status::Unknown as U;

/// The trajectory copied into the convert fixture.
const FUNCTION_CALLING: &str = include_str!(
    "../../../../../fixtures/format-swe-agent-function-calling/swe-agent__function_calling_simple.traj"
);
/// A classic trajectory, in the wild files of the integration tests.
const CLASSIC: &str = include_str!("../../../tests/wild/swe-agent/swe-agent__pydicom-1458.traj");

#[track_caller]
fn run(text: &str) -> Run {
    let (format, mut runs) = read(text, false).unwrap();
    assert_eq!(format, "swe-agent");
    assert_eq!(runs.len(), 1);
    runs.remove(0)
}

fn names(run: &Run) -> Vec<(String, u32, bool)> {
    summary(run)
        .into_iter()
        .map(|(name, step, done, status)| {
            assert_eq!(status, U, "SWE-agent records no status");
            (name, step, done)
        })
        .collect()
}

fn rows(rows: &[(&str, u32, bool)]) -> Vec<(String, u32, bool)> {
    rows.iter()
        .map(|(name, step, done)| ((*name).to_owned(), *step, *done))
        .collect()
}

#[test]
fn reads_the_function_calling_form() {
    let run = run(FUNCTION_CALLING);
    assert_eq!(
        names(&run),
        rows(&[
            ("find_file", 0, true),
            ("open", 1, true),
            ("edit", 2, true),
            ("bash", 3, true),
            ("submit", 4, true)
        ])
    );
    assert_eq!(
        run.calls[3].args(),
        &json!({"command": "python tests/missing_colon.py"})
    );
}

#[test]
fn reads_the_classic_form_by_command_word() {
    let run = run(CLASSIC);
    let words: Vec<String> = run.calls.iter().map(|call| call.name.clone()).collect();
    assert_eq!(
        words,
        [
            "create",
            "edit",
            "python",
            "find_file",
            "open",
            "edit",
            "edit",
            "edit",
            "edit",
            "python",
            "rm",
            "submit"
        ]
    );
    assert_eq!(
        run.calls[0].args(),
        &json!({"command": "create reproduce_bug.py"})
    );
    assert_eq!(run.calls[11].step, 11);
}

#[rstest]
#[case::demonstrations_are_skipped(json!([
    {"role": "assistant", "agent": "main", "is_demo": true, "tool_calls": [{"id": "d", "function": {"name": "demo", "arguments": "{}"}}]},
    {"role": "assistant", "agent": "main", "tool_calls": [{"id": "a", "function": {"name": "x", "arguments": "{}"}}]},
    {"role": "tool", "agent": "main", "content": "ok", "tool_call_ids": ["a"]},
]), &[("x", 0, true)])]
#[case::one_message_answers_several_ids(json!([
    {"role": "assistant", "agent": "main", "tool_calls": [{"id": "a", "function": {"name": "x"}}, {"id": "b", "function": {"name": "y"}}]},
    {"role": "tool", "agent": "main", "content": [{"type": "text", "text": "both"}], "tool_call_ids": ["a", "b"]},
]), &[("x", 0, true), ("y", 0, true)])]
#[case::a_single_tool_call_id(json!([
    {"role": "assistant", "agent": "main", "tool_calls": [{"id": "a", "function": {"name": "x"}}]},
    {"role": "assistant", "agent": "main", "tool_calls": []},
    {"role": "tool", "agent": "main", "content": "late", "tool_call_id": "a"},
]), &[("x", 0, true)])]
fn histories(#[case] history: Value, #[case] expected: &[(&str, u32, bool)]) {
    let text = json!({"history": history, "info": {}}).to_string();
    assert_eq!(names(&run(&text)), rows(expected));
}

#[rstest]
#[case::history(json!({"history": [{"role": "system", "content": "s", "agent": "main"}]}), true)]
#[case::trajectory(json!({"trajectory": [{"action": "ls", "observation": ""}]}), true)]
#[case::chat_messages(json!({"messages": [{"role": "user", "content": "hi"}]}), false)]
#[case::plain_history(json!({"history": [{"role": "user", "content": "hi"}]}), false)]
fn detection(#[case] document: Value, #[case] detected: bool) {
    let format = read(&document.to_string(), false).map(|(format, _)| format);
    assert_eq!(format.ok() == Some("swe-agent"), detected);
}

#[test]
fn a_call_without_a_name_is_an_error() {
    let text = json!({"history": [{"role": "assistant", "agent": "main", "tool_calls": [{"id": "a", "function": {}}]}]});
    let error = read(&text.to_string(), false).unwrap_err();
    assert!(matches!(error, TraceError::Shape { .. }), "{error:?}");
}

#[test]
fn usage_is_the_model_stats_totals() {
    // The classic trajectory's `info.model_stats`; it names no model and keeps no times.
    let run = run(CLASSIC);
    assert_eq!(usage(&run), [(String::new(), 122_612, 1369, None)]);
    assert_eq!(run.time, None);
    // The function-calling one records no stats.
    assert!(self::run(FUNCTION_CALLING).usage.models.is_empty());
}

#[rstest]
#[case::json_text(json!("{\"agent\": {\"model\": {\"name\": \"claude-3-7-sonnet-20250219\"}}}"), "claude-3-7-sonnet-20250219")]
#[case::object(json!({"agent": {"model": {"name": "gpt-4o"}}}), "gpt-4o")]
#[case::not_json(json!("{oops"), "")]
fn the_model_of_the_replay_config(#[case] config: Value, #[case] model: &str) {
    let text = json!({"history": [{"role": "system", "content": "s", "agent": "main"}], "replay_config": config,
        "info": {"model_stats": {"instance_cost": 0.5, "tokens_sent": 100, "tokens_received": 7, "api_calls": 2}}});
    assert_eq!(
        usage(&run(&text.to_string())),
        [(model.to_owned(), 100, 7, None)]
    );
}

#[test]
fn cost_and_calls_alone_are_no_usage() {
    let text = json!({"history": [{"role": "system", "content": "s", "agent": "main"}], "info": {"model_stats": {"instance_cost": 0.5, "api_calls": 2}}});
    assert!(run(&text.to_string()).usage.models.is_empty());
}

#[rstest]
#[case::negative("tokens_sent", "-1")]
#[case::fraction("tokens_received", "1.5")]
#[case::past_64_bits("tokens_sent", "18446744073709551616")]
fn a_bad_token_count_is_an_error(#[case] key: &str, #[case] count: &str) {
    let mut stats = json!({"tokens_sent": 1, "tokens_received": 1});
    stats[key] = serde_json::from_str(count).unwrap();
    let text = json!({"history": [{"role": "system", "content": "s", "agent": "main"}], "info": {"model_stats": stats}});
    assert_bad_count(&text.to_string(), false, key, count);
}
