//! The graders: one module per kind, and the registry that lists the kinds.
//!
//! A grader module holds everything toolgate knows about its kind: its configuration, its
//! per-run grading, its sums over runs, its metrics and default gate, and what its findings
//! say about a run ([`crate::Section`]). The rest of the crate reaches a kind through the
//! registry, [`Block`]; the reporters see only sections and metrics.

pub(crate) mod call_accuracy;
pub(crate) mod config;
pub(crate) mod selection;
pub(crate) mod tool_calls;
pub(crate) mod tool_correctness;

use toolgate_core::Percent;

use crate::gate::{Gate, Op, Target};

/// The kind of block a target belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Block {
    /// `equal_function_sets`.
    EqualFunctionSets,
    /// A `tool-calls` grader.
    ToolCalls,
    /// A `tool-correctness` grader.
    ToolCorrectness,
    /// A `call-accuracy` grader.
    CallAccuracy,
}

impl Block {
    /// The block's key in the suite file.
    pub fn key(self) -> &'static str {
        match self {
            Self::EqualFunctionSets => "equal_function_sets",
            Self::ToolCalls => "tool-calls",
            Self::ToolCorrectness => "tool-correctness",
            Self::CallAccuracy => "call-accuracy",
        }
    }

    /// The targets the block produces, in report order.
    pub fn targets(self) -> &'static [Target] {
        match self {
            Self::EqualFunctionSets => &[
                Target::SelectionPrecision,
                Target::SelectionRecall,
                Target::SelectionF1,
            ],
            Self::ToolCalls => &[Target::ToolCallsPassRate],
            Self::ToolCorrectness => &[Target::ToolCorrectnessScore],
            Self::CallAccuracy => &[
                Target::CallAccuracyPrecision,
                Target::CallAccuracyRecall,
                Target::CallAccuracyF1,
                Target::CallAccuracyArguments,
            ],
        }
    }

    /// The gate applied when the block's `expect:` is omitted or empty. For
    /// `tool-correctness` this is the default threshold's; a written `threshold` moves it.
    pub fn default_gate(self) -> Gate {
        match self {
            Self::EqualFunctionSets => Gate {
                target: Target::SelectionF1,
                op: Op::Ge,
                value: Percent::new(50).unwrap_or(Percent::ZERO),
                line: None,
            },
            Self::ToolCalls => Gate {
                target: Target::ToolCallsPassRate,
                op: Op::Ge,
                value: Percent::FULL,
                line: None,
            },
            Self::ToolCorrectness => Gate {
                target: Target::ToolCorrectnessScore,
                op: Op::Ge,
                value: Percent::new(50).unwrap_or(Percent::ZERO),
                line: None,
            },
            Self::CallAccuracy => Gate {
                target: Target::CallAccuracyF1,
                op: Op::Ge,
                value: Percent::new(50).unwrap_or(Percent::ZERO),
                line: None,
            },
        }
    }
}
