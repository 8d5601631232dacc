//! Unit tests of the reliability statistics' private pieces: the bisections, the products
//! and the exact signs.

use std::cmp::Ordering;

use num_bigint::{BigInt, BigUint};

use super::exact::{sign_of_root_sum, sign_of_two_root_sum};
use super::{BinomialRatio, Factors, first_true, last_true, range_product};

#[test]
fn bisections_find_the_edge_of_a_prefix_or_a_suffix() {
    for edge in -100..=100 {
        assert_eq!(last_true(-100, 100, |v| v <= edge), edge);
        assert_eq!(first_true(-100, 100, |v| v >= edge), edge);
    }
    assert_eq!(last_true(0, 99, |_| false), 0);
    assert_eq!(first_true(1, 100, |_| false), 100);
}

#[test]
fn range_products_are_factorials_over_factorials() {
    assert_eq!(range_product(5, 4), BigUint::from(1u32));
    assert_eq!(
        range_product(1, 20),
        BigUint::from(2_432_902_008_176_640_000u64)
    );
    // Spans the u128 gathering and the halving: 1..=40 overflows u128.
    let by_hand = (1..=40u32).fold(BigUint::from(1u32), |product, f| product * f);
    assert_eq!(range_product(1, 40), by_hand);
    let near_max = u64::MAX - 3;
    let by_hand = (near_max..=u64::MAX).fold(BigUint::from(1u32), |product, f| product * f);
    assert_eq!(range_product(near_max, u64::MAX), by_hand);
}

#[test]
fn binomial_ratios_in_both_forms_agree_with_the_definition() {
    let binomial = |n: u64, k: u64| -> BigUint {
        if k > n {
            BigUint::ZERO
        } else {
            range_product(n - k + 1, n) / range_product(1, k)
        }
    };
    for n in 1..=14u64 {
        for a in 0..=n {
            for k in 1..=n {
                let exact = binomial(a, k) * BigUint::from(100u32) < binomial(n, k);
                match (Factors::new(a, n, k), BinomialRatio::new(a, n, k)) {
                    (None, BinomialRatio::Zero) => assert!(a < k),
                    (Some(factors), ratio) => {
                        let (numerator, denominator) = factors.exact();
                        assert_eq!(
                            &numerator * binomial(n, k),
                            binomial(a, k) * &denominator,
                            "C({a},{k})/C({n},{k})"
                        );
                        // The bound's verdict is the exact one whenever it answers.
                        let below = matches!(ratio, BinomialRatio::BelowOnePercent);
                        assert!(!below || exact, "C({a},{k})/C({n},{k})");
                        assert_eq!(factors.count, k.min(n - a));
                    }
                    (None, ratio) => panic!("C({a},{k})/C({n},{k}): {ratio:?}"),
                }
            }
        }
    }
}

#[test]
fn the_bound_answers_for_small_ratios_and_stays_out_of_the_way_otherwise() {
    // C(500 000, 500 000)/C(10⁶, 500 000) is astronomically small: the bound sees it at
    // once, where the exact products would hold millions of bits.
    assert!(matches!(
        BinomialRatio::new(500_000, 1_000_000, 500_000),
        BinomialRatio::BelowOnePercent
    ));
    // 99 of 100 runs, k = 50: exactly 1/2, never below 1/100.
    let ratio = BinomialRatio::new(99, 100, 50);
    let BinomialRatio::Exact(numerator, denominator) = ratio else {
        panic!("{ratio:?}")
    };
    assert_eq!(numerator * 2u32, denominator);
    // Exactly 1/100: C(99, 99)/C(100, 99); not below.
    assert!(matches!(
        BinomialRatio::new(99, 100, 99),
        BinomialRatio::Exact(..)
    ));
}

#[track_caller]
#[expect(clippy::many_single_char_names, reason = "a + b·√x + c·√y")]
fn check_sign(a: i64, b: i64, x: u64, c: i64, y: u64, expected: Ordering) {
    let (a, b, c) = (BigInt::from(a), BigInt::from(b), BigInt::from(c));
    let (x, y) = (BigUint::from(x), BigUint::from(y));
    assert_eq!(sign_of_two_root_sum(&a, &b, &x, &c, &y), expected);
    if y.bits() == 0 || c.sign() == num_bigint::Sign::NoSign {
        assert_eq!(sign_of_root_sum(&a, &b, &x), expected);
    }
}

#[test]
fn signs_of_sums_of_roots_are_exact() {
    use Ordering::{Equal, Greater, Less};
    check_sign(0, 0, 0, 0, 0, Equal);
    check_sign(3, -1, 9, 0, 0, Equal); // 3 − √9
    check_sign(3, -1, 10, 0, 0, Less); // 3 − √10
    check_sign(-3, 1, 8, 0, 0, Less); // −3 + √8
    check_sign(5, 7, 0, 0, 0, Greater); // √0 counts for nothing
    check_sign(0, 1, 2, -1, 2, Equal); // √2 − √2
    check_sign(0, 1, 2, 1, 3, Greater);
    check_sign(-5, 1, 2, 1, 3, Less); // √2 + √3 ≈ 3.146
    check_sign(-3, 1, 2, 1, 3, Greater);
    check_sign(1, 1, 2, -1, 6, Less); // 1 + √2 − √6 ≈ −0.035
    check_sign(2, 1, 2, -1, 11, Greater); // 2 + √2 − √11 ≈ 0.098
    check_sign(-5, 1, 4, 1, 9, Equal); // −5 + 2 + 3
    check_sign(5, -1, 4, -1, 9, Equal);
    check_sign(1, -1, 4, 1, 1, Equal); // 1 − 2 + 1
}
