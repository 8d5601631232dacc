//! Transcoding keeps every value, and every number as written.

use rstest::rstest;

use super::{JsonRead, JsonText};

#[track_caller]
fn check(input: &str, expected: &str) {
    let written = serde_json::to_string(&JsonText(input)).expect("the JSON transcodes");
    assert_eq!(written, expected);
    let read = serde_json::to_string(&JsonRead::new(input.as_bytes())).expect("it transcodes");
    assert_eq!(read, expected, "read from a reader");
}

#[rstest]
#[case::big_integer("12345678901234567890123", "12345678901234567890123")]
#[case::integer_past_2_53("9007199254740993", "9007199254740993")]
// serde_json writes an exponent with its sign; the value is the one written.
#[case::trailing_zeros("[1.50, 1e400, -0.0]", "[1.50,1e+400,-0.0]")]
#[case::nested(
    r#"{"b": {"x": [1, "two", null, true]}, "a": 2.5}"#,
    r#"{"b":{"x":[1,"two",null,true]},"a":2.5}"#
)]
#[case::empty_containers(r#"{"a": {}, "b": []}"#, r#"{"a":{},"b":[]}"#)]
#[case::escapes(r#""line\nbreak \u00e9""#, r#""line\nbreak é""#)]
fn keeps_values_and_numbers_as_written(#[case] input: &str, #[case] expected: &str) {
    check(input, expected);
}

#[test]
fn trailing_text_is_an_error() {
    assert!(serde_json::to_string(&JsonText("1 2")).is_err());
    assert!(serde_json::to_string(&JsonRead::new(&b"1 2"[..])).is_err());
}
