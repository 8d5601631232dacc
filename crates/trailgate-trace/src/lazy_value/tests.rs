//! Unit tests of lazily parsed values: what is kept as text, and that it parses into the
//! value a direct parse gives.

use rstest::rstest;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::{LazyValue, MAX_TEXT_DEPTH, Scan, scan, surely_plain, text_depth};
use crate::json_scan::string_stop;

fn raw(text: &str) -> Box<RawValue> {
    serde_json::from_str(text).unwrap()
}

fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

/// Scans `text`, and checks that text kept by `from_text` parses into what a direct parse
/// gives, and that text a direct parse refuses is never kept.
#[track_caller]
fn check(text: &str, expected: Scan) {
    assert_eq!(scan(text.as_bytes()), expected, "{text}");
    // The quick check says plain only of plain text.
    assert!(
        !surely_plain(text.as_bytes()) || expected == Scan::Plain,
        "{text}"
    );
    let direct = serde_json::from_str::<Value>(text);
    match LazyValue::from_text(&raw(text)) {
        Some(kept) => {
            assert_eq!(kept.is_parsed(), expected != Scan::Plain, "{text}");
            assert_eq!(kept.get(), &direct.unwrap(), "{text}");
        }
        None => assert!(expected == Scan::TooDeep || direct.is_err(), "{text}"),
    }
}

#[rstest]
#[case::object(r#"{"q": "x", "n": [1, 2.5, -3, true, false, null]}"#, Scan::Plain)]
#[case::brackets_in_strings(r#"{"a": "[[[{", "b": "\"]}"}"#, Scan::Plain)]
#[case::escapes(r#""a\"b\\c\/\b\f\n\r\t\u00e9""#, Scan::Plain)]
#[case::surrogate_pair(r#""\ud83d\ude00""#, Scan::Plain)]
#[case::surrogate_pair_in_key(r#"{"\uD83D\uDE00": 1}"#, Scan::Plain)]
#[case::lone_leading_surrogate(r#""\ud800""#, Scan::Unsure)]
#[case::lone_trailing_surrogate(r#"{"a": "x\udc00"}"#, Scan::Unsure)]
#[case::leading_then_letter(r#""\ud800\u0041""#, Scan::Unsure)]
#[case::leading_then_leading(r#""\ud800\ud800\udc00""#, Scan::Unsure)]
#[case::leading_then_other_escape(r#""\ud800\n""#, Scan::Unsure)]
#[case::small_exponent("[1e5, 1E+2, 2.5e-10]", Scan::Plain)]
#[case::huge_exponent("1e400", Scan::Unsure)]
#[case::huge_negative_exponent("[-1e400]", Scan::Unsure)]
#[case::tiny_exponent("1e-400", Scan::Unsure)]
#[case::long_integer(&"9".repeat(400), Scan::Unsure)]
#[case::u64_integer("18446744073709551616", Scan::Plain)]
#[case::deepest_kept(&nested(MAX_TEXT_DEPTH), Scan::Plain)]
#[case::too_deep_to_keep(&nested(MAX_TEXT_DEPTH + 1), Scan::TooDeep)]
#[case::deep_objects(&format!("{}1{}", r#"{"a":"#.repeat(MAX_TEXT_DEPTH + 1), "}".repeat(MAX_TEXT_DEPTH + 1)), Scan::TooDeep)]
fn texts(#[case] text: &str, #[case] expected: Scan) {
    check(text, expected);
}

#[rstest]
#[case::plain(r#"{"q": "x", "n": [1, 2.5, -3]}"#, true)]
#[case::empty("", true)]
#[case::escape(r#""a\nb""#, false)]
#[case::exponent("[1e5]", false)]
#[case::exponent_like_text(r#""see 3e-2""#, false)]
#[case::letter_e_in_text(r#"{"the": "one 2"}"#, true)]
#[case::many_digits(&format!("[{}]", "1,".repeat(300) + "1"), false)]
#[case::digits_at_the_limit(&format!("\"{}\"", "1".repeat(300)), true)]
#[case::brackets_in_a_short_string(&format!("\"{}\"", "[".repeat(MAX_TEXT_DEPTH + 1)), true)]
#[case::brackets_in_strings(&format!("\"{}\"", "[".repeat(2 * MAX_TEXT_DEPTH)), false)]
#[case::digits_in_a_short_text(&format!("[{}]", "1,".repeat(120) + "1"), true)]
#[case::brackets_at_the_limit(&format!("[\"{}\"]", "{".repeat(MAX_TEXT_DEPTH - 1)), true)]
#[case::long_text(&format!("\"{}\"", "abc ".repeat(1000)), true)]
fn quick_check(#[case] text: &str, #[case] plain: bool) {
    assert_eq!(surely_plain(text.as_bytes()), plain, "{text}");
}

