//! Unit tests of the `atif` adapter, through the public reader: detection, the fields of a
//! call, pairing by `source_call_id`, steps, the status conventions, usage and times, and
//! bad documents.

use crate::formats::testing;
use crate::formats::testing::{assert_bad_count, ns, summary, usage};
use rstest::rstest;
use serde_json::{Value, json};

use super::Atif;
use crate::formats::Adapter;
use crate::{Interval, Naming, ReadOptions, Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

/// Reads `text` with these options; `lines` reads it as JSON Lines.
fn read_with(text: &str, lines: bool, options: &ReadOptions) -> Result<Vec<Run>, TraceError> {
    let (format, runs) = testing::read_with(text, lines, options)?;
    assert_eq!(format, "atif");
    Ok(runs)
}

/// The one run of a trajectory document holding these steps.
fn run(steps: &Value) -> Run {
    let document = json!({"schema_version": "ATIF-v1.8", "session_id": "s", "agent": {"name": "a", "version": "1"}, "steps": steps});
    let mut runs = read_with(&document.to_string(), false, &ReadOptions::default()).unwrap();
    assert_eq!(runs.len(), 1, "a trajectory is one run");
    runs.remove(0)
}

#[track_caller]
fn check(steps: &Value, expected: &[(&str, u32, bool, Status)]) {
    let expected: Vec<_> = expected
        .iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect();
    assert_eq!(summary(&run(steps)), expected);
}

fn call(id: &str, name: &str) -> Value {
    json!({"tool_call_id": id, "function_name": name, "arguments": {}})
}

fn answer(id: &str) -> Value {
    json!({"source_call_id": id, "content": "done"})
}

fn answer_with(id: &str, extra: &Value) -> Value {
    json!({"source_call_id": id, "content": "done", "extra": extra})
}

#[rstest]
#[case::v1_0(json!({"schema_version": "ATIF-v1.0", "session_id": "s", "agent": {}, "steps": []}))]
#[case::v1_4(json!({"schema_version": "ATIF-v1.4", "steps": [{"step_id": 1, "source": "user", "message": "hi"}]}))]
#[case::v1_8_without_steps(json!({"schema_version": "ATIF-v1.8"}))]
#[case::future_version(json!({"schema_version": "ATIF-v2.0", "steps": [], "new_field": 1}))]
#[case::array_of_trajectories(json!([{"schema_version": "ATIF-v1.7", "steps": []}]))]
fn detects_atif(#[case] first: Value) {
    assert!(Atif.detect(&first), "{first}");
}

#[rstest]
#[case::trailgate_call_list(json!({"tool_calls": [{"name": "x"}]}))]
#[case::other_schema_version(json!({"schema_version": "1.4", "steps": []}))]
#[case::version_not_a_string(json!({"schema_version": 1.4, "steps": []}))]
#[case::steps_alone(json!({"steps": [{"step_id": 1, "source": "agent"}]}))]
#[case::mcp_message(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}))]
#[case::otel(json!({"resourceSpans": []}))]
#[case::claude_code_line(json!({"type": "assistant", "message": {"role": "assistant", "content": []}}))]
#[case::openai_chat_message(json!({"role": "assistant", "tool_calls": []}))]
#[case::vercel_steps(json!([{"stepNumber": 0, "toolCalls": []}]))]
#[case::empty_array(json!([]))]
#[case::scalar(json!("ATIF-v1.4"))]
fn does_not_detect_other_shapes(#[case] first: Value) {
    assert!(!Atif.detect(&first), "{first}");
}

#[rstest]
#[case::parallel_calls_share_a_step(json!([
    {"step_id": 1, "source": "user", "message": "q"},
    {"step_id": 2, "source": "agent", "message": "", "tool_calls": [call("a1", "search"), call("a2", "search")],
     "observation": {"results": [answer("a1"), answer("a2")]}},
    {"step_id": 3, "source": "agent", "message": "done"},
]), &[("search", 0, true, U), ("search", 0, true, U)])]
#[case::steps_count_agent_steps_only(json!([
    {"step_id": 1, "source": "system", "message": "sys"},
    {"step_id": 2, "source": "user", "message": "q"},
    {"step_id": 3, "source": "agent", "message": "", "tool_calls": [call("a", "first")]},
    {"step_id": 4, "source": "user", "message": "more"},
    {"step_id": 5, "source": "agent", "message": "thinking"},
    {"step_id": 6, "source": "agent", "message": "", "tool_calls": [call("b", "third")]},
]), &[("first", 0, false, U), ("third", 2, false, U)])]
#[case::calls_on_a_user_step_join_the_agent_step_before(json!([
    {"step_id": 1, "source": "user", "message": "", "tool_calls": [call("u0", "early")]},
    {"step_id": 2, "source": "agent", "message": ""},
    {"step_id": 3, "source": "agent", "message": ""},
    {"step_id": 4, "source": "system", "message": "", "tool_calls": [call("s", "late")]},
]), &[("early", 0, false, U), ("late", 1, false, U)])]
#[case::a_step_without_source_is_an_agent_step(json!([
    {"step_id": 1, "message": "", "tool_calls": [call("a", "x")]},
    {"step_id": 2, "message": "", "tool_calls": [call("b", "y")]},
]), &[("x", 0, false, U), ("y", 1, false, U)])]
#[case::results_pair_by_id_not_position(json!([
    {"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("a", "x"), call("b", "y")],
     "observation": {"results": [answer_with("b", &json!({"is_error": true}))]}},
]), &[("x", 0, false, U), ("y", 0, true, E)])]
#[case::observation_before_tool_calls_in_the_object(json!([
    {"observation": {"results": [answer("a")]}, "tool_calls": [call("a", "x")], "source": "agent", "step_id": 1, "message": ""},
]), &[("x", 0, true, U)])]
#[case::a_system_step_may_answer_an_earlier_call(json!([
    {"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("a", "delegate")]},
    {"step_id": 2, "source": "system", "message": "", "observation": {"results": [answer("a")]}},
]), &[("delegate", 0, true, U)])]
#[case::a_result_before_its_call_is_ignored(json!([
    {"step_id": 1, "source": "system", "message": "", "observation": {"results": [answer("a")]}},
    {"step_id": 2, "source": "agent", "message": "", "tool_calls": [call("a", "x")]},
]), &[("x", 0, false, U)])]
#[case::unpaired_and_idless_results_are_ignored(json!([
    {"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("a", "x")],
     "observation": {"results": [answer("zzz"), {"content": "no id"}, {"source_call_id": null, "content": "null id"}]}},
]), &[("x", 0, false, U)])]
#[case::duplicate_ids_are_answered_in_call_order(json!([
    {"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("same", "first"), call("same", "second")],
     "observation": {"results": [answer_with("same", &json!({"is_error": true})), answer("same")]}},
]), &[("first", 0, true, E), ("second", 0, true, U)])]
#[case::ids_reused_in_later_steps(json!([
    {"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("call_0", "a")], "observation": {"results": [answer("call_0")]}},
    {"step_id": 2, "source": "agent", "message": "", "tool_calls": [call("call_0", "b")], "observation": {"results": [answer_with("call_0", &json!({"success": false}))]}},
]), &[("a", 0, true, U), ("b", 1, true, E)])]
#[case::numeric_ids(json!([
    {"step_id": 1, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": 7, "function_name": "x", "arguments": {}}],
     "observation": {"results": [{"source_call_id": 7, "content": "ok"}]}},
]), &[("x", 0, true, U)])]
#[case::one_call_takes_the_one_result_without_id(json!([
    {"step_id": 1, "source": "agent", "message": "", "tool_calls": [{"function_name": "x"}],
     "observation": {"results": [{"content": "output"}]}},
]), &[("x", 0, true, U)])]
#[case::terminus_results_without_ids_pair_in_order(json!([
    {"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("call_0_1", "bash_command")],
     "observation": {"results": [{"content": "out"}]}},
    {"step_id": 2, "source": "agent", "message": "", "tool_calls": [call("a", "x"), call("b", "y")],
     "observation": {"results": [{"content": "1", "extra": {"is_error": true}}, {"content": "2"}]}},
]), &[("bash_command", 0, true, U), ("x", 1, true, E), ("y", 1, true, U)])]
#[case::fewer_results_without_ids_than_calls_answer_none(json!([
    {"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("a", "x"), call("b", "y")],
     "observation": {"results": [{"content": "which?"}]}},
]), &[("x", 0, false, U), ("y", 0, false, U)])]
#[case::a_result_without_id_answers_the_call_left_open(json!([
    {"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("a", "x"), call("b", "y")],
     "observation": {"results": [{"content": "rest"}, answer("a")]}},
]), &[("x", 0, true, U), ("y", 0, true, U)])]
#[case::a_result_without_id_in_a_step_without_calls_is_ignored(json!([
    {"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("a", "x")]},
    {"step_id": 2, "source": "agent", "message": "", "observation": {"results": [{"content": "parse error"}]}},
]), &[("x", 0, false, U)])]
#[case::extra_fields_are_skipped(json!([
    {"step_id": 1, "source": "agent", "message": [{"type": "text", "text": "hi"}], "llm_call_count": 1, "is_copied_context": false,
     "future": {"x": 1}, "extra": {"k": 1},
     "tool_calls": [{"tool_call_id": "a", "function_name": "x", "arguments": {}, "extra": {"timeout": 5}, "new": true}],
     "observation": {"results": [{"source_call_id": "a", "content": "r", "subagent_trajectory_ref": [{"trajectory_id": "t"}]}], "also": 1}},
]), &[("x", 0, true, U)])]
#[case::null_lists_are_empty(json!([
    {"step_id": 1, "source": "agent", "message": "", "tool_calls": null, "observation": null},
    {"step_id": 2, "source": "agent", "message": "", "tool_calls": [call("a", "x")], "observation": {"results": null}},
]), &[("x", 1, false, U)])]
#[case::no_steps(json!([]), &[])]
fn trajectories(#[case] steps: Value, #[case] expected: &[(&str, u32, bool, Status)]) {
    check(&steps, expected);
}

