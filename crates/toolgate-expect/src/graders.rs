//! The graders: one module per kind, and the registry that lists the kinds.
//!
//! A grader module holds everything toolgate knows about its kind: its configuration, its
//! per-run grading, its sums over runs, its metrics and default gate, and what its findings
//! say about a run ([`crate::Section`]). The rest of the crate reaches a kind through the
//! registry, [`Block`]; the reporters see only sections and metrics.

pub(crate) mod budget;
pub(crate) mod call_accuracy;
pub(crate) mod config;
pub(crate) mod dependencies;
pub(crate) mod errors;
pub(crate) mod selection;
pub(crate) mod tool_calls;
pub(crate) mod tool_correctness;
pub(crate) mod trajectory;

use std::fmt;

use toolgate_core::{PairingTooLarge, Percent};
use toolgate_trace::Run;

use crate::gate::{Gate, Op, Target};
use crate::graders::tool_calls::MissingArgument;
use crate::run::{Detail, RunSource};

/// What the evaluation asks of every grader kind: grade one run, say whether the run has
/// findings, fold it into sums that add up exactly over runs (so that shards merge), and
/// turn the sums and the listed runs into the test's outcome and its metrics.
pub(crate) trait Grader {
    /// The grader's verdict on one run.
    type Run;
    /// Its sums over runs.
    type Sums: fmt::Debug;
    /// Its verdict over all runs of a test.
    type Outcome;

    /// Grades run `number` of a test, read from `source`, to `detail`. A matcher that
    /// cannot judge a call (a configuration error found only at run time) adds it to
    /// `missing`.
    fn grade(
        &self,
        run: &Run,
        number: usize,
        source: &RunSource,
        missing: &mut Vec<MissingArgument>,
        detail: Detail,
    ) -> Self::Run;
    /// Whether the grader found something short of perfect in the run.
    fn has_findings(run: &Self::Run) -> bool;
    /// Sums over no run yet.
    fn sums(&self) -> Self::Sums;
    /// Adds a run to the sums.
    fn add(sums: &mut Self::Sums, run: &Self::Run);
    /// The outcome over `runs` runs from their sums, listing `listed`.
    fn outcome(&self, listed: Vec<Self::Run>, sums: Self::Sums, runs: u64) -> Self::Outcome;
    /// The outcome's metrics, in report order.
    fn metrics(outcome: &Self::Outcome) -> Vec<(Target, Percent)>;
    /// The gates on those metrics: the suite's, or the default one.
    fn gates(&self) -> &[Gate];
    /// For a grader that pairs a run's calls with an expected list: the size limit of the
    /// pairing that `run` passes, if it passes one (checked before the run is graded).
    fn past_limit(&self, _run: &Run) -> Option<PairingTooLarge> {
        None
    }
    /// For a grader that pairs: how its problem about runs past the limit words it.
    fn limit_words(&self) -> Option<LimitWords> {
        None
    }
}

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
    /// The grader's kind.
    pub block: Block,
    /// The list's key in the grader's `config`.
    pub key: &'static str,
}

/// The kind of block a target belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Block {
    /// `equal_function_sets`.
    EqualFunctionSets,
    /// A `tool-calls` grader.
    ToolCalls,
    /// A `tool-correctness` grader.
    ToolCorrectness,
    /// A `call-accuracy` grader.
    CallAccuracy,
    /// A `trajectory` grader.
    Trajectory,
    /// A `budget` grader.
    Budget,
    /// An `errors` grader.
    Errors,
    /// A `dependencies` grader.
    Dependencies,
}

impl Block {
    /// The block's key in the suite file.
    pub fn key(self) -> &'static str {
        match self {
            Self::EqualFunctionSets => "equal_function_sets",
            Self::ToolCalls => "tool-calls",
            Self::ToolCorrectness => "tool-correctness",
            Self::CallAccuracy => "call-accuracy",
            Self::Trajectory => "trajectory",
            Self::Budget => "budget",
            Self::Errors => "errors",
            Self::Dependencies => "dependencies",
        }
    }

    /// The targets the block produces, in report order.
    pub fn targets(self) -> &'static [Target] {
        match self {
            Self::EqualFunctionSets => &[
                Target::SelectionPrecision,
                Target::SelectionRecall,
                Target::SelectionF1,
            ],
            Self::ToolCalls => &[Target::ToolCallsPassRate],
            Self::ToolCorrectness => &[Target::ToolCorrectnessScore],
            Self::CallAccuracy => &[
                Target::CallAccuracyPrecision,
                Target::CallAccuracyRecall,
                Target::CallAccuracyF1,
                Target::CallAccuracyArguments,
            ],
            Self::Trajectory => &[Target::TrajectoryMatchRate, Target::TrajectoryScore],
            Self::Budget => &[Target::BudgetPassRate, Target::BudgetEfficiency],
            Self::Errors => &[Target::ErrorsRate, Target::ErrorsRecovery],
            Self::Dependencies => &[Target::DependenciesPassRate],
        }
    }

    /// The gate applied when the block's `expect:` is omitted or empty. For
    /// `tool-correctness` this is the default threshold's; a written `threshold` moves it.
    pub fn default_gate(self) -> Gate {
        match self {
            Self::EqualFunctionSets => Gate {
                target: Target::SelectionF1,
                op: Op::Ge,
                value: Percent::new(50).unwrap_or(Percent::ZERO),
                line: None,
            },
            Self::ToolCalls => Gate {
                target: Target::ToolCallsPassRate,
                op: Op::Ge,
                value: Percent::FULL,
                line: None,
            },
            Self::ToolCorrectness => Gate {
                target: Target::ToolCorrectnessScore,
                op: Op::Ge,
                value: Percent::new(50).unwrap_or(Percent::ZERO),
                line: None,
            },
            Self::CallAccuracy => Gate {
                target: Target::CallAccuracyF1,
                op: Op::Ge,
                value: Percent::new(50).unwrap_or(Percent::ZERO),
                line: None,
            },
            Self::Trajectory => Gate {
                target: Target::TrajectoryMatchRate,
                op: Op::Ge,
                value: Percent::FULL,
                line: None,
            },
            Self::Budget => Gate {
                target: Target::BudgetPassRate,
                op: Op::Ge,
                value: Percent::FULL,
                line: None,
            },
            // Never applied: an `errors` grader requires `expect:`.
            Self::Errors => Gate {
                target: Target::ErrorsRecovery,
                op: Op::Ge,
                value: Percent::FULL,
                line: None,
            },
            Self::Dependencies => Gate {
                target: Target::DependenciesPassRate,
                op: Op::Ge,
                value: Percent::FULL,
                line: None,
            },
        }
    }
}
