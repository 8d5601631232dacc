//! `toolgate`: score recorded AI-agent tool-call traces and gate CI on the result.
//!
//! This crate is the only one that reads files, the environment and the terminal, writes
//! to stdout and stderr, and picks the exit code. It is a library with one entry point,
//! [`run`], so that the `toolgate` binary and the Python package run the same command line;
//! this file is the library's root until the `check` pipeline moves into a crate of its own
//! (docs/ARCHITECTURE.md).

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::Path;

use clap::{CommandFactory, FromArgMatches};

mod accuracy;
mod check;
mod cli;
mod console;
mod convert;
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
use crate::output::Rendered;

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
    let result = result.and_then(|output| {
        // Every report is written to a temporary file beside its target first; only when
        // all of them are written does any replace its target, so a failure leaves every
        // existing report as it was.
        let staged = output
            .files
            .iter()
            .map(|(path, report)| stage(path, report).map(|file| (file, path)))
            .collect::<Result<Vec<_>, _>>()?;
        for (file, path) in staged {
            file.persist(path).map_err(|error| {
                miette::Report::msg(format!(
                    "cannot write `{}`: {}",
                    path.display(),
                    error.error
                ))
            })?;
        }
        for (path, bytes) in &output.appends {
            append(path, bytes)?;
        }
        Ok(output)
    });
    match result {
        Ok(output) => {
            write_stdout(&output.stdout, console.stdout());
            output.code
        }
        Err(report) => {
            let rendered = diagnostic::render(report.as_ref(), stderr_color);
            let _ = console.stderr().write_all(rendered.as_bytes());
            exit::for_error(&report)
        }
    }
}

/// The suite's JSON Schema, pretty-printed with a trailing newline.
fn schema_text() -> Vec<u8> {
    let mut text = serde_json::to_vec_pretty(&toolgate_expect::suite_schema()).unwrap_or_default();
    text.push(b'\n');
    text
}

/// Writes `bytes` to a new temporary file beside `path`, to be renamed into place, so that
/// a reader never sees half a report. Dropped unpersisted, the file is removed.
fn stage(path: &Path, report: &Rendered) -> Result<tempfile::NamedTempFile, miette::Report> {
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let fail = |error: &dyn std::fmt::Display| {
        miette::Report::msg(format!("cannot write `{}`: {error}", path.display()))
    };
    let mut file = tempfile::NamedTempFile::new_in(folder).map_err(|e| fail(&e))?;
    report.write_to(&mut file).map_err(|e| fail(&e))?;
    Ok(file)
}

/// Appends `bytes` to the file at `path`, creating it if needed.
fn append(path: &Path, bytes: &[u8]) -> Result<(), miette::Report> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(|error| {
            miette::Report::msg(format!("cannot append to `{}`: {error}", path.display()))
        })
}

/// Writes the whole report; a reader that closed the pipe early is not an error.
fn write_stdout(report: &Rendered, stdout: &mut dyn Write) {
    let mut stdout = io::BufWriter::new(stdout);
    // The exit code already carries the verdict; a closed pipe (`| head`) or a full disk
    // leaves nothing more to say on a stream that cannot be written.
    let _ = report.write_to(&mut stdout).and_then(|()| stdout.flush());
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