#[rstest]
#[case::is_error_true(json!({"is_error": true}), E)]
#[case::is_error_false(json!({"is_error": false}), O)]
#[case::claude_code_result_flag(json!({"tool_result_is_error": true}), E)]
#[case::claude_code_metadata(json!({"tool_result_metadata": {"is_error": true, "raw_tool_result": {}}}), E)]
#[case::claude_code_metadata_without_flag(json!({"tool_result_metadata": {"raw_tool_result": {}}}), U)]
#[case::copilot_success(json!({"success": true, "toolTelemetry": {}}), O)]
#[case::copilot_failure(json!({"success": false}), E)]
#[case::strands_status_error(json!({"status": "error"}), E)]
#[case::strands_status_success(json!({"status": "success"}), O)]
#[case::unknown_status_word(json!({"status": "queued"}), U)]
#[case::any_failure_wins(json!({"is_error": false, "success": false}), E)]
#[case::flag_not_a_bool(json!({"is_error": "yes"}), U)]
#[case::other_metadata(json!({"duration_ms": 12}), U)]
#[case::extra_not_an_object(json!("error"), U)]
fn status_from_result_extra(#[case] extra: Value, #[case] status: Status) {
    let steps = json!([{"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("a", "x")],
        "observation": {"results": [answer_with("a", &extra)]}}]);
    check(&steps, &[("x", 0, true, status)]);
}

