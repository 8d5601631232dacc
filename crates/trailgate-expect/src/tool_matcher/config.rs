//! Tool matchers as the suite writes them: a member, a `class:` of the test, a `server:`
//! pattern, each read and checked while the suite is read, then resolved against the test's
//! equal-function classes. Every grader that names a tool reads it with these.

use std::fmt;

use schemars::{JsonSchema, json_schema};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use trailgate_core::{ClassSet, Member, MemberError};

use crate::error::{Problem, custom, suggest};
use crate::matchers::ValueMatcher;
use crate::reading::{RegexRefusal, total_problem};
use crate::schema::described;
use crate::suite_file::{PathSeg, SuiteFile, join};

use super::{AgentMatcher, ClassTools, Pattern, ToolMatcher};

/// The classes a test's matchers may name: whether the test has an `equal_function_sets`
/// block, and its classes when the block loaded.
#[derive(Clone, Copy)]
pub(crate) struct TestClasses<'a> {
    pub(crate) written: bool,
    pub(crate) set: Option<&'a ClassSet>,
}

/// An expected tool as written, before its class is resolved.
pub(crate) struct RawTool {
    pub(crate) member: Option<Member>,
    pub(crate) class: Option<String>,
    pub(crate) server: Option<Pattern>,
    pub(crate) agent: Option<AgentMatcher>,
}

/// An expected tool, with its class resolved against the test's classes.
pub(crate) fn tool_matcher(
    file: &SuiteFile,
    tool: RawTool,
    at: &[PathSeg<'_>],
    classes: TestClasses<'_>,
    problems: &mut Vec<Problem>,
) -> Option<ToolMatcher> {
    let class = match &tool.class {
        Some(name) => Some(resolve_class(
            file,
            name,
            &join(at, &[PathSeg::Key("class")]),
            classes,
            problems,
        )?),
        None => None,
    };
    let matcher = match (tool.member, class) {
        (Some(member), class) => {
            let matcher = ToolMatcher::member(member);
            match class {
                Some(class) => matcher.in_class(class),
                None => matcher,
            }
        }
        (None, Some(class)) => ToolMatcher::class(class),
        (None, None) => {
            problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::missing_key",
                        "an expected tool needs `tool` or `class`",
                        "no `tool` or `class`",
                    )
                    .with_help(
                        "name the tool (`tool: brave.web_search`) or an equal-function class \
                         of the test (`class: search`)",
                    ),
                    at,
                ),
            );
            return None;
        }
    };
    let matcher = match tool.server {
        Some(server) => matcher.on_server(server),
        None => matcher,
    };
    Some(match tool.agent {
        Some(agent) => matcher.by_agent(agent),
        None => matcher,
    })
}

/// The class `name` of the test, for a matcher's `class:` at `at`.
pub(crate) fn resolve_class(
    file: &SuiteFile,
    name: &str,
    at: &[PathSeg<'_>],
    classes: TestClasses<'_>,
    problems: &mut Vec<Problem>,
) -> Option<ClassTools> {
    if !classes.written {
        problems.push(
            file.located(
                Problem::new(
                    "trailgate::suite::unknown_class",
                    format!("`class: {name}` needs the test's `equal_function_sets`"),
                    "this test declares no classes",
                )
                .with_help(
                    "declare the class under `equal_function_sets: classes:` in this test, \
                     or name the tool itself",
                ),
                at,
            ),
        );
        return None;
    }
    // Classes that did not load were reported already.
    let set = classes.set?;
    if let Some(class) = set.classes().iter().find(|c| c.name.as_str() == name) {
        return Some(ClassTools::new(name, class.members.clone()));
    }
    let names: Vec<String> = set
        .classes()
        .iter()
        .map(|c| c.name.as_str().to_owned())
        .collect();
    problems.push(
        file.located(
            Problem::new(
                "trailgate::suite::unknown_class",
                format!("unknown class `{name}`"),
                "not a class of this test",
            )
            .with_help(suggest(name, &names, "the test's classes")),
            at,
        ),
    );
    None
}

/// A member: `"server.tool"`, `"tool"`, or `{server: ..., tool: ...}`.
pub(crate) struct MemberValue(pub(crate) Member);

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MemberObject {
    server: Option<String>,
    tool: String,
}

impl<'de> Deserialize<'de> for MemberValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MemberVisitor;
        impl<'de> Visitor<'de> for MemberVisitor {
            type Value = MemberValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool like `brave.web_search`, or a map `{server: ..., tool: ...}`")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<MemberValue, E> {
                Member::parse(text)
                    .map(MemberValue)
                    .map_err(|error| member_error(text, error))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<MemberValue, A::Error> {
                let object = MemberObject::deserialize(MapAccessDeserializer::new(map))?;
                let text = match &object.server {
                    Some(server) => format!("{{server: {server}, tool: {}}}", object.tool),
                    None => format!("{{tool: {}}}", object.tool),
                };
                Member::new(object.server.as_deref(), &object.tool)
                    .map(MemberValue)
                    .map_err(|error| member_error(&text, error))
            }
        }
        deserializer.deserialize_any(MemberVisitor)
    }
}

