//! Unit tests of the `cohere` adapter, through the public reader: the calls of a v2
//! response, detection, and a request body left to `openai-chat`.

use serde_json::json;

use crate::formats::testing::{read, summary};
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