/// The arguments and result of the one call of a one-step trajectory.
fn call_fields(tool_call: &Value, result: &Value) -> (Value, Option<String>, Option<Value>) {
    let steps = json!([{"step_id": 1, "source": "agent", "message": "", "tool_calls": [tool_call],
        "observation": {"results": [result]}}]);
    let mut run = run(&steps);
    let call = run.calls.remove(0);
    (
        call.args().clone(),
        call.args_raw.clone(),
        call.result().cloned(),
    )
}

#[rstest]
#[case::object(json!({"ticker": "GOOGL", "n": [1, 2]}), json!({"ticker": "GOOGL", "n": [1, 2]}), None)]
#[case::empty(json!({}), json!({}), None)]
#[case::missing(Value::Null, json!({}), None)]
#[case::json_string(json!("{\"q\": 1}"), json!({"q": 1}), None)]
#[case::invalid_string(json!("ls -la"), json!("ls -la"), Some("ls -la"))]
fn argument_shapes(#[case] arguments: Value, #[case] args: Value, #[case] raw: Option<&str>) {
    let tool_call = json!({"tool_call_id": "a", "function_name": "x", "arguments": arguments});
    let (got, got_raw, _) = call_fields(&tool_call, &answer("a"));
    assert_eq!((got, got_raw.as_deref()), (args, raw));
}

