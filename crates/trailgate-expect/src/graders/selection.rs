//! The equal-function-set block: which classes of interchangeable tools a run satisfied,
//! and its precision, recall and F1 (docs/scoring.md). The suite writes it outside
//! `graders:`, but it is a grader like the others.

pub(crate) mod config;
mod suggest;

use trailgate_core::{
    CallOutcome, ClassIndex, ClassName, ClassSet, Counts, SelectionMetrics, Selector, ToolId,
};
use trailgate_trace::Run;

use crate::gate::{Gate, Target};
use crate::run::{CalledTool, Detail};

/// `tool_selection.precision`.
pub(crate) const PRECISION: Target = Target::new("tool_selection.precision");
/// `tool_selection.recall`.
pub(crate) const RECALL: Target = Target::new("tool_selection.recall");
/// `tool_selection.f1`.
pub(crate) const F1: Target = Target::new("tool_selection.f1");

/// The equal-function-set block of a test.
#[derive(Debug, Clone)]
pub struct EqualFunctionSets {
    /// The classes, checked and indexed.
    pub classes: ClassSet,
    /// The gates; the block's default gate when the suite wrote none.
    pub gates: Vec<Gate>,
}

/// What the equal-function-set block found in one run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunSelectionOutcome {
    /// For each class in declaration order, the call that satisfied it.
    pub satisfied_by: Vec<Option<CalledTool>>,
    /// Calls that satisfied no class and repeat none (false positives), in trace order.
    pub unexpected: Vec<CalledTool>,
    /// Calls that repeat a satisfied class, with that class, in trace order.
    pub repeats: Vec<(CalledTool, ClassIndex)>,
    /// The run's counts.
    pub counts: Counts,
    /// The run's metrics.
    pub metrics: SelectionMetrics,
}

/// What the equal-function-set block found over all runs of a test.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SelectionOutcome {
    /// The class names, in declaration order.
    pub classes: Vec<ClassName>,
    /// Each listed run, in run order (see [`TestOutcome`]).
    pub runs: Vec<RunSelectionOutcome>,
    /// For each class in declaration order, how many runs missed it.
    pub missed_runs: Vec<u64>,
    /// The counts summed over the runs.
    pub counts: Counts,
    /// The metrics of the summed counts (micro-average).
    pub metrics: SelectionMetrics,
}

/// The equal-function-set block's findings in one run. Equal-function sets count every
/// call, completed or not (docs/suite.md#trace-files).
pub(crate) fn select(efs: &EqualFunctionSets, run: &Run, detail: Detail) -> RunSelectionOutcome {
    let mut selector = Selector::with_capacity(&efs.classes, run.calls.len());
    for call in &run.calls {
        selector.push_ref(trailgate_core::ToolRef::new(
            call.server.as_deref(),
            &call.name,
        ));
    }
    let selection = selector.finish();
    // Only the calls the outcome names are copied.
    let called = |index: usize| {
        let call = &run.calls[index];
        CalledTool {
            call: index + 1,
            tool: ToolId::new(call.server.clone(), call.name.clone()),
        }
    };
    let mut unexpected = Vec::new();
    let mut repeats = Vec::new();
    // Only an outcome a report may list names the unexpected and repeated calls.
    let listed = selection
        .calls
        .iter()
        .take_while(|_| detail == Detail::Full);
    for (index, outcome) in listed.enumerate() {
        match *outcome {
            CallOutcome::Unexpected => unexpected.push(called(index)),
            CallOutcome::Repeat(class) => repeats.push((called(index), class)),
            // Satisfying calls are listed under their class; `CallOutcome` may grow, and a
            // call of a kind unknown here is listed nowhere.
            _ => {}
        }
    }
    RunSelectionOutcome {
        satisfied_by: selection
            .satisfied_by
            .iter()
            .map(|call| call.map(called))
            .collect(),
        unexpected,
        repeats,
        counts: selection.counts,
        metrics: selection.counts.metrics(),
    }
}

mod explain;
mod grader;
pub(crate) mod json;
pub(crate) mod recheck;
