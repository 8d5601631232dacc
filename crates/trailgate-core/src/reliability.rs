//! Repeated runs (docs/reliability.md, docs/baselines.md): pass rate, pass@k, pass^k, the
//! Wilson score interval and
//! Newcombe's interval for a difference, exactly, from counts of runs.
//!
//! Everything is integer arithmetic: binomial ratios are products of consecutive integers
//! in `num-bigint`, and where a square root appears its comparisons are decided on squares
//! (`reliability/exact.rs`). Each figure is rounded once, at the end, to a whole percent.
//! `docs/reliability.md` says what each number means and why these and not others.

use std::fmt;

use num_bigint::BigUint;

use crate::percent::Percent;

mod exact;
mod newcombe;

pub use self::newcombe::{DifferenceInterval, Points, difference_interval};

/// The confidence level of an interval: 90, 95 or 99 percent.
///
/// Each level has its normal quantile `z` as an exact decimal of four places (docs/reliability.md):
/// 1.6449, 1.96 and 2.5758. They are the values docs/reliability.md fixes, not the irrational
/// quantiles, so that every implementation computes the same bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[non_exhaustive]
pub enum Confidence {
    /// 90 %, z = 1.6449.
    Ninety,
    /// 95 %, z = 1.96: the default.
    #[default]
    NinetyFive,
    /// 99 %, z = 2.5758.
    NinetyNine,
}

impl Confidence {
    /// Every level, lowest first.
    pub const ALL: [Self; 3] = [Self::Ninety, Self::NinetyFive, Self::NinetyNine];

    /// The level written as a percent (90, 95 or 99); any other is an error.
    ///
    /// ```
    /// use trailgate_core::reliability::Confidence;
    ///
    /// assert_eq!(Confidence::from_percent(99), Ok(Confidence::NinetyNine));
    /// assert!(Confidence::from_percent(80).is_err());
    /// ```
    pub fn from_percent(percent: u64) -> Result<Self, ReliabilityError> {
        match percent {
            90 => Ok(Self::Ninety),
            95 => Ok(Self::NinetyFive),
            99 => Ok(Self::NinetyNine),
            _ => Err(ReliabilityError::UnknownConfidence { percent }),
        }
    }

    /// The level as a percent: 90, 95 or 99.
    pub fn percent(self) -> u8 {
        match self {
            Self::Ninety => 90,
            Self::NinetyFive => 95,
            Self::NinetyNine => 99,
        }
    }

    /// `z` in ten-thousandths: 16449, 19600 or 25758 (z = 1.6449, 1.96, 2.5758).
    pub fn z_ten_thousandths(self) -> u64 {
        match self {
            Self::Ninety => 16_449,
            Self::NinetyFive => 19_600,
            Self::NinetyNine => 25_758,
        }
    }

    /// z² as an exact fraction `(numerator, denominator)`, the denominator 10⁸.
    pub(crate) fn z_squared(self) -> (u64, u64) {
        let z = self.z_ten_thousandths();
        (z * z, Z_SQUARED_DENOMINATOR)
    }

    /// The number of runs that brings the worst-case interval (c/n = 1/2) to a half-width of
    /// 5 points: the smallest n with z·√(1/(4n) + z²/(4n²)) / (1 + z²/n) ≤ 0.05
    /// (docs/reliability.md).
    ///
    /// The left side simplifies to z / (2·√(n + z²)), so the condition is n ≥ 99·z², and
    /// the answer is ⌈99·z²⌉: 268, 381 and 657 runs at 90, 95 and 99 %.
    ///
    /// ```
    /// use trailgate_core::reliability::Confidence;
    ///
    /// assert_eq!(Confidence::NinetyFive.runs_to_resolve(), 381);
    /// ```
    pub fn runs_to_resolve(self) -> u64 {
        let (numerator, denominator) = self.z_squared();
        (99 * numerator).div_ceil(denominator)
    }
}

impl fmt::Display for Confidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} %", self.percent())
    }
}

const Z_SQUARED_DENOMINATOR: u64 = 100_000_000;

