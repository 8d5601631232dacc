//! A test's verdict once expected failures are counted (docs/reliability.md#expected-failures):
//! a test marked `xfail` that fails is XFAIL, not a failure; one that passes is XPASS, which
//! fails the check until its mark is removed. An unmarked test passes or fails on its gates.

use crate::evaluate::{SuiteOutcome, TestOutcome};

/// What a test's gates and its `xfail` mark make of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Unmarked, every gate held.
    Passed,
    /// Unmarked, a gate failed.
    Failed,
    /// Marked, a gate failed, as expected: not a failure.
    XFailed,
    /// Marked, every gate held: a failure until the mark goes.
    XPassed,
}

impl Verdict {
    /// The verdict of a test whose gates held (`passed`) or not, `marked` or not.
    pub fn of(passed: bool, marked: bool) -> Self {
        match (passed, marked) {
            (true, false) => Self::Passed,
            (false, false) => Self::Failed,
            (false, true) => Self::XFailed,
            (true, true) => Self::XPassed,
        }
    }

    /// Whether it fails the check (exit 1): a failure, or a marked test that passes.
    pub fn fails_check(self) -> bool {
        matches!(self, Self::Failed | Self::XPassed)
    }

    /// Its word in the text, Markdown and GitHub reports: `PASS`, `FAIL`, `XFAIL`, `XPASS`.
    pub fn word(self) -> &'static str {
        match self {
            Self::Passed => "PASS",
            Self::Failed => "FAIL",
            Self::XFailed => "XFAIL",
            Self::XPassed => "XPASS",
        }
    }

    /// The JSON report's `verdict` of a marked test: `xfail` or `xpass`; `None` unmarked.
    pub fn marked_word(self) -> Option<&'static str> {
        match self {
            Self::XFailed => Some("xfail"),
            Self::XPassed => Some("xpass"),
            Self::Passed | Self::Failed => None,
        }
    }
}

/// The four disjoint counts of a report's summary: `3 passed, 1 failed, 2 xfailed, 0
/// xpassed`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Unmarked tests whose gates held.
    pub passed: usize,
    /// Unmarked tests with a failed gate.
    pub failed: usize,
    /// Marked tests with a failed gate.
    pub xfailed: usize,
    /// Marked tests whose gates held.
    pub xpassed: usize,
    /// Whether any test is marked: the summary names the last two counts only then.
    pub marked: bool,
}

impl Tally {
    /// The counts of `verdicts`.
    pub fn of(verdicts: impl IntoIterator<Item = Verdict>) -> Self {
        let mut tally = Self::default();
        for verdict in verdicts {
            match verdict {
                Verdict::Passed => tally.passed += 1,
                Verdict::Failed => tally.failed += 1,
                Verdict::XFailed => tally.xfailed += 1,
                Verdict::XPassed => tally.xpassed += 1,
            }
            tally.marked |= matches!(verdict, Verdict::XFailed | Verdict::XPassed);
        }
        tally
    }

    /// How many tests there are.
    pub fn tests(&self) -> usize {
        self.passed + self.failed + self.xfailed + self.xpassed
    }

    /// Whether the check passes: no unmarked test fails, no marked test passes.
    pub fn passes(&self) -> bool {
        self.failed == 0 && self.xpassed == 0
    }

    /// The summary's counts in words: `3 passed, 1 failed`, and `, 2 xfailed, 0 xpassed`
    /// when a test is marked.
    pub fn words(&self) -> String {
        let unmarked = format!("{} passed, {} failed", self.passed, self.failed);
        if self.marked {
            format!(
                "{unmarked}, {} xfailed, {} xpassed",
                self.xfailed, self.xpassed
            )
        } else {
            unmarked
        }
    }
}

impl TestOutcome {
    /// The test's verdict with its `xfail` mark counted.
    pub fn verdict(&self) -> Verdict {
        Verdict::of(self.passed, self.xfail.is_some())
    }
}

impl SuiteOutcome {
    /// The summary's counts.
    pub fn tally(&self) -> Tally {
        Tally::of(self.tests.iter().map(TestOutcome::verdict))
    }
}

#[cfg(test)]
mod tests {
    use super::{Tally, Verdict};

    #[test]
    fn a_marked_test_that_fails_is_no_failure_and_one_that_passes_is() {
        assert!(!Verdict::of(true, false).fails_check());
        assert!(Verdict::of(false, false).fails_check());
        assert!(!Verdict::of(false, true).fails_check());
        assert!(Verdict::of(true, true).fails_check());
        assert_eq!(Verdict::of(false, true).marked_word(), Some("xfail"));
        assert_eq!(Verdict::of(true, true).marked_word(), Some("xpass"));
        assert_eq!(Verdict::of(true, false).marked_word(), None);
    }

    #[test]
    fn the_summary_counts_four_disjoint_verdicts() {
        let tally = Tally::of([
            Verdict::Passed,
            Verdict::Passed,
            Verdict::Passed,
            Verdict::Failed,
            Verdict::XFailed,
            Verdict::XFailed,
        ]);
        assert_eq!(tally.words(), "3 passed, 1 failed, 2 xfailed, 0 xpassed");
        assert_eq!(tally.tests(), 6);
        assert!(!tally.passes());
        let unmarked = Tally::of([Verdict::Passed, Verdict::Failed]);
        assert_eq!(unmarked.words(), "1 passed, 1 failed");
        assert!(Tally::of([Verdict::Passed, Verdict::XFailed]).passes());
        assert!(!Tally::of([Verdict::XPassed]).passes());
    }
}
