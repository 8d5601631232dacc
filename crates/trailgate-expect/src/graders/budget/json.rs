//! The `budget` grader's part of the JSON report.

use std::collections::BTreeMap;
use std::io;

use serde::Serialize;

use crate::json_part::{CallJson, Entries, JsonPart, ToolName};
use crate::run::RunInfo;

use super::{BudgetGrader, BudgetOutcome, RunBudget};

/// The grader's run-sized list.
const RUNS: usize = 0;

/// How many run-sized lists the grader's object holds.
pub(crate) const LISTS: usize = 1;

/// The names of the grader's run-sized lists, by number: their keys in its object.
pub(crate) const LIST_NAMES: [&str; LISTS] = ["runs"];

/// How the grader's run entries name its limits, and whether they name a loop (with
/// `max_loop`).
#[derive(Debug, Clone, Default)]
pub(crate) struct BudgetNames(Vec<String>, bool);

/// The keys under which the grader's run entries name a call by its number: the first repeat's
/// `call` and `repeats_call`, the longest loop's and the longest call's `call`.
const CALL_KEYS: [&str; 2] = ["call", "repeats_call"];

impl BudgetGrader {
    pub(crate) fn json_names(&self) -> BudgetNames {
        BudgetNames(
            (0..self.per_tool.len())
                .map(|index| self.per_tool[index].step.to_string())
                .collect(),
            self.max_loop.is_some(),
        )
    }
}

impl BudgetOutcome {
    pub(crate) fn json_names(&self) -> BudgetNames {
        BudgetNames(
            self.per_tool.iter().map(|(step, _)| step.clone()).collect(),
            self.longest_loop.is_some(),
        )
    }

    /// The grader's object: its limits, the sums and metrics, its list.
    pub(crate) fn json_part(&self) -> JsonPart {
        let limits: BTreeMap<&str, u64> = self.limits.iter().copied().collect();
        let per_tool: Vec<ToolLimitJson<'_>> = self
            .per_tool
            .iter()
            .map(|(step, max)| ToolLimitJson { step, max: *max })
            .collect();
        let mut part = JsonPart::new("budget")
            .naming_calls(&CALL_KEYS)
            .value("limits", &limits)
            .value("max_calls_per_tool", &per_tool)
            .value("optimal_calls", &self.optimal_calls)
            .value("passing_runs", &self.passing_runs)
            .value("weighed_calls", &self.weighed_calls);
        // Only with `max_loop`, so that a report without it reads as before.
        if let Some(longest) = self.longest_loop {
            part = part.value("longest_loop", &longest);
        }
        // Only with the limits that need them, so that a report without them reads as
        // before: the sums over runs, which `merge` adds up, and the limit as written.
        if let Some(max_cost) = self.max_cost {
            part = part.value("max_cost", &max_cost.json());
        }
        if let Some((input, output)) = self.tokens {
            part = part
                .value("input_tokens", &input)
                .value("output_tokens", &output);
        }
        if let Some(cost) = self.cost {
            part = part.value("cost", &cost.json());
        }
        part.value("pass_rate", &self.pass_rate.value())
            .value(
                "efficiency",
                &self.efficiency.map(trailgate_core::Percent::value),
            )
            .list(LIST_NAMES[RUNS], RUNS)
    }
}

#[derive(Serialize)]
struct ToolLimitJson<'a> {
    step: &'a str,
    max: u64,
}

/// Writes one run's entry.
pub(crate) fn write_entries(
    names: &BudgetNames,
    info: &RunInfo,
    run: &RunBudget,
    entries: &mut Entries<'_>,
) -> io::Result<()> {
    let name = |limit: super::Limit| match limit {
        super::Limit::PerTool(index) => format!(
            "max_calls_per_tool {}",
            names.0.get(index).map_or("", String::as_str)
        ),
        other => other.key().unwrap_or_default().to_owned(),
    };
    let entry = BudgetRun {
        run: info.number,
        passed: run.passed,
        calls: run.calls,
        steps: run.steps,
        errors: run.errors,
        repeats: run.repeats,
        per_tool: &run.per_tool,
        weighed: run.weighed,
        exceeded: run
            .exceeded
            .iter()
            .map(|e| ExceededJson {
                limit: name(e.limit),
                count: e.count.json(),
                max: e.max.json(),
            })
            .collect(),
        first_repeat: run.first_repeat.as_ref().map(|(call, earlier)| RepeatJson {
            call: CallJson::of(call),
            repeats_call: *earlier,
        }),
        longest_loop: names.1.then(|| {
            run.longest_loop.as_ref().map(|found| LoopJson {
                tools: found.tools.iter().map(ToolName).collect(),
                call: found.call,
                occurrences: found.occurrences,
            })
        }),
        input_tokens: run.tokens.map(|(input, _)| input),
        output_tokens: run.tokens.map(|(_, output)| output),
        cost: run.cost.map(super::Cost::json),
        duration_ms: run
            .duration_ns
            .map(|nanos| super::Amount::Nanos(nanos).json()),
        longest_call: run
            .longest_call
            .as_ref()
            .map(|(call, nanos)| LongestCallJson {
                call: CallJson::of(call),
                duration_ms: super::Amount::Nanos(*nanos).json(),
            }),
    };
    entries.push(RUNS, &entry)
}

#[derive(Serialize)]
struct BudgetRun<'a> {
    run: usize,
    passed: bool,
    calls: u64,
    steps: u64,
    errors: u64,
    repeats: u64,
    per_tool: &'a [u64],
    weighed: u64,
    exceeded: Vec<ExceededJson>,
    first_repeat: Option<RepeatJson>,
    /// With `max_loop`: the run's longest loop, `null` for none; absent without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[expect(
        clippy::option_option,
        reason = "three cases: no key without `max_loop`, `null` for no loop, the loop"
    )]
    longest_loop: Option<Option<LoopJson<'a>>>,
    /// With a token limit or `max_cost`, the run's tokens; absent otherwise, so that a
    /// report without these limits reads as before.
    #[serde(skip_serializing_if = "Option::is_none")]
    input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_tokens: Option<u64>,
    /// With `max_cost`, the run's cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<serde_json::Number>,
    /// With `max_duration_ms`, the run's duration.
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<serde_json::Number>,
    /// With `max_call_duration_ms`, its longest completed call.
    #[serde(skip_serializing_if = "Option::is_none")]
    longest_call: Option<LongestCallJson>,
}

#[derive(Serialize)]
struct LongestCallJson {
    call: CallJson,
    duration_ms: serde_json::Number,
}

#[derive(Serialize)]
struct LoopJson<'a> {
    tools: Vec<ToolName<'a>>,
    call: usize,
    occurrences: u64,
}

#[derive(Serialize)]
struct ExceededJson {
    limit: String,
    count: serde_json::Number,
    max: serde_json::Number,
}

#[derive(Serialize)]
struct RepeatJson {
    call: CallJson,
    repeats_call: usize,
}
