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
        agent: None,
        time: None,
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

/// A string of `a` and `b`, of `min` to `max` characters.
fn ab(min: usize, max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(&['a', 'b'][..]), min..=max)
        .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    /// Strings inside strings, each found at many bytes of many results, in runs that read
    /// more than a few results with more than a few strings (so that the automaton searches
    /// them): the verdict, and the failure, are those of asking each pair of calls.
    #[test]
    fn strings_inside_strings_are_found_as_pair_by_pair(
        results in prop::collection::vec(ab(0, 24), 5..=9),
        asked in prop::collection::vec((ab(4, 7), any::<bool>()), 5..=12),
    ) {
        let (feeds, into) = (step("search"), step("get"));
        let result = |text: &String| made("search", None, Some(json!(text)));
        let get = |text: &String| made("get", Some(json!(text)), None);
        // The strings marked early are asked after the first five results, the others
        // after all of them.
        let mut calls: Vec<Call> = results[..5].iter().map(result).collect();
        calls.extend(asked.iter().filter(|(_, early)| *early).map(|(text, _)| get(text)));
        calls.extend(results[5..].iter().map(result));
        calls.extend(asked.iter().filter(|(_, early)| !*early).map(|(text, _)| get(text)));
        prop_assert_eq!(
            super::verdict(&feeds, &into, "v", &calls),
            pairwise(&feeds, &into, &calls)
        );
    }
}

/// A result that holds the strings asked about at every byte, strings inside strings
/// (`aaaa`, `aaaaa`, ... 600 of them in a result of 200,000 `a`s, after five results that
/// hold none): listing every hit found 120 million, a gigabyte. Each string is noted once,
/// and the result is read once: the work (bytes of results read, strings noted) is within
/// the results' length and the strings', plus the few results searched one string at a
/// time, whether every string is found (and the search stops) or one is not (and it reads
/// on to the end).
#[rstest::rstest]
#[case::every_string_found(false)]
#[case::one_string_nowhere(true)]
fn a_result_full_of_strings_is_read_once(#[case] one_nowhere: bool) {
    let (feeds, into) = (step("search"), step("get"));
    let (strings, length) = (600, 200_000);
    let mut calls: Vec<Call> = (0..5)
        .map(|n| made("search", None, Some(json!(format!("nothing {n}")))))
        .collect();
    calls.push(made("search", None, Some(json!("a".repeat(length)))));
    let mut asked: Vec<String> = (0..strings).map(|n| "a".repeat(4 + n)).collect();
    if one_nowhere {
        asked.push("bbbb".to_owned());
    }
    calls.extend(
        asked
            .iter()
            .map(|text| made("get", Some(json!(text)), None)),
    );
    let (verdict, work) = crate::work::counted(|| super::verdict(&feeds, &into, "v", &calls));
    match verdict {
        EdgeVerdict::Held => assert!(!one_nowhere),
        EdgeVerdict::Failed(failure) => {
            assert!(one_nowhere);
            assert_eq!(failure.call.map(|call| call.call), Some(calls.len()));
        }
        EdgeVerdict::Vacuous => panic!("the edge applies"),
    }
    let results: usize = calls
        .iter()
        .filter_map(Call::result_view)
        .map(|result| result.match_text().len())
        .sum();
    let texts: usize = asked.iter().map(String::len).sum();
    let one_by_one = super::SEARCHED_ONE_BY_ONE * super::ONE_BY_ONE_BYTES;
    assert!(
        work <= results + texts + one_by_one,
        "{work} bytes read and strings noted, for {results} bytes of results and {texts} of strings"
    );
}

/// Thousands of strings against long results, the first few of which are searched one
/// string at a time: each such search reads at most [`super::ONE_BY_ONE_BYTES`] (strings
/// times length), past which the automaton reads the result once.
#[test]
fn many_strings_read_a_long_result_once() {
    let (feeds, into) = (step("search"), step("get"));
    let asked: Vec<String> = (0..5_000).map(|n| format!("id-{n:05}")).collect();
    let result = asked.iter().rev().cloned().collect::<Vec<_>>().join(" ");
    let mut calls = vec![made("search", None, Some(json!(result)))];
    calls.extend(
        asked
            .iter()
            .map(|text| made("get", Some(json!(text)), None)),
    );
    let (verdict, work) = crate::work::counted(|| super::verdict(&feeds, &into, "v", &calls));
    assert_eq!(verdict, EdgeVerdict::Held);
    let texts: usize = asked.iter().map(String::len).sum();
    // One result of about 40,000 bytes; 5,000 strings one by one read it 5,000 times.
    assert!(
        work <= 2 * (result.len() + texts),
        "{work} for {}",
        result.len()
    );
}
