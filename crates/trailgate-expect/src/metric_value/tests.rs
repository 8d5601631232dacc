//! A metric's value: exact decimals read from their text, written back the same, moved and
//! compared.

use rstest::rstest;

use super::*;

#[rstest]
#[case::whole("80", "80")]
#[case::decimal("0.3", "0.3")]
#[case::six_digits("1.000001", "1.000001")]
#[case::trailing_zeros("2.500000", "2.5")]
#[case::exponent("1e3", "1000")]
#[case::past_64_bits("18446744073709551617", "18446744073709551617")]
fn a_value_is_the_decimal_its_text_spells(#[case] text: &str, #[case] shown: &str) {
    let value = MetricValue::parse(text).expect("a metric value");
    assert_eq!(value.to_string(), shown);
    assert_eq!(value.json().to_string(), shown);
}

#[rstest]
#[case::negative("-1")]
#[case::seven_digits("0.0000001")]
#[case::not_a_number("ten")]
fn a_value_is_non_negative_with_six_decimals_at_most(#[case] text: &str) {
    assert_eq!(MetricValue::parse(text), None);
}

#[test]
fn a_percent_is_a_whole_value_up_to_100() {
    let eighty = MetricValue::from(Percent::new(80).expect("a percent"));
    assert_eq!(eighty.percent(), Percent::new(80));
    assert_eq!(MetricValue::whole(101).percent(), None);
    assert_eq!(
        MetricValue::parse("0.5").and_then(MetricValue::percent),
        None
    );
}

#[test]
fn a_moved_value_stays_in_its_range() {
    let three = MetricValue::whole(3);
    assert_eq!(three.moved(-5, true), MetricValue::ZERO);
    assert_eq!(
        MetricValue::whole(98).moved(5, true),
        MetricValue::whole(100)
    );
    assert_eq!(
        MetricValue::whole(98).moved(5, false),
        MetricValue::whole(103)
    );
}

#[test]
fn a_change_is_signed_and_exact() {
    let (from, to) = (
        MetricValue::parse("0.3").expect("a value"),
        MetricValue::parse("0.1").expect("a value"),
    );
    assert_eq!(from.change_to(to).to_string(), "-0.2");
    assert_eq!(to.change_to(from).to_string(), "+0.2");
    assert_eq!(to.change_to(to).to_string(), "0");
    assert_eq!(from.change_to(to).json().to_string(), "-0.2");
    assert!(from.change_to(to).at_least(0));
    assert!(!from.change_to(to).at_least(1));
}

#[test]
fn a_value_reads_back_from_a_json_report_exactly() {
    let read: Vec<MetricValue> =
        serde_json::from_str("[80, 0.3, 18446744073709551617]").expect("values");
    assert_eq!(
        read.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["80", "0.3", "18446744073709551617"]
    );
    assert!(serde_json::from_str::<MetricValue>("-1").is_err());
    assert!(serde_json::from_str::<MetricValue>("0.0000001").is_err());
}
