//! The `errors` grader: how often a run's calls failed, and how often the agent recovered
//! from a failure with a later successful call of the same tool (docs/graders/errors.md).

pub(crate) mod config;
mod suggest;

use std::collections::BTreeMap;

use trailgate_core::{Member, Percent, ToolId, ToolRef};
use trailgate_trace::{Call, Run, Status};

use crate::gate::{Gate, Target};
use crate::run::{CalledTool, Detail};

/// `errors.rate`.
pub(crate) const RATE: Target = Target::new("errors.rate");
/// `errors.recovery`.
pub(crate) const RECOVERY: Target = Target::new("errors.recovery");

/// A test's `errors` grader, checked. Its default has no class and no gate: it only counts.
#[derive(Debug, Clone, Default)]
pub struct ErrorsGrader {
    /// The members of each equal-function class of the test: a failed call is also
    /// recovered by a later successful call of any member of a class it belongs to.
    pub classes: Vec<Vec<Member>>,
    /// The gates on `errors.*` (there is no default: `expect:` is required).
    pub gates: Vec<Gate>,
}

/// Calls, failed calls and recovered failures: of a run, of one tool, summed over runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ErrorCounts {
    /// Calls.
    pub calls: u64,
    /// Calls with status `error`.
    pub errors: u64,
    /// Failed calls followed by a successful call of the same tool (or class).
    pub recovered: u64,
}

impl ErrorCounts {
    /// `errors.rate`: failed calls over calls, rounded down; 0 with no call.
    pub fn rate(self) -> Percent {
        Percent::floor_of(self.errors, self.calls)
    }

    /// `errors.recovery`: recovered over failed calls, rounded down; 100 with no failure.
    pub fn recovery(self) -> Percent {
        if self.errors == 0 {
            Percent::FULL
        } else {
            Percent::floor_of(self.recovered, self.errors)
        }
    }
}

impl std::ops::AddAssign for ErrorCounts {
    fn add_assign(&mut self, other: Self) {
        self.calls = self.calls.saturating_add(other.calls);
        self.errors = self.errors.saturating_add(other.errors);
        self.recovered = self.recovered.saturating_add(other.recovered);
    }
}

/// The grader's verdict on one run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunErrors {
    /// The run's counts.
    pub counts: ErrorCounts,
    /// The counts per tool id (`server.name`), in the order of the ids' text.
    pub per_tool: Vec<(String, ErrorCounts)>,
    /// The first failed call never recovered (not for [`Detail::Counts`]).
    pub unrecovered: Option<CalledTool>,
}

impl ErrorsGrader {
    /// Whether a successful call of `later` recovers a failed call of `failed`.
    fn recovers(&self, failed: ToolRef<'_>, later: ToolRef<'_>) -> bool {
        (failed.server() == later.server() && failed.name() == later.name())
            || self.classes.iter().any(|members| {
                members.iter().any(|m| m.matches_ref(failed))
                    && members.iter().any(|m| m.matches_ref(later))
            })
    }

    /// Grades one run; every call counts, completed or not.
    pub fn grade(&self, run: &Run) -> RunErrors {
        self.grade_as(run, Detail::Full)
    }

    /// [`grade`](Self::grade), to the `detail` given: without it, no call named.
    pub fn grade_as(&self, run: &Run, detail: Detail) -> RunErrors {
        let calls = &run.calls;
        let mut per_tool: BTreeMap<String, ErrorCounts> = BTreeMap::new();
        let mut counts = ErrorCounts::default();
        let mut unrecovered = None;
        // Walked from the end, the successful calls seen so far are the later ones.
        let mut later_ok: Vec<usize> = Vec::new();
        let mut verdicts = vec![None; calls.len()];
        for (index, call) in calls.iter().enumerate().rev() {
            if call.status == Status::Error {
                let recovered = later_ok
                    .iter()
                    .any(|&ok| self.recovers(tool_ref(call), tool_ref(&calls[ok])));
                verdicts[index] = Some(recovered);
            } else if call.status == Status::Ok
                && !later_ok
                    .iter()
                    .any(|&ok| calls[ok].server == call.server && calls[ok].name == call.name)
            {
                // One successful call per tool is enough to know what it recovers.
                later_ok.push(index);
            }
        }
        for (index, call) in calls.iter().enumerate() {
            let tool = ToolId::new(call.server.clone(), call.name.clone()).to_string();
            let entry = per_tool.entry(tool).or_default();
            let one = ErrorCounts {
                calls: 1,
                errors: u64::from(verdicts[index].is_some()),
                recovered: u64::from(verdicts[index] == Some(true)),
            };
            *entry += one;
            counts += one;
            if verdicts[index] == Some(false) && unrecovered.is_none() && detail == Detail::Full {
                unrecovered = Some(CalledTool {
                    call: index + 1,
                    tool: ToolId::new(call.server.clone(), call.name.clone()),
                });
            }
        }
        RunErrors {
            counts,
            per_tool: per_tool.into_iter().collect(),
            unrecovered,
        }
    }
}

/// The tool id a call names.
fn tool_ref(call: &Call) -> ToolRef<'_> {
    ToolRef::new(call.server.as_deref(), &call.name)
}

/// The grader's verdict over all runs of a test.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ErrorsOutcome {
    /// Each listed run, in run order (see [`TestOutcome`](crate::TestOutcome)).
    pub runs: Vec<RunErrors>,
    /// The counts summed over the runs.
    pub counts: ErrorCounts,
    /// The counts per tool id summed over the runs, in the order of the ids' text.
    pub per_tool: Vec<(String, ErrorCounts)>,
    /// `errors.rate`.
    pub rate: Percent,
    /// `errors.recovery`.
    pub recovery: Percent,
}

impl ErrorsOutcome {
    /// The outcome from the sums, listing `listed`.
    pub(crate) fn new(
        listed: Vec<RunErrors>,
        counts: ErrorCounts,
        per_tool: BTreeMap<String, ErrorCounts>,
    ) -> Self {
        Self {
            runs: listed,
            counts,
            per_tool: per_tool.into_iter().collect(),
            rate: counts.rate(),
            recovery: counts.recovery(),
        }
    }
}

mod explain;
mod grader;
pub(crate) mod json;
pub(crate) mod recheck;
