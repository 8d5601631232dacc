//! The `dependencies` grader as the evaluation sees it (its `Grader`): grading a run, its
//! sums over runs (per edge as well), its outcome and metric.

use crate::metric_value::MetricValue;

use crate::gate::{Gate, Target};
use crate::graders::contract::{Grader, Verdicts, report_and_recheck};
use crate::run::{Detail, TestRun};

use super::{DependenciesGrader, DependenciesOutcome, EdgeCounts, EdgeVerdict, RunDependencies};

/// Runs where every edge held, and each edge's counts, summed over runs.
#[derive(Debug, Default)]
pub(crate) struct DependencySums {
    passing: u64,
    edges: Vec<EdgeCounts>,
}

impl Verdicts for DependenciesGrader {
    type Run = RunDependencies;
    type Outcome = DependenciesOutcome;
}

impl Grader for DependenciesGrader {
    type Config = super::config::RawConfig;
    const TARGETS: &'static [Target] = &[super::PASS_RATE];

    fn default_gate() -> Gate {
        Gate::at_least(super::PASS_RATE, 100)
    }

    type Sums = DependencySums;

    fn grade(&self, run: &TestRun<'_>, detail: Detail) -> RunDependencies {
        self.grade_as(run.calls, detail)
    }

    /// An edge that failed.
    fn has_findings(run: &RunDependencies) -> bool {
        !run.passed
    }

    fn sums(&self) -> DependencySums {
        DependencySums {
            passing: 0,
            edges: vec![EdgeCounts::default(); self.edges.len()],
        }
    }

    fn add(sums: &mut DependencySums, run: &RunDependencies) {
        sums.passing += u64::from(run.passed);
        for (counts, verdict) in sums.edges.iter_mut().zip(&run.edges) {
            counts.applied += u64::from(*verdict != EdgeVerdict::Vacuous);
            counts.failed += u64::from(matches!(verdict, EdgeVerdict::Failed(_)));
        }
    }

    fn outcome(
        &self,
        listed: Vec<RunDependencies>,
        sums: DependencySums,
        runs: u64,
    ) -> DependenciesOutcome {
        DependenciesOutcome::new(self, listed, (sums.passing, sums.edges), runs)
    }

    fn metrics(outcome: &DependenciesOutcome) -> Vec<(Target, MetricValue)> {
        vec![(super::PASS_RATE, outcome.pass_rate.into())]
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// One run's share of passing runs.
    fn run_metrics(&self, run: &RunDependencies) -> Vec<(Target, MetricValue)> {
        vec![(
            super::PASS_RATE,
            DependenciesOutcome::pass_rate_of(u64::from(run.passed), 1).into(),
        )]
    }
}

report_and_recheck!(DependenciesGrader, outcome DependenciesOutcome, names super::json::DependenciesNames, view super::recheck::DependenciesView);
