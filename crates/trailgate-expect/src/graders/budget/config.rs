//! The `budget` grader's `config:` as the suite writes it (`max_calls`, `max_steps`,
//! `max_errors`, `max_repeats`, `max_loop`, `max_calls_per_tool`, `optimal_calls`, the
//! token, duration and cost limits), and its checks into
//! a [`BudgetGrader`] (docs/graders/budget.md).

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Problem;
use crate::expect::{self, Expectations};
use crate::gate::Target;
use crate::graders::Block;
use crate::graders::config::{GraderConfig, config_keys};
use crate::matchers::{ArgsMode, ValueMatcher};
use crate::step_matcher::config::{RawStep, step_matcher};
use crate::suite_file::{PathSeg, SuiteFile, join};
use crate::tool_matcher::config::{AgentValue, MemberValue, PatternValue, TestClasses};

use super::{BudgetGrader, Cost, Prices, ToolLimit};
use crate::prices::{COST_DIGITS, NotAnAmount, WrittenNumber, scaled};

/// The keys of a `budget` config, as read before the grader's `type:` is known (see
/// [`RawGraderConfig`](crate::graders::config::RawGraderConfig)).
#[derive(Default, JsonSchema)]
pub(crate) struct RawConfig {
    max_calls: Option<i64>,
    max_steps: Option<i64>,
    max_errors: Option<i64>,
    max_repeats: Option<i64>,
    // Read as any number, so that `1.5` gets its own help (docs/graders/budget.md#loops).
    #[schemars(with = "Option<i64>")]
    max_loop: Option<serde_json::Number>,
    max_calls_per_tool: Option<Vec<RawToolLimit>>,
    optimal_calls: Option<i64>,
    max_input_tokens: Option<i64>,
    max_output_tokens: Option<i64>,
    max_tokens: Option<i64>,
    max_duration_ms: Option<i64>,
    max_call_duration_ms: Option<i64>,
    // Read as the decimal its text spells (docs/graders/budget.md#cost).
    max_cost: Option<WrittenNumber>,
}

/// An entry of `max_calls_per_tool`: a step matcher's keys and `max`. (Plain comments:
/// schemars would put a doc comment into the schema.)
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawToolLimit {
    tool: Option<MemberValue>,
    class: Option<String>,
    server: Option<PatternValue>,
    agent: Option<AgentValue>,
    args: Option<ValueMatcher>,
    args_mode: Option<ArgsMode>,
    // How many calls of the step may be made; 0 forbids it.
    max: Option<i64>,
}

impl GraderConfig for RawConfig {
    type Grader = BudgetGrader;

    config_keys!(
        max_calls,
        max_steps,
        max_errors,
        max_repeats,
        max_loop,
        max_calls_per_tool,
        optimal_calls,
        max_input_tokens,
        max_output_tokens,
        max_tokens,
        max_duration_ms,
        max_call_duration_ms,
        max_cost
    );

