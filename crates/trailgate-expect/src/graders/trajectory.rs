//! The `trajectory` grader: the path a run took, step by step, against an expected path in
//! one of five modes, with parallel groups of steps made in one agent turn
//! (docs/graders/trajectory.md).

pub(crate) mod config;
mod suggest;

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use trailgate_core::{Percent, ToolId, longest_common_subsequence_of_spans, maximum_matching};
use trailgate_trace::{Call, Run};

use crate::gate::{Gate, Target};
use crate::run::{CalledTool, Detail};
use crate::step_matcher::{StepMatcher, StepMiss};
use crate::work;

/// `trajectory.match_rate`.
pub(crate) const MATCH_RATE: Target = Target::new("trajectory.match_rate");
/// `trajectory.score`.
pub(crate) const SCORE: Target = Target::new("trajectory.score");

/// How the calls of a run must follow the expected steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The calls are the expected steps, one to one, in order, nothing else.
    Strict,
    /// The expected steps match an ordered subsequence of distinct calls.
    InOrder,
    /// The calls and the expected steps match one to one, in any order.
    AnyOrder,
    /// Every expected step is matched by a distinct call; extra calls allowed.
    Superset,
    /// Every call is matched by a distinct expected step; steps may go unmatched.
    Subset,
}

impl Mode {
    /// The mode as the suite writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Strict => "strict",
            Self::InOrder => "in_order",
            Self::AnyOrder => "any_order",
            Self::Superset => "superset",
            Self::Subset => "subset",
        }
    }

    /// Whether the mode follows the order of the steps.
    pub fn ordered(self) -> bool {
        matches!(self, Self::Strict | Self::InOrder)
    }

    /// Whether the run's score counts its calls rather than the expected steps.
    pub fn counts_calls(self) -> bool {
        self == Self::Subset
    }
}

/// An entry of `expected`: one step, or a group of steps made in one agent turn in any
/// order among themselves, which occupies one position of the path.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its steps: one, or for a group at least two.
    pub steps: Vec<StepMatcher>,
    /// Whether it is a group, `{parallel: [...]}`.
    pub parallel: bool,
}

impl Entry {
    /// Its steps.
    pub fn steps(&self) -> &[StepMatcher] {
        &self.steps
    }

    /// How many calls it takes.
    pub fn width(&self) -> usize {
        self.steps().len()
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.parallel {
            return self.steps.iter().try_for_each(|step| write!(f, "{step}"));
        }
        f.write_str("parallel [")?;
        for (index, step) in self.steps.iter().enumerate() {
            if index > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{step}")?;
        }
        f.write_str("]")
    }
}

/// How many turns a parallel group is tried in, in the unordered modes, before it takes
/// the first turn it fits in.
const WEIGHED_TURNS: usize = 8;

/// A test's `trajectory` grader, checked.
#[derive(Debug, Clone)]
pub struct TrajectoryGrader {
    /// The mode.
    pub mode: Mode,
    /// The expected path, in order.
    pub expected: Vec<Entry>,
    /// The gates on `trajectory.*`.
    pub gates: Vec<Gate>,
}

/// The first expected entry that found no call, and the call that came closest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingEntry {
    /// The entry's position in `expected`, from 0.
    pub entry: usize,
    /// What came closest.
    pub closest: Option<Closest>,
}

/// What came closest to an entry that found no call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Closest {
    /// A call of the step's tool, with the argument that failed.
    Call(CalledTool, StepMiss),
    /// For a parallel group: the agent turn with the most of its steps, and how many.
    Turn {
        /// The turn (`step` number of the calls).
        step: u32,
        /// How many of the group's steps its calls matched.
        found: usize,
        /// How many steps the group has.
        of: usize,
    },
}

/// For `strict`: the first position where the calls differ from the expected path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The position in the run, from 1 (one past the last call when the run ended early).
    pub position: usize,
    /// The entry expected there, or `None` when the path had ended.
    pub expected: Option<usize>,
    /// The call found there, or `None` when the run had ended.
    pub found: Option<CalledTool>,
}

