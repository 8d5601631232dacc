//! A suite suggested from recorded runs, `trailgate init --from` (docs/init.md): one test
//! per set of runs, to which each grader kind adds its part (`graders/<kind>/suggest.rs`,
//! through [`Grader::suggest`]), every gate holding on each run alone.

use std::fmt::Write as _;

use trailgate_trace::Run;

use crate::graders::config::GraderConfig;
use crate::graders::contract::Grader;
use crate::graders::{Block, registry};
use crate::observed::{Observed, Suggested, YamlLine, quote, unique_name};

/// One test of a suggested suite.
#[derive(Debug, Clone)]
pub struct SuggestTest<'r> {
    /// Its name; a name an earlier test of the suite has gets ` (2)`, ` (3)`, ...
    pub name: String,
    /// Its `traces:`, as the suite writes them (paths relative to the suite's folder, with
    /// glob characters escaped).
    pub traces: Vec<String>,
    /// Its `trace_format:`, when one was given.
    pub trace_format: Option<String>,
    /// Its `naming:`, when one was given.
    pub naming: Option<SuggestNaming>,
    /// Its runs, at least one, in the order `check` reads them.
    pub runs: &'r [Run],
}

/// A test's `naming:` (docs/formats.md): a scheme, with its servers or pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuggestNaming {
    /// The scheme's name.
    pub scheme: String,
    /// The known servers of the `mcp-single` and `dash` schemes.
    pub servers: Vec<String>,
    /// The pattern of the `regex` scheme.
    pub pattern: Option<String>,
}

/// Builds, from the registry, each kind's part of a suggested test.
macro_rules! suggest_kinds {
    ($($field:ident: $variant:ident = $grader:ty, $key:literal;)*) => {
        /// Each kind's part of a test suggested from `observed`, in registry order: the
        /// kind, whether it is written under `graders:`, and the part.
        fn parts(observed: &Observed<'_>) -> Vec<(Block, bool, Suggested)> {
            let mut parts = Vec::new();
            $(
                if let Some(part) = <$grader as Grader>::suggest(observed) {
                    let in_graders =
                        <<$grader as Grader>::Config as GraderConfig>::IN_GRADERS;
                    parts.push((Block::$variant, in_graders, part));
                }
            )*
            parts
        }
    };
}

registry!(suggest_kinds);

/// The suite suggested for `tests`: each test with what its runs show, every gate holding on
/// each of its runs, every expectation commented with what it was inferred from. The same
/// tests give the same bytes.
pub fn suggest_suite(tests: &[SuggestTest<'_>]) -> String {
    let mut out = String::new();
    out.push_str(
        "# Written by `trailgate init --from` from recorded runs: every gate below holds on \
         each of them.\n\
         # Each comment says what a line was inferred from. Tighten what must always hold, \
         loosen\n\
         # what may vary, then commit the suite and run `trailgate check` in CI.\n\
         tests:\n",
    );
    let mut names: Vec<String> = Vec::new();
    for test in tests {
        let name = unique_name(&test.name, &names);
        write_test(test, &name, &mut out);
        names.push(name);
    }
    out
}

/// One test, under `tests:`.
fn write_test(test: &SuggestTest<'_>, name: &str, out: &mut String) {
    let observed = Observed::new(test.runs);
    push(out, 1, &format!("- name: {}", quote(name)), None);
    if !test.traces.is_empty() {
        push(out, 2, "traces:", None);
        for trace in &test.traces {
            push(out, 3, &format!("- {}", quote(trace)), None);
        }
    }
    if let Some(format) = &test.trace_format {
        push(out, 2, &format!("trace_format: {}", quote(format)), None);
    }
    if let Some(naming) = &test.naming {
        push(out, 2, &format!("naming: {}", naming_text(naming)), None);
    }
    let parts = parts(&observed);
    for (block, _, part) in parts.iter().filter(|(_, in_graders, _)| !in_graders) {
        push(out, 2, &format!("{}:", block.key()), None);
        write_lines(&part.lines, 3, out);
    }
    let mut graders = parts
        .iter()
        .filter(|(_, in_graders, _)| *in_graders)
        .peekable();
    if graders.peek().is_some() {
        push(out, 2, "graders:", None);
    }
    for (block, _, part) in graders {
        push(out, 3, &format!("- type: {}", block.key()), None);
        push(out, 4, "config:", None);
        write_lines(&part.lines, 5, out);
    }
    if observed.n() >= 2 {
        let k = observed.n().min(3);
        push(out, 2, "reliability:", None);
        push(
            out,
            3,
            &format!("k: {k}"),
            Some(&format!(
                "pass@{k} and pass^{k} over the {} runs",
                observed.n()
            )),
        );
        push(out, 3, "# expect:", None);
        push(
            out,
            3,
            "#   - reliability.pass_rate.lower: { \">=\": 80 }  # once you know how often a \
             run should pass",
            None,
        );
    }
}

/// A `naming:` value: the scheme's name, or a map with its servers or pattern.
fn naming_text(naming: &SuggestNaming) -> String {
    if naming.servers.is_empty() && naming.pattern.is_none() {
        return quote(&naming.scheme);
    }
    let mut text = format!("{{ scheme: {}", quote(&naming.scheme));
    if !naming.servers.is_empty() {
        let servers: Vec<String> = naming.servers.iter().map(|s| quote(s)).collect();
        let _ = write!(text, ", servers: [{}]", servers.join(", "));
    }
    if let Some(pattern) = &naming.pattern {
        let _ = write!(text, ", pattern: {}", quote(pattern));
    }
    text.push_str(" }");
    text
}

/// A part's lines, its depth 0 at `depth`.
fn write_lines(lines: &[YamlLine], depth: usize, out: &mut String) {
    for line in lines {
        push(out, depth + line.depth, &line.text, line.comment.as_deref());
    }
}

/// One line at `depth` (two spaces each), with its comment.
fn push(out: &mut String, depth: usize, text: &str, comment: Option<&str>) {
    for _ in 0..depth {
        out.push_str("  ");
    }
    out.push_str(text);
    if let Some(comment) = comment {
        out.push_str("  # ");
        out.push_str(comment);
    }
    out.push('\n');
}