#[rstest]
#[case::string(json!("GOOGL is at $185.35"), Some(json!("GOOGL is at $185.35")))]
#[case::text_parts(json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]), Some(json!("a\nb")))]
#[case::mixed_parts(json!([{"type": "text", "text": "a"}, {"type": "image", "source": {"media_type": "image/png", "path": "p.png"}}]),
    Some(json!([{"type": "text", "text": "a"}, {"type": "image", "source": {"media_type": "image/png", "path": "p.png"}}])))]
#[case::null(Value::Null, None)]
fn result_shapes(#[case] content: Value, #[case] expected: Option<Value>) {
    let tool_call = call("a", "x");
    let result = json!({"source_call_id": "a", "content": content});
    let (_, _, got) = call_fields(&tool_call, &result);
    assert_eq!(got, expected);
}

#[test]
fn a_result_without_content_still_completes_the_call() {
    let steps = json!([{"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("a", "x")],
        "observation": {"results": [{"source_call_id": "a"}]}}]);
    let run = run(&steps);
    assert!(run.calls[0].completed);
    assert_eq!(run.calls[0].result().cloned(), None);
}

#[test]
fn subagent_trajectories_are_not_read() {
    let document = json!({
        "schema_version": "ATIF-v1.7",
        "steps": [{"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("t", "Task")],
            "observation": {"results": [{"source_call_id": "t", "content": "done", "subagent_trajectory_ref": [{"trajectory_id": "sub"}]}]}}],
        "subagent_trajectories": [{"schema_version": "ATIF-v1.7", "trajectory_id": "sub",
            "steps": [{"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("g", "grep")]}]}],
    });
    let runs = read_with(&document.to_string(), false, &ReadOptions::default()).unwrap();
    assert_eq!(summary(&runs[0]), [("Task".to_owned(), 0, true, U)]);
}

#[rstest]
#[case::default_splits_mcp_double(Naming::Default, "list_issues", Some("github"))]
#[case::none_keeps_the_wire_name(Naming::None, "mcp__github__list_issues", None)]
fn naming_schemes(#[case] naming: Naming, #[case] name: &str, #[case] server: Option<&str>) {
    let document = json!({"schema_version": "ATIF-v1.6", "steps": [
        {"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("a", "mcp__github__list_issues")]}]});
    let options = ReadOptions {
        format: None,
        naming,
    };
    let runs = read_with(&document.to_string(), false, &options).unwrap();
    let call = &runs[0].calls[0];
    assert_eq!((call.name.as_str(), call.server.as_deref()), (name, server));
}

#[test]
fn json_lines_and_arrays_hold_one_run_per_trajectory() {
    let one = json!({"schema_version": "ATIF-v1.5", "steps": [{"step_id": 1, "source": "agent", "message": "", "tool_calls": [call("a", "x")]}]});
    let two = json!({"schema_version": "ATIF-v1.5", "steps": []});
    let lines = format!("{one}\n\n{two}\n");
    let runs = read_with(&lines, true, &ReadOptions::default()).unwrap();
    assert_eq!(
        runs.iter()
            .map(|run| (run.line, run.calls.len()))
            .collect::<Vec<_>>(),
        [(Some(1), 1), (Some(3), 0)]
    );
    let array = json!([one, two]).to_string();
    let runs = read_with(&array, false, &ReadOptions::default()).unwrap();
    assert_eq!(
        runs.iter()
            .map(|run| (run.line, run.calls.len()))
            .collect::<Vec<_>>(),
        [(None, 1), (None, 0)]
    );
}

#[rstest]
#[case::steps_not_a_list(json!({"schema_version": "ATIF-v1.4", "steps": {"step_id": 1}}), "steps")]
#[case::tool_calls_not_a_list(json!({"schema_version": "ATIF-v1.4", "steps": [{"source": "agent", "tool_calls": {"function_name": "x"}}]}), "steps[0].tool_calls")]
#[case::results_not_a_list(json!({"schema_version": "ATIF-v1.4", "steps": [{"source": "agent", "observation": {"results": "x"}}]}), "steps[0].observation.results")]
#[case::call_without_name(json!({"schema_version": "ATIF-v1.4", "steps": [{"source": "user"}, {"source": "agent", "tool_calls": [{"tool_call_id": "a", "name": "x"}]}]}), "steps[1].tool_calls[0]")]
#[case::name_not_a_string(json!({"schema_version": "ATIF-v1.4", "steps": [{"source": "agent", "tool_calls": [{"function_name": ["x"]}]}]}), "steps[0].tool_calls[0]")]
#[case::in_an_array(json!([{"schema_version": "ATIF-v1.4", "steps": []}, {"schema_version": "ATIF-v1.4", "steps": 3}]), "[1].steps")]
fn unusable_documents_are_errors(#[case] document: Value, #[case] at: &str) {
    let error = read_with(&document.to_string(), false, &ReadOptions::default()).unwrap_err();
    let TraceError::Shape { message, .. } = &error else {
        panic!("{error:?}")
    };
    assert!(message.contains(&format!("`{at}`")), "{message}");
}

#[test]
fn a_line_that_is_not_json_is_an_error() {
    let text = "{\"schema_version\": \"ATIF-v1.4\", \"steps\": []}\n{\"schema_version\": \n";
    let error = read_with(text, true, &ReadOptions::default()).unwrap_err();
    assert!(matches!(error, TraceError::Syntax { .. }), "{error:?}");
}

#[rstest]
#[case::later_line_of_another_kind(
    "{\"schema_version\": \"ATIF-v1.4\", \"steps\": []}\n{\"tool_calls\": []}\n",
    1
)]
#[case::scalars(
    "{\"schema_version\": \"ATIF-v1.4\", \"steps\": []}\n42\n\"x\"\nnull\n[1, {\"steps\": []}]\n",
    2
)]
fn odd_records_do_not_panic(#[case] text: &str, #[case] runs: usize) {
    let got = read_with(text, true, &ReadOptions::default()).unwrap();
    assert_eq!(got.len(), runs);
    assert!(got.iter().all(|run| run.calls.is_empty()));
}

#[test]
fn a_forced_document_of_another_kind_is_an_error() {
    let options = ReadOptions {
        format: Some("atif".to_owned()),
        naming: Naming::Default,
    };
    let error = read_with(r#"{"tool_calls": []}"#, false, &options).unwrap_err();
    assert!(matches!(error, TraceError::Shape { .. }), "{error:?}");
}

const RFC_EXAMPLE: &str =
    include_str!("../../../../../fixtures/format-atif-rfc-example/atif-v1.4-rfc-example.json");

#[test]
fn usage_and_times_of_the_rfc_example() {
    let runs = read_with(RFC_EXAMPLE, false, &ReadOptions::default()).unwrap();
    // Two agent steps: 520 + 600 prompt tokens (200 of them cached), 80 + 44 completion.
    assert_eq!(
        usage(&runs[0]),
        [("gemini-2.5-flash".to_owned(), 1120, 124, Some(200))]
    );
    assert_eq!(
        runs[0].time,
        Some(Interval {
            start_ns: ns("2025-10-11T10:30:00Z"),
            end_ns: ns("2025-10-11T10:30:05Z")
        })
    );
    assert!(runs[0].calls.iter().all(|call| call.time.is_none()));
}

#[rstest]
#[case::step_model_over_agent_model(
    json!({"name": "a", "model_name": "agent-model"}),
    json!([{"step_id": 1, "source": "agent", "model_name": "step-model", "metrics": {"prompt_tokens": 5, "completion_tokens": 1}}, {"step_id": 2, "source": "agent", "metrics": {"prompt_tokens": 7, "completion_tokens": 2}}]),
    json!({"total_prompt_tokens": 999, "total_completion_tokens": 999}),
    &[("agent-model", 7, 2, None), ("step-model", 5, 1, None)]
)]
#[case::final_metrics_when_no_step_has_any(
    json!({"name": "a", "model_name": "m"}),
    json!([{"step_id": 1, "source": "agent", "message": "hi"}]),
    json!({"total_prompt_tokens": 220, "total_completion_tokens": 80, "total_cached_tokens": 20, "total_cost_usd": 0.1}),
    &[("m", 220, 80, Some(20))]
)]
#[case::no_model_named(
    json!({"name": "a"}),
    json!([{"step_id": 1, "source": "agent", "metrics": {"prompt_tokens": 5, "completion_tokens": 1, "cost_usd": 0.01}}]),
    Value::Null,
    &[("", 5, 1, None)]
)]
#[case::cost_alone_is_no_usage(
    json!({"name": "a"}),
    json!([{"step_id": 1, "source": "agent", "metrics": {"cost_usd": 0.01}}]),
    json!({"total_cost_usd": 0.01}),
    &[]
)]
fn usage_per_model(
    #[case] agent: Value,
    #[case] steps: Value,
    #[case] totals: Value,
    #[case] expected: &[(&str, u64, u64, Option<u64>)],
) {
    let document = json!({"schema_version": "ATIF-v1.8", "agent": agent, "steps": steps, "final_metrics": totals});
    let runs = read_with(&document.to_string(), false, &ReadOptions::default()).unwrap();
    let expected: Vec<_> = expected
        .iter()
        .map(|(model, input, output, cached)| ((*model).to_owned(), *input, *output, *cached))
        .collect();
    assert_eq!(usage(&runs[0]), expected);
}

#[rstest]
#[case::negative("prompt_tokens", "-1")]
#[case::fraction("cached_tokens", "1.5")]
#[case::past_64_bits("completion_tokens", "18446744073709551616")]
fn a_bad_token_count_is_an_error(#[case] key: &str, #[case] count: &str) {
    let mut metrics = json!({"prompt_tokens": 1, "completion_tokens": 1});
    metrics[key] = serde_json::from_str(count).unwrap();
    let document = json!({"schema_version": "ATIF-v1.8", "agent": {"name": "a"}, "steps": [{"step_id": 1, "source": "agent", "metrics": metrics}]});
    assert_bad_count(&document.to_string(), false, key, count);
}

#[test]
fn a_bad_final_count_is_an_error() {
    let document = json!({"schema_version": "ATIF-v1.8", "agent": {"name": "a"}, "steps": [], "final_metrics": {"total_prompt_tokens": -3}});
    assert_bad_count(&document.to_string(), false, "total_prompt_tokens", "-3");
}
