//! The `errors` grader suggested from recorded runs (docs/init.md): when a run has a failed
//! call, `errors.recovery` at the lowest recovery of such a run.

use crate::observed::{Observed, Suggested};
use crate::run::Detail;

use super::ErrorsGrader;

/// The gate on `errors.recovery`; nothing when no call failed.
pub(super) fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
    // Without classes: a class only lets more calls recover a failure.
    let counter = ErrorsGrader::default();
    let lowest = observed
        .runs
        .iter()
        .map(|run| counter.grade_as(run, Detail::Counts).counts)
        .filter(|counts| counts.errors > 0)
        .min_by_key(|counts| (counts.recovery(), counts.errors, counts.recovered))?;
    let mut config = Suggested::default();
    config.gate(
        0,
        "errors.recovery",
        lowest.recovery().value(),
        format!(
            "the lowest of a run with a failed call: {} of {} failed calls recovered",
            lowest.recovered, lowest.errors
        ),
    );
    Some(config)
}
