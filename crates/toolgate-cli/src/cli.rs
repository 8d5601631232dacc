//! The command line, as clap sees it.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};

/// Score recorded AI-agent tool-call traces, with no model in the loop, and gate CI on the
/// result.
///
/// Exit codes: 0 every gate passed, 1 a gate failed, 2 invalid suite, trace or usage.
#[derive(Debug, Parser)]
#[command(name = "toolgate", version, about, long_about = None)]
pub(crate) struct Cli {
    /// When to colour the output.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, global = true)]
    pub(crate) color: ColorWhen,

    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run every test of a suite against its recorded traces and report.
    Check(CheckArgs),
    /// Write a commented starter suite and a sample trace into the current folder.
    Init,
    /// Print the JSON Schema of the suite file, for completion and validation in editors.
    Schema,
    /// Print the calls of trace files, in any supported format, as toolgate's own call
    /// list: one JSON line per run. Shows exactly what toolgate read.
    Convert(ConvertArgs),
    /// Combine the JSON reports of `check --shard K/N`, one per shard, into the whole
    /// suite's report, and re-apply its gates: the same report and exit code as one
    /// unsharded `check`.
    Merge(MergeArgs),
    /// Score seed 004's `{"expected": [...], "actual": [...]}` input and print its output
    /// object (a drop-in for the tool-call accuracy package).
    Accuracy(AccuracyArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ConvertArgs {
    /// Trace files (`.json`: one document; `.jsonl`: one record per line).
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,

    /// How to read them.
    #[command(flatten)]
    pub(crate) read: ReadArgs,
}

/// How to read trace files; a test's own `trace_format` and `naming` win over these.
#[derive(Debug, Args)]
pub(crate) struct ReadArgs {
    /// The trace format, instead of detecting it from the content.
    #[arg(long, value_name = "FORMAT", value_parser = PossibleValuesParser::new(toolgate_trace::format_names()))]
    pub(crate) trace_format: Option<String>,

    /// How to split tool names that carry their server (`mcp__github__list_issues`).
    #[arg(long, value_name = "SCHEME", value_parser = PossibleValuesParser::new(toolgate_trace::Naming::NAMES))]
    pub(crate) naming: Option<String>,

    /// Known servers, for the `mcp-single` and `dash` schemes (comma-separated).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub(crate) servers: Vec<String>,

    /// The pattern of the `regex` scheme, with named groups `server` and `tool`.
    #[arg(long, value_name = "REGEX")]
    pub(crate) naming_pattern: Option<String>,
}

impl ReadArgs {
    /// The naming scheme the flags describe.
    pub(crate) fn naming(&self) -> Result<toolgate_trace::Naming, toolgate_trace::NamingError> {
        toolgate_trace::Naming::from_parts(
            self.naming.as_deref().unwrap_or("default"),
            self.servers.clone(),
            self.naming_pattern.as_deref(),
        )
    }
}

#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The shard reports: what `toolgate check --shard K/N --format json` wrote for each K.
    #[arg(required = true, value_name = "REPORT")]
    pub(crate) reports: Vec<PathBuf>,

    /// `text` (each test's verdict and gates) or `json` (the unsharded run's JSON report);
    /// repeat it for several reports, each `--output` writing the `--format` before it.
    #[arg(long, value_name = "FORMAT", value_parser = merge_formats())]
    pub(crate) format: Vec<Format>,

    /// Write the report of the `--format` before it to this file, atomically. Without any
    /// `--format`, the file's extension names the format (`.json`, `.txt`).
    #[arg(long, value_name = "FILE")]
    pub(crate) output: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct AccuracyArgs {
    /// The input file; `-` reads standard input.
    pub(crate) input: PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The suite file.
    #[arg(default_value = "toolgate.yaml")]
    pub(crate) suite: PathBuf,

    /// A report format; repeat it for several reports from one run. Each `--output` writes
    /// the `--format` just before it; a format without one goes to standard output.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub(crate) format: Vec<Format>,

    /// Write the report of the `--format` before it to this file, atomically: a failed run
    /// never leaves half a file. Without any `--format`, the file's extension names the
    /// format (`.json`, `.xml` for JUnit, `.md`, `.txt`).
    #[arg(long, value_name = "FILE")]
    pub(crate) output: Vec<PathBuf>,

    /// How to read trace files.
    #[command(flatten)]
    pub(crate) read: ReadArgs,

    /// Check only shard K of N (from 1): the suite's 1st, (1+N)th, (1+2N)th... test for
    /// K = 1, and so on. The JSON report then carries what `toolgate merge` needs.
    #[arg(long, value_name = "K/N")]
    pub(crate) shard: Option<toolgate_expect::Shard>,

    /// Where GitHub Actions collects the job summary; set by the runner. With
    /// `--format github`, toolgate appends its Markdown summary there.
    #[arg(long, env = "GITHUB_STEP_SUMMARY", value_name = "FILE", hide = true)]
    pub(crate) step_summary: Option<PathBuf>,

    /// Look for the default traces of each test (`<DIR>/<slug>/`, `<DIR>/<slug>.json`,
    /// `<DIR>/<slug>.jsonl`) here instead of in `traces/` next to the suite. Tests that
    /// name their `traces:` are not affected.
    #[arg(long, value_name = "DIR")]
    pub(crate) traces_dir: Option<PathBuf>,

    /// Threads that parse and score the runs: with 1, one thread reads, parses and scores
    /// them in turn; with N of 2 or more, one thread reads each trace file in parts of up to
    /// 32 runs and N others parse and score whole parts, the outcomes folded in file order.
    /// The reports are the same bytes whatever N. Default: 1 for a test whose traces hold
    /// less than 4 MiB, otherwise as many as the cores, at most 2. At most 256; when the
    /// system refuses a thread, the ones that started do the work.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub(crate) threads: Option<u16>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// A report for people.
    Text,
    /// A versioned, byte-stable JSON document.
    Json,
    /// JUnit XML for CI test reporters (GitHub, GitLab, Jenkins): a testcase per test.
    Junit,
    /// GitHub Actions annotations on the suite's lines, then the text report; with
    /// `GITHUB_STEP_SUMMARY` set, the Markdown summary is appended there too.
    Github,
    /// A Markdown summary, for a pull-request comment or another CI's job summary.
    Markdown,
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}

/// Where one report goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReportTarget {
    pub(crate) format: Format,
    /// `None` for standard output.
    pub(crate) path: Option<PathBuf>,
}

/// Pairs each `--output` with the `--format` just before it on the command line.
///
/// Without any `--format` the report is text on standard output, or each `--output` file's
/// format is the one its extension names (`.json`, `.xml`, `.md`, `.txt`). A format without an output goes to standard
/// output, and only one may.
pub(crate) fn report_targets(matches: &clap::ArgMatches) -> Result<Vec<ReportTarget>, String> {
    let Some(check) = matches
        .subcommand_matches("check")
        .or_else(|| matches.subcommand_matches("merge"))
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
        let merge = matches.subcommand_name() == Some("merge");
        if outputs.is_empty() {
            return Ok(vec![ReportTarget {
                format: Format::Text,
                path: None,
            }]);
        }
        // Without `--format`, each file's extension names its format, so that
        // `--output report.json` never holds a text report.
        return outputs
            .into_iter()
            .map(|(_, path)| {
                Format::from_extension(&path)
                    .filter(|format| !merge || matches!(format, Format::Text | Format::Json))
                    .map(|format| ReportTarget {
                        format,
                        path: Some(path.clone()),
                    })
                    .ok_or_else(|| {
                        format!(
                            "cannot tell the format of `--output {}` from its extension ({}); \
                             write `--format FORMAT --output FILE`",
                            path.display(),
                            if merge {
                                "`.json` or `.txt`"
                            } else {
                                "`.json`, `.xml`, `.md` or `.txt`"
                            }
                        )
                    })
            })
            .collect();
    }
    let mut targets: Vec<ReportTarget> = formats
        .iter()
        .map(|&(_, format)| ReportTarget { format, path: None })
        .collect();
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
    Ok(targets)
}

/// The formats `merge` writes: a merged report has each test's verdict and gates, but the
/// runs' details stay in the shard reports.
fn merge_formats() -> impl TypedValueParser<Value = Format> {
    PossibleValuesParser::new(["text", "json"]).map(|name| {
        if name == "json" {
            Format::Json
        } else {
            Format::Text
        }
    })
}

impl Format {
    /// The format an `--output` file's extension names, if it names one.
    pub(crate) fn from_extension(path: &std::path::Path) -> Option<Self> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "json" => Some(Self::Json),
            "xml" => Some(Self::Junit),
            "md" | "markdown" => Some(Self::Markdown),
            "txt" | "text" | "log" => Some(Self::Text),
            _ => None,
        }
    }

    /// The format's name on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Json => "json",
            Self::Junit => "junit",
            Self::Github => "github",
            Self::Markdown => "markdown",
        }
    }
}
