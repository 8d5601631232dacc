//! Unit tests of value views: every answer read from the text is the answer of the parse.

use proptest::prelude::*;
use rstest::rstest;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::Numbers;
use crate::equality::args_equal;
use crate::lazy_value::LazyValue;

fn kept(text: &str) -> LazyValue {
    let raw: Box<RawValue> = serde_json::from_str(text).unwrap();
    let kept = LazyValue::from_text(&raw).unwrap();
    assert!(!kept.is_parsed(), "{text} is kept as text");
    kept
}

/// The value as the reader keeps it: as text, or parsed when it holds a number too long to
/// be surely within a float's range (`1e1000000000000000000`).
fn read(text: &str) -> LazyValue {
    let raw: Box<RawValue> = serde_json::from_str(text).unwrap();
    LazyValue::from_text(&raw).unwrap()
}

/// Every question asked of the text view gets the parse's answer.
#[track_caller]
fn check_against_parse(text: &str, keys: &[&str], others: &[Value]) {
    let parsed: Value = serde_json::from_str(text).unwrap();
    let lazy = kept(text);
    let view = lazy.view();
    for key in keys {
        assert_eq!(
            view.get(key).map(|member| member.to_value().into_owned()),
            parsed.get(key).filter(|_| parsed.is_object()).cloned(),
            "member {key} of {text}"
        );
    }
    assert_eq!(view.is_object(), parsed.is_object(), "{text}");
    let members = view.members().map(|members| {
        members
            .into_iter()
            .map(|(key, value)| (key.into_owned(), value.to_value().into_owned()))
            .collect::<Vec<_>>()
    });
    let parsed_members = parsed.as_object().map(|object| {
        object
            .iter()
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect::<Vec<_>>()
    });
    assert_eq!(members, parsed_members, "members of {text}");
    assert_eq!(view.as_str().as_deref(), parsed.as_str(), "{text}");
    assert_eq!(
        view.canonical_json(),
        serde_json::to_string(&parsed).unwrap(),
        "{text}"
    );
    assert!(view.equals(&parsed), "{text} equals its parse");
    for other in others {
        assert_eq!(
            view.equals(other),
            args_equal(other, &parsed),
            "{text} against {other}"
        );
    }
    assert!(!lazy.is_parsed(), "reading {text} did not parse it");
}

/// An object of more members than are gathered on the stack, `a` and `b` last, and then
/// `extra` members.
fn many_members(extra: &[&str]) -> String {
    let mut members: Vec<String> = (0..20).map(|n| format!("\"k{n}\": {n}")).collect();
    members.push(r#""a": 1"#.to_owned());
    members.push(r#""b": {"c": [2]}"#.to_owned());
    members.extend(extra.iter().map(|member| (*member).to_owned()));
    format!("{{{}}}", members.join(", "))
}

#[rstest]
#[case::object(r#"{"command": "cargo test", "path": "src/a.rs"}"#)]
#[case::compact_sorted(r#"{"a":1,"b":[true,null,"x"],"c":{"d":-5}}"#)]
#[case::unsorted(r#"{"b":1,"a":2}"#)]
#[case::spaced(r#"{ "a" : 1 }"#)]
#[case::key_twice(r#"{"a":1,"b":2,"a":3}"#)]
#[case::key_twice_equal_last(r#"{"a":[1],"a":{"x":1}}"#)]
#[case::escaped_key(r#"{"com\u006dand": "ls", "a\"b": 1}"#)]
#[case::escaped_string(r#""line\nbreak \u00e9""#)]
#[case::plain_string(r#""cargo build""#)]
#[case::numbers(
    "[1, 1.0, 1.5, -0, 0, 1e2, 123456789012345678, 1234567890123456789, 18446744073709551615]"
)]
#[case::leading_space_number(" 7")]
#[case::literals("[true,false,null]")]
#[case::empty_object("{}")]
#[case::empty_array("[]")]
#[case::nested_twice(r#"{"a":{"k":1,"k":2}}"#)]
#[case::many_members(&many_members(&[]))]
#[case::many_members_one_twice(&many_members(&["\"a\": 9"]))]
fn views_answer_as_the_parse_does(#[case] text: &str) {
    let others = [
        json!({"a": 1, "b": 2}),
        json!({"a": 3, "b": 2}),
        json!({"a": 1}),
        json!({"a": {"x": 1}}),
        json!({"a": {"k": 2}}),
        json!({"command": "cargo test", "path": "src/a.rs"}),
        json!([1, 1, 1.5, 0, 0, 100, 123_456_789_012_345_678_u64]),
        json!("cargo build"),
        json!(7),
        json!(7.0),
        json!(null),
        json!([]),
        json!({}),
    ];
    check_against_parse(text, &["a", "b", "command", "k", "a\"b"], &others);
}

