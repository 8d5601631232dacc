//! GitHub Copilot CLI and SDK session events (`assistant.message` with `toolRequests`,
//! `tool.execution_start`, `tool.execution_complete`), and the flat `message` / `tool_use` /
//! `tool_result` stream the CLI prints instead with Anthropic models.
//!
//! Usage: each `assistant.usage` event (one per model API call: `inputTokens`,
//! `outputTokens`, `cacheReadTokens`, under its `model`); these are ephemeral, so a session
//! file on disk has only its `session.shutdown` event's `modelMetrics` (the session's totals
//! per model), read when no `assistant.usage` is. Times: each event's `timestamp`; a call
//! from the event that made it (its `assistant.message`, or its `tool.execution_start`) to
//! its `tool.execution_complete` (docs/formats.md#usage-and-time).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::formats::{
    Adapter, Converter, Record, RecordError, complete, id_field, open_call, result_value, usage,
};
use crate::model::{Call, Interval, Run, Status, Tokens, Usage};
use crate::naming::Naming;

pub(crate) struct Copilot;

/// The namespaces of session event types (`assistant.message`, `tool.execution_start`, ...).
const NAMESPACES: &[&str] = &[
    "session",
    "user",
    "assistant",
    "tool",
    "subagent",
    "hook",
    "permission",
    "system",
    "skill",
    "mcp",
    "model",
    "abort",
    "command",
    "elicitation",
    "sampling",
    "external_tool",
    "user_input",
    "pending_messages",
];

impl Adapter for Copilot {
    fn name(&self) -> &'static str {
        "copilot"
    }

    fn expects(&self) -> &'static str {
        "Copilot session events, one per line (`{type: assistant.message | \
         tool.execution_start | tool.execution_complete | ..., data}`), or the CLI's flat \
         `message` / `tool_use` / `tool_result` stream"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(items) => items.first().is_some_and(is_session_event),
            other => {
                is_session_event(other)
                    || is_flat_event(other)
                    || other
                        .get("events")
                        .and_then(Value::as_array)
                        .and_then(|events| events.first())
                        .is_some_and(is_session_event)
            }
        }
    }

    fn naming(&self) -> Naming {
        // The model sees `<server>-<tool>` (`env-echo-get_env`); events that carry
        // `mcpServerName` need no split.
        Naming::Dash {
            servers: Vec::new(),
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(CopilotConverter::default())
    }
}

/// A session event: a namespaced `type` and a `data` object.
fn is_session_event(value: &Value) -> bool {
    let namespaced = value
        .get("type")
        .and_then(Value::as_str)
        .and_then(|kind| kind.split_once('.'))
        .is_some_and(|(namespace, _)| NAMESPACES.contains(&namespace));
    namespaced && value.get("data").is_some_and(Value::is_object)
}

/// The first line of the flat stream. An Anthropic Messages response is also `type:
/// message`, but it always has `stop_reason` and a list of content blocks.
fn is_flat_event(value: &Value) -> bool {
    match value.get("type").and_then(Value::as_str) {
        Some("message") => {
            value.get("role").is_some_and(Value::is_string)
                && value.get("content").is_some_and(Value::is_string)
                && value.get("stop_reason").is_none()
        }
        Some("tool_use") => {
            value.get("name").is_some_and(Value::is_string) && value.get("id").is_some()
        }
        Some("tool_result") => value.get("tool_use_id").is_some(),
        _ => false,
    }
}

/// All events of the file are one run; each assistant message is one step.
#[derive(Debug, Default)]
struct CopilotConverter {
    calls: Vec<Call>,
    /// The latest call with each id.
    by_id: BTreeMap<String, usize>,
    /// The number of steps opened so far.
    steps: u32,
    /// In the flat stream: whether a `tool_use` now joins the current step rather than
    /// opening one (it does after an assistant message or another `tool_use`).
    in_step: bool,
    /// The usage of `assistant.usage` events, and the totals of the last `session.shutdown`.
    usage: Usage,
    totals: Option<Usage>,
    /// The time of the event being read, and the span of the events' times.
    now: Option<i64>,
    time: Option<Interval>,
}

