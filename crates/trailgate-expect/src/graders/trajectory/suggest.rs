//! The `trajectory` grader suggested from recorded runs (docs/init.md): `strict` over the
//! calls when every run made the same calls in the same order, otherwise `in_order` over
//! the calls every run made in order.

use crate::observed::{Observed, Suggested, Tool};

/// The steps, each a tool; nothing with fewer than two steps.
pub(super) fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
    let first = observed.runs.first()?;
    let all_named = first.calls.iter().all(|call| !call.name.is_empty());
    let (mode, steps, why): (&str, Vec<Tool>, String) = if observed.identical && all_named {
        let steps: Vec<Tool> = observed
            .matched
            .first()
            .filter(|matched| matched.len() == first.calls.len())
            .map(|_| observed.common.clone())?;
        let why = if observed.n() == 1 {
            format!("the run's {} calls, in order, and no other", steps.len())
        } else {
            format!(
                "every run made these {} calls, in this order, and no other",
                steps.len()
            )
        };
        ("strict", steps, why)
    } else {
        let why = format!(
            "the {} calls every run made in this order, among others",
            observed.common.len()
        );
        // (The runs differ, so there are two at least.)
        ("in_order", observed.common.clone(), why)
    };
    if steps.len() < 2 {
        return None;
    }
    let mut config = Suggested::default();
    config.noted(0, format!("mode: {mode}"), why);
    config.line(0, "expected:");
    for step in &steps {
        config.line(1, format!("- {}", step_of(step)));
    }
    config.gate(
        0,
        "trajectory.match_rate",
        100,
        format!("every step matched: {}", observed.holds()),
    );
    Some(config)
}

/// A tool as a step: its member, in a `{ tool: ... }` map when the member is a map (a map
/// of its own would read as a step's `server` regex and `tool`).
fn step_of(tool: &Tool) -> String {
    let member = tool.member();
    if member.starts_with('{') {
        format!("{{ tool: {member} }}")
    } else {
        member
    }
}
