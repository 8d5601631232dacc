//! Unit tests of the `mini-swe-agent` adapter, through the public reader: detection, the
//! one bash block of a message as a call, its observation as the result, steps, and the
//! tool-calling form, usage and times.

use rstest::rstest;
use serde_json::{Value, json};

use crate::formats::testing::{assert_bad_count, ns, read, summary, usage};
use crate::{Interval, Run, Status};

use Status::Unknown as U;

/// The trajectory of Harbor's RFC folder, copied into the convert fixture.
const HARBOR_RFC: &str = include_str!(
    "../../../../../fixtures/format-mini-swe-agent-trajectory/harbor-rfc__mini-swe-agent-trajectory.json"
);

#[track_caller]
fn run(text: &str) -> Run {
    let (format, mut runs) = read(text, false).unwrap();
    assert_eq!(format, "mini-swe-agent");
    assert_eq!(runs.len(), 1);
    runs.remove(0)
}

fn trajectory(messages: &Value) -> String {
    json!({"info": {"mini_version": "1.13.4"}, "messages": messages, "trajectory_format": "mini-swe-agent-1"})
        .to_string()
}

fn assistant(text: &str) -> Value {
    json!({"role": "assistant", "content": text})
}

fn observation(text: &str) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": text}]})
}

#[test]
fn reads_the_harbor_rfc_trajectory() {
    let run = run(HARBOR_RFC);
    let commands: Vec<(String, String, Option<String>)> = run
        .calls
        .iter()
        .map(|call| {
            (
                call.name.clone(),
                call.args()["command"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                call.result().and_then(Value::as_str).map(str::to_owned),
            )
        })
        .collect();
    assert_eq!(
        commands,
        [
            (
                "bash".to_owned(),
                "echo \"Hello, world!\" > hello.txt".to_owned(),
                Some("<returncode>0</returncode>\n<output>\n</output>".to_owned())
            ),
            (
                "bash".to_owned(),
                "cat hello.txt".to_owned(),
                Some("<returncode>0</returncode>\n<output>\nHello, world!\n</output>".to_owned())
            ),
            (
                "bash".to_owned(),
                "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT".to_owned(),
                Some(String::new())
            ),
        ]
    );
    assert_eq!(
        summary(&run),
        [
            ("bash".to_owned(), 0, true, U),
            ("bash".to_owned(), 1, true, U),
            ("bash".to_owned(), 2, true, U)
        ]
    );
}

#[rstest]
#[case::one_block_is_a_call(json!([
    {"role": "system", "content": "be brief"},
    observation("task"),
    assistant("THOUGHT: look\n\n```bash\nls -la\n```"),
    observation("<returncode>0</returncode>"),
]), &[("bash", 0, true)])]
#[case::no_block_is_no_call(json!([
    assistant("THOUGHT: I will think"),
    observation("Please always provide EXACTLY ONE action"),
    assistant("```bash\nls\n```"),
]), &[("bash", 1, false)])]
#[case::two_blocks_are_refused(json!([
    assistant("```bash\nls\n```\nand\n```bash\npwd\n```"),
    observation("format error"),
]), &[])]
#[case::other_languages_are_not_actions(json!([
    assistant("```python\nprint(1)\n```"),
]), &[])]
#[case::tool_calls_of_later_versions(json!([
    {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
]), &[("bash", 0, true)])]
fn conversations(#[case] messages: Value, #[case] expected: &[(&str, u32, bool)]) {
    let run = run(&trajectory(&messages));
    let got: Vec<(String, u32, bool)> = summary(&run)
        .into_iter()
        .map(|(name, step, done, _)| (name, step, done))
        .collect();
    let expected: Vec<(String, u32, bool)> = expected
        .iter()
        .map(|(name, step, done)| ((*name).to_owned(), *step, *done))
        .collect();
    assert_eq!(got, expected);
}

#[rstest]
#[case::format_field(json!({"trajectory_format": "mini-swe-agent-1", "messages": []}))]
#[case::info_without_format(json!({"info": {"mini_version": "1.0"}, "messages": []}))]
fn detects(#[case] document: Value) {
    assert_eq!(
        read(&document.to_string(), false).unwrap().0,
        "mini-swe-agent"
    );
}

#[test]
fn an_openai_message_list_is_not_mini_swe_agent() {
    let text = json!({"messages": [{"role": "user", "content": "hi"}]}).to_string();
    assert_eq!(read(&text, false).unwrap().0, "openai-chat");
}

#[test]
fn messages_not_a_list_is_an_error() {
    let text = json!({"trajectory_format": "mini-swe-agent-1", "messages": 3}).to_string();
    assert!(read(&text, false).is_err());
}

#[test]
fn usage_and_times_of_the_harbor_rfc_trajectory() {
    let run = run(HARBOR_RFC);
    // Three responses: 752 + 841 + 919 prompt tokens, 69 + 53 + 77 completion tokens.
    assert_eq!(
        usage(&run),
        [("claude-3-5-sonnet-20241022".to_owned(), 2512, 199, Some(0))]
    );
    // Version 1 writes no `extra.timestamp`: the run spans its responses' `created`, and no
    // call has a time.
    assert_eq!(
        run.time,
        Some(Interval {
            start_ns: ns("2025-10-10T06:35:27Z"),
            end_ns: ns("2025-10-10T06:35:30Z")
        })
    );
    assert!(run.calls.iter().all(|call| call.time.is_none()));
}

#[test]
fn a_call_spans_its_message_and_observation_timestamps() {
    let mut asked = assistant("```bash\nls\n```");
    asked["extra"] = json!({"timestamp": 1_760_078_127.25, "response": {"model": "m", "created": 1_760_078_126, "usage": {"prompt_tokens": 10, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 4}}}});
    let mut answered = observation("<returncode>0</returncode>");
    answered["extra"] = json!({"returncode": 0, "timestamp": 1_760_078_128.5});
    let run = run(&trajectory(&json!([asked, answered])));
    assert_eq!(usage(&run), [("m".to_owned(), 10, 3, Some(4))]);
    assert_eq!(
        run.calls[0].time,
        Some(Interval {
            start_ns: ns("2025-10-10T06:35:27.25Z"),
            end_ns: ns("2025-10-10T06:35:28.5Z")
        })
    );
    assert_eq!(
        run.time,
        Some(Interval {
            start_ns: ns("2025-10-10T06:35:26Z"),
            end_ns: ns("2025-10-10T06:35:28.5Z")
        })
    );
}

#[rstest]
#[case::negative("prompt_tokens", "-1")]
#[case::fraction("completion_tokens", "1.5")]
#[case::past_64_bits("prompt_tokens", "18446744073709551616")]
fn a_bad_token_count_is_an_error(#[case] key: &str, #[case] count: &str) {
    let mut response = json!({"model": "m", "usage": {"prompt_tokens": 1, "completion_tokens": 1}});
    response["usage"][key] = serde_json::from_str(count).unwrap();
    let mut message = assistant("```bash\nls\n```");
    message["extra"] = json!({"response": response});
    assert_bad_count(&trajectory(&json!([message])), false, key, count);
}
