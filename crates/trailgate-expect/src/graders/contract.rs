//! The contract every grader kind implements, known to no kind in particular: grade one
//! run ([`Grader`]), explain an outcome and write its part of the JSON report
//! ([`GraderReport`]), and check a shard report's object ([`GraderRecheck`]). A leaf of the
//! graders: the kinds import it, and the registry in `graders.rs` lists the kinds.

use crate::metric_value::MetricValue;
use std::{fmt, io};

use serde::de::DeserializeOwned;
use trailgate_core::{PairingTooLarge, ToolId};
use trailgate_trace::Run;

use crate::error::Problem;
use crate::gate::{Gate, Target, run_gate_holds};
use crate::graders::config::GraderConfig;
use crate::json_part::{Entries, JsonPart};
use crate::observed::{Observed, Suggested};
use crate::recheck::Metrics;
use crate::run::{Detail, RunInfo, TestRun};
use crate::section::Section;
use crate::suite_file::PathSeg;

/// The metrics of the outcome of a test whose one run is `run`.
pub(crate) fn metrics_alone<G: Grader + ?Sized>(
    grader: &G,
    run: &G::Run,
) -> Vec<(Target, MetricValue)> {
    let mut sums = grader.sums();
    G::add(&mut sums, run);
    G::metrics(&grader.outcome(Vec::new(), sums, 1))
}

/// The types of what a grader kind says: its verdict on one run, and its outcome over a
/// test's runs (the fields of [`RunGrades`](crate::RunGrades) and
/// [`Outcomes`](crate::Outcomes)).
pub trait Verdicts {
    /// The grader's verdict on one run.
    type Run;
    /// Its verdict over all runs of a test.
    type Outcome;
}

/// What the evaluation asks of every grader kind: grade one run, say whether the run has
/// findings, fold it into sums that add up exactly over runs (so that shards merge), and
/// turn the sums and the listed runs into the test's outcome and its metrics.
pub(crate) trait Grader: Verdicts {
    /// What reads the kind's `config:`.
    type Config: GraderConfig<Grader = Self>;
    /// The metrics the kind produces, in report order.
    const TARGETS: &'static [Target];
    /// The gate applied when the grader's `expect:` is omitted or empty.
    fn default_gate() -> Gate;

    /// Its sums over runs.
    type Sums: fmt::Debug;

    /// Grades `run`, one run of a test, to `detail`.
    fn grade(&self, run: &TestRun<'_>, detail: Detail) -> Self::Run;
    /// Whether the grader found something short of perfect in the run.
    fn has_findings(run: &Self::Run) -> bool;
    /// Sums over no run yet.
    fn sums(&self) -> Self::Sums;
    /// Adds a run to the sums.
    fn add(sums: &mut Self::Sums, run: &Self::Run);
    /// The outcome over `runs` runs from their sums, listing `listed`.
    fn outcome(&self, listed: Vec<Self::Run>, sums: Self::Sums, runs: u64) -> Self::Outcome;
    /// The outcome's metrics, in report order.
    fn metrics(outcome: &Self::Outcome) -> Vec<(Target, MetricValue)>;
    /// The gates on those metrics: the suite's, or the default one.
    fn gates(&self) -> &[Gate];
    /// The metrics of `run` alone: those of the outcome of a test of that one run
    /// ([`metrics_alone`]). A kind whose outcome is costly to build (it names its expected
    /// calls) computes the same from the run directly; `graders/tests.rs` checks that each
    /// kind's equals [`metrics_alone`].
    fn run_metrics(&self, run: &Self::Run) -> Vec<(Target, MetricValue)> {
        metrics_alone(self, run)
    }
    /// Whether every gate of the grader holds on the metrics of `run` alone
    /// (docs/reports.md#each-runs-verdict). Gates on the baseline are left out: a run's verdict
    /// does not depend on which
    /// baseline, if any, the check was given.
    fn run_passes(&self, run: &Self::Run) -> bool {
        let metrics = self.run_metrics(run);
        self.gates()
            .iter()
            .all(|gate| run_gate_holds(gate, &metrics))
    }
    /// The calls the kind could not judge in the runs summed in `sums`: a configuration
    /// error that only runs reveal (a matcher of an argument meeting calls without that
    /// argument), as problems placed under the test. None for a kind that judges every call.
    fn unjudged(&self, _sums: &Self::Sums) -> Vec<Unjudged> {
        Vec::new()
    }
    /// The calls of `run` the kind judged tool by tool, when it judges them so.
    fn tool_marks(_run: &Self::Run) -> Option<ToolMarks<'_>> {
        None
    }
    /// The kind's classes, in declaration order, with how many runs missed each, when it
    /// has classes.
    fn class_misses(_outcome: &Self::Outcome) -> Vec<(&str, u64)> {
        Vec::new()
    }
    /// For a grader that pairs a run's calls with an expected list: the size limit of the
    /// pairing that `run` passes, if it passes one (checked before the run is graded).
    fn past_limit(&self, _run: &Run) -> Option<PairingTooLarge> {
        None
    }
    /// For a grader that pairs: how its problem about runs past the limit words it.
    fn limit_words(&self) -> Option<LimitWords> {
        None
    }
    /// The kind's part of a test suggested from recorded runs (`trailgate init --from`,
    /// docs/init.md): the body of its `config:` (or of its block at the test's top level),
    /// every gate of which holds on each run alone; `None` when the kind has nothing to say
    /// of these runs.
    fn suggest(_observed: &Observed<'_>) -> Option<Suggested> {
        None
    }
}

