//! `toolgate check`: read the suite, find and stream each test's runs, score, gate, report.

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

use miette::Report;
use toolgate_expect::{
    MAX_SUITE_BYTES, PathSeg, Problem, RunInfo, RunSource, SuiteError, SuiteFile, SuiteOutcome,
    Test, TestEvaluator, missing_argument_problems,
};
use toolgate_report::{
    ShardOrigin, TextOptions, render_github, render_json, render_json_shard, render_junit,
    render_markdown, render_text,
};
use toolgate_trace::{FileLayout, Naming, ReadOptions, Run, TraceError, read_trace};

use crate::cli::{CheckArgs, Format, ReportTarget};
use crate::discover::{Searched, TraceFile, discover, display};
use crate::exit;
use crate::input::{Limited, read_limited};
use crate::pairing::TooLongRuns;

/// What a command prints on success, the files it writes, and its exit code.
#[derive(Default)]
pub(crate) struct Output {
    pub(crate) stdout: Vec<u8>,
    /// Reports for `--output` files, written atomically once everything has rendered.
    pub(crate) files: Vec<(PathBuf, Vec<u8>)>,
    /// Text appended to existing files (GitHub's job summary).
    pub(crate) appends: Vec<(PathBuf, Vec<u8>)>,
    pub(crate) code: u8,
}

impl Output {
    /// Puts a rendered report where `target` sends it: a file to write, or standard output.
    pub(crate) fn deliver(
        &mut self,
        target: &ReportTarget,
        rendered: std::io::Result<Vec<u8>>,
    ) -> Result<(), Report> {
        // Rendering into memory cannot fail; if it ever did, no half report is written.
        let bytes =
            rendered.map_err(|error| Report::msg(format!("cannot render the report: {error}")))?;
        match &target.path {
            Some(path) => self.files.push((path.clone(), bytes)),
            None => self.stdout = bytes,
        }
        Ok(())
    }
}

/// At most this many runs are listed when a count does not match.
const LISTED_RUNS: usize = 20;

pub(crate) fn run(
    args: &CheckArgs,
    targets: &[ReportTarget],
    color: bool,
) -> Result<Output, Report> {
    let name = display(&args.suite);
    let text = read_suite(&args.suite, &name)?;
    let naming = cli_naming(&args.read)?;
    let file = SuiteFile::new(&name, text);
    let suite = file.parse()?;
    let suite_dir = args.suite.parent().unwrap_or(Path::new(""));

    let mut outcome = SuiteOutcome { tests: Vec::new() };
    let mut missing = Vec::new();
    let tests = suite
        .tests
        .iter()
        .enumerate()
        .filter(|(position, _)| args.shard.is_none_or(|shard| shard.holds(*position)))
        .map(|(_, test)| test);
    for test in tests {
        let (files, searched) = discover(test, suite_dir, args.traces_dir.as_deref(), &file)?;
        let mut evaluator = TestEvaluator::new(test);
        let mut too_long = TooLongRuns::default();
        for trace in &files {
            read_runs(trace, &read_options(test, args, &naming), |source, run| {
                if too_long.admit(test, &source, run) {
                    evaluator.add_run(source, run);
                }
            })?;
        }
        let problems = too_long.problems(test, &file);
        if !problems.is_empty() {
            return Err(Report::new(file.error(problems)));
        }
        check_count(test, evaluator.runs(), &searched, &file)?;
        match evaluator.finish() {
            Ok(test_outcome) => outcome.tests.push(test_outcome),
            Err(found) => missing.push((test, found)),
        }
    }
    // Every test's runs were read, so every call a matcher cannot judge is listed at once.
    if !missing.is_empty() {
        let problems = missing
            .iter()
            .flat_map(|(test, found)| missing_argument_problems(test, found, &file))
            .collect();
        return Err(Report::new(file.error(problems)));
    }

    let mut output = Output::default();
    for target in targets {
        let mut bytes = Vec::new();
        // Colour only for a terminal, never for a file.
        let color = color && target.path.is_none();
        let written = match target.format {
            Format::Text => render_text(&outcome, TextOptions::with_color(color), &mut bytes),
            Format::Json => match args.shard {
                Some(shard) => render_json_shard(
                    &outcome,
                    ShardOrigin {
                        shard,
                        suite: &name,
                        suite_tests: suite.tests.len(),
                    },
                    &mut bytes,
                ),
                None => render_json(&outcome, &mut bytes),
            },
            Format::Junit => render_junit(&outcome, &name, &mut bytes),
            Format::Markdown => render_markdown(&outcome, &mut bytes),
            Format::Github => {
                // The annotations mark the suite's lines; the text report below them is the
                // job log they point to.
                render_github(&outcome, &name, &mut bytes).and_then(|()| {
                    writeln!(bytes)?;
                    render_text(&outcome, TextOptions::with_color(false), &mut bytes)
                })
            }
        };
        output.deliver(target, written.map(|()| bytes))?;
    }
    // GitHub's job summary: appended, like every step's, when the runner asks for it.
    if targets.iter().any(|t| t.format == Format::Github)
        && let Some(summary) = args.step_summary.clone()
    {
        let mut bytes = Vec::new();
        render_markdown(&outcome, &mut bytes)
            .map_err(|error| Report::msg(format!("cannot render the summary: {error}")))?;
        output.appends.push((summary, bytes));
    }
    output.code = if outcome.passed() {
        exit::PASSED
    } else {
        exit::FAILED
    };
    Ok(output)
}

