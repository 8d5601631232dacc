//! A test's part of the JSON report, grader by grader: what each grader's run entries name,
//! the entries of a run, and each grader's object.

use std::io;

use crate::evaluate::{RunOutcome, TestOutcome};
use crate::graders::budget::json::{self as budget, BudgetNames};
use crate::graders::budget::{BudgetGrader, BudgetOutcome};
use crate::graders::call_accuracy::json::{self as accuracy, AccuracyNames};
use crate::graders::call_accuracy::{CallAccuracyGrader, CallAccuracyOutcome};
use crate::graders::dependencies::json::{self as dependencies, DependenciesNames};
use crate::graders::dependencies::{DependenciesGrader, DependenciesOutcome};
use crate::graders::errors::json::{self as errors, ErrorsNames};
use crate::graders::errors::{ErrorsGrader, ErrorsOutcome};
use crate::graders::selection::json::{self as selection, SelectionNames};
use crate::graders::selection::{EqualFunctionSets, SelectionOutcome};
use crate::graders::tool_calls::json::{self as tool_calls, ToolCallsNames};
use crate::graders::tool_calls::{ToolCallsGrader, ToolCallsOutcome};
use crate::graders::tool_correctness::json::{self as correctness, CorrectnessNames};
use crate::graders::tool_correctness::{ToolCorrectnessGrader, ToolCorrectnessOutcome};
use crate::graders::trajectory::json::{self as trajectory, TrajectoryNames};
use crate::graders::trajectory::{TrajectoryGrader, TrajectoryOutcome};
use crate::json_part::{Entries, JsonPart};
use crate::model::Test;
use crate::run::RunInfo;

/// What a test's run entries name (its classes, its `tool-calls` entries, its expected
/// tools and calls), per grader: taken from the suite's test before its runs are scored,
/// or from its outcome.
#[derive(Debug, Clone, Default)]
pub struct JsonContext {
    selection: SelectionNames,
    tool_calls: ToolCallsNames,
    correctness: CorrectnessNames,
    accuracy: AccuracyNames,
    trajectory: TrajectoryNames,
    budget: BudgetNames,
    errors: ErrorsNames,
    dependencies: DependenciesNames,
}

impl JsonContext {
    /// The names of `test`'s graders.
    pub fn of_test(test: &Test) -> Self {
        Self {
            selection: test
                .equal_function_sets
                .as_ref()
                .map(EqualFunctionSets::json_names)
                .unwrap_or_default(),
            tool_calls: test
                .tool_calls
                .as_ref()
                .map(ToolCallsGrader::json_names)
                .unwrap_or_default(),
            correctness: test
                .tool_correctness
                .as_ref()
                .map(ToolCorrectnessGrader::json_names)
                .unwrap_or_default(),
            accuracy: test
                .call_accuracy
                .as_ref()
                .map(CallAccuracyGrader::json_names)
                .unwrap_or_default(),
            trajectory: test
                .trajectory
                .as_ref()
                .map(TrajectoryGrader::json_names)
                .unwrap_or_default(),
            budget: test
                .budget
                .as_ref()
                .map(BudgetGrader::json_names)
                .unwrap_or_default(),
            errors: test
                .errors
                .as_ref()
                .map(ErrorsGrader::json_names)
                .unwrap_or_default(),
            dependencies: test
                .dependencies
                .as_ref()
                .map(DependenciesGrader::json_names)
                .unwrap_or_default(),
        }
    }

    /// The names an outcome's graders carry.
    pub fn of_outcome(test: &TestOutcome) -> Self {
        Self {
            selection: test
                .selection
                .as_ref()
                .map(SelectionOutcome::json_names)
                .unwrap_or_default(),
            tool_calls: test
                .tool_calls
                .as_ref()
                .map(ToolCallsOutcome::json_names)
                .unwrap_or_default(),
            correctness: test
                .tool_correctness
                .as_ref()
                .map(ToolCorrectnessOutcome::json_names)
                .unwrap_or_default(),
            accuracy: test
                .call_accuracy
                .as_ref()
                .map(CallAccuracyOutcome::json_names)
                .unwrap_or_default(),
            trajectory: test
                .trajectory
                .as_ref()
                .map(TrajectoryOutcome::json_names)
                .unwrap_or_default(),
            budget: test
                .budget
                .as_ref()
                .map(BudgetOutcome::json_names)
                .unwrap_or_default(),
            errors: test
                .errors
                .as_ref()
                .map(ErrorsOutcome::json_names)
                .unwrap_or_default(),
            dependencies: test
                .dependencies
                .as_ref()
                .map(DependenciesOutcome::json_names)
                .unwrap_or_default(),
        }
    }
}

