//! The rows of Langfuse's and LangSmith's bulk exports, one observation or run per row, and
//! how they become runs: grouped by trace id, tool rows as calls in start order, a step per
//! model row (docs/formats.md#bulk-exports); model rows' tokens and every row's times as
//! the run's usage and time (docs/formats.md#usage-and-time). The JSON Lines readers
//! (`langfuse`, `langsmith`) and the Parquet reader (`columnar.rs`) share it, so that they
//! read the same rows alike.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::formats::{RecordError, complete, open_call, result_value, str_field, usage};
use crate::model::{Call, Interval, Run, Status, Tokens, Usage};

/// What a row is, for trailgate: a tool call, a model's answer (which opens a step), or
/// anything else (a span, a chain, an event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Langfuse's `TOOL` observation, LangSmith's `tool` run.
    Tool,
    /// Langfuse's `GENERATION`, LangSmith's `llm` run.
    Model,
    /// Any other row.
    Other,
}

impl Kind {
    /// The kind of a Langfuse observation's `type`.
    pub(crate) fn langfuse(text: &str) -> Self {
        match text {
            "TOOL" => Self::Tool,
            "GENERATION" => Self::Model,
            _ => Self::Other,
        }
    }

    /// The kind of a LangSmith run's `run_type`.
    pub(crate) fn langsmith(text: &str) -> Self {
        match text {
            "tool" => Self::Tool,
            "llm" => Self::Model,
            _ => Self::Other,
        }
    }
}

/// One tool row, read.
#[derive(Debug)]
pub(crate) struct ToolRow {
    pub(crate) server: Option<String>,
    pub(crate) name: String,
    pub(crate) start: Option<i64>,
    pub(crate) end: Option<i64>,
    /// The input: JSON, or text (kept as text when it is not JSON).
    pub(crate) input: Option<Value>,
    /// The output, as the result.
    pub(crate) output: Option<Value>,
    /// Whether the row says the call failed (Langfuse's `level: ERROR`, LangSmith's `error`).
    pub(crate) failed: bool,
    /// What the row says about a failure, the result when there is no output.
    pub(crate) message: Option<Value>,
}

impl ToolRow {
    /// The call, made in `step`.
    pub(crate) fn into_call(self, step: u32) -> Call {
        let mut call = open_call(self.server, self.name, self.input.as_ref(), step);
        call.time = match (self.start, self.end) {
            (Some(start_ns), Some(end_ns)) if end_ns >= start_ns => {
                Some(Interval { start_ns, end_ns })
            }
            _ => None,
        };
        if self.output.is_some() || self.failed || self.end.is_some() {
            let status = if self.failed {
                Status::Error
            } else {
                Status::Ok
            };
            let result = self.output.as_ref().map(result_value).or(self.message);
            complete(&mut call, result, status);
        }
        call
    }
}

/// A text column's value: the JSON it holds, or the text itself when it is not JSON.
pub(crate) fn text_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// A LangSmith run's `outputs`: a tool's output is `{"output": ...}`; that value is the
/// result. Any other object is kept whole.
pub(crate) fn langsmith_output(outputs: Value) -> Option<Value> {
    match outputs {
        Value::Null => None,
        Value::Object(mut fields) if fields.len() == 1 && fields.contains_key("output") => {
            fields.remove("output")
        }
        other => Some(other),
    }
}

/// A timestamp as the exports write it, in nanoseconds since the epoch: RFC 3339
/// (`2025-01-02T03:04:05.123Z`), or a civil time read as UTC (Langfuse's
/// `2025-01-02 03:04:05.123000`, LangSmith's `2025-01-02T03:04:05.123456`).
pub(crate) fn export_time(text: &str) -> Option<i64> {
    let text = text.trim();
    let stamp = match text.parse::<jiff::Timestamp>() {
        Ok(stamp) => stamp,
        Err(_) => text
            .parse::<jiff::civil::DateTime>()
            .ok()?
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()?
            .timestamp(),
    };
    i64::try_from(stamp.as_nanosecond()).ok()
}

