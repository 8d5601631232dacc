//! The limits on pairing calls (`trailgate_core::check_pairing_size`), checked before a run
//! reaches a grader that pairs (each grader states its own, `Graders::past_limits`), and
//! before `trailgate accuracy` scores its input.

use std::collections::BTreeMap;

use trailgate_core::{MAX_PAIRING_PAIRS, MAX_PAIRING_SIZE, PairingTooLarge};
use trailgate_expect::{Block, LimitWords, PathSeg, Problem, RunSource, SuiteFile, Test};
use trailgate_trace::Run;

/// At most this many runs are named in one problem.
const LISTED_RUNS: usize = 20;

/// The runs of a test too long for its pairing graders, per grader kind.
#[derive(Debug, Default)]
pub(crate) struct TooLongRuns {
    past: BTreeMap<Block, PastLimit>,
}

/// The runs past a grader's limit: how many, and the first [`LISTED_RUNS`] with their source
/// and the limit they passed, so that memory does not grow with the number of runs.
#[derive(Debug, Default)]
struct PastLimit {
    count: usize,
    first: Vec<(String, PairingTooLarge)>,
}

impl PastLimit {
    fn push(&mut self, source: &RunSource, error: PairingTooLarge) {
        self.count += 1;
        if self.first.len() < LISTED_RUNS {
            self.first.push((source.to_string(), error));
        }
    }
}

/// How a run fares against the pairing limits of its test's graders: each limit it passed,
/// by grader kind. Checked on whichever thread scores the run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Limits(Vec<(Block, PairingTooLarge)>);

impl Limits {
    /// The limits `run` passes under the pairing graders of `test`.
    pub(crate) fn of(test: &Test, run: &Run) -> Self {
        Self(test.graders.past_limits(run))
    }

    /// Whether the run is within every limit, so that it may be scored.
    pub(crate) fn hold(&self) -> bool {
        self.0.is_empty()
    }
}

impl TooLongRuns {
    /// Whether a run with these limits may be added to its test: it is within the limits
    /// of every pairing grader of the test, and no earlier run of the test was past them
    /// (once the test fails, the rest of its runs are only counted). A run past a limit is
    /// remembered.
    pub(crate) fn admit(&mut self, source: &RunSource, limits: Limits) -> bool {
        for (block, error) in limits.0 {
            self.past.entry(block).or_default().push(source, error);
        }
        self.past.is_empty()
    }

    /// One problem per grader with runs past the limits, in registry order, placed on the
    /// grader's expected list.
    pub(crate) fn problems(&self, test: &Test, file: &SuiteFile) -> Vec<Problem> {
        self.past
            .iter()
            .filter_map(|(block, runs)| {
                let words = test.graders.limit_words(*block)?;
                Some(problem(
                    &words,
                    runs,
                    grader_key(file, test, block.key(), words.key),
                ))
            })
            .collect()
    }
}

fn problem(words: &LimitWords, runs: &PastLimit, span: Option<miette::SourceSpan>) -> Problem {
    let mut listed: Vec<String> = runs
        .first
        .iter()
        .map(|(source, error)| format!("`{source}` ({} calls)", error.actual))
        .collect();
    if runs.count > runs.first.len() {
        listed.push(format!("and {} more runs", runs.count - runs.first.len()));
    }
    let LimitWords {
        code,
        verb,
        expected,
        noun,
        ..
    } = *words;
    let mut problem = Problem::new(
        code,
        format!(
            "too many calls to {verb} with {expected} {noun}: {}",
            listed.join(", ")
        ),
        format!("{expected} {noun}"),
    );
    // The first run stands for the others in the help's arithmetic.
    if let Some((_, error)) = runs.first.first() {
        problem = problem.with_help(limits_help(
            error,
            "shorten the list, or split the long runs",
        ));
    }
    problem.at(span)
}

/// What the limits are, what this input comes to, and what to do about it.
pub(crate) fn limits_help(error: &PairingTooLarge, fix: &str) -> String {
    let (expected, actual) = (error.expected, error.actual);
    let here = if error.pairs() > MAX_PAIRING_PAIRS {
        format!("{expected} × {actual} = {} pairs", error.pairs())
    } else {
        format!(
            "{} × {expected} × {actual} = {}",
            expected.min(actual),
            error.size()
        )
    };
    format!(
        "trailgate pairs lists of at most {MAX_PAIRING_PAIRS} pairs (expected entries × calls) \
         and of a size of at most {MAX_PAIRING_SIZE} (the shorter list's length × both \
         lengths), so that pairing takes well under a second (docs/robustness.md, \"Limits\"); \
         here {here}: {fix}"
    )
}

/// The span of `key` in the config of `test`'s grader of type `kind`, or of the test's
/// name when the grader cannot be found.
fn grader_key(file: &SuiteFile, test: &Test, kind: &str, key: &str) -> Option<miette::SourceSpan> {
    let test_path = [PathSeg::Key("tests"), PathSeg::Index(test.index)];
    let suite_text = file.text();
    (0..)
        .map_while(|index| {
            let at = |seg| {
                file.span(&[
                    test_path[0],
                    test_path[1],
                    PathSeg::Key("graders"),
                    PathSeg::Index(index),
                    seg,
                ])
            };
            at(PathSeg::Key("type")).map(|span| (index, span))
        })
        .find(|(_, span)| {
            suite_text
                .get(span.offset()..span.offset() + span.len())
                .is_some_and(|value| value.trim_matches(['"', '\'']) == kind)
        })
        .and_then(|(index, _)| {
            file.span(&[
                test_path[0],
                test_path[1],
                PathSeg::Key("graders"),
                PathSeg::Index(index),
                PathSeg::Key("config"),
                PathSeg::KeyName(key),
            ])
        })
        .or_else(|| file.span(&[test_path[0], test_path[1], PathSeg::KeyName("name")]))
}

#[cfg(test)]
mod tests {
    use trailgate_core::check_pairing_size;

    use super::limits_help;

    /// The help gives the figure of the limit that was passed: the pairs for a long run
    /// against a short list, the size otherwise.
    #[test]
    fn the_help_names_the_limit_passed() {
        let pairs = check_pairing_size(16, (1 << 20) + 1).unwrap_err();
        assert!(limits_help(&pairs, "fix").contains("here 16 × 1048577 = 16777232 pairs: fix"));
        let size = check_pairing_size(700, 700).unwrap_err();
        assert!(limits_help(&size, "fix").contains("here 700 × 700 × 700 = 343000000: fix"));
    }
}
