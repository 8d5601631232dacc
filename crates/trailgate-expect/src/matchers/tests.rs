//! Unit tests of the value matcher language: each operator passing and failing, read from
//! YAML as a suite reads it, on values kept as text (as the trace reader keeps them) and
//! parsed; each diagnostic with its code and position; and the laws of the language.

use proptest::prelude::*;
use rstest::rstest;
use serde_json::{Value, json};
use trailgate_trace::{Run, ValueRef, parse_run};

use super::{ArgsMode, ValueMatcher, ValueMismatch};
use crate::error::Problem;
use crate::suite_file::read_fragment;

use ArgsMode::{Exact, Subset};

#[track_caller]
fn matcher(yaml: &str) -> ValueMatcher {
    read_fragment(yaml).unwrap_or_else(|problem: Problem| panic!("{yaml}: {problem:?}"))
}

/// A run whose one call has `{"v": json}` as its arguments, kept as text by the reader.
#[track_caller]
fn run_with(json: &str) -> Run {
    let text = format!(r#"{{"tool_calls": [{{"name": "f", "args": {{"v": {json}}}}}]}}"#);
    parse_run("t.json", &text, 1).unwrap()
}

/// The value of [`run_with`], as the reader kept it.
fn actual(run: &Run) -> Option<ValueRef<'_>> {
    run.calls[0].args.view().get("v")
}

/// Whether `yaml` matches `json` in `mode`, asked of the text view and of the parse, which
/// must agree (`parsed: false` for numbers a float cannot hold, where only the text knows).
#[track_caller]
fn check_views(yaml: &str, json: &str, mode: ArgsMode, expected: bool, parsed: bool) {
    let matcher = matcher(yaml);
    let run = run_with(json);
    assert_eq!(
        matcher.matches(actual(&run), mode),
        expected,
        "{yaml} against {json} (text)"
    );
    assert_eq!(
        matcher.explain(actual(&run), mode).is_none(),
        expected,
        "explain agrees: {yaml} against {json}"
    );
    if parsed {
        let value: Value = serde_json::from_str(json).unwrap();
        assert_eq!(
            matcher.matches(Some(ValueRef::parsed(&value)), mode),
            expected,
            "{yaml} against {json} (parsed)"
        );
    }
}

#[track_caller]
fn check(yaml: &str, json: &str, mode: ArgsMode, expected: bool) {
    check_views(yaml, json, mode, expected, true);
}

