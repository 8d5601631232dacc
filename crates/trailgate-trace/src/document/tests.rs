//! Unit tests of the native parse: keeping values as text gives the run, or the error,
//! that parsing every value into a `Value` gives.

use rstest::rstest;
use serde_json::Value;

use super::{Document, parse_native, parse_native_into};
use crate::lazy_value::MAX_TEXT_DEPTH;

/// The reference: every value parsed into a `Value`, as before values were kept as text.
fn with_values(text: &str) -> Result<crate::Run, serde_json::Error> {
    serde_json::from_str::<Document<Value>>(text).map(|document| {
        document
            .into_run_with(|value| Some(crate::LazyValue::new(value)))
            .unwrap_or_default()
    })
}

fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

fn call_list(args: &str) -> String {
    format!(r#"{{"tool_calls": [{{"name": "a"}}, {{"name": "b", "args": {args}, "result": 1}}]}}"#)
}

fn events(fields: &str) -> String {
    format!(
        r#"{{"events": [{{"type": "tool_call", "toolName": "a", "toolCallId": 1}}, {fields}]}}"#
    )
}

/// A run read before, with more calls than most cases, servers, results and fields set,
/// which the reading of the next line reuses.
fn used_run() -> crate::Run {
    let text = r#"{"tool_calls": [
        {"name": "old", "server": "s", "args": {"x": 1}, "result": "r", "status": "error", "step": 3},
        {"name": "older", "server": "t", "args_raw": "{", "completed": false},
        {"name": "oldest", "args": [1], "result": {"y": 2}},
        {"name": "four"}, {"name": "five", "server": "u"}
    ]}"#;
    parse_native(text).unwrap()
}

/// `parse_native` and the reference agree: the same run, or an error with the same message
/// at the same line and column; and reading the text over a used run gives the same.
/// Returns whether it was a run.
#[track_caller]
fn check(text: &str) -> bool {
    let source = std::sync::Arc::new(format!("[pad]{text}[pad]"));
    let range = 5..5 + text.len();
    let mut reused = used_run();
    match (
        parse_native_into(&mut reused, &source, range),
        with_values(text),
    ) {
        (Ok(()), Ok(reference)) => {
            assert_eq!(reused, reference, "read over a run: {text}");
            let values = reused
                .calls
                .iter()
                .flat_map(|call| [Some(&call.args), call.result.as_ref()]);
            assert!(
                values.flatten().all(crate::LazyValue::index_is_the_texts),
                "an index gathered in reading differs from the text's: {text}"
            );
        }
        (Err(error), Err(reference)) => {
            assert_eq!(error.to_string(), reference.to_string(), "{text}");
        }
        (got, reference) => panic!("read over a run: {text}: {got:?} against {reference:?}"),
    }
    match (parse_native(text), with_values(text)) {
        (Ok(run), Ok(reference)) => {
            assert_eq!(run, reference, "{text}");
            true
        }
        (Err(error), Err(reference)) => {
            assert_eq!(error.to_string(), reference.to_string(), "{text}");
            false
        }
        (got, reference) => panic!("{text}: {got:?} against {reference:?}"),
    }
}

