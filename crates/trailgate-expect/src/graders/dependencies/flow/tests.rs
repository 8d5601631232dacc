//! Flow edges read in one pass give what asking each pair of calls gives.

use proptest::prelude::*;
use serde_json::{Value, json};
use trailgate_core::Member;
use trailgate_trace::{Call, Status, args_equal};

use super::super::{EdgeFailure, EdgeVerdict, called};
use crate::matchers::{ArgsMode, shown};
use crate::step_matcher::StepMatcher;
use crate::tool_matcher::ToolMatcher;

fn step(name: &str) -> StepMatcher {
    StepMatcher {
        tool: ToolMatcher::member(Member::parse(name).unwrap()),
        args: None,
        args_mode: ArgsMode::default(),
    }
}

/// The definition, asked pair by pair: whether `value` was produced by `result`.
fn produced(value: &Value, result: &Value) -> bool {
    if let Value::String(text) = value
        && text.chars().count() >= super::MIN_FOUND_CHARS
        && trailgate_trace::result_text(result).contains(text.as_str())
    {
        return true;
    }
    let mut stack = vec![result];
    while let Some(inside) = stack.pop() {
        if args_equal(value, inside) {
            return true;
        }
        match inside {
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => stack.extend(members.values()),
            _ => {}
        }
    }
    false
}

/// The edge by its definition: each `into` call against each earlier `feeds` call.
fn pairwise(feeds: &StepMatcher, into: &StepMatcher, calls: &[Call]) -> EdgeVerdict {
    let mut applied = false;
    for (index, call) in calls.iter().enumerate() {
        if !into.matches(call) {
            continue;
        }
        applied = true;
        let before: Vec<usize> = (0..index).filter(|&c| feeds.matches(&calls[c])).collect();
        let value = call.args_view().get("v");
        let held = value.is_some_and(|value| {
            let value = value.to_value();
            before.iter().any(|&c| {
                calls[c]
                    .result()
                    .is_some_and(|result| produced(&value, result))
            })
        });
        if !held {
            return EdgeVerdict::Failed(EdgeFailure {
                call: Some(called(calls, index)),
                other: before.last().map(|&c| called(calls, c)),
                value: value.map(shown),
                flow: true,
            });
        }
    }
    if applied {
        EdgeVerdict::Held
    } else {
        EdgeVerdict::Vacuous
    }
}

fn value() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        Just(json!(1)),
        Just(json!(1.0)),
        Just(json!(-0.0)),
        Just(json!(0)),
        Just(json!("ab")),
        Just(json!("abcd")),
        Just(json!("xabcdx")),
        Just(json!("bcda")),
        Just(json!("cdab")),
        Just(json!("dabc")),
        Just(json!("abcdab")),
        Just(json!("ab\u{e9}cd")),
        Just(json!(null)),
    ];
    scalar.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec(inner, 0..3).prop_map(|items| {
                let keys = ["v", "w", "x"];
                Value::Object(
                    items
                        .into_iter()
                        .zip(keys)
                        .map(|(item, key)| (key.to_owned(), item))
                        .collect(),
                )
            }),
        ]
    })
}

fn call() -> impl Strategy<Value = Call> {
    (
        prop::sample::select(&["search", "get", "both"][..]),
        prop::option::of(value()),
        prop::option::of(value()),
    )
        .prop_map(|(name, argument, result)| made(name, argument, result))
}

fn made(name: &str, argument: Option<Value>, result: Option<Value>) -> Call {
    Call {
        server: None,
        name: name.to_owned(),
        args: argument
            .map_or_else(|| json!({}), |argument| json!({ "v": argument }))
            .into(),
        args_raw: None,
        completed: result.is_some(),
        result: result.map(Into::into),
        status: Status::Ok,
        step: 0,
    }
}

/// A string of 4 characters or more is found in a result's text; a shorter one, and a
/// value of a later call, are not; a value equal to one inside a result is.
#[test]
fn values_are_found_in_earlier_results() {
    let (feeds, into) = (step("search"), step("get"));
    let run = |result: Value, argument: Value| {
        let calls = [
            made("search", None, Some(result)),
            made("get", Some(argument), None),
        ];
        super::verdict(&feeds, &into, "v", &calls)
    };
    assert_eq!(run(json!("xabcdx"), json!("abcd")), EdgeVerdict::Held);
    assert!(matches!(
        run(json!("xabcx"), json!("abc")),
        EdgeVerdict::Failed(_)
    ));
    assert_eq!(
        run(json!({ "ids": [7, 1.5] }), json!(1.50)),
        EdgeVerdict::Held
    );
    assert_eq!(
        run(json!({ "a": { "b": [1] } }), json!({ "b": [1.0] })),
        EdgeVerdict::Held
    );
    let later = [
        made("get", Some(json!("abcd")), None),
        made("search", None, Some(json!("abcd"))),
    ];
    assert!(matches!(
        super::verdict(&feeds, &into, "v", &later),
        EdgeVerdict::Failed(EdgeFailure { other: None, .. })
    ));
}

