//! What `check` is asked to do: the reports and where they go, the tests selected, the
//! shard, the threads and how to read the traces.

use std::path::{Path, PathBuf};

use trailgate_expect::{Problem, Shard, SuiteError};
use trailgate_trace::Naming;

use crate::error::NothingSelected;

/// What [`check`](crate::check) does besides reading the suite.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CheckOptions {
    /// The reports to render, each into a file or into [`Output::stdout`](crate::Output).
    pub targets: Vec<ReportTarget>,
    /// The tests to check; all of them by default.
    pub selection: Selection,
    /// Check only this shard of the suite's tests.
    pub shard: Option<Shard>,
    /// How many threads score the runs; `None` chooses by the size of each test's traces.
    pub threads: Option<usize>,
    /// Where the tests' default traces are; `traces/` next to the suite by default.
    pub traces_dir: Option<PathBuf>,
    /// How to read the trace files, unless a test says otherwise.
    pub read: TraceOptions,
    /// GitHub's job summary, where the Markdown summary is appended when a target is
    /// [`Format::Github`].
    pub step_summary: Option<PathBuf>,
    /// Whether the reports that go to [`Output::stdout`](crate::Output) are coloured.
    pub color: bool,
    /// The JSON report that gates on the baseline (`baseline - 2`) compare with; without
    /// one, those gates are skipped.
    pub baseline: Option<PathBuf>,
    /// A file naming the tests expected to fail, one a line
    /// (docs/reliability.md#expected-failures).
    pub xfail: Option<PathBuf>,
}

impl CheckOptions {
    /// Every test, read as detected, scored on the default threads, rendered to `targets`
    /// without colour.
    pub fn new(targets: Vec<ReportTarget>) -> Self {
        Self {
            targets,
            selection: Selection::default(),
            shard: None,
            threads: None,
            traces_dir: None,
            read: TraceOptions::default(),
            step_summary: None,
            color: false,
            baseline: None,
            xfail: None,
        }
    }
}

/// How to read trace files, as the command line gives it: a test's own `trace_format` and
/// `naming` win over these.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct TraceOptions {
    /// The format's name; `None` detects it from the content.
    pub trace_format: Option<String>,
    /// The naming scheme's name; `None` is `default`.
    pub naming: Option<String>,
    /// The known servers of the `mcp-single` and `dash` schemes.
    pub servers: Vec<String>,
    /// The pattern of the `regex` scheme.
    pub naming_pattern: Option<String>,
}

impl TraceOptions {
    /// The naming scheme these describe, or the usage error that says why there is none.
    pub(crate) fn naming(&self) -> Result<Naming, SuiteError> {
        Naming::from_parts(
            self.naming.as_deref().unwrap_or("default"),
            self.servers.clone(),
            self.naming_pattern.as_deref(),
        )
        .map_err(|error| {
            SuiteError::detached(
                Problem::new("trailgate::usage::naming", error.to_string(), "").with_help(
                    "`--naming regex` needs `--naming-pattern` with groups `server` and `tool`",
                ),
            )
        })
    }
}

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// A report for people.
    Text,
    /// A versioned, byte-stable JSON document.
    Json,
    /// The JSON report streamed: one compact JSON object per line (header, runs, tests,
    /// summary), written as the runs are scored.
    Jsonl,
    /// JUnit XML for CI test reporters: a testcase per test.
    Junit,
    /// GitHub Actions annotations on the suite's lines, then the text report.
    Github,
    /// A Markdown summary.
    Markdown,
    /// One self-contained HTML page with charts and a run explorer.
    Html,
}

impl Format {
    /// Every format, in the order the command line lists them: what `check` writes.
    pub const ALL: &'static [Self] = &[
        Self::Text,
        Self::Json,
        Self::Jsonl,
        Self::Junit,
        Self::Github,
        Self::Markdown,
        Self::Html,
    ];

    /// The format's name, as `--format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Json => "json",
            Self::Jsonl => "jsonl",
            Self::Junit => "junit",
            Self::Github => "github",
            Self::Markdown => "markdown",
            Self::Html => "html",
        }
    }

    /// The format an `--output` file's extension names, if it names one.
    pub fn from_extension(path: &Path) -> Option<Self> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "json" => Some(Self::Json),
            "jsonl" => Some(Self::Jsonl),
            "xml" => Some(Self::Junit),
            "md" | "markdown" => Some(Self::Markdown),
            "html" | "htm" => Some(Self::Html),
            "txt" | "text" | "log" => Some(Self::Text),
            _ => None,
        }
    }
}

