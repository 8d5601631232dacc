//! The `budget` grader: limits on how much a run did (calls, turns, errors, repeated calls,
//! loops, calls of one tool) and its efficiency against the known best path
//! (docs/graders/budget.md).

pub(crate) mod config;
mod suggest;

use std::borrow::Cow;
use std::collections::hash_map::Entry;

use trailgate_core::{Percent, ToolId};
use trailgate_trace::{Call, Run, Status};

use crate::gate::{Gate, Target};
use crate::metric_value::{METRIC_DIGITS, MetricValue};
pub use crate::prices::{Cost, Price, Prices};
use crate::run::{CalledTool, Detail};
use crate::step_matcher::StepMatcher;

/// `budget.pass_rate`.
pub(crate) const PASS_RATE: Target = Target::new("budget.pass_rate");
/// `budget.efficiency`.
pub(crate) const EFFICIENCY: Target = Target::new("budget.efficiency");
/// `usage.input_tokens`: the runs' mean input tokens, floored.
pub(crate) const INPUT_TOKENS: Target = Target::new("usage.input_tokens");
/// `usage.output_tokens`: the runs' mean output tokens, floored.
pub(crate) const OUTPUT_TOKENS: Target = Target::new("usage.output_tokens");
/// `usage.cost`: the runs' mean cost, floored to six digits after the point.
pub(crate) const COST: Target = Target::new("usage.cost");

/// A limit of a `budget` grader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Limit {
    /// `max_calls`.
    Calls,
    /// `max_steps`: distinct turns.
    Steps,
    /// `max_errors`: calls with status `error`.
    Errors,
    /// `max_repeats`: calls identical to an earlier call of the run.
    Repeats,
    /// `max_loop`: the occurrences back to back of the run's longest loop.
    Loop,
    /// The entry of `max_calls_per_tool` at this position.
    PerTool(usize),
    /// `max_input_tokens`: input tokens over the run's models.
    InputTokens,
    /// `max_output_tokens`: output tokens over the run's models.
    OutputTokens,
    /// `max_tokens`: input plus output tokens.
    Tokens,
    /// `max_duration_ms`: from the run's first event to its last.
    Duration,
    /// `max_call_duration_ms`: the run's longest completed call.
    CallDuration,
    /// `max_cost`: the run's tokens at the suite's `prices:`.
    Cost,
}

/// A run's count against a limit, or the limit's value: a number of calls, turns or tokens,
/// a duration (in nanoseconds, shown in milliseconds), or an amount of money.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Amount {
    /// A whole count.
    Count(u64),
    /// A duration in nanoseconds, shown in milliseconds (`1500.25`).
    Nanos(u64),
    /// Money.
    Money(Cost),
}

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Count(count) => write!(f, "{count}"),
            Self::Nanos(nanos) => {
                let (whole, fraction) = (nanos / 1_000_000, nanos % 1_000_000);
                if fraction == 0 {
                    write!(f, "{whole}")
                } else {
                    let digits = format!("{fraction:06}");
                    write!(f, "{whole}.{}", digits.trim_end_matches('0'))
                }
            }
            Self::Money(cost) => write!(f, "{cost}"),
        }
    }
}

impl Amount {
    /// The amount as a JSON number, exactly as shown.
    pub(crate) fn json(self) -> serde_json::Number {
        match self {
            Self::Count(count) => count.into(),
            Self::Nanos(_) => self
                .to_string()
                .parse()
                .unwrap_or_else(|_| serde_json::Number::from(0)),
            Self::Money(cost) => cost.json(),
        }
    }
}

/// What a run lacks that a limit of the grader needs (docs/graders/budget.md#usage-and-time):
/// an input error, never a pass.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lack {
    /// Token usage, for a token limit or `max_cost`.
    Usage(Limit),
    /// The times of its first and last events, for `max_duration_ms`.
    Times,
    /// The start and end of a completed call (its number, from 1), for
    /// `max_call_duration_ms`.
    CallTimes(usize),
    /// A price for this model, for `max_cost`.
    Price(String),
}

