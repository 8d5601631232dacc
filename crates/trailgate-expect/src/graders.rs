//! The graders: one module per kind, and the registry that lists the kinds.
//!
//! A grader module holds everything trailgate knows about its kind: its configuration, its
//! per-run grading, its sums over runs, its metrics and default gate, and what its findings
//! say about a run ([`crate::Section`]). The rest of the crate reaches a kind through the
//! registry, [`Block`]; the reporters see only sections and metrics.

pub(crate) mod budget;
pub(crate) mod call_accuracy;
pub(crate) mod config;
pub(crate) mod contract;
pub(crate) mod dependencies;
pub(crate) mod errors;
pub(crate) mod selection;
pub(crate) mod tool_calls;
pub(crate) mod tool_correctness;
#[cfg(test)]
pub(crate) mod toy;
pub(crate) mod trajectory;

use trailgate_core::PairingTooLarge;
use trailgate_trace::Run;

use crate::gate::{Gate, Target};

use self::contract::{Grader, GraderReport};
pub use self::contract::{LimitWords, Verdicts};

/// The registry: every grader kind, once, in report order. A line names the kind's field
/// (also its object's key in the JSON report), its [`Block`] variant, the type that grades
/// it (a [`Grader`], [`GraderReport`] and [`GraderRecheck`]), and its key in the suite
/// file. Adding a kind is adding its line.
///
/// `registry!(each)` hands the lines to the macro `each`, which builds what is written once
/// per kind (a struct's fields, a loop's steps) from them.
macro_rules! registry {
    ($each:ident) => {
        crate::graders::with_test_kinds! { $each;
            equal_function_sets: EqualFunctionSets = crate::graders::selection::EqualFunctionSets, "equal_function_sets";
            tool_calls: ToolCalls = crate::graders::tool_calls::ToolCallsGrader, "tool-calls";
            tool_correctness: ToolCorrectness = crate::graders::tool_correctness::ToolCorrectnessGrader, "tool-correctness";
            call_accuracy: CallAccuracy = crate::graders::call_accuracy::CallAccuracyGrader, "call-accuracy";
            trajectory: Trajectory = crate::graders::trajectory::TrajectoryGrader, "trajectory";
            budget: Budget = crate::graders::budget::BudgetGrader, "budget";
            errors: Errors = crate::graders::errors::ErrorsGrader, "errors";
            dependencies: Dependencies = crate::graders::dependencies::DependenciesGrader, "dependencies";
        }
    };
}

pub(crate) use registry;

/// Hands the registry's lines to `$each`, as they are.
#[cfg(not(test))]
macro_rules! with_test_kinds {
    ($each:ident; $($line:tt)*) => {
        $each! { $($line)* }
    };
}

/// Hands the registry's lines to `$each` with one more in this crate's own tests: `toy`
/// (`graders/toy.rs`), a kind added as docs/ARCHITECTURE.md says, whose tests show that a
/// module and this one line are all a kind needs.
#[cfg(test)]
macro_rules! with_test_kinds {
    ($each:ident; $($line:tt)*) => {
        $each! {
            $($line)*
            toy: Toy = crate::graders::toy::ToyGrader, "toy";
        }
    };
}

pub(crate) use with_test_kinds;

#[cfg(test)]
mod tests;

/// Builds [`Block`] and the test's [`Graders`] from the registry.
macro_rules! blocks {
    ($($field:ident: $variant:ident = $grader:ty, $key:literal;)*) => {
        /// The kind of a grader (the equal-function-set block is one too).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Block {
            $(
                #[doc = concat!("`", $key, "`.")]
                $variant,
            )*
        }

        /// How many run-sized lists the kinds of the registry write in the JSON report, over
        /// all kinds: each kind numbers its own from 0, and owns the range from its
        /// [`Block::list_base`].
        pub const JSON_LISTS: usize = 0 $(+ <$grader as GraderReport>::JSON_LISTS)*;

        impl Block {
            /// Every kind, in report order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),*];

            /// The number of the kind's first run-sized list among every kind's.
            pub(crate) const fn list_base(self) -> usize {
                let mut base = 0;
                $(
                    if matches!(self, Self::$variant) {
                        return base;
                    }
                    base += <$grader as GraderReport>::JSON_LISTS;
                )*
                base
            }

            /// The key of the kind's object in a test of the JSON report.
            pub fn json_key(self) -> &'static str {
                match self {
                    $(Self::$variant => stringify!($field),)*
                }
            }

            /// The kind's run-sized lists: the number of the first among every kind's
            /// (see [`JSON_LISTS`]) and each one's key in the kind's object, in order.
            pub fn json_lists(self) -> (usize, &'static [&'static str]) {
                match self {
                    $(Self::$variant => (
                        self.list_base(),
                        <$grader as GraderReport>::JSON_LIST_NAMES,
                    ),)*
                }
            }

            /// The block's key in the suite file.
            pub fn key(self) -> &'static str {
                match self {
                    $(Self::$variant => $key,)*
                }
            }

            /// The targets the block produces, in report order.
            pub fn targets(self) -> &'static [Target] {
                match self {
                    $(Self::$variant => <$grader as Grader>::TARGETS,)*
                }
            }

            /// The gate applied when the block's `expect:` is omitted or empty. For
            /// `tool-correctness` this is the default threshold's; a written `threshold`
            /// moves it.
            pub fn default_gate(self) -> Gate {
                match self {
                    $(Self::$variant => <$grader as Grader>::default_gate(),)*
                }
            }
        }

        /// The graders of one test, at most one of each kind, in registry order.
        #[derive(Debug, Clone, Default)]
        #[non_exhaustive]
        pub struct Graders {
            $(
                #[doc = concat!("The `", $key, "` grader, when the test has one.")]
                pub $field: Option<$grader>,
            )*
        }

        impl Graders {
            /// Whether the test has no grader at all.
            pub fn is_empty(&self) -> bool {
                true $(&& self.$field.is_none())*
            }

            /// The pairing limits `run` passes under the graders that pair (checked before
            /// the run is graded, on whichever thread reads it): for each such grader, its
            /// kind and the limit passed, in registry order. Empty when the run is within
            /// every limit.
            pub fn past_limits(&self, run: &Run) -> Vec<(Block, PairingTooLarge)> {
                let mut past = Vec::new();
                $(
                    if let Some(grader) = &self.$field
                        && let Some(limit) = grader.past_limit(run)
                    {
                        past.push((Block::$variant, limit));
                    }
                )*
                past
            }

            /// How the problem about runs too long for the grader of kind `block` words it,
            /// when the test has that grader and it pairs.
            pub fn limit_words(&self, block: Block) -> Option<LimitWords> {
                match block {
                    $(Block::$variant => self.$field.as_ref().and_then(Grader::limit_words),)*
                }
            }
        }
    };
}

registry!(blocks);

/// The block a test writes at its top level, beside `graders:` rather than under it: the
/// equal-function-set block, as the suite's parser reads it. Its `check` gives the grader
/// that [`Graders::set_top_level`] places. Its kind is named here, in the registry, so
/// that the parser names none.
pub(crate) type TopLevelBlock = selection::config::RawEfs;

impl Graders {
    /// Places the grader of the test's top-level block ([`TopLevelBlock`]), checked.
    pub(crate) fn set_top_level(&mut self, grader: Option<selection::EqualFunctionSets>) {
        self.equal_function_sets = grader;
    }
}

/// Every target of every kind, in report order (for `trailgate schema`).
pub(crate) fn all_targets() -> impl Iterator<Item = Target> {
    Block::ALL
        .iter()
        .flat_map(|block| block.targets().iter().copied())
}