/// The grader's verdict on one run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunTrajectory {
    /// Whether the run matches in the grader's mode.
    pub matches: bool,
    /// The run's share of `trajectory.score`: entries matched (calls matched, in `subset`).
    pub matched: u64,
    /// Its denominator: expected entries (calls, in `subset`).
    pub total: u64,
    /// For each expected entry in order, the calls that matched it; empty when none did.
    /// Empty as a whole for [`Detail::Counts`].
    pub entries: Vec<Vec<CalledTool>>,
    /// The first expected entry that found no call, when the mode needs every entry.
    pub missing: Option<MissingEntry>,
    /// The first call that matched no entry, when the mode allows none.
    pub extra: Option<CalledTool>,
    /// For `strict`, the first position where the calls differ.
    pub differs: Option<Difference>,
}

/// The calls each entry took, in trace order.
fn entry_calls(calls: &[Call], taken: &[Vec<usize>]) -> Vec<Vec<CalledTool>> {
    taken
        .iter()
        .map(|t| {
            let mut sorted = t.clone();
            sorted.sort_unstable();
            sorted.into_iter().map(|c| called(calls, c)).collect()
        })
        .collect()
}

/// Whether each step of the expected path matches each call of a run, each pair asked
/// once: the ordered modes ask about a pair once per cell of their table, and a parallel
/// group about each of its steps and calls in every span it is tried at.
struct StepCalls {
    /// By step (the entries' steps in order), then by call.
    matches: Vec<bool>,
    /// Where each entry's steps start among all steps.
    first_step: Vec<usize>,
    calls: usize,
}

impl StepCalls {
    fn new(expected: &[Entry], calls: &[Call]) -> Self {
        let mut first_step = Vec::with_capacity(expected.len());
        let mut matches = Vec::new();
        for entry in expected {
            first_step.push(matches.len() / calls.len().max(1));
            for step in entry.steps() {
                matches.extend(calls.iter().map(|call| step.matches(call)));
            }
        }
        Self {
            matches,
            first_step,
            calls: calls.len(),
        }
    }

    /// Whether step `s` of entry `e` matches call `c`.
    fn matches(&self, e: usize, s: usize, c: usize) -> bool {
        self.matches[(self.first_step[e] + s) * self.calls + c]
    }
}

/// The calls of a run by agent turn (their `step`), in the order of each turn's first call,
/// each turn's calls in trace order: made once per run, so that a parallel group looks at
/// the calls of each turn without going over the whole run for each.
struct Turns(Vec<(u32, Vec<usize>)>);

impl Turns {
    fn new(calls: &[Call]) -> Self {
        let mut turns: Vec<(u32, Vec<usize>)> = Vec::new();
        let mut numbers: BTreeMap<u32, usize> = BTreeMap::new();
        work::count(calls.len());
        for (c, call) in calls.iter().enumerate() {
            // The calls of a turn mostly come together: the last turn is asked first.
            let turn = match turns.last_mut() {
                Some((step, in_turn)) if *step == call.step => in_turn,
                _ => {
                    let number = *numbers.entry(call.step).or_insert_with(|| {
                        turns.push((call.step, Vec::new()));
                        turns.len() - 1
                    });
                    &mut turns[number].1
                }
            };
            turn.push(c);
        }
        Self(turns)
    }
}

fn called(calls: &[Call], index: usize) -> CalledTool {
    let call = &calls[index];
    CalledTool {
        call: index + 1,
        tool: ToolId::new(call.server.clone(), call.name.clone()),
    }
}

impl TrajectoryGrader {
    /// Grades one run; every call counts, completed or not.
    pub fn grade(&self, run: &Run) -> RunTrajectory {
        self.grade_as(run, Detail::Full)
    }