pub(crate) fn member_error<E: de::Error>(text: &str, error: MemberError) -> E {
    custom(
        "trailgate::suite::invalid_member",
        &format!("invalid member `{text}`: {error}"),
        "invalid member",
        "write `server.tool`, a bare `tool`, or `{server: ..., tool: ...}` for names with dots",
    )
}

/// A regex, compiled while the suite is read so that an error points at the pattern.
pub(crate) struct PatternValue(pub(crate) Pattern);

impl<'de> Deserialize<'de> for PatternValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PatternVisitor;
        impl Visitor<'_> for PatternVisitor {
            type Value = PatternValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a regular expression")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<PatternValue, E> {
                compile(text).map(PatternValue)
            }
        }
        deserializer.deserialize_str(PatternVisitor)
    }
}

pub(crate) fn compile<E: de::Error>(text: &str) -> Result<Pattern, E> {
    Pattern::read(text).map_err(|refusal| {
        let error = match refusal {
            RegexRefusal::Invalid(error) => error,
            RegexRefusal::SuiteTotal => return total_problem(text),
        };
        if let regex::Error::CompiledTooBig(limit) = error {
            return custom(
                "trailgate::suite::regex_too_big",
                &format!(
                    "tool regex {} compiles to more than {} MiB, the limit for one regex",
                    shorten(text),
                    limit >> 20
                ),
                "compiles too big",
                "a large repetition of a class is the usual cause (`\\w{1000}` alone is \
                 megabytes of Unicode classes): use a smaller count, `+` or `*`, or an ASCII \
                 class such as `[a-z0-9_]` or `(?-u:\\w)`",
            );
        }
        // The regex crate draws the pattern with a caret; its last line says what is wrong.
        let detail = error.to_string();
        let reason = detail
            .lines()
            .last()
            .unwrap_or_default()
            .trim_start_matches("error: ")
            .to_owned();
        custom(
            "trailgate::suite::invalid_regex",
            &format!("invalid tool regex {}: {reason}", shorten(text)),
            "invalid regex",
            "patterns use the Rust `regex` dialect: no look-around or back-references; \
             escape `(`, `[`, `.` and `\\` with `\\` to match them literally",
        )
    })
}

/// A pattern as a message quotes it: whole when short, its start otherwise.
fn shorten(text: &str) -> String {
    const SHOWN: usize = 40;
    match text.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("`{}...` ({} bytes)", &text[..end], text.len()),
        None => format!("`{text}`"),
    }
}

described!(PatternValue, "Pattern", |_| json_schema!({
    "type": "string", "format": "regex",
    "description": "a regular expression (Rust regex dialect), searched unanchored"
}));
described!(MemberValue, "Member", |generator| {
    let object = generator.subschema_for::<MemberObject>();
    json_schema!({
        "description": "`server.tool` (split at the first dot), a bare `tool`, or {server, tool}",
        "oneOf": [ { "type": "string", "minLength": 1 }, object ]
    })
});

/// An `agent:` value (docs/matchers.md#agents): an agent's name, or a value matcher on it.
/// A literal that is not a non-empty string could never equal an agent's name, so it is an
/// error rather than a matcher that silently matches nothing.
pub(crate) struct AgentValue(pub(crate) AgentMatcher);

impl<'de> Deserialize<'de> for AgentValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let matcher = ValueMatcher::deserialize(deserializer)?;
        match matcher.as_literal() {
            Some(serde_json::Value::String(name)) if name.is_empty() => Err(custom(
                "trailgate::suite::invalid_agent",
                "`agent` is an empty name",
                "empty agent name",
                "write the agent's name as the trace records it (`agent: router`), or a \
                 value matcher such as `{$regex: \"^research\"}`",
            )),
            Some(serde_json::Value::String(_)) | None => Ok(Self(AgentMatcher::new(matcher))),
            Some(other) => Err(custom(
                "trailgate::suite::invalid_agent",
                &format!("`agent` is {}, not an agent's name", json_kind(other)),
                "not a name",
                "write the agent's name as the trace records it (`agent: router`), or a \
                 value matcher such as `{$regex: \"^research\"}` or `{$not: router}`",
            )),
        }
    }
}

/// What kind of JSON value a literal is, as a message names it.
pub(crate) fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "a map",
    }
}

described!(AgentValue, "Agent", |generator| {
    let matcher = generator.subschema_for::<ValueMatcher>();
    json_schema!({
        "description": "the agent that made the call: its exact name, or a value matcher on the name such as {$regex: ...} or {$not: ...}; a call without an agent matches none (docs/matchers.md#agents)",
        "oneOf": [ { "type": "string", "minLength": 1 }, matcher ]
    })
});
