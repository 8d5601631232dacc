//! Suite errors as miette diagnostics: a message, a labelled span in the suite file, a
//! stable code and, where the fix is known, a help line.

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode, SourceSpan};
use serde::de;
use trailgate_trace::LineSource;

/// The suite file a diagnostic points into, shared by all of its problems: its text as a
/// diagnostic shows it (escaped, a long line shown by a window around the span).
pub type SuiteSource = Arc<NamedSource<LineSource>>;

/// One problem in a suite file.
#[derive(Debug, Clone)]
pub struct Problem {
    /// A stable code, `trailgate::suite::<kind>`.
    pub code: &'static str,
    /// What is wrong, lowercase, user tokens in backticks.
    pub message: String,
    /// The text under the underline.
    pub label: String,
    /// How to fix it, when known.
    pub help: Option<String>,
    /// Where, in bytes of the suite file; `None` when no position is known.
    pub span: Option<SourceSpan>,
}

impl Problem {
    /// A problem with no position yet.
    pub fn new(code: &'static str, message: impl Into<String>, label: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            label: label.into(),
            help: None,
            span: None,
        }
    }

    /// Adds a help line.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Places the problem at `span` unless it already has a place.
    #[must_use]
    pub fn or_at(mut self, span: Option<SourceSpan>) -> Self {
        self.span = self.span.or(span);
        self
    }

    /// Places the problem in the file.
    #[must_use]
    pub fn at(mut self, span: Option<SourceSpan>) -> Self {
        self.span = span;
        self
    }
}

/// One or more problems found in one suite file, sorted by position.
///
/// Rendered as the first problem, with the others as related diagnostics.
#[derive(Debug, Clone)]
pub struct SuiteError {
    first: Box<ProblemDiagnostic>,
    related: Vec<ProblemDiagnostic>,
}

impl SuiteError {
    /// Collects problems found in `source`, in file order. `problems` must not be empty.
    pub fn new(source: &SuiteSource, mut problems: Vec<Problem>) -> Self {
        problems.sort_by_key(|p| p.span.map_or(usize::MAX, |s| s.offset()));
        let mut all = problems.into_iter().map(|problem| ProblemDiagnostic {
            problem,
            source: Arc::clone(source),
        });
        let first = all.next().unwrap_or_else(|| ProblemDiagnostic {
            problem: Problem::new("trailgate::suite::invalid", "invalid suite", "here"),
            source: Arc::clone(source),
        });
        Self {
            first: Box::new(first),
            related: all.collect(),
        }
    }

    /// A problem that points into no file, such as a suite that cannot be read.
    pub fn detached(problem: Problem) -> Self {
        let source = Arc::new(NamedSource::new("", LineSource::new(String::new(), 1)));
        Self::new(&source, vec![problem.at(None)])
    }

    /// The problems, in file order.
    pub fn problems(&self) -> impl Iterator<Item = &Problem> {
        std::iter::once(&self.first.problem).chain(self.related.iter().map(|d| &d.problem))
    }
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.first.fmt(f)
    }
}

impl std::error::Error for SuiteError {}

impl Diagnostic for SuiteError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.first.code()
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.first.help()
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.first.source_code()
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.first.labels()
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(self.related.iter().map(|d| d as &dyn Diagnostic)))
    }
}

#[derive(Debug, Clone)]
struct ProblemDiagnostic {
    problem: Problem,
    source: SuiteSource,
}

impl fmt::Display for ProblemDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problem.message)
    }
}

impl std::error::Error for ProblemDiagnostic {}

impl Diagnostic for ProblemDiagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.problem.code))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.problem
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.problem.span.map(|_| &*self.source as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.problem.span?;
        Some(Box::new(std::iter::once(
            LabeledSpan::new_primary_with_span(Some(self.problem.label.clone()), span),
        )))
    }
}

pub(crate) const CUSTOM: char = '\u{1e}';
pub(crate) const FIELD: char = '\u{1f}';

/// An error raised while deserializing, carrying a problem's code, label and help through
/// the YAML reader, which adds its position; [`decode_custom`] reads it back.
pub(crate) fn custom<E: de::Error>(
    code: &'static str,
    message: &str,
    label: &str,
    help: &str,
) -> E {
    E::custom(format!(
        "{CUSTOM}{code}{FIELD}{label}{FIELD}{help}{FIELD}{message}"
    ))
}

/// The hint for an unknown name: the closest valid one, then `what` the valid ones are and
/// their list (``did you mean `x`? tests: `a`, `b` ``), or just the list when nothing is
/// close.
pub(crate) fn suggest(given: &str, valid: &[String], what: &str) -> String {
    let list = valid
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ");
    // Jaro-Winkler finds misspellings of longer words. Short operators need more: the same
    // characters in another order (`=>` for `>=`) rank first, then a single slip.
    let rank = |candidate: &str| {
        let mut a: Vec<char> = given.chars().collect();
        let mut b: Vec<char> = candidate.chars().collect();
        a.sort_unstable();
        b.sort_unstable();
        if a == b {
            3.0
        } else if strsim::osa_distance(given, candidate) <= 1 {
            1.0 + strsim::jaro_winkler(given, candidate)
        } else {
            strsim::jaro_winkler(given, candidate)
        }
    };
    let mut nearest: Option<(f64, &String)> = None;
    for candidate in valid {
        let score = rank(candidate);
        if score > 0.7 && nearest.is_none_or(|(best, _)| score > best) {
            nearest = Some((score, candidate));
        }
    }
    match nearest {
        Some((_, v)) => format!("did you mean `{v}`? {what}: {list}"),
        None => format!("{what}: {list}"),
    }
}
