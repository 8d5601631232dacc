//! What a grader says about a test, for the reports: one shape that every grader fills in
//! and that every report format renders in its own way.
//!
//! A grader knows what its findings mean; a report format knows how to show words, user
//! text, tools and values (escaped for a terminal, as Markdown code, as XML text). A
//! [`Section`] is the meeting point: lines made of [`Piece`]s, each piece saying what it
//! is, never how it looks. The reports name no grader kind, so a new kind needs no change
//! to any of them.

use crate::gate::Target;

/// A piece of a line of a report.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Piece {
    /// trailgate's own words, shown as they are.
    Text(String),
    /// User text shown whole: a class, a `tool-calls` entry, an expected tool, an argument's
    /// path.
    Name(String),
    /// A tool as called (`server.name` or `name`).
    Tool(String),
    /// A tool as called, set off from the words around it (in backticks, in text).
    QuotedTool(String),
    /// A value from a trace (an argument, a result), cut to a short excerpt.
    Value(String),
    /// A value from a trace, cut, and set off from the words around it.
    QuotedValue(String),
    /// An expected call: its tool and its arguments (as JSON), shown as one item.
    Call {
        /// The tool, as written.
        tool: String,
        /// The arguments, as compact JSON.
        args: String,
    },
    /// A word that carries a finding's tone (`missed`, `extra`): coloured in a terminal.
    Mark(Tone, &'static str),
    /// A verdict: `PASS` or `FAIL`.
    Verdict(bool),
    /// The closest a call came to what was asked, after the finding it explains.
    Closest(Vec<Piece>),
}

impl Piece {
    /// trailgate's own words.
    pub fn text(words: impl Into<String>) -> Self {
        Self::Text(words.into())
    }
}

/// The tone of a [`Piece::Mark`] or a [`Key::Mark`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Neutral.
    Plain,
    /// Something that failed.
    Fail,
    /// Something worth a glance only.
    Dim,
}

/// A line of a report: its pieces in order.
pub type Line = Vec<Piece>;

/// The first column of a [`Row`], aligned across the rows of a section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// User text: a class, an expected tool.
    Name(String),
    /// A word with a tone.
    Mark(Tone, &'static str),
}

/// A row of a run's detailed listing: an aligned key, when it has one, then its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The key column.
    pub key: Option<Key>,
    /// The rest of the row.
    pub line: Line,
}

impl Row {
    /// A row with a key.
    pub fn keyed(key: Key, line: Line) -> Self {
        Self {
            key: Some(key),
            line,
        }
    }

    /// A row without a key.
    pub fn plain(line: Line) -> Self {
        Self { key: None, line }
    }
}

/// One listed run in a section's detailed listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedRun {
    /// What follows the run's number and source on its first line (its verdict, its score,
    /// its number of calls).
    pub status: Line,
    /// The rows under it.
    pub rows: Vec<Row>,
    /// A closing line under the rows (the run's counts), when the grader has one.
    pub footer: Option<Line>,
}

/// What one grader says about one test: the detailed listing of the text report, the
/// facts that explain a failure (Markdown, JUnit), and the counts behind a failed gate
/// (GitHub annotations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The grader's key in the suite file (`tool-calls`).
    pub key: &'static str,
    /// Its name as a heading (`Tool calls`).
    pub title: &'static str,
    /// The metrics it produces: a failed gate on one of them is this section's to explain.
    pub targets: &'static [Target],
    /// The listing's heading line, when it has one; its runs are then indented under it.
    pub heading: Option<Line>,
    /// The least width of the rows' key column.
    pub key_width: usize,
    /// Each listed run, in the order of the test's listed runs.
    pub runs: Vec<ListedRun>,
    /// The listing's last line: the sums over every run.
    pub summary: Line,
    /// Each listed run's facts, index for index with the test's listed runs; a run without
    /// a fact has none.
    pub facts: Vec<Vec<Line>>,
    /// The counts behind a failed gate on one of [`explained`](Self::explained), when
    /// there is anything to count.
    pub gate_note: Option<Line>,
    /// The metrics that [`gate_note`](Self::gate_note) explains.
    pub explained: &'static [Target],
}

/// `n one` or `n many`, by the count.
pub(crate) fn counted(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// The counts that are not zero, each with its noun.
pub(crate) fn nonzero(counts: &[(u64, &str, &str)]) -> Vec<String> {
    counts
        .iter()
        .filter(|(count, _, _)| *count > 0)
        .map(|(count, one, many)| counted(*count, one, many))
        .collect()
}

/// `items` as one line, `separator` between them.
pub(crate) fn joined(items: impl IntoIterator<Item = Line>, separator: &str) -> Line {
    let mut line = Line::new();
    for (index, item) in items.into_iter().enumerate() {
        if index > 0 {
            line.push(Piece::text(separator));
        }
        line.extend(item);
    }
    line
}

/// A called tool and its position: `tool (call n)`.
pub(crate) fn called(tool: &impl ToString, call: usize) -> Line {
    vec![
        Piece::Tool(tool.to_string()),
        Piece::Text(format!(" (call {call})")),
    ]
}

/// " over N runs" for an aggregate of several runs; nothing for one.
pub(crate) fn scope(runs: usize) -> String {
    if runs == 1 {
        String::new()
    } else {
        format!(" over {runs} runs")
    }
}

/// "(3 calls)".
pub(crate) fn call_count(calls: usize) -> Line {
    vec![Piece::Text(format!(
        "({calls} {})",
        if calls == 1 { "call" } else { "calls" }
    ))]
}
