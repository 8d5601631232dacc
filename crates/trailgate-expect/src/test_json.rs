//! A test's part of the JSON report, grader by grader: what each grader's run entries name,
//! the entries of a run, and each grader's object.

use std::io;

use crate::evaluate::{RunOutcome, TestOutcome};
use crate::graders::contract::GraderReport;
use crate::graders::{Block, registry};
use crate::json_part::{Entries, JsonPart};
use crate::model::Test;
use crate::reliability::ReliabilityOutcome;
use crate::run::RunInfo;

/// Writes one grader's entries for a run, its lists numbered from its kind's base.
fn write_kind<G: GraderReport>(
    block: Block,
    names: &G::Names,
    info: &RunInfo,
    run: Option<&G::Run>,
    entries: &mut Entries<'_>,
) -> io::Result<()> {
    let Some(run) = run else {
        return Ok(());
    };
    entries.set_base(block.list_base());
    G::write_entries(names, info, run, entries)
}

/// Builds, from the registry, the names of each kind and the loops over kinds.
macro_rules! json_kinds {
    ($($field:ident: $variant:ident = $grader:ty, $key:literal;)*) => {
        /// What a test's run entries name (its classes, its `tool-calls` entries, its
        /// expected tools and calls), per grader: taken from the suite's test before its
        /// runs are scored, or from its outcome.
        #[derive(Debug, Clone, Default)]
        pub struct JsonContext {
            $($field: <$grader as GraderReport>::Names,)*
        }

        impl JsonContext {
            /// The names of `test`'s graders.
            pub fn of_test(test: &Test) -> Self {
                Self {
                    $($field: test
                        .graders
                        .$field
                        .as_ref()
                        .map(GraderReport::names)
                        .unwrap_or_default(),)*
                }
            }

            /// The names an outcome's graders carry.
            pub fn of_outcome(test: &TestOutcome) -> Self {
                Self {
                    $($field: test
                        .graders
                        .$field
                        .as_ref()
                        .map(<$grader as GraderReport>::outcome_names)
                        .unwrap_or_default(),)*
                }
            }
        }

        impl RunOutcome {
            /// Writes the run's entries of every grader's run-sized lists.
            pub fn write_json_entries(
                &self,
                context: &JsonContext,
                entries: &mut Entries<'_>,
            ) -> io::Result<()> {
                $(write_kind::<$grader>(
                    Block::$variant,
                    &context.$field,
                    &self.info,
                    self.graders.$field.as_ref(),
                    entries,
                )?;)*
                Ok(())
            }
        }

        impl TestOutcome {
            /// Writes the entries of every grader's run-sized lists for the listed run at
            /// `index` (of [`runs`](Self::runs)).
            pub fn write_listed_json_entries(
                &self,
                index: usize,
                context: &JsonContext,
                entries: &mut Entries<'_>,
            ) -> io::Result<()> {
                let Some(info) = self.runs.get(index) else {
                    return Ok(());
                };
                $(write_kind::<$grader>(
                    Block::$variant,
                    &context.$field,
                    info,
                    self.graders
                        .$field
                        .as_ref()
                        .and_then(|outcome| <$grader as GraderReport>::listed(outcome).get(index)),
                    entries,
                )?;)*
                Ok(())
            }

            /// Each grader's object in the test's JSON, in registry order.
            pub fn json_parts(&self) -> Vec<JsonPart> {
                let mut parts = Vec::new();
                $(
                    parts.extend(self.graders.$field.as_ref().map(|outcome| {
                        <$grader as GraderReport>::json_part(outcome)
                            .numbered_from(Block::$variant.list_base())
                    }));
                )*
                parts.extend(self.reliability.as_ref().map(ReliabilityOutcome::json_part));
                parts
            }
        }
    };
}

registry!(json_kinds);