/// Where one report goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportTarget {
    /// The report's format.
    pub format: Format,
    /// The file to write; `None` for [`Output::stdout`](crate::Output).
    pub path: Option<PathBuf>,
}

impl ReportTarget {
    /// The report in `format`, to [`Output::stdout`](crate::Output).
    pub fn stdout(format: Format) -> Self {
        Self { format, path: None }
    }

    /// The report in `format`, to the file at `path`.
    pub fn file(format: Format, path: &Path) -> Self {
        Self {
            format,
            path: Some(path.to_path_buf()),
        }
    }
}

/// Which tests of the suite to check: those named, among those the pattern matches.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Test names or globs of them (`--test`, `*`, `?` and `[...]` as in a shell); empty
    /// selects every test.
    pub tests: Vec<String>,
    /// A substring or regex of the names (`-k`).
    pub pattern: Option<NamePattern>,
}

/// What `-k` selects: the names that contain the text, or that the text matches as a regex,
/// whatever the case of their letters, as pytest's `-k` (docs/reports.md).
#[derive(Debug, Clone)]
pub struct NamePattern {
    text: String,
    /// The text in lower case, for the substring test.
    lower: String,
    /// `None` when the text is no regex (`-k 'f(x'`): it is then a substring alone. Boxed,
    /// so that the options stay small.
    regex: Option<Box<regex::Regex>>,
}

impl NamePattern {
    /// The pattern of `text`; `None` when it is empty, which would select every test.
    pub fn new(text: &str) -> Option<Self> {
        (!text.is_empty()).then(|| Self {
            text: text.to_owned(),
            lower: text.to_lowercase(),
            regex: regex::RegexBuilder::new(text)
                .case_insensitive(true)
                .build()
                .ok()
                .map(Box::new),
        })
    }

    /// Whether the test named `name` is selected.
    pub fn matches(&self, name: &str) -> bool {
        name.to_lowercase().contains(&self.lower)
            || self.regex.as_ref().is_some_and(|r| r.is_match(name))
    }
}

/// Whether `--test ENTRY` names the test `name`: the name itself, or a glob that matches it.
fn test_entry_selects(entry: &str, name: &str) -> bool {
    entry == name
        || (is_glob(entry) && glob::Pattern::new(entry).is_ok_and(|pattern| pattern.matches(name)))
}

fn is_glob(entry: &str) -> bool {
    entry.contains(['*', '?', '['])
}

impl Selection {
    /// Whether the test named `name` is selected.
    pub fn selects(&self, name: &str) -> bool {
        (self.tests.is_empty() || self.tests.iter().any(|test| test_entry_selects(test, name)))
            && self
                .pattern
                .as_ref()
                .is_none_or(|pattern| pattern.matches(name))
    }

    /// Checks the selection against the suite's test names: every named test exists, and
    /// at least one test is selected.
    pub(crate) fn check(&self, names: &[&str]) -> Result<(), NothingSelected> {
        let unknown: Vec<&str> = self
            .tests
            .iter()
            .map(String::as_str)
            .filter(|test| !names.iter().any(|name| test_entry_selects(test, name)))
            .collect();
        if let Some(first) = unknown.first() {
            return Err(NothingSelected::new(
                if is_glob(first) {
                    format!("no test name matches `{first}`")
                } else {
                    format!("no test of the suite is named `{first}`")
                },
                names,
            ));
        }
        if !names.iter().any(|name| self.selects(name)) {
            let what = match (&self.pattern, self.tests.is_empty()) {
                (Some(pattern), true) => {
                    format!("no test name contains or matches `{}`", pattern.text)
                }
                _ => "no test is both named by `--test` and matched by `-k`".to_owned(),
            };
            return Err(NothingSelected::new(what, names));
        }
        Ok(())
    }
}
