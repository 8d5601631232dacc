//! The drift rules, from reports given as JSON: never better and worse by at least the
//! minimum change, an improvement inside the window, a change below it, gaps, the window's
//! cut, the `usage.*` percent rule and `errors.rate`'s direction; and the refusals.

use std::io::Cursor;
use trailgate_expect::MetricValue;

use rstest::rstest;
use serde_json::{Value, json};

use super::{ReportFile, Status, Trend, TrendOptions, trend_reports};

fn file(name: &str, report: &Value) -> ReportFile<Cursor<Vec<u8>>> {
    ReportFile {
        name: name.to_owned(),
        reader: Cursor::new(report.to_string().into_bytes()),
    }
}

/// A report of tests, each a name and its metrics.
fn report(tests: &[(&str, Value)]) -> Value {
    let tests: Vec<Value> = tests
        .iter()
        .map(|(name, metrics)| {
            json!({"name": name, "passed": true, "runs": 1, "metrics": metrics, "gates": []})
        })
        .collect();
    json!({"version": 2, "passed": true, "summary": {}, "tests": tests})
}

/// The trend of the reports `r1.json`, `r2.json`, ...
fn trend(reports: &[Value], options: TrendOptions) -> Result<Trend, String> {
    let files = reports
        .iter()
        .enumerate()
        .map(|(index, report)| file(&format!("r{}.json", index + 1), report))
        .collect();
    trend_reports(files, options).map_err(|error| {
        error
            .problems()
            .map(|p| format!("{}: {}", p.code, p.message))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// The status of metric `name` of test `t` whose values, report by report, are `series`
/// (`None`: the report lacks the metric).
fn status_of(name: &str, series: &[Option<u64>], options: TrendOptions) -> Status {
    let reports: Vec<Value> = series
        .iter()
        .map(|value| match value {
            Some(v) => report(&[("t", json!({ name: v }))]),
            None => report(&[("t", json!({}))]),
        })
        .collect();
    let trend = trend(&reports, options).expect("the reports are followed");
    trend.tests[0].metrics[0].status
}

fn points(min_change: u32) -> TrendOptions {
    TrendOptions::new(5, min_change)
}

#[rstest]
#[case::falls_steadily(&[Some(100), Some(90), Some(80)], Status::Drifts)]
#[case::flat_then_falls(&[Some(100), Some(100), Some(97)], Status::Drifts)]
#[case::exactly_the_min_change(&[Some(50), Some(47)], Status::Drifts)]
#[case::below_the_min_change(&[Some(50), Some(49), Some(48)], Status::BelowMinChange)]
#[case::an_improvement_inside(&[Some(100), Some(80), Some(90), Some(60)], Status::Improved { from: 1, to: 2 })]
#[case::ends_better(&[Some(60), Some(90)], Status::Improved { from: 0, to: 1 })]
#[case::steady(&[Some(70), Some(70), Some(70)], Status::Steady)]
#[case::one_value(&[Some(70)], Status::TooFew)]
#[case::a_gap_is_skipped(&[Some(100), None, Some(90)], Status::Drifts)]
#[case::a_gap_hides_no_improvement(&[Some(100), None, Some(80), Some(90)], Status::Improved { from: 2, to: 3 })]
#[case::only_one_value_around_gaps(&[None, Some(40), None], Status::TooFew)]
fn a_higher_is_better_metric(#[case] series: &[Option<u64>], #[case] expected: Status) {
    let series = if series.len() < 2 {
        // `trend` needs two reports: the first has no metric.
        [&[None], series].concat()
    } else {
        series.to_vec()
    };
    assert_eq!(status_of("tool_selection.f1", &series, points(3)), expected);
}

#[rstest]
#[case::rising_drifts(&[Some(0), Some(10), Some(25)], Status::Drifts)]
#[case::falling_is_better(&[Some(25), Some(10), Some(0)], Status::Improved { from: 0, to: 1 })]
#[case::rising_by_less(&[Some(0), Some(1), Some(2)], Status::BelowMinChange)]
#[case::a_dip_inside(&[Some(0), Some(20), Some(10), Some(30)], Status::Improved { from: 1, to: 2 })]
fn errors_rate_is_better_lower(#[case] series: &[Option<u64>], #[case] expected: Status) {
    assert_eq!(status_of("errors.rate", series, points(3)), expected);
}

/// For `usage.*`, the minimum change is a percent of the window's first value:
/// `100 × (last − first) ≥ P × first`, exactly.
#[rstest]
#[case::ten_percent_of_forty(&[Some(40), Some(44)], 10, Status::Drifts)]
#[case::just_below(&[Some(40), Some(43)], 10, Status::BelowMinChange)]
#[case::not_points(&[Some(90), Some(92)], 3, Status::BelowMinChange)]
#[case::three_percent_of_100(&[Some(97), Some(99), Some(100)], 3, Status::Drifts)]
#[case::from_zero_any_rise(&[Some(0), Some(1)], 3, Status::Drifts)]
#[case::falling_is_better(&[Some(50), Some(40)], 3, Status::Improved { from: 0, to: 1 })]
fn usage_is_better_lower_by_percent_of_the_first(
    #[case] series: &[Option<u64>],
    #[case] min_change: u32,
    #[case] expected: Status,
) {
    assert_eq!(
        status_of("usage.tokens", series, points(min_change)),
        expected
    );
}

#[rstest]
// An improvement before the window no longer saves it.
#[case::window_cuts_off_an_improvement(3, Status::Drifts)]
#[case::window_keeps_the_improvement(4, Status::Improved { from: 1, to: 2 })]
#[case::window_of_two(2, Status::BelowMinChange)]
fn the_window_is_the_last_reports(#[case] window: usize, #[case] expected: Status) {
    let series = [Some(100), Some(80), Some(90), Some(70), Some(68)];
    assert_eq!(
        status_of("tool_selection.f1", &series, TrendOptions::new(window, 3)),
        expected
    );
}

#[test]
fn a_min_change_of_zero_still_needs_a_worsening() {
    assert_eq!(
        status_of("m.score", &[Some(5), Some(5)], points(0)),
        Status::Steady
    );
    assert_eq!(
        status_of("m.score", &[Some(5), Some(4)], points(0)),
        Status::Drifts
    );
}

#[test]
fn tests_keep_the_first_reports_order_then_appear_in_order() {
    let reports = [
        report(&[("b", json!({"m": 1})), ("a", json!({"m": 1}))]),
        report(&[("c", json!({"m": 1})), ("a", json!({"m": 1}))]),
        report(&[("d", json!({"m": 1})), ("b", json!({"z": 1, "m": 2}))]),
    ];
    let trend = trend(&reports, TrendOptions::default()).expect("followed");
    let names: Vec<&str> = trend.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["b", "a", "c", "d"]);
    assert_eq!(trend.tests[0].present, [true, false, true]);
    let metrics: Vec<&str> = trend.tests[0]
        .metrics
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(metrics, ["m", "z"]);
    assert_eq!(
        trend.tests[0].metrics[1].values,
        [None, None, Some(MetricValue::whole(1))]
    );
}

#[test]
fn the_verdict_is_any_drift() {
    let drifting = [
        report(&[("t", json!({"errors.rate": 0}))]),
        report(&[("t", json!({"errors.rate": 5}))]),
    ];
    let steady = [
        report(&[("t", json!({"errors.rate": 5}))]),
        report(&[("t", json!({"errors.rate": 5}))]),
    ];
    let options = TrendOptions::default();
    assert!(trend(&drifting, options).expect("followed").drifted());
    assert!(!trend(&steady, options).expect("followed").drifted());
}

#[rstest]
#[case::one_report(&[report(&[("t", json!({}))])], TrendOptions::default(), "trailgate::trend::too_few")]
#[case::window_of_one(
    &[report(&[("t", json!({}))]), report(&[("t", json!({}))])],
    TrendOptions::new(1, 3),
    "trailgate::trend::window"
)]
#[case::another_suite(
    &[report(&[("t", json!({}))]), report(&[("t", json!({}))]), report(&[("u", json!({}))])],
    TrendOptions::default(),
    "trailgate::trend::disjoint: `r3.json` has no test in common with `r1.json`"
)]
#[case::a_metric_past_100(
    &[report(&[("t", json!({}))]), report(&[("t", json!({"m": 101}))])],
    TrendOptions::default(),
    "trailgate::trend::json: `r2.json` is not a trailgate JSON report: invalid value"
)]
#[case::a_negative_count(
    &[report(&[("t", json!({}))]), json!({"version": 2, "tests": [{"name": "t", "passed": true, "runs": -1, "metrics": {}, "gates": []}]})],
    TrendOptions::default(),
    "trailgate::trend::json: `r2.json` is not a trailgate JSON report: invalid value: integer `-1`"
)]
#[case::a_test_named_twice(
    &[report(&[("t", json!({})), ("t", json!({}))]), report(&[("t", json!({}))])],
    TrendOptions::default(),
    "trailgate::trend::duplicate_test: `r1.json` names test `t` twice"
)]
#[case::another_version(
    &[report(&[("t", json!({}))]), json!({"version": 1, "tests": []})],
    TrendOptions::default(),
    "trailgate::trend::version: `r2.json` is a version 1 report; this trailgate reads reports of versions 2 and 3 (`r1.json` is one)"
)]
#[case::a_shard(
    &[report(&[("t", json!({}))]), json!({"version": 2, "shard": {"index": 1, "count": 2}, "tests": []})],
    TrendOptions::default(),
    "trailgate::trend::shard: `r2.json` is the report of shard 1/2"
)]
fn refused(#[case] reports: &[Value], #[case] options: TrendOptions, #[case] expected: &str) {
    let refusal = trend(reports, options).expect_err("refused");
    assert!(refusal.starts_with(expected), "{refusal}");
}
