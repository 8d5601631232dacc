//! `budget`'s repeats (one tool with equal arguments, by value) and loops.

use crate::metric_value::MetricValue;
use rstest::rstest;

use super::{Lack, Limit};
use crate::prices::NotAnAmount;
use serde_json::json;
use trailgate_trace::{Call, Status};

fn call(server: Option<&str>, name: &str, args: serde_json::Value) -> Call {
    Call {
        server: server.map(str::to_owned),
        name: name.to_owned(),
        args: args.into(),
        args_raw: None,
        result: None,
        status: Status::Ok,
        step: 0,
        completed: true,
        agent: None,
        time: None,
    }
}

/// A repeat is the same tool with equal arguments: keys in any order, numbers by value
/// (`-0` is `0`), never a call of another tool or with other arguments.
#[test]
fn repeats_are_calls_of_one_tool_with_equal_arguments() {
    let calls = [
        call(None, "get", json!({ "page": 1, "q": "a" })),
        call(None, "get", json!({ "q": "a", "page": 1.0 })),
        call(Some("http"), "get", json!({ "page": 1, "q": "a" })),
        call(None, "get", json!({ "page": 2, "q": "a" })),
        call(None, "get", json!({ "page": -0.0 })),
        call(None, "get", json!({ "page": 0 })),
        call(None, "search", json!({ "page": 1, "q": "a" })),
        call(None, "get", json!({ "page": 1e0, "q": "a" })),
    ];
    let found = super::scan(&calls, false);
    assert_eq!((found.repeats, found.first_repeat), (3, Some((1, 0))));
}

/// The calls written as words: `search` a call of `search` with no arguments, `get:2` a
/// call of `get` with `{"page": 2}`.
fn calls(words: &str) -> Vec<Call> {
    words
        .split_whitespace()
        .map(|word| match word.split_once(':') {
            Some((name, page)) => call(None, name, json!({ "page": page })),
            None => call(None, word, json!({})),
        })
        .collect()
}

/// The longest loop of `words` as (start from 0, block length, occurrences).
#[track_caller]
fn check_loop(words: &str, expected: Option<(usize, usize, u64)>) {
    let found = super::scan(&calls(words), true).longest_loop;
    let found = found.map(|at| (at.start, at.length, at.occurrences));
    assert_eq!(found, expected, "{words}");
}

#[rstest::rstest]
#[case::none("a b c d", None)]
#[case::empty("", None)]
#[case::one_call("a", None)]
#[case::three_in_a_row("a a a", Some((0, 1, 3)))]
#[case::broken_runs_count_apart("a a a x a a a", Some((0, 1, 3)))]
#[case::later_and_longer("a x b b b b", Some((2, 1, 4)))]
#[case::shortest_form("a a a a", Some((0, 1, 4)))]
#[case::pairs("a b a b a b", Some((0, 2, 3)))]
#[case::triples("x a b c a b c", Some((1, 3, 2)))]
#[case::block_of_eight("a b c d e f g h a b c d e f g h", Some((0, 8, 2)))]
#[case::block_of_nine_is_no_loop("a b c d e f g h i a b c d e f g h i", None)]
#[case::paging_is_no_loop("get:1 get:2 get:3 get:4", None)]
#[case::paging_repeated("get:1 get:2 get:1 get:2", Some((0, 2, 2)))]
#[case::tie_earliest_start("a a b b b c c c", Some((2, 1, 3)))]
#[case::a_pair_then_another_call("a b a b c", Some((0, 2, 2)))]
#[case::tie_earlier_longer_block_wins("a b a b a a", Some((0, 2, 2)))]
#[case::partial_last_occurrence("a b a b a", Some((0, 2, 2)))]
fn loops(#[case] words: &str, #[case] expected: Option<(usize, usize, u64)>) {
    check_loop(words, expected);
}

