//! Writing a run back in trailgate's own call-list shape, one JSON line per run: what
//! `trailgate convert` prints, and what trailgate reads back unchanged.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

use crate::model::{Run, Status};

#[derive(Serialize)]
struct Line<'a> {
    source: &'a str,
    format: &'a str,
    tool_calls: Vec<Entry<'a>>,
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
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes fields by reference"
)]
fn is_true(value: &bool) -> bool {
    *value
}

/// Writes `run`, read from `source`, as one line of trailgate's call-list shape.
pub fn write_run(run: &Run, source: &str, out: &mut dyn Write) -> io::Result<()> {
    let line = Line {
        source,
        format: run.format,
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
            })
            .collect(),
    };
    serde_json::to_writer(&mut *out, &line)?;
    writeln!(out)
}
