//! Unit tests of the `bedrock` adapter, through the public reader: responses, message lists
//! with results and status, detection.

use rstest::rstest;
use serde_json::{Value, json};

use crate::Status;
use crate::formats::testing::{read, summary};

use Status::{Error as E, Ok as O, Unknown as U};

const RESPONSE: &str = include_str!(
    "../../../../../fixtures/format-bedrock-converse/vercel-ai__amazon-bedrock-tool-call.json"
);

#[track_caller]
fn check(text: &str, expected: &[(&str, u32, bool, Status)]) -> crate::Run {
    let (format, mut runs) = read(text, false).unwrap();
    assert_eq!(format, "bedrock");
    let run = runs.remove(0);
    let expected: Vec<_> = expected
        .iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect();
    assert_eq!(summary(&run), expected);
    run
}

#[test]
fn reads_a_real_response() {
    let run = check(RESPONSE, &[("bash", 0, false, U)]);
    assert_eq!(run.calls[0].args(), &json!({"command": "ls -l"}));
}

fn tool_use(id: &str, name: &str) -> Value {
    json!({"toolUse": {"toolUseId": id, "name": name, "input": {}}})
}

fn tool_result(id: &str, status: &str, content: &Value) -> Value {
    json!({"toolResult": {"toolUseId": id, "status": status, "content": content}})
}

#[rstest]
#[case::results_and_status(json!({"messages": [
    {"role": "user", "content": [{"text": "go"}]},
    {"role": "assistant", "content": [{"text": "ok"}, tool_use("a", "x"), tool_use("b", "y")]},
    {"role": "user", "content": [tool_result("a", "success", &json!([{"json": {"n": 1}}])), tool_result("b", "error", &json!([{"text": "no"}]))]},
    {"role": "assistant", "content": [tool_use("c", "z")]},
]}), &[("x", 0, true, O), ("y", 0, true, E), ("z", 1, false, U)], Some(json!({"n": 1})))]
#[case::a_bare_list(json!([
    {"role": "assistant", "content": [tool_use("a", "x")]},
    {"role": "user", "content": [tool_result("a", "success", &json!([{"text": "one"}, {"text": "two"}]))]},
]), &[("x", 0, true, O)], Some(json!("one\ntwo")))]
fn conversations(
    #[case] document: Value,
    #[case] expected: &[(&str, u32, bool, Status)],
    #[case] first_result: Option<Value>,
) {
    let run = check(&document.to_string(), expected);
    assert_eq!(run.calls[0].result().cloned(), first_result);
}

#[rstest]
#[case::anthropic_blocks_are_not(json!([{"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "x", "input": {}}]}]))]
#[case::chat_messages_are_not(json!({"messages": [{"role": "user", "content": "hi"}]}))]
fn other_shapes_are_not_bedrock(#[case] document: Value) {
    let format = read(&document.to_string(), false).map(|(format, _)| format);
    assert_ne!(format.ok(), Some("bedrock"));
}
