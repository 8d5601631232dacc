//! The `errors` grader as the evaluation sees it (its `Grader`): grading a run, its sums
//! over runs (per tool as well), its outcome and metrics.

use crate::metric_value::MetricValue;
use std::collections::BTreeMap;

use crate::gate::{Gate, Target};
use crate::graders::contract::{Grader, Verdicts, report_and_recheck};
use crate::observed::{Observed, Suggested};
use crate::run::{Detail, TestRun};

use super::{ErrorCounts, ErrorsGrader, ErrorsOutcome, RunErrors};

/// The counts summed over runs, in all and per tool id.
#[derive(Debug, Default)]
pub(crate) struct ErrorSums {
    counts: ErrorCounts,
    per_tool: BTreeMap<String, ErrorCounts>,
}

impl Verdicts for ErrorsGrader {
    type Run = RunErrors;
    type Outcome = ErrorsOutcome;
}

impl Grader for ErrorsGrader {
    type Config = super::config::RawConfig;
    const TARGETS: &'static [Target] = &[super::RATE, super::RECOVERY];

    fn default_gate() -> Gate {
        // Never applied: an `errors` grader requires `expect:`.
        Gate::at_least(super::RECOVERY, 100)
    }

    type Sums = ErrorSums;

    fn grade(&self, run: &TestRun<'_>, detail: Detail) -> RunErrors {
        self.grade_as(run.calls, detail)
    }

    /// A failed call never recovered.
    fn has_findings(run: &RunErrors) -> bool {
        run.counts.recovered < run.counts.errors
    }

    fn sums(&self) -> ErrorSums {
        ErrorSums::default()
    }

    fn add(sums: &mut ErrorSums, run: &RunErrors) {
        sums.counts += run.counts;
        for (tool, counts) in &run.per_tool {
            *sums.per_tool.entry(tool.clone()).or_default() += *counts;
        }
    }

    fn outcome(&self, listed: Vec<RunErrors>, sums: ErrorSums, _runs: u64) -> ErrorsOutcome {
        ErrorsOutcome::new(listed, sums.counts, sums.per_tool)
    }

    fn metrics(outcome: &ErrorsOutcome) -> Vec<(Target, MetricValue)> {
        vec![
            (super::RATE, outcome.rate.into()),
            (super::RECOVERY, outcome.recovery.into()),
        ]
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// The run's own counts' rates.
    fn run_metrics(&self, run: &RunErrors) -> Vec<(Target, MetricValue)> {
        vec![
            (super::RATE, run.counts.rate().into()),
            (super::RECOVERY, run.counts.recovery().into()),
        ]
    }

    fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
        super::suggest::suggest(observed)
    }
}

report_and_recheck!(ErrorsGrader, outcome ErrorsOutcome, names super::json::ErrorsNames, view super::recheck::ErrorsView);