/// Why counts of runs cannot be turned into statistics. The messages name the numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReliabilityError {
    /// No run was recorded: a rate of nothing is undefined.
    NoRuns {
        /// The passed count given with the zero runs.
        passed: u64,
    },
    /// More runs passed than were recorded.
    PassedAboveRuns {
        /// The passed count.
        passed: u64,
        /// The number of runs.
        runs: u64,
    },
    /// `k` is 0 or above the number of runs.
    KOutOfRange {
        /// The `k` asked for.
        k: u64,
        /// The number of runs.
        runs: u64,
    },
    /// A confidence other than 90, 95 or 99 percent.
    UnknownConfidence {
        /// The confidence asked for, in percent.
        percent: u64,
    },
}

impl fmt::Display for ReliabilityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NoRuns { passed } => write!(
                f,
                "0 runs with {passed} passed: the statistics need at least one run"
            ),
            Self::PassedAboveRuns { passed, runs } => write!(
                f,
                "{passed} runs passed out of {runs}: the passed runs cannot outnumber the runs"
            ),
            Self::KOutOfRange { k, runs } => write!(
                f,
                "`k` is {k} with {runs} runs: it must be at least 1 and at most the number of runs"
            ),
            Self::UnknownConfidence { percent } => write!(
                f,
                "confidence `{percent}` is not one of 90, 95 or 99 (percent)"
            ),
        }
    }
}

impl std::error::Error for ReliabilityError {}

/// The Wilson score interval of a pass rate, as whole percents rounded outwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Interval {
    /// The lower bound, rounded down (`reliability.pass_rate.lower`).
    pub lower: Percent,
    /// The upper bound, rounded up (`reliability.pass_rate.upper`).
    pub upper: Percent,
}

impl Interval {
    /// Whether a gate value on `reliability.pass_rate` is **inconclusive**: it lies strictly
    /// between the two bounds, `lower < value < upper`.
    ///
    /// Strict, because the bounds are rounded outwards: a whole percent v has
    /// `lower < v < upper` exactly when it lies strictly inside the exact interval. A value
    /// equal to `lower` is at or below the exact lower bound, so every rate the runs
    /// support is at least v and a `>=` gate at v is settled; likewise at `upper`.
    ///
    /// ```
    /// use trailgate_core::reliability::wilson_interval;
    /// use trailgate_core::reliability::Confidence;
    /// use trailgate_core::Percent;
    ///
    /// let interval = wilson_interval(20, 20, Confidence::NinetyFive)?; // 83 to 100
    /// let percent = |v| Percent::new(v).unwrap();
    /// assert!(interval.is_inconclusive(percent(90)));
    /// assert!(!interval.is_inconclusive(percent(83)));
    /// assert!(!interval.is_inconclusive(percent(80)));
    /// # Ok::<(), trailgate_core::reliability::ReliabilityError>(())
    /// ```
    pub fn is_inconclusive(self, value: Percent) -> bool {
        self.lower < value && value < self.upper
    }
}

/// Every figure of a `reliability:` block for one test, from n runs of which c passed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Reliability {
    /// n, the number of runs.
    pub runs: u64,
    /// c, the runs that passed.
    pub passed: u64,
    /// The k of pass@k and pass^k.
    pub k: u64,
    /// The confidence of the interval.
    pub confidence: Confidence,
    /// `reliability.pass_rate`: [`pass_rate`].
    pub pass_rate: Percent,
    /// `reliability.pass_at_k`: [`pass_at_k`].
    pub pass_at_k: Percent,
    /// `reliability.pass_hat_k`: [`pass_hat_k`].
    pub pass_hat_k: Percent,
    /// `reliability.pass_rate.lower` and `.upper`: [`wilson_interval`].
    pub interval: Interval,
    /// pass^k for k = 1 to min(n, 10): [`pass_hat_k_decay`].
    pub decay: Vec<Percent>,
    /// The runs that bring the worst-case interval to ±5 points:
    /// [`Confidence::runs_to_resolve`].
    pub runs_to_resolve: u64,
}