/// A run fails `max_loop: N` exactly when a block occurs more than N times back to back,
/// and the verdict names that block.
#[rstest::rstest]
#[case::at_the_limit("a a a", 3, true)]
#[case::one_over("a a a", 2, false)]
#[case::shortest_form_counts("a a a a", 3, false)]
#[case::one_allows_no_loop("a b a b", 1, false)]
#[case::no_loop_passes_one("a b c", 1, true)]
fn max_loop(#[case] words: &str, #[case] max: u64, #[case] passed: bool) {
    let grader = super::BudgetGrader {
        max_loop: Some(max),
        ..super::BudgetGrader::default()
    };
    let run = trailgate_trace::Run {
        calls: calls(words),
        ..trailgate_trace::Run::default()
    };
    let verdict = grader.grade(&run);
    assert_eq!(verdict.passed, passed, "{words}");
    let exceeded: Vec<_> = verdict
        .exceeded
        .iter()
        .map(|e| (e.limit, e.count, e.max))
        .collect();
    let occurrences = verdict.longest_loop.as_ref().map_or(1, |l| l.occurrences);
    let expected = if passed {
        vec![]
    } else {
        vec![(
            super::Limit::Loop,
            super::Amount::Count(occurrences),
            super::Amount::Count(max),
        )]
    };
    assert_eq!(exceeded, expected, "{words}");
}

/// A `budget` block with `max_loop: 2` as the JSON report writes it: one run of a pair
/// occurring 3 times, past the limit.
fn loop_block() -> serde_json::Value {
    json!({
        "limits": { "max_loop": 2 },
        "max_calls_per_tool": [],
        "optimal_calls": null,
        "passing_runs": 0,
        "weighed_calls": 7,
        "longest_loop": 3,
        "pass_rate": 0,
        "efficiency": null,
        "runs": [{
            "run": 1, "passed": false, "calls": 7, "steps": 7, "errors": 0, "repeats": 4,
            "per_tool": [], "weighed": 7,
            "exceeded": [{ "limit": "max_loop", "count": 3, "max": 2 }],
            "first_repeat": { "call": { "call": 3, "tool": "search" }, "repeats_call": 1 },
            "longest_loop": { "tools": ["search", "fetch"], "call": 1, "occurrences": 3 }
        }]
    })
}

/// `merge` re-checks a block's loops: the most occurrences over the runs, each run's
/// `max_loop` entry against its loop, and a loop within the block of 7 calls.
#[rstest::rstest]
#[case::as_written(|_: &mut serde_json::Value| {}, None)]
#[case::another_longest(|b: &mut serde_json::Value| b["longest_loop"] = 4.into(), Some("budget.longest_loop is 4 but its runs give 3"))]
#[case::longest_missing(|b: &mut serde_json::Value| b["longest_loop"] = serde_json::Value::Null, Some("`budget.longest_loop` is missing"))]
#[case::another_count(|b: &mut serde_json::Value| b["runs"][0]["exceeded"][0]["count"] = 4.into(), Some("but its longest loop has 3"))]
#[case::over_but_passed(|b: &mut serde_json::Value| {
    b["runs"][0]["exceeded"] = json!([]);
    b["runs"][0]["passed"] = true.into();
    b["passing_runs"] = 1.into();
    b["pass_rate"] = 100.into();
}, Some("more than `max_loop` 2"))]
#[case::past_the_run(|b: &mut serde_json::Value| b["runs"][0]["longest_loop"]["call"] = 3.into(), Some("goes past the run's 7 calls"))]
#[case::a_block_of_nine(|b: &mut serde_json::Value| b["runs"][0]["longest_loop"]["tools"] = json!(["a", "b", "c", "d", "e", "f", "g", "h", "i"]), Some("a block of 9 calls"))]
fn merge_rechecks_loops(#[case] edit: fn(&mut serde_json::Value), #[case] refused: Option<&str>) {
    let mut block = loop_block();
    edit(&mut block);
    let metrics = std::collections::BTreeMap::from([(
        "budget.pass_rate".to_owned(),
        MetricValue::whole(u128::from(block["pass_rate"].as_u64().unwrap_or(0))),
    )]);
    let view: super::recheck::BudgetView = match serde_json::from_value(block) {
        Ok(view) => view,
        Err(error) => panic!("{error}"),
    };
    let checked = super::recheck::add_up(&view, &crate::recheck::Metrics(&metrics));
    match refused {
        None => assert_eq!(checked, Ok(())),
        Some(words) => {
            let message = checked.err().unwrap_or_default();
            assert!(message.contains(words), "{message}");
        }
    }
}

