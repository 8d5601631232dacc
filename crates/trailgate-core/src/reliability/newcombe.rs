//! Newcombe's hybrid score interval for the difference of two pass rates (docs/baselines.md), built
//! from the two exact Wilson intervals and decided without approximating a root.
//!
//! For one sample of n runs with c passed and p = c/n, the Wilson bounds l ≤ p ≤ u are the
//! roots of (p − π)² = z²·π(1 − π)/n. Solved and multiplied out with z² = Z/10⁸:
//! p − l = (√Y − e)/t and u − p = (√Y + e)/t, where Y = n·Z·(4c(n − c)·10⁸ + n·Z),
//! e = Z·(n − 2c) and t = 2n·(n·10⁸ + Z), all integers. For the difference d = p₁ − p₂:
//! lower = d − √((p₁ − l₁)² + (u₂ − p₂)²) and upper = d + √((u₁ − p₁)² + (p₂ − l₂)²)
//! (Newcombe 1998, method 10). Whether a whole percent v/100 lies below the lower bound is
//! the sign of an expression a + b·√Y₁ + c·√Y₂ once both sides are squared, which
//! `exact.rs` decides.

use std::cmp::Ordering;
use std::fmt;

use num_bigint::{BigInt, BigUint};

use super::exact::sign_of_two_root_sum;
use super::{Confidence, ReliabilityError, check_counts, first_true, last_true};

/// A difference of two percents in whole percentage points, from −100 to 100.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Points(i8);

impl Points {
    /// Points, or `None` outside −100..=100.
    pub fn new(value: i8) -> Option<Self> {
        (-100..=100).contains(&value).then_some(Self(value))
    }

    /// The points as an integer.
    pub fn value(self) -> i8 {
        self.0
    }

    fn from_search(value: i32) -> Self {
        Self(i8::try_from(value.clamp(-100, 100)).unwrap_or(0))
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Newcombe's interval for the first pass rate minus the second, in percentage points
/// rounded outwards (lower down, upper up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct DifferenceInterval {
    /// The lower bound, rounded down.
    pub lower: Points,
    /// The upper bound, rounded up.
    pub upper: Points,
}

impl DifferenceInterval {
    /// Whether the difference is **significant**: the interval as reported (whole points,
    /// rounded outwards) excludes 0, `lower ≥ 1` or `upper ≤ −1`.
    ///
    /// Decided on the reported bounds, so that a reader never sees an interval that holds 0
    /// called significant; the price is that an exact bound between 0 and 1 point away
    /// from 0 does not count.
    pub fn is_significant(self) -> bool {
        self.lower.value() > 0 || self.upper.value() < 0
    }
}

/// Newcombe's hybrid score interval for p₁ − p₂, where `first` and `second` are
/// `(runs, passed)` counts, at a confidence (docs/baselines.md uses 95 %).
///
/// For `trailgate diff`, `first` is the head and `second` the base, so a positive interval
/// is an improvement. Swapping the two negates the interval.
///
/// ```
/// use trailgate_core::reliability::{difference_interval, Confidence};
///
/// // Newcombe (1998), example (a): 56/70 against 48/80 gives 0.0524 to 0.3339.
/// let d = difference_interval((70, 56), (80, 48), Confidence::NinetyFive)?;
/// assert_eq!((d.lower.value(), d.upper.value()), (5, 34));
/// assert!(d.is_significant());
/// # Ok::<(), trailgate_core::reliability::ReliabilityError>(())
/// ```
pub fn difference_interval(
    first: (u64, u64),
    second: (u64, u64),
    confidence: Confidence,
) -> Result<DifferenceInterval, ReliabilityError> {
    check_counts(first.0, first.1)?;
    check_counts(second.0, second.1)?;
    let (z2, scale) = confidence.z_squared();
    let one = Sample::new(first, z2, scale);
    let two = Sample::new(second, z2, scale);

    let n1n2 = &one.n * &two.n;
    // 100·(c₁n₂ − c₂n₁) = 100·n₁n₂·d.
    let hundred_d = (&one.c * &two.n - &two.c * &one.n) * 100u32;
    let m2 = (&n1n2 * 100u32).pow(2);
    let t1t1 = one.t.pow(2);
    let t2t2 = two.t.pow(2);
    let squares = &t1t1 * &t2t2;
    // δ²·M²·t₁²t₂² = rational ∓ b·√Y₁ ± c·√Y₂ (signs as below); the rational part is the
    // same for the lower and the upper bound.
    let rational = &m2
        * (&t2t2 * (BigInt::from(one.y.clone()) + one.e.pow(2))
            + &t1t1 * (BigInt::from(two.y.clone()) + two.e.pow(2)));
    let b = &m2 * 2u32 * &one.e * &t2t2;
    let c = &m2 * 2u32 * &two.e * &t1t1;

    // v/100 ≤ d − δ  ⇔  g = d − v/100 ≥ 0 and g² ≥ δ², with g·M = 100·n₁n₂·d − v·n₁n₂.
    let lower = last_true(-100, 100, |v| {
        let g = &hundred_d - &n1n2 * v;
        g.sign() != num_bigint::Sign::Minus
            && sign_of_two_root_sum(&(g.pow(2) * &squares - &rational), &b, &one.y, &-&c, &two.y)
                != Ordering::Less
    });
    // v/100 ≥ d + ε  ⇔  h = v/100 − d ≥ 0 and h² ≥ ε².
    let upper = first_true(-100, 100, |v| {
        let h = &n1n2 * v - &hundred_d;
        h.sign() != num_bigint::Sign::Minus
            && sign_of_two_root_sum(&(h.pow(2) * &squares - &rational), &-&b, &one.y, &c, &two.y)
                != Ordering::Less
    });
    Ok(DifferenceInterval {
        lower: Points::from_search(lower),
        upper: Points::from_search(upper),
    })
}

/// One sample's integers: p − l = (√y − e)/t and u − p = (√y + e)/t.
struct Sample {
    n: BigInt,
    c: BigInt,
    y: BigUint,
    e: BigInt,
    t: BigInt,
}

impl Sample {
    #[expect(
        clippy::many_single_char_names,
        reason = "the names of the formula in the module docs"
    )]
    fn new((runs, passed): (u64, u64), z2: u64, scale: u64) -> Self {
        let n = BigUint::from(runs);
        let c = BigUint::from(passed);
        let failed = BigUint::from(runs - passed);
        let y = &n * z2 * (&c * &failed * 4u32 * scale + &n * z2);
        let n = BigInt::from(n);
        let c = BigInt::from(c);
        let e = (&n - &c * 2u32) * z2;
        let t = &n * 2u32 * (&n * scale + z2);
        Self { n, c, y, e, t }
    }
}