impl Limit {
    /// The limit's key in a `budget` config; `None` for a `max_calls_per_tool` entry.
    pub fn key(self) -> Option<&'static str> {
        Some(match self {
            Self::Calls => "max_calls",
            Self::Steps => "max_steps",
            Self::Errors => "max_errors",
            Self::Repeats => "max_repeats",
            Self::Loop => "max_loop",
            Self::PerTool(_) => return None,
            Self::InputTokens => "max_input_tokens",
            Self::OutputTokens => "max_output_tokens",
            Self::Tokens => "max_tokens",
            Self::Duration => "max_duration_ms",
            Self::CallDuration => "max_call_duration_ms",
            Self::Cost => "max_cost",
        })
    }
}

/// A `max_calls_per_tool` entry: the calls a step matcher matches, at most `max`.
#[derive(Debug, Clone)]
pub struct ToolLimit {
    /// Which calls count.
    pub step: StepMatcher,
    /// How many may be made.
    pub max: u64,
}

/// A test's `budget` grader, checked. Its default sets no limit and no gate: it only
/// counts.
#[derive(Debug, Clone, Default)]
pub struct BudgetGrader {
    /// `max_calls`.
    pub max_calls: Option<u64>,
    /// `max_steps`.
    pub max_steps: Option<u64>,
    /// `max_errors`.
    pub max_errors: Option<u64>,
    /// `max_repeats`.
    pub max_repeats: Option<u64>,
    /// `max_loop`.
    pub max_loop: Option<u64>,
    /// `max_calls_per_tool`, in order.
    pub per_tool: Vec<ToolLimit>,
    /// `optimal_calls`: the length of the known best path.
    pub optimal_calls: Option<u64>,
    /// `max_input_tokens`.
    pub max_input_tokens: Option<u64>,
    /// `max_output_tokens`.
    pub max_output_tokens: Option<u64>,
    /// `max_tokens`: input plus output.
    pub max_tokens: Option<u64>,
    /// `max_duration_ms`.
    pub max_duration_ms: Option<u64>,
    /// `max_call_duration_ms`.
    pub max_call_duration_ms: Option<u64>,
    /// `max_cost`, exact.
    pub max_cost: Option<Cost>,
    /// The suite's `prices:`, for `max_cost`.
    pub prices: Prices,
    /// The grader's position in its test's `graders:`, where input errors about runs are
    /// placed.
    pub index: usize,
    /// The gates on `budget.*`.
    pub gates: Vec<Gate>,
}

/// A limit a run went past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exceeded {
    /// Which limit.
    pub limit: Limit,
    /// The run's count.
    pub count: Amount,
    /// The limit's value.
    pub max: Amount,
}

/// A loop: a block of 1 to 8 consecutive calls that occurs several times back
/// to back, each occurrence the same tools with equal arguments as the one before
/// (docs/graders/budget.md#loops).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loop {
    /// The block's tools, in order.
    pub tools: Vec<ToolId>,
    /// The call its first occurrence starts at, from 1.
    pub call: usize,
    /// How many times it occurs back to back.
    pub occurrences: u64,
}

/// The longest block of calls a loop may be made of.
pub(crate) const LOOP_BLOCK: usize = 8;

