//! Unit tests of the `cohere` adapter, through the public reader: the calls of a v2
//! response, its usage, detection, and a request body left to `openai-chat`.

use rstest::rstest;
use serde_json::{Value, json};

use crate::formats::testing::{assert_bad_count, read, summary, usage};
use crate::{Status, TraceError};

const RESPONSE: &str =
    include_str!("../../../../../fixtures/format-cohere-v2/vercel-ai__cohere-tool-call.json");

#[test]
fn reads_a_real_response() {
    let (format, runs) = read(RESPONSE, false).unwrap();
    assert_eq!(format, "cohere");
    assert_eq!(
        summary(&runs[0]),
        [
            ("weather".to_owned(), 0, false, Status::Unknown),
            ("cityAttractions".to_owned(), 0, false, Status::Unknown)
        ]
    );
    assert_eq!(runs[0].calls[1].args(), &json!({"city": "San Francisco"}));
}

#[test]
fn a_v2_request_body_reads_as_chat() {
    let body = json!({"model": "command-a", "messages": [{"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}}]}]});
    assert_eq!(read(&body.to_string(), false).unwrap().0, "openai-chat");
}

#[test]
fn a_call_without_a_name_is_an_error() {
    let text = json!({"message": {"role": "assistant", "tool_calls": [{"function": {}}]}, "finish_reason": "TOOL_CALL"});
    let error = read(&text.to_string(), false).unwrap_err();
    assert!(matches!(error, TraceError::Shape { .. }), "{error:?}");
}

#[test]
fn usage_is_the_tokens_the_model_read_and_wrote() {
    let (_, runs) = read(RESPONSE, false).unwrap();
    // `usage.tokens`, not `billed_units` (119 in, 52 out); a v2 response names no model.
    assert_eq!(usage(&runs[0]), [(String::new(), 1549, 103, Some(992))]);
    assert_eq!(runs[0].time, None);
}

#[rstest]
#[case::negative("input_tokens", "-1")]
#[case::fraction("output_tokens", "1.5")]
#[case::past_64_bits("input_tokens", "18446744073709551616")]
fn a_bad_token_count_is_an_error(#[case] key: &str, #[case] count: &str) {
    let mut response: Value = serde_json::from_str(RESPONSE).unwrap();
    response["usage"]["tokens"][key] = serde_json::from_str(count).unwrap();
    assert_bad_count(&response.to_string(), false, key, count);
}
