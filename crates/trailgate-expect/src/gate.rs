//! Gates: the metrics a suite can compare, the comparison operators, the values they
//! compare with (a percent, or the baseline's value moved by an offset), and a gate's
//! verdict.

use std::collections::BTreeMap;
use std::fmt;

use crate::metric_value::MetricValue;

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

    /// Whether the metric is a whole percent: every metric but the `usage.*` ones, which
    /// count tokens or cost (docs/graders/budget.md#usage-metrics).
    pub fn is_percent(self) -> bool {
        names_percent(self.0)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether the metric named `name` is a whole percent: every metric but the `usage.*`
/// ones (docs/graders/budget.md#usage-metrics).
pub fn names_percent(name: &str) -> bool {
    !name.starts_with("usage.")
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
    pub fn holds(self, actual: MetricValue, expected: MetricValue) -> bool {
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

/// What a gate compares its metric with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateValue {
    /// A value written in the suite: a whole percent, or for a `usage.*` metric any
    /// non-negative number with at most six decimals.
    Value(MetricValue),
    /// The same metric of the same test in the baseline report, moved by an offset
    /// (`baseline - 2`), given with `check --baseline` (docs/baselines.md).
    Baseline(BaselineOffset),
}

impl fmt::Display for GateValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Value(value) => write!(f, "{value}"),
            Self::Baseline(offset) => write!(f, "{offset}"),
        }
    }
}

/// The offset of a gate value `baseline`, `baseline - N` or `baseline + N`: a whole number
/// of the metric's units (percentage points; tokens or currency units for `usage.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BaselineOffset(i64);

impl BaselineOffset {
    /// The offset `points` (negative for `baseline - N`).
    pub fn new(points: i64) -> Self {
        Self(points)
    }

    /// The offset in the metric's units.
    pub fn points(self) -> i64 {
        self.0
    }

    /// The value compared with when the baseline's metric is `base`, a percent or not:
    /// `base` moved by the offset, never below 0, and for a percent never above 100
    /// (`baseline - 5` of a base of 3 is 0).
    pub fn resolve(self, percent: bool, base: MetricValue) -> MetricValue {
        base.moved(self.0, percent)
    }
}

impl fmt::Display for BaselineOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => f.write_str("baseline"),
            n if n < 0 => write!(f, "baseline - {}", n.unsigned_abs()),
            n => write!(f, "baseline + {n}"),
        }
    }
}

/// The metrics of a baseline report (`check --baseline`), by test name and metric name, as
/// that report gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    tests: BTreeMap<String, BTreeMap<String, MetricValue>>,
}

impl Baseline {
    /// A baseline of the tests given, each with its metrics by name.
    pub fn new(tests: BTreeMap<String, BTreeMap<String, MetricValue>>) -> Self {
        Self { tests }
    }

    /// The metrics of test `name` in the baseline, by metric name; `None` when the
    /// baseline has no such test.
    pub fn test(&self, name: &str) -> Option<&BTreeMap<String, MetricValue>> {
        self.tests.get(name)
    }

    /// What a gate on the baseline of test `test` compares with under `baseline` (`None`:
    /// no `--baseline` given): the baseline's metric moved by `offset`, or why the gate is
    /// skipped.
    pub(crate) fn resolve(
        baseline: Option<&Self>,
        test: &str,
        target: Target,
        offset: BaselineOffset,
    ) -> BaselineUse {
        let Some(baseline) = baseline else {
            return BaselineUse::Skipped("no --baseline given".to_owned());
        };
        let Some(metrics) = baseline.tests.get(test) else {
            return BaselineUse::Skipped(format!("the baseline has no test named `{test}`"));
        };
        match metrics.get(target.as_str()).copied() {
            Some(base) => BaselineUse::Resolved {
                base,
                value: offset.resolve(target.is_percent(), base),
            },
            None => BaselineUse::Skipped(format!("the baseline's test has no metric `{target}`")),
        }
    }
}

