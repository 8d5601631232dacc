//! What graders and reports say of a run: where it came from, its calls, and how much
//! detail its outcome holds.

use std::fmt;

use trailgate_core::ToolId;
use trailgate_trace::Run;

/// Where a run was read from: a trace file, the line for a JSON Lines file, and the trace id
/// for a file that holds a run per trace id (OpenTelemetry).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RunSource {
    /// The file, relative to the suite's folder, with `/` separators.
    pub file: String,
    /// The 1-based line, for a run read from a `.jsonl` file.
    pub line: Option<usize>,
    /// The trace id, for a run that is one trace of its file.
    pub trace: Option<String>,
}

impl RunSource {
    /// The file, and `#` and the trace id for a run that is one trace of its file: the
    /// `source` of the JSON report (docs/reports.md#json-report).
    pub fn file_and_trace(&self) -> std::borrow::Cow<'_, str> {
        match &self.trace {
            Some(trace) => format!("{}#{trace}", self.file).into(),
            None => self.file.as_str().into(),
        }
    }
}

impl fmt::Display for RunSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file_and_trace())?;
        match self.line {
            Some(line) => write!(f, ":{line}"),
            None => Ok(()),
        }
    }
}

/// A run of a test as its graders see it: its calls, its number in the test and where it
/// was read. Whatever a grader kind needs of a run reaches it here.
#[derive(Debug, Clone, Copy)]
pub struct TestRun<'a> {
    /// The run's calls.
    pub calls: &'a Run,
    /// Its 1-based position in its test's run order.
    pub number: usize,
    /// Where it was read.
    pub source: &'a RunSource,
}

/// A run as the report lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunInfo {
    /// The run's 1-based position in its test's run order.
    pub number: usize,
    /// Where it came from.
    pub source: RunSource,
    /// How many calls it holds.
    pub calls: usize,
    /// The trace format it was read from (`trailgate`, `claude-code`, ...).
    pub format: &'static str,
    /// The run's verdict: whether every gate of the test holds on the metrics of this run
    /// alone (docs/reports.md#each-runs-verdict).
    pub passed: bool,
    /// The tool of each call, in call order, for a run graded to [`Detail::Full`]; empty
    /// for one graded to [`Detail::Counts`], which no report lists.
    pub tools: RunTools,
}

/// The tool of each of a run's calls, in call order (`server.name`, or `name` for a call
/// recorded without a server): what the JSON report's `sources` entry lists once per run,
/// so that its findings name a call by its number alone (docs/reports.md#the-json-report).
///
/// The names are kept one after another in one string: a run costs two allocations, not
/// two per call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunTools {
    text: String,
    /// Where each name ends in `text`.
    ends: Vec<usize>,
}

impl RunTools {
    /// The tools of `run`'s calls.
    pub fn of(run: &Run) -> Self {
        let mut text = String::with_capacity(run.calls.iter().map(|c| c.name.len() + 8).sum());
        let mut ends = Vec::with_capacity(run.calls.len());
        for call in &run.calls {
            if let Some(server) = &call.server {
                text.push_str(server);
                text.push('.');
            }
            text.push_str(&call.name);
            ends.push(text.len());
        }
        Self { text, ends }
    }

    /// The tools, in call order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| self.text.get(start..end).unwrap_or_default())
    }

    /// How many calls it names.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether it names no call.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

impl serde::Serialize for RunTools {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl fmt::Display for RunInfo {
    /// The source, and the format when it is not trailgate's own.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.source)?;
        if !self.format.is_empty() && self.format != "trailgate" {
            write!(f, " [{}]", self.format)?;
        }
        Ok(())
    }
}

/// A call named in a report: its 1-based position in its run, and its tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalledTool {
    /// The call's position in trace order, from 1.
    pub call: usize,
    /// The tool it called.
    pub tool: ToolId,
}

/// How many runs a test's outcome lists in detail (see [`TestOutcome`]).
pub const LISTED_RUNS: usize = 20;

/// How much of a run's outcome to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Everything a report may list about the run.
    Full,
    /// What the test's sums and [`RunOutcome::has_findings`] need, and no list of calls
    /// that a report shows: for a run that no report lists, whose outcome is only added up.
    /// It leaves out the selection's unexpected and repeated calls, tool correctness's and
    /// call accuracy's extra calls, call accuracy's correct and incorrect pairs and missed
    /// calls, and the near misses of unmet `required` entries; the counts are those of
    /// [`Detail::Full`].
    Counts,
}

impl Detail {
    /// The detail run `number` (1-based) of a test needs when at least `runs_with_findings`
    /// of the runs before it have findings: [`Detail::Full`] when the outcome may list it
    /// (it is among the first [`LISTED_RUNS`], or fewer than [`LISTED_RUNS`] runs before it
    /// have findings), [`Detail::Counts`] otherwise. A count lower than the true one only
    /// asks for more detail than is needed, so a thread may pass the count of the runs added
    /// so far while runs before this one are still being scored elsewhere.
    pub fn for_run(number: usize, runs_with_findings: usize) -> Self {
        if number <= LISTED_RUNS || runs_with_findings < LISTED_RUNS {
            Self::Full
        } else {
            Self::Counts
        }
    }
}