impl CopilotConverter {
    fn document(&mut self, value: &Value) -> Result<(), RecordError> {
        let (events, path) = match value {
            Value::Array(items) => (items.as_slice(), ""),
            other => match other.get("events").and_then(Value::as_array) {
                Some(items) if !is_session_event(other) => (items.as_slice(), "events"),
                _ => return self.event(other, ""),
            },
        };
        for (i, event) in events.iter().enumerate() {
            self.event(event, &format!("{path}[{i}]"))?;
        }
        Ok(())
    }

    fn open_step(&mut self) -> u32 {
        let step = self.steps;
        self.steps = self.steps.saturating_add(1);
        step
    }

    fn push(&mut self, id: Option<String>, mut call: Call) {
        // The start is kept as an instant until a timed result ends the call.
        call.time = self.now.map(|now| Interval {
            start_ns: now,
            end_ns: now,
        });
        if let Some(id) = id {
            self.by_id.insert(id, self.calls.len());
        }
        self.calls.push(call);
    }

    /// The unanswered call with this id.
    fn open_call(&mut self, id: Option<&str>) -> Option<&mut Call> {
        let index = *self.by_id.get(id?)?;
        self.calls.get_mut(index).filter(|call| !call.completed)
    }

    fn event(&mut self, event: &Value, path: &str) -> Result<(), RecordError> {
        let Some(kind) = event.get("type").and_then(Value::as_str) else {
            return Ok(());
        };
        let data = event.get("data").filter(|data| data.is_object());
        self.now = usage::time_field(event, "timestamp");
        if let Some(now) = self.now {
            usage::widen(&mut self.time, now, now);
        }
        match (kind, data) {
            ("assistant.message", Some(data)) => self.assistant(data, path),
            ("tool.execution_start", Some(data)) => self.start(data, path),
            ("tool.execution_complete", Some(data)) => {
                let id = id_field(data, "toolCallId");
                let now = self.now;
                if let Some(call) = self.open_call(id.as_deref()) {
                    let (result, status) = outcome(data);
                    complete(call, result, status);
                    call.time = usage::interval(call.time.map(|time| time.start_ns), now);
                }
                Ok(())
            }
            ("assistant.usage", Some(data)) => {
                if let Some(tokens) = copilot_tokens(data)? {
                    usage::add(&mut self.usage, str_of(data, "model"), tokens);
                }
                Ok(())
            }
            ("session.shutdown", Some(data)) => {
                let mut totals = Usage::default();
                if let Some(Value::Object(models)) = data.get("modelMetrics") {
                    for (model, metric) in models {
                        if let Some(tokens) = metric
                            .get("usage")
                            .map(copilot_tokens)
                            .transpose()?
                            .flatten()
                        {
                            usage::add(&mut totals, Some(model), tokens);
                        }
                    }
                }
                self.totals = Some(totals);
                Ok(())
            }
            ("message", _) => {
                self.in_step = event.get("role").and_then(Value::as_str) == Some("assistant");
                if self.in_step {
                    self.open_step();
                }
                Ok(())
            }
            ("tool_use", _) => self.flat_use(event, path),
            ("tool_result", _) => {
                self.in_step = false;
                let id = id_field(event, "tool_use_id");
                if let Some(call) = self.open_call(id.as_deref()) {
                    let status = if event.get("is_error").and_then(Value::as_bool) == Some(true) {
                        Status::Error
                    } else {
                        Status::Ok
                    };
                    complete(call, event.get("content").map(result_value), status);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// An assistant message: one step, its `toolRequests` the calls made in it.
    fn assistant(&mut self, data: &Value, path: &str) -> Result<(), RecordError> {
        let step = self.open_step();
        let requests = data.get("toolRequests").and_then(Value::as_array);
        for (j, request) in requests.into_iter().flatten().enumerate() {
            let (server, name) = identity(request, "name").ok_or_else(|| {
                RecordError::Shape(format!(
                    "a tool request without a `name` at `{}[{j}]`",
                    at(path, "data.toolRequests")
                ))
            })?;
            let call = open_call(server, name, request.get("arguments"), step);
            self.push(id_field(request, "toolCallId"), call);
        }
        Ok(())
    }

    /// The start of a tool's execution: it names the MCP server and tool of a requested
    /// call, or is the only record of a call no assistant message requested.
    fn start(&mut self, data: &Value, path: &str) -> Result<(), RecordError> {
        let id = id_field(data, "toolCallId");
        if let Some(call) = self.open_call(id.as_deref()) {
            if let (Some(server), Some(tool)) =
                (str_of(data, "mcpServerName"), str_of(data, "mcpToolName"))
            {
                call.server = Some(server.to_owned());
                tool.clone_into(&mut call.name);
            }
            let no_args = call.args_raw.is_none()
                && call
                    .args()
                    .as_object()
                    .is_some_and(serde_json::Map::is_empty);
            if no_args && let Some(arguments) = data.get("arguments") {
                let (args, args_raw) = crate::formats::arguments(Some(arguments));
                call.args = args.into();
                call.args_raw = args_raw;
            }
            return Ok(());
        }
        let (server, name) = identity(data, "toolName").ok_or_else(|| {
            RecordError::Shape(format!(
                "a tool execution without a `toolName` at `{}`",
                at(path, "data")
            ))
        })?;
        let step = self.steps.saturating_sub(1);
        let call = open_call(server, name, data.get("arguments"), step);
        self.push(id, call);
        Ok(())
    }

    /// A `tool_use` of the flat stream.
    fn flat_use(&mut self, event: &Value, path: &str) -> Result<(), RecordError> {
        let name = str_of(event, "name").ok_or_else(|| {
            RecordError::Shape(format!(
                "a `tool_use` without a `name` at `{}`",
                at(path, "name")
            ))
        })?;
        if !self.in_step {
            self.open_step();
            self.in_step = true;
        }
        let step = self.steps.saturating_sub(1);
        let call = open_call(None, name.to_owned(), event.get("input"), step);
        self.push(id_field(event, "id"), call);
        Ok(())
    }
}

/// Copilot's token counts: `inputTokens` as input (as Copilot counts them; its schema does
/// not say that they leave the cache reads out, so nothing is added), `outputTokens`,
/// `cacheReadTokens` as cached input.
fn copilot_tokens(usage: &Value) -> Result<Option<Tokens>, RecordError> {
    usage::tokens(
        usage,
        &["inputTokens"],
        &["outputTokens"],
        Some(usage),
        &["cacheReadTokens"],
    )
}

/// A string field.
fn str_of<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

/// `path.key`, for the paths in error messages.
fn at(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// A call's server and tool: `mcpServerName` and `mcpToolName` when the event names the
/// MCP tool, else no server and the name under `key` as the model saw it.
fn identity(value: &Value, key: &str) -> Option<(Option<String>, String)> {
    if let (Some(server), Some(tool)) =
        (str_of(value, "mcpServerName"), str_of(value, "mcpToolName"))
    {
        return Some((Some(server.to_owned()), tool.to_owned()));
    }
    let name = str_of(value, key).or_else(|| str_of(value, "mcpToolName"))?;
    Some((
        str_of(value, "mcpServerName").map(str::to_owned),
        name.to_owned(),
    ))
}

/// The result and status of `tool.execution_complete`: `success: false` or an `error` is
/// an error; the result is `result.content` (else `result.contents`, else `result`), or the
/// error's message when there is no result.
fn outcome(data: &Value) -> (Option<Value>, Status) {
    let error = data.get("error").filter(|error| !error.is_null());
    let failed = data.get("success").and_then(Value::as_bool) == Some(false) || error.is_some();
    let status = if failed { Status::Error } else { Status::Ok };
    let result = match data.get("result").filter(|result| !result.is_null()) {
        Some(result) => Some(
            ["content", "contents"]
                .iter()
                .find_map(|key| result.get(*key).filter(|found| !found.is_null()))
                .map_or_else(|| result_value(result), result_value),
        ),
        None => error.map(|error| match error.get("message") {
            Some(Value::String(message)) => Value::String(message.clone()),
            _ => error.clone(),
        }),
    };
    (result, status)
}

impl Converter for CopilotConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        self.document(&record.value()?)?;
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        let this = *self;
        let mut calls = this.calls;
        // A call no timed result ended has only a start: no duration.
        for call in calls.iter_mut().filter(|call| !call.completed) {
            call.time = None;
        }
        let usage = match this.totals {
            Some(totals) if this.usage.models.is_empty() => totals,
            _ => this.usage,
        };
        vec![Run {
            calls,
            format: "",
            line: None,
            usage,
            time: this.time,
            ..Default::default()
        }]
    }
}

#[cfg(test)]
mod tests;
