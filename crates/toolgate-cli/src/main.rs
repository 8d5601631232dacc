//! `toolgate`: score recorded AI-agent tool-call traces and gate CI on the result.
//!
//! This crate is the only one that reads files, the environment and the terminal, writes
//! to stdout and stderr, and picks the exit code. It is a library with one entry point,
//! [`run`], so that the `toolgate` binary and the Python package run the same command line;
//! this file is the library's root until the `check` pipeline moves into a crate of its own
//! (docs/ARCHITECTURE.md).

use std::ffi::OsString;
use std::io;
use std::path::Path;

use clap::{CommandFactory, FromArgMatches};

mod accuracy;
mod check;
mod cli;
mod console;
mod convert;
mod deliver;
mod diagnostic;
mod discover;
mod exit;
mod init;
mod input;
mod merge;
mod output;
mod pairing;

use crate::cli::{Cli, Command};
pub use crate::console::Console;
use toolgate_report::escape_terminal;

/// Runs the command line `args` (the program's name first, as `std::env::args_os` gives
/// it), writing to `console`'s streams, and returns the exit code: 0 every gate passed, 1
/// a gate failed, 2 invalid input or usage, 4 `check --test`/`-k` selected no test.
pub fn run<I, T>(args: I, console: &mut Console<'_>) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let parsed = Cli::command()
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches).map(|cli| (cli, matches)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => {
            // clap prints help and version to stdout with exit 0, usage errors to stderr
            // with exit 2; a closed pipe there is not worth a panic either.
            console.clap_error(&error);
            return u8::try_from(error.exit_code()).unwrap_or(exit::INVALID);
        }
    };
    let targets = match cli::report_targets(&matches) {
        Ok(targets) => targets,
        Err(message) => {
            let error = cli::usage_error(&matches, message);
            console.clap_error(&error);
            return exit::INVALID;
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
            deliver::remove_staged_on_signals();
        }
        // A bad `--output` is refused before a long run is wasted on it; the trace files
        // are checked again once they are known.
        let inputs = match &cli.command {
            Command::Check(args) => vec![args.suite.clone()],
            Command::Merge(args) => args.reports.clone(),
            _ => Vec::new(),
        };
        if let Err(report) = deliver::check_targets(files, &inputs) {
            return fail(console, &report);
        }
    }
    let result = match &cli.command {
        Command::Check(args) => check::run(args, &targets, color_for(cli.color, &io::stdout())),
        Command::Accuracy(args) => accuracy::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Merge(args) => merge::run(args, &targets, color_for(cli.color, &io::stdout())),
        Command::Init => init::run(),
        Command::Schema => Ok(output::Output {
            stdout: schema_text().into(),
            ..output::Output::default()
        }),
    };
    let output = match result.and_then(|output| deliver::write_files(&output).map(|()| output)) {
        Ok(output) => output,
        Err(report) => return fail(console, &report),
    };
    for warning in &output.warnings {
        // A warning names files and formats read from traces: shown inert.
        let _ = writeln!(console.stderr(), "warning: {}", escape_terminal(warning));
    }
    match deliver::write_stdout(&output.stdout, console.stdout()) {
        Ok(()) => output.code,
        // A reader that stopped reading (`| head`) needs no message, but the report was not
        // delivered, so this is not a pass.
        Err(deliver::StdoutError::Closed) => exit::INVALID,
        Err(deliver::StdoutError::Failed(report)) => fail(console, &report),
    }
}

/// The suite's JSON Schema, pretty-printed with a trailing newline.
fn schema_text() -> Vec<u8> {
    let mut text = serde_json::to_vec_pretty(&toolgate_expect::suite_schema()).unwrap_or_default();
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
