//! The exit codes, in one place.

use std::fmt::{self, Write};

/// Every gate passed.
pub(crate) const PASSED: u8 = 0;
/// A gate failed.
pub(crate) const FAILED: u8 = 1;
/// The suite, a trace or the command line is invalid; nothing was scored.
pub(crate) const INVALID: u8 = 2;
/// `check --test` or `-k` selected no test, or `--test` named one the suite does not have:
/// a code of its own, so that a script tells a selection gone stale from a broken suite.
pub(crate) const NOTHING_SELECTED: u8 = 4;

/// The exit code of a command that failed with `report`.
pub(crate) fn for_error(report: &miette::Report) -> u8 {
    if report.downcast_ref::<NothingSelected>().is_some() {
        NOTHING_SELECTED
    } else {
        INVALID
    }
}

/// `--test` or `-k` selected nothing.
#[derive(Debug)]
pub(crate) struct NothingSelected {
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
        Some(Box::new("toolgate::usage::nothing_selected"))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.help))
    }
}