#[rstest]
// Literals.
#[case::string("hello", r#""hello""#, Exact, true)]
#[case::string_differs("hello", r#""hell""#, Exact, false)]
#[case::number_spellings("1", "1.0", Exact, true)]
#[case::number_exponent("1", "1e0", Exact, true)]
#[case::float_literal("1.5", "15e-1", Exact, true)]
#[case::big_integers_differ("9007199254740993", "9007199254740992", Exact, false)]
#[case::big_integer_against_float("9007199254740993", "9007199254740992.0", Exact, false)]
#[case::null("null", "null", Exact, true)]
#[case::bool_not_string("true", r#""true""#, Exact, false)]
#[case::array_by_position("[1, 2]", "[1, 2]", Exact, true)]
#[case::array_order("[1, 2]", "[2, 1]", Exact, false)]
#[case::array_length("[1, 2]", "[1, 2, 3]", Exact, false)]
#[case::object_same_keys("{a: 1, b: x}", r#"{"b": "x", "a": 1}"#, Exact, true)]
#[case::object_extra_key_exact("{a: 1}", r#"{"a": 1, "b": 2}"#, Exact, false)]
#[case::object_extra_key_subset("{a: 1}", r#"{"a": 1, "b": 2}"#, Subset, true)]
#[case::object_missing_key_subset("{a: 1, c: 3}", r#"{"a": 1, "b": 2}"#, Subset, false)]
#[case::subset_at_depth("{a: {b: 1}}", r#"{"a": {"b": 1, "c": 2}}"#, Subset, true)]
#[case::exact_at_depth("{a: {b: 1}}", r#"{"a": {"b": 1, "c": 2}}"#, Exact, false)]
#[case::object_not_array("{}", "[]", Exact, false)]
#[case::key_twice_in_the_trace_last_wins("{q: 2}", r#"{"q": 1, "q": 2}"#, Exact, true)]
#[case::key_twice_in_the_trace_first_loses("{q: 1}", r#"{"q": 1, "q": 2}"#, Exact, false)]
// $eq.
#[case::eq_dollar_keys("{$eq: {$gte: 1}}", r#"{"$gte": 1}"#, Exact, true)]
#[case::eq_not_operator("{$eq: {$gte: 1}}", "5", Exact, false)]
// $regex.
#[case::regex_found("{$regex: '^ab+c'}", r#""abbbcd""#, Exact, true)]
#[case::regex_not_found("{$regex: '^ab+c'}", r#""xabc""#, Exact, false)]
#[case::regex_not_a_string("{$regex: '1'}", "1", Exact, false)]
// $contains.
#[case::contains_substring("{$contains: news}", r#""latest news today""#, Exact, true)]
#[case::contains_substring_missing("{$contains: news}", r#""weather""#, Exact, false)]
#[case::contains_element("{$contains: 2}", "[1, 2.0, 3]", Exact, true)]
#[case::contains_element_missing("{$contains: 4}", "[1, 2, 3]", Exact, false)]
#[case::contains_element_matcher("{$contains: {$gte: 3}}", "[1, 2, 3]", Exact, true)]
#[case::contains_object_subset("{$contains: {id: 1}}", r#"[{"id": 1, "x": 2}]"#, Subset, true)]
#[case::contains_object_exact("{$contains: {id: 1}}", r#"[{"id": 1, "x": 2}]"#, Exact, false)]
#[case::contains_number_in_string("{$contains: 1}", r#""a1""#, Exact, false)]
#[case::contains_case_sensitive("{$contains: urgent}", r#""Urgent""#, Exact, false)]
// $icontains.
#[case::icontains("{$icontains: NEWS}", r#""Latest News""#, Exact, true)]
#[case::icontains_unicode("{$icontains: ÉTÉ}", r#""un été chaud""#, Exact, true)]
#[case::icontains_missing("{$icontains: news}", r#""weather""#, Exact, false)]
#[case::icontains_not_a_string("{$icontains: '1'}", "1", Exact, false)]
// $any_of, $all_of, $not.
#[case::any_of("{$any_of: [fast, safe]}", r#""safe""#, Exact, true)]
#[case::any_of_none("{$any_of: [fast, safe]}", r#""slow""#, Exact, false)]
#[case::any_of_empty("{$any_of: []}", "1", Exact, false)]
#[case::all_of("{$all_of: [{$gte: 1}, {$lt: 5}]}", "3", Exact, true)]
#[case::all_of_fails("{$all_of: [{$gte: 1}, {$lt: 5}]}", "5", Exact, false)]
#[case::all_of_empty("{$all_of: []}", r#"{"x": 1}"#, Exact, true)]
#[case::not("{$not: draft}", r#""final""#, Exact, true)]
#[case::not_fails("{$not: draft}", r#""draft""#, Exact, false)]
#[case::not_object_exact("{$not: {kind: draft}}", r#"{"kind": "draft", "id": 1}"#, Exact, true)]
#[case::not_object_subset(
    "{$not: {kind: draft}}",
    r#"{"kind": "draft", "id": 1}"#,
    Subset,
    false
)]
#[case::contains_icontains(
    "{$contains: {$icontains: bug}}",
    r#"["feature", "BUGFIX"]"#,
    Exact,
    true
)]
// Comparisons.
#[case::gte_equal("{$gte: 1}", "1.0", Exact, true)]
#[case::gte_below("{$gte: 1}", "0.999", Exact, false)]
#[case::gt_equal("{$gt: 1}", "1", Exact, false)]
#[case::gt_zero_tiny("{$gt: 0}", "1e-9", Exact, true)]
#[case::gt_zero_string("{$gt: 0}", r#""1""#, Exact, false)]
#[case::near_edge_of_doc("{$near: {value: 0.3, within: 0.05}}", "0.25", Exact, true)]
#[case::near_past_edge_of_doc("{$near: {value: 0.3, within: 0.05}}", "0.3500001", Exact, false)]
#[case::lte("{$lte: -2}", "-2.5", Exact, true)]
#[case::lt("{$lt: 10}", "1e1", Exact, false)]
#[case::compare_not_a_number("{$gte: 1}", r#""5""#, Exact, false)]
#[case::gte_big_integer("{$gte: 9007199254740993}", "9007199254740992", Exact, false)]
// $near.
#[case::near_inside("{$near: {value: 10, within: 0.5}}", "10.5", Exact, true)]
#[case::near_below("{$near: {value: 10, within: 0.5}}", "9.4999", Exact, false)]
#[case::near_exact_decimal("{$near: {value: 0.3, within: 0}}", "0.30", Exact, true)]
#[case::near_tiny_tolerance("{$near: {value: 0.1, within: 0.1}}", "0.2", Exact, true)]
#[case::near_not_a_number("{$near: {value: 1, within: 1}}", "null", Exact, false)]
// $type.
#[case::type_string("{$type: string}", r#""x""#, Exact, true)]
#[case::type_number("{$type: number}", "1.5", Exact, true)]
#[case::type_integer_from_float("{$type: integer}", "1.0", Exact, true)]
#[case::type_integer_exponent("{$type: integer}", "1e2", Exact, true)]
#[case::type_integer_fraction("{$type: integer}", "1.5", Exact, false)]
#[case::type_boolean("{$type: boolean}", "false", Exact, true)]
#[case::type_null("{$type: 'null'}", "null", Exact, true)]
#[case::type_array("{$type: array}", "[]", Exact, true)]
#[case::type_object("{$type: object}", "{}", Exact, true)]
#[case::type_object_not_array("{$type: object}", "[]", Exact, false)]
#[case::type_string_not_number("{$type: string}", "1", Exact, false)]
// $present.
#[case::present_false_absent("{q: x, debug: {$present: false}}", r#"{"q": "x"}"#, Exact, true)]
#[case::present_false_there(
    "{q: x, debug: {$present: false}}",
    r#"{"q": "x", "debug": true}"#,
    Exact,
    false
)]
#[case::present_true_any_value("{q: {$present: true}}", r#"{"q": [1]}"#, Exact, true)]
#[case::present_true_absent("{q: {$present: true}}", "{}", Exact, false)]
#[case::not_present_true_absent("{q: {$not: {$present: true}}}", "{}", Exact, true)]
#[case::any_of_absent_or_value("{q: {$any_of: [{$present: false}, 5]}}", "{}", Exact, true)]
#[case::any_of_absent_or_value_there(
    "{q: {$any_of: [{$present: false}, 5]}}",
    r#"{"q": 5}"#,
    Exact,
    true
)]
#[case::absent_literal("{q: 5}", "{}", Subset, false)]
#[case::not_on_absent_is_undecided("{q: {$not: 5}}", "{}", Subset, false)]
// $schema.
#[case::schema_valid("{$schema: {type: string, maxLength: 3}}", r#""abc""#, Exact, true)]
#[case::schema_invalid("{$schema: {type: string, maxLength: 3}}", r#""abcd""#, Exact, false)]
// A schema's patterns are JSON Schema's (ECMA-262: `\d` is an ASCII digit), searched by the
// linear `regex` engine.
#[case::schema_pattern(
    "{$schema: {type: string, pattern: '^\\d{3}$'}}",
    r#""123""#,
    Exact,
    true
)]
#[case::schema_pattern_fails("{$schema: {pattern: '^\\d{3}$'}}", r#""١٢٣""#, Exact, false)]
#[case::schema_pattern_properties(
    "{$schema: {patternProperties: {'^x-': {type: integer}}}}",
    r#"{"x-a": 1, "b": "s"}"#,
    Exact,
    true
)]
#[case::schema_pattern_properties_fail(
    "{$schema: {patternProperties: {'^x-': {type: integer}}}}",
    r#"{"x-a": "s"}"#,
    Exact,
    false
)]
// A `pattern` key inside data (`const`) is data, not a regex.
#[case::schema_pattern_in_const(
    "{$schema: {const: {pattern: '(a)\\1'}}}",
    r#"{"pattern": "(a)\\1"}"#,
    Exact,
    true
)]
#[case::schema_object(
    "{$schema: {type: object, required: [id]}}",
    r#"{"id": 1}"#,
    Exact,
    true
)]
// Operators at depth.
#[case::operator_in_object(
    "{limit: {$gte: 1}, mode: {$any_of: [fast, safe]}}",
    r#"{"limit": 10, "mode": "fast"}"#,
    Exact,
    true
)]
#[case::operator_in_array("[{$type: string}, 2]", r#"["x", 2]"#, Exact, true)]
#[case::operator_in_array_fails("[{$type: string}, 2]", "[1, 2]", Exact, false)]
fn operators(
    #[case] yaml: &str,
    #[case] json: &str,
    #[case] mode: ArgsMode,
    #[case] expected: bool,
) {
    check(yaml, json, mode, expected);
}

