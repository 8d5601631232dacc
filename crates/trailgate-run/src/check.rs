//! `trailgate check`: read the suite, find and stream each test's runs, score, gate, report.
//!
//! This file holds the pipeline, [`check`], and what it refuses once a test's runs are read
//! (not the number of runs the suite asks for, calls a matcher cannot judge). Its steps are
//! beside it:
//! - `check/read.rs`: reading the suite, the `--baseline` report and each test's trace files
//!   in parts, one file after another (`read_parts`, which `convert` shares) or by the
//!   workers in turn (`Source`);
//! - `check/score.rs`: scoring a test's runs on this thread or on workers and handing them
//!   to the fold in file order (`score_runs`), and how many threads a test gets by default;
//! - `check/xfail.rs`: the tests `--xfail FILE` marks as expected to fail;
//! - `check/render.rs`: what the reports that list every run collect as the runs are folded
//!   (`Collected`), and rendering every report of the targets (`render`).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use trailgate_expect::{
    LISTED_RUNS, PathSeg, Problem, SuiteFile, SuiteOutcome, Test, TestEvaluator, UnjudgedCalls,
    Unscorable, run_count_problems,
};
use trailgate_report::{ShardOrigin, render_markdown};

use crate::discover::{Searched, discover, display};
use crate::error::Error;
use crate::options::{CheckOptions, Format};
use crate::output::Output;
use crate::pairing::TooLongRuns;

use self::read::{read_base, read_options, read_suite};
use self::render::{Collected, render, temporary_file_error};
use self::score::{Scored, default_threads, score_runs};

mod read;
mod render;
mod score;
mod xfail;

pub(crate) use self::read::read_parts;

/// Every test's runs were read, so every call a grader could not judge is listed at once.
fn refuse_unjudged(unjudged: &[UnjudgedCalls], file: &SuiteFile) -> Result<(), Error> {
    if unjudged.is_empty() {
        return Ok(());
    }
    let problems = unjudged
        .iter()
        .flat_map(|found| found.problems(file))
        .collect();
    Err(Error::Suite(file.error(problems)))
}

/// Checks the suite at `suite`: reads it, finds and reads each selected test's traces,
/// scores every run, gates each test and renders every report of `options.targets`.
/// Nothing is written: the reports for files are in [`Output::files`], to be written with
/// [`write_files`](crate::write_files), and [`Output::gate_failed`] is the suite's verdict.
pub fn check(suite_path: &Path, options: &CheckOptions) -> Result<Output, Error> {
    let targets = options.targets.as_slice();
    let name = display(suite_path);
    let text = read_suite(suite_path, &name)?;
    let naming = options.read.naming()?;
    let file = SuiteFile::new(&name, text);
    let suite = xfail::parsed(&file, options.xfail.as_deref())?;
    let baseline = options.baseline.as_deref().map(read_base).transpose()?;
    let suite_dir = suite_path.parent().unwrap_or(Path::new(""));

    let mut collected = Collected::new(targets, &name, options.shard)?;
    let threads = options.threads;
    let mut outcome = SuiteOutcome {
        tests: Vec::new(),
        notes: Vec::new(),
    };
    let mut unjudged = Vec::new();
    let names: Vec<&str> = suite.tests.iter().map(|test| test.name.as_str()).collect();
    options.selection.check(&names)?;
    // Every file read, so that no `--output` replaces one.
    let mut inputs = vec![suite_path.to_path_buf()];
    let tests = suite
        .tests
        .iter()
        .enumerate()
        .filter(|(position, test)| {
            options.shard.is_none_or(|shard| shard.holds(*position))
                && options.selection.selects(&test.name)
        })
        .map(|(_, test)| test);
    for test in tests {
        let (files, searched) = discover(test, suite_dir, options.traces_dir.as_deref(), &file)?;
        inputs.extend(files.iter().map(|trace| trace.path.clone()));
        let mut evaluator = TestEvaluator::new(test).with_baseline(baseline.as_ref());
        collected.start_test(test);
        // Every run's entries of the JSON report are spilled to disk as the runs are scored.
        let mut spill_error = None;
        let mut too_long = TooLongRuns::default();
        let read = read_options(test, options, &naming);
        let threads = threads.unwrap_or_else(|| default_threads(&files));
        // How many runs added so far have findings, for the threads that score later runs
        // (`Detail::for_run`); the JSON report lists every run.
        let findings = AtomicUsize::new(0);
        let scoring = collected.scoring(test, &findings);
        let warnings = score_runs(&scoring, &files, &read, threads, |scored, leftovers| {
            let Scored {
                source,
                limits,
                outcome,
                html,
            } = scored;
            // Every run counts against the limits, scored or not.
            let admitted = too_long.admit(&source, limits);
            leftovers.sources.push(source);
            let Some(outcome) = outcome.filter(|_| admitted) else {
                return;
            };
            if let Err(error) = collected.push(&outcome, html) {
                spill_error.get_or_insert(error);
            }
            leftovers.runs.extend(evaluator.add_giving_back(outcome));
            findings.store(evaluator.runs_with_findings(), Ordering::Relaxed);
        })?;
        outcome.notes.extend(warnings);
        let problems = too_long.problems(test, &file);
        if !problems.is_empty() {
            return Err(Error::Suite(file.error(problems)));
        }
        if let Some(error) = spill_error {
            return Err(temporary_file_error("write", &error));
        }
        check_count(test, &evaluator, &searched, &file)?;
        match evaluator.finish() {
            Ok(test_outcome) => {
                collected.finish_test(&test_outcome)?;
                outcome.tests.push(test_outcome);
            }
            Err(Unscorable::Unjudged(found)) => unjudged.push(found),
            Err(error) => {
                // `check_count` refuses every count the figures cannot be computed from.
                return Err(Error::Message(format!("test `{}`: {error}", test.name)));
            }
        }
    }
    refuse_unjudged(&unjudged, &file)?;
    let digest = suite_digest(file.text());
    collected.origin = options.shard.map(|shard| ShardOrigin {
        shard,
        suite: name.clone(),
        suite_tests: suite.tests.len(),
        suite_digest: digest,
    });
    collected.baseline = baseline.as_ref();
    let mut output = render(&outcome, collected, &name, targets, options.color)?;
    // GitHub's job summary: appended, like every step's, when the runner asks for it.
    if targets.iter().any(|t| t.format == Format::Github)
        && let Some(summary) = options.step_summary.clone()
    {
        let mut bytes = Vec::new();
        render_markdown(&outcome, &mut bytes)
            .map_err(|error| Error::Message(format!("cannot render the summary: {error}")))?;
        output.appends.push((summary, bytes));
    }
    inputs.extend(options.xfail.clone());
    output.inputs = inputs.into_iter().chain(options.baseline.clone()).collect();
    output.warnings.clone_from(&outcome.notes);
    output.gate_failed = !outcome.passed();
    Ok(output)
}

