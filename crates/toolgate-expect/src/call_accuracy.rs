//! The `call-accuracy` grader: expected calls with their arguments, paired with the calls a
//! run made (SPEC section 9).

use serde_json::Value;
use toolgate_core::{AccuracyCounts, AccuracyMetrics, ToolId, ToolRef, pair_calls};
use toolgate_trace::{LazyValue, Run, ValueRef};

use crate::evaluate::{CalledTool, Detail};
use crate::model::Gate;
use crate::tool_matcher::ToolMatcher;

/// One expected call: a tool (a member, a class or a server, SPEC section 12) and its
/// arguments.
#[derive(Debug, Clone)]
pub struct ExpectedCall {
    /// The tool.
    pub tool: ToolMatcher,
    /// The arguments, an object.
    pub args: Value,
}

/// A test's `call-accuracy` grader, checked.
#[derive(Debug, Clone)]
pub struct CallAccuracyGrader {
    /// The expected calls, in order.
    pub expected: Vec<ExpectedCall>,
    /// The gates on `call_accuracy.*`.
    pub gates: Vec<Gate>,
}

/// An expected call paired with a call of the same tool but other arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// The expected call's position in `expected`, from 0.
    pub expected: usize,
    /// The call it was paired with.
    pub call: CalledTool,
    /// The call's arguments, parsed when first looked at.
    pub args: LazyValue,
    /// The argument names whose values differ or that only one side has, sorted; empty
    /// when either side is not an object.
    pub differing: Vec<String>,
}

/// The grader's verdict on one run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunAccuracy {
    /// Expected calls made with equal arguments: the expected position and the call.
    pub correct: Vec<(usize, CalledTool)>,
    /// Expected calls made with other arguments.
    pub incorrect: Vec<Mismatch>,
    /// How many expected calls were made with other arguments: the length of
    /// `incorrect`, also when the outcome was built without it ([`Detail::Counts`]).
    pub mismatched: usize,
    /// Expected calls not made, by position.
    pub missed: Vec<usize>,
    /// Calls paired with nothing expected, in trace order.
    pub extra: Vec<CalledTool>,
    /// The run's counts.
    pub counts: AccuracyCounts,
    /// The run's metrics.
    pub metrics: AccuracyMetrics,
}

impl CallAccuracyGrader {
    /// Grades one run; every call counts, completed or not.
    pub fn grade(&self, run: &Run) -> RunAccuracy {
        self.grade_as(run, Detail::Full)
    }

    /// [`grade`](Self::grade), to the `detail` given: without it, the pairs and extra
    /// calls are not listed, only counted.
    pub fn grade_as(&self, run: &Run, detail: Detail) -> RunAccuracy {
        let calls = &run.calls;
        let pairing = pair_calls(
            self.expected.len(),
            calls.len(),
            |e, a| {
                let call = &calls[a];
                (self.expected[e].tool).matches(ToolRef::new(call.server.as_deref(), &call.name))
            },
            // Compared on the arguments' text, which is not parsed for it.
            |e, a| calls[a].args_view().equals(&self.expected[e].args),
        );
        // Only the calls the verdict names are copied.
        let called = |a: usize| CalledTool {
            call: a + 1,
            tool: ToolId::new(calls[a].server.clone(), calls[a].name.clone()),
        };
        let counts = AccuracyCounts::of(&pairing, self.expected.len(), calls.len());
        let mismatched = pairing.incorrect.len();
        if detail == Detail::Counts {
            return RunAccuracy {
                correct: Vec::new(),
                incorrect: Vec::new(),
                mismatched,
                missed: Vec::new(),
                extra: Vec::new(),
                counts,
                metrics: counts.metrics(),
            };
        }
        RunAccuracy {
            mismatched,
            correct: pairing
                .correct
                .iter()
                .map(|&(e, a)| (e, called(a)))
                .collect(),
            incorrect: pairing
                .incorrect
                .iter()
                .map(|&(e, a)| Mismatch {
                    expected: e,
                    call: called(a),
                    args: calls[a].args.clone(),
                    differing: differing_keys_of(&self.expected[e].args, calls[a].args_view()),
                })
                .collect(),
            missed: pairing.missed,
            extra: pairing.extra.iter().map(|&a| called(a)).collect(),
            counts,
            metrics: counts.metrics(),
        }
    }
}

/// The keys of two objects whose values differ, or that only one of them has, sorted.
pub fn differing_keys(expected: &Value, actual: &Value) -> Vec<String> {
    differing_keys_of(expected, ValueRef::parsed(actual))
}

/// [`differing_keys`] of arguments read as a view, which need not be parsed.
pub fn differing_keys_of(expected: &Value, actual: ValueRef<'_>) -> Vec<String> {
    let (Value::Object(expected), Some(actual)) = (expected, actual.members()) else {
        return Vec::new();
    };
    // Both sides are sorted by key, each key once: merge them.
    let mut keys = Vec::new();
    let mut actual = actual.into_iter().peekable();
    for (key, value) in expected {
        while let Some((name, _)) = actual.next_if(|(name, _)| **name < **key) {
            keys.push(name.into_owned());
        }
        match actual.next_if(|(name, _)| **name == **key) {
            Some((_, read)) if read.equals(value) => {}
            _ => keys.push(key.clone()),
        }
    }
    keys.extend(actual.map(|(name, _)| name.into_owned()));
    keys
}

/// The grader's verdict over all runs of a test.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CallAccuracyOutcome {
    /// The expected calls: the tool as written and the arguments.
    pub expected: Vec<(String, Value)>,
    /// Each listed run, in run order (see [`TestOutcome`](crate::TestOutcome)).
    pub runs: Vec<RunAccuracy>,
    /// The counts summed over the runs (micro-average).
    pub counts: AccuracyCounts,
    /// Expected calls made with other arguments, summed over the runs.
    pub incorrect: u64,
    /// The metrics of the summed counts.
    pub metrics: AccuracyMetrics,
}

impl CallAccuracyOutcome {
    /// Expected calls not made, summed over the runs: each expected call is correct,
    /// incorrect or missed.
    pub fn missed(&self) -> u64 {
        self.counts
            .expected
            .saturating_sub(self.counts.correct + self.incorrect)
    }

    /// Calls paired with nothing expected, summed over the runs: each call made is correct,
    /// incorrect or extra.
    pub fn extra(&self) -> u64 {
        self.counts
            .actual
            .saturating_sub(self.counts.correct + self.incorrect)
    }

    /// The outcome with `counts` and the `incorrect` calls summed over every run, listing
    /// `listed`.
    pub(crate) fn new(
        grader: &CallAccuracyGrader,
        listed: Vec<RunAccuracy>,
        counts: AccuracyCounts,
        incorrect: u64,
    ) -> Self {
        Self {
            incorrect,
            expected: grader
                .expected
                .iter()
                .map(|call| (call.tool.to_string(), call.args.clone()))
                .collect(),
            runs: listed,
            counts,
            metrics: counts.metrics(),
        }
    }
}
