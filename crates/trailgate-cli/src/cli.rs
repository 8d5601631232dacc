//! The command line, as clap sees it.

use std::ffi::OsStr;
use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use trailgate_report::TrendOptions;
use trailgate_run::{
    COMPARE_FORMATS, CheckOptions, DIFF_FORMATS, Format, MERGE_FORMATS, NamePattern, ReportTarget,
    Selection, TREND_FORMATS, TraceOptions,
};

/// What `trailgate --version` prints after the name: the version, and the version of the JSON
/// report's layout, which scripts reading the report depend on.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (JSON report version 3)");

/// Score recorded AI-agent tool-call traces, with no model in the loop, and gate CI on the
/// result.
///
/// Exit codes: 0 every gate passed, 1 a gate failed, 2 invalid suite, trace or usage,
/// 4 `--test` or `-k` selected no test.
#[derive(Debug, Parser)]
#[command(name = "trailgate", version = VERSION, about, long_about = None, after_long_help = MAIN_EXAMPLES)]
pub(crate) struct Cli {
    /// When to colour the output [default: auto: on a terminal, unless `NO_COLOR` is set]
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, hide_default_value = true, global = true)]
    pub(crate) color: ColorWhen,

    #[command(subcommand)]
    pub(crate) command: Command,
}

// `check` has the most options by far; boxed, a parsed command stays small.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run every test of a suite against its recorded traces and report.
    Check(Box<CheckArgs>),
    /// Write a suite from recorded runs (`--from`), or a starter suite and a sample trace.
    ///
    /// Without `--from`: a commented starter suite and a sample trace into the current
    /// folder.
    ///
    /// With `--from`, each PATH (a trace file, or a folder of them) becomes one test whose
    /// every gate holds on its runs, each expectation commented with what it was inferred
    /// from; the suite is checked against those runs before it is written (docs/init.md).
    #[command(after_long_help = INIT_EXAMPLES)]
    Init(InitArgs),
    /// Print the JSON Schema of the suite file, for completion and validation in editors.
    Schema,
    /// Print the calls trailgate reads from trace files, one JSON line per run.
    ///
    /// Reads any supported format and prints each run in trailgate's own call-list shape, so
    /// it shows exactly what `check` scores.
    Convert(ConvertArgs),
    /// Combine the JSON reports of `check --shard K/N` into the whole suite's report.
    ///
    /// Takes one report per shard, re-applies the suite's gates, and gives the same report
    /// and exit code as one unsharded `check` (docs/ci.md).
    Merge(MergeArgs),
    /// Compare two JSON reports of one suite: what got better, what got worse.
    ///
    /// Matches tests by name and shows each metric's base and head value and their
    /// difference, the gates that changed verdict, the tests added and removed, and the runs
    /// (same source and line) whose verdict changed, with the 95% interval of the change in
    /// pass rate. Exit codes: 0 no gate newly fails, no metric worsened and no pass rate fell
    /// significantly, 1 something regressed, 2 invalid input (docs/baselines.md).
    #[command(after_long_help = DIFF_EXAMPLES)]
    Diff(DiffArgs),
    /// Follow each test's metrics over several JSON reports of one suite, oldest first.
    ///
    /// Shows, per test and metric, the series of its values over the last `--window`
    /// reports. A metric drifts when it never moves in its better direction from one report
    /// to the next and its last value is worse than its first by at least `--min-change`.
    /// Exit codes: 0 no metric drifts, 1 a metric drifts, 2 invalid input (docs/baselines.md).
    #[command(after_long_help = TREND_EXAMPLES)]
    Trend(TrendArgs),
    /// Compare 2 to 16 JSON reports of one suite: agents, models or settings side by side.
    ///
    /// A row per test and a column per report (the verdict, and a metric with `--metric`),
    /// the tests each report passes, and each report against the first: b (tests the first
    /// passes and it fails), c (the reverse) and McNemar's exact p; for tests with several
    /// runs in both, the change in pass rate with its 95% interval. Exit codes: 0 (a
    /// comparison judges nothing), 2 invalid input (docs/baselines.md).
    #[command(after_long_help = COMPARE_EXAMPLES)]
    Compare(CompareArgs),
    /// Compare a list of expected calls with the calls made, arguments included, and print
    /// the accuracy as JSON.
    ///
    /// Reads one JSON object, `{"expected": [...], "actual": [...]}`, each entry a `tool`
    /// and its `args`, pairs each expected call with a call made, and prints the score, the
    /// correct calls, the calls with other arguments, the missed and the extra calls. No
    /// suite and no gates: it exits 0 unless the input is invalid.
    #[command(after_long_help = ACCURACY_EXAMPLES)]
    Accuracy(AccuracyArgs),
}