/// Numbers a 64-bit float cannot hold: the trace's text decides, exactly.
#[rstest]
#[case::float_spelling_of_big_integer("9007199254740993", "9007199254740993.0", true)]
#[case::float_spelling_differs("9007199254740992", "9007199254740993.0", false)]
#[case::beyond_u64(
    "123456789012345678901234567890",
    "123456789012345678901234567890",
    true
)]
#[case::beyond_u64_differs(
    "123456789012345678901234567890",
    "123456789012345678901234567891",
    false
)]
#[case::gt_above("{$gt: 1}", "1.0000000000000000001", true)]
#[case::gt_above_big(
    "{$gt: 123456789012345678901234567890}",
    "123456789012345678901234567890.5",
    true
)]
#[case::gte_beyond_u64("{$gte: 18446744073709551615}", "18446744073709551616", true)]
// Exponents past 64 bits (issue 40): compared, never left out.
#[case::gt_exponent_past_64_bits("{$gt: 1000}", "1e1000000000000000000", true)]
#[case::not_gte_exponent_past_64_bits("{$not: {$gte: 1}}", "1e1000000000000000000", false)]
#[case::lt_negative_past_64_bits("{$lt: -1000}", "-1e1000000000000000000", true)]
#[case::gt_tiny_past_64_bits("{$gt: 0}", "1e-1000000000000000000", true)]
#[case::lt_tiny_past_64_bits("{$lt: 1e-300}", "1e-1000000000000000000", true)]
#[case::near_tiny_past_64_bits("{$near: {value: 0, within: 1}}", "1e-1000000000000000000", true)]
#[case::near_huge_past_64_bits("{$near: {value: 0, within: 1}}", "1e1000000000000000000", false)]
#[case::literal_past_64_bits("0", "1e-1000000000000000000", false)]
#[case::type_number_past_64_bits("{$type: number}", "1e1000000000000000000", true)]
#[case::type_integer_past_64_bits("{$type: integer}", "1.5e1000000000000000000", true)]
#[case::type_integer_tiny_past_64_bits("{$type: integer}", "1e-1000000000000000000", false)]
// Numbers the suite writes past what YAML's number types hold (issue 40): read as written.
#[case::suite_gte_past_a_float("{$gte: 1e400}", "1e401", true)]
#[case::suite_gte_past_a_float_below("{$gte: 1e400}", "9.99e399", false)]
#[case::suite_gte_past_a_float_capital_and_plus("{$gte: +1E+400}", "1e400", true)]
#[case::suite_lt_below_a_float("{$lt: -1e400}", "-1e401", true)]
#[case::suite_gt_exponent_past_64_bits(
    "{$gt: 1e1000000000000000000}",
    "1e1000000000000000001",
    true
)]
#[case::suite_gt_exponent_past_64_bits_below("{$gt: 1e1000000000000000000}", "1e400", false)]
#[case::suite_near_past_a_float("{$near: {value: 1e400, within: 1e399}}", "1.05e400", true)]
#[case::suite_near_at_its_scale_gap("{$near: {value: 1e4096, within: 1}}", "1e4096", true)]
#[case::suite_literal_past_a_float("1e400", "10e399", true)]
#[case::suite_literal_past_a_float_not_a_string("1e400", r#""1e400""#, false)]
#[case::suite_literal_in_a_list("[1e400, x]", r#"[1e400, "x"]"#, true)]
#[case::suite_literal_with_an_anchor("&a 1e400", "1e400", true)]
#[case::suite_quoted_is_a_string("'1e400'", r#""1e400""#, true)]
#[case::suite_double_quoted_is_a_string(r#""1e400""#, "1e400", false)]
#[case::suite_tagged_string("!!str 1e400", r#""1e400""#, true)]
#[case::suite_tagged_string_after_an_anchor("{a: !!str &x 1e400}", r#"{"a": "1e400"}"#, true)]
#[case::suite_tagged_string_in_a_flow_list("[!!str 1e400]", r#"["1e400"]"#, true)]
#[case::suite_tagged_string_on_the_line_before("a: !!str\n  1e400\n", r#"{"a": "1e400"}"#, true)]
#[case::suite_number_after_a_comment("a: # big\n  1e400\n", r#"{"a": 1e400}"#, true)]
// Numbers the suite writes that a float does not hold: read as written, not as the float.
#[case::suite_below_a_float("{$gt: 1e-400}", "1e-401", false)]
#[case::suite_below_a_float_above("{$gt: 1e-400}", "1e-399", true)]
#[case::suite_below_a_float_not_zero("{$gt: 1e-400}", "0", false)]
#[case::suite_exponent_limit_below("{$gt: 1e-1000000000000000000}", "0", false)]
#[case::suite_more_digits_than_a_float("0.10000000000000000001", "0.1", false)]
#[case::suite_more_digits_than_a_float_equal(
    "0.10000000000000000001",
    "1.0000000000000000001e-1",
    true
)]
#[case::suite_seventeen_digits("9007199254740993.0", "9007199254740993", true)]
#[case::suite_seventeen_digits_not_rounded("9007199254740993.0", "9007199254740992", false)]
#[case::suite_bound_more_digits("{$gt: 0.10000000000000000001}", "0.100000000000000000011", true)]
#[case::suite_bound_more_digits_below(
    "{$gt: 0.10000000000000000001}",
    "0.1000000000000000000099",
    false
)]
#[case::suite_subnormal("{$lt: 1.5e-320}", "1.4e-320", true)]
#[case::suite_subnormal_not_rounded("{$lt: 1.23456789e-320}", "1.23456788e-320", true)]
#[case::suite_near_more_digits(
    "{$near: {value: 0.10000000000000000001, within: 0}}",
    "0.10000000000000000001",
    true
)]
#[case::suite_tagged_float("!!float 1e-400", "1e-400", true)]
#[case::suite_fraction_without_a_leading_digit(
    ".10000000000000000001",
    "0.10000000000000000001",
    true
)]
#[case::suite_same_number_twice("{a: 1e-400, b: 10e-401}", r#"{"a": 1e-400, "b": 1e-400}"#, true)]
#[case::suite_leading_zero_digits_are_a_string(
    "01234567890123456789012345678901234567890",
    r#""01234567890123456789012345678901234567890""#,
    true
)]
fn numbers_by_their_text(#[case] yaml: &str, #[case] json: &str, #[case] expected: bool) {
    check_views(yaml, json, Exact, expected, false);
}