/// A `budget` block with `max_tokens` and `max_cost` as the JSON report writes it: two
/// runs, the second over both limits.
fn usage_block() -> serde_json::Value {
    let run = |number: u64, output: u64, cost: &str, exceeded: serde_json::Value| {
        json!({
            "run": number, "passed": exceeded.as_array().is_none_or(Vec::is_empty),
            "calls": 1, "steps": 1, "errors": 0, "repeats": 0, "per_tool": [], "weighed": 1,
            "exceeded": exceeded, "first_repeat": null,
            "input_tokens": 1_000_000, "output_tokens": output,
            "cost": serde_json::Number::from_string_unchecked(cost.to_owned())
        })
    };
    let number = |text: &str| serde_json::Number::from_string_unchecked(text.to_owned());
    json!({
        "limits": { "max_tokens": 2_000_000 },
        "max_calls_per_tool": [],
        "optimal_calls": null,
        "passing_runs": 1,
        "weighed_calls": 2,
        "max_cost": number("0.3"),
        "input_tokens": 2_000_000,
        "output_tokens": 2_000_001,
        "cost": number("0.6000002"),
        "pass_rate": 50,
        "efficiency": null,
        "runs": [
            run(1, 1_000_000, "0.3", json!([])),
            run(2, 1_000_001, "0.3000002", json!([
                { "limit": "max_tokens", "count": 2_000_001, "max": 2_000_000 },
                { "limit": "max_cost", "count": number("0.3000002"), "max": number("0.3") }
            ])),
        ]
    })
}

/// `merge` adds the runs' tokens and costs exactly and checks the block's sums, and checks
/// each exceeded amount, decimals included, against its limit.
#[rstest::rstest]
#[case::as_written(|_: &mut serde_json::Value| {}, None)]
#[case::another_output_sum(|b: &mut serde_json::Value| b["output_tokens"] = 2_000_000.into(), Some("budget.output_tokens is 2000000 but its runs give 2000001"))]
#[case::a_cost_off_by_one_unit(|b: &mut serde_json::Value| b["cost"] = serde_json::Number::from_string_unchecked("0.600000200000000001".to_owned()).into(), Some("budget.cost"))]
#[case::cost_sum_missing(|b: &mut serde_json::Value| { b.as_object_mut().map(|o| o.remove("cost")); }, Some("`budget.cost`"))]
#[case::a_cost_within_listed_as_over(|b: &mut serde_json::Value| b["runs"][1]["exceeded"][1]["count"] = serde_json::Number::from_string_unchecked("0.3".to_owned()).into(), Some("lists a limit of 0.3 as exceeded by 0.3"))]
#[case::a_negative_cost(|b: &mut serde_json::Value| b["runs"][0]["cost"] = serde_json::Number::from_string_unchecked("-0.3".to_owned()).into(), Some("which is no cost"))]
fn merge_rechecks_usage(#[case] edit: fn(&mut serde_json::Value), #[case] refused: Option<&str>) {
    let mut block = usage_block();
    edit(&mut block);
    // The means, floored: 2,000,001 output tokens over 2 runs are 1,000,000; a cost of
    // 0.6000002 over 2 runs is 0.3000001, and 0.3 to six decimals.
    let metrics = usage_metrics("1000000", "0.3");
    let view: super::recheck::BudgetView = match serde_json::from_value(block) {
        Ok(view) => view,
        Err(error) => panic!("{error}"),
    };
    let checked = super::recheck::add_up(&view, &crate::recheck::Metrics(&metrics));
    match refused {
        None => assert_eq!(checked, Ok(())),
        Some(words) => {
            let message = checked.err().unwrap_or_default();
            assert!(message.contains(words), "{message}");
        }
    }
}

/// The metrics of [`usage_block`], with `output_tokens` and `cost` as given.
fn usage_metrics(output: &str, cost: &str) -> std::collections::BTreeMap<String, MetricValue> {
    let value = |text: &str| MetricValue::parse(text).expect("a metric value");
    std::collections::BTreeMap::from([
        ("budget.pass_rate".to_owned(), MetricValue::whole(50)),
        ("usage.input_tokens".to_owned(), value("1000000")),
        ("usage.output_tokens".to_owned(), value(output)),
        ("usage.cost".to_owned(), value(cost)),
    ])
}

/// `merge` refuses a shard whose `usage.*` metrics are not the means of its sums.
#[rstest::rstest]
#[case::output_rounded_up(
    "1000001",
    "0.3",
    "`metrics` says `usage.output_tokens` is 1000001 but the runs give 1000000"
)]
#[case::cost_not_floored(
    "1000000",
    "0.300001",
    "`metrics` says `usage.cost` is 0.300001 but the runs give 0.3"
)]
fn merge_rechecks_usage_metrics(#[case] output: &str, #[case] cost: &str, #[case] refused: &str) {
    let view: super::recheck::BudgetView =
        serde_json::from_value(usage_block()).expect("a budget block");
    let metrics = usage_metrics(output, cost);
    let checked = super::recheck::add_up(&view, &crate::recheck::Metrics(&metrics));
    assert_eq!(checked, Err(refused.to_owned()));
}

