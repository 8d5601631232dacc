//! Unit tests of the `gemini` adapter, through the public reader.

use crate::formats::testing;
use rstest::rstest;
use serde_json::{Value, json};

use super::Gemini;
use crate::formats::Adapter;
use crate::{Naming, ReadOptions, Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

fn read_with(text: &str, lines: bool, options: &ReadOptions) -> Result<Vec<Run>, TraceError> {
    testing::read_with(text, lines, options).map(|(_, runs)| runs)
}

fn read(text: &str, lines: bool) -> Vec<Run> {
    read_with(text, lines, &ReadOptions::default()).unwrap()
}

/// `(server.name, step, completed, status)` of each call of the file's one run.
fn summary(text: &str, lines: bool) -> Vec<(String, u32, bool, Status)> {
    let runs = read(text, lines);
    assert_eq!(runs.len(), 1, "one run per file");
    assert_eq!(runs[0].format, "gemini");
    runs[0]
        .calls
        .iter()
        .map(|c| {
            let id = match &c.server {
                Some(s) => format!("{s}.{}", c.name),
                None => c.name.clone(),
            };
            (id, c.step, c.completed, c.status)
        })
        .collect()
}

#[track_caller]
fn check(text: &str, lines: bool, expected: &[(&str, u32, bool, Status)]) {
    let expected: Vec<_> = expected
        .iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect();
    assert_eq!(summary(text, lines), expected);
}

const CALL_A: &str = r#"{"functionCall": {"name": "a", "args": {"x": 1}}}"#;

#[rstest]
#[case::response(r#"{"candidates": [{"content": {"role": "model", "parts": []}}]}"#)]
#[case::recorded(r#"{"method": "generateContent", "response": {"candidates": []}}"#)]
#[case::recorded_count_tokens(r#"{"method": "countTokens", "response": {"totalTokens": 3}}"#)]
#[case::request(r#"{"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": []}"#)]
#[case::request_without_role(r#"{"contents": [{"parts": [{"text": "hi"}]}]}"#)]
#[case::pair(r#"{"request": {"contents": [{"role": "user", "parts": []}]}, "response": {}}"#)]
#[case::checkpoint(r#"{"history": [{"role": "user", "parts": [{"text": "hi"}]}]}"#)]
#[case::legacy_checkpoint(r#"[{"role": "user", "parts": [{"text": "hi"}]}]"#)]
#[case::stream_body(r#"[{"candidates": []}, {"candidates": []}]"#)]
#[case::array_of_recorded(r#"[{"method": "generateContentStream", "response": []}]"#)]
fn detects(#[case] text: &str) {
    let value: Value = serde_json::from_str(text).unwrap();
    assert!(Gemini.detect(&value), "{text}");
}

#[rstest]
#[case::openai_chat(r#"{"choices": [{"message": {"role": "assistant", "tool_calls": []}}]}"#)]
#[case::openai_messages(r#"[{"role": "user", "content": "hi"}]"#)]
#[case::anthropic(
    r#"{"type": "message", "role": "assistant", "content": [{"type": "text", "text": "x"}]}"#
)]
#[case::mcp(r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}"#)]
#[case::native(r#"{"tool_calls": [{"name": "x"}]}"#)]
#[case::adk_session(
    r#"{"events": [{"author": "user", "invocation_id": "i", "content": {"parts": []}}]}"#
)]
#[case::adk_eval_set(r#"{"eval_set_id": "s", "eval_cases": []}"#)]
#[case::langchain(r#"[{"type": "ai", "data": {"content": "", "tool_calls": []}}]"#)]
#[case::copilot(r#"{"type": "assistant.message", "data": {"toolRequests": []}}"#)]
#[case::claude_code(r#"{"type": "assistant", "message": {"role": "assistant", "content": []}}"#)]
#[case::unknown_method(r#"{"method": "other", "response": {}}"#)]
#[case::empty_contents(r#"{"contents": []}"#)]
#[case::otel_genai_messages(r#"[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}, {"role": "assistant", "parts": [{"type": "tool_call", "id": "c", "name": "x", "arguments": {}}]}]"#)]
#[case::otel_genai_assistant_first(r#"[{"role": "assistant", "parts": []}]"#)]
#[case::empty_array("[]")]
#[case::scalar("3")]
fn does_not_detect(#[case] text: &str) {
    let value: Value = serde_json::from_str(text).unwrap();
    assert!(!Gemini.detect(&value), "{text}");
}

