//! The `call-accuracy` grader's `config:` as the suite writes it (`expected` calls with their
//! arguments, `args_mode`, `ignore_args`), and its checks into a [`CallAccuracyGrader`]
//! (docs/graders/call-accuracy.md).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::error::Problem;
use crate::expect::Expectations;
use crate::graders::Block;
use crate::graders::config::{GraderConfig, block_gates, config_keys};
use crate::matchers::{ArgsMode, ValueMatcher};
use crate::suite_file::{PathSeg, SuiteFile, join};
use crate::tool_matcher::ToolMatcher;
use crate::tool_matcher::config::{
    AgentValue, MemberValue, PatternValue, RawTool, TestClasses, tool_matcher,
};

use super::{CallAccuracyGrader, ExpectedCall};

/// The keys of a `call-accuracy` config, as read before the grader's `type:` is known (see
/// [`RawGraderConfig`](crate::graders::config::RawGraderConfig)).
#[derive(Default, JsonSchema)]
pub(crate) struct RawConfig {
    expected: Option<Vec<RawExpectedCall>>,
    args_mode: Option<ArgsMode>,
    ignore_args: Option<Vec<String>>,
}

impl GraderConfig for RawConfig {
    type Grader = CallAccuracyGrader;

    config_keys!(expected, args_mode, ignore_args);

    /// A `call-accuracy` config (docs/graders/call-accuracy.md).
    fn check(
        self,
        expect: Option<Expectations>,
        file: &SuiteFile,
        _index: usize,
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<CallAccuracyGrader> {
        let before = problems.len();
        let tools: Vec<Option<ToolMatcher>> = self
            .expected
            .iter()
            .flatten()
            .enumerate()
            .map(|(index, call)| {
                let at = join(path, &[PathSeg::Key("expected"), PathSeg::Index(index)]);
                let tool = RawTool {
                    member: call.tool.as_ref().map(|m| m.0.clone()),
                    class: call.class.clone(),
                    server: call.server.as_ref().map(|p| p.0.clone()),
                    agent: call.agent.as_ref().map(|a| a.0.clone()),
                };
                tool_matcher(file, tool, &at, classes, problems)
            })
            .collect();
        if self.expected.is_none() {
            problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::missing_key",
                        "a `call-accuracy` grader needs `expected`",
                        "no `expected`",
                    )
                    .with_help(
                        "list the expected calls: `expected: [{tool: search, args: {q: news}}]`",
                    ),
                    path,
                ),
            );
        }
        for (index, call) in self.expected.iter().flatten().enumerate() {
            if call
                .args
                .as_ref()
                .is_some_and(|args| args.object_entries().is_none())
            {
                problems.push(
                    file.located(
                        Problem::new(
                            "trailgate::suite::invalid_value",
                            "`args` of an expected call is not a map",
                            "not a map",
                        )
                        .with_help("write the arguments as a map: `args: {query: AI news}`"),
                        &join(
                            path,
                            &[
                                PathSeg::Key("expected"),
                                PathSeg::Index(index),
                                PathSeg::Key("args"),
                            ],
                        ),
                    ),
                );
            }
        }
        let gates = block_gates(Block::CallAccuracy, expect, file, path, problems);
        if problems.len() > before {
            return None;
        }
        Some(CallAccuracyGrader {
            args_mode: self.args_mode.unwrap_or_default(),
            ignore_args: self.ignore_args.unwrap_or_default(),
            expected: self
                .expected
                .unwrap_or_default()
                .into_iter()
                .zip(tools)
                .filter_map(|(call, tool)| Some((call, tool?)))
                .map(|(call, tool)| ExpectedCall {
                    tool,
                    args: call.args.unwrap_or_else(|| {
                        ValueMatcher::literal(Value::Object(serde_json::Map::new()))
                    }),
                })
                .collect(),
            gates,
        })
    }
}

/// An expected call of a `call-accuracy` grader: a tool (`tool`, `class`, or both) with an
/// optional `server` pattern, and the arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawExpectedCall {
    tool: Option<MemberValue>,
    /// An equal-function class of the test: any of its members.
    class: Option<String>,
    /// A regex searched in the call's server.
    server: Option<PatternValue>,
    /// The agent that made the call: its name, or a value matcher on it.
    agent: Option<AgentValue>,
    /// A map from each argument's name to a literal or an operator (docs/matchers.md).
    args: Option<ValueMatcher>,
}
