//! The equal-function-set block as the evaluation sees it (its `Grader`): grading a run,
//! its sums over runs, its outcome and its metrics.

use crate::metric_value::MetricValue;
use trailgate_core::Counts;

use crate::gate::{Gate, Target};
use crate::graders::config::NotInGraders;
use crate::graders::contract::{Grader, ToolMarks, Verdicts, report_and_recheck};
use crate::observed::{Observed, Suggested};
use crate::run::{Detail, TestRun};

use super::{EqualFunctionSets, RunSelectionOutcome, SelectionOutcome, select};

/// The counts summed over runs, and per class how many runs missed it.
#[derive(Debug)]
pub(crate) struct SelectionSums {
    counts: Counts,
    class_misses: Vec<u64>,
}

impl Verdicts for EqualFunctionSets {
    type Run = RunSelectionOutcome;
    type Outcome = SelectionOutcome;
}

impl Grader for EqualFunctionSets {
    type Config = NotInGraders<Self>;
    const TARGETS: &'static [Target] = &[super::PRECISION, super::RECALL, super::F1];

    fn default_gate() -> Gate {
        Gate::at_least(super::F1, 50)
    }

    type Sums = SelectionSums;

    /// Equal-function sets count every call, completed or not (docs/suite.md#trace-files).
    fn grade(&self, run: &TestRun<'_>, detail: Detail) -> RunSelectionOutcome {
        select(self, run.calls, detail)
    }

    /// A missed class or an unexpected call.
    fn has_findings(run: &RunSelectionOutcome) -> bool {
        run.counts.false_positives > 0 || run.counts.false_negatives > 0
    }

    /// The calls that satisfied a class, and the unexpected ones.
    fn tool_marks(run: &RunSelectionOutcome) -> Option<ToolMarks<'_>> {
        Some(ToolMarks {
            satisfied: run.satisfied_by.iter().flatten().map(|c| &c.tool).collect(),
            unexpected: run.unexpected.iter().map(|c| &c.tool).collect(),
        })
    }

    fn class_misses(outcome: &SelectionOutcome) -> Vec<(&str, u64)> {
        outcome
            .classes
            .iter()
            .map(trailgate_core::ClassName::as_str)
            .zip(outcome.missed_runs.iter().copied())
            .collect()
    }

    fn sums(&self) -> SelectionSums {
        SelectionSums {
            counts: Counts::default(),
            class_misses: vec![0; self.classes.classes().len()],
        }
    }

    fn add(sums: &mut SelectionSums, run: &RunSelectionOutcome) {
        sums.counts += run.counts;
        for (misses, satisfied) in sums.class_misses.iter_mut().zip(&run.satisfied_by) {
            *misses += u64::from(satisfied.is_none());
        }
    }

    fn outcome(
        &self,
        listed: Vec<RunSelectionOutcome>,
        sums: SelectionSums,
        _runs: u64,
    ) -> SelectionOutcome {
        SelectionOutcome {
            classes: self
                .classes
                .classes()
                .iter()
                .map(|c| c.name.clone())
                .collect(),
            runs: listed,
            missed_runs: sums.class_misses,
            counts: sums.counts,
            metrics: sums.counts.metrics(),
        }
    }

    /// The metrics of the summed counts (micro-average).
    fn metrics(outcome: &SelectionOutcome) -> Vec<(Target, MetricValue)> {
        let m = outcome.metrics;
        vec![
            (super::PRECISION, m.precision.into()),
            (super::RECALL, m.recall.into()),
            (super::F1, m.f1.into()),
        ]
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// The run's counts' metrics, as the outcome's are its summed counts'.
    fn run_metrics(&self, run: &RunSelectionOutcome) -> Vec<(Target, MetricValue)> {
        let m = run.counts.metrics();
        vec![
            (super::PRECISION, m.precision.into()),
            (super::RECALL, m.recall.into()),
            (super::F1, m.f1.into()),
        ]
    }

    fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
        super::suggest::suggest(observed)
    }
}

report_and_recheck!(EqualFunctionSets, outcome SelectionOutcome, names super::json::SelectionNames, view super::recheck::SelectionView);