/// The grader's verdict on one run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunBudget {
    /// Whether the run is within every limit.
    pub passed: bool,
    /// Its calls.
    pub calls: u64,
    /// Its distinct turns.
    pub steps: u64,
    /// Its calls with status `error`.
    pub errors: u64,
    /// Its calls identical to an earlier call (same tool, JSON-equal arguments).
    pub repeats: u64,
    /// Its calls counted by each `max_calls_per_tool` entry, in order.
    pub per_tool: Vec<u64>,
    /// The limits it went past, in the order of [`Limit`].
    pub exceeded: Vec<Exceeded>,
    /// The first repeated call and the earlier call it repeats (not for
    /// [`Detail::Counts`]).
    pub first_repeat: Option<(CalledTool, usize)>,
    /// With `max_loop`, the block of calls that occurs the most times back to back, when one
    /// occurs at least twice (docs/graders/budget.md#loops).
    pub longest_loop: Option<Loop>,
    /// With `optimal_calls` N, max(N, calls): the run's share of the denominator of
    /// `budget.efficiency`; its calls otherwise.
    pub weighed: u64,
    /// With a token limit or `max_cost`: the run's input and output tokens over its models.
    pub tokens: Option<(u64, u64)>,
    /// With `max_cost`: what the run's tokens cost.
    pub cost: Option<Cost>,
    /// With `max_duration_ms`: from the run's first event to its last, in nanoseconds.
    pub duration_ns: Option<u64>,
    /// With `max_call_duration_ms`: the run's longest completed call and its duration in
    /// nanoseconds; `None` when it completed none.
    pub longest_call: Option<(CalledTool, u64)>,
    /// What the run lacks that a limit needs: an input error (docs/graders/budget.md).
    pub lacking: Vec<Lack>,
    /// How input errors name the run (`run 2 (traces/b.json)`), when it lacks something.
    pub label: Option<String>,
}

impl BudgetGrader {
    /// The value of `limit`, when the grader sets it.
    pub fn max_of(&self, limit: Limit) -> Option<u64> {
        match limit {
            Limit::Calls => self.max_calls,
            Limit::Steps => self.max_steps,
            Limit::Errors => self.max_errors,
            Limit::Repeats => self.max_repeats,
            Limit::Loop => self.max_loop,
            Limit::PerTool(index) => self.per_tool.get(index).map(|limit| limit.max),
            Limit::InputTokens => self.max_input_tokens,
            Limit::OutputTokens => self.max_output_tokens,
            Limit::Tokens => self.max_tokens,
            Limit::Duration => self.max_duration_ms,
            Limit::CallDuration => self.max_call_duration_ms,
            Limit::Cost => None,
        }
    }

    /// Whether a limit needs the run's token usage.
    fn needs_usage(&self) -> bool {
        self.max_input_tokens.is_some()
            || self.max_output_tokens.is_some()
            || self.max_tokens.is_some()
            || self.max_cost.is_some()
    }

    /// The first limit set that needs the run's token usage, in the order of [`Limit`].
    fn usage_limit(&self) -> Limit {
        [
            (Limit::InputTokens, self.max_input_tokens.is_some()),
            (Limit::OutputTokens, self.max_output_tokens.is_some()),
            (Limit::Tokens, self.max_tokens.is_some()),
        ]
        .into_iter()
        .find_map(|(limit, set)| set.then_some(limit))
        .unwrap_or(Limit::Cost)
    }

