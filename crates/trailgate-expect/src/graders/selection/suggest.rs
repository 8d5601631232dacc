//! The equal-function-set block suggested from recorded runs (docs/init.md): one class per
//! tool that every run called, each gated to be called in every run.

use crate::observed::{Observed, Suggested, quote, unique_name};

/// One class per required tool, named after it, gated `tool_selection.recall >= 100`.
pub(super) fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
    if observed.required.is_empty() {
        return None;
    }
    let mut block = Suggested::default();
    block.line(
        0,
        "# One class per tool every run called. Tools that serve one purpose (one",
    );
    block.line(
        0,
        "# search on two servers) belong in one class: list them as its members.",
    );
    block.line(0, "classes:");
    let mut names: Vec<String> = Vec::new();
    for required in &observed.required {
        // Two tools can read the same (`github.repos.list` is `github` + `repos.list` and
        // `github.repos` + `list`); a class name is taken once.
        let name = unique_name(&required.tool.id(), &names);
        block.line(1, format!("- name: {}", quote(&name)));
        names.push(name);
        block.line(2, format!("members: [{}]", required.tool.member()));
    }
    block.gate(
        0,
        "tool_selection.recall",
        100,
        format!("every class called: {}", observed.holds()),
    );
    Some(block)
}
