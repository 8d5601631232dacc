//! What `merge` checks of the `dependencies` block of a shard report's test: each run's
//! verdict against its edges, and the block's per-edge counts, vacuous edges and metric.

use serde::Deserialize;

use crate::recheck::{Fold, Metrics, Runs, Sum, same, same_percent};

use super::DependenciesOutcome;

#[derive(Debug, Deserialize)]
pub(crate) struct DependenciesView {
    pub(crate) edges: Vec<EdgeView>,
    pub(crate) vacuous_edges: Vec<usize>,
    pub(crate) passing_runs: u64,
    pub(crate) pass_rate: u8,
    pub(crate) runs: Runs<DependenciesFold>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct EdgeView {
    pub(crate) applied_runs: u64,
    pub(crate) failed_runs: u64,
}

#[derive(Debug, Deserialize)]
pub(crate) struct DependenciesRunView {
    pub(crate) passed: bool,
    pub(crate) edges: Vec<VerdictView>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct VerdictView {
    pub(crate) state: String,
}

/// The runs of `dependencies`, folded: runs that passed, and per edge the runs it applied
/// and failed in.
#[derive(Debug, Default)]
pub(crate) struct DependenciesFold {
    pub(crate) passing: u64,
    pub(crate) applied: Vec<Sum>,
    pub(crate) failed: Vec<Sum>,
}

impl Fold for DependenciesFold {
    type Run = DependenciesRunView;

    fn add(&mut self, index: u64, run: DependenciesRunView) -> Result<(), String> {
        if index > 0 && run.edges.len() != self.applied.len() {
            return Err(format!(
                "`dependencies.runs[{index}]` lists {} edges, the runs before it {}",
                run.edges.len(),
                self.applied.len()
            ));
        }
        if index == 0 {
            self.applied = vec![Sum::default(); run.edges.len()];
            self.failed = vec![Sum::default(); run.edges.len()];
        }
        let mut failed_any = false;
        for (edge, verdict) in run.edges.iter().enumerate() {
            let (applied, failed) = match verdict.state.as_str() {
                "held" => (1, 0),
                "vacuous" => (0, 0),
                "failed" => (1, 1),
                other => {
                    return Err(format!(
                        "`dependencies.runs[{index}].edges[{edge}]` has state `{other}`"
                    ));
                }
            };
            failed_any |= failed == 1;
            self.applied[edge].add(applied);
            self.failed[edge].add(failed);
        }
        if run.passed == failed_any {
            return Err(format!(
                "`dependencies.runs[{index}].passed` is {} but its edges say otherwise",
                run.passed
            ));
        }
        self.passing += u64::from(run.passed);
        Ok(())
    }
}

pub(crate) fn add_up(view: &DependenciesView, metrics: &Metrics<'_>) -> Result<(), String> {
    let runs = view.runs.listed;
    let fold = &view.runs.fold;
    view.runs.first_problem()?;
    if runs > 0 && fold.applied.len() != view.edges.len() {
        return Err(format!(
            "`dependencies.runs[]` list {} edges but the grader has {}",
            fold.applied.len(),
            view.edges.len()
        ));
    }
    let mut vacuous = Vec::new();
    for (index, edge) in view.edges.iter().enumerate() {
        let what = format!("dependencies.edges[{index}]");
        let applied = fold
            .applied
            .get(index)
            .copied()
            .unwrap_or_default()
            .get(&what)?;
        let failed = fold
            .failed
            .get(index)
            .copied()
            .unwrap_or_default()
            .get(&what)?;
        same(&format!("{what}.applied_runs"), edge.applied_runs, applied)?;
        same(&format!("{what}.failed_runs"), edge.failed_runs, failed)?;
        if applied == 0 {
            vacuous.push(index);
        }
    }
    if vacuous != view.vacuous_edges {
        return Err("`dependencies.vacuous_edges` is not what its runs give".to_owned());
    }
    same("dependencies.passing_runs", view.passing_runs, fold.passing)?;
    let pass_rate = DependenciesOutcome::pass_rate_of(fold.passing, runs);
    same_percent("dependencies.pass_rate", view.pass_rate, pass_rate)?;
    metrics.check("dependencies.pass_rate", pass_rate.into())
}