#[test]
fn text_is_parsed_once_on_first_use() {
    let value = LazyValue::from_text(&raw(r#"{"b": 1, "a": [2]}"#)).unwrap();
    assert!(!value.is_parsed());
    let first: *const Value = value.get();
    assert!(value.is_parsed());
    assert!(std::ptr::eq(first, value.get()));
    assert_eq!(value.clone().into_value(), json!({"a": [2], "b": 1}));
    assert!(
        !LazyValue::from_text(&raw("[1]"))
            .unwrap()
            .clone()
            .is_parsed()
    );
}

#[test]
fn equality_and_debug_are_those_of_the_parsed_value() {
    let text = LazyValue::from_text(&raw(r#"{"b": 1.0, "a": "x"}"#)).unwrap();
    let value = LazyValue::new(json!({"a": "x", "b": 1.0}));
    assert_eq!(text, value);
    assert_eq!(text, json!({"a": "x", "b": 1.0}));
    assert_ne!(text, LazyValue::new(json!({"a": "x", "b": 1})));
    assert_eq!(format!("{text:?}"), format!("{:?}", value.get()));
    assert_eq!(format!("{text:#?}"), format!("{:#?}", value.get()));
}

#[test]
fn depth_is_measured_on_text_and_values_alike() {
    for depth in [0, 1, 5, MAX_TEXT_DEPTH] {
        let text = nested(depth);
        assert_eq!(text_depth(text.as_bytes()), depth);
        let kept = LazyValue::from_text(&raw(&text)).unwrap();
        let built = LazyValue::new(serde_json::from_str(&text).unwrap());
        for limit in [0, 1, 4, MAX_TEXT_DEPTH - 1, MAX_TEXT_DEPTH] {
            assert_eq!(
                kept.nests_deeper_than(limit),
                depth > limit,
                "{depth} {limit}"
            );
            assert_eq!(built.nests_deeper_than(limit), depth > limit);
        }
        assert!(!kept.is_parsed(), "measuring the depth parses nothing");
    }
    assert_eq!(text_depth(br#"[{"a": "]]]", "b": {}}, []]"#), 3);
}

#[test]
fn a_lazy_value_is_send_and_sync() {
    fn shared<T: Send + Sync>() {}
    shared::<LazyValue>();
    shared::<crate::Call>();
}

#[rstest]
#[case::object(r#"{"status": 503, "body": "x"}"#)]
#[case::canonical_object(r#"{"body":"x","status":503}"#)]
#[case::key_twice(r#"{"a": 1, "a": 2}"#)]
#[case::string(r#""text \u0041""#)]
#[case::array("[1, {\"b\": true}]")]
fn a_whole_view_reads_as_a_view_does_without_an_index(#[case] text: &str) {
    let whole = LazyValue::from_text(&raw(text)).unwrap();
    let indexed = LazyValue::from_text(&raw(text)).unwrap();
    assert_eq!(
        whole.whole_view().match_text(),
        indexed.view().match_text(),
        "{text}"
    );
    assert_eq!(
        whole.whole_view().get("a"),
        indexed.view().get("a"),
        "{text}"
    );
    // The whole view made no index: a later view makes it.
    assert!(matches!(&whole.0, super::Repr::Text { index, .. } if index.get().is_none()));
    // A view made already, or a parse, is used.
    assert_eq!(indexed.whole_view().match_text(), whole.view().match_text());
    whole.get();
    assert_eq!(whole.whole_view().match_text(), indexed.view().match_text());
}

/// The search for a string's end a byte at a time: the first `"`, `\\`, or, with
/// `controls`, control character at or after `at`.
fn naive_stop(bytes: &[u8], at: usize, controls: bool) -> usize {
    bytes
        .iter()
        .skip(at)
        .position(|&byte| byte == b'"' || byte == b'\\' || (controls && byte < 0x20))
        .map_or(bytes.len(), |found| at + found)
}

proptest::proptest! {
    /// Wherever the first quote, backslash or control character is, in or across the words
    /// and pairs of words [`string_stop`] reads, or past the end, it finds it; told not to
    /// look for control characters, it finds the first quote or backslash.
    #[test]
    fn a_string_ends_where_a_byte_at_a_time_search_says(
        bytes in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b'"', b'\\', 0x01, 0x1f, b' ', 0x7f, 0xc3, 0xa9]),
            0..80,
        ),
        start in 0_usize..80,
    ) {
        let at = start.min(bytes.len());
        for controls in [true, false] {
            proptest::prop_assert_eq!(
                string_stop(&bytes, at, controls),
                naive_stop(&bytes, at, controls)
            );
        }
    }

    /// In a long plain stretch, where the search past the first sixteen bytes is
    /// `memchr`'s, the stop found is the first one, wherever it is, or the end.
    #[test]
    fn a_long_string_ends_where_a_byte_at_a_time_search_says(
        length in 0_usize..300,
        stops in proptest::collection::vec((0_usize..300, proptest::sample::select(vec![b'"', b'\\', 0x01])), 0..3),
        start in 0_usize..40,
    ) {
        let mut bytes = vec![b'a'; length];
        for (at, stop) in stops {
            if let Some(byte) = bytes.get_mut(at) {
                *byte = stop;
            }
        }
        let at = start.min(bytes.len());
        for controls in [true, false] {
            proptest::prop_assert_eq!(
                string_stop(&bytes, at, controls),
                naive_stop(&bytes, at, controls)
            );
        }
    }
}
