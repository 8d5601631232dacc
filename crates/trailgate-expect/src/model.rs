//! The suite model: tests, where their runs come from, and their graders.

use std::fmt;

use trailgate_trace::Naming;

use crate::graders::Graders;
use crate::reliability::ReliabilityBlock;

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
    /// Its graders, the equal-function-set block among them.
    pub graders: Graders,
    /// Its `reliability:` block, when it has one: figures over its runs' verdicts.
    pub reliability: Option<ReliabilityBlock>,
    /// Why the test is expected to fail, when it is marked so: its `xfail:` reason, or the
    /// line of a `check --xfail` file that names it (docs/reliability.md#expected-failures).
    pub xfail: Option<String>,
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

/// The default name of a test's traces: the name lower-cased, with every run of characters
/// outside `[a-z0-9]` turned into one `-`. Nothing is trimmed, as
/// docs/suite.md#without-traces-the-default-location says.
///
/// ```
/// assert_eq!(trailgate_expect::slug("research-agent picks search then fetch"), "research-agent-picks-search-then-fetch");
/// assert_eq!(trailgate_expect::slug("Fetch (v2)"), "fetch-v2-");
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
