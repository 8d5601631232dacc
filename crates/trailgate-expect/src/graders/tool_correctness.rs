//! The `tool-correctness` grader: how much of an expected list of tools a run called, in any
//! order, in order, or exactly (docs/graders/tool-correctness.md).

pub(crate) mod config;

use trailgate_core::{
    Percent, ToolRef, check_pairing_size, longest_common_subsequence, maximum_matching,
};
use trailgate_trace::Run;

use crate::gate::{Gate, Target};
use crate::run::{CalledTool, Detail};
use crate::tool_matcher::ToolMatcher;

/// `tool_correctness.score`.
pub(crate) const SCORE: Target = Target::new("tool_correctness.score");

/// A test's `tool-correctness` grader, checked.
#[derive(Debug, Clone)]
pub struct ToolCorrectnessGrader {
    /// The expected tools, in order.
    pub expected: Vec<ToolMatcher>,
    /// Whether the run must call exactly the expected tools, nothing more or less.
    pub exact_match: bool,
    /// Whether order matters (longest common subsequence; position by position with
    /// `exact_match`).
    pub check_ordering: bool,
    /// The threshold, as a whole percent; the default gate is `score >= threshold`.
    pub threshold: Percent,
    /// The gates on `tool_correctness.score`.
    pub gates: Vec<Gate>,
}

impl ToolCorrectnessGrader {
    /// The mode's name, as reports show it.
    pub fn mode(&self) -> &'static str {
        match (self.exact_match, self.check_ordering) {
            (false, false) => "non-exact",
            (false, true) => "ordering",
            (true, false) => "exact",
            (true, true) => "exact, ordered",
        }
    }

    /// Grades one run; every call counts, completed or not.
    pub fn grade(&self, run: &Run) -> RunCorrectness {
        self.grade_as(run, Detail::Full)
    }

    /// [`grade`](Self::grade), to the `detail` given: without it, no extra calls.
    pub fn grade_as(&self, run: &Run, detail: Detail) -> RunCorrectness {
        let calls = &run.calls;
        let ids: Vec<ToolRef<'_>> = calls
            .iter()
            .map(|call| ToolRef::new(call.server.as_deref(), &call.name))
            .collect();
        let matches = |e: usize, c: usize| self.expected[e].matches(&calls[c]);
        let pairs: Vec<Option<usize>> = if self.check_ordering && self.exact_match {
            (0..self.expected.len())
                .map(|e| (e < ids.len() && matches(e, e)).then_some(e))
                .collect()
        } else if self.check_ordering {
            let mut pairs = vec![None; self.expected.len()];
            for (e, c) in longest_common_subsequence(self.expected.len(), ids.len(), matches) {
                pairs[e] = Some(c);
            }
            pairs
        } else {
            maximum_matching(self.expected.len(), ids.len(), matches)
        };
        let found = pairs.iter().flatten().count();
        let exact = self
            .exact_match
            .then_some(ids.len() == self.expected.len() && found == ids.len());
        let mut used = vec![false; ids.len()];
        for c in pairs.iter().flatten() {
            used[*c] = true;
        }
        // In order, an expected tool that was called, but not where the order allows, is
        // out of order rather than missed; the calls left over are paired with the expected
        // tools left over as a multiset, within the size the multiset modes take.
        let mut out_of_order = vec![None; self.expected.len()];
        if self.check_ordering
            && detail == Detail::Full
            && check_pairing_size(self.expected.len(), ids.len()).is_ok()
        {
            let left: Vec<usize> = (0..self.expected.len())
                .filter(|&e| pairs[e].is_none())
                .collect();
            let unused: Vec<usize> = (0..ids.len()).filter(|&c| !used[c]).collect();
            let late =
                maximum_matching(left.len(), unused.len(), |e, c| matches(left[e], unused[c]));
            for (e, c) in late.iter().enumerate() {
                if let Some(c) = c {
                    out_of_order[left[e]] = Some(unused[*c]);
                    used[unused[*c]] = true;
                }
            }
        }
        // Only the calls the verdict names are copied.
        let called = |c: usize| CalledTool {
            call: c + 1,
            tool: ids[c].to_tool_id(),
        };
        RunCorrectness {
            matched: pairs.iter().map(|pair| pair.map(called)).collect(),
            out_of_order: if out_of_order.iter().any(Option::is_some) {
                out_of_order.iter().map(|call| call.map(called)).collect()
            } else {
                Vec::new()
            },
            extra: match detail {
                Detail::Full => (0..ids.len()).filter(|&c| !used[c]).map(called).collect(),
                Detail::Counts => Vec::new(),
            },
            exact,
            score: match exact {
                Some(true) => Percent::FULL,
                Some(false) => Percent::ZERO,
                None if self.expected.is_empty() => Percent::FULL,
                None => Percent::floor_of(found as u64, self.expected.len() as u64),
            },
        }
    }
}

