//! The `dependencies` grader: edges between the calls of a run, one call before another or
//! a value flowing from one call's result into another's argument, with edges that held
//! only because they never applied reported as such (docs/graders/dependencies.md).

pub(crate) mod config;

use trailgate_core::{Percent, ToolId};
use trailgate_trace::{Call, Run};

use crate::gate::{Gate, Target};
use crate::run::{CalledTool, Detail};
use crate::step_matcher::StepMatcher;

/// `dependencies.pass_rate`.
pub(crate) const PASS_RATE: Target = Target::new("dependencies.pass_rate");

/// An edge between two steps.
#[derive(Debug, Clone)]
pub enum Edge {
    /// Every call matching `after` comes later than some call matching `before`.
    Order {
        /// The earlier step.
        before: StepMatcher,
        /// The later step.
        after: StepMatcher,
    },
    /// Every call matching `into` has argument `arg` with a value produced earlier by a
    /// call matching `feeds`.
    Flow {
        /// The producing step.
        feeds: StepMatcher,
        /// The consuming step.
        into: StepMatcher,
        /// The consuming step's argument.
        arg: String,
    },
}

impl std::fmt::Display for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Order { before, after } => write!(f, "{before} before {after}"),
            Self::Flow { feeds, into, arg } => write!(f, "{feeds} feeds {into} `{arg}`"),
        }
    }
}

/// A test's `dependencies` grader, checked.
#[derive(Debug, Clone)]
pub struct DependenciesGrader {
    /// The edges, in order.
    pub edges: Vec<Edge>,
    /// The gates on `dependencies.pass_rate`.
    pub gates: Vec<Gate>,
}

/// How an edge fared in a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EdgeVerdict {
    /// Its later step matched calls, and each had what the edge asks.
    Held,
    /// Its later step matched no call: it held without applying.
    Vacuous,
    /// A call of its later step did not have what the edge asks.
    Failed(EdgeFailure),
}

/// The first call that broke an edge, and the other end.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EdgeFailure {
    /// The call of the later step (`after`, `into`).
    pub call: Option<CalledTool>,
    /// The closest call of the earlier step: the first `before` call (which came later),
    /// or the last `feeds` call before it.
    pub other: Option<CalledTool>,
    /// For a flow edge: the argument's value, shown short, or `None` when absent.
    pub value: Option<String>,
    /// Whether the edge is a flow edge (`feeds`), not an order (`before`).
    pub flow: bool,
}

/// The grader's verdict on one run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunDependencies {
    /// Whether every edge held.
    pub passed: bool,
    /// Each edge's verdict, in order (the failures without calls for [`Detail::Counts`]).
    pub edges: Vec<EdgeVerdict>,
}

fn called(calls: &[Call], index: usize) -> CalledTool {
    let call = &calls[index];
    CalledTool {
        call: index + 1,
        tool: ToolId::new(call.server.clone(), call.name.clone()),
    }
}

impl DependenciesGrader {
    /// Grades one run; every call counts, completed or not.
    pub fn grade(&self, run: &Run) -> RunDependencies {
        self.grade_as(run, Detail::Full)
    }

    /// [`grade`](Self::grade), to the `detail` given: without it, no call named.
    pub fn grade_as(&self, run: &Run, detail: Detail) -> RunDependencies {
        let calls = &run.calls;
        let edges: Vec<EdgeVerdict> = self
            .edges
            .iter()
            .map(|edge| {
                let verdict = edge_verdict(edge, calls);
                match (verdict, detail) {
                    (EdgeVerdict::Failed(_), Detail::Counts) => {
                        EdgeVerdict::Failed(EdgeFailure::default())
                    }
                    (verdict, _) => verdict,
                }
            })
            .collect();
        RunDependencies {
            passed: !edges.iter().any(|e| matches!(e, EdgeVerdict::Failed(_))),
            edges,
        }
    }
}

/// How `edge` fares over `calls`.
fn edge_verdict(edge: &Edge, calls: &[Call]) -> EdgeVerdict {
    let (earlier, later) = match edge {
        Edge::Order { before, after } => (before, after),
        Edge::Flow { feeds, into, arg } => return flow::verdict(feeds, into, arg, calls),
    };
    // An order edge: one pass over the run, remembering whether an earlier call was seen.
    let mut applied = false;
    let mut seen_earlier = false;
    for (index, call) in calls.iter().enumerate() {
        if !later.matches(call) {
            seen_earlier |= earlier.matches(call);
            continue;
        }
        applied = true;
        if !seen_earlier {
            return EdgeVerdict::Failed(EdgeFailure {
                call: Some(called(calls, index)),
                other: (index + 1..calls.len())
                    .find(|&c| earlier.matches(&calls[c]))
                    .map(|c| called(calls, c)),
                value: None,
                flow: false,
            });
        }
        // A call of both steps is an earlier call for the calls after it.
        seen_earlier |= earlier.matches(call);
    }
    if applied {
        EdgeVerdict::Held
    } else {
        EdgeVerdict::Vacuous
    }
}

/// An edge's counts over runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EdgeCounts {
    /// Runs where it applied (held or failed).
    pub applied: u64,
    /// Runs where it failed.
    pub failed: u64,
}

/// The grader's verdict over all runs of a test.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DependenciesOutcome {
    /// The edges as reports show them.
    pub edges: Vec<String>,
    /// Each listed run, in run order (see [`TestOutcome`](crate::TestOutcome)).
    pub runs: Vec<RunDependencies>,
    /// Each edge's counts over the runs.
    pub counts: Vec<EdgeCounts>,
    /// The runs where every edge held.
    pub passing_runs: u64,
    /// `dependencies.pass_rate`.
    pub pass_rate: Percent,
}

impl DependenciesOutcome {
    /// `dependencies.pass_rate`: the share of runs where every edge held, rounded down.
    pub fn pass_rate_of(passing: u64, runs: u64) -> Percent {
        Percent::floor_of(passing, runs)
    }

    /// The edges, by position, that applied in no run: they held only vacuously, so a gate
    /// on them could never have failed.
    pub fn vacuous(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.counts.len()).filter(|&e| self.counts[e].applied == 0)
    }

    pub(crate) fn new(
        grader: &DependenciesGrader,
        listed: Vec<RunDependencies>,
        (passing_runs, counts): (u64, Vec<EdgeCounts>),
        runs: u64,
    ) -> Self {
        Self {
            edges: grader.edges.iter().map(ToString::to_string).collect(),
            runs: listed,
            counts,
            passing_runs,
            pass_rate: Self::pass_rate_of(passing_runs, runs),
        }
    }
}

mod explain;
mod flow;
mod grader;
pub(crate) mod json;
pub(crate) mod recheck;
