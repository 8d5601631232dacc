//! The `budget` grader as the evaluation sees it (its `Grader`): grading a run, its sums
//! over runs, its outcome and metrics.

use toolgate_core::Percent;
use toolgate_trace::Run;

use crate::gate::{Gate, Target};
use crate::graders::Grader;
use crate::graders::tool_calls::MissingArgument;
use crate::run::{Detail, RunSource};

use super::{BudgetGrader, BudgetOutcome, RunBudget};

/// Runs within every limit, and with `optimal_calls` N, Σ max(N, calls), summed over runs.
#[derive(Debug, Default)]
pub(crate) struct BudgetSums {
    passing: u64,
    weighed: u64,
}

impl Grader for BudgetGrader {
    type Run = RunBudget;
    type Sums = BudgetSums;
    type Outcome = BudgetOutcome;

    fn grade(
        &self,
        run: &Run,
        _number: usize,
        _source: &RunSource,
        _missing: &mut Vec<MissingArgument>,
        detail: Detail,
    ) -> RunBudget {
        self.grade_as(run, detail)
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
    }

    fn outcome(&self, listed: Vec<RunBudget>, sums: BudgetSums, runs: u64) -> BudgetOutcome {
        BudgetOutcome::new(self, listed, (sums.passing, sums.weighed), runs)
    }

    fn metrics(outcome: &BudgetOutcome) -> Vec<(Target, Percent)> {
        let mut metrics = vec![(Target::BudgetPassRate, outcome.pass_rate)];
        if let Some(efficiency) = outcome.efficiency {
            metrics.push((Target::BudgetEfficiency, efficiency));
        }
        metrics
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }
}