/// The SHA-256 of the suite's text, in hex: shards of different suites never merge.
fn suite_digest(text: &str) -> String {
    use sha2::Digest;
    use std::fmt::Write as _;
    let mut hex = String::with_capacity(64);
    for byte in sha2::Sha256::digest(text.as_bytes()) {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// No runs at all, or not the number the suite asked for, is an input error.
fn check_count(
    test: &Test,
    evaluator: &TestEvaluator<'_>,
    searched: &Searched,
    file: &SuiteFile,
) -> Result<(), Error> {
    let test_path = [PathSeg::Key("tests"), PathSeg::Index(test.index)];
    let count = evaluator.run_count();
    if count == 0 {
        let (seg, help) = match searched {
            Searched::Default(tried) => (
                PathSeg::Key("name"),
                format!(
                    "looked for {}; record the runs there, or point `traces:` at them",
                    tried
                        .iter()
                        .map(|t| format!("`{t}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            Searched::Patterns => (
                PathSeg::Key("traces"),
                "`traces:` matched no `.json` or `.jsonl` file; paths are relative to the suite \
                 file's folder"
                    .to_owned(),
            ),
        };
        return Err(Error::Suite(file.error(vec![
            Problem::new(
                "trailgate::traces::none",
                format!("test `{}` found no runs", test.name),
                "no runs for this test",
            )
            .with_help(help)
            .at(file.span(&[test_path[0], test_path[1], seg])),
        ])));
    }
    if let Some(expected) = test.runs {
        let found = count as u64;
        if found != expected {
            let mut listed: Vec<String> = evaluator
                .first_runs()
                .take(LISTED_RUNS)
                .map(|run| run.source.to_string())
                .collect();
            if count > LISTED_RUNS {
                listed.push(format!("and {} more", count - LISTED_RUNS));
            }
            return Err(Error::Suite(file.error(vec![
                Problem::new(
                    "trailgate::traces::count",
                    format!(
                        "test `{}` expects {expected} {} but found {found}",
                        test.name,
                        if expected == 1 { "run" } else { "runs" }
                    ),
                    format!("expects {expected}"),
                )
                .with_help(format!(
                    "found: {}; record the missing runs or change `runs:`",
                    listed.join(", ")
                ))
                .at(file.span(&[test_path[0], test_path[1], PathSeg::Key("runs")])),
            ])));
        }
    }
    let problems = run_count_problems(test, count, file);
    if !problems.is_empty() {
        return Err(Error::Suite(file.error(problems)));
    }
    Ok(())
}