/// What a gate on the baseline became in one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaselineUse {
    /// The baseline's metric (`base`), and the value compared with: `base` moved by the
    /// gate's offset, never below 0 (nor above 100 for a percent).
    Resolved {
        /// The metric's value in the baseline report.
        base: MetricValue,
        /// The value the gate compared with.
        value: MetricValue,
    },
    /// There is nothing to compare with: the reason. The gate neither passes nor fails.
    Skipped(String),
}

/// One condition on a metric: `target op value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    /// The metric compared.
    pub target: Target,
    /// The comparison.
    pub op: Op,
    /// What it is compared with.
    pub value: GateValue,
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
            value: GateValue::Value(MetricValue::whole(u128::from(value.min(100)))),
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
    pub actual: MetricValue,
    /// Whether the gate holds. A skipped gate ([`GateOutcome::skipped`]) fails nothing, so
    /// this is `true` for it; the reports show it as skipped, never as passed.
    pub passed: bool,
    /// A remark on a verdict that stands: an inconclusive `reliability.pass_rate` gate,
    /// whose value lies inside the pass rate's interval (docs/reliability.md).
    pub note: Option<String>,
    /// For a gate on the baseline: the value it compared with, or why it was skipped.
    pub baseline: Option<BaselineUse>,
}

impl GateOutcome {
    /// The value the metric was compared with: the gate's value or the baseline's
    /// resolved value; `None` when the gate was skipped.
    pub fn value(&self) -> Option<MetricValue> {
        match (&self.gate.value, &self.baseline) {
            (GateValue::Value(value), _)
            | (GateValue::Baseline(_), Some(BaselineUse::Resolved { value, .. })) => Some(*value),
            (GateValue::Baseline(_), _) => None,
        }
    }

    /// The gate as the reports show it: `target op value`, and for a gate on the baseline
    /// that was resolved, what it compared with (`tool_selection.f1 >= baseline - 2
    /// (baseline 90, so 88)`).
    pub fn written(&self) -> String {
        match &self.baseline {
            Some(BaselineUse::Resolved { base, value }) => {
                format!("{} (baseline {base}, so {value})", self.gate)
            }
            _ => self.gate.to_string(),
        }
    }

    /// Why the gate was skipped, when it was.
    pub fn skipped(&self) -> Option<&str> {
        match (&self.gate.value, &self.baseline) {
            (GateValue::Baseline(_), Some(BaselineUse::Skipped(reason))) => Some(reason),
            (GateValue::Baseline(_), None) => Some("no --baseline given"),
            _ => None,
        }
    }
}

/// The verdict of `gate` of test `test` on the metrics `values`, with `baseline` for a gate
/// on the baseline.
pub(crate) fn gate_outcome(
    gate: Gate,
    values: &[(Target, MetricValue)],
    test: &str,
    baseline: Option<&Baseline>,
) -> GateOutcome {
    // Parsing only admits targets that the gate's block produces.
    let actual = values
        .iter()
        .find(|(target, _)| *target == gate.target)
        .map_or(MetricValue::ZERO, |(_, value)| *value);
    let used = match gate.value {
        GateValue::Value(_) => None,
        GateValue::Baseline(offset) => Some(Baseline::resolve(baseline, test, gate.target, offset)),
    };
    let mut outcome = GateOutcome {
        gate,
        actual,
        passed: true,
        note: None,
        baseline: used,
    };
    outcome.passed = outcome
        .value()
        .is_none_or(|value| gate.op.holds(actual, value));
    outcome
}

/// Whether `gate` holds on `values`, the metrics of one run: a gate on the baseline is no
/// part of a run's verdict (docs/reports.md#each-runs-verdict), so it holds.
pub(crate) fn run_gate_holds(gate: &Gate, values: &[(Target, MetricValue)]) -> bool {
    let GateValue::Value(value) = gate.value else {
        return true;
    };
    let actual = values
        .iter()
        .find(|(target, _)| *target == gate.target)
        .map_or(MetricValue::ZERO, |(_, value)| *value);
    gate.op.holds(actual, value)
}
