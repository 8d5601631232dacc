//! The `trajectory` grader's `config:` as the suite writes it (`mode`, `expected` steps and
//! `{parallel: [...]}` groups), and its checks into a [`TrajectoryGrader`]
//! (docs/graders/trajectory.md).

use std::fmt;

use schemars::{JsonSchema, json_schema};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::error::Problem;
use crate::expect::Expectations;
use crate::graders::Block;
use crate::graders::config::{GraderConfig, block_gates, config_keys};
use crate::matchers::{ArgsMode, ValueMatcher};
use crate::schema::described;
use crate::step_matcher::config::{RawStep, step_matcher};
use crate::suite_file::{PathSeg, SuiteFile, join};
use crate::tool_matcher::config::{AgentValue, MemberValue, PatternValue, TestClasses};

use super::{Entry, Mode, TrajectoryGrader};

/// The keys of a `trajectory` config, as read before the grader's `type:` is known (see
/// [`RawGraderConfig`](crate::graders::config::RawGraderConfig)).
#[derive(Default, JsonSchema)]
pub(crate) struct RawConfig {
    mode: Option<Mode>,
    expected: Option<Vec<RawEntry>>,
}

impl GraderConfig for RawConfig {
    type Grader = TrajectoryGrader;

    config_keys!(mode, expected);

    /// A `trajectory` config (docs/graders/trajectory.md).
    fn check(
        self,
        expect: Option<Expectations>,
        file: &SuiteFile,
        _index: usize,
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<TrajectoryGrader> {
        let before = problems.len();
        if self.mode.is_none() {
            problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::missing_key",
                        "a `trajectory` grader needs `mode`",
                        "no `mode`",
                    )
                    .with_help(
                        "say how the calls must follow the steps: `mode: strict`, `in_order`, \
                         `any_order`, `superset` or `subset`",
                    ),
                    path,
                ),
            );
        }
        let expected_path = join(path, &[PathSeg::Key("expected")]);
        match &self.expected {
            None => problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::missing_key",
                        "a `trajectory` grader needs `expected`",
                        "no `expected`",
                    )
                    .with_help("list the steps of the path: `expected: [search, fetch, answer]`"),
                    path,
                ),
            ),
            Some(entries) if entries.is_empty() => problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::empty_list",
                        "`expected` of a `trajectory` grader is empty",
                        "no step",
                    )
                    .with_help(
                        "list at least one step; to forbid every call, use `budget` with \
                         `max_calls: ...` or `tool-calls` `disallowed`",
                    ),
                    &expected_path,
                ),
            ),
            Some(_) => {}
        }
        let mut expected = Vec::new();
        for (index, entry) in self.expected.into_iter().flatten().enumerate() {
            let at = join(&expected_path, &[PathSeg::Index(index)]);
            if let Some(entry) = entry.check(file, &at, classes, problems) {
                expected.push(entry);
            }
        }
        let gates = block_gates(Block::Trajectory, expect, file, path, problems);
        if problems.len() > before {
            return None;
        }
        Some(TrajectoryGrader {
            mode: self.mode?,
            expected,
            gates,
        })
    }
}

/// An entry of `expected` as written: a step, or `{parallel: [step, ...]}`.
enum RawEntry {
    Step(Box<RawStep>),
    Parallel(Vec<RawStep>),
    /// `parallel` next to a step's keys.
    Mixed,
}

// The map form of an entry: a group, or a step's keys. (Plain comments: schemars would put
// a doc comment into the schema.)
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawEntryObject {
    // Steps made in one agent turn, in any order among themselves.
    parallel: Option<Vec<RawStep>>,
    tool: Option<MemberValue>,
    class: Option<String>,
    server: Option<PatternValue>,
    agent: Option<AgentValue>,
    args: Option<ValueMatcher>,
    args_mode: Option<ArgsMode>,
}

impl<'de> Deserialize<'de> for RawEntry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntryVisitor;
        impl<'de> Visitor<'de> for EntryVisitor {
            type Value = RawEntry;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a step (a tool like `search`, or a map with `tool` or `class`), or a group \
                     `{parallel: [step, step, ...]}`",
                )
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<RawEntry, E> {
                RawStep::parse(text).map(|step| RawEntry::Step(Box::new(step)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawEntry, A::Error> {
                let object = RawEntryObject::deserialize(MapAccessDeserializer::new(map))?;
                let step_keys = object.tool.is_some()
                    || object.class.is_some()
                    || object.server.is_some()
                    || object.agent.is_some()
                    || object.args.is_some()
                    || object.args_mode.is_some();
                Ok(match object.parallel {
                    Some(_) if step_keys => RawEntry::Mixed,
                    Some(steps) => RawEntry::Parallel(steps),
                    None => RawEntry::Step(Box::new(RawStep {
                        tool: object.tool.map(|member| member.0),
                        class: object.class,
                        server: object.server,
                        agent: object.agent,
                        args: object.args,
                        args_mode: object.args_mode,
                    })),
                })
            }
        }
        deserializer.deserialize_any(EntryVisitor)
    }
}

described!(RawEntry, "TrajectoryEntry", |generator| {
    let object = generator.subschema_for::<RawEntryObject>();
    json_schema!({
        "description": "an expected step (`server.tool`, a bare `tool`, or {tool, class, server, agent, args, args_mode}), or {parallel: [step, ...]} with at least two steps made in one agent turn",
        "oneOf": [ { "type": "string", "minLength": 1 }, object ]
    })
});

impl RawEntry {
    /// The entry at `at`, checked: a group holds at least two steps and nothing else.
    fn check(
        self,
        file: &SuiteFile,
        at: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<Entry> {
        match self {
            Self::Step(step) => {
                step_matcher(file, *step, at, classes, problems).map(|step| Entry {
                    steps: vec![step],
                    parallel: false,
                })
            }
            Self::Mixed => {
                problems.push(
                    file.located(
                        Problem::new(
                            "trailgate::suite::invalid_value",
                            "a `parallel` group takes no step keys beside `parallel`",
                            "`parallel` next to a step's keys",
                        )
                        .with_help(
                            "put every step of the group inside the list: \
                             `{parallel: [{tool: fetch, args: {...}}, fetch_b]}`",
                        ),
                        &join(at, &[PathSeg::Key("parallel")]),
                    ),
                );
                None
            }
            Self::Parallel(steps) => {
                let group = join(at, &[PathSeg::Key("parallel")]);
                if steps.len() < 2 {
                    problems.push(
                        file.located(
                            Problem::new(
                                "trailgate::suite::parallel_too_small",
                                format!(
                                    "a `parallel` group needs at least two steps, this one has {}",
                                    steps.len()
                                ),
                                "fewer than two steps",
                            )
                            .with_help(
                                "list the steps made in one turn, `{parallel: [fetch_a, \
                                 fetch_b]}`, or write a single step without `parallel`",
                            ),
                            &group,
                        ),
                    );
                }
                let checked: Vec<Option<_>> = steps
                    .into_iter()
                    .enumerate()
                    .map(|(index, step)| {
                        let step_at = join(&group, &[PathSeg::Index(index)]);
                        step_matcher(file, step, &step_at, classes, problems)
                    })
                    .collect();
                let steps: Option<Vec<_>> = checked.into_iter().collect();
                steps.filter(|s| s.len() >= 2).map(|steps| Entry {
                    steps,
                    parallel: true,
                })
            }
        }
    }
}
