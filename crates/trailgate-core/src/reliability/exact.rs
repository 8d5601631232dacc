//! The exact sign of a + b·√x + c·√y for integers a, b, c and x, y ≥ 0, decided by
//! comparing squares: no root is ever approximated.

use std::cmp::Ordering;

use num_bigint::{BigInt, BigUint, Sign};

/// The sign of `a + b·√x` as an ordering against zero.
pub(crate) fn sign_of_root_sum(a: &BigInt, b: &BigInt, x: &BigUint) -> Ordering {
    let rational = sign(a);
    let radical = if x.bits() == 0 {
        Ordering::Equal
    } else {
        sign(b)
    };
    match (rational, radical) {
        (sign, Ordering::Equal) | (Ordering::Equal, sign) => sign,
        _ if rational == radical => rational,
        // Opposite signs: the term with the larger square wins.
        _ => match a.magnitude().pow(2).cmp(&(b.magnitude().pow(2) * x)) {
            Ordering::Greater => rational,
            Ordering::Less => radical,
            Ordering::Equal => Ordering::Equal,
        },
    }
}

/// The sign of `a + b·√x + c·√y` as an ordering against zero.
///
/// With p = a + b·√x (its sign from [`sign_of_root_sum`]): when p and c·√y differ in sign,
/// the one with the larger square wins, and p² − c²·y = (a² + b²·x − c²·y) + 2ab·√x is again
/// of the two-term form.
#[expect(
    clippy::many_single_char_names,
    reason = "the names of the formula in the docs"
)]
pub(crate) fn sign_of_two_root_sum(
    a: &BigInt,
    b: &BigInt,
    x: &BigUint,
    c: &BigInt,
    y: &BigUint,
) -> Ordering {
    let first = sign_of_root_sum(a, b, x);
    let second = if y.bits() == 0 {
        Ordering::Equal
    } else {
        sign(c)
    };
    match (first, second) {
        (sign, Ordering::Equal) | (Ordering::Equal, sign) => sign,
        _ if first == second => first,
        _ => {
            let x_big = BigInt::from(x.clone());
            let y_big = BigInt::from(y.clone());
            let rational = a * a + b * b * &x_big - c * c * &y_big;
            let radical = BigInt::from(2u32) * a * b;
            match sign_of_root_sum(&rational, &radical, x) {
                Ordering::Greater => first,
                Ordering::Less => second,
                Ordering::Equal => Ordering::Equal,
            }
        }
    }
}

fn sign(value: &BigInt) -> Ordering {
    match value.sign() {
        Sign::Minus => Ordering::Less,
        Sign::NoSign => Ordering::Equal,
        Sign::Plus => Ordering::Greater,
    }
}