    /// The run's usage and times against the new limits: the amounts past a limit, and
    /// what the run lacks that a limit needs (docs/graders/budget.md#usage-and-time).
    fn usage_and_time(&self, run: &Run, verdict: &mut RunBudget) -> Vec<Exceeded> {
        let mut exceeded = Vec::new();
        let mut over = |limit: Limit, count: Amount, max: Amount| {
            if count > max {
                exceeded.push(Exceeded { limit, count, max });
            }
        };
        if self.needs_usage() {
            if run.usage.is_empty() {
                verdict.lacking.push(Lack::Usage(self.usage_limit()));
            } else {
                let (input, output) = run.usage.models.values().fold((0_u64, 0_u64), |sum, t| {
                    (
                        sum.0.saturating_add(t.input),
                        sum.1.saturating_add(t.output),
                    )
                });
                verdict.tokens = Some((input, output));
                let total = input.saturating_add(output);
                for (limit, count) in [
                    (Limit::InputTokens, input),
                    (Limit::OutputTokens, output),
                    (Limit::Tokens, total),
                ] {
                    if let Some(max) = self.max_of(limit) {
                        over(limit, Amount::Count(count), Amount::Count(max));
                    }
                }
                if let Some(max) = self.max_cost {
                    match self.prices.cost(&run.usage) {
                        Ok(cost) => {
                            verdict.cost = Some(cost);
                            over(Limit::Cost, Amount::Money(cost), Amount::Money(max));
                        }
                        Err(model) => verdict.lacking.push(Lack::Price(model.to_owned())),
                    }
                }
            }
        }
        let millis = |ms: u64| Amount::Nanos(ms.saturating_mul(1_000_000));
        if let Some(max) = self.max_duration_ms {
            match run.time {
                Some(time) => {
                    let nanos =
                        u64::try_from(time.end_ns.saturating_sub(time.start_ns)).unwrap_or(0);
                    verdict.duration_ns = Some(nanos);
                    over(Limit::Duration, Amount::Nanos(nanos), millis(max));
                }
                None => verdict.lacking.push(Lack::Times),
            }
        }
        if let Some(max) = self.max_call_duration_ms {
            let mut longest: Option<(usize, u64)> = None;
            for (index, call) in run.calls.iter().enumerate().filter(|(_, c)| c.completed) {
                let Some(time) = call.time else {
                    verdict.lacking.push(Lack::CallTimes(index + 1));
                    break;
                };
                let nanos = u64::try_from(time.end_ns.saturating_sub(time.start_ns)).unwrap_or(0);
                if longest.is_none_or(|(_, most)| nanos > most) {
                    longest = Some((index, nanos));
                }
            }
            if let Some((index, nanos)) = longest {
                let made = &run.calls[index];
                verdict.longest_call = Some((
                    CalledTool {
                        call: index + 1,
                        tool: ToolId::new(made.server.clone(), made.name.clone()),
                    },
                    nanos,
                ));
                over(Limit::CallDuration, Amount::Nanos(nanos), millis(max));
            }
        }
        exceeded
    }

    /// Grades one run; every call counts, completed or not.
    pub fn grade(&self, run: &Run) -> RunBudget {
        self.grade_as(run, Detail::Full)
    }

    /// [`grade`](Self::grade), to the `detail` given: without it, no call named.
    pub fn grade_as(&self, run: &Run, detail: Detail) -> RunBudget {
        let calls = &run.calls;
        let mut turns: Vec<u32> = calls.iter().map(|call| call.step).collect();
        turns.sort_unstable();
        turns.dedup();
        let errors = calls
            .iter()
            .filter(|call| call.status == Status::Error)
            .count() as u64;
        // Loops are looked for only when a limit is set on them: the search costs a few
        // comparisons a call, which a suite without `max_loop` does not pay.
        let scan = scan(calls, self.max_loop.is_some());
        let (repeats, first_repeat) = (scan.repeats, scan.first_repeat);
        let longest_loop = scan.longest_loop.map(|found| Loop {
            tools: calls[found.start..found.start + found.length]
                .iter()
                .map(|made| ToolId::new(made.server.clone(), made.name.clone()))
                .collect(),
            call: found.start + 1,
            occurrences: found.occurrences,
        });
        // A run without a loop has blocks that occur once, or none when it made no call.
        let loop_count = longest_loop
            .as_ref()
            .map_or(u64::from(!calls.is_empty()), |found| found.occurrences);
        let per_tool: Vec<u64> = self
            .per_tool
            .iter()
            .map(|limit| calls.iter().filter(|call| limit.step.matches(call)).count() as u64)
            .collect();
        let counts = [
            (Limit::Calls, calls.len() as u64),
            (Limit::Steps, turns.len() as u64),
            (Limit::Errors, errors),
            (Limit::Repeats, repeats),
            (Limit::Loop, loop_count),
        ]
        .into_iter()
        .chain(
            per_tool
                .iter()
                .enumerate()
                .map(|(index, count)| (Limit::PerTool(index), *count)),
        );
        let exceeded: Vec<Exceeded> = counts
            .filter_map(|(limit, count)| {
                let max = self.max_of(limit)?;
                (count > max).then_some(Exceeded {
                    limit,
                    count: Amount::Count(count),
                    max: Amount::Count(max),
                })
            })
            .collect();
        let mut verdict = RunBudget {
            weighed: self.optimal_calls.map_or(calls.len() as u64, |optimal| {
                optimal.max(calls.len() as u64)
            }),
            passed: exceeded.is_empty(),
            calls: calls.len() as u64,
            steps: turns.len() as u64,
            errors,
            repeats,
            per_tool,
            exceeded,
            first_repeat: match detail {
                Detail::Full => first_repeat.map(|(call, earlier)| {
                    let made = &calls[call];
                    (
                        CalledTool {
                            call: call + 1,
                            tool: ToolId::new(made.server.clone(), made.name.clone()),
                        },
                        earlier + 1,
                    )
                }),
                Detail::Counts => None,
            },
            longest_loop,
            tokens: None,
            cost: None,
            duration_ns: None,
            longest_call: None,
            lacking: Vec::new(),
            label: None,
        };
        let more = self.usage_and_time(run, &mut verdict);
        verdict.exceeded.extend(more);
        verdict.passed = verdict.exceeded.is_empty();
        verdict
    }
}

