//! `toolgate`: score recorded AI-agent tool-call traces and gate CI on the result.
//!
//! This crate is the only one that reads files, the environment and the terminal, writes
//! to stdout and stderr, and picks the exit code.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;
use toolgate_report::escape_terminal;

use clap::{CommandFactory, FromArgMatches};

mod accuracy;
mod check;
mod cli;
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

/// mimalloc: scoring allocates and frees small values for every call, and frees on one
/// thread what the reading thread allocated, where the system allocator spends a third of
/// the time (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches).map(|cli| (cli, matches)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => {
            // clap prints help and version to stdout with exit 0, usage errors to stderr
            // with exit 2; a closed pipe there is not worth a panic either.
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(exit::INVALID));
        }
    };
    let targets = match cli::report_targets(&matches) {
        Ok(targets) => targets,
        Err(message) => {
            let error = Cli::command().error(clap::error::ErrorKind::ArgumentConflict, message);
            let _ = error.print();
            return ExitCode::from(exit::INVALID);
        }
    };
    let stderr_color = color_for(cli.color, &io::stderr());
    let fail = |report: &miette::Report| {
        let rendered = diagnostic::render(report.as_ref(), stderr_color);
        let _ = io::stderr().lock().write_all(rendered.as_bytes());
        ExitCode::from(exit::INVALID)
    };
    let files: Vec<&Path> = targets.iter().filter_map(|t| t.path.as_deref()).collect();
    if !files.is_empty() {
        deliver::remove_staged_on_signals();
        // A bad `--output` is refused before a long run is wasted on it; the trace files
        // are checked again once they are known.
        let inputs = match &cli.command {
            Command::Check(args) => vec![args.suite.clone()],
            Command::Merge(args) => args.reports.clone(),
            _ => Vec::new(),
        };
        if let Err(report) = deliver::check_targets(files, &inputs) {
            return fail(&report);
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
        Err(report) => return fail(&report),
    };
    {
        let mut stderr = io::stderr().lock();
        for warning in &output.warnings {
            // A warning names files and formats read from traces: shown inert.
            let _ = writeln!(stderr, "warning: {}", escape_terminal(warning));
        }
    }
    match deliver::write_stdout(&output.stdout) {
        Ok(()) => ExitCode::from(output.code),
        // A reader that stopped reading (`| head`) needs no message, but the report was not
        // delivered, so this is not a pass.
        Err(deliver::StdoutError::Closed) => ExitCode::from(exit::INVALID),
        Err(deliver::StdoutError::Failed(report)) => fail(&report),
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
