//! What `merge` checks of the `errors` block of a shard report's test: each run's counts,
//! and the block's sums, per-tool table and metrics.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::recheck::{Fold, Metrics, Runs, Sum, same, same_percent};

use super::ErrorCounts;

#[derive(Debug, Deserialize)]
pub(crate) struct ErrorsView {
    pub(crate) calls: u64,
    pub(crate) errors: u64,
    pub(crate) recovered: u64,
    pub(crate) per_tool: Vec<ToolCountsView>,
    pub(crate) rate: u8,
    pub(crate) recovery: u8,
    pub(crate) runs: Runs<ErrorsFold>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ToolCountsView {
    pub(crate) tool: String,
    pub(crate) calls: u64,
    pub(crate) errors: u64,
    pub(crate) recovered: u64,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ErrorsRunView {
    pub(crate) calls: u64,
    pub(crate) errors: u64,
    pub(crate) recovered: u64,
    pub(crate) per_tool: Vec<ToolCountsView>,
}

/// The runs of `errors`, folded: the sums in all and per tool.
#[derive(Debug, Default)]
pub(crate) struct ErrorsFold {
    pub(crate) calls: Sum,
    pub(crate) errors: Sum,
    pub(crate) recovered: Sum,
    pub(crate) per_tool: BTreeMap<String, (Sum, Sum, Sum)>,
}

impl Fold for ErrorsFold {
    type Run = ErrorsRunView;

    fn add(&mut self, index: u64, run: ErrorsRunView) -> Result<(), String> {
        if run.recovered > run.errors || run.errors > run.calls {
            return Err(format!(
                "`errors.runs[{index}]` has {} recovered of {} failed of {} calls",
                run.recovered, run.errors, run.calls
            ));
        }
        let (mut calls, mut errors, mut recovered) = (0_u64, 0_u64, 0_u64);
        for tool in &run.per_tool {
            calls = calls.saturating_add(tool.calls);
            errors = errors.saturating_add(tool.errors);
            recovered = recovered.saturating_add(tool.recovered);
            let sums = self.per_tool.entry(tool.tool.clone()).or_default();
            sums.0.add(tool.calls);
            sums.1.add(tool.errors);
            sums.2.add(tool.recovered);
        }
        if (calls, errors, recovered) != (run.calls, run.errors, run.recovered) {
            return Err(format!(
                "`errors.runs[{index}].per_tool` does not add up to the run's counts"
            ));
        }
        self.calls.add(run.calls);
        self.errors.add(run.errors);
        self.recovered.add(run.recovered);
        Ok(())
    }
}

pub(crate) fn add_up(view: &ErrorsView, metrics: &Metrics<'_>) -> Result<(), String> {
    let fold = &view.runs.fold;
    view.runs.first_problem()?;
    let counts = ErrorCounts {
        calls: fold.calls.get("errors.runs[].calls")?,
        errors: fold.errors.get("errors.runs[].errors")?,
        recovered: fold.recovered.get("errors.runs[].recovered")?,
    };
    same("errors.calls", view.calls, counts.calls)?;
    same("errors.errors", view.errors, counts.errors)?;
    same("errors.recovered", view.recovered, counts.recovered)?;
    if view.per_tool.len() != fold.per_tool.len() {
        return Err(format!(
            "`errors.per_tool` lists {} tools but its runs name {}",
            view.per_tool.len(),
            fold.per_tool.len()
        ));
    }
    for (stated, (tool, (calls, errors, recovered))) in view.per_tool.iter().zip(&fold.per_tool) {
        if stated.tool != *tool {
            return Err(format!(
                "`errors.per_tool` lists `{}` where its runs give `{tool}`",
                stated.tool
            ));
        }
        let what = format!("errors.per_tool `{tool}`");
        same(&format!("{what} calls"), stated.calls, calls.get(&what)?)?;
        same(&format!("{what} errors"), stated.errors, errors.get(&what)?)?;
        same(
            &format!("{what} recovered"),
            stated.recovered,
            recovered.get(&what)?,
        )?;
    }
    same_percent("errors.rate", view.rate, counts.rate())?;
    same_percent("errors.recovery", view.recovery, counts.recovery())?;
    metrics.check("errors.rate", counts.rate().into())?;
    metrics.check("errors.recovery", counts.recovery().into())
}