    /// A `budget` config (docs/graders/budget.md).
    fn check(
        self,
        expect: Option<Expectations>,
        file: &SuiteFile,
        index: usize,
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<BudgetGrader> {
        let before = problems.len();
        if self.keys_present().iter().all(|(_, present)| !present) {
            problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::missing_key",
                        "a `budget` grader needs at least one limit",
                        "no limit",
                    )
                    .with_help(
                        "set `max_calls`, `max_steps`, `max_errors`, `max_repeats`, \
                         `max_loop`, `max_calls_per_tool`, `optimal_calls`, \
                         `max_input_tokens`, `max_output_tokens`, `max_tokens`, \
                         `max_duration_ms`, `max_call_duration_ms` or `max_cost`; see \
                         docs/graders/budget.md",
                    ),
                    path,
                ),
            );
        }
        let loop_limit = whole("max_loop", self.max_loop, file, path, problems);
        // 0 calls or 0 turns would refuse every run that does anything, as would a loop limit
        // of 0 (every call is a block that occurs once), and an optimal path of 0 calls makes
        // efficiency meaningless: each needs at least 1.
        let mut limit = |key: &'static str, value: Option<i64>, least: i64| {
            checked_limit(key, value, least, file, path, problems)
        };
        let max_calls = limit("max_calls", self.max_calls, 1);
        let max_steps = limit("max_steps", self.max_steps, 1);
        let max_errors = limit("max_errors", self.max_errors, 0);
        let max_repeats = limit("max_repeats", self.max_repeats, 0);
        let max_loop = limit("max_loop", loop_limit, 1);
        let optimal_calls = limit("optimal_calls", self.optimal_calls, 1);
        let max_input_tokens = limit("max_input_tokens", self.max_input_tokens, 0);
        let max_output_tokens = limit("max_output_tokens", self.max_output_tokens, 0);
        let max_tokens = limit("max_tokens", self.max_tokens, 0);
        let max_duration_ms = limit("max_duration_ms", self.max_duration_ms, 0);
        let max_call_duration_ms = limit("max_call_duration_ms", self.max_call_duration_ms, 0);
        let cost_written = self.max_cost.is_some();
        let max_cost = self
            .max_cost
            .and_then(|written| max_cost(&written, file, path, problems));
        let per_tool = tool_limits(self.max_calls_per_tool, file, path, classes, problems);
        // `budget.efficiency` exists only with `optimal_calls`; the token metrics only with
        // a limit that reads usage, and `usage.cost` only with `max_cost`.
        let reads_usage = [
            self.max_input_tokens,
            self.max_output_tokens,
            self.max_tokens,
        ]
        .iter()
        .any(Option::is_some)
            || cost_written;
        let targets: Vec<Target> = [
            (super::PASS_RATE, true),
            (super::EFFICIENCY, self.optimal_calls.is_some()),
            (super::INPUT_TOKENS, reads_usage),
            (super::OUTPUT_TOKENS, reads_usage),
            (super::COST, cost_written),
        ]
        .into_iter()
        .filter_map(|(target, has)| has.then_some(target))
        .collect();
        let block = expect::Block {
            key: Block::Budget.key(),
            targets: &targets,
            needs: target_needs,
        };
        let gates = expect::gates_of(
            file,
            expect,
            &block,
            Some(Block::Budget.default_gate()),
            &join(path, &[PathSeg::Key("expect")]),
            problems,
        );
        if problems.len() > before {
            return None;
        }
        Some(BudgetGrader {
            max_calls,
            max_steps,
            max_errors,
            max_repeats,
            max_loop,
            per_tool,
            optimal_calls,
            max_input_tokens,
            max_output_tokens,
            max_tokens,
            max_duration_ms,
            max_call_duration_ms,
            max_cost,
            // The suite's `prices:` are set once the suite is read (`parse.rs`).
            prices: Prices::default(),
            index,
            gates,
        })
    }
}

/// What a budget needs to produce `target` when it produces it only with some of its
/// settings (docs/graders/budget.md#usage-metrics).
fn target_needs(target: &str) -> Option<&'static str> {
    let is = |known: Target| target == known.as_str();
    if is(super::EFFICIENCY) {
        Some("needs `optimal_calls`")
    } else if is(super::COST) {
        Some("needs `max_cost`")
    } else if is(super::INPUT_TOKENS) || is(super::OUTPUT_TOKENS) {
        Some("needs a token limit or `max_cost` in the same `budget`")
    } else {
        None
    }
}

