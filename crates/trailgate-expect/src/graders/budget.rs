//! The `budget` grader: limits on how much a run did (calls, turns, errors, repeated calls,
//! calls of one tool) and its efficiency against the known best path (docs/graders/budget.md).

pub(crate) mod config;
mod suggest;

use std::borrow::Cow;
use std::collections::hash_map::Entry;

use trailgate_core::{Percent, ToolId};
use trailgate_trace::{Call, Run, Status};

use crate::gate::{Gate, Target};
use crate::run::{CalledTool, Detail};
use crate::step_matcher::StepMatcher;

/// `budget.pass_rate`.
pub(crate) const PASS_RATE: Target = Target::new("budget.pass_rate");
/// `budget.efficiency`.
pub(crate) const EFFICIENCY: Target = Target::new("budget.efficiency");

/// A limit of a `budget` grader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Limit {
    /// `max_calls`.
    Calls,
    /// `max_steps`: distinct turns.
    Steps,
    /// `max_errors`: calls with status `error`.
    Errors,
    /// `max_repeats`: calls identical to an earlier call of the run.
    Repeats,
    /// The entry of `max_calls_per_tool` at this position.
    PerTool(usize),
}

/// A `max_calls_per_tool` entry: the calls a step matcher matches, at most `max`.
#[derive(Debug, Clone)]
pub struct ToolLimit {
    /// Which calls count.
    pub step: StepMatcher,
    /// How many may be made.
    pub max: u64,
}

/// A test's `budget` grader, checked. Its default sets no limit and no gate: it only
/// counts.
#[derive(Debug, Clone, Default)]
pub struct BudgetGrader {
    /// `max_calls`.
    pub max_calls: Option<u64>,
    /// `max_steps`.
    pub max_steps: Option<u64>,
    /// `max_errors`.
    pub max_errors: Option<u64>,
    /// `max_repeats`.
    pub max_repeats: Option<u64>,
    /// `max_calls_per_tool`, in order.
    pub per_tool: Vec<ToolLimit>,
    /// `optimal_calls`: the length of the known best path.
    pub optimal_calls: Option<u64>,
    /// The gates on `budget.*`.
    pub gates: Vec<Gate>,
}

/// A limit a run went past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exceeded {
    /// Which limit.
    pub limit: Limit,
    /// The run's count.
    pub count: u64,
    /// The limit's value.
    pub max: u64,
}

/// The grader's verdict on one run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunBudget {
    /// Whether the run is within every limit.
    pub passed: bool,
    /// Its calls.
    pub calls: u64,
    /// Its distinct turns.
    pub steps: u64,
    /// Its calls with status `error`.
    pub errors: u64,
    /// Its calls identical to an earlier call (same tool, JSON-equal arguments).
    pub repeats: u64,
    /// Its calls counted by each `max_calls_per_tool` entry, in order.
    pub per_tool: Vec<u64>,
    /// The limits it went past, in the order of [`Limit`].
    pub exceeded: Vec<Exceeded>,
    /// The first repeated call and the earlier call it repeats (not for
    /// [`Detail::Counts`]).
    pub first_repeat: Option<(CalledTool, usize)>,
    /// With `optimal_calls` N, max(N, calls): the run's share of the denominator of
    /// `budget.efficiency`; its calls otherwise.
    pub weighed: u64,
}

impl BudgetGrader {
    /// The value of `limit`, when the grader sets it.
    pub fn max_of(&self, limit: Limit) -> Option<u64> {
        match limit {
            Limit::Calls => self.max_calls,
            Limit::Steps => self.max_steps,
            Limit::Errors => self.max_errors,
            Limit::Repeats => self.max_repeats,
            Limit::PerTool(index) => self.per_tool.get(index).map(|limit| limit.max),
        }
    }

    /// Grades one run; every call counts, completed or not.
    pub fn grade(&self, run: &Run) -> RunBudget {
        self.grade_as(run, Detail::Full)
    }

    /// [`grade`](Self::grade), to the `detail` given: without it, no call named.
    pub fn grade_as(&self, run: &Run, detail: Detail) -> RunBudget {
        let calls = &run.calls;
        let mut turns: Vec<u32> = calls.iter().map(|call| call.step).collect();
        turns.sort_unstable();
        turns.dedup();
        let errors = calls
            .iter()
            .filter(|call| call.status == Status::Error)
            .count() as u64;
        let (repeats, first_repeat) = repeats(calls);
        let per_tool: Vec<u64> = self
            .per_tool
            .iter()
            .map(|limit| calls.iter().filter(|call| limit.step.matches(call)).count() as u64)
            .collect();
        let counts = [
            (Limit::Calls, calls.len() as u64),
            (Limit::Steps, turns.len() as u64),
            (Limit::Errors, errors),
            (Limit::Repeats, repeats),
        ]
        .into_iter()
        .chain(
            per_tool
                .iter()
                .enumerate()
                .map(|(index, count)| (Limit::PerTool(index), *count)),
        );
        let exceeded: Vec<Exceeded> = counts
            .filter_map(|(limit, count)| {
                let max = self.max_of(limit)?;
                (count > max).then_some(Exceeded { limit, count, max })
            })
            .collect();
        RunBudget {
            weighed: self.optimal_calls.map_or(calls.len() as u64, |optimal| {
                optimal.max(calls.len() as u64)
            }),
            passed: exceeded.is_empty(),
            calls: calls.len() as u64,
            steps: turns.len() as u64,
            errors,
            repeats,
            per_tool,
            exceeded,
            first_repeat: match detail {
                Detail::Full => first_repeat.map(|(call, earlier)| {
                    let made = &calls[call];
                    (
                        CalledTool {
                            call: call + 1,
                            tool: ToolId::new(made.server.clone(), made.name.clone()),
                        },
                        earlier + 1,
                    )
                }),
                Detail::Counts => None,
            },
        }
    }
}

