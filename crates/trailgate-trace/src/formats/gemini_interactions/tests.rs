//! Unit tests of the `gemini-interactions` adapter, through the public reader: calls and
//! MCP calls with their server, results by `call_id`, steps by interaction.

use rstest::rstest;
use serde_json::{Value, json};

use crate::Status;
use crate::formats::testing::{read, summary};

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