/// `as_is`: the text is its own equality key; `written_as_is`: it is what `canonical_json`
/// writes (`serde_json` keeps each number's text but writes an exponent as `e` and a sign).
#[rstest]
#[case::sorted_compact(r#"{"a":1,"b":"x"}"#, true, true)]
#[case::unsorted(r#"{"b":1,"a":2}"#, false, false)]
#[case::twice(r#"{"a":1,"a":1}"#, false, false)]
#[case::space(r#"{"a": 1}"#, false, false)]
#[case::escape(r#""a\nb""#, false, false)]
#[case::fraction("1.5", false, true)]
#[case::fraction_in_an_object(r#"{"hits":[{"score":0.861,"url":"x"}],"total":3}"#, false, true)]
#[case::trailing_zero("1.50", false, true)]
#[case::exponent_with_sign("-1.25e+10", false, true)]
#[case::negative_exponent("1.5e-3", false, true)]
#[case::exponent_without_sign("1e5", false, false)]
#[case::capital_exponent("1E+5", false, false)]
#[case::negative_zero("-0", false, true)]
#[case::leading_zero_is_not_json_but_zero_is("0", true, true)]
#[case::long_integer("1234567890123456789", false, true)]
#[case::nested_objects_each_sorted(r#"{"b":{"y":1,"z":2},"c":[{"a":1},{"b":2}]}"#, true, true)]
#[case::nested_unsorted(r#"{"b":{"z":1,"y":2}}"#, false, false)]
#[case::empty_key_first(r#"{"":1,"a":2}"#, true, true)]
#[case::empty_key_twice(r#"{"":1,"":2}"#, false, false)]
#[case::deeper_than_looked_at(&format!("{}1{}", "[".repeat(40), "]".repeat(40)), false, false)]
fn canonical_text_is_returned_as_is(
    #[case] text: &str,
    #[case] as_is: bool,
    #[case] written_as_is: bool,
) {
    assert_eq!(
        super::is_canonical(text.as_bytes(), Numbers::Key),
        as_is,
        "{text}"
    );
    assert_eq!(
        super::is_canonical(text.as_bytes(), Numbers::AsWritten),
        written_as_is,
        "{text}"
    );
    let lazy = kept(text);
    let written = lazy.view().canonical_json();
    let parsed: Value = serde_json::from_str(text).unwrap();
    assert_eq!(written, serde_json::to_string(&parsed).unwrap());
    assert_eq!(
        matches!(written, std::borrow::Cow::Borrowed(_)),
        written_as_is
    );
    let key = lazy.view().equality_key();
    assert_eq!(matches!(key, std::borrow::Cow::Borrowed(_)), as_is);
}

#[test]
fn a_parsed_value_is_viewed_as_parsed() {
    let lazy = kept(r#"{"b":1,"a":{"c":"d"}}"#);
    let _ = lazy.get();
    let view = lazy.view();
    assert_eq!(
        view.get("a")
            .and_then(|a| a.get("c"))
            .and_then(super::ValueRef::as_str)
            .as_deref(),
        Some("d")
    );
    assert_eq!(view.canonical_json(), r#"{"a":{"c":"d"},"b":1}"#);
}

/// JSON text with keys in any order, some written twice, spaces or none, numbers in several
/// spellings, and strings with escapes.
pub(crate) fn json_text() -> impl Strategy<Value = String> {
    let space = prop_oneof![Just(""), Just(" "), Just("\n  ")];
    let scalar = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("-0".to_owned()),
        Just("1.0".to_owned()),
        Just("1e1".to_owned()),
        Just("1.5e+3".to_owned()),
        Just("2E-2".to_owned()),
        Just("0.25".to_owned()),
        Just("10".to_owned()),
        Just("1".to_owned()),
        Just("12345678901234567890".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        "[a-c\"\\\\\n é]{0,4}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        Just(r#""\u0061""#.to_owned()),
    ];
    scalar.prop_recursive(4, 48, 5, move |inner| {
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..5), space.clone())
                .prop_map(|(items, space)| format!("[{space}{}]", items.join(","))),
            (
                prop::collection::vec(
                    (
                        prop_oneof![Just("a"), Just("b"), Just("c"), Just("a\\\"b")],
                        inner
                    ),
                    0..5
                ),
                space.clone()
            )
                .prop_map(|(members, space)| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(|(key, value)| format!("\"{key}\"{space}:{space}{value}"))
                        .collect();
                    format!("{{{space}{}}}", members.join(","))
                }),
        ]
    })
}

proptest! {
    #[test]
    fn every_view_answer_is_the_parse_answer(text in json_text(), others in prop::collection::vec(json_text(), 0..4)) {
        let others: Vec<Value> = others
            .iter()
            .map(|text| serde_json::from_str(text).unwrap())
            .collect();
        check_against_parse(&text, &["a", "b", "c", "a\"b"], &others);
    }
}

