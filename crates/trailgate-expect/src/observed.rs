//! What `trailgate init --from` sees in a test's recorded runs, shared by the kinds that
//! each write their part of the suggested test (docs/init.md): the tools every run called,
//! the calls the runs have in common, in order, and the YAML it writes them in.
//!
//! The kinds' parts are in `graders/<kind>/suggest.rs`; `suggest.rs` puts them together.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;
use trailgate_core::{check_sequence_size, longest_common_subsequence};
use trailgate_trace::{Call, Run};

/// A tool as recorded: its server, when the trace named one, and its name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Tool {
    pub(crate) server: Option<String>,
    pub(crate) name: String,
}

impl Tool {
    fn of(call: &Call) -> Self {
        Self {
            // An empty server names nothing a suite can write: the tool counts as bare.
            server: call.server.clone().filter(|server| !server.is_empty()),
            name: call.name.clone(),
        }
    }

    /// The tool id as reports write it: `server.name`, or `name`.
    pub(crate) fn id(&self) -> String {
        match &self.server {
            Some(server) => format!("{server}.{}", self.name),
            None => self.name.clone(),
        }
    }

    /// The tool as a member of a class or a step (docs/scoring.md#tool-identity): the string
    /// `server.name` or `name`, or the map form when a part holds a `.`.
    pub(crate) fn member(&self) -> String {
        let dotted = self.name.contains('.')
            || self
                .server
                .as_deref()
                .is_some_and(|server| server.contains('.'));
        match (&self.server, dotted) {
            (Some(server), true) => {
                format!(
                    "{{ server: {}, tool: {} }}",
                    quote(server),
                    quote(&self.name)
                )
            }
            (None, true) => format!("{{ tool: {} }}", quote(&self.name)),
            _ => quote(&self.id()),
        }
    }

    /// Whether a suite can name the tool at all: a member with an empty name is an error.
    fn nameable(&self) -> bool {
        !self.name.is_empty()
    }
}

/// A tool with a completed call in every run.
#[derive(Debug, Clone)]
pub(crate) struct Required {
    pub(crate) tool: Tool,
    /// The fewest completed calls of it in one run, and the most.
    pub(crate) counts: (u64, u64),
}

/// A test's runs, as `init --from` sees them.
#[derive(Debug)]
pub(crate) struct Observed<'r> {
    pub(crate) runs: &'r [Run],
    /// The tools with a completed call in every run, in the order of their first completed
    /// call in the first run.
    pub(crate) required: Vec<Required>,
    /// Whether every run calls the same tools in the same order.
    pub(crate) identical: bool,
    /// The calls the runs have in common, in order: the tool of each step, and for each run
    /// the index of its call paired with the step (docs/init.md#the-common-calls). Empty when
    /// the runs are too long to compare.
    pub(crate) common: Vec<Tool>,
    pub(crate) matched: Vec<Vec<usize>>,
}

impl<'r> Observed<'r> {
    /// What `runs` (at least one) have in common.
    pub(crate) fn new(runs: &'r [Run]) -> Self {
        let tools: Vec<Vec<Tool>> = runs
            .iter()
            .map(|run| run.calls.iter().map(Tool::of).collect())
            .collect();
        let identical = tools.windows(2).all(|pair| pair[0] == pair[1]);
        let (common, matched) = common_calls(&tools);
        Self {
            runs,
            required: required(runs, &tools),
            identical,
            common,
            matched,
        }
    }

    /// The number of runs.
    pub(crate) fn n(&self) -> usize {
        self.runs.len()
    }

    /// "in 3 of 3 runs", "in the one run".
    pub(crate) fn of_runs(&self, count: usize) -> String {
        if self.n() == 1 {
            "in the one run".to_owned()
        } else {
            format!("in {count} of {} runs", self.n())
        }
    }

    /// What a gate's comment ends with: "holds on each of the 3 runs", "holds on the run".
    pub(crate) fn holds(&self) -> String {
        if self.n() == 1 {
            "holds on the run".to_owned()
        } else {
            format!("holds on each of the {} runs", self.n())
        }
    }