/// The calls of a run identical to an earlier one (same tool, arguments equal as call
/// arguments are: keys in any order, numbers by value), and the first such call with the
/// earlier call it repeats, by position.
///
/// Each call is looked up by its tool and its arguments' [equality
/// key](trailgate_trace::ValueRef::equality_key), which equal arguments share and unequal
/// ones do not: one map lookup per call, whatever the run's length.
fn repeats(calls: &[Call]) -> (u64, Option<(usize, usize)>) {
    type Key<'c> = (Option<&'c str>, &'c str, Cow<'c, str>);
    // Keyed by the trace's text, so hashed with a randomly seeded hash (`foldhash`, fast
    // on long keys); only looked up, never listed, so its order cannot reach a report.
    #[allow(clippy::disallowed_types)]
    let mut seen: std::collections::HashMap<Key<'_>, usize, foldhash::fast::RandomState> =
        std::collections::HashMap::with_capacity_and_hasher(
            calls.len(),
            foldhash::fast::RandomState::default(),
        );
    let mut count = 0;
    let mut first = None;
    for (index, call) in calls.iter().enumerate() {
        let key = (
            call.server.as_deref(),
            call.name.as_str(),
            call.args.equality_key(),
        );
        match seen.entry(key) {
            Entry::Occupied(earlier) => {
                count += 1;
                first.get_or_insert((index, *earlier.get()));
            }
            Entry::Vacant(slot) => {
                slot.insert(index);
            }
        }
    }
    (count, first)
}

/// The grader's verdict over all runs of a test.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BudgetOutcome {
    /// The limits as written: `(key, value)`, in the order of the keys.
    pub limits: Vec<(&'static str, u64)>,
    /// The `max_calls_per_tool` entries as reports show them, with their `max`.
    pub per_tool: Vec<(String, u64)>,
    /// `optimal_calls`.
    pub optimal_calls: Option<u64>,
    /// Each listed run, in run order (see [`TestOutcome`](crate::TestOutcome)).
    pub runs: Vec<RunBudget>,
    /// The runs within every limit.
    pub passing_runs: u64,
    /// With `optimal_calls` N: Σ max(N, calls) over the runs.
    pub weighed_calls: u64,
    /// `budget.pass_rate`.
    pub pass_rate: Percent,
    /// `budget.efficiency`, with `optimal_calls`.
    pub efficiency: Option<Percent>,
}

impl BudgetOutcome {
    /// `budget.pass_rate`: the share of runs within every limit, rounded down.
    pub fn pass_rate_of(passing: u64, runs: u64) -> Percent {
        Percent::floor_of(passing, runs)
    }

    /// `budget.efficiency`: floor(100 × N·runs / Σ max(N, calls)); every run counts at
    /// least N calls, so the denominator is 0 only with no run.
    pub fn efficiency_of(optimal: u64, runs: u64, weighed: u64) -> Percent {
        Percent::floor_of(optimal.saturating_mul(runs), weighed)
    }

    /// The outcome over `runs` runs from the sums, listing `listed`.
    pub(crate) fn new(
        grader: &BudgetGrader,
        listed: Vec<RunBudget>,
        (passing_runs, weighed_calls): (u64, u64),
        runs: u64,
    ) -> Self {
        let limits = [
            ("max_calls", grader.max_calls),
            ("max_steps", grader.max_steps),
            ("max_errors", grader.max_errors),
            ("max_repeats", grader.max_repeats),
        ]
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
        .collect();
        Self {
            limits,
            per_tool: grader
                .per_tool
                .iter()
                .map(|limit| (limit.step.to_string(), limit.max))
                .collect(),
            optimal_calls: grader.optimal_calls,
            runs: listed,
            passing_runs,
            weighed_calls,
            pass_rate: Self::pass_rate_of(passing_runs, runs),
            efficiency: grader
                .optimal_calls
                .map(|optimal| Self::efficiency_of(optimal, runs, weighed_calls)),
        }
    }

    /// How a report names a limit: its key, or the tool of a `max_calls_per_tool` entry.
    pub fn limit_name(&self, limit: Limit) -> String {
        match limit {
            Limit::Calls => "max_calls".to_owned(),
            Limit::Steps => "max_steps".to_owned(),
            Limit::Errors => "max_errors".to_owned(),
            Limit::Repeats => "max_repeats".to_owned(),
            Limit::PerTool(index) => format!(
                "max_calls_per_tool {}",
                self.per_tool
                    .get(index)
                    .map_or("", |(step, _)| step.as_str())
            ),
        }
    }
}

mod explain;
mod grader;
pub(crate) mod json;
pub(crate) mod recheck;

#[cfg(test)]
mod tests;