/// An integer a suite writes past a float's range, 310 digits, is read digit for digit.
#[test]
fn suite_integers_past_a_float_are_read_exactly() {
    let big = format!("1{}1", "0".repeat(308));
    let next = format!("1{}2", "0".repeat(308));
    check_views(&big, &format!("{big}.0"), Exact, true, false);
    check_views(&big, &next, Exact, false, false);
    check_views(&format!("{{$lt: {next}}}"), &big, Exact, true, false);
    check_views(&format!("-{big}"), &format!("-{big}"), Exact, true, false);
}

#[rstest]
#[case::literal_scalar("5", Some(json!(5)))]
#[case::literal_nested("{a: [1, {b: x}]}", Some(json!({"a": [1, {"b": "x"}]})))]
#[case::operator_at_depth("{a: [1, {b: {$regex: x}}]}", None)]
#[case::eq_is_an_operator("{$eq: 1}", None)]
fn literals_are_known(#[case] yaml: &str, #[case] expected: Option<Value>) {
    assert_eq!(matcher(yaml).as_literal(), expected.as_ref());
}

#[test]
fn object_entries_are_sorted_by_key() {
    let matcher = matcher("{b: {$gte: 1}, a: x}");
    let keys: Vec<&str> = matcher
        .object_entries()
        .unwrap()
        .iter()
        .map(|(key, _)| key.as_str())
        .collect();
    assert_eq!(keys, ["a", "b"]);
    assert!(self::matcher("{$not: {a: 1}}").object_entries().is_none());
}

#[rstest]
#[case::literal("{b: 1, a: [x, null]}", r#"{"a":["x",null],"b":1}"#)]
#[case::operators(
    "{q: {$regex: '^a'}, n: {$near: {value: 1, within: 0.5}}, t: {$type: integer}}",
    r#"{"n":{"$near":{"value":1,"within":0.5}},"q":{"$regex":"^a"},"t":{"$type":"integer"}}"#
)]
#[case::combinators(
    "{$any_of: [{$not: {$present: true}}, {$all_of: []}]}",
    r#"{"$any_of":[{"$not":{"$present":true}},{"$all_of":[]}]}"#
)]
#[case::eq("{$eq: {$x: 1}}", r#"{"$eq":{"$x":1}}"#)]
#[case::schema("{$schema: {type: string}}", r#"{"$schema":{"type":"string"}}"#)]
#[case::text_operators("{$icontains: AbC, $contains: x}", "")]
fn display_is_compact_json_as_written(#[case] yaml: &str, #[case] expected: &str) {
    // The last row is not a matcher: an operator map has one key.
    match read_fragment::<ValueMatcher>(yaml) {
        Ok(matcher) => assert_eq!(matcher.to_string(), expected),
        Err(problem) => assert!(expected.is_empty(), "{problem:?}"),
    }
}

#[rstest]
#[case::matches("{q: x}", r#"{"q": "x"}"#, Exact, None)]
#[case::top_level("{$gte: 1}", "0", Exact, Some(("", r#"{"$gte":1}"#, Some("0"))))]
#[case::first_key_in_order(
    "{b: 2, a: 1}",
    r#"{"a": 0, "b": 0}"#,
    Exact,
    Some(("a", "1", Some("0")))
)]
#[case::nested_path(
    "{filters: [{min: {$gte: 1}}]}",
    r#"{"filters": [{"min": 0}]}"#,
    Exact,
    Some(("filters[0].min", r#"{"$gte":1}"#, Some("0")))
)]
#[case::missing_key("{q: x}", "{}", Exact, Some(("q", r#""x""#, None)))]
#[case::extra_key(
    "{q: x}",
    r#"{"q": "x", "debug": true}"#,
    Exact,
    Some(("debug", r#"{"$present":false}"#, Some("true")))
)]
#[case::extra_key_before_a_failing_one(
    "{z: 1}",
    r#"{"a": 1, "z": 2}"#,
    Exact,
    Some(("a", r#"{"$present":false}"#, Some("1")))
)]
#[case::present_false(
    "{debug: {$present: false}}",
    r#"{"debug": 1}"#,
    Subset,
    Some(("debug", r#"{"$present":false}"#, Some("1")))
)]
#[case::array_length("[1, 2]", "[1]", Exact, Some(("", "[1,2]", Some("[1]"))))]
#[case::odd_key("{'a b': 1}", r#"{"a b": 2}"#, Exact, Some((r#"["a b"]"#, "1", Some("2"))))]
fn explain_finds_the_first_failing_place(
    #[case] yaml: &str,
    #[case] json: &str,
    #[case] mode: ArgsMode,
    #[case] expected: Option<(&str, &str, Option<&str>)>,
) {
    let run = run_with(json);
    let got = matcher(yaml).explain(actual(&run), mode);
    let expected = expected.map(|(path, matcher, actual)| ValueMismatch {
        path: path.to_owned(),
        expected: matcher.to_owned(),
        actual: actual.map(str::to_owned),
    });
    assert_eq!(got, expected);
}

