//! The exit codes, in one place.

/// Every gate passed.
pub(crate) const PASSED: u8 = 0;
/// A gate failed.
pub(crate) const FAILED: u8 = 1;
/// The suite, a trace or the command line is invalid; nothing was scored.
pub(crate) const INVALID: u8 = 2;
/// `check --test` or `-k` selected no test, or `--test` named one the suite does not have:
/// a code of its own, so that a script tells a selection gone stale from a broken suite.
pub(crate) const NOTHING_SELECTED: u8 = 4;

/// The exit code of a command that failed with `report`.
pub(crate) fn for_error(report: &miette::Report) -> u8 {
    report
        .downcast_ref::<trailgate_run::Error>()
        .map_or(INVALID, for_run_error)
}

/// The exit code of a command that `trailgate_run` refused.
pub(crate) fn for_run_error(error: &trailgate_run::Error) -> u8 {
    if matches!(error, trailgate_run::Error::NothingSelected(_)) {
        NOTHING_SELECTED
    } else {
        INVALID
    }
}

/// The exit code of a command that ran: whether a gate failed.
pub(crate) fn for_output(output: &trailgate_run::Output) -> u8 {
    if output.gate_failed { FAILED } else { PASSED }
}
