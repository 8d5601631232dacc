//! `trailgate accuracy`: seed 004's tool-call accuracy package as a command.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use trailgate_core::check_pairing_size;
use trailgate_expect::{Problem, SuiteError};
use trailgate_report::render_seed_accuracy;
use trailgate_trace::{MAX_DOCUMENT_BYTES, TraceError, parse_accuracy_input, read_text_limited};

use crate::discover::display;
use crate::error::Error;
use crate::output::Output;
use crate::pairing::limits_help;

/// Where [`accuracy`] reads its input: a file, or a stream the front end holds (standard
/// input, which this crate does not reach itself).
pub enum Input<'a> {
    /// The file at this path.
    File(&'a Path),
    /// A stream.
    Stream {
        /// Its name in diagnostics, such as `<stdin>`.
        name: &'a str,
        /// The stream.
        reader: &'a mut dyn Read,
    },
}

/// Reads one JSON object, `{"expected": [...], "actual": [...]}`, from `input`, pairs each
/// expected call with a call made, and returns the accuracy as JSON in [`Output::stdout`]
/// (docs/graders/call-accuracy.md). No suite and no gates: no gate fails.
pub fn accuracy(input: Input<'_>) -> Result<Output, Error> {
    let (name, read) = match input {
        Input::File(path) => (
            display(path),
            File::open(path).and_then(|file| read_text_limited(file, MAX_DOCUMENT_BYTES)),
        ),
        Input::Stream { name, reader } => (
            name.to_owned(),
            read_text_limited(reader, MAX_DOCUMENT_BYTES),
        ),
    };
    let read = read.map_err(|error| TraceError::Io {
        file: name.clone(),
        message: error.to_string(),
    })?;
    let Some(text) = read else {
        return Err(Error::Suite(SuiteError::detached(
            Problem::new(
                "trailgate::accuracy::too_large",
                format!(
                    "`{name}` is larger than {} MiB",
                    MAX_DOCUMENT_BYTES >> 20
                ),
                "",
            )
            .with_help("the input is one JSON document, read whole; score large sets of calls with `trailgate check`, which reads JSON Lines one line at a time"),
        )));
    };
    let input = parse_accuracy_input(&name, &text)?;
    if let Err(error) = check_pairing_size(input.expected.len(), input.actual.len()) {
        return Err(Error::Suite(SuiteError::detached(
            Problem::new(
                "trailgate::accuracy::too_many_calls",
                format!(
                    "`{name}` has {} expected and {} actual calls, too many to pair",
                    error.expected, error.actual
                ),
                "",
            )
            .with_help(limits_help(
                &error,
                "score the calls in smaller sets, such as one per tool (calls of different \
                 tools never pair)",
            )),
        )));
    }
    let mut stdout = Vec::new();
    render_seed_accuracy(&input, &mut stdout)
        .map_err(|error| Error::Message(format!("cannot render the result: {error}")))?;
    Ok(Output {
        stdout: stdout.into(),
        ..Output::default()
    })
}
