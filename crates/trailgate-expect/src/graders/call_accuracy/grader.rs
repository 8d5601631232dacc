//! The `call-accuracy` grader as the evaluation sees it (its `Grader`): grading a run, its
//! sums over runs, its outcome and its metrics, and its pairing limit.

use crate::metric_value::MetricValue;
use trailgate_core::{AccuracyCounts, PairingTooLarge, check_pairing_size};
use trailgate_trace::Run;

use crate::gate::{Gate, Target};
use crate::graders::contract::{Grader, LimitWords, Verdicts, report_and_recheck};
use crate::observed::{Observed, Suggested};
use crate::run::{Detail, TestRun};

use super::{ArgumentCounts, CallAccuracyGrader, CallAccuracyOutcome, RunAccuracy};

/// The counts, the expected calls made with other arguments, and the argument counts,
/// summed over runs.
#[derive(Debug, Default)]
pub(crate) struct AccuracySums {
    counts: AccuracyCounts,
    incorrect: u64,
    arguments: ArgumentCounts,
}

impl Verdicts for CallAccuracyGrader {
    type Run = RunAccuracy;
    type Outcome = CallAccuracyOutcome;
}

impl Grader for CallAccuracyGrader {
    type Config = super::config::RawConfig;
    const TARGETS: &'static [Target] =
        &[super::PRECISION, super::RECALL, super::F1, super::ARGUMENTS];

    fn default_gate() -> Gate {
        Gate::at_least(super::F1, 50)
    }

    type Sums = AccuracySums;

    fn grade(&self, run: &TestRun<'_>, detail: Detail) -> RunAccuracy {
        self.grade_as(run.calls, detail)
    }

    /// Fewer correct calls than expected or than made.
    fn has_findings(run: &RunAccuracy) -> bool {
        run.counts.correct != run.counts.expected || run.counts.correct != run.counts.actual
    }

    fn sums(&self) -> AccuracySums {
        AccuracySums::default()
    }

    fn add(sums: &mut AccuracySums, run: &RunAccuracy) {
        sums.counts = [sums.counts, run.counts].into_iter().sum();
        sums.incorrect += run.mismatched as u64;
        sums.arguments += run.arguments;
    }

    fn outcome(
        &self,
        listed: Vec<RunAccuracy>,
        sums: AccuracySums,
        _runs: u64,
    ) -> CallAccuracyOutcome {
        CallAccuracyOutcome::new(self, listed, sums.counts, sums.incorrect, sums.arguments)
    }

    fn metrics(outcome: &CallAccuracyOutcome) -> Vec<(Target, MetricValue)> {
        let m = outcome.metrics;
        vec![
            (super::PRECISION, m.precision.into()),
            (super::RECALL, m.recall.into()),
            (super::F1, m.f1.into()),
            (super::ARGUMENTS, outcome.arguments.percent().into()),
        ]
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// The run's counts' metrics and its arguments' share, as the outcome's are its sums'.
    fn run_metrics(&self, run: &RunAccuracy) -> Vec<(Target, MetricValue)> {
        let m = run.counts.metrics();
        vec![
            (super::PRECISION, m.precision.into()),
            (super::RECALL, m.recall.into()),
            (super::F1, m.f1.into()),
            (super::ARGUMENTS, run.arguments.percent().into()),
        ]
    }

    fn past_limit(&self, run: &Run) -> Option<PairingTooLarge> {
        check_pairing_size(self.expected.len(), run.calls.len()).err()
    }

    fn limit_words(&self) -> Option<LimitWords> {
        Some(LimitWords {
            code: "trailgate::call_accuracy::too_many_calls",
            verb: "pair",
            expected: self.expected.len(),
            noun: "expected calls",
            key: "expected",
        })
    }

    fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
        super::suggest::suggest(observed)
    }
}

report_and_recheck!(CallAccuracyGrader, outcome CallAccuracyOutcome, names super::json::AccuracyNames, view super::recheck::AccuracyView);