    /// [`grade`](Self::grade), to the `detail` given: without it, no list of calls.
    pub fn grade_as(&self, run: &Run, detail: Detail) -> RunTrajectory {
        let calls = &run.calls;
        // The calls by turn, made once, when a parallel group first needs them.
        let by_turn = OnceCell::new();
        let turns = || by_turn.get_or_init(|| Turns::new(calls));
        // For each entry, the calls it took (by index), when it found any.
        let (taken, differs) = if self.mode.ordered() {
            self.ordered(calls)
        } else {
            (self.unordered(calls, turns), None)
        };
        let found = taken.iter().filter(|t| !t.is_empty()).count() as u64;
        let mut covered = vec![false; calls.len()];
        for &c in taken.iter().flatten() {
            covered[c] = true;
        }
        let covered_count = covered.iter().filter(|c| **c).count() as u64;
        let all_entries = found == self.expected.len() as u64;
        let all_calls = covered_count == calls.len() as u64;
        let matches = match self.mode {
            Mode::Strict => differs.is_none(),
            Mode::InOrder | Mode::Superset => all_entries,
            Mode::AnyOrder => all_entries && all_calls,
            Mode::Subset => all_calls,
        };
        let (share, total) = if self.mode.counts_calls() {
            (covered_count, calls.len() as u64)
        } else {
            (found, self.expected.len() as u64)
        };
        let mut verdict = RunTrajectory {
            matches,
            matched: share,
            total,
            entries: Vec::new(),
            missing: None,
            extra: None,
            differs: None,
        };
        if detail == Detail::Counts || matches {
            verdict.differs = differs;
            if detail == Detail::Full {
                verdict.entries = entry_calls(calls, &taken);
            }
            return verdict;
        }
        if self.mode != Mode::Subset {
            verdict.missing = taken
                .iter()
                .position(Vec::is_empty)
                .map(|entry| MissingEntry {
                    entry,
                    closest: self.closest(entry, calls, &covered, turns),
                });
        }
        // In `strict` the first difference says it all: an extra call is one found where
        // the path had ended.
        verdict.extra = match (self.mode, &differs) {
            (
                Mode::Strict,
                Some(Difference {
                    expected: None,
                    found,
                    ..
                }),
            ) => found.clone(),
            (Mode::AnyOrder | Mode::Subset, _) => {
                covered.iter().position(|c| !c).map(|c| called(calls, c))
            }
            _ => None,
        };
        verdict.differs = differs;
        verdict.entries = entry_calls(calls, &taken);
        verdict
    }

    /// Whether entry `e` matches the calls from `start` on: a step, the call there; a
    /// parallel group, as many calls there as it has steps, all of one turn, matched one to
    /// one in any order. Each step is asked about each call once, by `steps`.
    fn fits(&self, e: usize, steps: &StepCalls, calls: &[Call], start: usize) -> bool {
        let width = self.expected[e].width();
        if width == 1 {
            return start < calls.len() && steps.matches(e, 0, start);
        }
        let Some(span) = start
            .checked_add(width)
            .and_then(|end| calls.get(start..end))
        else {
            return false;
        };
        let Some(turn) = span.first().map(|call| call.step) else {
            return false;
        };
        let fit = |s: usize, c: usize| steps.matches(e, s, start + c);
        span.iter().all(|call| call.step == turn)
            // Each call of some step, and each step of some call, before a matching.
            && (0..width).all(|c| (0..width).any(|s| fit(s, c)))
            && (0..width).all(|s| (0..width).any(|c| fit(s, c)))
            && maximum_matching(width, width, fit).iter().all(Option::is_some)
    }

    /// The ordered modes: the longest common subsequence of entries and calls, each entry
    /// taking its span; for `strict`, also the first position where the run differs.
    fn ordered(&self, calls: &[Call]) -> (Vec<Vec<usize>>, Option<Difference>) {
        let steps = StepCalls::new(&self.expected, calls);
        let pairs = longest_common_subsequence_of_spans(
            self.expected.len(),
            calls.len(),
            |e| self.expected[e].width(),
            |e, c| self.fits(e, &steps, calls, c),
        );
        let mut taken = vec![Vec::new(); self.expected.len()];
        for (e, c) in pairs {
            taken[e] = (c..c + self.expected[e].width()).collect();
        }
        if self.mode != Mode::Strict {
            return (taken, None);
        }
        let mut position = 0;
        for e in 0..self.expected.len() {
            if !self.fits(e, &steps, calls, position) {
                let difference = Difference {
                    position: position + 1,
                    expected: Some(e),
                    found: (position < calls.len()).then(|| called(calls, position)),
                };
                return (taken, Some(difference));
            }
            position += self.expected[e].width();
        }
        let extra = (position < calls.len()).then(|| Difference {
            position: position + 1,
            expected: None,
            found: Some(called(calls, position)),
        });
        (taken, extra)
    }

