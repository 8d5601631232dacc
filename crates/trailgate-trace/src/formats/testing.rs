//! Helpers shared by the adapters' unit tests: read a text through the public reader, and
//! summarise a run's calls.

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
