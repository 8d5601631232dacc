//! The `budget` grader as the evaluation sees it (its `Grader`): grading a run, its sums
//! over runs, its outcome and metrics.

use crate::metric_value::MetricValue;

use crate::gate::{Gate, Target};
use std::collections::BTreeMap;

use crate::error::Problem;
use crate::graders::contract::{Grader, Unjudged, Verdicts, report_and_recheck};
use crate::observed::{Observed, Suggested};
use crate::run::{Detail, TestRun};
use crate::suite_file::PathSeg;

use super::{BudgetGrader, BudgetOutcome, Lack, RunBudget};

/// Runs within every limit, with `optimal_calls` N, Σ max(N, calls), summed over runs, and
/// the most occurrences of a run's longest loop (0: no loop), their maximum.
#[derive(Debug, Default)]
pub(crate) struct BudgetSums {
    passing: u64,
    weighed: u64,
    longest_loop: u64,
    /// Input and output tokens and the cost (in units of 10^-18) summed over runs.
    input_tokens: u128,
    output_tokens: u128,
    cost: u128,
    /// What runs lack that a limit needs, each with the run's label: the first
    /// [`LACKING_SHOWN`] of each kind, and how many there were.
    lacking: BTreeMap<LackKind, (u64, Vec<(String, Lack)>)>,
}

/// How many runs each problem about runs lacking something names.
const LACKING_SHOWN: usize = 5;

/// A kind of [`Lack`], one problem each: usage, run times, call times, or the price of
/// one model.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum LackKind {
    Usage,
    Times,
    CallTimes,
    Price(String),
}

impl LackKind {
    fn of(lack: &Lack) -> Self {
        match lack {
            Lack::Usage(_) => Self::Usage,
            Lack::Times => Self::Times,
            Lack::CallTimes(_) => Self::CallTimes,
            Lack::Price(model) => Self::Price(model.clone()),
        }
    }
}

impl Verdicts for BudgetGrader {
    type Run = RunBudget;
    type Outcome = BudgetOutcome;
}

impl Grader for BudgetGrader {
    type Config = super::config::RawConfig;
    const TARGETS: &'static [Target] = &[
        super::PASS_RATE,
        super::EFFICIENCY,
        super::INPUT_TOKENS,
        super::OUTPUT_TOKENS,
        super::COST,
    ];

    fn default_gate() -> Gate {
        Gate::at_least(super::PASS_RATE, 100)
    }

    type Sums = BudgetSums;

    fn grade(&self, run: &TestRun<'_>, detail: Detail) -> RunBudget {
        let mut verdict = self.grade_as(run.calls, detail);
        if !verdict.lacking.is_empty() {
            verdict.label = Some(format!("run {} ({})", run.number, run.source));
        }
        verdict
    }

    /// A run past a limit.
    fn has_findings(run: &RunBudget) -> bool {
        !run.passed
    }

    fn sums(&self) -> BudgetSums {
        BudgetSums::default()
    }

    fn add(sums: &mut BudgetSums, run: &RunBudget) {
        sums.passing += u64::from(run.passed);
        // Without `optimal_calls` the sum is not reported; it is kept the same way.
        sums.weighed = sums.weighed.saturating_add(run.weighed);
        if let Some(found) = &run.longest_loop {
            sums.longest_loop = sums.longest_loop.max(found.occurrences);
        }
        if let Some((input, output)) = run.tokens {
            sums.input_tokens = sums.input_tokens.saturating_add(u128::from(input));
            sums.output_tokens = sums.output_tokens.saturating_add(u128::from(output));
        }
        if let Some(cost) = run.cost {
            sums.cost = sums.cost.saturating_add(cost.0);
        }
        for lack in &run.lacking {
            let (count, shown) = sums.lacking.entry(LackKind::of(lack)).or_default();
            *count += 1;
            if shown.len() < LACKING_SHOWN {
                shown.push((run.label.clone().unwrap_or_default(), lack.clone()));
            }
        }
    }

    /// Runs that lack what a limit needs: one problem for each kind of lack, placed on the
    /// limit (docs/graders/budget.md#usage-and-time).
    fn unjudged(&self, sums: &BudgetSums) -> Vec<Unjudged> {
        sums.lacking
            .iter()
            .map(|(kind, (count, shown))| self.lacking_problem(kind, *count, shown))
            .collect()
    }

    fn outcome(&self, listed: Vec<RunBudget>, sums: BudgetSums, runs: u64) -> BudgetOutcome {
        BudgetOutcome::new(
            self,
            listed,
            (sums.passing, sums.weighed, sums.longest_loop),
            (sums.input_tokens, sums.output_tokens, sums.cost),
            runs,
        )
    }

    fn metrics(outcome: &BudgetOutcome) -> Vec<(Target, MetricValue)> {
        let mut metrics = vec![(super::PASS_RATE, outcome.pass_rate.into())];
        if let Some(efficiency) = outcome.efficiency {
            metrics.push((super::EFFICIENCY, efficiency.into()));
        }
        metrics.extend(outcome.usage_metrics());
        metrics
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// One run's share of passing runs, with `optimal_calls` its efficiency, and with
    /// limits on usage its own tokens and cost.
    fn run_metrics(&self, run: &RunBudget) -> Vec<(Target, MetricValue)> {
        let mut metrics = vec![(
            super::PASS_RATE,
            BudgetOutcome::pass_rate_of(u64::from(run.passed), 1).into(),
        )];
        if let Some(optimal) = self.optimal_calls {
            let efficiency = BudgetOutcome::efficiency_of(optimal, 1, run.weighed);
            metrics.push((super::EFFICIENCY, efficiency.into()));
        }
        if self.needs_usage() {
            let (input, output) = run.tokens.unwrap_or_default();
            let (input, output) =
                BudgetOutcome::token_metrics((u128::from(input), u128::from(output)), 1);
            metrics.extend([(super::INPUT_TOKENS, input), (super::OUTPUT_TOKENS, output)]);
        }
        if self.max_cost.is_some() {
            let cost = BudgetOutcome::cost_metric(run.cost.unwrap_or_default(), 1);
            metrics.push((super::COST, cost));
        }
        metrics
    }

    fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
        super::suggest::suggest(observed)
    }
}