#[test]
fn explain_cuts_long_values() {
    let long = format!(r#""{}""#, "x".repeat(200));
    let run = run_with(&long);
    let found = matcher("short").explain(actual(&run), Exact).unwrap();
    let shown = found.actual.unwrap();
    assert_eq!(shown.chars().count(), super::SHOWN_CHARS + 3, "{shown}");
    assert!(shown.ends_with("..."));
}

#[rstest]
#[case::present_false("{$present: false}", true)]
#[case::present_true("{$present: true}", false)]
#[case::literal("1", false)]
#[case::not_present_true("{$not: {$present: true}}", true)]
#[case::not_literal("{$not: 1}", false)]
#[case::all_of_none("{$all_of: []}", true)]
#[case::all_of_undecided("{$all_of: [{$present: false}, 1]}", false)]
#[case::any_of_decided("{$any_of: [1, {$present: false}]}", true)]
#[case::any_of_none("{$any_of: []}", false)]
fn absence(#[case] yaml: &str, #[case] expected: bool) {
    let matcher = matcher(yaml);
    assert_eq!(matcher.matches(None, Exact), expected);
    assert_eq!(matcher.matches(None, Subset), expected);
}

// ---------------------------------------------------------------------------------------
// Diagnostics: each mistake with its code, its message and where it points (line, column,
// both from 1).

/// The code, the message, and the line and column of a fragment's problem.
#[track_caller]
fn check_problem(yaml: &str, code: &str, message: &str, at: (usize, usize), help: &str) {
    let problem = match read_fragment::<ValueMatcher>(yaml) {
        Ok(matcher) => panic!("{yaml} should be refused, got {matcher}"),
        Err(problem) => problem,
    };
    assert_eq!(problem.code, code, "{problem:?}");
    assert_eq!(problem.message, message, "{problem:?}");
    let offset = problem.span.map(|span| span.offset()).unwrap();
    let before = &yaml[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .unwrap_or_default()
        .chars()
        .count()
        + 1;
    assert_eq!((line, column), at, "{problem:?}");
    let got_help = problem.help.unwrap_or_default();
    assert!(got_help.contains(help), "{got_help}");
}

#[rstest]
#[case::unknown_operator(
    "q:\n  $gtee: 1\n",
    "trailgate::suite::unknown_operator",
    "unknown operator `$gtee`",
    (2, 3),
    "did you mean `$gte`?"
)]
#[case::unknown_operator_non_ascii_before(
    "é: ü\nq: {$rgex: a}\n",
    "trailgate::suite::unknown_operator",
    "unknown operator `$rgex`",
    (2, 5),
    "did you mean `$regex`?"
)]
#[case::two_keys(
    "n:\n  $gte: 1\n  $lt: 5\n",
    "trailgate::suite::invalid_matcher",
    "an operator map has exactly one key: `$lt` next to `$gte`",
    (3, 3),
    "$all_of"
)]
#[case::operator_after_a_key(
    "n: {a: 1, $lt: 5}\n",
    "trailgate::suite::invalid_matcher",
    "operator `$lt` next to other keys",
    (1, 11),
    "$eq"
)]
#[case::gte_not_a_number(
    "n: {$gte: '5'}\n",
    "trailgate::suite::invalid_matcher",
    "`$gte` takes a number, not a string",
    (1, 11),
    "without quotes"
)]
#[case::gte_list(
    "n: {$lt: [1]}\n",
    "trailgate::suite::invalid_matcher",
    "`$lt` takes a number, not a list",
    (1, 10),
    "write a number"
)]
#[case::near_missing_within(
    "n: {$near: {value: 1}}\n",
    "trailgate::suite::invalid_matcher",
    "`$near` needs both `value` and `within`",
    (1, 12),
    "within: 0.5"
)]
#[case::near_unknown_key(
    "n: {$near: {value: 1, by: 2}}\n",
    "trailgate::suite::invalid_matcher",
    "`$near` takes `value` and `within`, not `by`",
    (1, 12),
    "within: 0.5"
)]
// `$near`'s bounds are written out once, exactly: `value` and `within` at most 4,096
// decimal places apart (`MAX_SCALE_GAP`), or the suite is refused.
#[case::near_too_far_apart_in_scale(
    "n: {$near: {value: 1e4097, within: 1}}\n",
    "trailgate::suite::invalid_matcher",
    "`value` and `within` of `$near` are too far apart in scale",
    (1, 12),
    "within: 0.5"
)]
#[case::near_past_64_bits(
    "n: {$near: {value: 0, within: 1e1000000000000000000}}\n",
    "trailgate::suite::invalid_matcher",
    "`value` and `within` of `$near` are too far apart in scale",
    (1, 12),
    "within: 0.5"
)]
#[case::near_negative(
    "n: {$near: {value: 1, within: -1}}\n",
    "trailgate::suite::invalid_matcher",
    "`within` of `$near` is negative: `-1`",
    (1, 12),
    "at least 0"
)]
#[case::near_string(
    "n: {$near: {value: one, within: 1}}\n",
    "trailgate::suite::invalid_matcher",
    "`value` takes a number, not a string",
    (1, 20),
    "without quotes"
)]
#[case::unknown_type(
    "t: {$type: int}\n",
    "trailgate::suite::invalid_matcher",
    "unknown type `int`",
    (1, 12),
    "did you mean `integer`?"
)]
#[case::present_not_bool(
    "p: {$present: no_thanks}\n",
    "trailgate::suite::invalid_matcher",
    "`$present` takes `true` or `false`, not a string",
    (1, 15),
    "$present: false"
)]
#[case::invalid_regex(
    "q: {$regex: '(ab'}\n",
    "trailgate::suite::invalid_regex",
    "invalid regex `(ab`: unclosed group",
    (1, 13),
    "Rust `regex` dialect"
)]
#[case::regex_too_big(
    "q: {$regex: '\\w{5000}'}\n",
    "trailgate::suite::regex_too_big",
    "regex `\\w{5000}` compiles to more than 4 MiB, the limit for one regex",
    (1, 13),
    "ASCII class"
)]
#[case::regex_not_a_string(
    "q: {$regex: [a]}\n",
    "trailgate::suite::invalid_matcher",
    "`$regex` takes a string, not a list",
    (1, 13),
    "as a string"
)]
#[case::any_of_not_a_list(
    "m: {$any_of: fast}\n",
    "trailgate::suite::invalid_matcher",
    "`$any_of` takes a list of matchers, not a string",
    (1, 14),
    "write a list"
)]
#[case::icontains_not_a_string(
    "m: {$icontains: 5}\n",
    "trailgate::suite::invalid_matcher",
    "`$icontains` takes a string, not a number",
    (1, 17),
    "write a string"
)]
#[case::invalid_schema(
    "s:\n  $schema: {type: strang}\n",
    "trailgate::suite::invalid_schema",
    "invalid JSON Schema: `\"strang\" is not valid under any of the schemas listed in the 'anyOf' keyword`",
    (2, 12),
    "draft 2020-12"
)]
#[case::remote_schema_reference(
    "s: {$schema: {$ref: 'https://example.com/s.json'}}\n",
    "trailgate::suite::invalid_schema",
    "",
    (1, 14),
    "without remote references"
)]
#[case::schema_pattern_back_reference(
    "s: {$schema: {pattern: '(\\w+)\\s\\1'}}\n",
    "trailgate::suite::invalid_regex",
    "invalid `$schema` pattern `(\\w+)\\s\\1`: backreferences are not supported",
    (1, 24),
    "linear in the text"
)]
#[case::schema_pattern_look_ahead_in_a_key(
    "s:\n  $schema:\n    patternProperties:\n      '^(?!x-)': {type: string}\n",
    "trailgate::suite::invalid_regex",
    "invalid `$schema` pattern `^(?!x-)`: look-around, including look-ahead and look-behind, is not supported",
    (4, 7),
    "no back-references"
)]
#[case::schema_pattern_nested(
    "s: {$schema: {type: object, properties: {id: {items: [{pattern: '(?<=a)b'}]}}}}\n",
    "trailgate::suite::invalid_regex",
    "invalid `$schema` pattern `(?<=a)b`: look-around, including look-ahead and look-behind, is not supported",
    (1, 65),
    "no back-references"
)]
#[case::schema_pattern_in_defs(
    "s: {$schema: {$defs: {d: {pattern: '(ab'}}}}\n",
    "trailgate::suite::invalid_regex",
    "invalid `$schema` pattern `(ab`: unclosed group",
    (1, 36),
    "no back-references"
)]
#[case::schema_pattern_too_big(
    "s: {$schema: {pattern: '.{5000}'}}\n",
    "trailgate::suite::regex_too_big",
    "`$schema` pattern `.{5000}` compiles to more than 4 MiB, the limit for one regex",
    (1, 24),
    "ASCII class"
)]
// A pattern where the reader does not look for one (reached by a `$ref` into an unknown
// keyword) still meets the linear engine, which refuses it with the schema.
#[case::schema_pattern_behind_a_reference(
    "s: {$schema: {$ref: '#/x', x: {pattern: '(a)\\1'}}}\n",
    "trailgate::suite::invalid_schema",
    "",
    (1, 14),
    "draft 2020-12"
)]
#[case::nested_mistake(
    "a: {$any_of: [{b: [1, {$gte: x}]}]}\n",
    "trailgate::suite::invalid_matcher",
    "`$gte` takes a number, not a string",
    (1, 30),
    "without quotes"
)]
#[case::quoted_past_a_float(
    "n: {$gte: \"1e400\"}\n",
    "trailgate::suite::invalid_matcher",
    "`$gte` takes a number, not a string",
    (1, 11),
    "without quotes"
)]
#[case::tagged_string_past_a_float(
    "n:\n  $gte: !!str 1e400\n",
    "trailgate::suite::invalid_matcher",
    "`$gte` takes a number, not a string",
    (2, 9),
    "without quotes"
)]
#[case::two_numbers_one_float(
    "a: 0.0\nb: 1e-400\n",
    "trailgate::suite::invalid_matcher",
    "`1e-400` and `0.0` in this suite are one float to the YAML reader, and which of them this is cannot be told",
    (1, 4),
    "write the two so that they differ as floats"
)]
#[case::infinite(
    "n: {$gte: .inf}\n",
    "trailgate::suite::invalid_matcher",
    "a number must be finite",
    (1, 11),
    ".nan"
)]
fn diagnostics(
    #[case] yaml: &str,
    #[case] code: &str,
    #[case] message: &str,
    #[case] at: (usize, usize),
    #[case] help: &str,
) {
    if message.is_empty() {
        // A message that quotes the schema crate's own words: only its code and position.
        let problem = read_fragment::<ValueMatcher>(yaml).unwrap_err();
        assert_eq!(problem.code, code, "{problem:?}");
        assert!(problem.help.unwrap_or_default().contains(help));
        let offset = problem.span.unwrap().offset();
        assert_eq!(yaml[..offset].chars().count() + 1, at.1, "{yaml}");
        return;
    }
    check_problem(yaml, code, message, at, help);
}