/// What one pass over a run's calls finds: its repeats and its longest loop.
#[derive(Debug, Default, PartialEq, Eq)]
struct Scan {
    /// The calls identical to an earlier one.
    repeats: u64,
    /// The first such call and the earlier call it repeats, by position.
    first_repeat: Option<(usize, usize)>,
    /// The longest loop, when `loops` was asked for and a block occurs twice.
    longest_loop: Option<LoopAt>,
}

/// A loop by position: the block `start..start + length` occurs `occurrences` times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LoopAt {
    start: usize,
    length: usize,
    occurrences: u64,
}

/// The calls of a run identical to an earlier one (same tool, arguments equal as call
/// arguments are: keys in any order, numbers by value), the first such call with the
/// earlier call it repeats, by position, and with `loops`, the longest loop.
///
/// Each call is looked up by its tool and its arguments' [equality
/// key](trailgate_trace::ValueRef::equality_key), which equal arguments share and unequal
/// ones do not: one map lookup per call, whatever the run's length. The lookup gives each
/// call the position of the first call equal to it, so two calls are equal exactly when
/// those positions are, and the loop search compares positions, not arguments.
fn scan(calls: &[Call], loops: bool) -> Scan {
    type Key<'c> = (Option<&'c str>, &'c str, Cow<'c, str>);
    // Keyed by the trace's text, so hashed with a randomly seeded hash (`foldhash`, fast
    // on long keys); only looked up, never listed, so its order cannot reach a report.
    #[allow(clippy::disallowed_types)]
    let mut seen: std::collections::HashMap<Key<'_>, usize, foldhash::fast::RandomState> =
        std::collections::HashMap::with_capacity_and_hasher(
            calls.len(),
            foldhash::fast::RandomState::default(),
        );
    let mut found = Scan::default();
    let mut search = LoopSearch::default();
    for (index, call) in calls.iter().enumerate() {
        let key = (
            call.server.as_deref(),
            call.name.as_str(),
            call.args.equality_key(),
        );
        let first = match seen.entry(key) {
            Entry::Occupied(earlier) => {
                found.repeats += 1;
                found.first_repeat.get_or_insert((index, *earlier.get()));
                *earlier.get()
            }
            Entry::Vacant(slot) => {
                slot.insert(index);
                index
            }
        };
        if loops {
            search.push(index, first);
        }
    }
    found.longest_loop = search.longest;
    found
}

