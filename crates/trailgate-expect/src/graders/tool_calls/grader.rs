//! The `tool-calls` grader as the evaluation sees it (its `Grader`): grading a run, its
//! sums over runs, its outcome and its metric.

use trailgate_core::Percent;
use trailgate_trace::Run;

use crate::gate::{Gate, Target};
use crate::graders::{Grader, Verdicts, report_and_recheck};
use crate::run::{Detail, RunSource};

use super::{MissingArgument, RunToolCalls, ToolCallsGrader, ToolCallsOutcome, ToolCallsTotals};

impl Verdicts for ToolCallsGrader {
    type Run = RunToolCalls;
    type Outcome = ToolCallsOutcome;
}

impl Grader for ToolCallsGrader {
    type Config = super::config::RawConfig;
    const TARGETS: &'static [Target] = &[super::PASS_RATE];

    fn default_gate() -> Gate {
        Gate::at_least(super::PASS_RATE, 100)
    }

    type Sums = ToolCallsTotals;

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
        vec![(super::PASS_RATE, outcome.pass_rate)]
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// A share of one run: 100 when it passed, 0 when not.
    fn run_metrics(&self, run: &RunToolCalls) -> Vec<(Target, Percent)> {
        vec![(
            super::PASS_RATE,
            Percent::floor_of(u64::from(run.passed), 1),
        )]
    }
}

report_and_recheck!(ToolCallsGrader, outcome ToolCallsOutcome, names super::json::ToolCallsNames, view super::recheck::ToolCallsView);
