//! Unit tests of exact decimal numbers: equal by value whatever the spelling, never
//! through a float.

use std::cmp::Ordering;

use proptest::prelude::*;
use rstest::rstest;

use super::{Decimal, number_texts_equal};

#[track_caller]
fn check_cmp(x: &str, y: &str, expected: Ordering) {
    let (a, b) = (Decimal::parse(x).unwrap(), Decimal::parse(y).unwrap());
    assert_eq!(a.cmp(&b), expected, "{x} against {y}");
    assert_eq!(b.cmp(&a), expected.reverse(), "{y} against {x}");
    assert_eq!(
        number_texts_equal(x, y),
        expected == Ordering::Equal,
        "{x} = {y}"
    );
}

#[rstest]
#[case::integer_and_fraction("1", "1.0", Ordering::Equal)]
#[case::exponent("1", "1e0", Ordering::Equal)]
#[case::negative_exponent("1", "10e-1", Ordering::Equal)]
#[case::fraction_exponent("1", "0.1e1", Ordering::Equal)]
#[case::capital_e_and_plus("100", "1E+2", Ordering::Equal)]
#[case::zeros("0", "-0.0e5", Ordering::Equal)]
#[case::beyond_f64_precision("9007199254740993", "9007199254740992", Ordering::Greater)]
#[case::beyond_f64_precision_float("9007199254740993", "9007199254740992.0", Ordering::Greater)]
#[case::beyond_u64(
    "123456789012345678901234567890",
    "123456789012345678901234567891",
    Ordering::Less
)]
#[case::beyond_f64_range("1e400", "1e399", Ordering::Greater)]
#[case::tiny("1e-400", "0", Ordering::Greater)]
#[case::negatives("-2", "-1.5", Ordering::Less)]
#[case::sign("-1", "1", Ordering::Less)]
#[case::longer_digits("1.25", "1.2", Ordering::Greater)]
#[case::point_first("10", "9.99", Ordering::Greater)]
#[case::small_fractions("0.05", "0.5e-1", Ordering::Equal)]
fn numbers_compare_by_exact_value(#[case] x: &str, #[case] y: &str, #[case] expected: Ordering) {
    check_cmp(x, y, expected);
}

#[rstest]
#[case::integer("3", true)]
#[case::point_zero("1.0", true)]
#[case::exponent("1e2", true)]
#[case::fraction_made_whole("2.5e1", true)]
#[case::zero("-0.0", true)]
#[case::fraction("1.5", false)]
#[case::negative_exponent("1e-1", false)]
#[case::huge("1e400", true)]
fn integers_by_exact_value(#[case] text: &str, #[case] expected: bool) {
    assert_eq!(
        Decimal::parse(text).unwrap().is_integer(),
        expected,
        "{text}"
    );
}

#[rstest]
#[case::empty("")]
#[case::sign_only("-")]
#[case::no_integer_part(".5")]
#[case::no_fraction_digits("1.")]
#[case::no_exponent_digits("1e")]
#[case::letters("1x")]
#[case::string("\"1\"")]
#[case::exponent_too_large("1e10000000000000000")]
fn not_numbers(#[case] text: &str) {
    assert!(Decimal::parse(text).is_none(), "{text}");
}

proptest! {
    /// Every spelling of a number (moving the point into the exponent, adding zeros) is
    /// the same number, and ordering agrees with integers.
    #[test]
    fn spellings_are_equal(value in any::<i64>(), shift in 0_u32..30, zeros in 1_usize..4) {
        let plain = value.to_string();
        let (sign, digits) = plain.strip_prefix('-').map_or(("", plain.as_str()), |d| ("-", d));
        let shift = shift as usize;
        let padded = format!("{}{digits}", "0".repeat(shift + 1));
        let cut = padded.len() - shift;
        let spelled = format!("{sign}{}.{}{}e{shift}", &padded[..cut], &padded[cut..], "0".repeat(zeros));
        prop_assert!(number_texts_equal(&plain, &spelled), "{} {}", plain, spelled);
    }

    #[test]
    fn order_is_the_integers(x in any::<i64>(), y in any::<i64>()) {
        let (a, b) = (x.to_string(), y.to_string());
        prop_assert_eq!(Decimal::parse(&a).unwrap().cmp(&Decimal::parse(&b).unwrap()), x.cmp(&y));
    }
}