/// A limit of at least `least`, checked: a problem at its key otherwise.
fn checked_limit(
    key: &'static str,
    value: Option<i64>,
    least: i64,
    file: &SuiteFile,
    path: &[PathSeg<'_>],
    problems: &mut Vec<Problem>,
) -> Option<u64> {
    let value = value?;
    let at = join(path, &[PathSeg::Key(key)]);
    if value < least {
        let (message, help) = if value < 0 {
            (
                format!("`{key}` is negative: {value}"),
                match key {
                    "max_loop" => "a loop limit counts the times a block occurs: write \
                                       a number of at least 1"
                        .to_owned(),
                    "max_input_tokens" | "max_output_tokens" | "max_tokens" => {
                        "a limit counts tokens: write a number of at least 0".to_owned()
                    }
                    "max_duration_ms" | "max_call_duration_ms" => {
                        "a limit counts milliseconds: write a number of at least 0".to_owned()
                    }
                    _ => {
                        format!("a limit counts calls: write a number of at least {least}")
                    }
                },
            )
        } else {
            (
                format!("`{key}` must be at least 1"),
                match key {
                    "optimal_calls" => "the best path makes at least one call; \
                                            write its length"
                        .to_owned(),
                    // Every call is a block that occurs once: 1 allows no loop.
                    "max_loop" => "a block of calls occurs at least once; \
                                       `max_loop: 1` allows no loop \
                                       (docs/graders/budget.md#loops)"
                        .to_owned(),
                    _ => format!(
                        "`{key}: 0` would fail every run that calls a tool; to forbid \
                             calls, use `tool-calls` `disallowed`"
                    ),
                },
            )
        };
        problems.push(
            file.located(
                Problem::new("trailgate::suite::invalid_value", message, "out of range")
                    .with_help(help),
                &at,
            ),
        );
        return None;
    }
    u64::try_from(value).ok()
}

/// `max_cost`, exact: a decimal of at least 0 with at most 18 digits after the point.
fn max_cost(
    written: &WrittenNumber,
    file: &SuiteFile,
    path: &[PathSeg<'_>],
    problems: &mut Vec<Problem>,
) -> Option<Cost> {
    let text = &written.0;
    let (message, label, help) = match scaled(text, COST_DIGITS) {
        Ok(units) => return Some(Cost(units)),
        Err(NotAnAmount::Negative) => (
            format!("`max_cost` is negative: {text}"),
            "out of range",
            "a cost limit is an amount of the suite's currency: write a number of at least 0"
                .to_owned(),
        ),
        Err(NotAnAmount::TooPrecise) => (
            format!("`max_cost` has more than {COST_DIGITS} digits after the point: {text}"),
            "too precise",
            format!("costs are exact to {COST_DIGITS} digits after the point: round the limit"),
        ),
        Err(NotAnAmount::TooLarge) => (
            format!("`max_cost` is too large: {text}"),
            "out of range",
            "write a cost below 10^20".to_owned(),
        ),
    };
    problems.push(file.located(
        Problem::new("trailgate::suite::invalid_value", message, label).with_help(help),
        &join(path, &[PathSeg::Key("max_cost")]),
    ));
    None
}

/// A limit read as any number, as an integer: a number with a fraction is refused at its
/// span; one past `i64` is `i64::MAX`, which no run reaches.
fn whole(
    key: &'static str,
    value: Option<serde_json::Number>,
    file: &SuiteFile,
    path: &[PathSeg<'_>],
    problems: &mut Vec<Problem>,
) -> Option<i64> {
    let value = value?;
    if let Some(whole) = value.as_i64() {
        return Some(whole);
    }
    if value.as_u64().is_some() {
        return Some(i64::MAX);
    }
    problems.push(
        file.located(
            Problem::new(
                "trailgate::suite::invalid_value",
                format!("`{key}` is not a whole number: {value}"),
                "not a whole number",
            )
            .with_help(
                "a loop limit counts the times a block occurs: write a whole number of at least 1",
            ),
            &join(path, &[PathSeg::Key(key)]),
        ),
    );
    None
}

/// The entries of `max_calls_per_tool`, checked: each a step and a `max` of at least 0.
fn tool_limits(
    entries: Option<Vec<RawToolLimit>>,
    file: &SuiteFile,
    path: &[PathSeg<'_>],
    classes: TestClasses<'_>,
    problems: &mut Vec<Problem>,
) -> Vec<ToolLimit> {
    let mut per_tool = Vec::new();
    for (index, entry) in entries.into_iter().flatten().enumerate() {
        let at = join(
            path,
            &[PathSeg::Key("max_calls_per_tool"), PathSeg::Index(index)],
        );
        let max = match entry.max {
            None => {
                problems.push(
                    file.located(
                        Problem::new(
                            "trailgate::suite::missing_key",
                            "an entry of `max_calls_per_tool` needs `max`",
                            "no `max`",
                        )
                        .with_help("say how many calls of the tool may be made: `max: 3`"),
                        &at,
                    ),
                );
                None
            }
            Some(max) if max < 0 => {
                problems.push(
                    file.located(
                        Problem::new(
                            "trailgate::suite::invalid_value",
                            format!("`max` is negative: {max}"),
                            "out of range",
                        )
                        .with_help("a limit counts calls: write a number of at least 0"),
                        &join(&at, &[PathSeg::Key("max")]),
                    ),
                );
                None
            }
            Some(max) => u64::try_from(max).ok(),
        };
        let step = RawStep {
            tool: entry.tool.map(|member| member.0),
            class: entry.class,
            server: entry.server,
            agent: entry.agent,
            args: entry.args,
            args_mode: entry.args_mode,
        };
        let step = step_matcher(file, step, &at, classes, problems);
        if let (Some(step), Some(max)) = (step, max) {
            per_tool.push(ToolLimit { step, max });
        }
    }
    per_tool
}