#[rstest]
#[case::plain(&call_list(r#"{"q": "x", "n": [1, 2.5e3, null]}"#), true)]
#[case::null_args_and_result(
    r#"{"tool_calls": [{"name": "a", "args": null, "result": null}]}"#,
    true
)]
#[case::scalar_args(&call_list(r#""text""#), true)]
#[case::duplicate_keys(&call_list(r#"{"q": 1, "q": 2}"#), true)]
#[case::surrogate_pair(&call_list(r#"{"q": "\ud83d\ude00"}"#), true)]
#[case::lone_surrogate(&call_list(r#"{"q": "\ud800"}"#), false)]
#[case::lone_trailing_surrogate_in_key(&call_list(r#"{"\udc00": 1}"#), false)]
// Numbers keep their text (serde_json's `arbitrary_precision`), so none is out of range.
#[case::number_out_of_range(&call_list("[1e400]"), true)]
#[case::long_number_in_range(&call_list(&format!("[{}]", "9".repeat(300))), true)]
#[case::tiny_number(&call_list("[1e-400]"), true)]
#[case::trailing_comma_in_array(&call_list("[1,]"), false)]
#[case::trailing_comma_in_object(&call_list(r#"{"a": 1,}"#), false)]
#[case::bad_literal(&call_list("{\"a\": tru}"), false)]
#[case::leading_zero(&call_list("[01]"), false)]
#[case::control_character(&call_list("\"a\tb\""), false)]
#[case::unterminated(r#"{"tool_calls": [{"name": "a", "args": {"q": "x"#, false)]
#[case::deepest_text(&call_list(&nested(MAX_TEXT_DEPTH)), true)]
#[case::deepest_value(&call_list(&nested(MAX_TEXT_DEPTH + 1)), true)]
#[case::too_deep(&call_list(&nested(MAX_TEXT_DEPTH + 2)), false)]
#[case::event_args(&events(r#"{"type": "tool_result", "toolCallId": 1, "result": {"r": [1]}}"#), true)]
#[case::event_data_deepest_text(&events(&format!(r#"{{"type": "tool_call", "data": {{"toolName": "b", "arguments": {}}}}}"#, nested(MAX_TEXT_DEPTH))), true)]
#[case::event_data_too_deep(&events(&format!(r#"{{"type": "tool_call", "data": {{"toolName": "b", "arguments": {}}}}}"#, nested(MAX_TEXT_DEPTH + 1))), false)]
#[case::unused_result(&events(r#"{"type": "tool_result", "toolCallId": 9, "result": "\udc00"}"#), false)]
#[case::unused_data_args(&events(r#"{"type": "tool_call", "toolName": "b", "args": 1, "data": {"args": [1e999]}}"#), true)]
#[case::other_event_args(&events(r#"{"type": "note", "arguments": "\ud800"}"#), false)]
#[case::unknown_field_is_not_parsed(&call_list(r#"1, "extra": "\ud800""#), true)]
#[case::every_field(
    r#"{"x": [1], "tool_calls": [{"step": 2, "name": "a", "server": "s", "arguments": {"q": 1}, "result": [true], "status": "ok", "args_raw": "{", "completed": false, "extra": {"n": null}}], "y": 2}"#,
    true
)]
#[case::server_null(
    r#"{"tool_calls": [{"name": "a", "server": null, "status": null, "step": null}]}"#,
    true
)]
#[case::escaped_name(r#"{"tool_calls": [{"name": "a\u0062", "server": "s\n"}]}"#, true)]
#[case::no_calls(r#"{"tool_calls": []}"#, true)]
#[case::usage(r#"{"usage": {"m": {"input_tokens": 10, "output_tokens": 2, "cached_input_tokens": 4}, "n": {"output_tokens": 1, "input_tokens": 0}}, "tool_calls": [{"name": "a"}]}"#, true)]
#[case::usage_after_calls(r#"{"tool_calls": [{"name": "a"}], "usage": {"m": {"input_tokens": 18446744073709551615, "output_tokens": 0}}}"#, true)]
#[case::usage_negative(
    r#"{"usage": {"m": {"input_tokens": -1, "output_tokens": 0}}, "tool_calls": []}"#,
    false
)]
#[case::usage_fraction(
    r#"{"usage": {"m": {"input_tokens": 1.5, "output_tokens": 0}}, "tool_calls": []}"#,
    false
)]
#[case::usage_past_64_bits(r#"{"usage": {"m": {"input_tokens": 18446744073709551616, "output_tokens": 0}}, "tool_calls": []}"#, false)]
#[case::usage_without_output(r#"{"usage": {"m": {"input_tokens": 1}}, "tool_calls": []}"#, false)]
#[case::usage_unknown_key(
    r#"{"usage": {"m": {"input_tokens": 1, "output_tokens": 1, "total": 2}}, "tool_calls": []}"#,
    false
)]
#[case::usage_twice(r#"{"usage": {}, "usage": {}, "tool_calls": []}"#, false)]
#[case::run_times(r#"{"started_at": "2025-06-02T10:00:00Z", "ended_at": "2025-06-02T12:00:00.000000001+02:00", "tool_calls": [{"name": "a"}]}"#, true)]
#[case::run_start_only(r#"{"started_at": "2025-06-02T10:00:00Z", "tool_calls": []}"#, false)]
#[case::run_end_before_start(r#"{"started_at": "2025-06-02T10:00:01Z", "ended_at": "2025-06-02T10:00:00Z", "tool_calls": []}"#, false)]
#[case::run_time_not_rfc3339(
    r#"{"started_at": "yesterday", "ended_at": "2025-06-02T10:00:00Z", "tool_calls": []}"#,
    false
)]
#[case::call_times(r#"{"tool_calls": [{"name": "a", "started_at": "2025-06-02T10:00:00.25Z", "ended_at": "2025-06-02T10:00:01.25Z"}, {"name": "b"}]}"#, true)]
#[case::call_end_only(
    r#"{"tool_calls": [{"name": "a", "ended_at": "2025-06-02T10:00:01Z"}]}"#,
    false
)]
#[case::event_usage(r#"{"usage": {"m": {"input_tokens": 3, "output_tokens": 4}}, "events": [{"type": "turn_start"}]}"#, true)]
#[case::name_twice(r#"{"tool_calls": [{"name": "a", "name": "b"}]}"#, false)]
#[case::args_and_arguments(
    r#"{"tool_calls": [{"name": "a", "args": {}, "arguments": {}}]}"#,
    false
)]
#[case::calls_twice(r#"{"tool_calls": [], "tool_calls": []}"#, false)]
#[case::calls_null_and_events(r#"{"tool_calls": null, "events": []}"#, true)]
#[case::calls_and_events(r#"{"tool_calls": [], "events": []}"#, false)]
#[case::no_name(r#"{"tool_calls": [{"server": "s"}]}"#, false)]
#[case::name_not_a_string(r#"{"tool_calls": [{"name": 1}]}"#, false)]
#[case::bad_status(r#"{"tool_calls": [{"name": "a", "status": "fine"}]}"#, false)]
#[case::negative_step(r#"{"tool_calls": [{"name": "a", "step": -1}]}"#, false)]
#[case::call_not_an_object(r#"{"tool_calls": [1]}"#, false)]
#[case::not_an_object("[1]", false)]
#[case::trailing_text(r#"{"tool_calls": []} x"#, false)]
#[case::spaces_everywhere(
    " \t{ \"tool_calls\" :\r\n[ { \"name\" : \"a\" , \"args\" : { \"q\" : [ 1 , 2 ] } } ] }\n ",
    true
)]
#[case::step_written_as_a_float(r#"{"tool_calls": [{"name": "a", "step": 1.0}]}"#, false)]
#[case::step_out_of_range(r#"{"tool_calls": [{"name": "a", "step": 4294967296}]}"#, false)]
#[case::escaped_key(r#"{"tool_calls": [{"n\u0061me": "a"}]}"#, true)]
#[case::escaped_top_level_key(r#"{"tool_c\u0061lls": [{"name": "a"}]}"#, true)]
#[case::bad_hex_escape(&call_list(r#""\u+041""#), false)]
#[case::unknown_escape(&call_list(r#""\x41""#), false)]
#[case::control_character_in_an_unknown_field(
    "{\"tool_calls\": [{\"name\": \"a\", \"note\": \"a\u{1}b\"}]}",
    false
)]
#[case::status_as_an_object(r#"{"tool_calls": [{"name": "a", "status": {"ok": null}}]}"#, true)]
#[case::fraction_without_digits(&call_list("[1.]"), false)]
#[case::exponent_without_digits(&call_list("[1e+]"), false)]
#[case::shape_error_after_a_kept_value(
    r#"{"tool_calls": [{"name": "a", "args": {"q": 1}}, {"name": 5}]}"#,
    false
)]
fn text_and_values_agree(#[case] text: &str, #[case] is_run: bool) {
    assert_eq!(check(text), is_run);
}

