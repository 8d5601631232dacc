//! Step matchers as the suite writes them: a member as a string (`search`), or a map with
//! `tool`, `class`, `server`, `agent`, `args` and `args_mode`; read while the suite is read and
//! checked against the test's classes. Every trajectory grader reads its steps with these.

use std::fmt;

use schemars::{JsonSchema, json_schema};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use trailgate_core::Member;

use crate::error::Problem;
use crate::matchers::{ArgsMode, ValueMatcher};
use crate::schema::described;
use crate::suite_file::{PathSeg, SuiteFile, join};
use crate::tool_matcher::config::{
    AgentValue, MemberValue, PatternValue, RawTool, TestClasses, member_error, tool_matcher,
};

use super::StepMatcher;

/// A step as written, before its class is resolved.
pub(crate) struct RawStep {
    pub(crate) tool: Option<Member>,
    pub(crate) class: Option<String>,
    pub(crate) server: Option<PatternValue>,
    pub(crate) agent: Option<AgentValue>,
    pub(crate) args: Option<ValueMatcher>,
    pub(crate) args_mode: Option<ArgsMode>,
}

/// The map form of a step. (Plain comments: schemars would put a doc comment into the
/// schema.)
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawStepObject {
    pub(crate) tool: Option<MemberValue>,
    // An equal-function class of the test: any of its members.
    pub(crate) class: Option<String>,
    // A regex searched in the call's server.
    pub(crate) server: Option<PatternValue>,
    // The agent that made the call: its name, or a value matcher on it.
    pub(crate) agent: Option<AgentValue>,
    // A map from each argument's name to a literal or an operator (docs/matchers.md).
    pub(crate) args: Option<ValueMatcher>,
    pub(crate) args_mode: Option<ArgsMode>,
}

impl From<RawStepObject> for RawStep {
    fn from(object: RawStepObject) -> Self {
        Self {
            tool: object.tool.map(|member| member.0),
            class: object.class,
            server: object.server,
            agent: object.agent,
            args: object.args,
            args_mode: object.args_mode,
        }
    }
}

impl RawStep {
    /// A step written as a string: the member it names.
    pub(crate) fn parse<E: de::Error>(text: &str) -> Result<Self, E> {
        let member = Member::parse(text).map_err(|error| member_error(text, error))?;
        Ok(Self {
            tool: Some(member),
            class: None,
            server: None,
            agent: None,
            args: None,
            args_mode: None,
        })
    }
}

impl<'de> Deserialize<'de> for RawStep {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StepVisitor;
        impl<'de> Visitor<'de> for StepVisitor {
            type Value = RawStep;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a step: a tool like `brave.web_search`, or a map with `tool` or `class`, \
                     and optionally `server`, `agent`, `args` and `args_mode`",
                )
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<RawStep, E> {
                RawStep::parse(text)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawStep, A::Error> {
                RawStepObject::deserialize(MapAccessDeserializer::new(map)).map(RawStep::from)
            }
        }
        deserializer.deserialize_any(StepVisitor)
    }
}

described!(RawStep, "Step", |generator| {
    let object = generator.subschema_for::<RawStepObject>();
    json_schema!({
        "description": "an expected step: `server.tool`, a bare `tool`, or {tool, class, server, agent, args, args_mode} (docs/matchers.md)",
        "oneOf": [ { "type": "string", "minLength": 1 }, object ]
    })
});

/// The step at `at`, checked: its tool resolved against the test's classes, its `args` a
/// map.
pub(crate) fn step_matcher(
    file: &SuiteFile,
    step: RawStep,
    at: &[PathSeg<'_>],
    classes: TestClasses<'_>,
    problems: &mut Vec<Problem>,
) -> Option<StepMatcher> {
    let tool = tool_matcher(
        file,
        RawTool {
            member: step.tool,
            class: step.class,
            server: step.server.map(|pattern| pattern.0),
            agent: step.agent.map(|agent| agent.0),
        },
        at,
        classes,
        problems,
    );
    if step
        .args
        .as_ref()
        .is_some_and(|args| args.object_entries().is_none())
    {
        problems.push(
            file.located(
                Problem::new(
                    "trailgate::suite::invalid_value",
                    "`args` of a step is not a map",
                    "not a map",
                )
                .with_help("write the arguments as a map: `args: {query: AI news}`"),
                &join(at, &[PathSeg::Key("args")]),
            ),
        );
        return None;
    }
    Some(StepMatcher {
        tool: tool?,
        args: step.args,
        args_mode: step.args_mode.unwrap_or_default(),
    })
}