/// The JSON Schema `trailgate schema` gives accepts what the reader accepts and refuses its
/// mistakes, so an editor flags them as the reader would.
#[rstest]
#[case::literal(json!({"q": "x", "n": [1, null]}), true)]
#[case::operators(json!({"n": {"$gte": 1}, "m": {"$any_of": ["a", {"$regex": "b"}]}}), true)]
#[case::near(json!({"$near": {"value": 1, "within": 0.5}}), true)]
#[case::eq_with_dollar_keys(json!({"$eq": {"$set": 1}}), true)]
#[case::unknown_operator(json!({"$gtee": 1}), false)]
#[case::two_keys(json!({"$gte": 1, "$lt": 5}), false)]
#[case::gte_string(json!({"$gte": "5"}), false)]
#[case::unknown_type(json!({"$type": "int"}), false)]
#[case::negative_within(json!({"$near": {"value": 1, "within": -1}}), false)]
fn the_schema_agrees_with_the_reader(#[case] written: Value, #[case] valid: bool) {
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<ValueMatcher>();
    let validator = jsonschema::draft202012::new(&schema.to_value()).unwrap();
    assert_eq!(validator.is_valid(&written), valid, "{written}");
    assert_eq!(
        read_fragment::<ValueMatcher>(&written.to_string()).is_ok(),
        valid,
        "the reader on {written}"
    );
}

#[test]
fn the_schema_describes_every_operator() {
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<ValueMatcher>();
    let text = serde_json::to_string(&schema).unwrap();
    for operator in super::OPERATORS {
        assert!(
            text.contains(&format!("\"{operator}\"")),
            "{operator} in {text}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// The laws of the language, over generated matchers and values.

fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3_i64..4).prop_map(|n| json!(n)),
        prop_oneof![Just(json!(0.5)), Just(json!(2.0)), Just(json!(-1.5))],
        prop_oneof![Just("a"), Just("ab"), Just("B")].prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map(prop_oneof![Just("a"), Just("b"), Just("c")], inner, 0..3)
                .prop_map(|map| Value::Object(
                    map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
                )),
        ]
    })
}

