//! The `tool-correctness` grader's `config:` as the suite writes it (`expected_tools`,
//! `exact_match`, `check_ordering`, `threshold`), and its checks into a
//! [`ToolCorrectnessGrader`] (docs/graders/tool-correctness.md).

use std::fmt;

use schemars::{JsonSchema, json_schema};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use trailgate_core::{Member, Percent};

use crate::error::{Problem, custom};
use crate::expect::{self, Expectations, Threshold};
use crate::gate::{Gate, GateValue};
use crate::graders::Block;
use crate::graders::config::{GraderConfig, config_keys};
use crate::schema::described;
use crate::suite_file::{PathSeg, SuiteFile, join};
use crate::tool_matcher::ToolMatcher;
use crate::tool_matcher::config::{
    AgentValue, RawTool, TestClasses, compile, member_error, tool_matcher,
};

use super::ToolCorrectnessGrader;

/// The keys of a `tool-correctness` config, as read before the grader's `type:` is known
/// (see [`RawGraderConfig`](crate::graders::config::RawGraderConfig)).
#[derive(Default, JsonSchema)]
pub(crate) struct RawConfig {
    expected_tools: Option<Vec<RawToolSpec>>,
    exact_match: Option<bool>,
    check_ordering: Option<bool>,
    threshold: Option<Threshold>,
}

impl GraderConfig for RawConfig {
    type Grader = ToolCorrectnessGrader;

    config_keys!(expected_tools, exact_match, check_ordering, threshold);

    /// A `tool-correctness` config (docs/graders/tool-correctness.md).
    fn check(
        self,
        expect: Option<Expectations>,
        file: &SuiteFile,
        _index: usize,
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<ToolCorrectnessGrader> {
        let before = problems.len();
        let written = self.expected_tools.is_some();
        let expected: Vec<Option<ToolMatcher>> = self
            .expected_tools
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(index, tool)| {
                let at = join(
                    path,
                    &[PathSeg::Key("expected_tools"), PathSeg::Index(index)],
                );
                tool_matcher(file, tool.0, &at, classes, problems)
            })
            .collect();
        if !written {
            problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::missing_key",
                        "a `tool-correctness` grader needs `expected_tools`",
                        "no `expected_tools`",
                    )
                    .with_help(
                        "list the tools the agent should call: `expected_tools: [search, book]`",
                    ),
                    path,
                ),
            );
        }
        let threshold = self
            .threshold
            .map_or_else(|| Percent::new(50).unwrap_or(Percent::ZERO), |t| t.0);
        // The block's default gate, at the written threshold.
        let default = Gate {
            value: GateValue::Value(threshold.into()),
            ..Block::ToolCorrectness.default_gate()
        };
        let gates = expect::gates(
            file,
            expect,
            Block::ToolCorrectness.key(),
            Block::ToolCorrectness.targets(),
            default,
            &join(path, &[PathSeg::Key("expect")]),
            problems,
        );
        if problems.len() > before {
            return None;
        }
        Some(ToolCorrectnessGrader {
            expected: expected.into_iter().flatten().collect(),
            exact_match: self.exact_match.unwrap_or(false),
            check_ordering: self.check_ordering.unwrap_or(false),
            threshold,
            gates,
        })
    }
}

/// An entry of `expected_tools`: a member (`brave.web_search`, `{server: brave, tool:
/// web_search}`), or a class with an optional server pattern (`{class: search, server:
/// "^brave$"}`). In the member map `server` is the server's name, as
/// docs/scoring.md#tool-identity has it;
/// next to `class` it is a pattern, as docs/matchers.md#tool-matchers has it.
struct RawToolSpec(RawTool);

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawToolSpecObject {
    tool: Option<String>,
    server: Option<String>,
    class: Option<String>,
    agent: Option<AgentValue>,
}

impl<'de> Deserialize<'de> for RawToolSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SpecVisitor;
        impl<'de> Visitor<'de> for SpecVisitor {
            type Value = RawToolSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a tool like `brave.web_search`, a map `{server: ..., tool: ...}`, or a \
                     class `{class: search}`",
                )
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<RawToolSpec, E> {
                let member = Member::parse(text).map_err(|error| member_error(text, error))?;
                Ok(RawToolSpec(RawTool {
                    member: Some(member),
                    class: None,
                    server: None,
                    agent: None,
                }))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawToolSpec, A::Error> {
                let object = RawToolSpecObject::deserialize(MapAccessDeserializer::new(map))?;
                if object.class.is_some() {
                    let member = match &object.tool {
                        Some(tool) => {
                            Some(Member::parse(tool).map_err(|error| member_error(tool, error))?)
                        }
                        None => None,
                    };
                    let server = object.server.as_deref().map(compile).transpose()?;
                    return Ok(RawToolSpec(RawTool {
                        member,
                        class: object.class,
                        server,
                        agent: object.agent.map(|agent| agent.0),
                    }));
                }
                let Some(tool) = &object.tool else {
                    return Err(custom(
                        "trailgate::suite::missing_key",
                        "an expected tool needs `tool` or `class`",
                        "no `tool` or `class`",
                        "name the tool (`{tool: web_search}`) or an equal-function class of the \
                         test (`{class: search}`)",
                    ));
                };
                let text = match &object.server {
                    Some(server) => format!("{{server: {server}, tool: {tool}}}"),
                    None => format!("{{tool: {tool}}}"),
                };
                let member = Member::new(object.server.as_deref(), tool)
                    .map_err(|error| member_error(&text, error))?;
                Ok(RawToolSpec(RawTool {
                    member: Some(member),
                    class: None,
                    server: None,
                    agent: object.agent.map(|agent| agent.0),
                }))
            }
        }
        deserializer.deserialize_any(SpecVisitor)
    }
}

described!(RawToolSpec, "ExpectedTool", |generator| {
    let object = generator.subschema_for::<RawToolSpecObject>();
    json_schema!({
        "description": "`server.tool`, a bare `tool`, {server, tool} (server by name), or {class, server} (any member of the test's class; server a regex); each map may add `agent` (docs/matchers.md#agents)",
        "oneOf": [ { "type": "string", "minLength": 1 }, object ]
    })
});
