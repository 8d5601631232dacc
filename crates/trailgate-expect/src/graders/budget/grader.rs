//! The `budget` grader as the evaluation sees it (its `Grader`): grading a run, its sums
//! over runs, its outcome and metrics.

use trailgate_core::Percent;

use crate::gate::{Gate, Target};
use crate::graders::contract::{Grader, Verdicts, report_and_recheck};
use crate::observed::{Observed, Suggested};
use crate::run::{Detail, TestRun};

use super::{BudgetGrader, BudgetOutcome, RunBudget};

/// Runs within every limit, with `optimal_calls` N, Σ max(N, calls), summed over runs, and
/// the most occurrences of a run's longest loop (0: no loop), their maximum.
#[derive(Debug, Default)]
pub(crate) struct BudgetSums {
    passing: u64,
    weighed: u64,
    longest_loop: u64,
}

impl Verdicts for BudgetGrader {
    type Run = RunBudget;
    type Outcome = BudgetOutcome;
}

impl Grader for BudgetGrader {
    type Config = super::config::RawConfig;
    const TARGETS: &'static [Target] = &[super::PASS_RATE, super::EFFICIENCY];

    fn default_gate() -> Gate {
        Gate::at_least(super::PASS_RATE, 100)
    }

    type Sums = BudgetSums;

    fn grade(&self, run: &TestRun<'_>, detail: Detail) -> RunBudget {
        self.grade_as(run.calls, detail)
    }

    /// A run past a limit.
    fn has_findings(run: &RunBudget) -> bool {
        !run.passed
    }

    fn sums(&self) -> BudgetSums {
        BudgetSums::default()
    }

    fn add(sums: &mut BudgetSums, run: &RunBudget) {
        sums.passing += u64::from(run.passed);
        // Without `optimal_calls` the sum is not reported; it is kept the same way.
        sums.weighed = sums.weighed.saturating_add(run.weighed);
        if let Some(found) = &run.longest_loop {
            sums.longest_loop = sums.longest_loop.max(found.occurrences);
        }
    }

    fn outcome(&self, listed: Vec<RunBudget>, sums: BudgetSums, runs: u64) -> BudgetOutcome {
        BudgetOutcome::new(
            self,
            listed,
            (sums.passing, sums.weighed, sums.longest_loop),
            runs,
        )
    }

    fn metrics(outcome: &BudgetOutcome) -> Vec<(Target, Percent)> {
        let mut metrics = vec![(super::PASS_RATE, outcome.pass_rate)];
        if let Some(efficiency) = outcome.efficiency {
            metrics.push((super::EFFICIENCY, efficiency));
        }
        metrics
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// One run's share of passing runs and, with `optimal_calls`, its efficiency.
    fn run_metrics(&self, run: &RunBudget) -> Vec<(Target, Percent)> {
        let mut metrics = vec![(
            super::PASS_RATE,
            BudgetOutcome::pass_rate_of(u64::from(run.passed), 1),
        )];
        if let Some(optimal) = self.optimal_calls {
            let efficiency = BudgetOutcome::efficiency_of(optimal, 1, run.weighed);
            metrics.push((super::EFFICIENCY, efficiency));
        }
        metrics
    }

    fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
        super::suggest::suggest(observed)
    }
}

report_and_recheck!(BudgetGrader, outcome BudgetOutcome, names super::json::BudgetNames, view super::recheck::BudgetView);
