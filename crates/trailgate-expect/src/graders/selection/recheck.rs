//! What `merge` checks of the equal-function-set block of a shard report's test: its runs'
//! counts and metrics, and the sums and metrics of the block.

use serde::Deserialize;
use trailgate_core::Counts;

use crate::recheck::{Fold, Listed, Metrics, Runs, Sum, same, same_percent};

#[derive(Debug, Deserialize)]
pub(crate) struct SelectionView {
    pub(crate) true_positives: u64,
    pub(crate) false_positives: u64,
    pub(crate) false_negatives: u64,
    pub(crate) precision: u8,
    pub(crate) recall: u8,
    f1: u8,
    pub(crate) runs: Runs<SelectionFold>,
}

/// A run's entry of `equal_function_sets`: its counts, the metrics they give, and the call
/// that satisfied each class (or `null`).
#[derive(Debug, Deserialize)]
pub(crate) struct SelectionRunView {
    pub(crate) true_positives: u64,
    pub(crate) false_positives: u64,
    pub(crate) false_negatives: u64,
    pub(crate) precision: u8,
    pub(crate) recall: u8,
    f1: u8,
    pub(crate) satisfied_by: Listed,
}

#[derive(Debug, Default)]
pub(crate) struct SelectionFold {
    pub(crate) true_positives: Sum,
    pub(crate) false_positives: Sum,
    pub(crate) false_negatives: Sum,
}

impl Fold for SelectionFold {
    type Run = SelectionRunView;

    fn add(&mut self, index: u64, run: SelectionRunView) -> Result<(), String> {
        let m = Counts::new(run.true_positives, run.false_positives, run.false_negatives).metrics();
        for (metric, stated, derived) in [
            ("precision", run.precision, m.precision),
            ("recall", run.recall, m.recall),
            ("f1", run.f1, m.f1),
        ] {
            same_percent(
                &format!("`equal_function_sets.runs[{index}].{metric}`"),
                stated,
                derived,
            )?;
        }
        // Each class is satisfied by the run or missed by it.
        let classes = run.true_positives.checked_add(run.false_negatives);
        if classes != Some(run.satisfied_by.0) {
            return Err(format!(
                "`equal_function_sets.runs[{index}]` has {} classes but counts {} true \
                 positives and {} false negatives",
                run.satisfied_by.0, run.true_positives, run.false_negatives
            ));
        }
        self.true_positives.add(run.true_positives);
        self.false_positives.add(run.false_positives);
        self.false_negatives.add(run.false_negatives);
        Ok(())
    }
}

pub(crate) fn add_up(efs: &SelectionView, metrics: &Metrics<'_>) -> Result<(), String> {
    efs.runs.first_problem()?;
    let sums = &efs.runs.fold;
    let counts = Counts::new(
        sums.true_positives
            .get("equal_function_sets.runs[].true_positives")?,
        sums.false_positives
            .get("equal_function_sets.runs[].false_positives")?,
        sums.false_negatives
            .get("equal_function_sets.runs[].false_negatives")?,
    );
    same("true_positives", efs.true_positives, counts.true_positives)?;
    same(
        "false_positives",
        efs.false_positives,
        counts.false_positives,
    )?;
    same(
        "false_negatives",
        efs.false_negatives,
        counts.false_negatives,
    )?;
    let m = counts.metrics();
    for (target, stated, derived) in [
        ("tool_selection.precision", efs.precision, m.precision),
        ("tool_selection.recall", efs.recall, m.recall),
        ("tool_selection.f1", efs.f1, m.f1),
    ] {
        same_percent(target, stated, derived)?;
        metrics.check(target, derived.into())?;
    }
    Ok(())
}
