//! The toolgate suite language: tests, equal-function classes, expectations, and the
//! evaluation of a test over its runs.
//!
//! [`SuiteFile::parse`] turns YAML into a checked [`Suite`], or a [`SuiteError`] that
//! points into the file. A [`TestEvaluator`] scores a test's runs one at a time and gates
//! the aggregate. Finding and reading trace files is the caller's job.

mod call_accuracy;
mod error;
mod evaluate;
mod matchers;
mod model;
mod parse;
mod tool_calls;
mod tool_correctness;
mod tool_matcher;
mod yaml_depth;

pub use crate::call_accuracy::{
    ArgumentCounts, CallAccuracyGrader, CallAccuracyOutcome, ExpectedCall, Mismatch, RunAccuracy,
    differing_keys, differing_keys_of,
};
pub use crate::error::{Problem, SuiteError, SuiteSource};
pub use crate::evaluate::{
    CalledTool, Detail, GateOutcome, LISTED_RUNS, RunInfo, RunOutcome, RunSelectionOutcome,
    RunSource, SelectionOutcome, SuiteOutcome, TestEvaluator, TestOutcome, grade_run, grade_run_as,
};
pub use crate::matchers::{ArgsMode, SHOWN_CHARS, ValueMatcher, ValueMismatch};
pub use crate::model::{
    Block, EqualFunctionSets, Gate, Op, Shard, ShardError, Suite, Target, Test, TracePattern, slug,
};
pub use crate::parse::{MAX_SUITE_BYTES, MAX_YAML_NODES, PathSeg, SuiteFile, suite_schema};
pub use crate::tool_calls::{
    MatchList, Miss, MissingArgument, MissingArguments, NearMiss, RequiredMatch, RunToolCalls,
    ToolCallsGrader, ToolCallsOutcome, ToolCallsTotals, ToolMatch, Unmet, Violation,
    missing_argument_problems, result_text,
};
pub use crate::tool_correctness::{RunCorrectness, ToolCorrectnessGrader, ToolCorrectnessOutcome};
pub use crate::tool_matcher::{ClassTools, Pattern, ToolMatcher};
pub use crate::yaml_depth::MAX_YAML_DEPTH;

#[cfg(test)]
mod tests;