    /// The unordered modes: each parallel group, in order, takes calls of one turn; then
    /// the single steps are matched with the calls left, a maximum matching.
    ///
    /// A group takes the first turn, and the calls in it, that leave the rest (the steps of
    /// the groups after it, as if they could take calls of any turn, and the single steps)
    /// as many calls as they could match without it; when no turn does, the first turn it
    /// fits in. The choice looks ahead no further, so two groups that compete for the calls
    /// of several turns may be placed worse than they could be (docs/graders/trajectory.md).
    /// A group is weighed in at most [`WEIGHED_TURNS`] turns where it fits.
    ///
    /// Each group goes over the calls of each turn once (`turns`), and a group that fits no
    /// turn asks no more: the work is within a small multiple of the calls times the steps,
    /// per group, however many turns the run has.
    fn unordered<'t>(&self, calls: &[Call], turns: impl Fn() -> &'t Turns) -> Vec<Vec<usize>> {
        let mut taken = vec![Vec::new(); self.expected.len()];
        let mut claimed = vec![false; calls.len()];
        let singles: Vec<usize> = (0..self.expected.len())
            .filter(|&e| !self.expected[e].parallel)
            .collect();
        let single_step = |e: usize| &self.expected[e].steps()[0];
        for (g, entry) in self.expected.iter().enumerate() {
            if !entry.parallel {
                continue;
            }
            let steps = &entry.steps;
            let rest: Vec<&StepMatcher> = self.expected[g + 1..]
                .iter()
                .filter(|later| later.parallel)
                .flat_map(|later| later.steps.iter())
                .chain(singles.iter().map(|&e| single_step(e)))
                .collect();
            let free: Vec<usize> = (0..calls.len()).filter(|&c| !claimed[c]).collect();
            work::count(calls.len());
            // How many calls the rest could match without the group: asked once the group
            // fits a turn, since a group that fits none needs no comparison.
            let mut best = None;
            let mut chosen: Option<Vec<usize>> = None;
            let mut weighed = 0;
            for (turn, in_turn) in &turns().0 {
                // Each turn weighed costs a matching over the whole run: past a few, the
                // first turn the group fits in is taken, so that the time stays within a
                // small multiple of one matching whatever the run.
                if weighed == WEIGHED_TURNS && chosen.is_some() {
                    break;
                }
                work::count(in_turn.len());
                let in_turn: Vec<usize> =
                    in_turn.iter().copied().filter(|&c| !claimed[c]).collect();
                // Too few calls left in the turn for the group's steps.
                if in_turn.len() < steps.len() {
                    continue;
                }
                work::count(steps.len() * in_turn.len());
                let alone = maximum_matching(steps.len(), in_turn.len(), |s, c| {
                    steps[s].matches(&calls[in_turn[c]])
                });
                if !alone.iter().all(Option::is_some) {
                    continue;
                }
                let best = *best.get_or_insert_with(|| {
                    work::count(rest.len() * free.len());
                    maximum_matching(rest.len(), free.len(), |s, c| {
                        rest[s].matches(&calls[free[c]])
                    })
                    .iter()
                    .flatten()
                    .count()
                });
                // The group's steps first, then the rest, over the free calls: the
                // augmenting paths keep the group matched, and the matching is the largest
                // with the group in this turn.
                weighed += 1;
                let k = steps.len();
                work::count((k + rest.len()) * free.len());
                let joint = maximum_matching(k + rest.len(), free.len(), |l, c| {
                    let call = &calls[free[c]];
                    if l < k {
                        call.step == *turn && steps[l].matches(call)
                    } else {
                        rest[l - k].matches(call)
                    }
                });
                let group: Vec<usize> = joint[..k].iter().flatten().map(|&c| free[c]).collect();
                let kept = joint[k..].iter().flatten().count();
                if chosen.is_none() {
                    chosen = Some(group.clone());
                }
                if kept == best {
                    chosen = Some(group);
                    break;
                }
            }
            if let Some(group) = chosen {
                for &c in &group {
                    claimed[c] = true;
                }
                taken[g] = group;
            }
        }
        let free: Vec<usize> = (0..calls.len()).filter(|&c| !claimed[c]).collect();
        work::count(singles.len() * free.len());
        let pairs = maximum_matching(singles.len(), free.len(), |s, c| {
            single_step(singles[s]).matches(&calls[free[c]])
        });
        for (s, c) in pairs.into_iter().enumerate() {
            if let Some(c) = c {
                taken[singles[s]] = vec![free[c]];
            }
        }
        taken
    }

    /// What came closest to entry `e`: for a step, the first call of its tool that no other
    /// entry took, with why it is not the step (or else the first such call taken); for a
    /// group, the turn whose calls match the most of its steps.
    fn closest<'t>(
        &self,
        e: usize,
        calls: &[Call],
        covered: &[bool],
        turns: impl Fn() -> &'t Turns,
    ) -> Option<Closest> {
        let entry = &self.expected[e];
        match entry.steps.as_slice() {
            [step] if !entry.parallel => {
                let free = calls
                    .iter()
                    .enumerate()
                    .filter(|(c, call)| !covered[*c] && step.tool_matches(call));
                let any = calls
                    .iter()
                    .enumerate()
                    .filter(|(_, call)| step.tool_matches(call));
                let (c, call) = free.chain(any).next()?;
                let miss = step.miss(call).unwrap_or(StepMiss::Tool);
                Some(Closest::Call(called(calls, c), miss))
            }
            steps => {
                let mut best: Option<(u32, usize)> = None;
                for (step, in_turn) in &turns().0 {
                    work::count(steps.len() * in_turn.len());
                    let found = maximum_matching(steps.len(), in_turn.len(), |s, c| {
                        steps[s].matches(&calls[in_turn[c]])
                    })
                    .iter()
                    .flatten()
                    .count();
                    if found > 0 && best.is_none_or(|(_, most)| found > most) {
                        best = Some((*step, found));
                    }
                }
                best.map(|(step, found)| Closest::Turn {
                    step,
                    found,
                    of: steps.len(),
                })
            }
        }
    }
}