/// Every figure of a `reliability:` block at once: n runs, c passed, its k and confidence.
///
/// ```
/// use trailgate_core::reliability::{reliability, Confidence};
///
/// // 5 runs, 4 passed, k = 2.
/// let r = reliability(5, 4, 2, Confidence::NinetyFive)?;
/// assert_eq!(r.pass_rate.value(), 80);
/// assert_eq!(r.pass_at_k.value(), 100); // any 2 of the 5 runs hold a pass
/// assert_eq!(r.pass_hat_k.value(), 60); // C(4,2) / C(5,2) = 6/10
/// assert_eq!((r.interval.lower.value(), r.interval.upper.value()), (37, 97));
/// let decay: Vec<u8> = r.decay.iter().map(|p| p.value()).collect();
/// assert_eq!(decay, [80, 60, 40, 20, 0]);
/// # Ok::<(), trailgate_core::reliability::ReliabilityError>(())
/// ```
pub fn reliability(
    runs: u64,
    passed: u64,
    k: u64,
    confidence: Confidence,
) -> Result<Reliability, ReliabilityError> {
    Ok(Reliability {
        runs,
        passed,
        k,
        confidence,
        pass_rate: pass_rate(runs, passed)?,
        pass_at_k: pass_at_k(runs, passed, k)?,
        pass_hat_k: pass_hat_k(runs, passed, k)?,
        interval: wilson_interval(runs, passed, confidence)?,
        decay: pass_hat_k_decay(runs, passed)?,
        runs_to_resolve: confidence.runs_to_resolve(),
    })
}

/// `reliability.pass_rate`: ⌊100·c/n⌋, for n runs of which c passed.
///
/// ```
/// assert_eq!(trailgate_core::reliability::pass_rate(3, 2)?.value(), 66);
/// # Ok::<(), trailgate_core::reliability::ReliabilityError>(())
/// ```
pub fn pass_rate(runs: u64, passed: u64) -> Result<Percent, ReliabilityError> {
    check_counts(runs, passed)?;
    Ok(Percent::floor_of(passed, runs))
}

/// `reliability.pass_at_k`: ⌊100·(1 − C(n−c, k)/C(n, k))⌋, the chance that at least one of k
/// runs drawn without replacement from the n recorded passes (Chen et al. 2021's unbiased
/// estimator of pass@k). 1 ≤ k ≤ n.
///
/// ```
/// // 5 runs, 1 passed: 2 runs drawn hold the pass with chance 1 − C(4,2)/C(5,2) = 4/10.
/// assert_eq!(trailgate_core::reliability::pass_at_k(5, 1, 2)?.value(), 40);
/// # Ok::<(), trailgate_core::reliability::ReliabilityError>(())
/// ```
pub fn pass_at_k(runs: u64, passed: u64, k: u64) -> Result<Percent, ReliabilityError> {
    check_k(runs, passed, k)?;
    // ⌊100·(1 − x)⌋ for the ratio x of drawing only failed runs.
    Ok(match BinomialRatio::new(runs - passed, runs, k) {
        BinomialRatio::Zero => Percent::FULL,
        BinomialRatio::BelowOnePercent => percent(99),
        BinomialRatio::Exact(numerator, denominator) => {
            percent_floor(&(&denominator - &numerator), &denominator)
        }
    })
}

/// `reliability.pass_hat_k`: ⌊100·C(c, k)/C(n, k)⌋, the chance that all of k runs drawn
/// without replacement pass (pass^k, as in τ-bench). 1 ≤ k ≤ n.
///
/// ```
/// // 5 runs, 4 passed: C(4,2)/C(5,2) = 6/10, where (4/5)² would say 64.
/// assert_eq!(trailgate_core::reliability::pass_hat_k(5, 4, 2)?.value(), 60);
/// # Ok::<(), trailgate_core::reliability::ReliabilityError>(())
/// ```
pub fn pass_hat_k(runs: u64, passed: u64, k: u64) -> Result<Percent, ReliabilityError> {
    check_k(runs, passed, k)?;
    Ok(match BinomialRatio::new(passed, runs, k) {
        BinomialRatio::Zero | BinomialRatio::BelowOnePercent => Percent::ZERO,
        BinomialRatio::Exact(numerator, denominator) => percent_floor(&numerator, &denominator),
    })
}

/// pass^k for k = 1 to min(n, 10), in order of k: how reliability decays as more runs must
/// all pass. The first entry is the pass rate.
///
/// ```
/// let decay = trailgate_core::reliability::pass_hat_k_decay(20, 18)?;
/// let values: Vec<u8> = decay.iter().map(|p| p.value()).collect();
/// assert_eq!(values, [90, 80, 71, 63, 55, 47, 41, 34, 28, 23]);
/// # Ok::<(), trailgate_core::reliability::ReliabilityError>(())
/// ```
pub fn pass_hat_k_decay(runs: u64, passed: u64) -> Result<Vec<Percent>, ReliabilityError> {
    check_counts(runs, passed)?;
    (1..=runs.min(10))
        .map(|k| pass_hat_k(runs, passed, k))
        .collect()
}

