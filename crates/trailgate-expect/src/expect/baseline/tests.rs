//! The gate value expressions: what each string reads as, and the help for each mistake.

use proptest::prelude::*;
use rstest::rstest;
use trailgate_core::Percent;

use super::parse_expression;
use crate::gate::BaselineOffset;
use crate::metric_value::MetricValue;

#[track_caller]
fn check(text: &str, points: i64, shown: &str) {
    let offset = parse_expression(text).unwrap();
    assert_eq!(offset, BaselineOffset::new(points), "{text}");
    assert_eq!(offset.to_string(), shown, "{text}");
}

#[rstest]
#[case::bare("baseline", 0, "baseline")]
#[case::padded("  baseline ", 0, "baseline")]
#[case::minus("baseline - 2", -2, "baseline - 2")]
#[case::minus_tight("baseline-2", -2, "baseline - 2")]
#[case::plus("baseline + 3", 3, "baseline + 3")]
#[case::plus_tight("baseline+3", 3, "baseline + 3")]
#[case::zero("baseline - 0", 0, "baseline")]
#[case::wide("baseline  -   15", -15, "baseline - 15")]
#[case::huge(
    "baseline + 99999999999999999999999",
    i64::MAX,
    "baseline + 9223372036854775807"
)]
fn reads(#[case] text: &str, #[case] points: i64, #[case] shown: &str) {
    check(text, points, shown);
}

#[track_caller]
fn refuse(text: &str, message: &str, help: &str) {
    let error = parse_expression(text).unwrap_err();
    assert_eq!(error.message, message, "{text}");
    assert!(
        error.help.contains(help),
        "{text}: help {:?} lacks {help:?}",
        error.help
    );
}

#[rstest]
#[case::typo(
    "basline - 2",
    "invalid gate value `basline - 2`",
    "did you mean `baseline`?"
)]
#[case::capital(
    "Baseline",
    "invalid gate value `Baseline`",
    "did you mean `baseline`?"
)]
#[case::other_word("median", "invalid gate value `median`", "`baseline - N`")]
#[case::times(
    "baseline * 2",
    "invalid gate value `baseline * 2`: only `+` and `-` move the baseline",
    "`baseline + N`"
)]
#[case::fraction(
    "baseline - 2.5",
    "invalid gate value `baseline - 2.5`: `2.5` is not a whole number of points",
    "like `baseline - 2`"
)]
#[case::no_number(
    "baseline -",
    "invalid gate value `baseline -`: `` is not a whole number of points",
    "whole number of points"
)]
#[case::negative_number(
    "baseline + -2",
    "invalid gate value `baseline + -2`: `-2` is not a whole number of points",
    "whole number of points"
)]
#[case::quoted_number(
    "80",
    "gate value `80` is a string, not a number",
    "without quotes: `80`"
)]
#[case::empty("", "invalid gate value ``", "`baseline - N`")]
#[case::suffix(
    "baselines",
    "invalid gate value `baselines`",
    "did you mean `baseline`?"
)]
fn refuses(#[case] text: &str, #[case] message: &str, #[case] help: &str) {
    refuse(text, message, help);
}

proptest! {
    /// `baseline ± N` of a base value B compares with B ± N, clamped to 0..=100.
    #[test]
    fn resolves_clamped(base in 0_u8..=100, n in 0_i64..=300, minus in any::<bool>()) {
        let text = if minus { format!("baseline - {n}") } else { format!("baseline+{n}") };
        let offset = parse_expression(&text).unwrap();
        let expected = if minus {
            (i64::from(base) - n).max(0)
        } else {
            (i64::from(base) + n).min(100)
        };
        let resolved = offset.resolve(true, Percent::new(base).unwrap().into());
        prop_assert_eq!(resolved, MetricValue::whole(u128::try_from(expected).unwrap()));
    }
}

#[rstest]
#[case::floor(3, -5, 0)]
#[case::ceiling(98, 5, 100)]
#[case::same(70, 0, 70)]
#[case::extreme_down(100, i64::MIN + 1, 0)]
#[case::extreme_up(0, i64::MAX, 100)]
fn clamps(#[case] base: u8, #[case] points: i64, #[case] expected: u8) {
    let resolved = BaselineOffset::new(points).resolve(true, Percent::new(base).unwrap().into());
    assert_eq!(resolved, MetricValue::whole(u128::from(expected)));
}

#[rstest]
#[case::floor(3, -5, 0)]
#[case::no_ceiling(98, 5, 103)]
#[case::tokens(120_000, -2_000, 118_000)]
fn a_usage_baseline_moves_by_its_units_without_a_ceiling(
    #[case] base: u128,
    #[case] points: i64,
    #[case] expected: u128,
) {
    let resolved = BaselineOffset::new(points).resolve(false, MetricValue::whole(base));
    assert_eq!(resolved, MetricValue::whole(expected));
}