#[test]
fn arguments_and_results_are_kept_as_text() {
    let run = parse_native(&call_list(r#"{"q": "x"}"#)).unwrap();
    let call = &run.calls[1];
    assert!(!call.args.is_parsed());
    assert!(
        call.result
            .as_ref()
            .is_some_and(|result| !result.is_parsed())
    );
    assert_eq!(call.args(), &serde_json::json!({"q": "x"}));
    assert!(call.args.is_parsed());
    // A number that could be out of range is parsed when read; what is absent is built.
    let run = parse_native(&call_list("[1e100]")).unwrap();
    assert!(run.calls[1].args.is_parsed());
    assert!(run.calls[0].args.is_parsed());
}

/// A call-list document of entries made of field snippets, right and wrong: names and
/// servers with escapes or of the wrong type, both spellings of the arguments, fields twice,
/// nulls, unknown fields, values that cannot be kept as text.
fn call_list_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let field = prop_oneof![
        Just(r#""name": "a""#),
        Just(r#""name": "b\u0063""#),
        Just(r#""name": 1"#),
        Just(r#""server": "s""#),
        Just(r#""server": null"#),
        Just(r#""server": "t\n""#),
        Just(r#""args": {"q": "x", "n": [1, 2.5]}"#),
        Just(r#""args": null"#),
        Just(r#""arguments": "text""#),
        Just(r#""args": {"q": "\ud800"}"#),
        Just(r#""result": [1e400]"#),
        Just(r#""result": {"r": true}"#),
        Just(r#""status": "ok""#),
        Just(r#""status": "maybe""#),
        Just(r#""step": 4"#),
        Just(r#""step": -1"#),
        Just(r#""args_raw": "{""#),
        Just(r#""completed": false"#),
        Just(r#""other": {"deep": [[]]}"#),
        Just(r#""args": {"n": -0.5e+10, "s": "a\"b\\c\/\b\f\n\r\t\u0041", "e": [ 0 , -1E-2 ] }"#),
        Just(r#""result": "\ud83d\ude00""#),
        Just(r#""result": {"k": 1, "k": [true, false, null]}"#),
        Just(r#""status": "error""#),
        Just(r#""status": "unknown""#),
        Just(r#""step": 0"#),
        Just(r#""step": 4294967296"#),
        Just(r#""step": 1.0"#),
        Just(r#""completed": null"#),
        Just(r#""args_raw": "a\"b""#),
        Just(r#""other": "\udc00""#),
    ];
    let call =
        prop::collection::vec(field, 0..5).prop_map(|fields| format!("{{{}}}", fields.join(", ")));
    let top = prop_oneof![
        Just(""),
        Just(r#""meta": 1, "#),
        Just(r#""events": [], "#),
        Just(r#""tool_calls": [], "#),
    ];
    (top, prop::collection::vec(call, 0..4))
        .prop_map(|(top, calls)| format!(r#"{{{top}"tool_calls": [{}]}}"#, calls.join(", ")))
}

proptest::proptest! {
    /// Reading over a used run, through the call-list visitor or the derived parse it
    /// leaves a document to, gives the reference's run or error.
    #[test]
    fn reading_over_a_run_gives_the_reference(text in call_list_text()) {
        check(&text);
    }

    /// The same with a few bytes inserted or deleted anywhere: text that is no longer JSON,
    /// or is JSON of another shape, is refused or read exactly as the reference reads it.
    #[test]
    fn reading_edited_text_gives_the_reference(text in edited_call_list_text()) {
        check(&text);
    }
}

/// A [`call_list_text`] with one to four edits, each inserting a snippet of JSON's syntax
/// at some byte, after deleting that byte or not.
fn edited_call_list_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let snippet = prop::sample::select(vec![
        "",
        ",",
        "]",
        "}",
        "[",
        "{",
        "\"",
        "\\",
        "\t",
        "\u{1}",
        "0",
        "1",
        "-",
        ".",
        "e",
        "+",
        " ",
        ":",
        "n",
        "null",
        "\\u",
        "d800",
        "tool_calls",
        "events",
    ]);
    let edit = (any::<prop::sample::Index>(), snippet, any::<bool>());
    (call_list_text(), prop::collection::vec(edit, 1..5)).prop_map(|(mut text, edits)| {
        for (at, snippet, delete) in edits {
            // The text is ASCII: every byte is a character boundary.
            let at = at.index(text.len() + 1);
            if delete && at < text.len() {
                text.remove(at);
            }
            text.insert_str(at, snippet);
        }
        text
    })
}

/// The arguments of the second call of [`call_list`], read by the call-list reader.
fn read_args(args: &str) -> crate::LazyValue {
    let text = call_list(args);
    let mut run = crate::Run::default();
    parse_native_into(&mut run, &std::sync::Arc::new(text.clone()), 0..text.len()).unwrap();
    run.calls.swap_remove(1).args
}

/// The reader notes, as it reads arguments, whether their text is its own equality key;
/// text it does not note is looked at again when the key is asked for.
#[rstest]
#[case::compact_sorted(r#"{"a":[1,-2,true,null],"b":{"c":"d","e":{}}}"#, true)]
#[case::not_an_object(r#"[1,"x",{"a":0}]"#, true)]
#[case::a_string(r#""plain""#, true)]
#[case::space_between_members(r#"{"a": 1}"#, false)]
#[case::space_in_an_array(r#"{"a":[1, 2]}"#, false)]
#[case::space_in_an_empty_object(r#"{"a":{ }}"#, false)]
#[case::keys_out_of_order(r#"{"b":1,"a":2}"#, false)]
#[case::inner_keys_out_of_order(r#"{"a":{"y":1,"x":2}}"#, false)]
#[case::key_twice(r#"{"a":1,"a":2}"#, false)]
#[case::escape(r#"{"a":"\u0061"}"#, false)]
#[case::fraction(r#"{"a":1.0}"#, false)]
#[case::exponent(r#"{"a":1e2}"#, false)]
#[case::negative_zero(r#"{"a":-0}"#, false)]
#[case::nineteen_digits(r#"{"a":1234567890123456789}"#, false)]
#[case::eighteen_digits(r#"{"a":-123456789012345678}"#, true)]
fn the_reader_notes_canonical_arguments(#[case] args: &str, #[case] canonical: bool) {
    let read = read_args(args);
    assert_eq!(read.read_as_canonical(), canonical, "{args}");
    assert_eq!(read.equality_key(), read.view().equality_key(), "{args}");
}

proptest::proptest! {
    /// Whatever the reader notes of arguments, their equality key is the one their view
    /// writes (the view checks the text itself, or parses it).
    #[test]
    fn read_arguments_have_the_key_of_their_view(args in crate::value_ref::tests::json_text()) {
        let read = read_args(&args);
        proptest::prop_assert_eq!(read.equality_key(), read.view().equality_key());
    }
}

/// A call list's usage and times, as read: the run spans its calls when it gives no times of
/// its own.
#[test]
fn usage_and_times_are_read_as_written() {
    let run = parse_native(
        r#"{"usage": {"m": {"input_tokens": 10, "output_tokens": 2, "cached_input_tokens": 4}},
            "tool_calls": [
              {"name": "a", "started_at": "2025-06-02T10:00:00.25Z", "ended_at": "2025-06-02T10:00:01Z"},
              {"name": "b", "started_at": "2025-06-02T10:00:02Z", "ended_at": "2025-06-02T10:00:02.000000007Z"}
            ]}"#,
    )
    .unwrap();
    let tokens = run.usage.models["m"];
    assert_eq!(
        (tokens.input, tokens.output, tokens.cached_input),
        (10, 2, Some(4))
    );
    let second = 1_748_858_400_i64 * 1_000_000_000;
    let time = run.time.unwrap();
    assert_eq!(
        (time.start_ns - second, time.end_ns - second),
        (250_000_000, 2_000_000_007)
    );
    let call = run.calls[1].time.unwrap();
    assert_eq!(call.end_ns - call.start_ns, 7);
}
