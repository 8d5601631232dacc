//! The `tool-calls` grader: calls that must happen, calls that must not, and calls in order,
//! matched with regular expressions on names, arguments and results (docs/graders/tool-calls.md).

pub(crate) mod config;
mod suggest;

use std::fmt;
use std::ops::Range;

use trailgate_core::Percent;
use trailgate_core::lookup::LookupMap;
use trailgate_trace::{Call, ValueRef};

use std::collections::BTreeMap;

use crate::gate::{Gate, Target};
use crate::matchers::{ArgsMode, ValueMatcher};
use crate::memo::{Memo, REMEMBERED_TOOLS};
use crate::run::{Detail, TestRun};

use self::sequence::SequenceNear;
use crate::pattern::Pattern;
use crate::tool_matcher::{AgentMatcher, ClassTools};

/// `tool_calls.pass_rate`.
pub(crate) const PASS_RATE: Target = Target::new("tool_calls.pass_rate");

/// What a tool match says of an argument or of the result: a string is a regex (seed 002),
/// anything else a value matcher (docs/matchers.md).
#[derive(Debug, Clone)]
pub enum ValueTest {
    /// A regex: an argument must be a string it is found in; a result is searched as text.
    Regex(Pattern),
    /// A literal or an operator, matched against the value.
    Matcher(ValueMatcher),
}

impl fmt::Display for ValueTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Regex(pattern) => write!(f, "{pattern}"),
            Self::Matcher(matcher) => write!(f, "`{matcher}`"),
        }
    }
}

/// What a call must look like: its name, and optionally its class, server, arguments and
/// result.
#[derive(Debug, Clone)]
pub struct ToolMatch {
    /// Searched in the tool name; the empty pattern, which every name matches, when the
    /// entry names a `class` or a `server` instead.
    pub name: Pattern,
    /// The equal-function class whose members the call's tool must be among.
    pub class: Option<ClassTools>,
    /// Searched in the call's server; a call recorded without a server does not match.
    pub server: Option<Pattern>,
    /// The agent that made the call; a call recorded without an agent does not match.
    pub agent: Option<AgentMatcher>,
    /// Searched in the `command` argument, which a call whose name matches must have.
    pub command: Option<Pattern>,
    /// Searched in the `path` argument, which a call whose name matches must have.
    pub path: Option<Pattern>,
    /// The arguments, by name: a regex searched in a string argument, or a value matcher; a
    /// missing argument is a non-match (unless the matcher is `$present: false`).
    pub args: Vec<(String, ValueTest)>,
    /// Searched in the arguments as text: as recorded when they are not JSON (a patch),
    /// otherwise as compact JSON with sorted keys.
    pub args_raw: Option<Pattern>,
    /// What the result must be: a regex searched in it (a string as is, any other value as
    /// canonical JSON), or a value matcher.
    pub result: Option<ValueTest>,
}

impl fmt::Display for ToolMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if !self.name.as_str().is_empty()
            || (self.class.is_none() && self.server.is_none() && self.agent.is_none())
        {
            parts.push(self.name.to_string());
        }
        if let Some(class) = &self.class {
            parts.push(format!("in class `{}`", class.name()));
        }
        if let Some(server) = &self.server {
            parts.push(format!("on server {server}"));
        }
        if let Some(agent) = &self.agent {
            parts.push(format!("by agent `{agent}`"));
        }
        f.write_str(&parts.join(" "))?;
        if let Some(command) = &self.command {
            write!(f, " with command {command}")?;
        }
        if let Some(path) = &self.path {
            write!(f, " with path {path}")?;
        }
        for (name, pattern) in &self.args {
            write!(f, " with args.{name} {pattern}")?;
        }
        if let Some(pattern) = &self.args_raw {
            write!(f, " with args_raw {pattern}")?;
        }
        if let Some(result) = &self.result {
            write!(f, " with result {result}")?;
        }
        Ok(())
    }
}