/// Matchers as YAML flow text, of every operator, nested.
fn any_matcher() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        any_value().prop_map(|value| value.to_string()),
        (-3_i64..4).prop_map(|n| format!("{{$gte: {n}}}")),
        (-3_i64..4).prop_map(|n| format!("{{$lt: {n}}}")),
        (-3_i64..4).prop_map(|n| format!("{{$near: {{value: {n}, within: 0.5}}}}")),
        prop_oneof![Just("a"), Just("b")].prop_map(|s| format!("{{$regex: '{s}'}}")),
        prop_oneof![Just("A"), Just("b")].prop_map(|s| format!("{{$icontains: {s}}}")),
        prop_oneof![
            Just("string"),
            Just("number"),
            Just("integer"),
            Just("boolean"),
            Just("null"),
            Just("array"),
            Just("object")
        ]
        .prop_map(|t| format!("{{$type: '{t}'}}")),
        any::<bool>().prop_map(|b| format!("{{$present: {b}}}")),
        Just("{$schema: {type: array, maxItems: 1}}".to_owned()),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|m| format!("{{$not: {m}}}")),
            inner.clone().prop_map(|m| format!("{{$contains: {m}}}")),
            inner.clone().prop_map(|m| format!("{{$eq: {m}}}")),
            prop::collection::vec(inner.clone(), 0..3)
                .prop_map(|ms| format!("{{$any_of: [{}]}}", ms.join(", "))),
            prop::collection::vec(inner.clone(), 0..3)
                .prop_map(|ms| format!("{{$all_of: [{}]}}", ms.join(", "))),
            prop::collection::vec(inner.clone(), 0..3)
                .prop_map(|ms| format!("[{}]", ms.join(", "))),
            prop::collection::btree_map(prop_oneof![Just("a"), Just("b")], inner, 0..3).prop_map(
                |map| {
                    let members: Vec<String> =
                        map.into_iter().map(|(k, m)| format!("{k}: {m}")).collect();
                    format!("{{{}}}", members.join(", "))
                }
            ),
        ]
    })
}

/// Whether a matcher written as YAML has a `$not`, under which a looser comparison of
/// objects makes the `$not` stricter (`not_object_subset` above).
fn has_not(yaml: &str) -> bool {
    yaml.contains("$not")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `$not` inverts on every present value, in both modes.
    #[test]
    fn not_inverts(yaml in any_matcher(), value in any_value(), subset in any::<bool>()) {
        let mode = if subset { Subset } else { Exact };
        let plain = matcher(&yaml);
        let negated = matcher(&format!("{{$not: {yaml}}}"));
        let actual = Some(ValueRef::parsed(&value));
        prop_assert_eq!(negated.matches(actual, mode), !plain.matches(actual, mode));
    }

    /// `$any_of` of one matcher is that matcher, absent values included.
    #[test]
    fn any_of_one_is_that_one(yaml in any_matcher(), value in any_value(), absent in any::<bool>()) {
        let plain = matcher(&yaml);
        let one = matcher(&format!("{{$any_of: [{yaml}]}}"));
        let all_of_one = matcher(&format!("{{$all_of: [{yaml}]}}"));
        let actual = (!absent).then(|| ValueRef::parsed(&value));
        for mode in [Exact, Subset] {
            prop_assert_eq!(one.matches(actual, mode), plain.matches(actual, mode));
            prop_assert_eq!(all_of_one.matches(actual, mode), plain.matches(actual, mode));
        }
    }

    /// `$all_of` of no matcher matches everything, absence included.
    #[test]
    fn all_of_none_always_matches(value in any_value(), absent in any::<bool>()) {
        let none = matcher("{$all_of: []}");
        let actual = (!absent).then(|| ValueRef::parsed(&value));
        prop_assert!(none.matches(actual, Exact) && none.matches(actual, Subset));
    }

    /// Subset mode accepts whatever exact mode accepts (for matchers without `$not`, which
    /// turns a looser comparison of objects into a stricter one).
    #[test]
    fn subset_accepts_what_exact_accepts(yaml in any_matcher(), value in any_value()) {
        prop_assume!(!has_not(&yaml));
        let matcher = matcher(&yaml);
        let actual = Some(ValueRef::parsed(&value));
        if matcher.matches(actual, Exact) {
            prop_assert!(matcher.matches(actual, Subset), "{}", yaml);
        }
    }

    /// A value matches the literal of itself.
    #[test]
    fn a_value_matches_itself(value in any_value()) {
        let literal = ValueMatcher::literal(value.clone());
        let run = run_with(&value.to_string());
        for mode in [Exact, Subset] {
            prop_assert!(literal.matches(Some(ValueRef::parsed(&value)), mode));
            prop_assert!(literal.matches(actual(&run), mode));
        }
    }

    /// Every matcher answers the same for a value read from a trace's text and for the
    /// same value parsed.
    #[test]
    fn text_and_parse_agree(value in any_value(), yaml in any_matcher()) {
        let run = run_with(&value.to_string());
        let matcher = matcher(&yaml);
        for mode in [Exact, Subset] {
            prop_assert_eq!(
                matcher.matches(actual(&run), mode),
                matcher.matches(Some(ValueRef::parsed(&value)), mode),
                "{} against {}", yaml, value
            );
        }
    }

    /// Numbers are equal by value whatever their spelling: `1`, `1.0`, `10e-1`, `0.1e1`.
    #[test]
    fn numbers_equal_by_value_whatever_the_spelling(n in -1000_i64..1000, spelling in 0_usize..4) {
        let abs = n.unsigned_abs();
        let sign = if n < 0 { "-" } else { "" };
        let spelled = match spelling {
            0 => format!("{n}"),
            1 => format!("{n}.0"),
            // `00e-1` is not JSON: zero has one digit before the exponent.
            2 if abs == 0 => "0e-1".to_owned(),
            2 => format!("{sign}{abs}0e-1"),
            _ => format!("{sign}0.{abs}e{}", abs.to_string().len()),
        };
        let run = run_with(&spelled);
        for yaml in [format!("{n}"), format!("{{$gte: {n}}}"), format!("{{$lte: {n}}}"), format!("{{$near: {{value: {n}, within: 0}}}}")] {
            prop_assert!(matcher(&yaml).matches(actual(&run), Exact), "{} against {}", yaml, spelled);
        }
    }
}