/// The Wilson score interval of c/n at a confidence (docs/reliability.md): the lower bound rounded
/// down, the upper rounded up.
///
/// Computed from the integer characterisation in docs/reliability.md: the lower bound is 0 when
/// c = 0 and
/// otherwise the largest L in 0..=99 with π = L/100 ≤ c/n and (c/n − π)² ≥ z²·π(1 − π)/n;
/// the upper bound is 100 when c = n and otherwise the smallest U in 1..=100 with
/// π = U/100 ≥ c/n and (π − c/n)² ≥ z²·π(1 − π)/n. Multiplied out, each test is one
/// comparison of integers, and the bound is found by bisection (the tests hold on a prefix,
/// respectively a suffix, of the percents, because the quadratic is convex).
///
/// ```
/// use trailgate_core::reliability::{wilson_interval, Confidence};
///
/// let all_pass = wilson_interval(20, 20, Confidence::NinetyFive)?;
/// assert_eq!((all_pass.lower.value(), all_pass.upper.value()), (83, 100));
/// # Ok::<(), trailgate_core::reliability::ReliabilityError>(())
/// ```
pub fn wilson_interval(
    runs: u64,
    passed: u64,
    confidence: Confidence,
) -> Result<Interval, ReliabilityError> {
    check_counts(runs, passed)?;
    let (z2, scale) = confidence.z_squared();
    let n = BigUint::from(runs);
    let hundred_c = BigUint::from(passed) * 100u32;
    // (c/n − π)² ≥ z²·π(1 − π)/n with π = v/100, times n²·100²·10⁸:
    // 10⁸·(100c − n·v)² ≥ z²·10⁸ · n·v·(100 − v), the difference taken on the side the
    // caller has already checked.
    let far_enough = |distance: BigUint, v: u32| {
        distance.pow(2) * scale >= BigUint::from(z2) * &n * v * (100 - v)
    };
    let at = |v: i32| u32::try_from(v).unwrap_or(0);
    let lower = if passed == 0 {
        0
    } else {
        last_true(0, 99, |v| {
            let nv = &n * at(v);
            nv <= hundred_c && far_enough(&hundred_c - &nv, at(v))
        })
    };
    let upper = if passed == runs {
        100
    } else {
        first_true(1, 100, |v| {
            let nv = &n * at(v);
            nv >= hundred_c && far_enough(&nv - &hundred_c, at(v))
        })
    };
    Ok(Interval {
        lower: percent(lower),
        upper: percent(upper),
    })
}

fn check_counts(runs: u64, passed: u64) -> Result<(), ReliabilityError> {
    if runs == 0 {
        Err(ReliabilityError::NoRuns { passed })
    } else if passed > runs {
        Err(ReliabilityError::PassedAboveRuns { passed, runs })
    } else {
        Ok(())
    }
}

fn check_k(runs: u64, passed: u64, k: u64) -> Result<(), ReliabilityError> {
    check_counts(runs, passed)?;
    if k == 0 || k > runs {
        return Err(ReliabilityError::KOutOfRange { k, runs });
    }
    Ok(())
}

/// C(a, k)/C(n, k) for a ≤ n and 1 ≤ k ≤ n, as far as a whole percent needs it.
#[derive(Debug)]
enum BinomialRatio {
    /// a < k: no k of the a can be drawn.
    Zero,
    /// Positive but below 1/100, known from an upper bound without the exact products.
    BelowOnePercent,
    /// The exact ratio, numerator over a positive denominator.
    Exact(BigUint, BigUint),
}

impl BinomialRatio {
    fn new(a: u64, n: u64, k: u64) -> Self {
        match Factors::new(a, n, k) {
            None => Self::Zero,
            Some(factors) if factors.below_one_percent() => Self::BelowOnePercent,
            Some(factors) => {
                let (numerator, denominator) = factors.exact();
                Self::Exact(numerator, denominator)
            }
        }
    }
}

/// C(a, k)/C(n, k) as a product of `count` factors (numerator + j)/(denominator + j), each
/// below 1 (a < n) or none at all (a = n).
///
/// The ratio is ∏_{i<k} (a − i)/(n − i). When k > n − a the two ranges overlap and cancel
/// to ∏_{j<n−a} (a − k + 1 + j)/(a + 1 + j), so there are min(k, n − a) factors, never a
/// factorial of n.
#[derive(Debug, Clone, Copy)]
struct Factors {
    numerator: u64,
    denominator: u64,
    count: u64,
}