/// A `required` entry: a match, how often, and where in the run.
#[derive(Debug, Clone)]
pub struct RequiredMatch {
    /// What a call must look like.
    pub matcher: ToolMatch,
    /// How many matching calls are needed, at least 1.
    pub min_count: u32,
    /// Whether the matching call must be the run's last tool call.
    pub final_call: bool,
    /// The step the call must be made in.
    pub at_step: Option<u32>,
    /// The call must be made in a step below this one.
    pub before_step: Option<u32>,
}

impl fmt::Display for RequiredMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.matcher)?;
        if let Some(step) = self.at_step {
            write!(f, " at step {step}")?;
        }
        if let Some(step) = self.before_step {
            write!(f, " before step {step}")?;
        }
        if self.final_call {
            f.write_str(" as the final call")?;
        }
        if self.min_count > 1 {
            write!(f, " at least {} times", self.min_count)?;
        }
        Ok(())
    }
}

/// A test's `tool-calls` grader, checked and compiled.
#[derive(Debug, Clone)]
pub struct ToolCallsGrader {
    /// Calls that must happen.
    pub required: Vec<RequiredMatch>,
    /// Calls that must not happen.
    pub disallowed: Vec<ToolMatch>,
    /// Calls that must happen in this order, as a subsequence.
    pub sequence: Vec<ToolMatch>,
    /// The gates on `tool_calls.pass_rate`.
    pub gates: Vec<Gate>,
    /// The grader's position in the test's `graders:` list.
    pub index: usize,
    /// The entries each tool name matches, remembered from run to run.
    pub(crate) names: Memo<NamesSeen>,
}

/// Which list of a grader an entry is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchList {
    /// `required`.
    Required,
    /// `disallowed`.
    Disallowed,
    /// `sequence`.
    Sequence,
}

impl MatchList {
    /// The list's key in the suite.
    pub fn key(self) -> &'static str {
        match self {
            Self::Required => "required",
            Self::Disallowed => "disallowed",
            Self::Sequence => "sequence",
        }
    }
}

/// Why a call whose name matched an entry still did not satisfy it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// An argument or the result did not match; `found` is what the call had, if anything.
    Field {
        /// `command`, `path`, `args.<name>` or `result`.
        field: String,
        /// The call's value, as text (JSON for a value that is not a string).
        found: Option<String>,
    },
    /// The call was made in another step.
    Step {
        /// The call's step.
        step: u32,
    },
    /// The call was not the run's last tool call.
    NotFinal,
    /// The call would satisfy the entry, but no result was recorded for it, and only
    /// completed calls count (docs/suite.md#trace-files).
    NoResult,
    /// The call satisfies a `sequence` entry but came before the call that matched the
    /// entry before it.
    Order {
        /// The 1-based position of the call that matched the entry before.
        previous: usize,
    },
}

/// A call that almost satisfied an unmet `required` entry, or the `sequence` entry a run
/// stopped at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearMiss {
    /// The call's 1-based position in its run.
    pub call: usize,
    /// The call's tool, `server.name` or `name`.
    pub tool: String,
    /// What did not match.
    pub miss: Miss,
}

/// A `required` entry that a run did not satisfy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmet {
    /// The entry's position in `required`, from 0.
    pub entry: usize,
    /// How many calls satisfied it (fewer than `needed`).
    pub found: u32,
    /// Its `min_count`.
    pub needed: u32,
    /// The first call whose name matched but which failed another condition.
    pub near_miss: Option<NearMiss>,
}

/// A call that broke a `disallowed` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The entry's position in `disallowed`, from 0.
    pub entry: usize,
    /// The call's 1-based position in its run.
    pub call: usize,
    /// The call's tool.
    pub tool: String,
}