/// The arguments of a run's one call, written as `args`, read from a line of JSON Lines
/// as `check` reads them.
#[track_caller]
fn args_of(args: &str) -> trailgate_trace::LazyValue {
    let text = format!(r#"{{"tool_calls": [{{"name": "f", "args": {args}}}]}}"#);
    let mut runs = Vec::new();
    trailgate_trace::read_trace(
        "t.jsonl",
        text.as_bytes(),
        true,
        &trailgate_trace::ReadOptions::default(),
        |run| runs.push(run),
    )
    .unwrap();
    runs.remove(0).calls.remove(0).args
}

/// A literal compared with arguments read as canonical text (compact, keys in order, plain
/// integers, no escape) is compared as text with its key; with any other text, value by
/// value. Both say what a comparison of the values says.
#[rstest]
#[case::canonical_equal(r#"{"a":1,"b":[true,null]}"#, "{b: [true, null], a: 1}", true, true)]
#[case::canonical_other_value(
    r#"{"a":1,"b":[true,null]}"#,
    "{a: 1, b: [true, false]}",
    true,
    false
)]
#[case::canonical_other_key(r#"{"a":1}"#, "{b: 1}", true, false)]
#[case::canonical_against_a_decimal(r#"{"n":2}"#, "{n: 2.0}", true, true)]
#[case::canonical_against_a_string(r#"{"n":2}"#, "{n: '2'}", true, false)]
#[case::canonical_nested(r#"{"o":{"x":[1,{"y":"z"}]}}"#, "{o: {x: [1, {y: z}]}}", true, true)]
#[case::spaces_equal(
    r#"{"a": 1, "b": [true, null]}"#,
    "{a: 1, b: [true, null]}",
    false,
    true
)]
#[case::keys_out_of_order_equal(r#"{"b":2,"a":1}"#, "{a: 1, b: 2}", false, true)]
#[case::decimal_equal(r#"{"n":2.0}"#, "{n: 2}", false, true)]
#[case::escaped_equal(r#"{"s":"\u0041"}"#, "{s: A}", false, true)]
#[case::not_canonical_other(r#"{"a": 2}"#, "{a: 1}", false, false)]
fn a_literal_equals_arguments_read_canonical_or_not(
    #[case] args: &str,
    #[case] yaml: &str,
    #[case] canonical: bool,
    #[case] equal: bool,
) {
    let actual = args_of(args);
    assert_eq!(actual.canonical_text().is_some(), canonical, "{args}");
    let expected = matcher(yaml);
    let literal = expected.as_literal().expect("a literal");
    assert_eq!(
        actual.view().equals(literal),
        equal,
        "{args} against {yaml}"
    );
    assert_eq!(
        expected.literal_equals(&actual),
        Some(equal),
        "{args} against {yaml}"
    );
    // Asked again, with the key written already.
    assert_eq!(
        expected.literal_equals(&actual),
        Some(equal),
        "{args} against {yaml}"
    );
}

#[test]
fn a_matcher_with_an_operator_has_no_literal_to_equal() {
    assert_eq!(
        matcher("{a: {$gte: 1}}").literal_equals(&args_of(r#"{"a":1}"#)),
        None
    );
}

/// A small JSON value: few keys and scalars, so that two drawn values are often equal.
fn small_value() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3_i64..3).prop_map(Value::from),
        prop::sample::select(vec!["x", "y", "é"]).prop_map(Value::from),
    ];
    scalar.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(vec!["a", "b"]), inner, 0..3)
                .prop_map(|map| {
                    Value::Object(map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
                }),
        ]
    })
}

proptest! {
    /// Whatever the arguments and the literal, written compact (canonical) or spaced, the
    /// literal equals them exactly when the values are equal.
    #[test]
    fn a_literal_equals_read_arguments_as_their_values_do(
        actual in small_value(),
        expected in small_value(),
        spaced in any::<bool>(),
    ) {
        let args = Value::Object([("v".to_owned(), actual)].into_iter().collect());
        let text = if spaced {
            serde_json::to_string_pretty(&args).unwrap().replace('\n', " ")
        } else {
            serde_json::to_string(&args).unwrap()
        };
        let read = args_of(&text);
        let literal = Value::Object([("v".to_owned(), expected)].into_iter().collect());
        let matcher = ValueMatcher::literal(literal.clone());
        prop_assert_eq!(
            matcher.literal_equals(&read),
            Some(read.view().equals(&literal)),
            "{} against {}", text, literal
        );
    }
}

/// A string that reads like a regex and was compared literally gets the `$regex` form to
/// write; any other expected value gets none.
#[rstest]
#[case::caret("\"^npm test\"", Some("{ $regex: \"^npm test\" }"))]
#[case::dollar("\"\\\\.env$\"", Some("{ $regex: \"\\\\.env$\" }"))]
#[case::dot_star("\"src/.*\"", Some("{ $regex: \"src/.*\" }"))]
#[case::digit("\"v\\\\d+\"", Some("{ $regex: \"v\\\\d+\" }"))]
#[case::plain_words("\"npm test\"", None)]
#[case::a_dot_alone("\"README.md\"", None)]
#[case::a_number("42", None)]
#[case::an_operator("{\"$gte\":1}", None)]
fn a_literal_that_reads_as_a_regex_gets_the_regex_form(
    #[case] expected: &str,
    #[case] hint: Option<&str>,
) {
    let mismatch = ValueMismatch {
        path: "command".to_owned(),
        expected: expected.to_owned(),
        actual: Some("\"npm test -- --run\"".to_owned()),
    };
    assert_eq!(mismatch.regex_hint().as_deref(), hint);
}

/// `SuiteFile::parse_matcher` reads one matcher alone, after the checks a suite's text gets
/// first: a matcher that compiles, a mistake placed in the text, and text refused before
/// the YAML reader sees it (nesting too deep, a character YAML does not allow).
#[rstest]
#[case::a_matcher("{$all_of: [{$gte: 1}, {$lt: 10}]}", None)]
#[case::unknown_operator("{$gtee: 1}", Some(("trailgate::suite::unknown_operator", 1)))]
#[case::too_deep(&"[".repeat(200), Some(("trailgate::suite::too_deep", 128)))]
#[case::unprintable("a\u{1b}", Some(("trailgate::suite::unprintable", 1)))]
fn a_matcher_is_read_alone(#[case] yaml: &str, #[case] refused: Option<(&str, usize)>) {
    let read = crate::SuiteFile::new("matcher.yaml", yaml.to_owned()).parse_matcher();
    match (read, refused) {
        (Ok(matcher), None) => {
            let value = json!(5);
            assert!(matcher.matches(Some(ValueRef::parsed(&value)), Exact));
        }
        (Err(error), Some((code, offset))) => {
            let problem = error.problems().next().unwrap();
            assert_eq!(problem.code, code);
            assert_eq!(problem.span.map(|span| span.offset()), Some(offset));
        }
        (read, _) => panic!("{yaml}: {:?}", read.map(|matcher| matcher.to_string())),
    }
}
