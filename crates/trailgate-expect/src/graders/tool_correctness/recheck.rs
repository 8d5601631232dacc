//! What `merge` checks of the `tool-correctness` block of a shard report's test: each
//! run's score, and the block's sums and score.

use serde::Deserialize;
use serde::de::IgnoredAny;
use trailgate_core::Percent;

use crate::recheck::{Fold, Listed, Metrics, Runs, same, same_percent};

use super::ToolCorrectnessOutcome;

#[derive(Debug, Deserialize)]
pub(crate) struct CorrectnessView {
    pub(crate) expected_tools: Listed,
    pub(crate) matched: u64,
    pub(crate) expected_total: u64,
    pub(crate) exact_runs: Option<u64>,
    pub(crate) score: u8,
    pub(crate) runs: Runs<CorrectnessFold>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct CorrectnessRunView {
    pub(crate) score: u8,
    pub(crate) exact: Option<bool>,
    pub(crate) expected: Vec<ExpectedView>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ExpectedView {
    pub(crate) matched_by: Option<IgnoredAny>,
}

/// A run's score that its entry does not give: where, what it states, what it gives.
pub(crate) type WrongScore = (u64, u8, Percent);

/// The runs of `tool_correctness`, folded. A run's checks depend on the block's
/// `expected_tools` and `exact_runs`, which may come after `runs` in the block, so the fold
/// keeps what either answer needs: the first run whose list of expected tools differs in
/// length from the first run's, and the first wrong score with exact runs counted and
/// without.
#[derive(Debug, Default)]
pub(crate) struct CorrectnessFold {
    pub(crate) first_tools: Option<u64>,
    pub(crate) other_tools: Option<(u64, u64)>,
    pub(crate) wrong_exact: Option<WrongScore>,
    pub(crate) wrong_plain: Option<WrongScore>,
    pub(crate) matched: u64,
    pub(crate) exact: u64,
}

impl Fold for CorrectnessFold {
    type Run = CorrectnessRunView;

    fn add(&mut self, index: u64, run: CorrectnessRunView) -> Result<(), String> {
        let tools = run.expected.len() as u64;
        let first = *self.first_tools.get_or_insert(tools);
        if tools != first && self.other_tools.is_none() {
            self.other_tools = Some((index, tools));
        }
        let matched = run
            .expected
            .iter()
            .filter(|e| e.matched_by.is_some())
            .count() as u64;
        let exact = u64::from(run.exact == Some(true));
        // Until the first run of another length, `tools` is the grader's count; after it,
        // that run's error comes first.
        for (wrong, exact) in [
            (&mut self.wrong_exact, Some(exact)),
            (&mut self.wrong_plain, None),
        ] {
            let score = ToolCorrectnessOutcome::score_of(matched, tools, exact, 1);
            if wrong.is_none() && score.value() != run.score {
                *wrong = Some((index, run.score, score));
            }
        }
        self.matched = self.matched.saturating_add(matched);
        self.exact += exact;
        Ok(())
    }
}

impl CorrectnessFold {
    /// The first run that the grader's `tools` expected tools and exact-run count say is
    /// wrong.
    fn first_wrong_run(&self, tools: u64, exact_counted: bool) -> Result<(), String> {
        let wrong_length = match self.first_tools {
            Some(first) if first != tools => Some((0, first)),
            _ => self.other_tools,
        };
        let wrong_score = if exact_counted {
            self.wrong_exact
        } else {
            self.wrong_plain
        };
        match (wrong_length, wrong_score) {
            (Some((index, listed)), score) if score.is_none_or(|(at, ..)| index <= at) => {
                Err(format!(
                    "`tool_correctness.runs[{index}]` lists {listed} expected tools but the \
                     grader expects {tools}"
                ))
            }
            (_, Some((index, stated, derived))) => same_percent(
                &format!("`tool_correctness.runs[{index}].score`"),
                stated,
                derived,
            ),
            _ => Ok(()),
        }
    }
}

pub(crate) fn add_up(correctness: &CorrectnessView, metrics: &Metrics<'_>) -> Result<(), String> {
    let runs = correctness.runs.listed;
    let tools = correctness.expected_tools.0;
    let fold = &correctness.runs.fold;
    fold.first_wrong_run(tools, correctness.exact_runs.is_some())?;
    same(
        "tool_correctness.matched",
        correctness.matched,
        fold.matched,
    )?;
    let expected_total = tools.saturating_mul(runs);
    same(
        "tool_correctness.expected_total",
        correctness.expected_total,
        expected_total,
    )?;
    let exact = correctness.exact_runs.map(|_| fold.exact);
    if let (Some(stated), Some(derived)) = (correctness.exact_runs, exact) {
        same("tool_correctness.exact_runs", stated, derived)?;
    }
    let score = ToolCorrectnessOutcome::score_of(fold.matched, expected_total, exact, runs);
    same_percent("tool_correctness.score", correctness.score, score)?;
    metrics.check("tool_correctness.score", score.into())
}
