//! The `budget` grader suggested from recorded runs (docs/init.md): each limit at the
//! largest count seen in a run, with the range seen.

use crate::observed::{Observed, Suggested};
use crate::run::Detail;

use super::{BudgetGrader, RunBudget};

/// `max_calls`, `max_steps`, `max_repeats`, `max_loop` and `max_errors`, counted by the
/// grader itself.
pub(super) fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
    // A grader looks for loops only with `max_loop`; no run goes past this one.
    let counter = BudgetGrader {
        max_loop: Some(u64::MAX),
        ..BudgetGrader::default()
    };
    let budgets: Vec<RunBudget> = observed
        .runs
        .iter()
        .map(|run| counter.grade_as(run, Detail::Counts))
        .collect();
    let seen = |count: fn(&RunBudget) -> u64| {
        let low = budgets.iter().map(count).min().unwrap_or(0);
        let high = budgets.iter().map(count).max().unwrap_or(0);
        (low, high)
    };
    let calls = seen(|run| run.calls);
    let steps = seen(|run| run.steps);
    // `max_calls: 0` and `max_steps: 0` are refused; a test's runs hold a call.
    if calls.1 == 0 || steps.1 == 0 {
        return None;
    }
    let mut config = Suggested::default();
    config.noted(
        0,
        format!("max_calls: {}", calls.1),
        observed.per_run(calls, "call", "calls"),
    );
    config.noted(
        0,
        format!("max_steps: {}", steps.1),
        observed.per_run(steps, "step", "steps"),
    );
    let repeats = seen(|run| run.repeats);
    config.noted(
        0,
        format!("max_repeats: {}", repeats.1),
        observed.per_run(repeats, "repeated call", "repeated calls"),
    );
    // A run without a loop repeats no block: each occurs once, and `max_loop: 1` holds.
    let loops = seen(|run| {
        run.longest_loop
            .as_ref()
            .map_or(1, |found| found.occurrences)
    });
    config.noted(
        0,
        format!("max_loop: {}", loops.1),
        observed.per_run(
            loops,
            "back-to-back occurrence of one block",
            "back-to-back occurrences of one block",
        ),
    );
    let errors = seen(|run| run.errors);
    config.noted(
        0,
        format!("max_errors: {}", errors.1),
        observed.per_run(errors, "failed call", "failed calls"),
    );
    config.gate(
        0,
        "budget.pass_rate",
        100,
        format!("every limit {}", observed.holds()),
    );
    Some(config)
}
