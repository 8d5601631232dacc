//! Integer percents and the selection counts they are computed from.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign};

/// A whole percent from 0 to 100.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Percent(u8);

impl Percent {
    /// 0 %.
    pub const ZERO: Self = Self(0);
    /// 100 %.
    pub const FULL: Self = Self(100);

    /// A percent, or `None` above 100.
    pub fn new(value: u8) -> Option<Self> {
        (value <= 100).then_some(Self(value))
    }

    /// `floor(100 · numerator / denominator)`, and 0 for a zero denominator.
    ///
    /// The ratio is exact until this one rounding step. A numerator above the denominator
    /// is clamped to 100.
    pub fn floor_of(numerator: u64, denominator: u64) -> Self {
        if denominator == 0 {
            return Self::ZERO;
        }
        let value = (u128::from(numerator) * 100 / u128::from(denominator)).min(100);
        // `value` is at most 100, so it fits.
        Self(u8::try_from(value).unwrap_or(100))
    }

    /// The percent as an integer.
    pub fn value(self) -> u8 {
        self.0
    }
}

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// True positives, false positives and false negatives of tool selection.
///
/// Counts add up, so several runs are micro-averaged by summing their counts and computing
/// the metrics once.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    /// Classes satisfied by a call.
    pub true_positives: u64,
    /// Calls that satisfied no class and repeat no satisfied class.
    pub false_positives: u64,
    /// Classes that no call satisfied.
    pub false_negatives: u64,
}

impl Counts {
    /// Counts from their three parts.
    pub fn new(true_positives: u64, false_positives: u64, false_negatives: u64) -> Self {
        Self {
            true_positives,
            false_positives,
            false_negatives,
        }
    }

    /// Precision, recall and F1, each rounded down once from the exact counts.
    ///
    /// A zero denominator gives 0 for that metric; all three counts zero (nothing expected,
    /// nothing called) gives 100 for all three.
    pub fn metrics(self) -> SelectionMetrics {
        let Self {
            true_positives: tp,
            false_positives: fp,
            false_negatives: fn_,
        } = self;
        if tp == 0 && fp == 0 && fn_ == 0 {
            return SelectionMetrics {
                precision: Percent::FULL,
                recall: Percent::FULL,
                f1: Percent::FULL,
            };
        }
        // F1 = 2·TP / (2·TP + FP + FN), from the counts rather than from the rounded
        // precision and recall, so that one rounding step is all there is.
        let f1 = {
            let denominator = u128::from(tp) * 2 + u128::from(fp) + u128::from(fn_);
            let value = (u128::from(tp) * 200 / denominator).min(100);
            Percent(u8::try_from(value).unwrap_or(100))
        };
        SelectionMetrics {
            precision: Percent::floor_of(tp, tp.saturating_add(fp)),
            recall: Percent::floor_of(tp, tp.saturating_add(fn_)),
            f1,
        }
    }
}

impl Add for Counts {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            true_positives: self.true_positives.saturating_add(other.true_positives),
            false_positives: self.false_positives.saturating_add(other.false_positives),
            false_negatives: self.false_negatives.saturating_add(other.false_negatives),
        }
    }
}

impl AddAssign for Counts {
    fn add_assign(&mut self, other: Self) {
        *self = *self + other;
    }
}

impl Sum for Counts {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), Add::add)
    }
}

/// Tool-selection precision, recall and F1 as whole percents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SelectionMetrics {
    /// Of the calls that counted, the share on target.
    pub precision: Percent,
    /// Of the classes, the share satisfied.
    pub recall: Percent,
    /// The harmonic mean of the two, from the counts.
    pub f1: Percent,
}
