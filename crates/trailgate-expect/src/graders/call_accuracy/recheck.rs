//! What `merge` checks of the `call-accuracy` block of a shard report's test: each run's
//! counts and metrics, and the block's sums (never wrapped) and metrics.

use serde::Deserialize;
use trailgate_core::AccuracyCounts;

use crate::recheck::{Fold, Metrics, Runs, Sum, same, same_percent};

use super::ArgumentCounts;

#[derive(Debug, Deserialize)]
pub(crate) struct AccuracyView {
    pub(crate) correct: u64,
    pub(crate) expected: u64,
    pub(crate) actual: u64,
    pub(crate) arguments_matched: u64,
    pub(crate) arguments_expected: u64,
    pub(crate) precision: u8,
    pub(crate) recall: u8,
    f1: u8,
    pub(crate) arguments: u8,
    pub(crate) runs: Runs<AccuracyFold>,
}

/// A run's entry of `call_accuracy`: its counts and the metrics they give.
#[derive(Debug, Deserialize)]
pub(crate) struct AccuracyRunView {
    pub(crate) correct: u64,
    pub(crate) expected: u64,
    pub(crate) actual: u64,
    pub(crate) arguments_matched: u64,
    pub(crate) arguments_expected: u64,
    pub(crate) precision: u8,
    pub(crate) recall: u8,
    f1: u8,
    pub(crate) arguments: u8,
}

#[derive(Debug, Default)]
pub(crate) struct AccuracyFold {
    pub(crate) correct: Sum,
    pub(crate) expected: Sum,
    pub(crate) actual: Sum,
    pub(crate) arguments_matched: Sum,
    pub(crate) arguments_expected: Sum,
}

impl Fold for AccuracyFold {
    type Run = AccuracyRunView;

    /// A run's call-accuracy counts are possible and give the metrics it states.
    fn add(&mut self, index: u64, run: AccuracyRunView) -> Result<(), String> {
        if run.correct > run.expected.min(run.actual) {
            return Err(format!(
                "`call_accuracy.runs[{index}]` counts {} correct calls of {} expected and {} made",
                run.correct, run.expected, run.actual
            ));
        }
        let m = AccuracyCounts {
            correct: run.correct,
            expected: run.expected,
            actual: run.actual,
        }
        .metrics();
        if run.arguments_matched > run.arguments_expected {
            return Err(format!(
                "`call_accuracy.runs[{index}]` counts {} matched arguments of {} expected",
                run.arguments_matched, run.arguments_expected
            ));
        }
        let arguments = ArgumentCounts {
            matched: run.arguments_matched,
            expected: run.arguments_expected,
        };
        for (metric, stated, derived) in [
            ("precision", run.precision, m.precision),
            ("recall", run.recall, m.recall),
            ("f1", run.f1, m.f1),
            ("arguments", run.arguments, arguments.percent()),
        ] {
            same_percent(
                &format!("`call_accuracy.runs[{index}].{metric}`"),
                stated,
                derived,
            )?;
        }
        self.correct.add(run.correct);
        self.expected.add(run.expected);
        self.actual.add(run.actual);
        self.arguments_matched.add(run.arguments_matched);
        self.arguments_expected.add(run.arguments_expected);
        Ok(())
    }
}

pub(crate) fn add_up(accuracy: &AccuracyView, metrics: &Metrics<'_>) -> Result<(), String> {
    accuracy.runs.first_problem()?;
    let sums = &accuracy.runs.fold;
    // Each sum is checked for overflow, then against the block's stated one.
    let sum = |field: &str, stated: u64, sum: Sum| {
        let derived = sum.get(&format!("call_accuracy.runs[].{field}"))?;
        same(&format!("call_accuracy.{field}"), stated, derived).map(|()| derived)
    };
    let counts = AccuracyCounts {
        correct: sum("correct", accuracy.correct, sums.correct)?,
        expected: sum("expected", accuracy.expected, sums.expected)?,
        actual: sum("actual", accuracy.actual, sums.actual)?,
    };
    let arguments = ArgumentCounts {
        matched: sum(
            "arguments_matched",
            accuracy.arguments_matched,
            sums.arguments_matched,
        )?,
        expected: sum(
            "arguments_expected",
            accuracy.arguments_expected,
            sums.arguments_expected,
        )?,
    };
    let m = counts.metrics();
    for (target, stated, derived) in [
        ("call_accuracy.precision", accuracy.precision, m.precision),
        ("call_accuracy.recall", accuracy.recall, m.recall),
        ("call_accuracy.f1", accuracy.f1, m.f1),
        (
            "call_accuracy.arguments",
            accuracy.arguments,
            arguments.percent(),
        ),
    ] {
        same_percent(target, stated, derived)?;
        metrics.check(target, derived.into())?;
    }
    Ok(())
}
