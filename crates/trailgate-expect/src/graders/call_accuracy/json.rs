//! The `call-accuracy` grader's part of the JSON report.

use std::io;

use serde::Serialize;
use serde_json::Value;
use trailgate_core::{AccuracyCounts, AccuracyMetrics};

use crate::json_part::{CallJson, Entries, JsonPart};
use crate::run::RunInfo;

use super::{ArgumentCounts, CallAccuracyGrader, CallAccuracyOutcome, RunAccuracy};

/// The grader's run-sized list.
const RUNS: usize = 0;

/// How many run-sized lists the grader's object holds.
pub(crate) const LISTS: usize = 1;

/// The names of the grader's run-sized lists, by number: their keys in its object.
pub(crate) const LIST_NAMES: [&str; LISTS] = ["runs"];

/// What the run entries name: nothing, since they name an expected call by its number in
/// the object's `expected_calls`, written once per test.
#[derive(Debug, Clone, Default)]
pub(crate) struct AccuracyNames;

/// The keys under which the grader's run entries name a call by its number: a paired call's
/// `call`, and `extra_calls`.
const CALL_KEYS: [&str; 2] = ["call", "extra_calls"];

impl CallAccuracyGrader {
    #[expect(clippy::unused_self, reason = "the shape every grader's names share")]
    pub(crate) fn json_names(&self) -> AccuracyNames {
        AccuracyNames
    }
}

impl CallAccuracyOutcome {
    #[expect(clippy::unused_self, reason = "the shape every grader's names share")]
    pub(crate) fn json_names(&self) -> AccuracyNames {
        AccuracyNames
    }

    /// The grader's object: the summed scores, then its list.
    pub(crate) fn json_part(&self) -> JsonPart {
        let s = AccuracyScores::new(self.counts, self.metrics, self.arguments);
        JsonPart::new("call_accuracy")
            .naming_calls(&CALL_KEYS)
            .value("correct", &s.correct)
            .value("expected", &s.expected)
            .value("actual", &s.actual)
            .value("precision", &s.precision)
            .value("recall", &s.recall)
            .value("f1", &s.f1)
            .value("arguments_matched", &s.arguments_matched)
            .value("arguments_expected", &s.arguments_expected)
            .value("arguments", &s.arguments)
            .value(
                "expected_calls",
                &self
                    .expected
                    .iter()
                    .map(|(tool, args)| ExpectedCallJson { tool, args })
                    .collect::<Vec<_>>(),
            )
            .list(LIST_NAMES[RUNS], RUNS)
    }
}

/// Writes one run's entry.
pub(crate) fn write_entries(
    _names: &AccuracyNames,
    info: &RunInfo,
    run: &RunAccuracy,
    entries: &mut Entries<'_>,
) -> io::Result<()> {
    // An expected call is named by its number (from 1) in the object's `expected_calls`.
    let expected = |index: usize| index + 1;
    let entry = AccuracyRun {
        run: info.number,
        scores: AccuracyScores::new(run.counts, run.metrics, run.arguments),
        correct_calls: run
            .correct
            .iter()
            .map(|(index, called)| PairedCall {
                expected: expected(*index),
                call: called.call,
            })
            .collect(),
        incorrect_calls: run
            .incorrect
            .iter()
            .map(|mismatch| IncorrectCall {
                expected: expected(mismatch.expected),
                call: mismatch.call.call,
                differing_keys: &mismatch.differing,
                mismatch: mismatch.why.as_ref().map(|why| MismatchJson {
                    path: &why.path,
                    expected: &why.expected,
                    found: why.actual.as_deref(),
                }),
            })
            .collect(),
        missed_calls: run.missed.iter().map(|index| expected(*index)).collect(),
        extra_calls: run.extra.iter().map(CallJson::of).collect(),
    };
    entries.push(RUNS, &entry)
}

/// Call-accuracy counts and percents of one run or of the total, in this order in both.
#[derive(Serialize)]
struct AccuracyScores {
    correct: u64,
    expected: u64,
    actual: u64,
    precision: u8,
    recall: u8,
    f1: u8,
    /// Expected top-level arguments matched in paired calls, and expected in all.
    arguments_matched: u64,
    arguments_expected: u64,
    arguments: u8,
}

impl AccuracyScores {
    fn new(counts: AccuracyCounts, metrics: AccuracyMetrics, arguments: ArgumentCounts) -> Self {
        Self {
            correct: counts.correct,
            expected: counts.expected,
            actual: counts.actual,
            precision: metrics.precision.value(),
            recall: metrics.recall.value(),
            f1: metrics.f1.value(),
            arguments_matched: arguments.matched,
            arguments_expected: arguments.expected,
            arguments: arguments.percent().value(),
        }
    }
}

#[derive(Serialize)]
struct AccuracyRun<'a> {
    run: usize,
    #[serde(flatten)]
    scores: AccuracyScores,
    correct_calls: Vec<PairedCall>,
    incorrect_calls: Vec<IncorrectCall<'a>>,
    missed_calls: Vec<usize>,
    extra_calls: Vec<CallJson>,
}

#[derive(Serialize)]
struct ExpectedCallJson<'a> {
    tool: &'a str,
    args: &'a Value,
}

/// A call paired with expected call number `expected` of `expected_calls`.
#[derive(Serialize)]
struct PairedCall {
    expected: usize,
    call: usize,
}

#[derive(Serialize)]
struct IncorrectCall<'a> {
    expected: usize,
    call: usize,
    differing_keys: &'a [String],
    /// The first argument that failed its matcher: where, the matcher, and what the call had.
    mismatch: Option<MismatchJson<'a>>,
}

#[derive(Serialize)]
struct MismatchJson<'a> {
    path: &'a str,
    expected: &'a str,
    found: Option<&'a str>,
}