/// The grader's verdict over all runs of a test.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TrajectoryOutcome {
    /// The mode.
    pub mode: Mode,
    /// The expected entries, as reports show them.
    pub expected: Vec<String>,
    /// Each listed run, in run order (see [`TestOutcome`](crate::TestOutcome)).
    pub runs: Vec<RunTrajectory>,
    /// The runs that matched.
    pub matching_runs: u64,
    /// Entries (calls, in `subset`) matched, summed over the runs.
    pub matched: u64,
    /// Entries (calls, in `subset`), summed over the runs.
    pub total: u64,
    /// `trajectory.match_rate`.
    pub match_rate: Percent,
    /// `trajectory.score`.
    pub score: Percent,
}

impl TrajectoryOutcome {
    /// `trajectory.match_rate`: the share of runs that matched, rounded down.
    pub fn match_rate_of(matching: u64, runs: u64) -> Percent {
        Percent::floor_of(matching, runs)
    }

    /// `trajectory.score`: matched over total summed over the runs, rounded down once; 100
    /// when every total is 0 (nothing was expected, or in `subset` nothing was called).
    pub fn score_of(matched: u64, total: u64) -> Percent {
        if total == 0 {
            Percent::FULL
        } else {
            Percent::floor_of(matched, total)
        }
    }

    /// The outcome over `runs` runs from the sums, listing `listed`.
    pub(crate) fn new(
        grader: &TrajectoryGrader,
        listed: Vec<RunTrajectory>,
        (matching_runs, matched, total): (u64, u64, u64),
        runs: u64,
    ) -> Self {
        Self {
            mode: grader.mode,
            expected: grader.expected.iter().map(ToString::to_string).collect(),
            runs: listed,
            matching_runs,
            matched,
            total,
            match_rate: Self::match_rate_of(matching_runs, runs),
            score: Self::score_of(matched, total),
        }
    }
}

mod explain;
mod grader;
pub(crate) mod json;
pub(crate) mod recheck;
#[cfg(test)]
mod tests;
