//! The `trajectory` grader as the evaluation sees it (its `Grader`): grading a run, its
//! sums over runs, its outcome and metrics, and its size limit.

use crate::metric_value::MetricValue;
use trailgate_core::{PairingTooLarge, check_pairing_size, check_sequence_size};
use trailgate_trace::Run;

use crate::gate::{Gate, Target};
use crate::graders::contract::{Grader, LimitWords, Verdicts, report_and_recheck};
use crate::observed::{Observed, Suggested};
use crate::run::{Detail, TestRun};

use super::{RunTrajectory, TrajectoryGrader, TrajectoryOutcome};

/// Runs that matched, and entries (or calls) matched and in all, summed over runs.
#[derive(Debug, Default)]
pub(crate) struct TrajectorySums {
    matching: u64,
    matched: u64,
    total: u64,
}

impl Verdicts for TrajectoryGrader {
    type Run = RunTrajectory;
    type Outcome = TrajectoryOutcome;
}

impl Grader for TrajectoryGrader {
    type Config = super::config::RawConfig;
    const TARGETS: &'static [Target] = &[super::MATCH_RATE, super::SCORE];

    fn default_gate() -> Gate {
        Gate::at_least(super::MATCH_RATE, 100)
    }

    type Sums = TrajectorySums;

    fn grade(&self, run: &TestRun<'_>, detail: Detail) -> RunTrajectory {
        self.grade_as(run.calls, detail)
    }

    /// A run that does not match, or that matches only part of what it could.
    fn has_findings(run: &RunTrajectory) -> bool {
        !run.matches || run.matched != run.total
    }

    fn sums(&self) -> TrajectorySums {
        TrajectorySums::default()
    }

    fn add(sums: &mut TrajectorySums, run: &RunTrajectory) {
        sums.matching += u64::from(run.matches);
        sums.matched = sums.matched.saturating_add(run.matched);
        sums.total = sums.total.saturating_add(run.total);
    }

    fn outcome(
        &self,
        listed: Vec<RunTrajectory>,
        sums: TrajectorySums,
        runs: u64,
    ) -> TrajectoryOutcome {
        TrajectoryOutcome::new(
            self,
            listed,
            (sums.matching, sums.matched, sums.total),
            runs,
        )
    }

    fn metrics(outcome: &TrajectoryOutcome) -> Vec<(Target, MetricValue)> {
        vec![
            (super::MATCH_RATE, outcome.match_rate.into()),
            (super::SCORE, outcome.score.into()),
        ]
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// One run's share of matching runs, and its matched steps over its total.
    fn run_metrics(&self, run: &RunTrajectory) -> Vec<(Target, MetricValue)> {
        vec![
            (
                super::MATCH_RATE,
                TrajectoryOutcome::match_rate_of(u64::from(run.matches), 1).into(),
            ),
            (
                super::SCORE,
                TrajectoryOutcome::score_of(run.matched, run.total).into(),
            ),
        ]
    }

    /// The ordered modes take a longest common subsequence, whose table grows as the pairs
    /// of entries and calls; the others a maximum matching of every step with the calls.
    fn past_limit(&self, run: &Run) -> Option<PairingTooLarge> {
        let calls = run.calls.len();
        if self.mode.ordered() {
            check_sequence_size(self.expected.len(), calls).err()
        } else {
            let steps = self.expected.iter().map(super::Entry::width).sum();
            check_pairing_size(steps, calls).err()
        }
    }

    fn limit_words(&self) -> Option<LimitWords> {
        Some(LimitWords {
            code: "trailgate::trajectory::too_many_calls",
            verb: "match",
            expected: self.expected.len(),
            noun: "expected steps",
            key: "expected",
        })
    }

    fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
        super::suggest::suggest(observed)
    }
}

report_and_recheck!(TrajectoryGrader, outcome TrajectoryOutcome, names super::json::TrajectoryNames, view super::recheck::TrajectoryView);