/// What the reports take of a grader kind: the section that explains a test's outcome, and
/// its part of the JSON report (its object, and the entries of its run-sized lists).
pub(crate) trait GraderReport: Grader {
    /// What the kind's run entries name (its expected calls, its classes), taken from the
    /// grader before its runs are scored, or from its outcome.
    type Names: fmt::Debug + Clone + Default;
    /// How many run-sized lists its JSON object holds (numbered from 0 in its module).
    const JSON_LISTS: usize;
    /// The keys of its run-sized lists in its object, by number.
    const JSON_LIST_NAMES: &'static [&'static str];

    /// The names of the grader.
    fn names(&self) -> Self::Names;
    /// The names an outcome carries.
    fn outcome_names(outcome: &Self::Outcome) -> Self::Names;
    /// The outcome's listed runs, index for index with the test's listed runs.
    fn listed(outcome: &Self::Outcome) -> &[Self::Run];
    /// What the outcome says about the test; `runs` are the test's listed runs, of
    /// `run_count`.
    fn section(outcome: &Self::Outcome, runs: &[RunInfo], run_count: usize) -> Section;
    /// The kind's object in the test's JSON.
    fn json_part(outcome: &Self::Outcome) -> JsonPart;
    /// Writes one run's entries of the kind's run-sized lists.
    fn write_entries(
        names: &Self::Names,
        info: &RunInfo,
        run: &Self::Run,
        entries: &mut Entries<'_>,
    ) -> io::Result<()>;
}

/// What `merge` checks of a kind's object in a shard report's test: the view it reads of
/// the object, and the check that the object's numbers add up.
pub(crate) trait GraderRecheck {
    /// What `merge` reads of the object.
    type View: DeserializeOwned + fmt::Debug;

    /// How many runs the object's run list holds.
    fn listed_runs(view: &Self::View) -> u64;
    /// Checks that the object's sums and metrics are what its runs give.
    fn add_up(view: &Self::View, metrics: &Metrics<'_>) -> Result<(), String>;
}

/// Implements [`GraderReport`] and [`GraderRecheck`] for a kind whose modules hold them as
/// the kinds do: `json.rs` with its names type, `LISTS`, the grader's and the outcome's
/// `json_names`, the outcome's `json_part` and a `write_entries` function; `explain.rs` with
/// the outcome's `section`; `recheck.rs` with its view type and an `add_up` function.
macro_rules! report_and_recheck {
    ($grader:ty, outcome $outcome:ty, names $names:ty, view $view:ty) => {
        impl $crate::graders::contract::GraderReport for $grader {
            type Names = $names;
            const JSON_LISTS: usize = super::json::LISTS;
            const JSON_LIST_NAMES: &'static [&'static str] = &super::json::LIST_NAMES;

            fn names(&self) -> $names {
                self.json_names()
            }

            fn outcome_names(outcome: &$outcome) -> $names {
                outcome.json_names()
            }

            fn listed(outcome: &$outcome) -> &[<Self as $crate::graders::contract::Verdicts>::Run] {
                &outcome.runs
            }

            fn section(
                outcome: &$outcome,
                runs: &[$crate::run::RunInfo],
                run_count: usize,
            ) -> $crate::section::Section {
                outcome.section(runs, run_count)
            }

            fn json_part(outcome: &$outcome) -> $crate::json_part::JsonPart {
                outcome.json_part()
            }

            fn write_entries(
                names: &$names,
                info: &$crate::run::RunInfo,
                run: &<Self as $crate::graders::contract::Verdicts>::Run,
                entries: &mut $crate::json_part::Entries<'_>,
            ) -> std::io::Result<()> {
                super::json::write_entries(names, info, run, entries)
            }
        }

        impl $crate::graders::contract::GraderRecheck for $grader {
            type View = $view;

            fn listed_runs(view: &$view) -> u64 {
                view.runs.listed
            }

            fn add_up(view: &$view, metrics: &$crate::recheck::Metrics<'_>) -> Result<(), String> {
                super::recheck::add_up(view, metrics)
            }
        }
    };
}

pub(crate) use report_and_recheck;

/// How the problem about runs too long for a grader's pairing words it: "too many calls to
/// `verb` with `expected` `noun`", placed on the grader's `key`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitWords {
    /// The problem's code.
    pub code: &'static str,
    /// What the grader does with the calls (`pair`, `match`).
    pub verb: &'static str,
    /// The length of the expected list.
    pub expected: usize,
    /// What the list holds (`expected calls`).
    pub noun: &'static str,
    /// The list's key in the grader's `config`.
    pub key: &'static str,
}

/// A problem about calls a grader could not judge, and where it goes: `at`, a path under
/// the test (`graders`, the grader's position, `config`, ...).
#[derive(Debug, Clone)]
pub struct Unjudged {
    /// The node the problem is placed on, from the test.
    pub at: Vec<PathSeg<'static>>,
    /// The problem, not yet placed.
    pub problem: Problem,
}

/// The calls of a run that a kind judged tool by tool, for reports that count them by tool
/// (the HTML report's tools table): those that satisfied what the test expects, and the
/// unexpected ones. The equal-function sets mark them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolMarks<'a> {
    /// The calls that satisfied a class, in class order.
    pub satisfied: Vec<&'a ToolId>,
    /// The unexpected calls, in trace order.
    pub unexpected: Vec<&'a ToolId>,
}
