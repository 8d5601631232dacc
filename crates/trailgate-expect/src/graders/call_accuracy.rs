//! The `call-accuracy` grader: expected calls with their arguments, paired with the calls a
//! run made (docs/graders/call-accuracy.md).

pub(crate) mod config;
mod suggest;

use serde_json::Value;
use trailgate_core::{AccuracyCounts, AccuracyMetrics, Percent, ToolId, pair_calls};
use trailgate_trace::{LazyValue, Run, ValueRef};

use crate::gate::{Gate, Target};
use crate::matchers::{ArgsMode, ValueMatcher, ValueMismatch, push_key, shown};
use crate::run::{CalledTool, Detail};
use crate::tool_matcher::ToolMatcher;

/// `call_accuracy.precision`.
pub(crate) const PRECISION: Target = Target::new("call_accuracy.precision");
/// `call_accuracy.recall`.
pub(crate) const RECALL: Target = Target::new("call_accuracy.recall");
/// `call_accuracy.f1`.
pub(crate) const F1: Target = Target::new("call_accuracy.f1");
/// `call_accuracy.arguments`.
pub(crate) const ARGUMENTS: Target = Target::new("call_accuracy.arguments");

/// One expected call: a tool (a member, a class or a server, docs/matchers.md) and its
/// arguments.
#[derive(Debug, Clone)]
pub struct ExpectedCall {
    /// The tool.
    pub tool: ToolMatcher,
    /// The arguments: a map from each argument's name to a literal or an operator
    /// (docs/matchers.md#literals-and-operators).
    pub args: ValueMatcher,
}

/// A test's `call-accuracy` grader, checked.
#[derive(Debug, Clone)]
pub struct CallAccuracyGrader {
    /// The expected calls, in order.
    pub expected: Vec<ExpectedCall>,
    /// How literal objects compare: the same keys, or the expected ones among others.
    pub args_mode: ArgsMode,
    /// Top-level argument names left out of both sides before comparing.
    pub ignore_args: Vec<String>,
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
    /// The first place where the arguments fail the expected ones: which argument, which
    /// matcher, and the value the call had.
    pub why: Option<ValueMismatch>,
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
    /// The expected top-level arguments matched in the calls paired with expected ones, and
    /// the expected top-level arguments of all expected calls: `call_accuracy.arguments`.
    pub arguments: ArgumentCounts,
}

/// Partial credit for arguments (docs/matchers.md): of the expected top-level arguments of
/// every expected call, how many the paired calls matched. Sums add up over runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArgumentCounts {
    /// Expected arguments whose value matched, in correct and incorrect pairs.
    pub matched: u64,
    /// Expected arguments of every expected call, missed ones included.
    pub expected: u64,
}

impl ArgumentCounts {
    /// `call_accuracy.arguments`: matched over expected, rounded down; 100 when nothing was
    /// expected.
    pub fn percent(self) -> Percent {
        if self.expected == 0 {
            Percent::FULL
        } else {
            Percent::floor_of(self.matched, self.expected)
        }
    }
}

impl std::ops::AddAssign for ArgumentCounts {
    fn add_assign(&mut self, other: Self) {
        self.matched = self.matched.saturating_add(other.matched);
        self.expected = self.expected.saturating_add(other.expected);
    }
}

impl CallAccuracyGrader {
    /// Whether `ignore_args` leaves `key` out.
    fn ignored(&self, key: &str) -> bool {
        self.ignore_args.iter().any(|ignored| ignored == key)
    }

    /// The expected top-level arguments of `expected` that count: all but the ignored.
    fn counted_keys(&self, expected: &ExpectedCall) -> u64 {
        expected
            .args
            .object_entries()
            .unwrap_or_default()
            .iter()
            .filter(|(key, _)| !self.ignored(key))
            .count() as u64
    }

    /// Whether a call's arguments match the expected ones. A suite that uses none of the
    /// language compares a literal whole, as it always has: as text when the reader found
    /// the arguments canonical ([`ValueMatcher::literal_equals`]).
    fn args_equal(&self, expected: &ExpectedCall, actual: &LazyValue) -> bool {
        if self.ignore_args.is_empty()
            && self.args_mode == ArgsMode::Exact
            && let Some(equal) = expected.args.literal_equals(actual)
        {
            return equal;
        }
        self.args_match(expected, actual.view())
    }

    /// [`args_equal`](Self::args_equal) past a literal compared whole: each expected
    /// argument by its matcher.
    fn args_match(&self, expected: &ExpectedCall, actual: ValueRef<'_>) -> bool {
        let Some(entries) = expected.args.object_entries() else {
            return expected.args.matches(Some(actual), self.args_mode);
        };
        if !actual.is_object() {
            return false;
        }
        let expected_hold = entries
            .iter()
            .filter(|(key, _)| !self.ignored(key))
            .all(|(key, matcher)| matcher.matches(actual.get(key), self.args_mode));
        expected_hold
            && (self.args_mode == ArgsMode::Subset
                || actual.members().unwrap_or_default().iter().all(|(key, _)| {
                    self.ignored(key) || entries.iter().any(|(name, _)| name == key)
                }))
    }

