//! The `dependencies` grader's `config:` as the suite writes it (`edges`, each `before` /
//! `after` or `feeds` / `into` / `arg`), and its checks into a [`DependenciesGrader`]
//! (docs/graders/dependencies.md).

use schemars::JsonSchema;
use serde::Deserialize;
use trailgate_core::Member;

use crate::error::Problem;
use crate::expect::Expectations;
use crate::graders::Block;
use crate::graders::config::{GraderConfig, block_gates, config_keys};
use crate::step_matcher::config::{RawStep, step_matcher};
use crate::suite_file::{PathSeg, SuiteFile, join};
use crate::tool_matcher::config::TestClasses;

use super::{DependenciesGrader, Edge};

/// The keys of a `dependencies` config, as read before the grader's `type:` is known (see
/// [`RawGraderConfig`](crate::graders::config::RawGraderConfig)).
#[derive(Default, JsonSchema)]
pub(crate) struct RawConfig {
    edges: Option<Vec<RawEdge>>,
}

// An edge: `{before, after}` or `{feeds, into, arg}`, each end a step. (Plain comments:
// schemars would put a doc comment into the schema.)
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawEdge {
    before: Option<RawStep>,
    after: Option<RawStep>,
    feeds: Option<RawStep>,
    into: Option<RawStep>,
    // The argument of the `into` call that the `feeds` call's result must hold.
    arg: Option<String>,
}

impl GraderConfig for RawConfig {
    type Grader = DependenciesGrader;

    config_keys!(edges);

    /// A `dependencies` config (docs/graders/dependencies.md).
    fn check(
        self,
        expect: Option<Expectations>,
        file: &SuiteFile,
        _index: usize,
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<DependenciesGrader> {
        let before = problems.len();
        let edges_path = join(path, &[PathSeg::Key("edges")]);
        if self.edges.as_ref().is_none_or(Vec::is_empty) {
            problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::missing_key",
                        "a `dependencies` grader needs at least one edge under `edges`",
                        "no edge",
                    )
                    .with_help(
                        "write `edges: [{before: search, after: book}]` or `{feeds: search, \
                         into: book, arg: hotel_id}`",
                    ),
                    if self.edges.is_some() {
                        &edges_path
                    } else {
                        path
                    },
                ),
            );
        }
        let mut edges = Vec::new();
        for (index, raw) in self.edges.into_iter().flatten().enumerate() {
            let at = join(&edges_path, &[PathSeg::Index(index)]);
            if let Some(edge) = raw.check(file, &at, classes, problems) {
                edges.push(edge);
            }
        }
        let gates = block_gates(Block::Dependencies, expect, file, path, problems);
        if problems.len() > before {
            return None;
        }
        Some(DependenciesGrader { edges, gates })
    }
}

impl RawEdge {
    /// The edge at `at`, checked: one of the two forms, both ends given, and each end able
    /// to match a tool of the test's classes when the test has classes.
    fn check(
        self,
        file: &SuiteFile,
        at: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<Edge> {
        let order = self.before.is_some() || self.after.is_some();
        let flow = self.feeds.is_some() || self.into.is_some() || self.arg.is_some();
        let problem = |message: &str, help: &str| {
            file.located(
                Problem::new("trailgate::suite::invalid_edge", message, "this edge")
                    .with_help(help),
                at,
            )
        };
        match (order, flow) {
            (true, true) | (false, false) => {
                problems.push(problem(
                    "an edge is either `before`/`after` or `feeds`/`into`/`arg`",
                    "write `{before: search, after: book}` for an order, or `{feeds: search, \
                     into: book, arg: hotel_id}` for a value that flows",
                ));
                return None;
            }
            _ => {}
        }
        let mut end = |key: &'static str, step: Option<RawStep>| {
            let Some(step) = step else {
                problems.push(problem(
                    &format!("this edge has no `{key}`"),
                    "give both ends of the edge, each a step like `search` or `{tool: search}`",
                ));
                return None;
            };
            let step_at = join(at, &[PathSeg::Key(key)]);
            let unknown = match (&step.tool, classes.set) {
                (Some(member), Some(set)) if step.class.is_none() => !set
                    .classes()
                    .iter()
                    .flat_map(|class| &class.members)
                    .any(|other| overlaps(member, other)),
                _ => false,
            };
            if unknown {
                let member = step
                    .tool
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                problems.push(
                    file.located(
                        Problem::new(
                            "trailgate::suite::unknown_tool",
                            format!("`{member}` is no tool of the test's classes"),
                            "matches no class member",
                        )
                        .with_help(
                            "an edge on a tool the test does not describe would only ever hold \
                             vacuously: name a member of its `equal_function_sets` classes, or \
                             the class itself (`{class: search}`)",
                        ),
                        &step_at,
                    ),
                );
                return None;
            }
            step_matcher(file, step, &step_at, classes, problems)
        };
        if order {
            let before = end("before", self.before);
            let after = end("after", self.after);
            return Some(Edge::Order {
                before: before?,
                after: after?,
            });
        }
        let feeds = end("feeds", self.feeds);
        let into = end("into", self.into);
        let Some(arg) = self.arg else {
            problems.push(problem(
                "a `feeds` edge needs `arg`",
                "name the argument of the `into` call that carries the value: `arg: hotel_id`",
            ));
            return None;
        };
        Some(Edge::Flow {
            feeds: feeds?,
            into: into?,
            arg,
        })
    }
}

/// Whether two members can match one call: the same tool, and the same server unless one
/// of them is bare.
fn overlaps(a: &Member, b: &Member) -> bool {
    a.tool() == b.tool()
        && match (a.server(), b.server()) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        }
}