const MAIN_EXAMPLES: &str = "\
Examples:
  trailgate init                           Write a starter suite and a sample trace here
  trailgate check                          Check ./trailgate.yaml against its traces
  trailgate check ci/trailgate.yaml -k search
  trailgate convert session.jsonl          Show the calls trailgate reads from a trace
  trailgate diff main.json head.json       Compare two JSON reports: better or worse
  trailgate trend reports/*.json           Metrics that drift over the last reports

Documentation: docs/suite.md (the suite), docs/reports.md (reports and exit codes),
docs/ci.md (CI), docs/python.md (the Python package) in the repository.";

const CHECK_EXAMPLES: &str = "\
Examples:
  trailgate check                                  ./trailgate.yaml, the text report
  trailgate check ci/trailgate.yaml -f json -o report.json
  trailgate check -f junit -o junit.xml -f github  JUnit to a file, annotations to the log
  trailgate check --test 'search then fetch'       One test, by its name
  trailgate check -k 'search|fetch'                The tests whose names match
  trailgate check --shard 2/3 -f json -o shard-2.json

Exit codes: 0 every gate passed, 1 a gate failed, 2 invalid suite, trace or usage,
4 `--test` or `-k` selected no test. See docs/reports.md and docs/ci.md.";

const DIFF_EXAMPLES: &str = "\
Examples:
  trailgate diff main.json head.json                     The text diff
  trailgate diff main.json head.json -f markdown -o comment.md
  trailgate diff main.json head.json -f github           Annotations for regressions

Exit codes: 0 no gate newly fails, no metric worsened (`errors.rate` is better lower) and
no pass rate fell significantly, 1 something regressed, 2 invalid input (not trailgate
reports, different versions, no test in common). See docs/baselines.md.";

const TREND_EXAMPLES: &str = "\
Examples:
  trailgate trend r1.json r2.json r3.json r4.json   The text trend, oldest first
  trailgate trend reports/*.json --window 10 --min-change 5
  trailgate trend reports/*.json -f markdown -o trend.md
                                                    A table with a sparkline per metric

A glob lists files in name order: name the reports so that it is the order of time
(`2026-05-01.json`, or numbers padded with zeros).

Exit codes: 0 no metric drifts, 1 a metric drifts, 2 invalid input (fewer than 2 reports,
not trailgate reports, different versions, a report with no test of the first). See
docs/baselines.md.";

const COMPARE_EXAMPLES: &str = "\
Examples:
  trailgate compare large.json small.json                 The text comparison
  trailgate compare a.json b.json --label large --label small --metric tool_selection.f1
  trailgate compare main.json runs/*.json -f html -o compare.html

Exit codes: 0 the reports were compared, 2 invalid input (fewer than 2 or more than 16
reports, not trailgate reports, different versions, no test in common with the first, a label
twice, an unknown metric). See docs/baselines.md.";

const ACCURACY_EXAMPLES: &str = "\
Examples:
  trailgate accuracy input.json
  some-agent --dump-calls | trailgate accuracy -

The input, the pairing and the output: docs/graders/call-accuracy.md.";

#[derive(Debug, Args)]
pub(crate) struct ConvertArgs {
    /// Trace files (`.json`: one document; `.jsonl`: one record per line).
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,

    /// How to read them.
    #[command(flatten)]
    pub(crate) read: ReadArgs,
}

const INIT_EXAMPLES: &str = "\
Examples:
  trailgate init                                     a starter suite and a sample trace
  trailgate init --from runs/checkout/               one test from a folder of runs
  trailgate init --from a.jsonl b.jsonl -o suite.yaml  two tests, into suite.yaml
  trailgate init --from runs/ --output -             the suite on standard output";

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// Recorded runs to write the suite from: one test per trace file or folder of them
    #[arg(long, value_name = "PATH", num_args = 1.., required = false)]
    pub(crate) from: Vec<PathBuf>,

    /// Where `--from` writes the suite; `-` for standard output [default: trailgate.yaml]
    #[arg(short = 'o', long, value_name = "FILE", requires = "from")]
    pub(crate) output: Option<PathBuf>,

    /// Replace an existing `--output`
    #[arg(long, requires = "from")]
    pub(crate) force: bool,

    /// How to read the runs, written into each test when given.
    #[command(flatten)]
    pub(crate) read: ReadArgs,
}

impl InitArgs {
    /// The options as `trailgate_run::init_from` takes them.
    pub(crate) fn options(&self) -> trailgate_run::InitOptions {
        let mut options = trailgate_run::InitOptions::new(self.from.clone());
        if let Some(output) = &self.output {
            options.output.clone_from(output);
        }
        options.force = self.force;
        options.read = self.read.options();
        options
    }
}

/// How to read trace files; a test's own `trace_format` and `naming` win over these.
#[derive(Debug, Args)]
pub(crate) struct ReadArgs {
    /// The trace format [default: detected from the content]
    #[arg(long, value_name = "FORMAT", value_parser = PossibleValuesParser::new(trailgate_trace::format_names()))]
    pub(crate) trace_format: Option<String>,

    /// How to split tool names that carry their server [default: default]
    ///
    /// For names such as `mcp__github__list_issues`; see docs/formats.md.
    #[arg(long, value_name = "SCHEME", value_parser = PossibleValuesParser::new(trailgate_trace::Naming::NAMES))]
    pub(crate) naming: Option<String>,

    /// Known servers, for the `mcp-single` and `dash` schemes (comma-separated)
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub(crate) servers: Vec<String>,

    /// The pattern of the `regex` scheme, with named groups `server` and `tool`.
    #[arg(long, value_name = "REGEX")]
    pub(crate) naming_pattern: Option<String>,
}

impl ReadArgs {
    /// Whether any of the options was given.
    pub(crate) fn given(&self) -> bool {
        self.trace_format.is_some()
            || self.naming.is_some()
            || !self.servers.is_empty()
            || self.naming_pattern.is_some()
    }

    /// The options as `trailgate_run` takes them; the naming scheme is checked there.
    pub(crate) fn options(&self) -> TraceOptions {
        let mut options = TraceOptions::default();
        options.trace_format.clone_from(&self.trace_format);
        options.naming.clone_from(&self.naming);
        options.servers.clone_from(&self.servers);
        options.naming_pattern.clone_from(&self.naming_pattern);
        options
    }
}

#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The shard reports: what `trailgate check --shard K/N --format json` wrote for each K.
    #[arg(required = true, value_name = "REPORT")]
    pub(crate) reports: Vec<PathBuf>,

    /// A report format: `text` or `json`; repeat it for several reports [default: text]
    ///
    /// `text` gives each test's verdict and gates, `json` the unsharded run's JSON report.
    /// Each `--output` writes the `--format` just before it.
    #[arg(short = 'f', long, value_name = "FORMAT", value_parser = FormatParser { formats: MERGE_FORMATS, check: false })]
    pub(crate) format: Vec<Format>,

    /// Write the report of the `--format` before it to FILE [default: standard output]
    ///
    /// Written atomically: a failed run never leaves half a file. Without any `--format`,
    /// the file's extension names the format (`.json`, `.txt`).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output: Vec<PathBuf>,

    /// Print nothing on standard output when every report goes to a file
    ///
    /// Without it, the text report is printed as well whenever every `--format` has its
    /// `--output`, so that a CI log always says what happened.
    #[arg(short = 'q', long)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The base report: the one to compare with, e.g. main's `trailgate check --format json`
    #[arg(value_name = "BASE")]
    pub(crate) base: PathBuf,

    /// The head report: the change's, of the same suite
    #[arg(value_name = "HEAD")]
    pub(crate) head: PathBuf,

    /// An output format: `text`, `json`, `markdown` or `github`; repeat it for several
    /// [default: text]
    ///
    /// `markdown` is a pull-request comment; `github` writes annotations for regressions, then
    /// the text. Each `--output` writes the `--format` just before it.
    #[arg(short = 'f', long, value_name = "FORMAT", value_parser = FormatParser { formats: DIFF_FORMATS, check: false })]
    pub(crate) format: Vec<Format>,

    /// Write the output of the `--format` before it to FILE [default: standard output]
    ///
    /// Written atomically. Without any `--format`, the file's extension names the format
    /// (`.json`, `.md`, `.txt`).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output: Vec<PathBuf>,

    /// Print nothing on standard output when every report goes to a file
    ///
    /// Without it, the text report is printed as well whenever every `--format` has its
    /// `--output`, so that a CI log always says what happened.
    #[arg(short = 'q', long)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TrendArgs {
    /// The JSON reports of one suite, oldest first, each written by `trailgate check --format
    /// json`; at least 2
    #[arg(required = true, value_name = "REPORT")]
    pub(crate) reports: Vec<PathBuf>,

    /// Judge the last W reports (all of them when there are fewer); at least 2
    #[arg(long, value_name = "W", default_value_t = TrendOptions::DEFAULT_WINDOW, value_parser = clap::value_parser!(u64).range(2..).map(|w| usize::try_from(w).unwrap_or(usize::MAX)))]
    pub(crate) window: usize,

    /// The smallest worsening that is a drift: points, or for `usage.*` percent of the
    /// window's first value
    #[arg(long, value_name = "P", default_value_t = TrendOptions::DEFAULT_MIN_CHANGE)]
    pub(crate) min_change: u32,

    /// An output format: `text`, `json`, `markdown` or `github`; repeat it for several
    /// [default: text]
    ///
    /// `markdown` is a table with a sparkline per metric; `github` writes an error annotation
    /// per drifting metric, then the text. Each `--output` writes the `--format` just before
    /// it.
    #[arg(short = 'f', long, value_name = "FORMAT", value_parser = FormatParser { formats: TREND_FORMATS, check: false })]
    pub(crate) format: Vec<Format>,

    /// Write the output of the `--format` before it to FILE [default: standard output]
    ///
    /// Written atomically. Without any `--format`, the file's extension names the format
    /// (`.json`, `.md`, `.txt`).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output: Vec<PathBuf>,

    /// Print nothing on standard output when every report goes to a file
    ///
    /// Without it, the text report is printed as well whenever every `--format` has its
    /// `--output`, so that a CI log always says what happened.
    #[arg(short = 'q', long)]
    pub(crate) quiet: bool,
}

impl TrendArgs {
    /// The window and minimum change, as `trailgate_report` takes them.
    pub(crate) fn options(&self) -> TrendOptions {
        TrendOptions::new(self.window, self.min_change)
    }
}

#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// The reports, 2 to 16, of one suite: the first is the one the others are compared with
    #[arg(required = true, value_name = "REPORT")]
    pub(crate) reports: Vec<PathBuf>,

    /// A report's label in the output; give it once per report, in order [default: each
    /// file's stem]
    #[arg(long, value_name = "NAME", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub(crate) label: Vec<String>,

    /// A metric to show beside each verdict, e.g. `tool_selection.f1`
    #[arg(long, value_name = "METRIC")]
    pub(crate) metric: Option<String>,

    /// An output format: `text`, `json`, `markdown` or `html`; repeat it for several
    /// [default: text]
    ///
    /// `html` is one self-contained page. Each `--output` writes the `--format` just before
    /// it.
    #[arg(short = 'f', long, value_name = "FORMAT", value_parser = FormatParser { formats: COMPARE_FORMATS, check: false })]
    pub(crate) format: Vec<Format>,

    /// Write the output of the `--format` before it to FILE [default: standard output]
    ///
    /// Written atomically. Without any `--format`, the file's extension names the format
    /// (`.json`, `.md`, `.html`, `.txt`).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output: Vec<PathBuf>,

    /// Print nothing on standard output when every report goes to a file
    ///
    /// Without it, the text comparison is printed as well whenever every `--format` has its
    /// `--output`, so that a CI log always says what happened.
    #[arg(short = 'q', long)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Args)]
pub(crate) struct AccuracyArgs {
    /// The input file; `-` reads standard input.
    pub(crate) input: PathBuf,
}

#[derive(Debug, Args)]
#[command(after_long_help = CHECK_EXAMPLES)]
pub(crate) struct CheckArgs {
    /// The suite file
    #[arg(default_value = "trailgate.yaml")]
    pub(crate) suite: PathBuf,

    /// A report format; repeat it for several reports from one run [default: text]
    ///
    /// Each `--output` writes the `--format` just before it (one of each pair in either
    /// order); the format without one goes to standard output.
    #[arg(short = 'f', long, value_name = "FORMAT", value_parser = FormatParser { formats: Format::ALL, check: true })]
    pub(crate) format: Vec<Format>,

    /// Write the report of the `--format` before it to FILE [default: standard output]
    ///
    /// Written atomically: a failed run never leaves half a file. Without any `--format`,
    /// the file's extension names the format (`.json`, `.jsonl`, `.xml` for JUnit, `.md`,
    /// `.html`, `.txt`).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output: Vec<PathBuf>,

    /// Print nothing on standard output when every report goes to a file
    ///
    /// Without it, the text report is printed as well whenever every `--format` has its
    /// `--output`, so that a CI log always says what happened.
    #[arg(short = 'q', long)]
    pub(crate) quiet: bool,

    /// Check only the test named NAME, or the tests a glob matches; repeat it for several
    ///
    /// A NAME with `*`, `?` or `[...]` is also a glob, as in a shell: `--test 'search *'`.
    /// The reports and their sums cover the selected tests alone. A NAME that no test of the
    /// suite has or matches stops trailgate with exit code 4.
    #[arg(long = "test", value_name = "NAME", conflicts_with = "shard")]
    pub(crate) tests: Vec<String>,

    /// Check only the tests whose names contain PATTERN or match it as a regex
    ///
    /// As pytest's `-k`, whatever the case of the letters: `-k search` selects every test
    /// with `search` or `Search` in its name, `-k '^login|logout$'` those the regex matches.
    /// With `--test`, a test must satisfy both. When no test is selected, trailgate exits 4.
    #[arg(short = 'k', value_name = "PATTERN", value_parser = parse_pattern, conflicts_with = "shard")]
    pub(crate) select: Option<NamePattern>,

    /// How to read trace files.
    #[command(flatten)]
    pub(crate) read: ReadArgs,

    /// Check only shard K of N (from 1), to split a suite across CI jobs
    ///
    /// Shard K holds the suite's Kth, (K+N)th, (K+2N)th... test. The JSON report then
    /// carries what `trailgate merge` needs (docs/ci.md).
    #[arg(long, value_name = "K/N")]
    pub(crate) shard: Option<trailgate_expect::Shard>,

    /// Where GitHub Actions collects the job summary; set by the runner. With
    /// `--format github`, trailgate appends its Markdown summary there.
    #[arg(long, env = "GITHUB_STEP_SUMMARY", value_name = "FILE", hide = true)]
    pub(crate) step_summary: Option<PathBuf>,

    /// Where the tests' default traces are [default: `traces/` next to the suite]
    ///
    /// trailgate looks for `<DIR>/<slug>/`, `<DIR>/<slug>.json` and `<DIR>/<slug>.jsonl`.
    /// Tests that name their `traces:` are not affected.
    #[arg(long, value_name = "DIR")]
    pub(crate) traces_dir: Option<PathBuf>,

    /// How many threads score the runs [default: 1 for a test with under 4 MiB of traces,
    /// otherwise the cores, at most 2]
    ///
    /// More threads finish large traces sooner; 1 keeps trailgate to one core beside other
    /// jobs. The reports are the same bytes whatever N. At most 256; when the system refuses
    /// a thread, the ones that started do the work.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub(crate) threads: Option<u16>,

    /// The JSON report that gates written `baseline`, `baseline - N` or `baseline + N`
    /// compare with (docs/baselines.md)
    ///
    /// Each such gate compares its metric with the same test's same metric in FILE, moved
    /// by N points and kept within 0..100. Without this option, or when FILE lacks the test
    /// or the metric, the gate is skipped with the reason: it neither passes nor fails.
    #[arg(long, value_name = "FILE")]
    pub(crate) baseline: Option<PathBuf>,

    /// A file naming the tests expected to fail, one a line
    /// (docs/reliability.md#expected-failures)
    ///
    /// A listed test that fails is XFAIL, not a failure; one that passes is XPASS, which
    /// fails the check until its line is removed. Blank lines and lines starting with `#`
    /// are ignored; a name that is no test of the suite is an error.
    #[arg(long, value_name = "FILE")]
    pub(crate) xfail: Option<PathBuf>,
}

fn parse_pattern(text: &str) -> Result<NamePattern, String> {
    NamePattern::new(text)
        .ok_or_else(|| "the pattern is empty; it would select every test".to_owned())
}

impl CheckArgs {
    /// What `trailgate_run::check` is asked to do: render `targets`, colouring standard
    /// output's when `color`.
    pub(crate) fn options(&self, targets: Vec<ReportTarget>, color: bool) -> CheckOptions {
        let mut options = CheckOptions::new(targets);
        options.selection = Selection {
            tests: self.tests.clone(),
            pattern: self.select.clone(),
        };
        options.shard = self.shard;
        options.threads = self.threads.map(usize::from);
        options.traces_dir.clone_from(&self.traces_dir);
        options.read = self.read.options();
        options.step_summary.clone_from(&self.step_summary);
        options.color = color;
        options.baseline.clone_from(&self.baseline);
        options.xfail.clone_from(&self.xfail);
        options
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorWhen {
    /// Colour on a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// A usage error of the subcommand the command line ran, so that its usage line is the
/// subcommand's (`Usage: trailgate check [OPTIONS] [SUITE]`), not the top level's.
pub(crate) fn usage_error(matches: &clap::ArgMatches, message: String) -> clap::Error {
    let mut command = Cli::command();
    // Gives each subcommand its full name, `trailgate check`, for its usage line.
    command.build();
    let kind = clap::error::ErrorKind::ArgumentConflict;
    if let Some(name) = matches.subcommand_name()
        && let Some(subcommand) = command.find_subcommand_mut(name)
    {
        return subcommand.error(kind, message);
    }
    command.error(kind, message)
}

/// Pairs each `--output` with the `--format` just before it on the command line.
///
/// Without any `--format` the report is text on standard output, or each `--output` file's
/// format is the one its extension names (`.json`, `.jsonl`, `.xml`, `.md`, `.html`, `.txt`). A format without an output goes to standard
/// output, and only one may.
pub(crate) fn report_targets(matches: &clap::ArgMatches) -> Result<Vec<ReportTarget>, String> {
    let Some(check) = matches
        .subcommand_matches("check")
        .or_else(|| matches.subcommand_matches("merge"))
        .or_else(|| matches.subcommand_matches("diff"))
        .or_else(|| matches.subcommand_matches("trend"))
        .or_else(|| matches.subcommand_matches("compare"))
    else {
        return Ok(Vec::new());
    };
    let formats: Vec<(usize, Format)> = check
        .indices_of("format")
        .into_iter()
        .flatten()
        .zip(
            check
                .get_many::<Format>("format")
                .into_iter()
                .flatten()
                .copied(),
        )
        .collect();
    let outputs: Vec<(usize, PathBuf)> = check
        .indices_of("output")
        .into_iter()
        .flatten()
        .zip(
            check
                .get_many::<PathBuf>("output")
                .into_iter()
                .flatten()
                .cloned(),
        )
        .collect();
    if formats.is_empty() {
        if outputs.is_empty() {
            return Ok(vec![ReportTarget::stdout(Format::Text)]);
        }
        let (written, extensions) = written_formats(matches.subcommand_name());
        // Without `--format`, each file's extension names its format, so that
        // `--output report.json` never holds a text report.
        return outputs
            .into_iter()
            .map(|(_, path)| {
                Format::from_extension(&path)
                    .filter(|format| written.contains(format))
                    .map(|format| ReportTarget::file(format, &path))
                    .ok_or_else(|| {
                        format!(
                            "cannot tell the format of `--output {}` from its extension ({}); \
                             write `--format FORMAT --output FILE`",
                            path.display(),
                            extensions
                        )
                    })
            })
            .collect::<Result<Vec<_>, String>>()
            .map(|targets| with_summary(targets, check));
    }
    let mut targets: Vec<ReportTarget> = formats
        .iter()
        .map(|&(_, format)| ReportTarget::stdout(format))
        .collect();
    // One `--format` and one `--output` go together in either order, as `-o b.json -f json`
    // reads; with several, each `--output` takes the `--format` just before it.
    if let ([_], [(_, path)]) = (formats.as_slice(), outputs.as_slice()) {
        targets[0].path = Some(path.clone());
        return Ok(with_summary(targets, check));
    }
    for (index, path) in outputs {
        let Some(owner) = formats.iter().rposition(|&(at, _)| at < index) else {
            return Err(format!(
                "`--output {}` comes before any `--format`; write `--format FORMAT --output FILE`",
                path.display()
            ));
        };
        if targets[owner].path.is_some() {
            return Err(format!(
                "`--format {}` has two `--output` files",
                targets[owner].format.name()
            ));
        }
        targets[owner].path = Some(path);
    }
    if targets.iter().filter(|t| t.path.is_none()).count() > 1 {
        return Err(
            "only one `--format` can go to standard output; give the others an `--output FILE`"
                .to_owned(),
        );
    }
    Ok(with_summary(targets, check))
}

/// The formats the subcommand `name` writes, and the extensions that name them.
fn written_formats(name: Option<&str>) -> (&'static [Format], &'static str) {
    match name {
        Some("merge") => (MERGE_FORMATS, "`.json` or `.txt`"),
        Some("diff") => (DIFF_FORMATS, "`.json`, `.md` or `.txt`"),
        Some("trend") => (TREND_FORMATS, "`.json`, `.md` or `.txt`"),
        Some("compare") => (COMPARE_FORMATS, "`.json`, `.md`, `.html` or `.txt`"),
        _ => (
            Format::ALL,
            "`.json`, `.jsonl`, `.xml`, `.md`, `.html` or `.txt`",
        ),
    }
}

/// The targets, and the text report on standard output when every report goes to a file
/// (unless `--quiet`): a CI log that says nothing hides what happened.
fn with_summary(mut targets: Vec<ReportTarget>, matches: &clap::ArgMatches) -> Vec<ReportTarget> {
    if !matches.get_flag("quiet") && targets.iter().all(|target| target.path.is_some()) {
        targets.push(ReportTarget::stdout(Format::Text));
    }
    targets
}

/// `--format`'s values: the names of a command's formats (`Format::name`). The one place
/// where the command line's words become a `trailgate_run::Format`; which formats a command
/// writes is `trailgate_run`'s to say (`Format::ALL`, `MERGE_FORMATS`, `DIFF_FORMATS`).
#[derive(Debug, Clone, Copy)]
struct FormatParser {
    formats: &'static [Format],
    /// `check`'s values: each listed in `--help` with what it is, and a value that is not
    /// UTF-8 shown (lossily) as an invalid value beside the possible ones, as clap's parser
    /// of an enum shows it, where `merge` and `diff` refuse it as invalid UTF-8.
    check: bool,
}

impl FormatParser {
    fn values(self) -> impl Iterator<Item = PossibleValue> {
        self.formats.iter().map(move |&format| {
            let value = PossibleValue::new(format.name());
            match self.check.then(|| format_help(format)).flatten() {
                Some(help) => value.help(help),
                None => value,
            }
        })
    }
}

impl TypedValueParser for FormatParser {
    type Value = Format;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Format, clap::Error> {
        let lossy = value.to_string_lossy();
        let value = if self.check {
            OsStr::new(lossy.as_ref())
        } else {
            value
        };
        // clap's own errors: the invalid value, the possible ones, the nearest.
        let name = PossibleValuesParser::new(self.values()).parse_ref(cmd, arg, value)?;
        self.formats
            .iter()
            .copied()
            .find(|format| format.name() == name)
            .ok_or_else(|| {
                clap::Error::raw(
                    clap::error::ErrorKind::InvalidValue,
                    format!("no format is named `{name}`"),
                )
            })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.values()))
    }
}

/// What a report format is, as `check --help` lists it.
fn format_help(format: Format) -> Option<&'static str> {
    Some(match format {
        Format::Text => "A report for people",
        Format::Json => "A versioned, byte-stable JSON document",
        Format::Jsonl => {
            "JSON Lines: a header, a line per run, a line per test, a summary; written as the \
             runs are scored, for `jq`, `DuckDB` or `pandas`"
        }
        Format::Junit => {
            "JUnit XML for CI test reporters (GitHub, GitLab, Jenkins): a testcase per test"
        }
        Format::Github => {
            "GitHub Actions annotations on the suite's lines, then the text report; with \
             `GITHUB_STEP_SUMMARY` set, the Markdown summary is appended there too"
        }
        Format::Markdown => {
            "A Markdown summary, for a pull-request comment or another CI's job summary"
        }
        Format::Html => {
            "One self-contained HTML page: verdicts, charts and a run explorer, for people"
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::{Cli, VERSION, format_help};

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn check_help_says_what_each_format_is() {
        for &format in trailgate_run::Format::ALL {
            assert!(format_help(format).is_some(), "{}", format.name());
        }
    }

    #[test]
    fn the_version_names_the_json_reports_version() {
        let json = format!("(JSON report version {})", trailgate_report::JSON_VERSION);
        assert!(VERSION.ends_with(&json), "{VERSION}");
    }
}
