//! The `tool-calls` grader as the evaluation sees it (its `Grader`): grading a run, its
//! sums over runs, its outcome and its metric.

use toolgate_core::Percent;
use toolgate_trace::Run;

use crate::gate::{Gate, Target};
use crate::graders::Grader;
use crate::run::{Detail, RunSource};

use super::{MissingArgument, RunToolCalls, ToolCallsGrader, ToolCallsOutcome, ToolCallsTotals};

impl Grader for ToolCallsGrader {
    type Run = RunToolCalls;
    type Sums = ToolCallsTotals;
    type Outcome = ToolCallsOutcome;

    fn grade(
        &self,
        run: &Run,
        number: usize,
        source: &RunSource,
        missing: &mut Vec<MissingArgument>,
        detail: Detail,
    ) -> RunToolCalls {
        self.grade_as(run, number, source, missing, detail)
    }

    /// A failed verdict.
    fn has_findings(run: &RunToolCalls) -> bool {
        !run.passed
    }

    fn sums(&self) -> ToolCallsTotals {
        ToolCallsTotals::default()
    }

    fn add(sums: &mut ToolCallsTotals, run: &RunToolCalls) {
        sums.add(run);
    }

    fn outcome(
        &self,
        listed: Vec<RunToolCalls>,
        sums: ToolCallsTotals,
        runs: u64,
    ) -> ToolCallsOutcome {
        ToolCallsOutcome::new(self, listed, sums, runs)
    }

    fn metrics(outcome: &ToolCallsOutcome) -> Vec<(Target, Percent)> {
        vec![(Target::ToolCallsPassRate, outcome.pass_rate)]
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }
}
