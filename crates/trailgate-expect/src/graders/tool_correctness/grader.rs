//! The `tool-correctness` grader as the evaluation sees it (its `Grader`): grading a run,
//! its sums over runs, its outcome and its metric, and its pairing limit.

use crate::metric_value::MetricValue;
use trailgate_core::{PairingTooLarge, Percent, check_pairing_size, check_sequence_size};
use trailgate_trace::Run;

use crate::gate::{Gate, Target};
use crate::graders::contract::{Grader, LimitWords, Verdicts, report_and_recheck};
use crate::run::{Detail, TestRun};

use super::{RunCorrectness, ToolCorrectnessGrader, ToolCorrectnessOutcome};

/// Expected tools matched, and runs that matched exactly, summed over runs.
#[derive(Debug, Default)]
pub(crate) struct CorrectnessSums {
    matched: u64,
    exact: u64,
}

impl Verdicts for ToolCorrectnessGrader {
    type Run = RunCorrectness;
    type Outcome = ToolCorrectnessOutcome;
}

impl Grader for ToolCorrectnessGrader {
    type Config = super::config::RawConfig;
    const TARGETS: &'static [Target] = &[super::SCORE];

    fn default_gate() -> Gate {
        Gate::at_least(super::SCORE, 50)
    }

    type Sums = CorrectnessSums;

    fn grade(&self, run: &TestRun<'_>, detail: Detail) -> RunCorrectness {
        self.grade_as(run.calls, detail)
    }

    /// A score below 100, or an inexact run.
    fn has_findings(run: &RunCorrectness) -> bool {
        run.score != Percent::FULL || run.exact == Some(false)
    }

    fn sums(&self) -> CorrectnessSums {
        CorrectnessSums::default()
    }

    fn add(sums: &mut CorrectnessSums, run: &RunCorrectness) {
        sums.matched += run.matched.iter().flatten().count() as u64;
        sums.exact += u64::from(run.exact == Some(true));
    }

    fn outcome(
        &self,
        listed: Vec<RunCorrectness>,
        sums: CorrectnessSums,
        runs: u64,
    ) -> ToolCorrectnessOutcome {
        ToolCorrectnessOutcome::new(self, listed, sums.matched, sums.exact, runs)
    }

    fn metrics(outcome: &ToolCorrectnessOutcome) -> Vec<(Target, MetricValue)> {
        vec![(super::SCORE, outcome.score.into())]
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// The score of one run, from its matched tools and whether it was exact.
    fn run_metrics(&self, run: &RunCorrectness) -> Vec<(Target, MetricValue)> {
        let matched = run.matched.iter().flatten().count() as u64;
        let exact = self
            .exact_match
            .then_some(u64::from(run.exact == Some(true)));
        let score = ToolCorrectnessOutcome::score_of(matched, self.expected.len() as u64, exact, 1);
        vec![(super::SCORE, score.into())]
    }

    /// The ordered modes pair by a longest common subsequence, whose table grows as the
    /// pairs alone; the others match as a multiset, under both limits.
    fn past_limit(&self, run: &Run) -> Option<PairingTooLarge> {
        let calls = run.calls.len();
        if self.check_ordering {
            check_sequence_size(self.expected.len(), calls).err()
        } else {
            check_pairing_size(self.expected.len(), calls).err()
        }
    }

    fn limit_words(&self) -> Option<LimitWords> {
        Some(LimitWords {
            code: "trailgate::tool_correctness::too_many_calls",
            verb: "match",
            expected: self.expected.len(),
            noun: "expected tools",
            key: "expected_tools",
        })
    }
}

report_and_recheck!(ToolCorrectnessGrader, outcome ToolCorrectnessOutcome, names super::json::CorrectnessNames, view super::recheck::CorrectnessView);
