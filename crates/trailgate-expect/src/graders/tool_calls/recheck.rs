//! What `merge` checks of the `tool-calls` block of a shard report's test: the runs that
//! passed, and the pass rate they give.

use serde::Deserialize;
use trailgate_core::Percent;

use crate::recheck::{Fold, Metrics, Runs, same, same_percent};

#[derive(Debug, Deserialize)]
pub(crate) struct ToolCallsView {
    pub(crate) passed_runs: u64,
    pub(crate) pass_rate: u8,
    pub(crate) runs: Runs<PassedFold>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct PassedView {
    pub(crate) passed: bool,
}

#[derive(Debug, Default)]
pub(crate) struct PassedFold {
    pub(crate) passed: u64,
}

impl Fold for PassedFold {
    type Run = PassedView;

    fn add(&mut self, _: u64, run: PassedView) -> Result<(), String> {
        self.passed += u64::from(run.passed);
        Ok(())
    }
}

/// The runs that passed and the pass rate they give.
pub(crate) fn add_up(calls: &ToolCallsView, metrics: &Metrics<'_>) -> Result<(), String> {
    let passed = calls.runs.fold.passed;
    same("tool_calls.passed_runs", calls.passed_runs, passed)?;
    let rate = Percent::floor_of(passed, calls.runs.listed);
    same_percent("tool_calls.pass_rate", calls.pass_rate, rate)?;
    metrics.check("tool_calls.pass_rate", rate.into())
}
