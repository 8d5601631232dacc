//! What `merge` checks of the `trajectory` block of a shard report's test: each run's
//! counts, and the block's sums and metrics.

use serde::Deserialize;

use crate::recheck::{Fold, Listed, Metrics, Runs, Sum, same, same_percent};

use super::TrajectoryOutcome;

#[derive(Debug, Deserialize)]
pub(crate) struct TrajectoryView {
    pub(crate) mode: String,
    pub(crate) expected: Listed,
    pub(crate) matching_runs: u64,
    pub(crate) matched: u64,
    pub(crate) total: u64,
    pub(crate) match_rate: u8,
    pub(crate) score: u8,
    pub(crate) runs: Runs<TrajectoryFold>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct TrajectoryRunView {
    pub(crate) matches: bool,
    pub(crate) matched: u64,
    pub(crate) total: u64,
}

/// The runs of `trajectory`, folded. Whether a run's total must be the number of expected
/// entries depends on the block's `mode` (in `subset` it counts calls), which the fold does
/// not see; so it keeps the first run's total and the first run whose total differs.
#[derive(Debug, Default)]
pub(crate) struct TrajectoryFold {
    pub(crate) first_total: Option<u64>,
    pub(crate) other_total: Option<(u64, u64)>,
    pub(crate) matching: u64,
    pub(crate) matched: Sum,
    pub(crate) total: Sum,
}

impl Fold for TrajectoryFold {
    type Run = TrajectoryRunView;

    fn add(&mut self, index: u64, run: TrajectoryRunView) -> Result<(), String> {
        if run.matched > run.total {
            return Err(format!(
                "`trajectory.runs[{index}]` matched {} of {}",
                run.matched, run.total
            ));
        }
        let first = *self.first_total.get_or_insert(run.total);
        if run.total != first && self.other_total.is_none() {
            self.other_total = Some((index, run.total));
        }
        self.matching += u64::from(run.matches);
        self.matched.add(run.matched);
        self.total.add(run.total);
        Ok(())
    }
}

pub(crate) fn add_up(trajectory: &TrajectoryView, metrics: &Metrics<'_>) -> Result<(), String> {
    let runs = trajectory.runs.listed;
    let fold = &trajectory.runs.fold;
    trajectory.runs.first_problem()?;
    if trajectory.mode != "subset" {
        let entries = trajectory.expected.0;
        let wrong = match fold.first_total {
            Some(first) if first != entries => Some((0, first)),
            _ => fold.other_total,
        };
        if let Some((index, total)) = wrong {
            return Err(format!(
                "`trajectory.runs[{index}]` counts {total} expected steps but the grader \
                 expects {entries}"
            ));
        }
    }
    let matched = fold.matched.get("trajectory.runs[].matched")?;
    let total = fold.total.get("trajectory.runs[].total")?;
    same(
        "trajectory.matching_runs",
        trajectory.matching_runs,
        fold.matching,
    )?;
    same("trajectory.matched", trajectory.matched, matched)?;
    same("trajectory.total", trajectory.total, total)?;
    let match_rate = TrajectoryOutcome::match_rate_of(fold.matching, runs);
    same_percent("trajectory.match_rate", trajectory.match_rate, match_rate)?;
    let score = TrajectoryOutcome::score_of(matched, total);
    same_percent("trajectory.score", trajectory.score, score)?;
    metrics.check("trajectory.match_rate", match_rate.into())?;
    metrics.check("trajectory.score", score.into())
}