/// The suite file's text, within [`MAX_SUITE_BYTES`].
fn read_suite(path: &Path, name: &str) -> Result<String, Report> {
    let cannot_read = |error: &dyn std::fmt::Display| {
        Report::new(SuiteError::detached(
            Problem::new(
                "toolgate::suite::io",
                format!("cannot read suite `{name}`: {error}"),
                "",
            )
            .with_help(
                "pass the suite's path, `toolgate check path/to/toolgate.yaml`; without one, \
                 toolgate reads `toolgate.yaml` in the current folder",
            ),
        ))
    };
    match File::open(path)
        .and_then(|file| read_limited(file, MAX_SUITE_BYTES))
        .map_err(|error| cannot_read(&error))?
    {
        Limited::Text(text) => Ok(text),
        Limited::TooLarge => Err(Report::new(SuiteError::detached(
            Problem::new(
                "toolgate::suite::too_large",
                format!(
                    "suite `{name}` is larger than {} MiB",
                    MAX_SUITE_BYTES >> 20
                ),
                "",
            )
            .with_help("a suite is written by hand and read whole; put large data in trace files"),
        ))),
    }
}

/// Reads the runs of one trace file in whatever format it holds, handing each to `add` as
/// soon as it is complete.
pub(crate) fn read_runs(
    trace: &TraceFile,
    options: &ReadOptions,
    mut add: impl FnMut(RunSource, &Run),
) -> Result<(), TraceError> {
    let name = display(&trace.path);
    let reader = BufReader::new(File::open(&trace.path).map_err(|error| TraceError::Io {
        file: name.clone(),
        message: error.to_string(),
    })?);
    let lines = trace.layout == FileLayout::JsonLines;
    read_trace(&name, reader, lines, options, |run| {
        let source = RunSource {
            file: trace.label.clone(),
            line: run.line,
        };
        add(source, &run);
    })?;
    Ok(())
}

/// No runs at all, or not the number the suite asked for, is an input error.
fn check_count(
    test: &Test,
    runs: &[RunInfo],
    searched: &Searched,
    file: &SuiteFile,
) -> Result<(), Report> {
    let test_path = [PathSeg::Key("tests"), PathSeg::Index(test.index)];
    if runs.is_empty() {
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
        return Err(Report::new(file.error(vec![
            Problem::new(
                "toolgate::traces::none",
                format!("test `{}` found no runs", test.name),
                "no runs for this test",
            )
            .with_help(help)
            .at(file.span(&[test_path[0], test_path[1], seg])),
        ])));
    }
    if let Some(expected) = test.runs {
        let found = runs.len() as u64;
        if found != expected {
            let mut listed: Vec<String> = runs
                .iter()
                .take(LISTED_RUNS)
                .map(|run| run.source.to_string())
                .collect();
            if runs.len() > LISTED_RUNS {
                listed.push(format!("and {} more", runs.len() - LISTED_RUNS));
            }
            return Err(Report::new(file.error(vec![
                Problem::new(
                    "toolgate::traces::count",
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
    Ok(())
}

/// How to read a test's traces: the test's own `trace_format` and `naming` win over the
/// command line's.
fn read_options(test: &Test, args: &CheckArgs, naming: &Naming) -> ReadOptions {
    ReadOptions {
        format: test
            .trace_format
            .clone()
            .or_else(|| args.read.trace_format.clone()),
        naming: test.naming.clone().unwrap_or_else(|| naming.clone()),
    }
}

/// The naming scheme of the command line, or a usage error.
pub(crate) fn cli_naming(read: &crate::cli::ReadArgs) -> Result<Naming, Report> {
    read.naming().map_err(|error| {
        Report::new(SuiteError::detached(
            Problem::new("toolgate::usage::naming", error.to_string(), "").with_help(
                "`--naming regex` needs `--naming-pattern` with groups `server` and `tool`",
            ),
        ))
    })
}