/// The grader's verdict on one run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunToolCalls {
    /// Whether the run passed.
    pub passed: bool,
    /// Required entries not satisfied, in list order.
    pub unmet: Vec<Unmet>,
    /// Disallowed calls, in trace order, then list order.
    pub violations: Vec<Violation>,
    /// The first `sequence` entry that found no match, when the sequence failed; the entries
    /// before it matched.
    pub sequence_stopped_at: Option<usize>,
    /// The calls a `command` or `path` matcher met without that argument, which it could not
    /// judge (a configuration error: the check scores nothing then).
    pub missing_arguments: Vec<MissingArgument>,
    /// The call closest to satisfying that entry: after the match of the entry before it,
    /// the call of its tool that got furthest through its conditions; failing that, the last
    /// call that satisfied it before that match.
    pub sequence_near_miss: Option<NearMiss>,
}

/// A `command` or `path` matcher met a completed call whose name matched but which has no
/// such argument: the seed's configuration error, raised at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingArgument {
    /// The grader's position in the test's `graders:` list.
    pub grader: usize,
    /// The list the entry is in.
    pub list: MatchList,
    /// The entry's position in its list.
    pub entry: usize,
    /// `command` or `path`.
    pub field: &'static str,
    /// The run's 1-based position in the test.
    pub run: usize,
    /// Where the run came from, as the report shows it.
    pub source: String,
    /// The call's 1-based position in its run.
    pub call: usize,
    /// The call's tool.
    pub tool: String,
    /// The names of the arguments the call has, sorted, for the help: a form that can match
    /// the call names one of them.
    pub arguments: Vec<String>,
}

