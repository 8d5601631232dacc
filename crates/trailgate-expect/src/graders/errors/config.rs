//! The `errors` grader's `config:` as the suite writes it (only `expect:`, which it
//! requires), and its checks into an [`ErrorsGrader`] (docs/graders/errors.md).

use schemars::JsonSchema;

use crate::error::Problem;
use crate::expect::Expectations;
use crate::graders::Block;
use crate::graders::config::{GraderConfig, block_gates, config_keys};
use crate::suite_file::{PathSeg, SuiteFile};
use crate::tool_matcher::config::TestClasses;

use super::ErrorsGrader;

/// The keys of an `errors` config besides `expect`: none.
#[derive(Default, JsonSchema)]
pub(crate) struct RawConfig {}

impl GraderConfig for RawConfig {
    type Grader = ErrorsGrader;

    config_keys!();

    /// An `errors` config (docs/graders/errors.md): `expect:` is required, since no default gate
    /// fits every agent.
    fn check(
        self,
        expect: Option<Expectations>,
        file: &SuiteFile,
        _index: usize,
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<ErrorsGrader> {
        let _ = self;
        let before = problems.len();
        if expect.as_ref().is_none_or(Expectations::is_empty) {
            problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::missing_key",
                        "an `errors` grader needs `expect:`",
                        "no `expect:`",
                    )
                    .with_help(
                        "no default fits every agent: gate what yours must meet, e.g. \
                         `expect: [errors.recovery: {\">=\": 80}, errors.rate: {\"<=\": 20}]`",
                    ),
                    path,
                ),
            );
            return None;
        }
        let gates = block_gates(Block::Errors, expect, file, path, problems);
        if problems.len() > before {
            return None;
        }
        Some(ErrorsGrader {
            classes: classes
                .set
                .map(|set| set.classes().iter().map(|c| c.members.clone()).collect())
                .unwrap_or_default(),
            gates,
        })
    }
}
