//! Writing a run back in trailgate's own call-list shape, one JSON line per run: what
//! `trailgate convert` prints, and what trailgate reads back unchanged.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

use crate::model::{Run, Status};

#[derive(Serialize)]
struct Line<'a> {
    source: &'a str,
    format: &'a str,
    /// Written only when the trace recorded usage, so that other runs' lines are unchanged.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    usage: BTreeMap<&'a str, TokensEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    started_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ended_at: Option<String>,
    tool_calls: Vec<Entry<'a>>,
}

#[derive(Serialize)]
#[expect(
    clippy::struct_field_names,
    reason = "the keys of the trace format, as written"
)]
struct TokensEntry {
    input_tokens: u64,
    output_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    cached_input_tokens: Option<u64>,
}

#[derive(Serialize)]
struct Entry<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    server: Option<&'a str>,
    args: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    args_raw: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    status: Status,
    step: u32,
    /// Written only when false: an entry of the call list is a completed call otherwise.
    #[serde(skip_serializing_if = "is_true")]
    completed: bool,
    /// Written only when the trace names the call's agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    started_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ended_at: Option<String>,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes fields by reference"
)]
fn is_true(value: &bool) -> bool {
    *value
}

/// Nanoseconds since the epoch in RFC 3339, in UTC, with as many digits of a second as
/// it takes to say it exactly (so that it reads back the same).
fn rfc3339(nanos: i64) -> String {
    jiff::Timestamp::from_nanosecond(i128::from(nanos))
        .map_or_else(|_| nanos.to_string(), |stamp| stamp.to_string())
}

/// Writes `run`, read from `source`, as one line of trailgate's call-list shape.
pub fn write_run(run: &Run, source: &str, out: &mut dyn Write) -> io::Result<()> {
    let line = Line {
        source,
        format: run.format,
        usage: run
            .usage
            .models
            .iter()
            .map(|(model, tokens)| {
                (
                    model.as_str(),
                    TokensEntry {
                        input_tokens: tokens.input,
                        output_tokens: tokens.output,
                        cached_input_tokens: tokens.cached_input,
                    },
                )
            })
            .collect(),
        started_at: run.time.map(|time| rfc3339(time.start_ns)),
        ended_at: run.time.map(|time| rfc3339(time.end_ns)),
        tool_calls: run
            .calls
            .iter()
            .map(|call| Entry {
                name: &call.name,
                server: call.server.as_deref(),
                args: call.args(),
                args_raw: call.args_raw.as_deref(),
                result: call.result(),
                status: call.status,
                step: call.step,
                completed: call.completed,
                agent: call.agent.as_deref(),
                started_at: call.time.map(|time| rfc3339(time.start_ns)),
                ended_at: call.time.map(|time| rfc3339(time.end_ns)),
            })
            .collect(),
    };
    serde_json::to_writer(&mut *out, &line)?;
    writeln!(out)
}
