//! Helpers shared by the adapters' unit tests: read a text through the public reader,
//! summarise a run's calls and usage, and check a bad token count's error.

use crate::formats::usage::rfc3339_ns;
use crate::{ReadOptions, Run, Status, TraceError, read_trace};

/// Reads `text` with `options`: the format detected, and the runs.
pub(crate) fn read_with(
    text: &str,
    lines: bool,
    options: &ReadOptions,
) -> Result<(&'static str, Vec<Run>), TraceError> {
    let mut runs = Vec::new();
    let format = read_trace("t", text.as_bytes(), lines, options, |run| runs.push(run))?.format;
    Ok((format, runs))
}

/// Reads `text` with the default options.
pub(crate) fn read(text: &str, lines: bool) -> Result<(&'static str, Vec<Run>), TraceError> {
    read_with(text, lines, &ReadOptions::default())
}

/// `(server.name, step, completed, status)` of each call.
pub(crate) fn summary(run: &Run) -> Vec<(String, u32, bool, Status)> {
    run.calls
        .iter()
        .map(|call| {
            let id = match &call.server {
                Some(server) => format!("{server}.{}", call.name),
                None => call.name.clone(),
            };
            (id, call.step, call.completed, call.status)
        })
        .collect()
}

/// `(model, input, output, cached input)` of each model of a run's usage.
pub(crate) fn usage(run: &Run) -> Vec<(String, u64, u64, Option<u64>)> {
    run.usage
        .models
        .iter()
        .map(|(model, tokens)| {
            (
                model.clone(),
                tokens.input,
                tokens.output,
                tokens.cached_input,
            )
        })
        .collect()
}

/// The nanoseconds of an RFC 3339 timestamp, for expected times.
pub(crate) fn ns(text: &str) -> i64 {
    rfc3339_ns(text).unwrap()
}

/// Asserts that reading `text` fails on the token count `key`, whose value is `shown`
/// (`-1`, `1.5`, `18446744073709551616`...): an input error, not a silent count.
#[track_caller]
pub(crate) fn assert_bad_count(text: &str, lines: bool, key: &str, shown: &str) {
    match read(text, lines) {
        Err(TraceError::Shape { message, .. }) => assert!(
            message.contains(&format!("the token count `{key}` is {shown}")),
            "{message}"
        ),
        other => panic!("expected a bad token count `{key}`, got {other:?}"),
    }
}
