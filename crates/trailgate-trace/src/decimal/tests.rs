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
// Exponents past 64 bits (issue 40): compared exactly, never left unread.
#[case::exponent_past_64_bits("1e1000000000000000000", "1000", Ordering::Greater)]
#[case::exponent_past_64_bits_spelled(
    "1e1000000000000000000",
    "10e999999999999999999",
    Ordering::Equal
)]
#[case::exponent_past_64_bits_next(
    "1e1000000000000000000",
    "9.99e999999999999999999",
    Ordering::Greater
)]
#[case::exponents_past_64_bits_differ(
    "1e1000000000000000001",
    "9e1000000000000000000",
    Ordering::Greater
)]
#[case::negative_exponent_past_64_bits("1e-1000000000000000000", "0", Ordering::Greater)]
#[case::negative_exponent_past_64_bits_below(
    "1e-1000000000000000000",
    "1e-999999999999999999",
    Ordering::Less
)]
#[case::negative_number_past_64_bits("-1e1000000000000000000", "-1000", Ordering::Less)]
#[case::zero_with_huge_exponent(
    "0e1000000000000000000",
    "-0.0e-99999999999999999999",
    Ordering::Equal
)]
#[case::leading_zeros_in_exponent("1e0000000000000000000000003", "1000", Ordering::Equal)]
#[case::exponent_of_a_hundred_digits(
    "1e1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    "1e999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999",
    Ordering::Greater
)]
#[case::point_shift_past_the_exponent(
    "123456.7e-1000000000000000000",
    "1.234567e-999999999999999995",
    Ordering::Equal
)]
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
#[case::exponent_past_64_bits("1.5e1000000000000000000", true)]
#[case::negative_exponent_past_64_bits("1e-1000000000000000000", false)]
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
#[case::exponent_sign_only("1e+")]
#[case::exponent_not_digits("1e1x")]
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

    /// With small exponents, the order is that of the values rescaled to integers.
    #[test]
    fn order_is_the_rescaled_values(x in spelled(), y in spelled()) {
        check_order(&x.text(0), &y.text(0), x.rescaled().cmp_to(&y.rescaled()))?;
    }

    /// Multiplying both numbers by the same power of ten, however far past 64 bits (or
    /// 128), keeps their order: the order of the rescaled values without it.
    #[test]
    fn order_holds_at_any_exponent(x in spelled(), y in spelled(), base in huge_exponent()) {
        check_order(&x.text(base), &y.text(base), x.rescaled().cmp_to(&y.rescaled()))?;
    }

    /// Numbers whose exponents have up to 80 digits order as their exponents do, then
    /// their digits.
    #[test]
    fn order_follows_exponents_of_any_length(
        x in (any::<bool>(), 1_u8..10, any::<bool>(), "[0-9]{1,80}"),
        y in (any::<bool>(), 1_u8..10, any::<bool>(), "[0-9]{1,80}"),
    ) {
        let text = |(negative, digit, below, exponent): &(bool, u8, bool, String)| {
            format!("{}{digit}e{}{exponent}", if *negative { "-" } else { "" }, if *below { "-" } else { "" })
        };
        // `d × 10^e`, for one digit d, is above `d' × 10^e'` (both positive) when e > e',
        // or e = e' and d > d'.
        let magnitude = |(_, digit, below, exponent): &(bool, u8, bool, String)| {
            (Signed::new(*below, exponent), *digit)
        };
        let expected = match (x.0, y.0) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => magnitude(&x).cmp(&magnitude(&y)),
            (true, true) => magnitude(&y).cmp(&magnitude(&x)),
        };
        check_order(&text(&x), &text(&y), expected)?;
    }
}

/// `x` against `y` is `expected`, both ways, and equality says the same.
fn check_order(x: &str, y: &str, expected: Ordering) -> Result<(), TestCaseError> {
    let (a, b) = (Decimal::parse(x).unwrap(), Decimal::parse(y).unwrap());
    prop_assert_eq!(a.cmp(&b), expected, "{} against {}", x, y);
    prop_assert_eq!(b.cmp(&a), expected.reverse(), "{} against {}", y, x);
    prop_assert_eq!(
        number_texts_equal(x, y),
        expected == Ordering::Equal,
        "{} = {}",
        x,
        y
    );
    Ok(())
}

/// A number as the tests write it: `±int.frac × 10^exponent`, spelled with leading zeros
/// in the exponent, `e` or `E`, and an exponent sign or not.
#[derive(Debug, Clone)]
struct Spelled {
    negative: bool,
    int: String,
    frac: String,
    exponent: i128,
    capital: bool,
    plus: bool,
    zeros: usize,
}

fn spelled() -> impl Strategy<Value = Spelled> {
    (
        any::<bool>(),
        "[0-9]{1,6}",
        "[0-9]{0,6}",
        -30_i128..30,
        any::<bool>(),
        any::<bool>(),
        0_usize..3,
    )
        .prop_map(
            |(negative, int, frac, exponent, capital, plus, zeros)| Spelled {
                negative,
                int,
                frac,
                exponent,
                capital,
                plus,
                zeros,
            },
        )
}

/// Exponents far past 64 bits, and some near them, of either sign.
fn huge_exponent() -> impl Strategy<Value = i128> {
    let past = 10_i128.pow(36);
    prop_oneof![
        -past..past,
        Just(i128::from(i64::MAX)),
        Just(i128::from(i64::MIN)),
        Just(i128::from(i64::MAX) + 1),
        Just(1_000_000_000_000_000),
        Just(1_000_000_000_000_001),
        Just(-1_000_000_000_000_001),
        Just(0),
    ]
}

impl Spelled {
    /// The number's text with `base` added to its exponent.
    fn text(&self, base: i128) -> String {
        let exponent = self.exponent + base;
        let sign = if self.negative { "-" } else { "" };
        let point = if self.frac.is_empty() {
            String::new()
        } else {
            format!(".{}", self.frac)
        };
        let e = if self.capital { "E" } else { "e" };
        let exponent_sign = if exponent < 0 {
            "-"
        } else if self.plus {
            "+"
        } else {
            ""
        };
        let zeros = "0".repeat(self.zeros);
        format!(
            "{sign}{}{point}{e}{exponent_sign}{zeros}{}",
            self.int,
            exponent.unsigned_abs()
        )
    }

    /// The value times 10^100, an integer (the exponents and fractions are small enough):
    /// the digits followed by zeros.
    fn rescaled(&self) -> Signed {
        let frac = i128::try_from(self.frac.len()).unwrap();
        let zeros = usize::try_from(self.exponent - frac + 100).unwrap();
        let digits = format!("{}{}{}", self.int, self.frac, "0".repeat(zeros));
        Signed::new(self.negative, &digits)
    }
}

/// A signed integer of any size, as decimal digits without leading zeros.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Signed {
    negative: bool,
    digits: String,
}

impl Signed {
    fn new(negative: bool, digits: &str) -> Self {
        let digits = digits.trim_start_matches('0').to_owned();
        Self {
            negative: negative && !digits.is_empty(),
            digits,
        }
    }

    fn cmp_to(&self, other: &Self) -> Ordering {
        let magnitude = |x: &Self, y: &Self| {
            x.digits
                .len()
                .cmp(&y.digits.len())
                .then_with(|| x.digits.cmp(&y.digits))
        };
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => magnitude(self, other),
            (true, true) => magnitude(other, self),
        }
    }
}

impl PartialOrd for Signed {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Signed {
    fn cmp(&self, other: &Self) -> Ordering {
        self.cmp_to(other)
    }
}
