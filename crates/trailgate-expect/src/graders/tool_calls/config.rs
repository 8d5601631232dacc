//! The `tool-calls` grader's `config:` as the suite writes it (`required`, `disallowed`,
//! `sequence`, each a list of tool matches), and its checks into a [`ToolCallsGrader`], with
//! the spanned problems of the rules of docs/graders/tool-calls.md on which keys go where.

use std::collections::BTreeMap;
use std::fmt;

use schemars::{JsonSchema, json_schema};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::error::{Problem, custom};
use crate::expect::Expectations;
use crate::graders::Block;
use crate::graders::config::{GraderConfig, block_gates, config_keys};
use crate::graders::contract::Unjudged;
use crate::matchers::ValueMatcher;
use crate::pattern::Pattern;
use crate::schema::described;
use crate::suite_file::{PathSeg, SuiteFile, join, plain_number};
use crate::tool_matcher::config::{AgentValue, PatternValue, TestClasses, compile, resolve_class};
use crate::tool_matcher::{AgentMatcher, ClassTools};

use super::{
    MatchList, MissingArgument, MissingArguments, RequiredMatch, ToolCallsGrader, ToolMatch,
    ValueTest,
};

/// The keys of a `tool-calls` config, as read before the grader's `type:` is known (see
/// [`RawGraderConfig`](crate::graders::config::RawGraderConfig)).
#[derive(Default, JsonSchema)]
pub(crate) struct RawConfig {
    required: Option<Vec<RawToolMatch>>,
    disallowed: Option<Vec<RawToolMatch>>,
    sequence: Option<Vec<RawToolMatch>>,
}

impl GraderConfig for RawConfig {
    type Grader = ToolCallsGrader;

    config_keys!(required, disallowed, sequence);

    /// A `tool-calls` config: the rules of docs/graders/tool-calls.md on which keys go where.
    fn check(
        self,
        expect: Option<Expectations>,
        file: &SuiteFile,
        index: usize,
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<ToolCallsGrader> {
        let before = problems.len();
        if self.required.is_none() && self.disallowed.is_none() && self.sequence.is_none() {
            problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::missing_key",
                        "a `tool-calls` grader needs `required`, `disallowed` or `sequence`",
                        "nothing to check",
                    )
                    .with_help(
                        "list calls that must happen under `required:`, calls that must not under \
                     `disallowed:`, or an order under `sequence:`; see docs/graders/tool-calls.md",
                    ),
                    path,
                ),
            );
        }
        self.check_unpositioned(file, path, problems);
        for (entry, raw) in self.required.iter().flatten().enumerate() {
            check_required(
                file,
                raw,
                &join(path, &[PathSeg::Key("required"), PathSeg::Index(entry)]),
                problems,
            );
        }
        let gates = block_gates(Block::ToolCalls, expect, file, path, problems);
        let mut classes_of = |list: MatchList, entries: &Option<Vec<RawToolMatch>>| {
            entry_classes(
                file,
                list,
                entries.as_deref().unwrap_or_default(),
                path,
                classes,
                problems,
            )
        };
        let required_classes = classes_of(MatchList::Required, &self.required);
        let disallowed_classes = classes_of(MatchList::Disallowed, &self.disallowed);
        let sequence_classes = classes_of(MatchList::Sequence, &self.sequence);
        if problems.len() > before {
            return None;
        }
        let matches = |entries: Option<Vec<RawToolMatch>>, classes: Vec<Option<ClassTools>>| {
            entries
                .unwrap_or_default()
                .into_iter()
                .zip(classes)
                .map(|(raw, class)| raw.into_match(class))
                .collect()
        };
        Some(ToolCallsGrader {
            required: self
                .required
                .unwrap_or_default()
                .into_iter()
                .zip(required_classes)
                .map(|(raw, class)| RequiredMatch {
                    min_count: raw.min_count.unwrap_or(1),
                    final_call: raw.final_call.unwrap_or(false),
                    at_step: raw.at_step,
                    before_step: raw.before_step,
                    matcher: raw.into_match(class),
                })
                .collect(),
            disallowed: matches(self.disallowed, disallowed_classes),
            sequence: matches(self.sequence, sequence_classes),
            gates,
            index,
            names: crate::memo::Memo::default(),
        })
    }
}