/// One run's verdicts, by grader, as the entries are written from them.
struct RunParts<'a> {
    info: &'a RunInfo,
    selection: Option<&'a crate::RunSelectionOutcome>,
    tool_calls: Option<&'a crate::RunToolCalls>,
    correctness: Option<&'a crate::RunCorrectness>,
    accuracy: Option<&'a crate::RunAccuracy>,
    trajectory: Option<&'a crate::RunTrajectory>,
    budget: Option<&'a crate::RunBudget>,
    errors: Option<&'a crate::RunErrors>,
    dependencies: Option<&'a crate::RunDependencies>,
}

impl RunParts<'_> {
    fn write(&self, context: &JsonContext, entries: &mut Entries<'_>) -> io::Result<()> {
        if let Some(run) = self.selection {
            selection::write_entries(&context.selection, self.info, run, entries)?;
        }
        if let Some(run) = self.tool_calls {
            tool_calls::write_entries(&context.tool_calls, self.info, run, entries)?;
        }
        if let Some(run) = self.correctness {
            correctness::write_entries(&context.correctness, self.info, run, entries)?;
        }
        if let Some(run) = self.accuracy {
            accuracy::write_entries(&context.accuracy, self.info, run, entries)?;
        }
        if let Some(run) = self.trajectory {
            trajectory::write_entries(&context.trajectory, self.info, run, entries)?;
        }
        if let Some(run) = self.budget {
            budget::write_entries(&context.budget, self.info, run, entries)?;
        }
        if let Some(run) = self.errors {
            errors::write_entries(&context.errors, self.info, run, entries)?;
        }
        if let Some(run) = self.dependencies {
            dependencies::write_entries(&context.dependencies, self.info, run, entries)?;
        }
        Ok(())
    }
}

impl RunOutcome {
    /// Writes the run's entries of every grader's run-sized lists.
    pub fn write_json_entries(
        &self,
        context: &JsonContext,
        entries: &mut Entries<'_>,
    ) -> io::Result<()> {
        RunParts {
            info: &self.info,
            selection: self.selection.as_ref(),
            tool_calls: self.tool_calls.as_ref(),
            correctness: self.tool_correctness.as_ref(),
            accuracy: self.call_accuracy.as_ref(),
            trajectory: self.trajectory.as_ref(),
            budget: self.budget.as_ref(),
            errors: self.errors.as_ref(),
            dependencies: self.dependencies.as_ref(),
        }
        .write(context, entries)
    }
}

impl TestOutcome {
    /// Writes the entries of every grader's run-sized lists for the listed run at `index`
    /// (of [`runs`](Self::runs)).
    pub fn write_listed_json_entries(
        &self,
        index: usize,
        context: &JsonContext,
        entries: &mut Entries<'_>,
    ) -> io::Result<()> {
        let Some(info) = self.runs.get(index) else {
            return Ok(());
        };
        RunParts {
            info,
            selection: self.selection.as_ref().and_then(|s| s.runs.get(index)),
            tool_calls: self.tool_calls.as_ref().and_then(|t| t.runs.get(index)),
            correctness: self
                .tool_correctness
                .as_ref()
                .and_then(|t| t.runs.get(index)),
            accuracy: self.call_accuracy.as_ref().and_then(|a| a.runs.get(index)),
            trajectory: self.trajectory.as_ref().and_then(|t| t.runs.get(index)),
            budget: self.budget.as_ref().and_then(|b| b.runs.get(index)),
            errors: self.errors.as_ref().and_then(|e| e.runs.get(index)),
            dependencies: self.dependencies.as_ref().and_then(|d| d.runs.get(index)),
        }
        .write(context, entries)
    }

    /// Each grader's object in the test's JSON, in report order.
    pub fn json_parts(&self) -> Vec<JsonPart> {
        let mut parts = Vec::new();
        parts.extend(self.selection.as_ref().map(SelectionOutcome::json_part));
        parts.extend(self.tool_calls.as_ref().map(ToolCallsOutcome::json_part));
        parts.extend(
            self.tool_correctness
                .as_ref()
                .map(ToolCorrectnessOutcome::json_part),
        );
        parts.extend(
            self.call_accuracy
                .as_ref()
                .map(CallAccuracyOutcome::json_part),
        );
        parts.extend(self.trajectory.as_ref().map(TrajectoryOutcome::json_part));
        parts.extend(self.budget.as_ref().map(BudgetOutcome::json_part));
        parts.extend(self.errors.as_ref().map(ErrorsOutcome::json_part));
        parts.extend(
            self.dependencies
                .as_ref()
                .map(DependenciesOutcome::json_part),
        );
        parts
    }
}
