//! What `merge` reads of one test of a shard report, and the check that its numbers add
//! up: each grader's block checked by the grader's own module (`graders/<kind>/recheck.rs`),
//! the gates and the verdict here.
//!
//! A test may list tens of thousands of runs, so its runs are never collected (see
//! `recheck.rs`). The checks and their messages are the ones a report held whole would
//! give, in the same order.

use std::collections::BTreeMap;

use serde::Deserialize;
use toolgate_core::Percent;

use crate::gate::Op;
use crate::graders::budget::recheck as budget;
use crate::graders::call_accuracy::recheck as call_accuracy;
use crate::graders::dependencies::recheck as dependencies;
use crate::graders::errors::recheck as errors;
use crate::graders::selection::recheck as selection;
use crate::graders::tool_calls::recheck as tool_calls;
use crate::graders::tool_correctness::recheck as tool_correctness;
use crate::graders::trajectory::recheck as trajectory;
use crate::recheck::{Listed, Metrics};

/// What merging needs of a test: its verdict, its gates, and the counts they come from.
#[derive(Debug, Deserialize)]
pub struct ShardTest {
    name: String,
    agent: Option<String>,
    passed: bool,
    runs: usize,
    sources: Listed,
    metrics: BTreeMap<String, u8>,
    gates: Vec<ShardGate>,
    equal_function_sets: Option<selection::SelectionView>,
    tool_calls: Option<tool_calls::ToolCallsView>,
    tool_correctness: Option<tool_correctness::CorrectnessView>,
    call_accuracy: Option<call_accuracy::AccuracyView>,
    trajectory: Option<trajectory::TrajectoryView>,
    budget: Option<budget::BudgetView>,
    errors: Option<errors::ErrorsView>,
    dependencies: Option<dependencies::DependenciesView>,
}

/// What the merged report keeps of a test once its numbers are checked.
#[derive(Debug)]
pub struct KeptTest {
    /// The test's name.
    pub name: String,
    /// Its agent label, when it has one.
    pub agent: Option<String>,
    /// Its verdict.
    pub passed: bool,
    /// How many runs it scored.
    pub runs: usize,
    /// Its gates, in suite order.
    pub gates: Vec<ShardGate>,
}

impl ShardTest {
    /// The test's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Drops what was only read to be checked.
    pub fn keep(self) -> KeptTest {
        KeptTest {
            name: self.name,
            agent: self.agent,
            passed: self.passed,
            runs: self.runs,
            gates: self.gates,
        }
    }
}

/// A gate of a shard report's test, as written.
#[derive(Debug, Deserialize)]
pub struct ShardGate {
    /// The metric compared.
    pub target: String,
    /// The operator.
    pub op: String,
    /// The percent it is compared with.
    pub value: u8,
    /// The metric's value.
    pub actual: u8,
    /// The gate's verdict.
    pub passed: bool,
}

impl ShardTest {
    /// Checks that a test's numbers add up: each aggregate is what its runs' counts give, each
    /// metric what its aggregate gives, each gate's verdict what its operator says of the
    /// metric, and the test's verdict what its gates say.
    pub fn add_up(&self) -> Result<(), String> {
        let view = self;
        let metrics = Metrics(&view.metrics);
        // A shard report lists every run of every block: each list is as long as `runs`.
        for (block, listed) in [
            ("sources", Some(view.sources.0)),
            (
                "equal_function_sets.runs",
                view.equal_function_sets.as_ref().map(|b| b.runs.listed),
            ),
            (
                "tool_calls.runs",
                view.tool_calls.as_ref().map(|b| b.runs.listed),
            ),
            (
                "tool_correctness.runs",
                view.tool_correctness.as_ref().map(|b| b.runs.listed),
            ),
            (
                "call_accuracy.runs",
                view.call_accuracy.as_ref().map(|b| b.runs.listed),
            ),
            (
                "trajectory.runs",
                view.trajectory.as_ref().map(|b| b.runs.listed),
            ),
            ("budget.runs", view.budget.as_ref().map(|b| b.runs.listed)),
            ("errors.runs", view.errors.as_ref().map(|b| b.runs.listed)),
            (
                "dependencies.runs",
                view.dependencies.as_ref().map(|b| b.runs.listed),
            ),
        ] {
            if let Some(listed) = listed
                && listed != view.runs as u64
            {
                return Err(format!(
                    "`{block}` lists {listed} runs but `runs` says {}",
                    view.runs
                ));
            }
        }
        if let Some(efs) = &view.equal_function_sets {
            selection::add_up(efs, &metrics)?;
        }
        if let Some(calls) = &view.tool_calls {
            tool_calls::add_up(calls, &metrics)?;
        }
        if let Some(correctness) = &view.tool_correctness {
            tool_correctness::add_up(correctness, &metrics)?;
        }
        if let Some(accuracy) = &view.call_accuracy {
            call_accuracy::add_up(accuracy, &metrics)?;
        }
        if let Some(path) = &view.trajectory {
            trajectory::add_up(path, &metrics)?;
        }
        if let Some(limits) = &view.budget {
            budget::add_up(limits, &metrics)?;
        }
        if let Some(failures) = &view.errors {
            errors::add_up(failures, &metrics)?;
        }
        if let Some(edges) = &view.dependencies {
            dependencies::add_up(edges, &metrics)?;
        }
        apply_gates(view)
    }
}

/// Applies each gate again to its metric, and the test's verdict to its gates.
fn apply_gates(view: &ShardTest) -> Result<(), String> {
    let mut all = true;
    for gate in &view.gates {
        let label = format!("gate `{} {} {}`", gate.target, gate.op, gate.value);
        let (Some(op), Some(value), Some(actual)) = (
            Op::from_symbol(&gate.op),
            Percent::new(gate.value),
            view.metrics
                .get(&gate.target)
                .copied()
                .and_then(Percent::new),
        ) else {
            return Err(format!("{label} does not name a metric of this test"));
        };
        if actual.value() != gate.actual {
            return Err(format!(
                "{label} compared {} but the metric is {actual}",
                gate.actual
            ));
        }
        let passed = op.holds(actual, value);
        if passed != gate.passed {
            return Err(format!(
                "{label} says {} but {actual} {} {value} is {passed}",
                verdict(gate.passed),
                gate.op
            ));
        }
        all &= passed;
    }
    if all != view.passed {
        return Err(format!(
            "the test says {} but its gates say {}",
            verdict(view.passed),
            verdict(all)
        ));
    }
    Ok(())
}

fn verdict(passed: bool) -> &'static str {
    if passed { "passed" } else { "failed" }
}