/// A value that only an equal value produces (a string shorter than 4 characters, or one
/// that JSON writes with an escape) is looked for among the result's values, also when it
/// is the only value asked about; a longer plain string is found in the result's text,
/// whether the result was read from compact text (with fractions, written as they are) or
/// from text that must be written again.
#[rstest::rstest]
#[case::short_string_equal_inside(r#"{"w": "abc"}"#, r#""abc""#, true)]
#[case::short_string_in_a_longer_one(r#"{"w": "xabcx"}"#, r#""abc""#, false)]
#[case::escaped_string_equal_inside(r#"{"w": "a\"bcd"}"#, r#""a\"bcd""#, true)]
#[case::escaped_string_in_a_longer_one(r#"{"w": "xa\"bcdx"}"#, r#""a\"bcd""#, false)]
#[case::compact_with_fractions(
    r#"{"hits":[{"score":0.861,"url":"https://x.example/a"}],"total":3}"#,
    r#""https://x.example/a""#,
    true
)]
#[case::spaced_and_unsorted(
    r#"{"total": 3, "hits": [{"url": "https://x.example/a", "score": 1e0}]}"#,
    r#""https://x.example/a""#,
    true
)]
#[case::a_key_is_text_too(r#"{"https://x.example/a":1}"#, r#""https://x.example/a""#, true)]
#[case::not_there(
    r#"{"hits":[{"score":0.861,"url":"https://x.example/b"}]}"#,
    r#""https://x.example/a""#,
    false
)]
fn one_value_asked_about(#[case] result: &str, #[case] argument: &str, #[case] held: bool) {
    let trace = format!(
        r#"{{"tool_calls": [{{"name": "search", "result": {result}}}, {{"name": "get", "args": {{"v": {argument}}}}}]}}"#
    );
    let run = trailgate_trace::parse_run("run.json", &trace, 1).expect("a valid trace");
    let verdict = super::verdict(&step("search"), &step("get"), "v", &run.calls);
    assert_eq!(verdict == EdgeVerdict::Held, held, "{trace}: {verdict:?}");
    assert_eq!(
        verdict,
        pairwise(&step("search"), &step("get"), &run.calls),
        "{trace}"
    );
}

/// Texts are found the same way whether they are searched one by one or, in a run
/// that reads more results with more texts, all at once: each in the first result that
/// holds it, none in a result after the call that passes it.
#[rstest::rstest]
#[case::one_by_one(crate::graders::dependencies::flow::SEARCHED_ONE_BY_ONE)]
#[case::at_once(2 * crate::graders::dependencies::flow::SEARCHED_ONE_BY_ONE + 3)]
fn many_texts_are_found_as_few_are(#[case] texts: usize) {
    let (feeds, into) = (step("search"), step("get"));
    let text = |n: usize| format!("value-{n}");
    // Each text in a result of its own, within other text; the first result holds two.
    let mut calls: Vec<Call> = (0..texts)
        .map(|n| {
            made(
                "search",
                None,
                Some(json!({ "out": format!("[{}]", text(n)) })),
            )
        })
        .collect();
    calls[0] = made(
        "search",
        None,
        Some(json!([text(0), format!("x{}x", text(1))])),
    );
    calls.extend((0..texts).map(|n| made("get", Some(json!(text(n))), None)));
    assert_eq!(
        super::verdict(&feeds, &into, "v", &calls),
        EdgeVerdict::Held
    );
    // The result holding the last text alone comes after the call that passes it:
    // the text is not found before that call.
    let last = texts - 1;
    calls.swap(last, texts + last);
    let EdgeVerdict::Failed(failure) = super::verdict(&feeds, &into, "v", &calls) else {
        panic!("the last text is found before its call");
    };
    assert_eq!(failure.call.map(|call| call.call), Some(last + 1));
    assert_eq!(failure.other.map(|call| call.call), Some(last));
}

proptest! {
    /// One read of each result gives the verdict, and the failure, that asking each
    /// pair of calls gives.
    #[test]
    fn the_linear_edge_is_the_pairwise_edge(
        calls in prop::collection::vec(call(), 0..12),
        feeds in prop::sample::select(&["search", "both"][..]),
        into in prop::sample::select(&["get", "both"][..]),
    ) {
        let (feeds, into) = (step(feeds), step(into));
        // Every prefix of the run: each `into` call is the first to fail in one.
        for end in 0..=calls.len() {
            prop_assert_eq!(
                super::verdict(&feeds, &into, "v", &calls[..end]),
                pairwise(&feeds, &into, &calls[..end]),
                "the first {} calls", end
            );
        }
    }
}