    /// `n what` per run, as a range over the runs: "3 to 7 calls per run", "2 calls in the
    /// one run", with `one` and `many` the noun's forms.
    pub(crate) fn per_run(&self, counts: (u64, u64), one: &str, many: &str) -> String {
        let noun = if counts == (1, 1) { one } else { many };
        if self.n() == 1 {
            format!("{} {noun} in the one run", counts.1)
        } else {
            format!("{} {noun} per run", range(counts))
        }
    }
}

/// `name`, or `name (2)`, `name (3)`, ... when `taken` holds it: names that must differ
/// (a suite's tests, a test's classes) taken from things that may read the same.
pub(crate) fn unique_name(name: &str, taken: &[String]) -> String {
    let mut candidate = name.to_owned();
    let mut n = 1;
    while taken.contains(&candidate) {
        n += 1;
        candidate = format!("{name} ({n})");
    }
    candidate
}

/// `min to max`, or `n` when they are equal.
pub(crate) fn range((low, high): (u64, u64)) -> String {
    if low == high {
        low.to_string()
    } else {
        format!("{low} to {high}")
    }
}

/// The tools with a completed call in every run, in the order of their first completed call
/// in the first run, with the range of their completed calls per run.
fn required(runs: &[Run], tools: &[Vec<Tool>]) -> Vec<Required> {
    let mut order: Vec<Tool> = Vec::new();
    let mut counts: BTreeMap<&Tool, Vec<u64>> = BTreeMap::new();
    for (index, (run, run_tools)) in runs.iter().zip(tools).enumerate() {
        for (call, tool) in run.calls.iter().zip(run_tools) {
            if !call.completed || !tool.nameable() {
                continue;
            }
            let per_run = counts.entry(tool).or_insert_with(|| vec![0; runs.len()]);
            per_run[index] += 1;
            if index == 0 && per_run[0] == 1 {
                order.push(tool.clone());
            }
        }
    }
    order
        .into_iter()
        .filter_map(|tool| {
            let per_run = counts.get(&tool)?;
            let low = per_run.iter().copied().min()?;
            let high = per_run.iter().copied().max()?;
            (low > 0).then_some(Required {
                tool,
                counts: (low, high),
            })
        })
        .collect()
}

/// The calls every run has in common, in order: the longest common subsequence of the first
/// two runs' tools, then of that and the third run's, and so on (among the longest, the one
/// at the earliest positions of the running result, then of the run added); with, for each
/// run, the index of its call paired with each step. Nothing when two sequences compared
/// are past the pairing limit (docs/robustness.md#limits).
fn common_calls(tools: &[Vec<Tool>]) -> (Vec<Tool>, Vec<Vec<usize>>) {
    let Some(first) = tools.first() else {
        return (Vec::new(), Vec::new());
    };
    // Each step: its tool, and its call in each run folded in so far.
    let mut steps: Vec<(Tool, Vec<usize>)> = first
        .iter()
        .enumerate()
        .filter(|(_, tool)| tool.nameable())
        .map(|(index, tool)| (tool.clone(), vec![index]))
        .collect();
    for run in &tools[1..] {
        if check_sequence_size(steps.len(), run.len()).is_err() {
            return (Vec::new(), vec![Vec::new(); tools.len()]);
        }
        let pairs = longest_common_subsequence(steps.len(), run.len(), |i, j| steps[i].0 == run[j]);
        let mut kept = Vec::with_capacity(pairs.len());
        let mut steps_left = std::mem::take(&mut steps).into_iter().enumerate();
        for (i, j) in pairs {
            let Some((_, (tool, mut calls))) = steps_left.find(|(index, _)| *index == i) else {
                continue;
            };
            calls.push(j);
            kept.push((tool, calls));
        }
        steps = kept;
    }
    let mut matched = vec![Vec::with_capacity(steps.len()); tools.len()];
    let mut common = Vec::with_capacity(steps.len());
    for (tool, calls) in steps {
        for (run, call) in matched.iter_mut().zip(calls) {
            run.push(call);
        }
        common.push(tool);
    }
    (common, matched)
}

// ---------------------------------------------------------------------------------------
// Writing YAML that reads back to the same values.

/// A line of a suggested block: its depth below the block (two spaces each), its text, and
/// the comment at its end. A line whose text starts with `#` is a comment of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct YamlLine {
    pub(crate) depth: usize,
    pub(crate) text: String,
    pub(crate) comment: Option<String>,
}

