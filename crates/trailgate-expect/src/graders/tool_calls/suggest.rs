//! The `tool-calls` grader suggested from recorded runs (docs/init.md): the tools every run
//! completed a call of, with how often, and a `disallowed` example to fill in.

use std::fmt::Write as _;

use crate::observed::{Observed, Required, Suggested, quote};

/// The longest regex written for one tool name; a longer name is left to the class that
/// names it (a regex is refused past 64 KiB, and counts towards the suite's total).
const LONGEST_PATTERN: usize = 16 * 1024;

/// `required`, each tool anchored (`^name$`), with `min_count` where every run completed
/// at least two calls of it; nothing when no tool qualifies.
pub(super) fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
    let entries: Vec<(String, &Required)> = observed
        .required
        .iter()
        .filter_map(|required| entry(required).map(|text| (text, required)))
        .collect();
    if entries.is_empty() {
        return None;
    }
    let mut config = Suggested::default();
    config.line(0, "required:");
    for (text, required) in entries {
        let times = match required.counts {
            (1, 1) => String::new(),
            counts => format!(", {}", observed.per_run(counts, "time", "times")),
        };
        config.noted(
            1,
            format!("- {text}"),
            format!("completed {}{times}", observed.of_runs(observed.n())),
        );
    }
    config.line(0, "# disallowed:");
    config.line(
        0,
        "#   - { name: \"^delete_repository$\" }  # a tool the agent must never call: name yours",
    );
    config.gate(
        0,
        "tool_calls.pass_rate",
        100,
        format!("every required call made: {}", observed.holds()),
    );
    Some(config)
}

/// The entry of a required tool: its name, and its server when it has one, each anchored;
/// `min_count` when every run completed two calls or more.
fn entry(required: &Required) -> Option<String> {
    let name = regex::escape(&required.tool.name);
    let server = required.tool.server.as_deref().map(regex::escape);
    if name.len() + server.as_ref().map_or(0, String::len) > LONGEST_PATTERN {
        return None;
    }
    let mut text = format!("{{ name: {}", quote(&format!("^{name}$")));
    if let Some(server) = server {
        let _ = write!(text, ", server: {}", quote(&format!("^{server}$")));
    }
    if required.counts.0 >= 2 {
        let _ = write!(text, ", min_count: {}", required.counts.0);
    }
    text.push_str(" }");
    Some(text)
}
