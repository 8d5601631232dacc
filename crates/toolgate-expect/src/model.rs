//! The suite model: tests, their blocks, and the gates on their metrics.

use std::fmt;

use toolgate_core::{ClassSet, Percent};
use toolgate_trace::Naming;

use crate::call_accuracy::CallAccuracyGrader;
use crate::tool_calls::ToolCallsGrader;
use crate::tool_correctness::ToolCorrectnessGrader;

/// A parsed and checked suite file.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The tests, in file order.
    pub tests: Vec<Test>,
}

/// One test of a suite: where its runs come from and how they are scored.
#[derive(Debug, Clone)]
pub struct Test {
    /// The test's name, unique in its suite.
    pub name: String,
    /// A label for the agent under test, shown in reports.
    pub agent: Option<String>,
    /// How many runs the test must find, when the suite says.
    pub runs: Option<u64>,
    /// Where the runs come from; `None` means the default location (see [`slug`]).
    pub traces: Option<Vec<TracePattern>>,
    /// The traces' format, when the suite names it instead of letting it be detected.
    pub trace_format: Option<String>,
    /// How to split tool names into server and tool, when the suite says.
    pub naming: Option<Naming>,
    /// The equal-function-set block, when the test has one.
    pub equal_function_sets: Option<EqualFunctionSets>,
    /// The `tool-calls` grader, when the test has one.
    pub tool_calls: Option<ToolCallsGrader>,
    /// The `tool-correctness` grader, when the test has one.
    pub tool_correctness: Option<ToolCorrectnessGrader>,
    /// The `call-accuracy` grader, when the test has one.
    pub call_accuracy: Option<CallAccuracyGrader>,
    /// Position of the test in the suite (0-based), for pointing back into the file.
    pub index: usize,
}

/// One entry of a test's `traces:`: a path or a glob, relative to the suite's folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracePattern {
    /// The text as written.
    pub pattern: String,
    /// Its position in the `traces:` list, or `None` when `traces:` is a single string.
    pub index: Option<usize>,
}

impl TracePattern {
    /// Whether the pattern holds glob syntax (`*`, `?`, `[`) rather than naming one file.
    pub fn is_glob(&self) -> bool {
        self.pattern.contains(['*', '?', '['])
    }
}

/// The equal-function-set block of a test.
#[derive(Debug, Clone)]
pub struct EqualFunctionSets {
    /// The classes, checked and indexed.
    pub classes: ClassSet,
    /// The gates; the block's default gate when the suite wrote none.
    pub gates: Vec<Gate>,
}

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

/// The default name of a test's traces: the name lower-cased, with every run of characters
/// outside `[a-z0-9]` turned into one `-`. Nothing is trimmed, as SPEC section 5 says.
///
/// ```
/// assert_eq!(toolgate_expect::slug("research-agent picks search then fetch"), "research-agent-picks-search-then-fetch");
/// assert_eq!(toolgate_expect::slug("Fetch (v2)"), "fetch-v2-");
/// ```
pub fn slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out
}

/// One of `count` deterministic shares of a suite's tests, for splitting a suite across CI
/// jobs: shard `index` of `count` (both from 1) holds the tests whose 0-based position `p`
/// in the suite has `p % count == index - 1`, so shards differ in size by at most one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    index: usize,
    count: usize,
}

/// Why `--shard` text is not a shard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardError(String);

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a shard: write `K/N` with 1 <= K <= N, e.g. `2/3`",
            self.0
        )
    }
}

impl std::error::Error for ShardError {}

impl Shard {
    /// Shard `index` of `count`; `None` unless `1 <= index <= count`.
    pub fn new(index: usize, count: usize) -> Option<Self> {
        (1..=count)
            .contains(&index)
            .then_some(Self { index, count })
    }

    /// The shard's number, from 1.
    pub fn index(self) -> usize {
        self.index
    }

    /// How many shards the suite is split into.
    pub fn count(self) -> usize {
        self.count
    }

    /// Whether the test at 0-based `position` in the suite belongs to this shard.
    pub fn holds(self, position: usize) -> bool {
        position % self.count == self.index - 1
    }

    /// How many of a suite's `tests` this shard holds.
    pub fn len_of(self, tests: usize) -> usize {
        (tests + self.count - self.index) / self.count
    }
}

impl std::str::FromStr for Shard {
    type Err = ShardError;

    /// Parses `K/N`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let number = |digits: &str| {
            // Only digits: `usize`'s parser would take `+1` too.
            (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse().ok())
                .flatten()
        };
        text.split_once('/')
            .and_then(|(index, count)| Some((number(index)?, number(count)?)))
            .and_then(|(index, count)| Self::new(index, count))
            .ok_or_else(|| ShardError(text.to_owned()))
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}
