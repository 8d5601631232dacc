//! Step matchers (docs/matchers.md#step-matchers): one expected step of an agent's path, a tool
//! matcher
//! (`tool`, `class`, `server`, `agent`) and, optionally, value matchers on the call's arguments with
//! their `args_mode`. Every trajectory grader matches calls with these, and only with these.

pub(crate) mod config;

use std::fmt;

use trailgate_trace::Call;

use crate::matchers::{ArgsMode, ValueMatcher, ValueMismatch};
use crate::tool_matcher::ToolMatcher;

/// One expected step: the tool, and what its arguments must be.
#[derive(Debug, Clone)]
pub struct StepMatcher {
    /// The tool (a member, a class, a server pattern, an agent; docs/matchers.md).
    pub tool: ToolMatcher,
    /// The arguments, when the step says: a map of value matchers.
    pub args: Option<ValueMatcher>,
    /// How literal objects in `args` compare.
    pub args_mode: ArgsMode,
}

/// Why a call is not an expected step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepMiss {
    /// The call is of another tool.
    Tool,
    /// The tool is right; the arguments are not, first at this place.
    Args(ValueMismatch),
}

impl StepMatcher {
    /// Whether `call` is the step: the tool matches, and the arguments when given.
    pub fn matches(&self, call: &Call) -> bool {
        self.tool_matches(call) && self.args_match(call)
    }

    /// Whether `call` is of the step's tool (and by its agent, when the step names one),
    /// whatever its arguments.
    pub fn tool_matches(&self, call: &Call) -> bool {
        self.tool.matches(call)
    }

    fn args_match(&self, call: &Call) -> bool {
        self.args
            .as_ref()
            .is_none_or(|args| args.matches(Some(call.args_view()), self.args_mode))
    }

    /// Why `call` is not the step, or `None` when it is.
    pub fn miss(&self, call: &Call) -> Option<StepMiss> {
        if !self.tool_matches(call) {
            return Some(StepMiss::Tool);
        }
        let args = self.args.as_ref()?;
        args.explain(Some(call.args_view()), self.args_mode)
            .map(StepMiss::Args)
    }

    /// The call of `calls` that came closest to the step, by position, with why it is not
    /// the step: the first call of the step's tool whose arguments differ. `None` when no
    /// call is of the step's tool.
    pub fn closest(&self, calls: &[Call]) -> Option<(usize, StepMiss)> {
        calls
            .iter()
            .enumerate()
            .filter(|(_, call)| self.tool_matches(call))
            .find_map(|(index, call)| Some((index, self.miss(call)?)))
    }
}

impl fmt::Display for StepMatcher {
    /// The tool as [`ToolMatcher`] writes it, then the arguments as compact JSON
    /// (`search {"q":{"$icontains":"news"}}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.tool)?;
        if let Some(args) = &self.args {
            write!(f, " {args}")?;
            if self.args_mode == ArgsMode::Subset {
                f.write_str(" (subset)")?;
            }
        }
        Ok(())
    }
}