/// The grader's verdict on one run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunCorrectness {
    /// For each expected tool in order, the call that matched it.
    pub matched: Vec<Option<CalledTool>>,
    /// With `check_ordering`, for each expected tool in order, the call of it that was made
    /// out of order, when it was not matched in order; empty when there is none.
    pub out_of_order: Vec<Option<CalledTool>>,
    /// Calls that matched no expected tool, in order or out of it, in trace order.
    pub extra: Vec<CalledTool>,
    /// With `exact_match`, whether the run matched exactly.
    pub exact: Option<bool>,
    /// The run's own score.
    pub score: Percent,
}

impl RunCorrectness {
    /// The expected tools, by position, that no call matched, in order or out of it.
    pub fn missed(&self) -> impl Iterator<Item = usize> + '_ {
        self.matched
            .iter()
            .enumerate()
            .filter_map(|(index, matched)| {
                let late = self.out_of_order.get(index).and_then(Option::as_ref);
                (matched.is_none() && late.is_none()).then_some(index)
            })
    }

    /// The expected tools, by position, called only out of order, with the call.
    pub fn late(&self) -> impl Iterator<Item = (usize, &CalledTool)> + '_ {
        self.out_of_order
            .iter()
            .enumerate()
            .filter_map(|(index, late)| Some((index, late.as_ref()?)))
    }
}

/// The grader's verdict over all runs of a test.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolCorrectnessOutcome {
    /// The expected tools, as written.
    pub expected: Vec<String>,
    /// `non-exact`, `ordering`, `exact` or `exact, ordered`.
    pub mode: &'static str,
    /// Each listed run, in run order (see [`TestOutcome`](crate::TestOutcome)).
    pub runs: Vec<RunCorrectness>,
    /// Expected tools matched, summed over the runs.
    pub matched: u64,
    /// Expected tools, summed over the runs.
    pub expected_total: u64,
    /// With `exact_match`, the runs that matched exactly.
    pub exact_runs: Option<u64>,
    /// `tool_correctness.score`.
    pub score: Percent,
}

impl ToolCorrectnessOutcome {
    /// `tool_correctness.score` from the sums over `runs` runs: with `exact_match`, the share
    /// of exact runs; otherwise the share of expected tools matched (micro-average: the
    /// sums first, one rounding), and 100 when nothing is expected.
    pub fn score_of(
        matched: u64,
        expected_total: u64,
        exact_runs: Option<u64>,
        runs: u64,
    ) -> Percent {
        match exact_runs {
            Some(exact) => Percent::floor_of(exact, runs),
            None if expected_total == 0 => Percent::FULL,
            None => Percent::floor_of(matched, expected_total),
        }
    }

    /// The outcome over `runs` runs, with `matched` expected tools matched and `exact`
    /// exact runs in all, listing `listed`.
    pub(crate) fn new(
        grader: &ToolCorrectnessGrader,
        listed: Vec<RunCorrectness>,
        matched: u64,
        exact: u64,
        runs: u64,
    ) -> Self {
        let expected_total = (grader.expected.len() as u64).saturating_mul(runs);
        let exact_runs = grader.exact_match.then_some(exact);
        let score = Self::score_of(matched, expected_total, exact_runs, runs);
        Self {
            expected: grader.expected.iter().map(ToString::to_string).collect(),
            mode: grader.mode(),
            runs: listed,
            matched,
            expected_total,
            exact_runs,
            score,
        }
    }
}

mod explain;
mod grader;
pub(crate) mod json;
pub(crate) mod recheck;
