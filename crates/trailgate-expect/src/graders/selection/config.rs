//! The equal-function-set block as the suite writes it (`classes`, each a name and its
//! members, and `expect`), and its checks into [`EqualFunctionSets`]
//! (docs/scoring.md#tool-identity).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use trailgate_core::{Class, ClassSet};

use crate::error::Problem;
use crate::expect::{self, Expectations};
use crate::graders::Block;
use crate::suite_file::{PathSeg, SuiteFile, join};
use crate::tool_matcher::config::MemberValue;

use super::EqualFunctionSets;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEfs {
    classes: Vec<RawClass>,
    expect: Option<Expectations>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawClass {
    name: String,
    members: Vec<MemberValue>,
}

impl RawEfs {
    /// The block's key at a test's top level.
    pub(crate) const KEY: &'static str = "equal_function_sets";

    /// The block at `path`, checked; `None` when it has problems.
    pub(crate) fn check(
        self,
        file: &SuiteFile,
        path: &[PathSeg<'_>],
        problems: &mut Vec<Problem>,
    ) -> Option<EqualFunctionSets> {
        let before = problems.len();
        let classes_path = join(path, &[PathSeg::Key("classes")]);
        Self::check_classes(file, &self.classes, &classes_path, problems);
        let gates = expect::gates(
            file,
            self.expect,
            Block::EqualFunctionSets.key(),
            Block::EqualFunctionSets.targets(),
            Block::EqualFunctionSets.default_gate(),
            &join(path, &[PathSeg::Key("expect")]),
            problems,
        );
        if problems.len() > before {
            return None;
        }
        let classes = self
            .classes
            .into_iter()
            .map(|class| Class::new(class.name, class.members.into_iter().map(|m| m.0).collect()))
            .collect();
        // `check_classes` enforces what `ClassSet::new` requires; this is a second line.
        match ClassSet::new(classes) {
            Ok(classes) => Some(EqualFunctionSets { classes, gates }),
            Err(error) => {
                problems.push(file.located(
                    Problem::new("trailgate::suite::invalid_value", error.to_string(), "here"),
                    &classes_path,
                ));
                None
            }
        }
    }

    /// Non-empty, uniquely named classes, each with members.
    fn check_classes(
        file: &SuiteFile,
        classes: &[RawClass],
        path: &[PathSeg<'_>],
        problems: &mut Vec<Problem>,
    ) {
        if classes.is_empty() {
            problems.push(file.located(
                Problem::new("trailgate::suite::empty", "`classes` is empty", "no classes").with_help(
                    "list at least one class: `- name: search` with `members: [brave.web_search]`",
                ),
                path,
            ));
        }
        let mut names: BTreeMap<&str, usize> = BTreeMap::new();
        for (index, class) in classes.iter().enumerate() {
            let class_path = join(path, &[PathSeg::Index(index)]);
            let name_path = join(&class_path, &[PathSeg::Key("name")]);
            if class.name.is_empty() {
                problems.push(file.located(
                    Problem::new(
                        "trailgate::suite::invalid_value",
                        "a class name is empty",
                        "empty name",
                    ),
                    &name_path,
                ));
            } else if let Some(&first) = names.get(class.name.as_str()) {
                let first_path = join(path, &[PathSeg::Index(first), PathSeg::Key("name")]);
                problems.push(file.duplicate("class", &class.name, &first_path, &name_path));
            } else {
                names.insert(&class.name, index);
            }
            if class.members.is_empty() {
                problems.push(file.located(
                    Problem::new(
                        "trailgate::suite::empty",
                        format!("class `{}` has no members", class.name),
                        "no members",
                    )
                    .with_help("list the interchangeable tools: `members: [brave.web_search, google.search]`"),
                    &join(&class_path, &[PathSeg::Key("members")]),
                ));
            }
        }
    }
}
