//! Gates: the metrics a suite can compare, the comparison operators, and a gate's verdict.

use std::fmt;

use toolgate_core::Percent;

/// A metric that a gate can compare, by its name in suites and reports
/// (`tool_selection.f1`). Each grader kind declares its own (see `Block::targets`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Target(&'static str);

impl Target {
    /// The metric named `name`.
    pub(crate) const fn new(name: &'static str) -> Self {
        Self(name)
    }

    /// The target's name in suites and reports.
    pub fn as_str(self) -> &'static str {
        self.0
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

impl Gate {
    /// The default gate `target >= value` of a kind, written nowhere (its line is set where
    /// the block is read).
    pub(crate) fn at_least(target: Target, value: u8) -> Self {
        Self {
            target,
            op: Op::Ge,
            value: Percent::new(value).unwrap_or(Percent::FULL),
            line: None,
        }
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.target, self.op, self.value)
    }
}

/// One gate and its verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateOutcome {
    /// The gate.
    pub gate: Gate,
    /// The metric's value.
    pub actual: Percent,
    /// Whether the gate holds.
    pub passed: bool,
    /// A remark on a verdict that stands: an inconclusive `reliability.pass_rate` gate,
    /// whose value lies inside the pass rate's interval (SPEC section 14).
    pub note: Option<String>,
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
        note: None,
    }
}