/// Numbers read from text compare by their exact decimal value, with numbers a float
/// cannot tell apart; a key written twice compares by its last value, as the parse keeps.
#[rstest]
#[case::float_spelling_of_integer("9007199254740993.0", json!(9_007_199_254_740_993_u64), true)]
#[case::float_spelling_of_neighbour("9007199254740992.0", json!(9_007_199_254_740_993_u64), false)]
#[case::neighbour("9007199254740992", json!(9_007_199_254_740_993_u64), false)]
#[case::exponent("1e0", json!(1), true)]
#[case::fraction_then_exponent("0.1e1", json!(1), true)]
#[case::negative_exponent("10e-1", json!(1.0), true)]
#[case::beyond_f64_precision("0.30000000000000001", json!(0.3), false)]
#[case::in_an_object(r#"{"n": 1.0, "m": 2e0}"#, json!({"n": 1, "m": 2}), true)]
#[case::in_an_array("[1.50, 9007199254740993.0]", json!([1.5, 9_007_199_254_740_993_u64]), true)]
#[case::not_a_number(r#""1""#, json!(1), false)]
#[case::key_twice_last_wins(r#"{"a": 1, "a": 2}"#, json!({"a": 2}), true)]
#[case::key_twice_first_loses(r#"{"a": 1, "a": 2}"#, json!({"a": 1}), false)]
fn text_compares_numbers_exactly(#[case] text: &str, #[case] expected: Value, #[case] equal: bool) {
    let lazy = kept(text);
    assert_eq!(
        lazy.view().equals(&expected),
        equal,
        "{text} against {expected}"
    );
    if text.contains(r#""a": 1, "a""#) {
        let last = lazy.view().get("a").map(|a| a.to_value().into_owned());
        assert_eq!(last, Some(json!(2)), "the last of a key written twice");
    }
}

/// Two values share an equality key exactly when they are equal as arguments, whether
/// each is viewed as text or parsed.
#[track_caller]
fn check_equality_key(a: &str, b: &str) {
    let (parsed_a, parsed_b): (Value, Value) = (
        serde_json::from_str(a).unwrap(),
        serde_json::from_str(b).unwrap(),
    );
    let (kept_a, kept_b) = (read(a), read(b));
    let key_a = kept_a.view().equality_key();
    let key_b = kept_b.view().equality_key();
    assert_eq!(
        key_a,
        super::ValueRef::parsed(&parsed_a).equality_key(),
        "text and parse of {a}"
    );
    assert_eq!(
        key_a == key_b,
        args_equal(&parsed_a, &parsed_b),
        "{a} ({key_a}) against {b} ({key_b})"
    );
}

#[rstest]
#[case::integer_spellings("1", "1.0")]
#[case::exponent("1", "1e0")]
#[case::hundred("100", "1e2")]
#[case::negative_zero("-0", "0")]
#[case::negative_zero_fraction("-0.0", "0")]
#[case::twenty_digits("12345678901234567890", "1.234567890123456789e19")]
#[case::eighteen_digits("123456789012345678", "1.23456789012345678e17")]
#[case::nineteen_digits("1234567890123456789", "1234567890123456789.0")]
#[case::fraction("0.5", "5e-1")]
#[case::neighbours("9007199254740993", "9007199254740992.0")]
#[case::negative("-12", "-1.2e1")]
#[case::sign_matters("-12", "12")]
#[case::key_order(r#"{"b": 1, "a": [2.0]}"#, r#"{"a":[2],"b":1.0}"#)]
#[case::escapes(r#""\u0061""#, r#""a""#)]
#[case::key_twice(r#"{"a": 1, "a": 2}"#, r#"{"a":2}"#)]
#[case::string_is_not_a_number(r#""1""#, "1")]
#[case::exponent_past_64_bits("1e1000000000000000000", "10e999999999999999999")]
#[case::exponents_past_64_bits_differ("1e1000000000000000000", "1e1000000000000000001")]
#[case::negative_exponent_past_64_bits("-1e-1000000000000000000", "-0.1e-999999999999999999")]
#[case::exponent_past_64_bits_in_an_object(
    r#"{"a": 1e1000000000000000000}"#,
    r#"{"a":1.0e+1000000000000000000}"#
)]
fn equality_keys_are_equal_exactly_for_equal_arguments(#[case] a: &str, #[case] b: &str) {
    check_equality_key(a, b);
    check_equality_key(b, a);
}

proptest! {
    #[test]
    fn equality_keys_agree_with_argument_equality(a in json_text(), b in json_text()) {
        check_equality_key(&a, &b);
        check_equality_key(&a, &a);
    }

    /// Numbers whose exponents are past 64 bits, spelled several ways, share a key exactly
    /// when they are equal.
    #[test]
    fn equality_keys_agree_at_any_exponent(
        a in (huge_mantissa(), 999_999_999_999_999_998_i128..1_000_000_000_000_000_002, any::<bool>()),
        b in (huge_mantissa(), 999_999_999_999_999_998_i128..1_000_000_000_000_000_002, any::<bool>()),
    ) {
        let text = |(mantissa, exponent, below): &(&str, i128, bool)| {
            format!("{mantissa}e{}{exponent}", if *below { "-" } else { "" })
        };
        check_equality_key(&text(&a), &text(&b));
    }
}

fn huge_mantissa() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["1", "10", "0.1", "1.0", "-1", "2", "0", "100"])
}