impl RawConfig {
    /// The keys that `disallowed` and `sequence` entries do not take.
    fn check_unpositioned(
        &self,
        file: &SuiteFile,
        path: &[PathSeg<'_>],
        problems: &mut Vec<Problem>,
    ) {
        for (list, entries) in [
            (MatchList::Disallowed, &self.disallowed),
            (MatchList::Sequence, &self.sequence),
        ] {
            for (entry, raw) in entries.iter().flatten().enumerate() {
                let entry_path = join(path, &[PathSeg::Key(list.key()), PathSeg::Index(entry)]);
                for (key, present) in raw.positional_keys() {
                    if present {
                        problems.push(file.located(
                            Problem::new(
                                "trailgate::suite::misplaced_key",
                                format!("`{key}` is allowed on `required` entries only"),
                                format!("not allowed on `{}`", list.key()),
                            )
                            .with_help(
                                "`min_count`, `final`, `at_step` and `before_step` constrain calls \
                                 that must happen; move the condition to a `required` entry",
                            ),
                            &join(&entry_path, &[PathSeg::KeyName(key)]),
                        ));
                    }
                }
                if list == MatchList::Sequence && raw.result.is_some() {
                    problems.push(
                        file.located(
                            Problem::new(
                                "trailgate::suite::misplaced_key",
                                "`result` is not allowed on `sequence` entries",
                                "not allowed on `sequence`",
                            )
                            .with_help(
                                "a sequence matches calls as they are made, before their results; \
                             check the result with a `required` entry",
                            ),
                            &join(&entry_path, &[PathSeg::KeyName("result")]),
                        ),
                    );
                }
            }
        }
    }
}

/// The class of each entry of a `tool-calls` list, resolved against the test's classes.
fn entry_classes(
    file: &SuiteFile,
    list: MatchList,
    entries: &[RawToolMatch],
    path: &[PathSeg<'_>],
    classes: TestClasses<'_>,
    problems: &mut Vec<Problem>,
) -> Vec<Option<ClassTools>> {
    entries
        .iter()
        .enumerate()
        .map(|(entry, raw)| {
            let name = raw.class.as_deref()?;
            let at = join(
                path,
                &[
                    PathSeg::Key(list.key()),
                    PathSeg::Index(entry),
                    PathSeg::Key("class"),
                ],
            );
            resolve_class(file, name, &at, classes, problems)
        })
        .collect()
}

/// The numeric rules of a `required` entry.
fn check_required(
    file: &SuiteFile,
    raw: &RawToolMatch,
    path: &[PathSeg<'_>],
    problems: &mut Vec<Problem>,
) {
    if raw.min_count == Some(0) {
        problems.push(
            file.located(
                Problem::new(
                    "trailgate::suite::out_of_range",
                    "`min_count` is 0",
                    "must be at least 1",
                )
                .with_help("`min_count` is how many matching calls are needed; omit it for 1"),
                &join(path, &[PathSeg::Key("min_count")]),
            ),
        );
    }
    if raw.before_step == Some(0) {
        problems.push(
            file.located(
                Problem::new(
                    "trailgate::suite::out_of_range",
                    "`before_step` is 0",
                    "must be at least 1",
                )
                .with_help(
                    "`before_step: N` allows steps 0 to N-1, so 0 allows none; to require the \
                     first step, write `at_step: 0`",
                ),
                &join(path, &[PathSeg::Key("before_step")]),
            ),
        );
    }
    if let (Some(at), Some(before)) = (raw.at_step, raw.before_step)
        && at >= before
        && before > 0
    {
        problems.push(
            file.located(
                Problem::new(
                    "trailgate::suite::out_of_range",
                    format!("`at_step: {at}` is not below `before_step: {before}`"),
                    "no step satisfies both",
                )
                .with_help("drop one of the two, or make `at_step` smaller than `before_step`"),
                &join(path, &[PathSeg::Key("at_step")]),
            ),
        );
    }
}

/// A tool match: a string (a `name` regex) or a map.
struct RawToolMatch {
    name: Pattern,
    class: Option<String>,
    server: Option<Pattern>,
    agent: Option<AgentMatcher>,
    command: Option<Pattern>,
    path: Option<Pattern>,
    args: Option<BTreeMap<String, ValueTestValue>>,
    args_raw: Option<Pattern>,
    result: Option<ValueTest>,
    min_count: Option<u32>,
    final_call: Option<bool>,
    at_step: Option<u32>,
    before_step: Option<u32>,
}

impl RawToolMatch {
    /// The keys that only `required` entries take, with whether each is present.
    fn positional_keys(&self) -> [(&'static str, bool); 4] {
        [
            ("min_count", self.min_count.is_some()),
            ("final", self.final_call.is_some()),
            ("at_step", self.at_step.is_some()),
            ("before_step", self.before_step.is_some()),
        ]
    }

    fn into_match(self, class: Option<ClassTools>) -> ToolMatch {
        ToolMatch {
            name: self.name,
            class,
            server: self.server,
            agent: self.agent,
            command: self.command,
            path: self.path,
            args: self
                .args
                .unwrap_or_default()
                .into_iter()
                .map(|(name, test)| (name, test.0))
                .collect(),
            args_raw: self.args_raw,
            result: self.result,
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawToolMatchObject {
    /// A regex searched in the tool name; optional when `class`, `server` or `agent` is
    /// given.
    name: Option<PatternValue>,
    /// An equal-function class of the test: the call's tool is one of its members.
    class: Option<String>,
    /// A regex searched in the call's server.
    server: Option<PatternValue>,
    /// The agent that made the call: its name, or a value matcher on it.
    agent: Option<AgentValue>,
    command: Option<PatternValue>,
    path: Option<PatternValue>,
    /// A regex (a string) or a value matcher (anything else) for each argument, by name.
    args: Option<BTreeMap<String, ValueTestValue>>,
    /// A regex searched in the arguments as text: as recorded when they are not JSON (a
    /// patch), otherwise as compact JSON with sorted keys.
    args_raw: Option<PatternValue>,
    /// A regex searched in the result (a string), or a value matcher (anything else).
    result: Option<ValueTestValue>,
    min_count: Option<Whole>,
    #[serde(rename = "final")]
    final_call: Option<bool>,
    at_step: Option<Whole>,
    before_step: Option<Whole>,
}

/// A count or a step: a whole number from 0 (the rules on 0 are checked afterwards).
#[derive(Clone, Copy)]
struct Whole(u32);

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct WholeVisitor;
        impl Visitor<'_> for WholeVisitor {
            type Value = Whole;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a whole number from 0")
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Whole, E> {
                u32::try_from(value)
                    .map(Whole)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(value), &self))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Whole, E> {
                u64::try_from(value)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(value), &self))
                    .and_then(|v| self.visit_u64(v))
            }
        }
        deserializer.deserialize_any(WholeVisitor)
    }
}

impl<'de> Deserialize<'de> for RawToolMatch {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ToolMatchVisitor;
        impl<'de> Visitor<'de> for ToolMatchVisitor {
            type Value = RawToolMatch;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool name regex, or a map with `name` and optional conditions")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<RawToolMatch, E> {
                Ok(RawToolMatch {
                    name: compile(text)?,
                    class: None,
                    server: None,
                    agent: None,
                    command: None,
                    path: None,
                    args: None,
                    args_raw: None,
                    result: None,
                    min_count: None,
                    final_call: None,
                    at_step: None,
                    before_step: None,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawToolMatch, A::Error> {
                let raw = RawToolMatchObject::deserialize(MapAccessDeserializer::new(map))?;
                let name = match raw.name {
                    Some(name) => name.0,
                    None if raw.class.is_some() || raw.server.is_some() || raw.agent.is_some() => {
                        compile("")?
                    }
                    None => {
                        return Err(custom(
                            "trailgate::suite::missing_key",
                            "a tool match needs `name`, `class`, `server` or `agent`",
                            "no `name`, `class`, `server` or `agent`",
                            "write `name: <regex>` for the tool name, `class: <class>` for an \
                             equal-function class of the test, `server: <regex>`, or \
                             `agent: <name>`",
                        ));
                    }
                };
                Ok(RawToolMatch {
                    name,
                    class: raw.class,
                    server: raw.server.map(|p| p.0),
                    agent: raw.agent.map(|a| a.0),
                    command: raw.command.map(|p| p.0),
                    path: raw.path.map(|p| p.0),
                    args: raw.args,
                    args_raw: raw.args_raw.map(|p| p.0),
                    result: raw.result.map(|test| test.0),
                    min_count: raw.min_count.map(|w| w.0),
                    final_call: raw.final_call,
                    at_step: raw.at_step.map(|w| w.0),
                    before_step: raw.before_step.map(|w| w.0),
                })
            }
        }
        deserializer.deserialize_any(ToolMatchVisitor)
    }
}

/// A `tool-calls` argument or result condition: a string is a regex (seed 002); anything
/// else is a value matcher (docs/matchers.md).
struct ValueTestValue(ValueTest);

impl<'de> Deserialize<'de> for ValueTestValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TestVisitor;
        impl<'de> Visitor<'de> for TestVisitor {
            type Value = ValueTestValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a regular expression, or a value matcher such as `{$gte: 1}`")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<ValueTestValue, E> {
                // A number written plain past a float's range (`1e400`) comes as a string,
                // and is a number: the value matcher reads it.
                if plain_number(text).is_some() {
                    return matcher(de::value::StrDeserializer::new(text));
                }
                compile(text).map(|pattern| ValueTestValue(ValueTest::Regex(pattern)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ValueTestValue, A::Error> {
                ValueMatcher::deserialize(MapAccessDeserializer::new(map))
                    .map(|matcher| ValueTestValue(ValueTest::Matcher(matcher)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ValueTestValue, A::Error> {
                ValueMatcher::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(|matcher| ValueTestValue(ValueTest::Matcher(matcher)))
            }
            fn visit_bool<E: de::Error>(self, value: bool) -> Result<ValueTestValue, E> {
                Ok(literal(Value::Bool(value)))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<ValueTestValue, E> {
                Ok(literal(Value::from(value)))
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<ValueTestValue, E> {
                Ok(literal(Value::from(value)))
            }
            // The value matcher reads numbers as the suite writes them (docs/matchers.md#numbers).
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<ValueTestValue, E> {
                matcher(de::value::F64Deserializer::new(value))
            }
            fn visit_u128<E: de::Error>(self, value: u128) -> Result<ValueTestValue, E> {
                matcher(de::value::U128Deserializer::new(value))
            }
            fn visit_i128<E: de::Error>(self, value: i128) -> Result<ValueTestValue, E> {
                matcher(de::value::I128Deserializer::new(value))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ValueTestValue, E> {
                Ok(literal(Value::Null))
            }
        }
        fn matcher<'de, D: Deserializer<'de>>(value: D) -> Result<ValueTestValue, D::Error> {
            ValueMatcher::deserialize(value)
                .map(|matcher| ValueTestValue(ValueTest::Matcher(matcher)))
        }
        fn literal(value: Value) -> ValueTestValue {
            ValueTestValue(ValueTest::Matcher(ValueMatcher::literal(value)))
        }
        deserializer.deserialize_any(TestVisitor)
    }
}

/// One problem per matcher of `tool_calls` that met calls without its argument, naming
/// every such call, placed on the matcher's key.
pub(crate) fn missing_argument_problems(
    tool_calls: &ToolCallsGrader,
    found: &MissingArguments,
) -> Vec<Unjudged> {
    found
        .groups()
        .map(|(&(grader, list, entry, field), (count, calls))| {
            let mut listed: Vec<String> = calls
                .iter()
                .map(|m| format!("run {} ({}) call {} `{}`", m.run, m.source, m.call, m.tool))
                .collect();
            if *count > calls.len() {
                listed.push(format!("and {} more", count - calls.len()));
            }
            let name = match list {
                MatchList::Required => tool_calls.required.get(entry).map(|r| &r.matcher.name),
                MatchList::Disallowed => tool_calls.disallowed.get(entry).map(|m| &m.name),
                MatchList::Sequence => tool_calls.sequence.get(entry).map(|m| &m.name),
            }
            .map_or_else(String::new, |name| name.as_str().to_owned());
            let problem = Problem::new(
                "trailgate::grader::missing_argument",
                format!(
                    "the `{field}` matcher of `{}` entry {} meets {} without a `{field}` argument: {}",
                    list.key(),
                    entry + 1,
                    if *count == 1 { "a call" } else { "calls" },
                    listed.join(", ")
                ),
                format!("needs a `{field}` argument"),
            )
            .with_help(missing_argument_help(&name, field, calls.first()));
            Unjudged {
                at: vec![
                    PathSeg::Key("graders"),
                    PathSeg::Index(grader),
                    PathSeg::Key("config"),
                    PathSeg::Key(list.key()),
                    PathSeg::Index(entry),
                    PathSeg::KeyName(field),
                ],
                problem,
            }
        })
        .collect()
}

/// The help of a matcher that met calls without its argument. It suggests only forms that
/// can match the first such call: anchoring an unanchored `name` (the call may be another
/// tool), `args:` with an argument the call has, or, when it has none, narrowing the entry.
pub(super) fn missing_argument_help(
    name: &str,
    field: &str,
    first: Option<&MissingArgument>,
) -> String {
    let anchor = (!(name.starts_with('^') && name.ends_with('$'))).then(|| {
        format!(
            "`name: {name}` is searched unanchored, so it also matches other tools; anchor it \
             (`^{name}$`)"
        )
    });
    let call = first.map(|m| {
        if m.arguments.is_empty() {
            format!(
                "call {} `{}` has no arguments, so no argument matcher can match it: narrow \
                 `name` or `server` to the tools that take a {field}",
                m.call, m.tool
            )
        } else if let [only] = m.arguments.as_slice() {
            format!(
                "call {} `{}` has one argument, `{only}`: match it with `args: {{{only}: ...}}`",
                m.call, m.tool
            )
        } else {
            let names: Vec<String> = m.arguments.iter().map(|a| format!("`{a}`")).collect();
            format!(
                "call {} `{}` has the arguments {}: match the one that holds the {field} with \
                 `args:`, as `args: {{{}: ...}}`",
                m.call,
                m.tool,
                names.join(", "),
                m.arguments[0]
            )
        }
    });
    match (anchor, call) {
        (Some(anchor), Some(call)) => format!("{anchor}; {call}"),
        (Some(only), None) | (None, Some(only)) => only,
        (None, None) => format!("give every call `name` matches a `{field}` argument"),
    }
}

described!(
    Whole,
    "Whole",
    |_| json_schema!({ "type": "integer", "minimum": 0 })
);
described!(ValueTestValue, "ValueTest", |generator| {
    let matcher = generator.subschema_for::<ValueMatcher>();
    json_schema!({
        "description": "a regular expression (a string, searched unanchored), or a value matcher (docs/matchers.md)",
        "anyOf": [ { "type": "string", "format": "regex" }, matcher ]
    })
});
described!(RawToolMatch, "ToolMatch", |generator| {
    let object = generator.subschema_for::<RawToolMatchObject>();
    json_schema!({
        "description": "a tool name regex, or a map with `name` and conditions",
        "oneOf": [ { "type": "string" }, object ]
    })
});
