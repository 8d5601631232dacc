//! `trailgate`: score recorded AI-agent tool-call traces and gate CI on the result.
//!
//! This crate is the only one that reads the environment and the terminal, writes to
//! stdout and stderr, and picks the exit code; the work itself is `trailgate_run`'s. It is a
//! library with one entry point, [`run`], so that the `trailgate` binary and the Python
//! package's console script run the same command line, and [`parse`] gives a front end that
//! calls `trailgate_run` itself the options a command line asks for, with the same usage
//! errors (docs/ARCHITECTURE.md).

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use clap::{CommandFactory, FromArgMatches};

mod cli;
mod console;
mod diagnostic;
mod exit;
mod init;
mod signals;

use crate::cli::{Cli, Command};
pub use crate::console::Console;
use trailgate_report::escape_terminal;
use trailgate_run::{CheckOptions, Input, Output, TraceOptions};

/// Parses the command line `args` as [`run`] does, the report targets included: the
/// command line and its `--format`/`--output` pairs.
fn parse_command_line<I, T>(args: I) -> Result<(Cli, Vec<trailgate_run::ReportTarget>), clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let matches = Cli::command().try_get_matches_from(args)?;
    let cli = Cli::from_arg_matches(&matches)?;
    if let Command::Init(args) = &cli.command
        && args.from.is_empty()
        && args.read.given()
    {
        return Err(cli::usage_error(
            &matches,
            "`--trace-format`, `--naming`, `--servers` and `--naming-pattern` say how \
             `init --from` reads its runs; give `--from PATH`"
                .to_owned(),
        ));
    }
    if let Command::Compare(args) = &cli.command
        && !args.label.is_empty()
        && args.label.len() != args.reports.len()
    {
        return Err(cli::usage_error(
            &matches,
            format!(
                "`--label` is given {} for {} reports; give it once per report, in order, or \
                 not at all (each report is then labelled with its file's stem)",
                if args.label.len() == 1 {
                    "once".to_owned()
                } else {
                    format!("{} times", args.label.len())
                },
                args.reports.len()
            ),
        ));
    }
    let targets =
        cli::report_targets(&matches).map_err(|message| cli::usage_error(&matches, message))?;
    Ok((cli, targets))
}

/// The exit code of a clap error: 0 for help and version, 2 for a usage error.
fn clap_code(error: &clap::Error) -> u8 {
    u8::try_from(error.exit_code()).unwrap_or(exit::INVALID)
}

/// Runs the command line `args` (the program's name first, as `std::env::args_os` gives
/// it), writing to `console`'s streams, and returns the exit code: 0 every gate passed, 1
/// a gate failed, 2 invalid input or usage, 4 `check --test`/`-k` selected no test.
pub fn run<I, T>(args: I, console: &mut Console<'_>) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let (cli, targets) = match parse_command_line(args) {
        Ok(parsed) => parsed,
        Err(error) => {
            // clap prints help and version to stdout with exit 0, usage errors to stderr
            // with exit 2; a closed pipe there is not worth a panic either.
            console.clap_error(&error);
            return clap_code(&error);
        }
    };
    let stderr_color = color_for(cli.color, &io::stderr());
    let fail = |console: &mut Console<'_>, report: &miette::Report| {
        let rendered = diagnostic::render(report.as_ref(), stderr_color);
        let _ = console.stderr().write_all(rendered.as_bytes());
        exit::for_error(report)
    };
    let files: Vec<&Path> = targets.iter().filter_map(|t| t.path.as_deref()).collect();
    if !files.is_empty() {
        // The handlers belong to the process: an embedder (the Python package) keeps its own.
        if console.is_process() {
            signals::remove_staged_on_signals();
        }
        // A bad `--output` is refused before a long run is wasted on it; the trace files
        // are checked again once they are known.
        let inputs = match &cli.command {
            Command::Check(args) => vec![args.suite.clone()],
            Command::Merge(args) => args.reports.clone(),
            Command::Diff(args) => vec![args.base.clone(), args.head.clone()],
            Command::Trend(args) => args.reports.clone(),
            Command::Compare(args) => args.reports.clone(),
            _ => Vec::new(),
        };
        if let Err(error) = trailgate_run::check_targets(files, &inputs) {
            return fail(console, &error.into());
        }
    }
    let result = match &cli.command {
        Command::Check(args) => trailgate_run::check(
            &args.suite,
            &args.options(targets, color_for(cli.color, &io::stdout())),
        )
        .map_err(Into::into),
        Command::Accuracy(args) => accuracy(args).map_err(Into::into),
        Command::Convert(args) => {
            trailgate_run::convert(&args.files, &args.read.options()).map_err(Into::into)
        }
        Command::Merge(args) => {
            trailgate_run::merge(&args.reports, &targets, color_for(cli.color, &io::stdout()))
                .map_err(Into::into)
        }
        Command::Diff(args) => trailgate_run::diff(
            &args.base,
            &args.head,
            &targets,
            color_for(cli.color, &io::stdout()),
        )
        .map_err(Into::into),
        Command::Trend(args) => trailgate_run::trend(
            &args.reports,
            args.options(),
            &targets,
            color_for(cli.color, &io::stdout()),
        )
        .map_err(Into::into),
        Command::Compare(args) => trailgate_run::compare(
            &args.reports,
            &args.label,
            args.metric.as_deref(),
            &targets,
            color_for(cli.color, &io::stdout()),
        )
        .map_err(Into::into),
        Command::Init(args) if args.from.is_empty() => init::run(),
        Command::Init(args) => trailgate_run::init_from(&args.options()).map_err(Into::into),
        Command::Schema => Ok(Output {
            stdout: schema_text().into(),
            ..Output::default()
        }),
    };
    let output = match result.and_then(|output| {
        trailgate_run::write_files(&output)
            .map(|()| output)
            .map_err(Into::into)
    }) {
        Ok(output) => output,
        Err(report) => return fail(console, &report),
    };
    for warning in &output.warnings {
        // A warning names files and formats read from traces: shown inert.
        let _ = writeln!(console.stderr(), "warning: {}", escape_terminal(warning));
    }
    let written = match console.stdout_file() {
        Some(mut file) => trailgate_run::write_stdout(&output.stdout, &mut file),
        None => trailgate_run::write_stdout(&output.stdout, console.stdout()),
    };
    match written {
        Ok(()) => exit::for_output(&output),
        // A reader that stopped reading (`| head`) needs no message, but the report was not
        // delivered, so this is not a pass.
        Err(trailgate_run::StdoutError::Closed) => exit::INVALID,
        Err(trailgate_run::StdoutError::Failed(error)) => fail(console, &error.into()),
    }
}