/// The names of a call's arguments, sorted, each once.
fn argument_names(call: &Call) -> Vec<String> {
    let mut names: Vec<String> = call
        .args_view()
        .members()
        .unwrap_or_default()
        .into_iter()
        .map(|(name, _)| name.into_owned())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The arguments the `command` shortcut reads, the first a call has: the names agents give
/// a shell command (docs/graders/tool-calls.md#command-and-path-versus-args).
const COMMAND_KEYS: &[&str] = &["command", "cmd"];

/// The arguments the `path` shortcut reads, the first a call has.
const PATH_KEYS: &[&str] = &["path", "file_path", "absolute_path", "notebook_path"];

/// How a call fares against the argument and result conditions of a match.
enum FieldCheck<'a> {
    /// The call's tool is not in the entry's class, or its server or agent does not match: the entry
    /// is not about this call, as when its name does not match.
    OtherTool,
    Match,
    Miss(MissAt<'a>),
    /// A `command` or `path` argument is absent: a configuration error.
    Missing(&'static str),
}

/// A [`Miss`] as found, borrowing from the call. Most misses are thrown away (those of
/// `disallowed` and `sequence` entries, and those of `required` entries that do not get
/// further than the near miss kept), so the text a report needs is built only for the near
/// miss that is kept, by [`MissAt::to_miss`].
#[derive(Debug, Clone, Copy)]
enum MissAt<'a> {
    /// The arguments arrived as this text, which is not JSON.
    NotJson(&'a str),
    /// The arguments are this patch, recorded as text, and no file it names matches `path`.
    PatchPath(&'a str),
    /// The arguments, recorded as this text, do not match `args_raw`.
    ArgsRaw(&'a str),
    /// An argument or the result did not match; the call's value, if it had one.
    Field(Field<'a>, Option<ValueRef<'a>>),
    /// The call was made in this step.
    Step(u32),
    /// The call was not the run's last tool call.
    NotFinal,
    /// The call would satisfy the entry but has no recorded result.
    NoResult,
}

/// Which of a call's values a [`MissAt::Field`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field<'a> {
    Command,
    Path,
    /// A string argument of `args`, by name.
    Arg(&'a str),
    /// The arguments as text (`args_raw`).
    ArgsRaw,
    Result,
}

impl MissAt<'_> {
    /// How far through the entry's conditions (checked in this order) the call got.
    fn depth(self) -> u8 {
        match self {
            Self::Field(Field::Command, _) => 1,
            Self::Field(Field::Path, _) | Self::PatchPath(_) => 2,
            // Arguments that are not JSON rank with a named argument, as they always have.
            Self::NotJson(_)
            | Self::Field(Field::Arg(_) | Field::ArgsRaw, _)
            | Self::ArgsRaw(_) => 3,
            Self::Field(Field::Result, _) => 4,
            Self::Step(_) => 5,
            Self::NotFinal => 6,
            // The only thing missing: the best explanation of an unmet entry.
            Self::NoResult => 7,
        }
    }

    /// The miss as the report shows it: a value that is not a string as canonical JSON.
    fn to_miss(self) -> Miss {
        match self {
            Self::PatchPath(patch) => Miss::Field {
                field: "path".to_owned(),
                found: Some(trailgate_trace::patch_files(patch).join(", ")),
            },
            Self::ArgsRaw(text) => Miss::Field {
                field: "args_raw".to_owned(),
                found: Some(text.to_owned()),
            },
            Self::NotJson(raw) => Miss::Field {
                field: "arguments that are not valid JSON".to_owned(),
                found: Some(raw.to_owned()),
            },
            Self::Field(field, found) => Miss::Field {
                field: match field {
                    Field::Command => "command".to_owned(),
                    Field::Path => "path".to_owned(),
                    Field::Arg(name) => format!("args.{name}"),
                    Field::ArgsRaw => "args_raw".to_owned(),
                    Field::Result => "result".to_owned(),
                },
                found: found.map(|value| value.match_text().into_owned()),
            },
            Self::Step(step) => Miss::Step { step },
            Self::NotFinal => Miss::NotFinal,
            Self::NoResult => Miss::NoResult,
        }
    }
}

impl ToolMatch {
    /// Whether the call's tool is in the entry's class and on its server, and the call by
    /// its agent, when the entry names them; its name was matched before.
    fn is_tool(&self, call: &Call) -> bool {
        let tool = trailgate_core::ToolRef::new(call.server.as_deref(), &call.name);
        self.class.as_ref().is_none_or(|class| class.contains(tool))
            && self.server.as_ref().is_none_or(|pattern| {
                call.server
                    .as_deref()
                    .is_some_and(|server| pattern.is_match(server))
            })
            && self
                .agent
                .as_ref()
                .is_none_or(|agent| agent.matches(call.agent.as_deref()))
    }

    fn check_fields<'a>(&'a self, call: &'a Call) -> FieldCheck<'a> {
        if !self.is_tool(call) {
            return FieldCheck::OtherTool;
        }
        let needs_args = self.command.is_some()
            || self.path.is_some()
            || !self.args.is_empty()
            || self.args_raw.is_some();
        if !needs_args {
            return self.check_result(call);
        }
        if let Some(raw) = &call.args_raw {
            return match self.check_text_args(raw) {
                Some(miss) => FieldCheck::Miss(miss),
                None => self.check_result(call),
            };
        }
        // Read from the arguments' text, which is parsed only if a report shows it.
        let args = call.args_view();
        let named = [
            (COMMAND_KEYS, Field::Command, &self.command),
            (PATH_KEYS, Field::Path, &self.path),
        ];
        for (keys, field, pattern) in named {
            let Some(pattern) = pattern else { continue };
            let Some(value) = keys.iter().find_map(|key| args.get(key)) else {
                return FieldCheck::Missing(keys[0]);
            };
            if !is_string_match(pattern, value) {
                return FieldCheck::Miss(MissAt::Field(field, Some(value)));
            }
        }
        for (name, test) in &self.args {
            let value = args.get(name);
            let holds = match test {
                ValueTest::Regex(pattern) => {
                    value.is_some_and(|value| is_string_match(pattern, value))
                }
                ValueTest::Matcher(matcher) => matcher.matches(value, ArgsMode::Exact),
            };
            if !holds {
                return FieldCheck::Miss(MissAt::Field(Field::Arg(name), value));
            }
        }
        if let Some(pattern) = &self.args_raw
            && !pattern.is_match(&args.match_text())
        {
            return FieldCheck::Miss(MissAt::Field(Field::ArgsRaw, Some(args)));
        }
        self.check_result(call)
    }

    /// Why arguments recorded as `raw` text, not JSON, fail the argument conditions, if
    /// they do. `path` is searched in the files the text names as a patch (Codex's
    /// `apply_patch`) and `args_raw` in the text; nothing else can be matched in text, and
    /// the matcher is not at fault, so a `command` or `args` is a miss, not a configuration
    /// error.
    fn check_text_args<'a>(&self, raw: &'a str) -> Option<MissAt<'a>> {
        if self.command.is_some() || !self.args.is_empty() {
            return Some(MissAt::NotJson(raw));
        }
        if let Some(pattern) = &self.path {
            let files = trailgate_trace::patch_files(raw);
            if files.is_empty() {
                return Some(MissAt::NotJson(raw));
            }
            if !files.iter().any(|file| pattern.is_match(file)) {
                return Some(MissAt::PatchPath(raw));
            }
        }
        match &self.args_raw {
            Some(pattern) if !pattern.is_match(raw) => Some(MissAt::ArgsRaw(raw)),
            _ => None,
        }
    }

    /// The last condition: the result, when the match has a pattern for it.
    fn check_result<'a>(&self, call: &'a Call) -> FieldCheck<'a> {
        let Some(test) = &self.result else {
            return FieldCheck::Match;
        };
        let result = call.result_view();
        let matched = match test {
            ValueTest::Regex(pattern) => {
                result.is_some_and(|result| pattern.is_match(&result.match_text()))
            }
            // A call with no recorded result matches no result condition.
            ValueTest::Matcher(matcher) => {
                result.is_some_and(|result| matcher.matches(Some(result), ArgsMode::Exact))
            }
        };
        if matched {
            FieldCheck::Match
        } else {
            FieldCheck::Miss(MissAt::Field(Field::Result, result))
        }
    }
}