/// A written number times 10^digits, exact, or why it is no amount.
#[rstest]
#[case::whole("3", 2, Ok(300))]
#[case::fraction("0.1", 12, Ok(100_000_000_000))]
#[case::exponent("1e-3", 6, Ok(1_000))]
#[case::exponent_up("2.5e2", 0, Ok(250))]
#[case::trailing_zeros_past_the_digits("0.1000", 1, Ok(1))]
#[case::negative_zero("-0.0", 3, Ok(0))]
#[case::negative("-0.5", 3, Err(NotAnAmount::Negative))]
#[case::too_precise("0.0000000000001", 12, Err(NotAnAmount::TooPrecise))]
#[case::too_large("1e40", 0, Err(NotAnAmount::TooLarge))]
fn scaled(#[case] text: &str, #[case] digits: u32, #[case] expected: Result<u128, NotAnAmount>) {
    assert_eq!(crate::prices::scaled(text, digits), expected, "{text}");
}

/// What tokens cost at a price, exactly, written as reports write it.
#[rstest]
#[case::float_would_differ((1_000_000, 1_000_000, None), ("0.1", "0.2", None), "0.3")]
#[case::one_token((1, 0, None), ("0", "0", None), "0")]
#[case::cached_apart((1_000_000, 0, Some(400_000)), ("0.1", "0.2", Some("0.01")), "0.064")]
#[case::cached_at_input_price((1_000_000, 0, Some(400_000)), ("0.1", "0.2", None), "0.1")]
#[case::past_a_float((9_007_199_254_740_993, 0, None), ("0.1", "0", None), "900719925.4740993")]
fn cost(
    #[case] (input, output, cached_input): (u64, u64, Option<u64>),
    #[case] (input_price, output_price, cached_price): (&str, &str, Option<&str>),
    #[case] expected: &str,
) {
    let usage = trailgate_trace::Usage {
        models: [(
            "m".to_owned(),
            trailgate_trace::Tokens {
                input,
                output,
                cached_input,
            },
        )]
        .into_iter()
        .collect(),
    };
    let price = |text: &str| crate::prices::scaled(text, crate::prices::PRICE_DIGITS).unwrap();
    let price = super::Price {
        input: price(input_price),
        output: price(output_price),
        cached_input: cached_price.map(price),
    };
    let prices = super::Prices([("m".to_owned(), price)].into_iter().collect());
    assert_eq!(
        prices.cost(&usage).map(|cost| cost.to_string()),
        Ok(expected.to_owned())
    );
}

/// A limit on usage or times a run does not record is a lack, never a pass; a model
/// without a price is named.
#[rstest]
#[case::tokens_without_usage("max_tokens", false, false, vec![Lack::Usage(Limit::Tokens)])]
#[case::cost_without_usage("max_cost", false, false, vec![Lack::Usage(Limit::Cost)])]
#[case::cost_without_price("max_cost", true, false, vec![Lack::Price("m".to_owned())])]
#[case::duration_without_times("max_duration_ms", true, false, vec![Lack::Times])]
#[case::call_without_times("max_call_duration_ms", true, false, vec![Lack::CallTimes(1)])]
#[case::recorded("max_tokens", true, true, vec![])]
fn lacking(
    #[case] key: &str,
    #[case] usage: bool,
    #[case] times: bool,
    #[case] expected: Vec<Lack>,
) {
    let mut grader = super::BudgetGrader::default();
    match key {
        "max_tokens" => grader.max_tokens = Some(10),
        "max_cost" => grader.max_cost = Some(super::Cost(1)),
        "max_duration_ms" => grader.max_duration_ms = Some(10),
        _ => grader.max_call_duration_ms = Some(10),
    }
    let mut run = trailgate_trace::Run {
        calls: calls("a"),
        ..trailgate_trace::Run::default()
    };
    if usage {
        run.usage.models.insert(
            "m".to_owned(),
            trailgate_trace::Tokens {
                input: 1,
                output: 1,
                cached_input: None,
            },
        );
    }
    if times {
        let time = trailgate_trace::Interval {
            start_ns: 0,
            end_ns: 5,
        };
        run.time = Some(time);
        run.calls[0].time = Some(time);
    }
    assert_eq!(grader.grade(&run).lacking, expected);
}
