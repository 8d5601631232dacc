//! The equal-function-set block's part of the JSON report.

use std::io;

use serde::Serialize;
use trailgate_core::{Counts, SelectionMetrics};

use crate::json_part::{CallJson, Entries, JsonPart};
use crate::run::RunInfo;

use super::{EqualFunctionSets, RunSelectionOutcome, SelectionOutcome};

/// The block's run-sized list: a run's entry holds all the block says of the run.
const RUNS: usize = 0;

/// How many run-sized lists the block's object holds.
pub(crate) const LISTS: usize = 1;

/// The names of the grader's run-sized lists, by number: their keys in its object.
pub(crate) const LIST_NAMES: [&str; LISTS] = ["runs"];

/// What the block's run entries need of the test: nothing, since they name each class by
/// its place in the object's `classes`, which the object writes once.
#[derive(Debug, Clone, Default)]
pub(crate) struct SelectionNames;

/// The keys under which the grader's run entries name a call by its number: `satisfied_by`,
/// `unexpected_calls`, and first in each of `repeats`' pairs.
const CALL_KEYS: [&str; 3] = ["satisfied_by", "unexpected_calls", "repeats"];

impl EqualFunctionSets {
    #[expect(
        clippy::unused_self,
        reason = "the grader contract asks every kind for the names its entries need"
    )]
    pub(crate) fn json_names(&self) -> SelectionNames {
        SelectionNames
    }
}

impl SelectionOutcome {
    #[expect(
        clippy::unused_self,
        reason = "the grader contract asks every kind for the names its entries need"
    )]
    pub(crate) fn json_names(&self) -> SelectionNames {
        SelectionNames
    }

    /// The block's object: the summed scores, the classes' names, then its run entries.
    pub(crate) fn json_part(&self) -> JsonPart {
        let classes: Vec<&str> = self
            .classes
            .iter()
            .map(trailgate_core::ClassName::as_str)
            .collect();
        scores(
            JsonPart::new("equal_function_sets").naming_calls(&CALL_KEYS),
            self.counts,
            self.metrics,
        )
        .value("classes", &classes)
        .list(LIST_NAMES[RUNS], RUNS)
    }
}

/// The counts and percents of the total, in the order of a run's.
fn scores(part: JsonPart, counts: Counts, metrics: SelectionMetrics) -> JsonPart {
    let s = Scores::new(counts, metrics);
    part.value("true_positives", &s.true_positives)
        .value("false_positives", &s.false_positives)
        .value("false_negatives", &s.false_negatives)
        .value("precision", &s.precision)
        .value("recall", &s.recall)
        .value("f1", &s.f1)
}

/// Writes one run's entry: its scores, the call that satisfied each class (a missed class's
/// is `null`), its unexpected calls and its repeats, each repeat with its class's number
/// (from 1) in the object's `classes`.
pub(crate) fn write_entries(
    _names: &SelectionNames,
    info: &RunInfo,
    run: &RunSelectionOutcome,
    entries: &mut Entries<'_>,
) -> io::Result<()> {
    entries.push(
        RUNS,
        &SelectionRun {
            run: info.number,
            calls: info.calls,
            scores: Scores::new(run.counts, run.metrics),
            satisfied_by: run
                .satisfied_by
                .iter()
                .map(|satisfied| satisfied.as_ref().map(CallJson::of))
                .collect(),
            unexpected_calls: run.unexpected.iter().map(CallJson::of).collect(),
            repeats: run
                .repeats
                .iter()
                .map(|(call, class)| (CallJson::of(call), class + 1))
                .collect(),
        },
    )
}

/// The counts and percents of one run or of the total, in this order in both.
#[derive(Serialize)]
struct Scores {
    true_positives: u64,
    false_positives: u64,
    false_negatives: u64,
    precision: u8,
    recall: u8,
    f1: u8,
}

impl Scores {
    fn new(counts: Counts, metrics: SelectionMetrics) -> Self {
        Self {
            true_positives: counts.true_positives,
            false_positives: counts.false_positives,
            false_negatives: counts.false_negatives,
            precision: metrics.precision.value(),
            recall: metrics.recall.value(),
            f1: metrics.f1.value(),
        }
    }
}

#[derive(Serialize)]
struct SelectionRun {
    run: usize,
    calls: usize,
    #[serde(flatten)]
    scores: Scores,
    /// The call that satisfied each class, in the order of the object's `classes`; `null`
    /// for a class the run missed.
    satisfied_by: Vec<Option<CallJson>>,
    unexpected_calls: Vec<CallJson>,
    /// Each repeated call and the number (from 1) of its class in `classes`.
    repeats: Vec<(CallJson, usize)>,
}