#[rstest]
// The sample's shape: 11 parallel calls without ids in one streamed response.
#[case::parallel_calls_share_a_step(
    &format!(r#"{{"method": "generateContentStream", "response": [{{"candidates": [{{"content": {{"role": "model", "parts": [{CALL_A}, {CALL_A}, {{"text": "t"}}]}}}}]}}]}}"#),
    true,
    &[("a", 0, false, U), ("a", 0, false, U)],
)]
#[case::responses_without_calls_open_no_step(
    &format!("{}\n{}\n{}",
        r#"{"method": "generateContent", "response": {"candidates": [{"content": {"parts": [{"text": "x"}]}}]}}"#,
        r#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "a"}}]}}]}"#,
        r#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "b"}}]}}]}"#),
    true,
    &[("a", 0, false, U), ("b", 1, false, U)],
)]
#[case::chunks_of_one_stream_share_a_step(
    r#"[{"responseId": "r1", "candidates": [{"content": {"parts": [{"functionCall": {"name": "a"}}]}}]}, {"candidates": [{"content": {"parts": [{"functionCall": {"name": "b"}}]}}]}, {"responseId": "r2", "candidates": [{"content": {"parts": [{"functionCall": {"name": "c"}}]}}]}]"#,
    false,
    &[("a", 0, false, U), ("b", 0, false, U), ("c", 1, false, U)],
)]
#[case::lines_with_one_response_id_share_a_step(
    "{\"responseId\": \"r\", \"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"a\"}}]}}]}\n{\"responseId\": \"r\", \"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"b\"}}]}}]}\n{\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"c\"}}]}}]}\n{\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"d\"}}]}}]}",
    true,
    &[("a", 0, false, U), ("b", 0, false, U), ("c", 1, false, U), ("d", 2, false, U)],
)]
#[case::other_candidates_are_alternatives(
    r#"{"candidates": [{"index": 0, "content": {"parts": [{"functionCall": {"name": "a"}}]}}, {"index": 1, "content": {"parts": [{"functionCall": {"name": "b"}}]}}]}"#,
    false,
    &[("a", 0, false, U)],
)]
#[case::count_tokens_and_embeddings_are_skipped(
    "{\"method\": \"countTokens\", \"response\": {\"totalTokens\": 1}}\n{\"method\": \"embedContent\", \"response\": {\"embeddings\": []}}",
    true,
    &[],
)]
#[case::request_pairs_by_name_in_order(
    r#"{"contents": [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "a"}}, {"functionCall": {"name": "a"}}, {"functionCall": {"name": "b"}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "b", "response": {"output": 3}}}, {"functionResponse": {"name": "a", "response": {"error": "boom"}}}]},
        {"role": "model", "parts": [{"functionCall": {"name": "c"}}]}
    ]}"#,
    false,
    &[("a", 0, true, E), ("a", 0, false, U), ("b", 0, true, O), ("c", 1, false, U)],
)]
#[case::request_pairs_by_id(
    r#"{"contents": [
        {"role": "model", "parts": [{"functionCall": {"name": "a", "id": "1"}}, {"functionCall": {"name": "a", "id": "2"}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "a", "id": "2", "response": {"output": "x"}}}]}
    ]}"#,
    false,
    &[("a", 0, false, U), ("a", 0, true, O)],
)]
#[case::response_id_pairs_by_name_with_a_call_without_id(
    r#"{"contents": [
        {"role": "model", "parts": [{"functionCall": {"name": "a"}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "a", "id": "a-123", "response": {}}}]}
    ]}"#,
    false,
    &[("a", 0, true, O)],
)]
#[case::result_before_its_call_is_ignored(
    r#"{"contents": [
        {"role": "user", "parts": [{"functionResponse": {"name": "a", "response": {}}}]},
        {"role": "model", "parts": [{"functionCall": {"name": "a"}}]}
    ]}"#,
    false,
    &[("a", 0, false, U)],
)]
#[case::result_pairing_with_nothing_is_ignored(
    r#"{"contents": [
        {"role": "model", "parts": [{"functionCall": {"name": "a"}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "z", "response": {}}}, {"functionResponse": {"response": {}}}]}
    ]}"#,
    false,
    &[("a", 0, false, U)],
)]
#[case::duplicate_ids_pair_in_order(
    r#"{"contents": [
        {"role": "model", "parts": [{"functionCall": {"name": "a", "id": 7}}, {"functionCall": {"name": "b", "id": 7}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "a", "id": 7, "response": {}}}, {"functionResponse": {"name": "b", "id": "7", "response": {"isError": true}}}]}
    ]}"#,
    false,
    &[("a", 0, true, O), ("b", 0, true, E)],
)]
#[case::error_null_is_not_an_error(
    r#"{"contents": [
        {"role": "model", "parts": [{"functionCall": {"name": "a"}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "a", "response": {"output": "x", "error": null}}}]}
    ]}"#,
    false,
    &[("a", 0, true, O)],
)]
// A log of requests and responses: each request repeats the conversation so far, and its
// results answer the calls made before it, never a later call of the same name.
#[case::interleaved_requests_and_responses(
    "{\"contents\": [{\"role\": \"user\", \"parts\": [{\"text\": \"go\"}]}]}\n\
     {\"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": [{\"functionCall\": {\"name\": \"a\"}}]}}]}\n\
     {\"contents\": [{\"role\": \"user\", \"parts\": [{\"text\": \"go\"}]}, {\"role\": \"model\", \"parts\": [{\"functionCall\": {\"name\": \"a\"}}]}, {\"role\": \"user\", \"parts\": [{\"functionResponse\": {\"name\": \"a\", \"response\": {\"output\": 1}}}]}]}\n\
     {\"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": [{\"functionCall\": {\"name\": \"a\"}}]}}]}\n\
     {\"contents\": [{\"role\": \"user\", \"parts\": [{\"text\": \"go\"}]}, {\"role\": \"model\", \"parts\": [{\"functionCall\": {\"name\": \"a\"}}]}, {\"role\": \"user\", \"parts\": [{\"functionResponse\": {\"name\": \"a\", \"response\": {\"output\": 1}}}]}, {\"role\": \"model\", \"parts\": [{\"functionCall\": {\"name\": \"a\"}}]}]}",
    true,
    &[("a", 0, true, O), ("a", 1, false, U)],
)]
#[case::request_and_response_in_one_record(
    r#"[{"request": {"contents": [{"role": "user", "parts": [{"text": "go"}]}]}, "response": {"candidates": [{"content": {"parts": [{"functionCall": {"name": "a"}}]}}]}},
        {"request": {"contents": [{"role": "model", "parts": [{"functionCall": {"name": "a"}}]}, {"role": "function", "parts": [{"functionResponse": {"name": "a", "response": {}}}]}]}, "response": {"candidates": []}}]"#,
    false,
    &[("a", 0, true, O)],
)]
#[case::snake_case_and_null_parts(
    r#"{"contents": [
        {"role": "model", "parts": [{"function_call": {"name": "a"}, "function_response": null, "text": null}]},
        {"role": "user", "parts": [{"function_call": null, "function_response": {"name": "a", "response": {}}}]}
    ]}"#,
    false,
    &[("a", 0, true, O)],
)]
#[case::unknown_records_and_fields_are_skipped(
    "{\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"a\", \"extra\": 1}, \"thoughtSignature\": \"x\"}]}, \"finishReason\": \"STOP\", \"future\": {}}]}\n{\"error\": {\"code\": 429}}\n{\"future_record\": true}",
    true,
    &[("a", 0, false, U)],
)]
fn calls(#[case] text: &str, #[case] lines: bool, #[case] expected: &[(&str, u32, bool, Status)]) {
    check(text, lines, expected);
}