/// The search for a run's longest loop, fed each call's class (the position of the first
/// call equal to it) in order: for each block length L, the length of the current stretch
/// of calls equal to the call L before them. A stretch of m such calls ending at call i
/// repeats the block that starts L calls before it 1 + m / L times. Memory: the last
/// [`LOOP_BLOCK`] classes and one stretch per length; time: [`LOOP_BLOCK`] comparisons a
/// call (docs/graders/budget.md#loops).
#[derive(Debug, Default)]
struct LoopSearch {
    /// The classes of the last [`LOOP_BLOCK`] calls, call i's at `i % LOOP_BLOCK`.
    recent: [usize; LOOP_BLOCK],
    /// For block length `L`, at `L - 1`: the calls up to the last one that equal the call
    /// L before them, back to the first that does not.
    stretch: [usize; LOOP_BLOCK],
    /// The loop with the most occurrences so far; of equal ones, the one that starts
    /// first, then the shortest block.
    longest: Option<LoopAt>,
}

impl LoopSearch {
    fn push(&mut self, index: usize, class: usize) {
        for length in 1..=LOOP_BLOCK.min(index) {
            let slot = length - 1;
            if self.recent[(index - length) % LOOP_BLOCK] != class {
                self.stretch[slot] = 0;
                continue;
            }
            self.stretch[slot] += 1;
            let stretch = self.stretch[slot];
            // A new occurrence completes only when the stretch covers another whole block.
            if !stretch.is_multiple_of(length) {
                continue;
            }
            let candidate = LoopAt {
                start: index + 1 - stretch - length,
                length,
                occurrences: 1 + (stretch / length) as u64,
            };
            // A block made of a shorter block repeated (A A) occurs fewer times than the
            // shorter one (A) at the same start, so the longest loop is never one of them.
            let better = self.longest.is_none_or(|best| {
                (
                    std::cmp::Reverse(candidate.occurrences),
                    candidate.start,
                    candidate.length,
                ) < (std::cmp::Reverse(best.occurrences), best.start, best.length)
            });
            if better {
                self.longest = Some(candidate);
            }
        }
        self.recent[index % LOOP_BLOCK] = class;
    }
}

/// The grader's verdict over all runs of a test.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BudgetOutcome {
    /// The limits as written: `(key, value)`, in the order of the keys.
    pub limits: Vec<(&'static str, u64)>,
    /// The `max_calls_per_tool` entries as reports show them, with their `max`.
    pub per_tool: Vec<(String, u64)>,
    /// `optimal_calls`.
    pub optimal_calls: Option<u64>,
    /// Each listed run, in run order (see [`TestOutcome`](crate::TestOutcome)).
    pub runs: Vec<RunBudget>,
    /// The runs within every limit.
    pub passing_runs: u64,
    /// With `optimal_calls` N: Σ max(N, calls) over the runs.
    pub weighed_calls: u64,
    /// With `max_loop`: the most occurrences of a loop in any run, 0 when no run has one
    /// (`None` without `max_loop`).
    pub longest_loop: Option<u64>,
    /// `budget.pass_rate`.
    pub pass_rate: Percent,
    /// `budget.efficiency`, with `optimal_calls`.
    pub efficiency: Option<Percent>,
    /// `max_cost`.
    pub max_cost: Option<Cost>,
    /// With a token limit or `max_cost`: the input and output tokens summed over the runs
    /// (`usage.input_tokens` and `usage.output_tokens` are their means, floored).
    pub tokens: Option<(u128, u128)>,
    /// With `max_cost`: the cost summed over the runs (`usage.cost` is its mean, floored to
    /// 6 digits after the point).
    pub cost: Option<Cost>,
    /// How many runs the sums cover.
    pub run_count: u64,
}

impl BudgetOutcome {
    /// `budget.pass_rate`: the share of runs within every limit, rounded down.
    pub fn pass_rate_of(passing: u64, runs: u64) -> Percent {
        Percent::floor_of(passing, runs)
    }

    /// `budget.efficiency`: floor(100 × N·runs / Σ max(N, calls)); every run counts at
    /// least N calls, so the denominator is 0 only with no run.
    pub fn efficiency_of(optimal: u64, runs: u64, weighed: u64) -> Percent {
        Percent::floor_of(optimal.saturating_mul(runs), weighed)
    }