/// Only strings are matched; any other value is a non-match.
fn is_string_match(pattern: &Pattern, value: ValueRef<'_>) -> bool {
    value.as_str().is_some_and(|text| pattern.is_match(&text))
}

fn tool_text(call: &Call) -> String {
    match &call.server {
        Some(server) => format!("{server}.{}", call.name),
        None => call.name.clone(),
    }
}

/// The entries each tool name matches, remembered from run to run ([`Memo`]). Traces call
/// a few tools many times each: each name is matched against the entries' name patterns
/// once, not once per call, and the entries found for all the names share one vector. At
/// most [`REMEMBERED_TOOLS`] names are remembered, in a map whose fast hash is not keyed:
/// the calls of more tools are matched one by one past that, so that no trace can crowd the
/// map with colliding names.
#[derive(Debug, Default)]
pub(crate) struct NamesSeen {
    by_name: LookupMap<Box<str>, NamedEntries>,
    found: Vec<usize>,
    /// Where the entries of the last name, not remembered, start in `found`.
    forgotten: Option<usize>,
}

impl NamesSeen {
    /// Where the entries that `name` matches are in `found`.
    fn entries(&mut self, grader: &ToolCallsGrader, name: &str) -> NamedEntries {
        if let Some(start) = self.forgotten.take() {
            self.found.truncate(start);
        }
        if let Some(named) = self.by_name.get(name) {
            return named.clone();
        }
        let start = self.found.len();
        let named = grader.entries_named(name, &mut self.found);
        if self.by_name.len() < REMEMBERED_TOOLS {
            self.by_name.insert(Box::from(name), named.clone());
        } else {
            self.forgotten = Some(start);
        }
        named
    }
}

/// Where the entries of each list whose `name` pattern a tool name matches are, in list
/// order, in the entries found for all the names of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NamedEntries {
    required: Range<usize>,
    disallowed: Range<usize>,
    sequence: Range<usize>,
}

