//! A test's stability over its runs (docs/reliability.md#flaky-tests-and-quarantine): of a
//! test with two runs or more, whether every run passed every gate on its own (`stable`),
//! none did (`failing`), or some did (`flaky`). It changes no verdict and no exit code.

use crate::evaluate::TestOutcome;

/// How a test with several runs fared run by run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stability {
    /// Every run passed every gate on its own.
    Stable,
    /// No run did.
    Failing,
    /// Some runs did, some did not.
    Flaky,
}

impl Stability {
    /// The stability of a test whose `passed` runs of `runs` passed on their own; `None`
    /// with fewer than two runs.
    pub fn of(passed: u64, runs: u64) -> Option<Self> {
        match (passed, runs) {
            (_, 0 | 1) => None,
            (passed, runs) if passed >= runs => Some(Self::Stable),
            (0, _) => Some(Self::Failing),
            _ => Some(Self::Flaky),
        }
    }

    /// Its word in every report: `stable`, `failing` or `flaky`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stable => "stable",
            Self::Failing => "failing",
            Self::Flaky => "flaky",
        }
    }
}

impl TestOutcome {
    /// The test's stability, when it has two runs or more.
    pub fn stability(&self) -> Option<Stability> {
        Stability::of(self.passed_runs as u64, self.run_count as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::Stability;

    #[test]
    fn a_test_is_stable_failing_or_flaky_by_its_runs_verdicts() {
        assert_eq!(Stability::of(0, 0), None);
        assert_eq!(Stability::of(1, 1), None);
        assert_eq!(Stability::of(0, 1), None);
        assert_eq!(Stability::of(3, 3), Some(Stability::Stable));
        assert_eq!(Stability::of(0, 3), Some(Stability::Failing));
        assert_eq!(Stability::of(1, 3), Some(Stability::Flaky));
        assert_eq!(Stability::of(2, 3).map(Stability::as_str), Some("flaky"));
    }
}
