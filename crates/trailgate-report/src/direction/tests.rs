//! Which metrics are better lower, and how a change is measured.

use rstest::rstest;
use trailgate_expect::MetricValue;

use super::Better;

#[rstest]
#[case::errors_rate("errors.rate", Better::Lower)]
#[case::usage_tokens("usage.tokens", Better::Lower)]
#[case::usage_any("usage.cost_cents", Better::Lower)]
#[case::f1("tool_selection.f1", Better::Higher)]
#[case::recovery("errors.recovery", Better::Higher)]
#[case::only_a_prefix("usage", Better::Higher)]
#[case::not_a_prefix("my.usage.tokens", Better::Higher)]
#[case::errors_rate_lookalike("errors.rate2", Better::Higher)]
fn direction(#[case] metric: &str, #[case] expected: Better) {
    assert_eq!(Better::of(metric), expected, "{metric}");
}

#[rstest]
#[case::higher_fell(Better::Higher, 90, 80, 10)]
#[case::higher_rose(Better::Higher, 80, 90, -10)]
#[case::lower_rose(Better::Lower, 0, 25, 25)]
#[case::lower_fell(Better::Lower, 25, 0, -25)]
#[case::equal(Better::Lower, 7, 7, 0)]
#[case::largest(Better::Lower, 0, u64::MAX, i128::from(u64::MAX))]
fn worsening(#[case] better: Better, #[case] from: u64, #[case] to: u64, #[case] expected: i128) {
    let whole = |v: u64| MetricValue::whole(u128::from(v));
    assert_eq!(
        better.worsening(whole(from), whole(to)),
        expected * 1_000_000
    );
}

#[test]
fn a_cost_worsens_by_its_exact_difference() {
    let cost = |text: &str| MetricValue::parse(text).expect("a cost");
    assert_eq!(Better::Lower.worsening(cost("0.1"), cost("0.3")), 200_000);
    assert_eq!(Better::Lower.worsening(cost("0.3"), cost("0.1")), -200_000);
}