impl ToolCallsGrader {
    /// The entries whose `name` pattern `name` matches, appended to `found`.
    fn entries_named(&self, name: &str, found: &mut Vec<usize>) -> NamedEntries {
        let mut matching = |patterns: &mut dyn Iterator<Item = &Pattern>| {
            let start = found.len();
            found.extend(
                patterns
                    .enumerate()
                    .filter(|(_, pattern)| pattern.is_match(name))
                    .map(|(entry, _)| entry),
            );
            start..found.len()
        };
        NamedEntries {
            required: matching(&mut self.required.iter().map(|r| &r.matcher.name)),
            disallowed: matching(&mut self.disallowed.iter().map(|m| &m.name)),
            sequence: matching(&mut self.sequence.iter().map(|m| &m.name)),
        }
    }

    /// Grades one run. Calls that a `command`/`path` matcher cannot judge are kept in the
    /// verdict's `missing_arguments`, tagged with the run's number and source.
    pub fn grade(&self, run: &TestRun<'_>) -> RunToolCalls {
        self.grade_as(run, Detail::Full)
    }

    /// [`grade`](Self::grade), to the `detail` given: without it, unmet entries carry no
    /// near miss.
    pub fn grade_as(&self, test_run: &TestRun<'_>, detail: Detail) -> RunToolCalls {
        let run = test_run.calls;
        let mut missing = Vec::new();
        let last = run.calls.len().checked_sub(1);
        let mut counts = vec![0_u32; self.required.len()];
        // The call that got furthest through an entry's conditions so far, if any.
        let mut near: NearMisses<'_> = vec![None; self.required.len()];
        let mut violations = Vec::new();
        let mut next_in_sequence = 0;
        let mut sequence = SequenceNear::new(self.sequence.len(), detail);
        let mut report_missing = |list, entry, field, index: usize, call: &Call| {
            missing.push(MissingArgument::new(
                self,
                test_run,
                (list, entry, field),
                index,
                call,
            ));
        };
        let mut seen = self.names.lock();

        for (index, call) in run.calls.iter().enumerate() {
            let named = seen.entries(self, &call.name);
            let found = &seen.found;
            // Only completed calls are graded (docs/suite.md#trace-files). A call without a
            // result that would otherwise satisfy an entry explains why the entry went unmet.
            if !call.completed {
                if detail == Detail::Full {
                    self.note_no_result(
                        &found[named.required.clone()],
                        call,
                        index,
                        last,
                        &mut near,
                    );
                    if found[named.sequence.clone()].contains(&next_in_sequence) {
                        sequence.no_result(&self.sequence[next_in_sequence], index, call);
                    }
                }
                continue;
            }
            for &entry in &found[named.required.clone()] {
                let required = &self.required[entry];
                let miss = match required.matcher.check_fields(call) {
                    FieldCheck::OtherTool => continue,
                    FieldCheck::Missing(field) => {
                        report_missing(MatchList::Required, entry, field, index, call);
                        continue;
                    }
                    FieldCheck::Miss(miss) => Some(miss),
                    FieldCheck::Match => required.position_miss(call, index, last),
                };
                match miss {
                    None => counts[entry] += 1,
                    // The call that got furthest through the conditions explains the miss
                    // best; among equals, the first.
                    Some(miss)
                        if near[entry]
                            .as_ref()
                            .is_none_or(|(_, _, near)| miss.depth() > near.depth()) =>
                    {
                        near[entry] = Some((index, call, miss));
                    }
                    Some(_) => {}
                }
            }
            for &entry in &found[named.disallowed.clone()] {
                match self.disallowed[entry].check_fields(call) {
                    FieldCheck::Missing(field) => {
                        report_missing(MatchList::Disallowed, entry, field, index, call);
                    }
                    FieldCheck::Miss(_) | FieldCheck::OtherTool => {}
                    FieldCheck::Match => violations.push(Violation {
                        entry,
                        call: index + 1,
                        tool: tool_text(call),
                    }),
                }
            }
            let advanced = self.sequence_step(
                &found[named.sequence.clone()],
                next_in_sequence,
                (index, call),
                &mut sequence,
                &mut |entry, field| report_missing(MatchList::Sequence, entry, field, index, call),
            );
            if advanced {
                next_in_sequence += 1;
                sequence.advanced(index);
            }
        }

        let near = self.reported_near_misses(near, &counts, detail);
        let unmet = self.unmet(counts, near);
        let sequence_stopped_at =
            (next_in_sequence < self.sequence.len()).then_some(next_in_sequence);
        RunToolCalls {
            passed: unmet.is_empty() && violations.is_empty() && sequence_stopped_at.is_none(),
            unmet,
            violations,
            missing_arguments: missing,
            sequence_near_miss: sequence_stopped_at
                .and_then(|stopped| sequence.near_miss(stopped, run)),
            sequence_stopped_at,
        }
    }
}