/// The step of a tool that started at `start`: the model rows that started at or before it,
/// less one (never below 0); a tool without a start time comes after every model row.
/// `models` is sorted.
pub(crate) fn step_of(models: &[i64], start: Option<i64>) -> u32 {
    let before = start.map_or(models.len(), |start| {
        models.partition_point(|&model| model <= start)
    });
    u32::try_from(before.saturating_sub(1)).unwrap_or(u32::MAX)
}

/// The sort key of a call or a run: its start (none last), then its place in the file.
pub(crate) fn start_key(start: Option<i64>, row: u64) -> (bool, i64, u64) {
    (start.is_none(), start.unwrap_or(0), row)
}

/// The rows of a JSON Lines export, grouped by trace id, until the end of the file.
#[derive(Debug, Default)]
pub(crate) struct Traces {
    traces: BTreeMap<String, Trace>,
    rows: u64,
}

#[derive(Debug, Default)]
struct Trace {
    /// The earliest start of any of its rows.
    first: Option<i64>,
    models: Vec<i64>,
    tools: Vec<(u64, ToolRow)>,
    /// The usage and the span of times its rows record, where the reader reads them.
    usage: Usage,
    time: Option<Interval>,
}

impl Traces {
    /// Adds a row of trace `trace`: its kind and start, and the tool it calls.
    pub(crate) fn push(
        &mut self,
        trace: String,
        start: Option<i64>,
        kind: Kind,
        tool: Option<ToolRow>,
    ) {
        let row = self.rows;
        self.rows += 1;
        let entry = self.traces.entry(trace).or_default();
        entry.first = match (entry.first, start) {
            (Some(first), Some(start)) => Some(first.min(start)),
            (first, start) => first.or(start),
        };
        match (kind, tool) {
            (Kind::Model, _) => entry.models.extend(start),
            (Kind::Tool, Some(tool)) => entry.tools.push((row, tool)),
            _ => {}
        }
    }

    /// Adds a model row's tokens to trace `trace`'s usage, under `model`.
    pub(crate) fn add_usage(&mut self, trace: &str, model: Option<&str>, tokens: Tokens) {
        let entry = self.traces.entry(trace.to_owned()).or_default();
        usage::add(&mut entry.usage, model, tokens);
    }

    /// Widens trace `trace`'s time to cover a row's `start` and `end`.
    pub(crate) fn widen(&mut self, trace: &str, start: Option<i64>, end: Option<i64>) {
        if start.is_none() && end.is_none() {
            return;
        }
        let entry = self.traces.entry(trace.to_owned()).or_default();
        widen_row(&mut entry.time, start, end);
    }

    /// The runs: one per trace id, in order of their earliest start (none last), then trace
    /// id.
    pub(crate) fn into_runs(self) -> Vec<Run> {
        let mut traces: Vec<(String, Trace)> = self.traces.into_iter().collect();
        traces.sort_by(|(a_id, a), (b_id, b)| {
            (a.first.is_none(), a.first, a_id).cmp(&(b.first.is_none(), b.first, b_id))
        });
        traces
            .into_iter()
            .map(|(id, mut trace)| {
                trace.models.sort_unstable();
                trace
                    .tools
                    .sort_by_key(|(row, tool)| start_key(tool.start, *row));
                let calls = trace
                    .tools
                    .into_iter()
                    .map(|(_, tool)| {
                        let step = step_of(&trace.models, tool.start);
                        tool.into_call(step)
                    })
                    .collect();
                Run {
                    calls,
                    trace_id: (!id.is_empty()).then_some(id),
                    usage: trace.usage,
                    time: trace.time,
                    ..Run::default()
                }
            })
            .collect()
    }
}

/// Widens a trace's `time` to cover a row's `start` and `end`: a row with only one of them
/// is that instant, a row with neither leaves it as it is.
pub(crate) fn widen_row(time: &mut Option<Interval>, start: Option<i64>, end: Option<i64>) {
    if let Some(start) = start.or(end) {
        usage::widen(time, start, end.unwrap_or(start));
    }
}

