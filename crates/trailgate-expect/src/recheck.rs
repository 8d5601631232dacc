//! What `merge` checks of a shard report's test, in pieces every grader's check uses: lists
//! counted without being kept, a block's `runs` folded one run at a time, sums that never
//! wrap, and the comparison of a stated number with the one its runs give.
//!
//! A test may list tens of thousands of runs, so its runs are never collected: each block's
//! `runs` list is read one run at a time and folded into what the checks need (how many runs
//! it lists, the sums of their counts, and the first run whose numbers are wrong), so
//! reading a test holds one run's entry at a time.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use trailgate_core::Percent;

use crate::metric_value::MetricValue;

/// How many values a list holds; the values are skipped.
#[derive(Debug, Default)]
pub(crate) struct Listed(pub(crate) u64);

impl<'de> Deserialize<'de> for Listed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Count;
        impl<'de> Visitor<'de> for Count {
            type Value = Listed;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Listed, A::Error> {
                let mut listed = 0_u64;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    listed += 1;
                }
                Ok(Listed(listed))
            }
        }
        deserializer.deserialize_seq(Count)
    }
}

/// What a block keeps of its runs while they are read one by one.
pub(crate) trait Fold: Default {
    /// A run's entry, as read.
    type Run: DeserializeOwned;

    /// Folds the run at `index` in; an error names what about it is wrong.
    fn add(&mut self, index: u64, run: Self::Run) -> Result<(), String>;
}

/// A block's `runs` list, folded: how many it lists, their fold, and the first problem one
/// of them has (the runs after it are read, so that the report is still read whole, but not
/// folded).
#[derive(Debug, Default)]
pub(crate) struct Runs<F> {
    pub(crate) listed: u64,
    pub(crate) fold: F,
    pub(crate) wrong: Option<String>,
}

impl<F: Fold> Runs<F> {
    pub(crate) fn first_problem(&self) -> Result<(), String> {
        self.wrong.clone().map_or(Ok(()), Err)
    }
}

impl<'de, F: Fold> Deserialize<'de> for Runs<F> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Each<F>(PhantomData<F>);
        impl<'de, F: Fold> Visitor<'de> for Each<F> {
            type Value = Runs<F>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of runs")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Runs<F>, A::Error> {
                let mut runs = Runs::<F>::default();
                while let Some(run) = seq.next_element::<F::Run>()? {
                    if runs.wrong.is_none()
                        && let Err(message) = runs.fold.add(runs.listed, run)
                    {
                        runs.wrong = Some(message);
                    }
                    runs.listed += 1;
                }
                Ok(runs)
            }
        }
        deserializer.deserialize_seq(Each(PhantomData))
    }
}

/// A sum of counts that remembers whether it ever passed `u64::MAX`: a sum that wrapped could
/// be made to look like any count.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sum(Option<u64>);

impl Default for Sum {
    fn default() -> Self {
        Self(Some(0))
    }
}

impl Sum {
    pub(crate) fn add(&mut self, value: u64) {
        self.0 = self.0.and_then(|sum| sum.checked_add(value));
    }

    /// The sum, or an error naming `what` when it passed `u64::MAX`.
    pub(crate) fn get(self, what: &str) -> Result<u64, String> {
        self.0
            .ok_or_else(|| format!("`{what}` add up past {}, the largest count", u64::MAX))
    }
}

/// The `metrics` a test states.
pub(crate) struct Metrics<'a>(pub(crate) &'a BTreeMap<String, MetricValue>);

impl Metrics<'_> {
    pub(crate) fn check(&self, target: &str, derived: MetricValue) -> Result<(), String> {
        match self.0.get(target) {
            Some(&stated) if stated == derived => Ok(()),
            Some(&stated) => Err(format!(
                "`metrics` says `{target}` is {stated} but the runs give {derived}"
            )),
            None => Err(format!("`{target}` is missing from `metrics`")),
        }
    }
}

pub(crate) fn same(what: &str, stated: u64, derived: u64) -> Result<(), String> {
    if stated == derived {
        Ok(())
    } else {
        Err(format!("{what} is {stated} but its runs give {derived}"))
    }
}

pub(crate) fn same_percent(what: &str, stated: u8, derived: Percent) -> Result<(), String> {
    same(what, u64::from(stated), u64::from(derived.value()))
}