impl MissingArgument {
    /// The call at `index` of `run`, which the `field` matcher of `entry` in `list` of
    /// `grader` met without that argument.
    fn new(
        grader: &ToolCallsGrader,
        run: &TestRun<'_>,
        (list, entry, field): (MatchList, usize, &'static str),
        index: usize,
        call: &Call,
    ) -> Self {
        Self {
            grader: grader.index,
            list,
            entry,
            field,
            run: run.number,
            source: run.source.to_string(),
            call: index + 1,
            tool: tool_text(call),
            arguments: argument_names(call),
        }
    }
}

/// The call that got furthest through each `required` entry's conditions, with its miss.
type NearMisses<'a> = Vec<Option<(usize, &'a Call, MissAt<'a>)>>;

impl ToolCallsGrader {
    /// Keeps `call`, which has no result, as the near miss of each of the `required` entries
    /// whose every other condition it meets.
    fn note_no_result<'a>(
        &self,
        entries: &[usize],
        call: &'a Call,
        index: usize,
        last: Option<usize>,
        near: &mut NearMisses<'a>,
    ) {
        for &entry in entries {
            let required = &self.required[entry];
            let only_result = matches!(
                required.matcher.check_fields(call),
                FieldCheck::Match | FieldCheck::Miss(MissAt::Field(Field::Result, None))
            );
            if only_result
                && required.position_miss(call, index, last).is_none()
                && near[entry]
                    .as_ref()
                    .is_none_or(|(_, _, near)| near.depth() < MissAt::NoResult.depth())
            {
                near[entry] = Some((index, call, MissAt::NoResult));
            }
        }
    }

    /// The near misses a report shows: those of unmet entries only, and none below
    /// [`Detail::Full`].
    fn reported_near_misses(
        &self,
        near: NearMisses<'_>,
        counts: &[u32],
        detail: Detail,
    ) -> Vec<Option<NearMiss>> {
        near.into_iter()
            .enumerate()
            .map(|(entry, near)| {
                near.filter(|_| {
                    detail == Detail::Full && counts[entry] < self.required[entry].min_count
                })
                .map(|(index, call, miss)| NearMiss {
                    call: index + 1,
                    tool: tool_text(call),
                    miss: miss.to_miss(),
                })
            })
            .collect()
    }

    /// The `required` entries that fewer calls than their `min_count` satisfied.
    fn unmet(&self, counts: Vec<u32>, near: Vec<Option<NearMiss>>) -> Vec<Unmet> {
        self.required
            .iter()
            .zip(counts)
            .zip(near)
            .enumerate()
            .filter(|(_, ((required, found), _))| *found < required.min_count)
            .map(|(entry, ((required, found), near_miss))| Unmet {
                entry,
                found,
                needed: required.min_count,
                near_miss,
            })
            .collect()
    }
}