#[test]
fn args_results_and_ids() {
    let runs = read(
        r#"{"contents": [
            {"role": "model", "parts": [
                {"functionCall": {"name": "obj", "args": {"q": "x"}}},
                {"functionCall": {"name": "text", "args": "{\"q\": 1}"}},
                {"functionCall": {"name": "bad", "args": "{not json"}},
                {"functionCall": {"name": "none"}}
            ]},
            {"role": "user", "parts": [{"functionResponse": {"name": "obj", "response": {"output": "found"}}}, {"functionResponse": {"name": "none"}}]}
        ]}"#,
        false,
    );
    let calls = &runs[0].calls;
    assert_eq!(calls[0].args, json!({"q": "x"}));
    assert_eq!(calls[0].result().cloned(), Some(json!({"output": "found"})));
    assert_eq!(calls[1].args, json!({"q": 1}));
    assert_eq!(calls[2].args, json!("{not json"));
    assert_eq!(calls[2].args_raw.as_deref(), Some("{not json"));
    assert_eq!(calls[3].args, json!({}));
    // A response without `response` still completes its call, with no result.
    assert!(calls[3].completed);
    assert_eq!(calls[3].result().cloned(), None);
    assert_eq!(calls[3].status, O);
}

#[rstest]
#[case::default_does_not_split(Naming::Default, &[("mcp_github_list_issues", 0, false, U)])]
#[case::servers_split(
    Naming::McpSingle { servers: vec!["github".to_owned()] },
    &[("github.list_issues", 0, false, U)],
)]
fn naming_schemes(#[case] naming: Naming, #[case] expected: &[(&str, u32, bool, Status)]) {
    let text = r#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "mcp_github_list_issues"}}]}}]}"#;
    let options = ReadOptions {
        format: None,
        naming,
    };
    let runs = read_with(text, false, &options).unwrap();
    let got: Vec<_> = runs[0]
        .calls
        .iter()
        .map(|c| {
            let id = c
                .server
                .as_ref()
                .map_or_else(|| c.name.clone(), |s| format!("{s}.{}", c.name));
            (id, c.step, c.completed, c.status)
        })
        .collect();
    let expected: Vec<_> = expected
        .iter()
        .map(|(id, s, d, st)| ((*id).to_owned(), *s, *d, *st))
        .collect();
    assert_eq!(got, expected);
}

