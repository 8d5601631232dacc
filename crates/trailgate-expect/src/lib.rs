//! The trailgate suite language: tests, equal-function classes, expectations, and the
//! evaluation of a test over its runs.
//!
//! [`SuiteFile::parse`] turns YAML into a checked [`Suite`], or a [`SuiteError`] that
//! points into the file. A [`TestEvaluator`] scores a test's runs one at a time and gates
//! the aggregate. Finding and reading trace files is the caller's job.

mod agents;
mod decimal;
mod error;
mod evaluate;
mod expect;
mod gate;
mod graders;
mod json_part;
mod matchers;
mod memo;
mod metric_value;
mod model;
mod observed;
mod parse;
mod pattern;
mod prices;
mod reading;
mod recheck;
mod reliability;
mod run;
mod schema;
mod section;
mod shard_test;
mod stability;
mod step_matcher;
mod suggest;
mod suite_file;
mod test_json;
mod tool_matcher;
mod verdict;
mod work;
mod yaml_depth;

pub use crate::agents::{AgentRow, AgentTable};
pub use crate::error::{Problem, SuiteError, SuiteSource};
pub use crate::evaluate::{
    Outcomes, RunGrades, RunOutcome, SuiteOutcome, TestEvaluator, TestOutcome, UnjudgedCalls,
    Unscorable, grade_run, grade_run_as,
};
pub use crate::gate::{
    Baseline, BaselineOffset, BaselineUse, Gate, GateOutcome, GateValue, Op, Target, names_percent,
};
pub use crate::graders::budget::{
    Amount, BudgetGrader, BudgetOutcome, Cost, Exceeded, Lack, Limit, Loop, Price, Prices,
    RunBudget, ToolLimit,
};
pub use crate::graders::call_accuracy::{
    ArgumentCounts, CallAccuracyGrader, CallAccuracyOutcome, ExpectedCall, Mismatch, RunAccuracy,
    differing_keys, differing_keys_of,
};
pub use crate::graders::contract::{ToolMarks, Unjudged};
pub use crate::graders::dependencies::{
    DependenciesGrader, DependenciesOutcome, Edge, EdgeCounts, EdgeFailure, EdgeVerdict,
    RunDependencies,
};
pub use crate::graders::errors::{ErrorCounts, ErrorsGrader, ErrorsOutcome, RunErrors};
pub use crate::graders::selection::{EqualFunctionSets, RunSelectionOutcome, SelectionOutcome};
pub use crate::graders::tool_calls::{
    MatchList, Miss, MissingArgument, MissingArguments, NearMiss, RequiredMatch, RunToolCalls,
    ToolCallsGrader, ToolCallsOutcome, ToolCallsTotals, ToolMatch, Unmet, Violation,
};
pub use crate::graders::tool_correctness::{
    RunCorrectness, ToolCorrectnessGrader, ToolCorrectnessOutcome,
};
pub use crate::graders::trajectory::{
    Closest, Difference, Entry, MissingEntry, Mode, RunTrajectory, TrajectoryGrader,
    TrajectoryOutcome,
};
pub use crate::graders::{Block, Graders, JSON_LISTS, LimitWords, Verdicts};
pub use crate::json_part::{Entries, EntrySink, JsonField, JsonPart};
pub use crate::matchers::{ArgsMode, SHOWN_CHARS, ValueMatcher, ValueMismatch};
pub use crate::metric_value::{METRIC_DIGITS, MetricChange, MetricValue};
pub use crate::model::{Shard, ShardError, Suite, Test, TracePattern, slug};
pub use crate::parse::{run_count_problems, suite_schema};
pub use crate::pattern::Pattern;
pub use crate::reading::{MAX_MATCHER_NODES, MAX_SUITE_REGEX_BYTES};
pub use crate::reliability::{ReliabilityBlock, ReliabilityOutcome};
pub use crate::run::{CalledTool, Detail, LISTED_RUNS, RunInfo, RunSource, RunTools, TestRun};
pub use crate::section::{Key, Line, ListedRun, Piece, Row, Section, Tone};
pub use crate::shard_test::{KeptTest, ShardBaseline, ShardGate, ShardTest};
pub use crate::stability::Stability;
pub use crate::step_matcher::{StepMatcher, StepMiss};
pub use crate::suggest::{SuggestNaming, SuggestTest, suggest_suite};
pub use crate::suite_file::{MAX_SUITE_BYTES, MAX_YAML_NODES, PathSeg, SuiteFile};
pub use crate::test_json::JsonContext;
pub use crate::tool_matcher::{AgentMatcher, ClassTools, ToolMatcher};
pub use crate::verdict::{Tally, Verdict};
pub use crate::yaml_depth::MAX_YAML_DEPTH;

#[cfg(test)]
mod tests;