impl RequiredMatch {
    /// Why a call that matched the fields fails the positional conditions, if it does.
    fn position_miss(
        &self,
        call: &Call,
        index: usize,
        last: Option<usize>,
    ) -> Option<MissAt<'static>> {
        let wrong_step = self.at_step.is_some_and(|step| call.step != step)
            || self.before_step.is_some_and(|step| call.step >= step);
        if wrong_step {
            return Some(MissAt::Step(call.step));
        }
        if self.final_call && Some(index) != last {
            return Some(MissAt::NotFinal);
        }
        None
    }
}

/// The grader's verdict over all runs of a test.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolCallsOutcome {
    /// The `required` entries, described, in list order.
    pub required: Vec<String>,
    /// The `disallowed` entries, described.
    pub disallowed: Vec<String>,
    /// The `sequence` entries, described.
    pub sequence: Vec<String>,
    /// Each listed run's verdict, in run order (see [`TestOutcome`](crate::TestOutcome)).
    pub runs: Vec<RunToolCalls>,
    /// How many runs passed.
    pub passed_runs: usize,
    /// The verdicts summed over every run.
    pub totals: ToolCallsTotals,
    /// The percent of runs that passed, rounded down.
    pub pass_rate: Percent,
}

/// The grader's verdicts summed over runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolCallsTotals {
    /// Runs that passed.
    pub passed_runs: usize,
    /// Unmet `required` entries.
    pub unmet_entries: u64,
    /// Calls that broke a `disallowed` entry.
    pub disallowed_calls: u64,
    /// Runs whose `sequence` stopped before its end.
    pub stopped_sequences: u64,
}

impl ToolCallsTotals {
    /// Adds one run's verdict.
    pub(crate) fn add(&mut self, run: &RunToolCalls) {
        self.passed_runs += usize::from(run.passed);
        self.unmet_entries += run.unmet.len() as u64;
        self.disallowed_calls += run.violations.len() as u64;
        self.stopped_sequences += u64::from(run.sequence_stopped_at.is_some());
    }
}

impl ToolCallsOutcome {
    /// The outcome over `runs` runs with these totals, listing `listed`.
    pub(crate) fn new(
        grader: &ToolCallsGrader,
        listed: Vec<RunToolCalls>,
        totals: ToolCallsTotals,
        runs: u64,
    ) -> Self {
        let passed_runs = totals.passed_runs;
        Self {
            required: grader.required.iter().map(ToString::to_string).collect(),
            disallowed: grader.disallowed.iter().map(ToString::to_string).collect(),
            sequence: grader.sequence.iter().map(ToString::to_string).collect(),
            pass_rate: Percent::floor_of(passed_runs as u64, runs),
            runs: listed,
            passed_runs,
            totals,
        }
    }
}

/// How many calls a diagnostic names per matcher that met calls without its argument.
const NAMED_MISSING: usize = 10;

/// The calls that `command` and `path` matchers met without that argument, grouped by
/// matcher: per matcher, how many there were and the first 10.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MissingArguments {
    groups: BTreeMap<MatcherKey, (usize, Vec<MissingArgument>)>,
}

/// A matcher: its grader, list, entry and field.
pub(crate) type MatcherKey = (usize, MatchList, usize, &'static str);

impl MissingArguments {
    /// Adds one call.
    pub fn push(&mut self, missing: MissingArgument) {
        let (count, first) = self
            .groups
            .entry((missing.grader, missing.list, missing.entry, missing.field))
            .or_default();
        *count += 1;
        if first.len() < NAMED_MISSING {
            first.push(missing);
        }
    }

    /// Whether no call was added.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Per matcher (its grader, list, entry and field), how many calls met it without its
    /// argument and the first of them, in matcher order.
    pub(crate) fn groups(
        &self,
    ) -> impl Iterator<Item = (&MatcherKey, &(usize, Vec<MissingArgument>))> {
        self.groups.iter()
    }
}

mod explain;
mod grader;
pub(crate) mod json;
pub(crate) mod recheck;
mod sequence;

#[cfg(test)]
mod tests;
