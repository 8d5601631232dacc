//! `trailgate accuracy`: seed 004's tool-call accuracy package as a command.

use std::fs;
use std::io;

use miette::Report;
use trailgate_core::check_pairing_size;
use trailgate_expect::{Problem, SuiteError};
use trailgate_report::render_seed_accuracy;
use trailgate_trace::{MAX_DOCUMENT_BYTES, TraceError, parse_accuracy_input, read_text_limited};

use crate::cli::AccuracyArgs;
use trailgate_run::{Output, display, limits_help};

pub(crate) fn run(args: &AccuracyArgs) -> Result<Output, Report> {
    let from_stdin = args.input.as_os_str() == "-";
    let name = if from_stdin {
        "<stdin>".to_owned()
    } else {
        display(&args.input)
    };
    let read = if from_stdin {
        read_text_limited(io::stdin(), MAX_DOCUMENT_BYTES)
    } else {
        fs::File::open(&args.input).and_then(|file| read_text_limited(file, MAX_DOCUMENT_BYTES))
    }
    .map_err(|error| TraceError::Io {
        file: name.clone(),
        message: error.to_string(),
    })?;
    let Some(text) = read else {
        return Err(Report::new(SuiteError::detached(
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
        return Err(Report::new(SuiteError::detached(
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
        .map_err(|error| Report::msg(format!("cannot render the result: {error}")))?;
    Ok(Output {
        stdout: stdout.into(),
        ..Output::default()
    })
}