#[rstest]
#[case::call_without_name(
    r#"{"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}"#,
    false,
    "candidates[0].content.parts[0]"
)]
#[case::call_name_not_a_string(
    r#"{"contents": [{"role": "model", "parts": [{"text": "x"}, {"functionCall": {"name": 3}}]}]}"#,
    false,
    "contents[0].parts[1]"
)]
#[case::call_in_a_stream(r#"{"method": "generateContentStream", "response": [{"candidates": []}, {"candidates": [{"content": {"parts": [{"functionCall": {}}]}}]}]}"#, true, "response[1].candidates[0].content.parts[0]")]
fn unusable_records_are_errors(#[case] text: &str, #[case] lines: bool, #[case] path: &str) {
    match read_with(text, lines, &ReadOptions::default()) {
        Err(TraceError::Shape { message, .. }) => {
            assert!(message.contains(path), "{message}");
        }
        other => panic!("expected a shape error, got {other:?}"),
    }
}

#[rstest]
#[case::not_json("{\"candidates\": [}")]
#[case::later_line_not_json("{\"candidates\": []}\n{oops")]
fn malformed_json_is_an_error(#[case] text: &str) {
    assert!(matches!(
        read_with(text, true, &ReadOptions::default()),
        Err(TraceError::Syntax { .. })
    ));
}

#[rstest]
#[case::parts_not_a_list(
    r#"{"candidates": [{"content": {"parts": {"functionCall": {"name": "a"}}}}]}"#
)]
#[case::content_not_an_object(r#"{"candidates": [{"content": "x"}]}"#)]
#[case::candidates_of_scalars(r#"{"candidates": [1, "x", null]}"#)]
#[case::response_not_an_object(r#"{"method": "generateContent", "response": "x"}"#)]
#[case::function_response_not_an_object(r#"{"contents": [{"role": "model", "parts": [{"functionCall": {"name": "a"}}]}, {"role": "user", "parts": [{"functionResponse": "x"}, 4]}]}"#)]
fn odd_shapes_never_panic(#[case] text: &str) {
    let runs = read_with(text, false, &ReadOptions::default()).unwrap();
    assert_eq!(runs.len(), 1);
}
