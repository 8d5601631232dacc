//! The `errors` grader's `config:` as the suite writes it (only `expect:`, which it
//! requires), and its checks into an [`ErrorsGrader`] (SPEC section 13).

use schemars::JsonSchema;
use serde::de::Deserializer;

use crate::error::Problem;
use crate::expect::{self, Expectations};
use crate::graders::Block;
use crate::suite_file::{PathSeg, SuiteFile, join};
use crate::tool_matcher::config::TestClasses;

use super::ErrorsGrader;

/// The keys of an `errors` config besides `expect`: none.
#[derive(Default, JsonSchema)]
pub(crate) struct RawConfig {}

impl RawConfig {
    /// Its keys: none but `expect`, which every kind takes.
    pub(crate) const KEYS: &[&str] = &[];

    /// Reads nothing: the kind has no key of its own.
    #[expect(
        clippy::unused_self,
        clippy::unnecessary_wraps,
        reason = "the same shape as every kind's reader, for the registry"
    )]
    pub(crate) fn read<'de, D: Deserializer<'de>>(
        &mut self,
        _key: &str,
        _value: D,
    ) -> Result<(), D::Error> {
        Ok(())
    }

    /// Each key, with whether the config has it: none.
    #[expect(
        clippy::unused_self,
        reason = "the same shape as every kind's, for the registry"
    )]
    pub(crate) fn keys_present(&self) -> [(&'static str, bool); 0] {
        []
    }

    /// An `errors` config (SPEC section 13): `expect:` is required, since no default gate
    /// fits every agent.
    pub(crate) fn check(
        self,
        expect: Option<Expectations>,
        file: &SuiteFile,
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
                        "toolgate::suite::missing_key",
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
        let gates = expect::gates(
            file,
            expect,
            Block::Errors.key(),
            Block::Errors.targets(),
            Block::Errors.default_gate(),
            &join(path, &[PathSeg::Key("expect")]),
            problems,
        );
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
