//! McNemar's exact test of two reports' verdicts on the same tests
//! (docs/baselines.md#comparing-agents-and-models): of the tests whose verdict differs, b
//! passed only in the first report and c only in the other; if neither were better, each
//! such test would go either way with even odds, and p is the chance of a split at least
//! as uneven as min(b, c) against max(b, c), both ways:
//!
//! p = min(1, 2 · Σ_{i=0}^{min(b,c)} C(b+c, i) / 2^(b+c)), and p = 1 when b + c = 0.
//!
//! It is computed exactly, as a fraction of big integers, and rounded once: up, to four
//! decimals, so that a p is never shown smaller than it is. Whether p < 0.05 is decided on
//! the fraction, not on the rounded value.

use std::fmt;

use num_bigint::BigUint;

/// A p-value: exact below 0.05 or not, and rounded up to four decimals for display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PValue {
    /// ⌈p · 10⁴⌉, from 1 to 10,000.
    ten_thousandths: u16,
    /// Whether p < 0.05, exactly.
    significant: bool,
}

impl PValue {
    /// p = 1: no evidence either way.
    pub(crate) const ONE: Self = Self {
        ten_thousandths: 10_000,
        significant: false,
    };

    /// Whether p < 0.05.
    pub(crate) fn significant(self) -> bool {
        self.significant
    }

    /// ⌈p · 10⁴⌉.
    pub(crate) fn ten_thousandths(self) -> u16 {
        self.ten_thousandths
    }
}

impl fmt::Display for PValue {
    /// `0.0313`, `1.0000`: four decimals, rounded up.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = self.ten_thousandths;
        write!(f, "{}.{:04}", value / 10_000, value % 10_000)
    }
}

/// p as an exact fraction, numerator and denominator: min(2 · Σ_{i=0}^{min(b,c)} C(n, i),
/// 2ⁿ) over 2ⁿ, with n = b + c.
///
/// The binomials are built one from the last, C(n, i+1) = C(n, i) · (n − i) / (i + 1), an
/// exact division: min(b, c) + 1 steps, each on a number of at most n bits.
pub(crate) fn exact(b: usize, c: usize) -> (BigUint, BigUint) {
    let n = b + c;
    let denominator = BigUint::from(1u8) << n;
    let mut term = BigUint::from(1u8);
    let mut sum = term.clone();
    for i in 0..b.min(c) {
        term = term * (n - i) / (i + 1);
        sum += &term;
    }
    let numerator = (sum << 1u8).min(denominator.clone());
    (numerator, denominator)
}

/// McNemar's exact p of `b` tests passed only by the first report and `c` only by the other.
pub(crate) fn mcnemar(b: usize, c: usize) -> PValue {
    let (numerator, denominator) = exact(b, c);
    // p < 1/20 ⇔ 20 · numerator < denominator.
    let significant = &numerator * 20u8 < denominator;
    // ⌈numerator · 10⁴ / denominator⌉, at most 10⁴ since numerator ≤ denominator.
    let scaled = numerator * 10_000u16 + &denominator - 1u8;
    let ten_thousandths = u16::try_from(scaled / denominator).unwrap_or(10_000);
    PValue {
        ten_thousandths,
        significant,
    }
}

#[cfg(test)]
mod tests;
