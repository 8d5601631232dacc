//! What `merge` checks of the `budget` block of a shard report's test: each run's verdict
//! against its counts, and the block's sums and metrics.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::recheck::{Fold, Listed, Metrics, Runs, Sum, same, same_percent};

use trailgate_trace::Decimal;

use super::{BudgetOutcome, COST, Cost, INPUT_TOKENS, LOOP_BLOCK, OUTPUT_TOKENS};
use crate::prices::{COST_DIGITS, scaled};

#[derive(Debug, Deserialize)]
pub(crate) struct BudgetView {
    pub(crate) limits: BTreeMap<String, u64>,
    pub(crate) optimal_calls: Option<u64>,
    pub(crate) passing_runs: u64,
    pub(crate) weighed_calls: u64,
    pub(crate) longest_loop: Option<u64>,
    pub(crate) pass_rate: u8,
    pub(crate) efficiency: Option<u8>,
    pub(crate) max_cost: Option<serde_json::Number>,
    pub(crate) input_tokens: Option<u128>,
    pub(crate) output_tokens: Option<u128>,
    pub(crate) cost: Option<serde_json::Number>,
    pub(crate) runs: Runs<BudgetFold>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct BudgetRunView {
    pub(crate) passed: bool,
    pub(crate) calls: u64,
    pub(crate) weighed: u64,
    pub(crate) exceeded: Vec<ExceededView>,
    pub(crate) longest_loop: Option<LoopView>,
    pub(crate) input_tokens: Option<u64>,
    pub(crate) output_tokens: Option<u64>,
    pub(crate) cost: Option<serde_json::Number>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ExceededView {
    pub(crate) limit: String,
    pub(crate) count: serde_json::Number,
    pub(crate) max: serde_json::Number,
}

/// A cost of a report as a whole number of units of 10^-18, or why not.
fn cost_units(what: &str, number: &serde_json::Number) -> Result<u128, String> {
    scaled(&number.to_string(), COST_DIGITS)
        .map_err(|_| format!("`{what}` is {number}, which is no cost"))
}

#[derive(Debug, Deserialize)]
pub(crate) struct LoopView {
    pub(crate) tools: Listed,
    pub(crate) call: u64,
    pub(crate) occurrences: u64,
}

/// The runs of `budget`, folded. A run's `weighed` is max(N, calls) for the block's
/// `optimal_calls` N, which the fold does not see: it keeps the first value above the
/// run's calls and the first run whose such value differs, and the fewest calls of a run
/// weighed at its calls, for the check against N. Of loops it keeps the most occurrences,
/// and the most of a run within `max_loop`, for the check against the limit.
#[derive(Debug, Default)]
pub(crate) struct BudgetFold {
    pub(crate) passing: u64,
    pub(crate) longest_loop: u64,
    pub(crate) longest_within: Option<(u64, u64)>,
    pub(crate) weighed: Sum,
    pub(crate) first_raised: Option<u64>,
    pub(crate) other_raised: Option<(u64, u64)>,
    pub(crate) fewest_unraised: Option<(u64, u64)>,
    /// The runs' input and output tokens and costs, summed, and whether any run states them.
    pub(crate) input_tokens: u128,
    pub(crate) output_tokens: u128,
    pub(crate) cost: u128,
    pub(crate) tokens_stated: bool,
    pub(crate) cost_stated: bool,
}

impl Fold for BudgetFold {
    type Run = BudgetRunView;

    fn add(&mut self, index: u64, run: BudgetRunView) -> Result<(), String> {
        let at_most = |e: &ExceededView| {
            let (count, max) = (e.count.to_string(), e.max.to_string());
            match (Decimal::parse(&count), Decimal::parse(&max)) {
                (Some(count), Some(max)) => count <= max,
                _ => true,
            }
        };
        if let Some(e) = run.exceeded.iter().find(|e| at_most(e)) {
            return Err(format!(
                "`budget.runs[{index}]` lists a limit of {} as exceeded by {}",
                e.max, e.count
            ));
        }
        if run.passed != run.exceeded.is_empty() {
            return Err(format!(
                "`budget.runs[{index}].passed` is {} but it lists {} exceeded limits",
                run.passed,
                run.exceeded.len()
            ));
        }
        let occurrences = match &run.longest_loop {
            Some(found) => {
                let length = found.tools.0;
                if found.occurrences < 2 || !(1..=LOOP_BLOCK as u64).contains(&length) {
                    return Err(format!(
                        "`budget.runs[{index}].longest_loop` is a block of {length} calls \
                         occurring {} times",
                        found.occurrences
                    ));
                }
                let last = found
                    .call
                    .saturating_add(length.saturating_mul(found.occurrences));
                if found.call == 0 || last - 1 > run.calls {
                    return Err(format!(
                        "`budget.runs[{index}].longest_loop` goes past the run's {} calls",
                        run.calls
                    ));
                }
                found.occurrences
            }
            None => u64::from(run.calls > 0),
        };
        if let (Some(input), Some(output)) = (run.input_tokens, run.output_tokens) {
            self.tokens_stated = true;
            self.input_tokens = self.input_tokens.saturating_add(u128::from(input));
            self.output_tokens = self.output_tokens.saturating_add(u128::from(output));
        }
        if let Some(cost) = &run.cost {
            self.cost_stated = true;
            let units = cost_units(&format!("budget.runs[{index}].cost"), cost)?;
            self.cost = self.cost.saturating_add(units);
        }
        match run.exceeded.iter().find(|e| e.limit == "max_loop") {
            Some(e) if e.count.as_u64() != Some(occurrences) => {
                return Err(format!(
                    "`budget.runs[{index}]` exceeds `max_loop` with {} occurrences, but its \
                     longest loop has {occurrences}",
                    e.count
                ));
            }
            Some(_) => {}
            None => {
                if self
                    .longest_within
                    .is_none_or(|(_, most)| occurrences > most)
                {
                    self.longest_within = Some((index, occurrences));
                }
            }
        }
        if run.longest_loop.is_some() {
            self.longest_loop = self.longest_loop.max(occurrences);
        }
        if run.weighed < run.calls {
            return Err(format!(
                "`budget.runs[{index}]` weighs {} calls but made {}",
                run.weighed, run.calls
            ));
        }
        if run.weighed > run.calls {
            let first = *self.first_raised.get_or_insert(run.weighed);
            if run.weighed != first && self.other_raised.is_none() {
                self.other_raised = Some((index, run.weighed));
            }
        } else if self
            .fewest_unraised
            .is_none_or(|(_, fewest)| run.calls < fewest)
        {
            self.fewest_unraised = Some((index, run.calls));
        }
        self.passing += u64::from(run.passed);
        self.weighed.add(run.weighed);
        Ok(())
    }
}

/// [`same`] for sums past 64 bits.
fn same_wide(what: &str, stated: u128, derived: u128) -> Result<(), String> {
    if stated == derived {
        Ok(())
    } else {
        Err(format!("{what} is {stated} but its runs give {derived}"))
    }
}

pub(crate) fn add_up(budget: &BudgetView, metrics: &Metrics<'_>) -> Result<(), String> {
    let runs = budget.runs.listed;
    let fold = &budget.runs.fold;
    budget.runs.first_problem()?;
    same("budget.passing_runs", budget.passing_runs, fold.passing)?;
    let weighed = fold.weighed.get("budget.runs[].weighed")?;
    same("budget.weighed_calls", budget.weighed_calls, weighed)?;
    match (budget.limits.get("max_loop"), budget.longest_loop) {
        (Some(max), Some(longest)) => {
            same("budget.longest_loop", longest, fold.longest_loop)?;
            if let Some((index, within)) = fold.longest_within
                && within > *max
            {
                return Err(format!(
                    "`budget.runs[{index}]` repeats a block {within} times, more than \
                     `max_loop` {max}, but does not list it as exceeded"
                ));
            }
        }
        (None, None) if fold.longest_loop == 0 => {}
        (None, None) => {
            return Err("`budget.runs[]` names a loop without `max_loop`".to_owned());
        }
        (Some(_), None) => return Err("`budget.longest_loop` is missing".to_owned()),
        (None, Some(_)) => {
            return Err("`budget.longest_loop` is stated without `max_loop`".to_owned());
        }
    }
    match (budget.input_tokens, budget.output_tokens) {
        (Some(input), Some(output)) => {
            same_wide("budget.input_tokens", input, fold.input_tokens)?;
            same_wide("budget.output_tokens", output, fold.output_tokens)?;
        }
        (None, None) if !fold.tokens_stated => {}
        _ => {
            return Err(
                "`budget.input_tokens` and `budget.output_tokens` do not match its runs' tokens"
                    .to_owned(),
            );
        }
    }
    match (&budget.cost, &budget.max_cost) {
        (Some(cost), Some(_)) => {
            let stated = cost_units("budget.cost", cost)?;
            same_wide("budget.cost (in units of 10^-18)", stated, fold.cost)?;
        }
        (None, None) if !fold.cost_stated => {}
        _ => {
            return Err(
                "`budget.cost` and `budget.max_cost` do not match its runs' costs".to_owned(),
            );
        }
    }
    // The `usage.*` metrics are the means of the sums just checked.
    if let (Some(input), Some(output)) = (budget.input_tokens, budget.output_tokens) {
        let (input, output) = BudgetOutcome::token_metrics((input, output), runs);
        metrics.check(INPUT_TOKENS.as_str(), input)?;
        metrics.check(OUTPUT_TOKENS.as_str(), output)?;
    }
    if let Some(cost) = &budget.cost {
        let cost = BudgetOutcome::cost_metric(Cost(cost_units("budget.cost", cost)?), runs);
        metrics.check(COST.as_str(), cost)?;
    }
    let pass_rate = BudgetOutcome::pass_rate_of(fold.passing, runs);
    same_percent("budget.pass_rate", budget.pass_rate, pass_rate)?;
    metrics.check("budget.pass_rate", pass_rate.into())?;
    let Some(optimal) = budget.optimal_calls else {
        // Without an optimal path a run weighs its calls.
        if let Some(raised) = fold.first_raised {
            return Err(format!(
                "`budget.runs[]` weighs {raised} calls, more than it made, without `optimal_calls`"
            ));
        }
        return Ok(());
    };
    let raised = match fold.first_raised {
        Some(first) if first != optimal => Some((0, first)),
        _ => fold.other_raised,
    };
    if let Some((index, value)) = raised {
        return Err(format!(
            "`budget.runs[{index}]` weighs {value} calls, but `optimal_calls` is {optimal}"
        ));
    }
    if let Some((index, calls)) = fold.fewest_unraised
        && calls < optimal
    {
        return Err(format!(
            "`budget.runs[{index}]` made {calls} calls, fewer than `optimal_calls` {optimal}, \
             but weighs them as they are"
        ));
    }
    let efficiency = BudgetOutcome::efficiency_of(optimal, runs, weighed);
    match budget.efficiency {
        Some(stated) => same_percent("budget.efficiency", stated, efficiency)?,
        None => return Err("`budget.efficiency` is missing".to_owned()),
    }
    metrics.check("budget.efficiency", efficiency.into())
}
