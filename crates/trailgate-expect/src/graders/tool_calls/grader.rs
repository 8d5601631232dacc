//! The `tool-calls` grader as the evaluation sees it (its `Grader`): grading a run, its
//! sums over runs, its outcome and its metric.

use crate::metric_value::MetricValue;
use trailgate_core::Percent;

use crate::gate::{Gate, Target};
use crate::graders::contract::{Grader, Unjudged, Verdicts, report_and_recheck};
use crate::observed::{Observed, Suggested};
use crate::run::{Detail, TestRun};

use super::{MissingArguments, RunToolCalls, ToolCallsGrader, ToolCallsOutcome, ToolCallsTotals};

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

    type Sums = ToolCallsSums;

    fn grade(&self, run: &TestRun<'_>, detail: Detail) -> RunToolCalls {
        self.grade_as(run, detail)
    }

    /// A failed verdict.
    fn has_findings(run: &RunToolCalls) -> bool {
        !run.passed
    }

    fn sums(&self) -> ToolCallsSums {
        ToolCallsSums::default()
    }

    fn add(sums: &mut ToolCallsSums, run: &RunToolCalls) {
        sums.totals.add(run);
        for missing in &run.missing_arguments {
            sums.missing.push(missing.clone());
        }
    }

    fn outcome(
        &self,
        listed: Vec<RunToolCalls>,
        sums: ToolCallsSums,
        runs: u64,
    ) -> ToolCallsOutcome {
        ToolCallsOutcome::new(self, listed, sums.totals, runs)
    }

    /// One problem per matcher that met calls without its argument, naming every such call.
    fn unjudged(&self, sums: &ToolCallsSums) -> Vec<Unjudged> {
        super::config::missing_argument_problems(self, &sums.missing)
    }

    fn metrics(outcome: &ToolCallsOutcome) -> Vec<(Target, MetricValue)> {
        vec![(super::PASS_RATE, outcome.pass_rate.into())]
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// A share of one run: 100 when it passed, 0 when not.
    fn run_metrics(&self, run: &RunToolCalls) -> Vec<(Target, MetricValue)> {
        vec![(
            super::PASS_RATE,
            Percent::floor_of(u64::from(run.passed), 1).into(),
        )]
    }

    fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
        super::suggest::suggest(observed)
    }
}

report_and_recheck!(ToolCallsGrader, outcome ToolCallsOutcome, names super::json::ToolCallsNames, view super::recheck::ToolCallsView);

/// The grader's sums over runs: its totals, and the calls its matchers could not judge.
#[derive(Debug, Default)]
pub(crate) struct ToolCallsSums {
    totals: ToolCallsTotals,
    missing: MissingArguments,
}
