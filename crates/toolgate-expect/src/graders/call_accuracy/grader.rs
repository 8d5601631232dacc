//! The `call-accuracy` grader as the evaluation sees it (its `Grader`): grading a run, its
//! sums over runs, its outcome and its metrics, and its pairing limit.

use std::io;

use toolgate_core::{AccuracyCounts, PairingTooLarge, Percent, check_pairing_size};
use toolgate_trace::Run;

use crate::gate::{Gate, Op, Target};
use crate::graders::tool_calls::MissingArgument;
use crate::graders::{Block, Grader, GraderRecheck, GraderReport, LimitWords, Verdicts};
use crate::json_part::{Entries, JsonPart};
use crate::recheck::Metrics;
use crate::run::{Detail, RunInfo, RunSource};
use crate::section::Section;

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
        Gate {
            target: super::F1,
            op: Op::Ge,
            value: Percent::new(50).unwrap_or(Percent::ZERO),
            line: None,
        }
    }

    type Sums = AccuracySums;

    fn grade(
        &self,
        run: &Run,
        _number: usize,
        _source: &RunSource,
        _missing: &mut Vec<MissingArgument>,
        detail: Detail,
    ) -> RunAccuracy {
        self.grade_as(run, detail)
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

    fn metrics(outcome: &CallAccuracyOutcome) -> Vec<(Target, Percent)> {
        let m = outcome.metrics;
        vec![
            (super::PRECISION, m.precision),
            (super::RECALL, m.recall),
            (super::F1, m.f1),
            (super::ARGUMENTS, outcome.arguments.percent()),
        ]
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }

    fn past_limit(&self, run: &Run) -> Option<PairingTooLarge> {
        check_pairing_size(self.expected.len(), run.calls.len()).err()
    }

    fn limit_words(&self) -> Option<LimitWords> {
        Some(LimitWords {
            code: "toolgate::call_accuracy::too_many_calls",
            verb: "pair",
            expected: self.expected.len(),
            noun: "expected calls",
            block: Block::CallAccuracy,
            key: "expected",
        })
    }
}

impl GraderReport for CallAccuracyGrader {
    type Names = super::json::AccuracyNames;
    const JSON_LISTS: usize = super::json::LISTS;

    fn names(&self) -> Self::Names {
        self.json_names()
    }

    fn outcome_names(outcome: &CallAccuracyOutcome) -> Self::Names {
        outcome.json_names()
    }

    fn listed(outcome: &CallAccuracyOutcome) -> &[RunAccuracy] {
        &outcome.runs
    }

    fn section(outcome: &CallAccuracyOutcome, runs: &[RunInfo], run_count: usize) -> Section {
        outcome.section(runs, run_count)
    }

    fn json_part(outcome: &CallAccuracyOutcome) -> JsonPart {
        outcome.json_part()
    }

    fn write_entries(
        names: &Self::Names,
        info: &RunInfo,
        run: &RunAccuracy,
        entries: &mut Entries<'_>,
    ) -> io::Result<()> {
        super::json::write_entries(names, info, run, entries)
    }
}

impl GraderRecheck for CallAccuracyGrader {
    type View = super::recheck::AccuracyView;

    fn listed_runs(view: &Self::View) -> u64 {
        view.runs.listed
    }

    fn add_up(view: &Self::View, metrics: &Metrics<'_>) -> Result<(), String> {
        super::recheck::add_up(view, metrics)
    }
}
