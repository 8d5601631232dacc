//! Unit tests of the `gemini-interactions` adapter, through the public reader: calls and
//! MCP calls with their server, results by `call_id`, steps by interaction, usage and times.

use rstest::rstest;
use serde_json::{Value, json};

use crate::Interval;
use crate::Status;
use crate::formats::testing::{assert_bad_count, ns, read, summary, usage};

use Status::{Error as E, Ok as O, Unknown as U};

const STEP1: &str = include_str!(
    "../../../../../fixtures/format-gemini-interactions-step1/vercel-ai__google-interactions-tool-call-step1.json"
);

#[track_caller]
fn check(text: &str, lines: bool, expected: &[(&str, u32, bool, Status)]) {
    let (format, runs) = read(text, lines).unwrap();
    assert_eq!(format, "gemini-interactions");
    assert_eq!(runs.len(), 1);
    let expected: Vec<_> = expected
        .iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect();
    assert_eq!(summary(&runs[0]), expected);
}

#[test]
fn reads_a_real_interaction() {
    check(STEP1, false, &[("getWeather", 0, false, U)]);
}

fn interaction(key: &str, items: &Value) -> Value {
    json!({"object": "interaction", "status": "completed", key: items})
}

#[rstest]
#[case::results_by_call_id_across_interactions(
    vec![
        interaction("steps", &json!([{"type": "function_call", "id": "a", "name": "x", "arguments": {}}])),
        interaction("steps", &json!([{"type": "function_result", "call_id": "a", "result": "r", "is_error": true}])),
    ],
    &[("x", 0, true, E)]
)]
#[case::mcp_calls_carry_their_server(
    vec![interaction("outputs", &json!([
        {"type": "mcp_server_tool_call", "id": "m", "name": "search", "server_name": "docs", "arguments": {"q": "x"}},
        {"type": "mcp_server_tool_result", "call_id": "m", "result": [{"type": "text", "text": "found"}], "is_error": false},
    ]))],
    &[("docs.search", 0, true, O)]
)]
fn interactions(#[case] items: Vec<Value>, #[case] expected: &[(&str, u32, bool, Status)]) {
    let mut lines = String::new();
    for item in &items {
        lines.push_str(&item.to_string());
        lines.push('\n');
    }
    check(&lines, true, expected);
    check(&Value::Array(items).to_string(), false, expected);
}

#[test]
fn usage_and_times_of_a_real_interaction() {
    let (_, runs) = read(STEP1, false).unwrap();
    // 15 output tokens and 41 of thoughts; none cached.
    assert_eq!(
        usage(&runs[0]),
        [("gemini-2.5-flash".to_owned(), 53, 56, Some(0))]
    );
    let at = ns("2026-05-15T18:52:00Z");
    assert_eq!(
        runs[0].time,
        Some(Interval {
            start_ns: at,
            end_ns: at
        })
    );
}

#[test]
fn each_interaction_adds_its_usage() {
    let one = |input: u64, created: &str| json!({"object": "interaction", "model": "m", "created": created, "steps": [], "usage": {"total_input_tokens": input, "total_output_tokens": 1}});
    let text = format!(
        "{}\n{}\n",
        one(10, "2026-01-01T00:00:00Z"),
        one(20, "2026-01-01T00:00:05Z")
    );
    let (_, runs) = read(&text, true).unwrap();
    assert_eq!(usage(&runs[0]), [("m".to_owned(), 30, 2, None)]);
    assert_eq!(
        runs[0].time,
        Some(Interval {
            start_ns: ns("2026-01-01T00:00:00Z"),
            end_ns: ns("2026-01-01T00:00:05Z")
        })
    );
}

#[rstest]
#[case::negative("total_input_tokens", "-1")]
#[case::fraction("total_thought_tokens", "1.5")]
#[case::past_64_bits("total_output_tokens", "18446744073709551616")]
fn a_bad_token_count_is_an_error(#[case] key: &str, #[case] count: &str) {
    let mut interaction: Value = serde_json::from_str(STEP1).unwrap();
    interaction["usage"][key] = serde_json::from_str(count).unwrap();
    assert_bad_count(&interaction.to_string(), false, key, count);
}
