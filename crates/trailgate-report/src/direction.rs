//! Which way a metric is better (docs/baselines.md#which-way-is-better): `errors.rate` and the
//! `usage.*` metrics are better lower, every other metric better higher. `diff` and `trend`
//! judge a change with this one rule.

use trailgate_expect::{MetricValue, names_percent};

/// The direction in which a metric is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Better {
    Higher,
    Lower,
}

impl Better {
    /// The direction of the metric named `metric`, as a report names it.
    pub(crate) fn of(metric: &str) -> Self {
        if metric == "errors.rate" || !names_percent(metric) {
            Self::Lower
        } else {
            Self::Higher
        }
    }

    /// How much worse `to` is than `from`, in millionths of the metric's own units:
    /// positive when it is worse, negative when it is better, 0 when equal.
    pub(crate) fn worsening(self, from: MetricValue, to: MetricValue) -> i128 {
        let change = from.change_to(to).millionths();
        match self {
            Self::Higher => -change,
            Self::Lower => change,
        }
    }

    /// `higher` or `lower`, as the outputs write it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Higher => "higher",
            Self::Lower => "lower",
        }
    }
}

#[cfg(test)]
mod tests;
