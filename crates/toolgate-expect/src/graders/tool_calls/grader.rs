//! The `tool-calls` grader as the evaluation sees it (its `Grader`): grading a run, its
//! sums over runs, its outcome and its metric.

use std::io;

use toolgate_core::Percent;
use toolgate_trace::Run;

use crate::gate::{Gate, Op, Target};
use crate::graders::{Grader, GraderRecheck, GraderReport, Verdicts};
use crate::json_part::{Entries, JsonPart};
use crate::recheck::Metrics;
use crate::run::{Detail, RunInfo, RunSource};
use crate::section::Section;

use super::{MissingArgument, RunToolCalls, ToolCallsGrader, ToolCallsOutcome, ToolCallsTotals};

impl Verdicts for ToolCallsGrader {
    type Run = RunToolCalls;
    type Outcome = ToolCallsOutcome;
}

impl Grader for ToolCallsGrader {
    type Config = super::config::RawConfig;
    const TARGETS: &'static [Target] = &[super::PASS_RATE];

    fn default_gate() -> Gate {
        Gate {
            target: super::PASS_RATE,
            op: Op::Ge,
            value: Percent::FULL,
            line: None,
        }
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
}

impl GraderReport for ToolCallsGrader {
    type Names = super::json::ToolCallsNames;
    const JSON_LISTS: usize = super::json::LISTS;

    fn names(&self) -> Self::Names {
        self.json_names()
    }

    fn outcome_names(outcome: &ToolCallsOutcome) -> Self::Names {
        outcome.json_names()
    }

    fn listed(outcome: &ToolCallsOutcome) -> &[RunToolCalls] {
        &outcome.runs
    }

    fn section(outcome: &ToolCallsOutcome, runs: &[RunInfo], run_count: usize) -> Section {
        outcome.section(runs, run_count)
    }

    fn json_part(outcome: &ToolCallsOutcome) -> JsonPart {
        outcome.json_part()
    }

    fn write_entries(
        names: &Self::Names,
        info: &RunInfo,
        run: &RunToolCalls,
        entries: &mut Entries<'_>,
    ) -> io::Result<()> {
        super::json::write_entries(names, info, run, entries)
    }
}

impl GraderRecheck for ToolCallsGrader {
    type View = super::recheck::ToolCallsView;

    fn listed_runs(view: &Self::View) -> u64 {
        view.runs.listed
    }

    fn add_up(view: &Self::View, metrics: &Metrics<'_>) -> Result<(), String> {
        super::recheck::add_up(view, metrics)
    }
}
