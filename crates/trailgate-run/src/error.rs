//! What stops a command: the diagnostics of the suite, of a trace, of the selection, and a
//! report that could not be rendered.

use std::fmt::{self, Write};

use trailgate_expect::SuiteError;
use trailgate_trace::TraceError;

/// Why a command ([`check`](crate::check), [`merge`](crate::merge), [`diff`](crate::diff),
/// [`compare`](crate::compare), [`convert`](crate::convert), [`accuracy`](crate::accuracy))
/// gave no reports. Every variant is a miette diagnostic, shown as it is: the front end
/// renders it.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum Error {
    /// The suite, an option, an input report or an `--output` is invalid, a file cannot be
    /// read or written.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Suite(#[from] SuiteError),
    /// A trace file or the `accuracy` input is invalid.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Trace(#[from] TraceError),
    /// `tests` or the pattern selected no test of the suite.
    #[error(transparent)]
    #[diagnostic(transparent)]
    NothingSelected(#[from] NothingSelected),
    /// A report could not be rendered or written (a full disk).
    #[error("{0}")]
    Message(String),
}

/// The selection (`--test`, `-k`) selected nothing.
#[derive(Debug)]
pub struct NothingSelected {
    message: String,
    help: String,
}

/// How many of the suite's test names the help lists.
const NAMES_SHOWN: usize = 10;

impl NothingSelected {
    /// `message` says what was asked; the help lists the suite's tests (`names`).
    pub(crate) fn new(message: String, names: &[&str]) -> Self {
        let shown: Vec<String> = names
            .iter()
            .take(NAMES_SHOWN)
            .map(|name| format!("`{name}`"))
            .collect();
        let mut help = format!("the suite's tests: {}", shown.join(", "));
        if names.len() > NAMES_SHOWN {
            let _ = write!(help, " and {} more", names.len() - NAMES_SHOWN);
        }
        Self { message, help }
    }
}

impl fmt::Display for NothingSelected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NothingSelected {}

impl miette::Diagnostic for NothingSelected {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("trailgate::usage::nothing_selected"))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.help))
    }
}
