//! McNemar's exact p against fractions computed apart from this code (Python's
//! `fractions.Fraction` and `math.comb`), and its rounding and significance.

use num_bigint::BigUint;
use rstest::rstest;

use super::{exact, mcnemar};

/// `b` and `c` give p = `numerator / denominator` in lowest terms, shown as `shown`.
#[track_caller]
fn check(b: usize, c: usize, numerator: u64, denominator: u64, shown: &str, significant: bool) {
    let (num, den) = exact(b, c);
    // The fractions are compared crosswise: `exact` keeps the denominator 2^(b+c).
    assert_eq!(
        num * BigUint::from(denominator),
        den * BigUint::from(numerator),
        "b = {b}, c = {c}"
    );
    let p = mcnemar(b, c);
    assert_eq!(p.to_string(), shown, "b = {b}, c = {c}");
    assert_eq!(p.significant(), significant, "b = {b}, c = {c}");
}

#[rstest]
#[case::nothing_differs(0, 0, 1, 1, "1.0000", false)]
#[case::one_against_five(1, 5, 7, 32, "0.2188", false)]
#[case::five_against_one(5, 1, 7, 32, "0.2188", false)]
#[case::none_against_six(0, 6, 1, 32, "0.0313", true)]
#[case::ten_against_none(10, 0, 1, 512, "0.0020", true)]
#[case::even_split_is_clipped_to_one(3, 3, 1, 1, "1.0000", false)]
#[case::one_test_proves_nothing(0, 1, 1, 1, "1.0000", false)]
#[case::five_is_not_enough(0, 5, 1, 16, "0.0625", false)]
#[case::four_is_not_enough(0, 4, 1, 8, "0.1250", false)]
#[case::one_against_eight(1, 8, 5, 128, "0.0391", true)]
#[case::two_against_nine(2, 9, 67, 1024, "0.0655", false)]
#[case::four_against_fifteen(4, 15, 1259, 65536, "0.0193", true)]
#[case::seven_against_twenty(7, 20, 160_703, 8_388_608, "0.0192", true)]
#[case::rounded_up_not_to_zero(25, 5, 174_437, 536_870_912, "0.0004", true)]
fn p_is_the_exact_fraction_rounded_up(
    #[case] b: usize,
    #[case] c: usize,
    #[case] numerator: u64,
    #[case] denominator: u64,
    #[case] shown: &str,
    #[case] significant: bool,
) {
    check(b, c, numerator, denominator, shown, significant);
}

#[test]
fn a_tiny_p_shows_as_its_smallest_rounding_up() {
    // 2 / 2^200: far below 0.0001, shown as 0.0001, never as 0.
    let p = mcnemar(200, 0);
    assert_eq!(p.to_string(), "0.0001");
    assert!(p.significant());
}

#[test]
fn significance_is_decided_on_the_fraction() {
    // Exactly 0.05 is not below 0.05; no (b, c) gives it, so check the boundary's
    // neighbours: 0.0391 (1, 8) is below and 0.0625 (0, 5) is not.
    assert!(mcnemar(1, 8).significant());
    assert!(!mcnemar(0, 5).significant());
}

#[test]
fn a_large_split_is_exact_and_quick_enough() {
    let p = mcnemar(5_000, 5_000);
    assert_eq!(p.to_string(), "1.0000");
    let p = mcnemar(4_800, 5_200);
    assert!(p.significant());
}