/// A Langfuse generation's tokens from its usage details' counts, `(key, count)`: the
/// `input*` keys (`input`, `input_cached_tokens`, `input_audio`...) are input, those of them
/// naming a cache read (`cache`, not a cache creation or write) are also cached, the
/// `output*` keys are output; others (`total`, `reasoning_tokens`) are not read. `None`
/// when no input or output key has a count.
pub(crate) fn langfuse_tokens<'k>(
    counts: impl IntoIterator<Item = (&'k str, u64)>,
) -> Option<Tokens> {
    let mut tokens = Tokens::default();
    let mut any = false;
    for (key, count) in counts {
        if key.starts_with("input") {
            any = true;
            tokens.input = tokens.input.saturating_add(count);
            if key.contains("cache") && !key.contains("creation") && !key.contains("write") {
                tokens.cached_input = Some(tokens.cached_input.unwrap_or(0).saturating_add(count));
            }
        } else if key.starts_with("output") {
            any = true;
            tokens.output = tokens.output.saturating_add(count);
        }
    }
    any.then_some(tokens)
}

/// [`langfuse_tokens`] of a usage details object as JSON writes it: each count a whole
/// number ([`usage::count`]; `null` is no count), or an error naming the key.
pub(crate) fn langfuse_details(
    details: &serde_json::Map<String, Value>,
) -> Result<Option<Tokens>, RecordError> {
    let mut counts = Vec::with_capacity(details.len());
    for (key, value) in details {
        if let Some(count) = usage::count_of(key, Some(value))? {
            counts.push((key.as_str(), count));
        }
    }
    Ok(langfuse_tokens(counts))
}

/// The model of a Langfuse generation: the model name the application gave
/// (`provided_model_name`), else `model`; an empty name is none.
pub(crate) fn langfuse_model<'m>(
    provided: Option<&'m str>,
    model: Option<&'m str>,
) -> Option<&'m str> {
    provided
        .filter(|name| !name.is_empty())
        .or_else(|| model.filter(|name| !name.is_empty()))
}

/// The model of a LangSmith `llm` run, from its `outputs` and `extra`: the one its response
/// names (`outputs.llm_output.model_name`), else the one it asked for
/// (`extra.metadata.ls_model_name`, else `extra.invocation_params`' `model` or
/// `model_name`).
pub(crate) fn langsmith_model<'v>(
    outputs: Option<&'v Value>,
    extra: Option<&'v Value>,
) -> Option<&'v str> {
    let answered = outputs
        .and_then(|outputs| outputs.get("llm_output"))
        .and_then(|output| str_field(output, "model_name"));
    let metadata = extra.and_then(|extra| extra.get("metadata"));
    let params = extra.and_then(|extra| extra.get("invocation_params"));
    answered
        .or_else(|| metadata.and_then(|metadata| str_field(metadata, "ls_model_name")))
        .or_else(|| params.and_then(|params| str_field(params, "model")))
        .or_else(|| params.and_then(|params| str_field(params, "model_name")))
}

/// A Langfuse tool's name and server: `gen_ai.tool.name` and `mcp.server.name` in its
/// metadata (or the metadata's `attributes`, as OpenTelemetry ingestion keeps them), else
/// the observation's name without pydantic-ai's `running tool: ` prefix.
pub(crate) fn langfuse_tool_name(
    name: Option<&str>,
    metadata: Option<&Value>,
) -> (Option<String>, Option<String>) {
    let parsed;
    let metadata = match metadata {
        Some(Value::String(text)) => {
            parsed = serde_json::from_str::<Value>(text).ok();
            parsed.as_ref()
        }
        other => other,
    };
    let attribute = |key: &str| {
        let metadata = metadata?;
        metadata
            .get("attributes")
            .and_then(|attributes| attributes.get(key))
            .or_else(|| metadata.get(key))
            .and_then(Value::as_str)
    };
    let name = attribute("gen_ai.tool.name")
        .or_else(|| name.map(|name| name.strip_prefix("running tool: ").unwrap_or(name)))
        .filter(|name| !name.is_empty())
        .map(str::to_owned);
    (attribute("mcp.server.name").map(str::to_owned), name)
}