    /// Of the expected top-level arguments that count, how many the call's arguments match.
    fn keys_matched(&self, expected: &ExpectedCall, actual: ValueRef<'_>) -> u64 {
        let entries = expected.args.object_entries().unwrap_or_default();
        entries
            .iter()
            .filter(|(key, matcher)| {
                !self.ignored(key) && matcher.matches(actual.get(key), self.args_mode)
            })
            .count() as u64
    }

    /// The first place, in key order, where a call's arguments fail the expected ones.
    fn explain(&self, expected: &ExpectedCall, actual: ValueRef<'_>) -> Option<ValueMismatch> {
        let Some(entries) = expected.args.object_entries() else {
            return expected.args.explain(Some(actual), self.args_mode);
        };
        if !actual.is_object() {
            return Some(ValueMismatch {
                path: String::new(),
                expected: expected.args.to_string(),
                actual: Some(shown(actual)),
            });
        }
        let members = actual.members().unwrap_or_default();
        // Every key either side names, once each, in order.
        let mut keys: Vec<&str> = entries.iter().map(|(key, _)| key.as_str()).collect();
        if self.args_mode == ArgsMode::Exact {
            keys.extend(members.iter().map(|(key, _)| &**key));
        }
        keys.sort_unstable();
        keys.dedup();
        for key in keys.into_iter().filter(|key| !self.ignored(key)) {
            let value = actual.get(key);
            let mut path = String::new();
            push_key(&mut path, key);
            let Some((_, matcher)) = entries.iter().find(|(name, _)| name == key) else {
                return Some(ValueMismatch {
                    path,
                    expected: r#"{"$present":false}"#.to_owned(),
                    actual: value.map(shown),
                });
            };
            if let Some(mut found) = matcher.explain(value, self.args_mode) {
                if !found.path.is_empty() {
                    if !found.path.starts_with('[') {
                        path.push('.');
                    }
                    path.push_str(&found.path);
                }
                found.path = path;
                return Some(found);
            }
        }
        None
    }

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
            |e, a| (self.expected[e].tool).matches(&calls[a]),
            // Compared on the arguments' text, which is not parsed for it.
            |e, a| self.args_equal(&self.expected[e], &calls[a].args),
        );
        let expected_keys: u64 = self.expected.iter().map(|e| self.counted_keys(e)).sum();
        let matched_keys: u64 = pairing
            .correct
            .iter()
            .map(|&(e, _)| self.counted_keys(&self.expected[e]))
            .chain(
                pairing
                    .incorrect
                    .iter()
                    .map(|&(e, a)| self.keys_matched(&self.expected[e], calls[a].args_view())),
            )
            .sum();
        let arguments = ArgumentCounts {
            matched: matched_keys,
            expected: expected_keys,
        };
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
                arguments,
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
                    differing: self.differing(&self.expected[e], calls[a].args_view()),
                    why: self.explain(&self.expected[e], calls[a].args_view()),
                })
                .collect(),
            missed: pairing.missed,
            extra: pairing.extra.iter().map(|&a| called(a)).collect(),
            counts,
            metrics: counts.metrics(),
            arguments,
        }
    }
}

impl CallAccuracyGrader {
    /// The top-level argument names whose values fail their matchers, or that only the call
    /// has (in `exact` mode), sorted; ignored names left out. For literal arguments these are
    /// [`differing_keys_of`].
    fn differing(&self, expected: &ExpectedCall, actual: ValueRef<'_>) -> Vec<String> {
        if let Some(literal) = expected.args.as_literal()
            && self.args_mode == ArgsMode::Exact
        {
            let mut keys = differing_keys_of(literal, actual);
            keys.retain(|key| !self.ignored(key));
            return keys;
        }
        let (Some(entries), Some(members)) = (expected.args.object_entries(), actual.members())
        else {
            return Vec::new();
        };
        let mut keys: Vec<String> = entries
            .iter()
            .filter(|(key, matcher)| {
                !self.ignored(key) && !matcher.matches(actual.get(key), self.args_mode)
            })
            .map(|(key, _)| key.clone())
            .collect();
        if self.args_mode == ArgsMode::Exact {
            keys.extend(
                members
                    .iter()
                    .filter(|(key, _)| {
                        !self.ignored(key) && !entries.iter().any(|(name, _)| name == key)
                    })
                    .map(|(key, _)| key.clone().into_owned()),
            );
        }
        keys.sort_unstable();
        keys
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

impl ExpectedCall {
    /// The expected arguments as a JSON value for reports: a literal as it is; with
    /// operators, the JSON they were written as (`{"limit":{"$gte":1}}`).
    pub fn args_as_written(&self) -> Value {
        match self.args.as_literal() {
            Some(literal) => literal.clone(),
            None => serde_json::from_str(&self.args.to_string()).unwrap_or(Value::Null),
        }
    }
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
    /// The argument counts summed over the runs.
    pub arguments: ArgumentCounts,
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
        arguments: ArgumentCounts,
    ) -> Self {
        Self {
            incorrect,
            expected: grader
                .expected
                .iter()
                .map(|call| (call.tool.to_string(), call.args_as_written()))
                .collect(),
            runs: listed,
            counts,
            metrics: counts.metrics(),
            arguments,
        }
    }
}

mod explain;
mod grader;
pub(crate) mod json;
pub(crate) mod recheck;