/// The lines of one kind's part of a suggested test: the body of its `config:` (or of its
/// block at the test's top level).
#[derive(Debug, Clone, Default)]
pub(crate) struct Suggested {
    pub(crate) lines: Vec<YamlLine>,
}

impl Suggested {
    /// Adds a line at `depth`.
    pub(crate) fn line(&mut self, depth: usize, text: impl Into<String>) -> &mut Self {
        self.lines.push(YamlLine {
            depth,
            text: text.into(),
            comment: None,
        });
        self
    }

    /// Adds a line at `depth` with a comment at its end.
    pub(crate) fn noted(
        &mut self,
        depth: usize,
        text: impl Into<String>,
        comment: impl Into<String>,
    ) -> &mut Self {
        self.lines.push(YamlLine {
            depth,
            text: text.into(),
            comment: Some(comment.into()),
        });
        self
    }

    /// Adds `key: value` at `depth` with a comment at its end; a key too long to be
    /// implicit takes a line of its own, `? key`, with `: value` under it.
    pub(crate) fn entry(&mut self, depth: usize, key: &str, value: &str, why: impl Into<String>) {
        if key.chars().count() > LONGEST_IMPLICIT_KEY {
            self.line(depth, format!("? {}", quote(key)));
            self.noted(depth, format!(": {value}"), why);
        } else {
            self.noted(depth, format!("{}: {value}", quote(key)), why);
        }
    }

    /// Adds a gate `target >= value` under `expect:` at `depth`, with what it came from.
    pub(crate) fn gate(&mut self, depth: usize, target: &str, value: u8, why: impl Into<String>) {
        self.line(depth, "expect:");
        self.noted(depth + 1, format!("- {target}: {{ \">=\": {value} }}"), why);
    }
}

/// `text` as a YAML double-quoted scalar that reads back as `text`: quotes and backslashes
/// escaped, and every character YAML would fold (line breaks, including U+0085, U+2028 and
/// U+2029) or refuses (control characters, U+FEFF, U+FFFE, U+FFFF) written as an escape.
pub(crate) fn quote(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            c if (c as u32) < 0x20
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                ) =>
            {
                let _ = write!(quoted, "\\u{:04x}", c as u32);
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// The longest key written as a plain `key: value`: YAML allows an implicit key of at most
/// 1,024 characters, so a longer one is written as an explicit `? key` (docs/init.md).
const LONGEST_IMPLICIT_KEY: usize = 1000;

/// `value` as YAML in flow style on one line, reading back as the same JSON value: strings
/// quoted, numbers as recorded, keys past [`LONGEST_IMPLICIT_KEY`] as explicit keys.
pub(crate) fn flow(value: &Value) -> String {
    let mut out = String::new();
    write_flow(value, &mut out);
    out
}

fn write_flow(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(number) => out.push_str(&number.to_string()),
        Value::String(text) => out.push_str(&quote(text)),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_flow(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_key(key, out);
                write_flow(item, out);
            }
            out.push('}');
        }
    }
}

/// `key: `, or `? key : ` for a key too long to be implicit (in flow style).
fn write_key(key: &str, out: &mut String) {
    if key.chars().count() > LONGEST_IMPLICIT_KEY {
        out.push_str("? ");
        out.push_str(&quote(key));
        out.push_str(" : ");
    } else {
        out.push_str(&quote(key));
        out.push_str(": ");
    }
}

/// Whether `value` holds, at any depth, an object with a key that starts with `$`: written
/// as a literal, it would read as an operator, so it is written `{ $eq: ... }`.
pub(crate) fn holds_dollar_key(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(holds_dollar_key),
        Value::Object(map) => map
            .iter()
            .any(|(key, item)| key.starts_with('$') || holds_dollar_key(item)),
        _ => false,
    }
}

/// A value as a literal of the matcher language: as it is, or `{ $eq: ... }` when it holds
/// a `$` key.
pub(crate) fn literal(value: &Value) -> String {
    if holds_dollar_key(value) {
        format!("{{ \"$eq\": {} }}", flow(value))
    } else {
        flow(value)
    }
}