/// `trailgate accuracy INPUT`: the file, or standard input for `-`.
fn accuracy(args: &cli::AccuracyArgs) -> Result<Output, trailgate_run::Error> {
    if args.input.as_os_str() == "-" {
        trailgate_run::accuracy(Input::Stream {
            name: "<stdin>",
            reader: &mut io::stdin(),
        })
    } else {
        trailgate_run::accuracy(Input::File(&args.input))
    }
}

/// What a `check` or `convert` command line asks of `trailgate_run`, for a front end that
/// calls the library itself (the Python package) rather than [`run`].
#[derive(Debug)]
#[non_exhaustive]
pub enum Parsed {
    /// `trailgate check SUITE ...`: `trailgate_run::check(&suite, &options)`.
    Check {
        /// The suite file.
        suite: PathBuf,
        /// The options, the report targets among them.
        options: Box<CheckOptions>,
    },
    /// `trailgate convert FILES ...`: `trailgate_run::convert(&files, &options)`.
    Convert {
        /// The trace files.
        files: Vec<PathBuf>,
        /// How to read them.
        options: TraceOptions,
    },
    /// Another command, which only [`run`] runs.
    Other,
}

/// What [`run`] would have printed on standard error, and its exit code, for a command line
/// or a command it refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The exit code: 2 for invalid input or usage, 4 when the selection selected nothing
    /// (0 for `--help` and `--version`, whose text this is).
    pub code: u8,
    /// The diagnostic, without colour, ending with a newline.
    pub diagnostic: String,
}

/// Parses the command line `args` (the program's name first) exactly as [`run`] does,
/// refusing it with the same usage error. Colour for standard output follows `--color` and
/// the process's terminal.
pub fn parse<I, T>(args: I) -> Result<Parsed, Refused>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let (cli, targets) = parse_command_line(args).map_err(|error| Refused {
        code: clap_code(&error),
        // `StyledStr`'s `Display` leaves the styles out, as for a captured stream.
        diagnostic: error.render().to_string(),
    })?;
    Ok(match cli.command {
        Command::Check(args) => Parsed::Check {
            options: Box::new(args.options(targets, color_for(cli.color, &io::stdout()))),
            suite: args.suite,
        },
        Command::Convert(args) => Parsed::Convert {
            options: args.read.options(),
            files: args.files,
        },
        _ => Parsed::Other,
    })
}

/// What [`run`] prints, without colour, and the exit code it gives when `trailgate_run`
/// refuses a command with `error`.
pub fn refused(error: &trailgate_run::Error) -> Refused {
    Refused {
        code: exit::for_run_error(error),
        diagnostic: diagnostic::render(error, false),
    }
}

/// The exit code [`run`] gives for a command that ran: 1 when a gate failed, 0 otherwise.
pub fn exit_code(output: &Output) -> u8 {
    exit::for_output(output)
}

/// The suite's JSON Schema, pretty-printed with a trailing newline.
fn schema_text() -> Vec<u8> {
    let mut text = serde_json::to_vec_pretty(&trailgate_expect::suite_schema()).unwrap_or_default();
    text.push(b'\n');
    text
}

/// Whether to colour a stream: `--color` when given, otherwise only on a terminal and
/// never when `NO_COLOR` is set.
fn color_for<S: anstream::stream::RawStream>(choice: cli::ColorWhen, stream: &S) -> bool {
    match choice {
        cli::ColorWhen::Always => true,
        cli::ColorWhen::Never => false,
        // anstream's choice looks at the terminal, `NO_COLOR` and `CLICOLOR_FORCE`.
        cli::ColorWhen::Auto => !matches!(
            anstream::AutoStream::choice(stream),
            anstream::ColorChoice::Never
        ),
    }
}
