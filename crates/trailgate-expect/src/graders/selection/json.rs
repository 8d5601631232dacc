//! The equal-function-set block's part of the JSON report.

use std::io;

use serde::Serialize;
use trailgate_core::{Counts, SelectionMetrics};

use crate::json_part::{CallJson, Entries, JsonPart, ToolName};
use crate::run::RunInfo;

use super::{EqualFunctionSets, RunSelectionOutcome, SelectionOutcome};

/// The block's run-sized lists.
const MISSED_CLASSES: usize = 0;
const UNEXPECTED_CALLS: usize = 1;
const REPEATS: usize = 2;
const RUNS: usize = 3;

/// How many run-sized lists the block's object holds.
pub(crate) const LISTS: usize = 4;

/// The names of the grader's run-sized lists, by number: their keys in its object.
pub(crate) const LIST_NAMES: [&str; LISTS] =
    ["missed_classes", "unexpected_calls", "repeats", "runs"];

/// The class names, in declaration order, that the block's run entries name.
#[derive(Debug, Clone, Default)]
pub(crate) struct SelectionNames(Vec<String>);

impl EqualFunctionSets {
    pub(crate) fn json_names(&self) -> SelectionNames {
        SelectionNames(
            self.classes
                .classes()
                .iter()
                .map(|c| c.name.as_str().to_owned())
                .collect(),
        )
    }
}

impl SelectionOutcome {
    pub(crate) fn json_names(&self) -> SelectionNames {
        SelectionNames(self.classes.iter().map(|c| c.as_str().to_owned()).collect())
    }

    /// The block's object: the summed scores, then its lists.
    pub(crate) fn json_part(&self) -> JsonPart {
        scores(
            JsonPart::new("equal_function_sets"),
            self.counts,
            self.metrics,
        )
        .list(LIST_NAMES[MISSED_CLASSES], MISSED_CLASSES)
        .list(LIST_NAMES[UNEXPECTED_CALLS], UNEXPECTED_CALLS)
        .list(LIST_NAMES[REPEATS], REPEATS)
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

/// Writes one run's entries: its missed classes, unexpected calls and repeats, and the run.
pub(crate) fn write_entries(
    names: &SelectionNames,
    info: &RunInfo,
    run: &RunSelectionOutcome,
    entries: &mut Entries<'_>,
) -> io::Result<()> {
    let number = info.number;
    let class_name = |index: usize| names.0.get(index).map_or("", String::as_str);
    for (index, satisfied) in run.satisfied_by.iter().enumerate() {
        if satisfied.is_none() {
            entries.push(
                MISSED_CLASSES,
                &RunClass {
                    run: number,
                    class: class_name(index),
                },
            )?;
        }
    }
    for c in &run.unexpected {
        entries.push(
            UNEXPECTED_CALLS,
            &RunCall {
                run: number,
                call: c.call,
                tool: ToolName(&c.tool),
            },
        )?;
    }
    for (c, class) in &run.repeats {
        entries.push(
            REPEATS,
            &RunRepeat {
                run: number,
                call: c.call,
                tool: ToolName(&c.tool),
                class: class_name(*class),
            },
        )?;
    }
    entries.push(
        RUNS,
        &SelectionRun {
            run: number,
            calls: info.calls,
            scores: Scores::new(run.counts, run.metrics),
            classes: run
                .satisfied_by
                .iter()
                .enumerate()
                .map(|(index, satisfied)| ClassMatch {
                    class: class_name(index),
                    satisfied_by: satisfied.as_ref().map(CallJson::of),
                })
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
struct RunClass<'a> {
    run: usize,
    class: &'a str,
}

#[derive(Serialize)]
struct RunCall<'a> {
    run: usize,
    call: usize,
    tool: ToolName<'a>,
}

#[derive(Serialize)]
struct RunRepeat<'a> {
    run: usize,
    call: usize,
    tool: ToolName<'a>,
    class: &'a str,
}

#[derive(Serialize)]
struct SelectionRun<'a> {
    run: usize,
    calls: usize,
    #[serde(flatten)]
    scores: Scores,
    classes: Vec<ClassMatch<'a>>,
}

#[derive(Serialize)]
struct ClassMatch<'a> {
    class: &'a str,
    satisfied_by: Option<CallJson<'a>>,
}
