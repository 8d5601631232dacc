//! The `tool-correctness` grader as the evaluation sees it (its `Grader`): grading a run,
//! its sums over runs, its outcome and its metric, and its pairing limit.

use std::io;

use toolgate_core::{PairingTooLarge, Percent, check_pairing_size, check_sequence_size};
use toolgate_trace::Run;

use crate::gate::{Gate, Op, Target};
use crate::graders::tool_calls::MissingArgument;
use crate::graders::{Block, Grader, GraderRecheck, GraderReport, LimitWords, Verdicts};
use crate::json_part::{Entries, JsonPart};
use crate::recheck::Metrics;
use crate::run::{Detail, RunInfo, RunSource};
use crate::section::Section;

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
        Gate {
            target: super::SCORE,
            op: Op::Ge,
            value: Percent::new(50).unwrap_or(Percent::ZERO),
            line: None,
        }
    }

    type Sums = CorrectnessSums;

    fn grade(
        &self,
        run: &Run,
        _number: usize,
        _source: &RunSource,
        _missing: &mut Vec<MissingArgument>,
        detail: Detail,
    ) -> RunCorrectness {
        self.grade_as(run, detail)
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

    fn metrics(outcome: &ToolCorrectnessOutcome) -> Vec<(Target, Percent)> {
        vec![(super::SCORE, outcome.score)]
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
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
            code: "toolgate::tool_correctness::too_many_calls",
            verb: "match",
            expected: self.expected.len(),
            noun: "expected tools",
            block: Block::ToolCorrectness,
            key: "expected_tools",
        })
    }
}

impl GraderReport for ToolCorrectnessGrader {
    type Names = super::json::CorrectnessNames;
    const JSON_LISTS: usize = super::json::LISTS;

    fn names(&self) -> Self::Names {
        self.json_names()
    }

    fn outcome_names(outcome: &ToolCorrectnessOutcome) -> Self::Names {
        outcome.json_names()
    }

    fn listed(outcome: &ToolCorrectnessOutcome) -> &[RunCorrectness] {
        &outcome.runs
    }

    fn section(outcome: &ToolCorrectnessOutcome, runs: &[RunInfo], run_count: usize) -> Section {
        outcome.section(runs, run_count)
    }

    fn json_part(outcome: &ToolCorrectnessOutcome) -> JsonPart {
        outcome.json_part()
    }

    fn write_entries(
        names: &Self::Names,
        info: &RunInfo,
        run: &RunCorrectness,
        entries: &mut Entries<'_>,
    ) -> io::Result<()> {
        super::json::write_entries(names, info, run, entries)
    }
}

impl GraderRecheck for ToolCorrectnessGrader {
    type View = super::recheck::CorrectnessView;

    fn listed_runs(view: &Self::View) -> u64 {
        view.runs.listed
    }

    fn add_up(view: &Self::View, metrics: &Metrics<'_>) -> Result<(), String> {
        super::recheck::add_up(view, metrics)
    }
}