    /// The outcome over `runs` runs from the sums, listing `listed`.
    pub(crate) fn new(
        grader: &BudgetGrader,
        listed: Vec<RunBudget>,
        (passing_runs, weighed_calls, longest_loop): (u64, u64, u64),
        usage: (u128, u128, u128),
        runs: u64,
    ) -> Self {
        let limits = [
            ("max_calls", grader.max_calls),
            ("max_steps", grader.max_steps),
            ("max_errors", grader.max_errors),
            ("max_repeats", grader.max_repeats),
            ("max_loop", grader.max_loop),
            ("max_input_tokens", grader.max_input_tokens),
            ("max_output_tokens", grader.max_output_tokens),
            ("max_tokens", grader.max_tokens),
            ("max_duration_ms", grader.max_duration_ms),
            ("max_call_duration_ms", grader.max_call_duration_ms),
        ]
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
        .collect();
        Self {
            limits,
            per_tool: grader
                .per_tool
                .iter()
                .map(|limit| (limit.step.to_string(), limit.max))
                .collect(),
            optimal_calls: grader.optimal_calls,
            runs: listed,
            passing_runs,
            weighed_calls,
            longest_loop: grader.max_loop.map(|_| longest_loop),
            pass_rate: Self::pass_rate_of(passing_runs, runs),
            efficiency: grader
                .optimal_calls
                .map(|optimal| Self::efficiency_of(optimal, runs, weighed_calls)),
            max_cost: grader.max_cost,
            tokens: grader.needs_usage().then_some((usage.0, usage.1)),
            cost: grader.max_cost.map(|_| Cost(usage.2)),
            run_count: runs,
        }
    }

    /// The mean of a sum over `runs` runs, floored; 0 with no run.
    pub fn mean_of(sum: u128, runs: u64) -> u128 {
        sum.checked_div(u128::from(runs)).unwrap_or(0)
    }

    /// `usage.input_tokens` and `usage.output_tokens`: the means of the token sums over
    /// `runs` runs, floored.
    pub fn token_metrics(tokens: (u128, u128), runs: u64) -> (MetricValue, MetricValue) {
        (
            MetricValue::whole(Self::mean_of(tokens.0, runs)),
            MetricValue::whole(Self::mean_of(tokens.1, runs)),
        )
    }

    /// `usage.cost`: the mean of the cost summed over `runs` runs, floored to six digits
    /// after the point.
    pub fn cost_metric(cost: Cost, runs: u64) -> MetricValue {
        let per_millionth = 10_u128.pow(crate::prices::COST_DIGITS - METRIC_DIGITS);
        MetricValue::from_millionths(Self::mean_of(cost.0, runs) / per_millionth)
    }

    /// The `usage.*` metrics of the outcome, for the limits the grader has, in report order.
    pub fn usage_metrics(&self) -> Vec<(Target, MetricValue)> {
        let mut metrics = Vec::new();
        if let Some(tokens) = self.tokens {
            let (input, output) = Self::token_metrics(tokens, self.run_count);
            metrics.extend([(INPUT_TOKENS, input), (OUTPUT_TOKENS, output)]);
        }
        if let Some(cost) = self.cost {
            metrics.push((COST, Self::cost_metric(cost, self.run_count)));
        }
        metrics
    }

    /// How a report names a limit: its key, or the tool of a `max_calls_per_tool` entry.
    pub fn limit_name(&self, limit: Limit) -> String {
        match limit {
            Limit::PerTool(index) => format!(
                "max_calls_per_tool {}",
                self.per_tool
                    .get(index)
                    .map_or("", |(step, _)| step.as_str())
            ),
            other => other.key().unwrap_or_default().to_owned(),
        }
    }
}

mod explain;
mod grader;
pub(crate) mod json;
pub(crate) mod recheck;

#[cfg(test)]
mod tests;
