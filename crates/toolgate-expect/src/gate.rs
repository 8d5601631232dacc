//! Gates: the metrics a suite can compare, the comparison operators, and a gate's verdict.

use std::fmt;

use toolgate_core::Percent;

/// A metric that a gate can compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Target {
    /// `tool_selection.precision`.
    SelectionPrecision,
    /// `tool_selection.recall`.
    SelectionRecall,
    /// `tool_selection.f1`.
    SelectionF1,
    /// `tool_calls.pass_rate`.
    ToolCallsPassRate,
    /// `tool_correctness.score`.
    ToolCorrectnessScore,
    /// `call_accuracy.precision`.
    CallAccuracyPrecision,
    /// `call_accuracy.recall`.
    CallAccuracyRecall,
    /// `call_accuracy.f1`.
    CallAccuracyF1,
    /// `call_accuracy.arguments`: partial credit for the arguments of paired calls.
    CallAccuracyArguments,
    /// `trajectory.match_rate`: the share of runs whose path matches.
    TrajectoryMatchRate,
    /// `trajectory.score`: the share of expected steps (calls, in `subset`) matched.
    TrajectoryScore,
    /// `budget.pass_rate`: the share of runs within every limit.
    BudgetPassRate,
    /// `budget.efficiency`: the optimal path's calls over the calls made.
    BudgetEfficiency,
    /// `errors.rate`: the share of calls that failed.
    ErrorsRate,
    /// `errors.recovery`: the share of failed calls recovered later.
    ErrorsRecovery,
    /// `dependencies.pass_rate`: the share of runs where every edge held.
    DependenciesPassRate,
}

impl Target {
    /// Every target, in report order.
    pub const ALL: &'static [Self] = &[
        Self::SelectionPrecision,
        Self::SelectionRecall,
        Self::SelectionF1,
        Self::ToolCallsPassRate,
        Self::ToolCorrectnessScore,
        Self::CallAccuracyPrecision,
        Self::CallAccuracyRecall,
        Self::CallAccuracyF1,
        Self::CallAccuracyArguments,
        Self::TrajectoryMatchRate,
        Self::TrajectoryScore,
        Self::BudgetPassRate,
        Self::BudgetEfficiency,
        Self::ErrorsRate,
        Self::ErrorsRecovery,
        Self::DependenciesPassRate,
    ];

    /// The target's name in suites and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SelectionPrecision => "tool_selection.precision",
            Self::SelectionRecall => "tool_selection.recall",
            Self::SelectionF1 => "tool_selection.f1",
            Self::ToolCallsPassRate => "tool_calls.pass_rate",
            Self::ToolCorrectnessScore => "tool_correctness.score",
            Self::CallAccuracyPrecision => "call_accuracy.precision",
            Self::CallAccuracyRecall => "call_accuracy.recall",
            Self::CallAccuracyF1 => "call_accuracy.f1",
            Self::CallAccuracyArguments => "call_accuracy.arguments",
            Self::TrajectoryMatchRate => "trajectory.match_rate",
            Self::TrajectoryScore => "trajectory.score",
            Self::BudgetPassRate => "budget.pass_rate",
            Self::BudgetEfficiency => "budget.efficiency",
            Self::ErrorsRate => "errors.rate",
            Self::ErrorsRecovery => "errors.recovery",
            Self::DependenciesPassRate => "dependencies.pass_rate",
        }
    }

    /// The target with this name, if there is one.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|t| t.as_str() == name)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A comparison operator of a gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Op {
    /// `>=`
    Ge,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `<`
    Lt,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl Op {
    /// Every operator, in the order gates of one comparison map are listed.
    pub const ALL: &'static [Self] = &[Self::Ge, Self::Gt, Self::Le, Self::Lt, Self::Eq, Self::Ne];

    /// The operator as written in suites.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ge => ">=",
            Self::Gt => ">",
            Self::Le => "<=",
            Self::Lt => "<",
            Self::Eq => "==",
            Self::Ne => "!=",
        }
    }

    /// The operator written `symbol` (`>=`, `>`, `<=`, `<`, `==`, `!=`), if it is one.
    pub fn from_symbol(symbol: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|op| op.as_str() == symbol)
    }

    /// Whether `actual <op> expected` holds.
    pub fn holds(self, actual: Percent, expected: Percent) -> bool {
        match self {
            Self::Ge => actual >= expected,
            Self::Gt => actual > expected,
            Self::Le => actual <= expected,
            Self::Lt => actual < expected,
            Self::Eq => actual == expected,
            Self::Ne => actual != expected,
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One condition on a metric: `target op value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    /// The metric compared.
    pub target: Target,
    /// The comparison.
    pub op: Op,
    /// The percent it is compared with.
    pub value: Percent,
    /// The 1-based line of the suite file where the gate is written; for a default gate,
    /// the line of its block. `None` when the gate was not read from a file.
    pub line: Option<usize>,
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.target, self.op, self.value)
    }
}

/// One gate and its verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateOutcome {
    /// The gate.
    pub gate: Gate,
    /// The metric's value.
    pub actual: Percent,
    /// Whether the gate holds.
    pub passed: bool,
}

pub(crate) fn gate_outcome(gate: Gate, values: &[(Target, Percent)]) -> GateOutcome {
    // Parsing only admits targets that the gate's block produces.
    let actual = values
        .iter()
        .find(|(target, _)| *target == gate.target)
        .map_or(Percent::ZERO, |(_, value)| *value);
    GateOutcome {
        gate,
        actual,
        passed: gate.op.holds(actual, gate.value),
    }
}