impl Factors {
    /// `None` when a < k (the ratio is 0).
    fn new(a: u64, n: u64, k: u64) -> Option<Self> {
        let numerator = (a + 1).checked_sub(k).filter(|&low| low > 0)?;
        Some(if k <= n - a {
            // a − k + 1 ..= a over n − k + 1 ..= n.
            Self {
                numerator,
                denominator: n - k + 1,
                count: k,
            }
        } else {
            // a − k + 1 ..= n − k over a + 1 ..= n.
            Self {
                numerator,
                denominator: a + 1,
                count: n - a,
            }
        })
    }

    /// Whether the ratio is below 1/100, from an upper bound kept in fixed point with 64
    /// fractional bits and rounded up at every factor, so that it never falls below the
    /// exact value. It stops at the first factor that takes the bound below 1/100, which is
    /// soon when the ratio is small; a ratio of at least 1/100 has few factors (k·(n − a) is
    /// at most about 4.6·n then), so the exact products that follow stay small.
    fn below_one_percent(self) -> bool {
        let one = 1u128 << 64;
        let mut bound = one;
        for j in 0..self.count {
            // bound ≤ 2⁶⁴ and each factor's terms are below 2⁶⁴: the product fits.
            bound =
                (bound * u128::from(self.numerator + j)).div_ceil(u128::from(self.denominator + j));
            if bound * 100 < one {
                return true;
            }
        }
        false
    }

    /// The exact numerator and denominator.
    fn exact(self) -> (BigUint, BigUint) {
        let last = self.count.saturating_sub(1);
        if self.count == 0 {
            return (BigUint::from(1u32), BigUint::from(1u32));
        }
        (
            range_product(self.numerator, self.numerator + last),
            range_product(self.denominator, self.denominator + last),
        )
    }
}

/// The product of the integers `low..=high` (1 when the range is empty), by halving the
/// range so that the big multiplications are balanced.
fn range_product(low: u64, high: u64) -> BigUint {
    if low > high {
        return BigUint::from(1u32);
    }
    if high - low < 16 {
        // Small factors are gathered in a u128 before touching the big integer.
        let mut product = BigUint::from(1u32);
        let mut word: u128 = 1;
        for factor in low..=high {
            if let Some(next) = word.checked_mul(u128::from(factor)) {
                word = next;
            } else {
                product *= word;
                word = u128::from(factor);
            }
        }
        return product * word;
    }
    let middle = low + (high - low) / 2;
    range_product(low, middle) * range_product(middle + 1, high)
}

/// ⌊100·numerator/denominator⌋ for 0 ≤ numerator ≤ denominator, denominator > 0, by
/// comparing v·denominator with 100·numerator (no division of the big numbers).
fn percent_floor(numerator: &BigUint, denominator: &BigUint) -> Percent {
    let hundred_numerator = numerator * 100u32;
    percent(last_true(0, 100, |v| {
        denominator * u32::try_from(v).unwrap_or(0) <= hundred_numerator
    }))
}

/// The largest v in `low..=high` for which `holds` is true, where `holds` is true on a
/// prefix of the range that includes `low` (`low` when nothing holds).
pub(crate) fn last_true(low: i32, high: i32, holds: impl Fn(i32) -> bool) -> i32 {
    let (mut good, mut bad) = (low, high + 1);
    while good + 1 < bad {
        let middle = good + (bad - good) / 2;
        if holds(middle) {
            good = middle;
        } else {
            bad = middle;
        }
    }
    good
}

/// The smallest v in `low..=high` for which `holds` is true, where `holds` is true on a
/// suffix of the range that includes `high` (`high` when nothing else holds).
pub(crate) fn first_true(low: i32, high: i32, holds: impl Fn(i32) -> bool) -> i32 {
    let (mut bad, mut good) = (low - 1, high);
    while bad + 1 < good {
        let middle = bad + (good - bad) / 2;
        if holds(middle) {
            good = middle;
        } else {
            bad = middle;
        }
    }
    good
}

/// A percent from a search over 0..=100.
fn percent(value: i32) -> Percent {
    Percent::new(u8::try_from(value.clamp(0, 100)).unwrap_or(100)).unwrap_or(Percent::FULL)
}

/// The Rust examples of `docs/reliability.md`, run as doctests so the page cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/reliability.md")]
struct ReliabilityPage;

#[cfg(test)]
mod tests;