impl BudgetGrader {
    /// The problem about `count` runs lacking what a limit needs, naming the first of them.
    fn lacking_problem(&self, kind: &LackKind, count: u64, shown: &[(String, Lack)]) -> Unjudged {
        let mut runs: Vec<String> = shown
            .iter()
            .map(|(label, lack)| match lack {
                Lack::CallTimes(call) => format!("{label} call {call}"),
                _ => label.clone(),
            })
            .collect();
        if count > shown.len() as u64 {
            runs.push(format!("and {} more", count - shown.len() as u64));
        }
        let runs = runs.join(", ");
        let (key, message, label, help) = match kind {
            LackKind::Usage => {
                let key = match shown.first() {
                    Some((_, Lack::Usage(limit))) => limit.key().unwrap_or("max_cost"),
                    _ => "max_cost",
                };
                (
                    key,
                    format!("`{key}` needs token usage, which {runs} does not record"),
                    "the run records no usage".to_owned(),
                    "a limit on tokens or cost reads the usage the trace records; convert a \
                     trace that has it, add `usage` to a trace in trailgate's format, or remove \
                     the limit (docs/formats.md#usage-and-time)"
                        .to_owned(),
                )
            }
            LackKind::Times => (
                "max_duration_ms",
                format!("`max_duration_ms` needs the run's times, which {runs} does not record"),
                "the run records no times".to_owned(),
                "a duration limit reads the times the trace records; add `started_at` and \
                 `ended_at` to a trace in trailgate's format, or remove the limit \
                 (docs/formats.md#usage-and-time)"
                    .to_owned(),
            ),
            LackKind::CallTimes => (
                "max_call_duration_ms",
                format!(
                    "`max_call_duration_ms` needs the start and end of each completed call, \
                     which {runs} does not record"
                ),
                "a completed call without times".to_owned(),
                "add `started_at` and `ended_at` to each call of a trace in trailgate's \
                 format, or remove the limit (docs/formats.md#usage-and-time)"
                    .to_owned(),
            ),
            LackKind::Price(model) => (
                "max_cost",
                format!("the model `{model}` of {runs} has no price in the suite's `prices:`"),
                "no price".to_owned(),
                format!(
                    "add the model to the suite's `prices:`, per million tokens: \
                     `\"{model}\": {{ input: 3, output: 15 }}` (docs/graders/budget.md#cost)"
                ),
            ),
        };
        Unjudged {
            at: vec![
                PathSeg::Key("graders"),
                PathSeg::Index(self.index),
                PathSeg::Key("config"),
                PathSeg::Key(key),
            ],
            problem: Problem::new("trailgate::grader::run_lacks", message, label).with_help(help),
        }
    }
}

report_and_recheck!(BudgetGrader, outcome BudgetOutcome, names super::json::BudgetNames, view super::recheck::BudgetView);
