//! The `langfuse` format: a Langfuse trace export, `{trace, observations}` (the UI's
//! "download trace" and the API's trace with its observations), or a list of them.
//!
//! Each trace is a run. Its `TOOL` observations are the calls, in start order: the name
//! from `gen_ai.tool.name` in the observation's metadata attributes (else the observation's
//! name, without the `running tool: ` prefix that pydantic-ai's spans carry), arguments
//! from `input`, result from `output`, `error` for `level: ERROR`. A step is one
//! `GENERATION`: a tool takes the step of the last generation that started before it. The
//! agent is the `gen_ai.agent.name` attribute of the observation or of its nearest ancestor
//! (by `parentObservationId`) that has one (docs/formats.md#agents).
//!
//! Langfuse's bulk exports hold one observation per row instead: the blob storage export's
//! JSON Lines (`trace_id`, `start_time`, ...) and the API's observations (`traceId`,
//! `startTime`, ...), one per line or as a list. Their rows are grouped by trace id into runs
//! (`export.rs`), as the same export's Parquet file is (`columnar.rs`): each `GENERATION`'s
//! usage details, read as the trace export's are, add to its trace's usage under its
//! `provided_model_name` (else `model`), and a trace spans its rows' start and end times.

use serde_json::Value;

use crate::formats::export::{
    Kind, ToolRow, Traces, export_time, langfuse_details, langfuse_model, langfuse_tool_name,
    text_value,
};
use crate::formats::otel::iso_nanos;
use crate::formats::{
    Adapter, Converter, Record, RecordError, complete, open_call, str_field, usage,
};
use crate::model::{Run, Status, Tokens};

pub(crate) struct Langfuse;

impl Adapter for Langfuse {
    fn name(&self) -> &'static str {
        "langfuse"
    }

    fn expects(&self) -> &'static str {
        "a Langfuse trace export: `{trace, observations: [{type: SPAN | GENERATION | TOOL, \
         ...}]}`, a trace with its `observations`, or a list of them; or an observations \
         export, one `{trace_id, type, start_time, ...}` per line"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(traces) => traces
                .first()
                .is_some_and(|first| is_export(first) || is_observation(first)),
            other => is_export(other) || is_observation(other),
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(LangfuseConverter::default())
    }
}

/// A field written in snake case (the blob storage export) or camel case (the API).
fn either<'v>(value: &'v Value, snake: &str, camel: &str) -> Option<&'v Value> {
    value
        .get(snake)
        .or_else(|| value.get(camel))
        .filter(|value| !value.is_null())
}

/// One observation of an observations export: a `type`, a trace id and a start time, and
/// no `observations` of its own.
fn is_observation(value: &Value) -> bool {
    value.get("observations").is_none()
        && value.get("type").is_some_and(Value::is_string)
        && either(value, "trace_id", "traceId").is_some_and(Value::is_string)
        && either(value, "start_time", "startTime").is_some()
}

/// `{trace, observations}`, or a trace holding its observations: observations are objects
/// with a `type` and a `traceId` (an empty list says nothing either way).
fn is_export(value: &Value) -> bool {
    let Some(Value::Array(observations)) = value.get("observations") else {
        return false;
    };
    let observed = observations
        .first()
        .is_some_and(|first| first.get("type").is_some() && first.get("traceId").is_some());
    observed || (observations.is_empty() && value.get("trace").is_some_and(Value::is_object))
}

/// Converts traces with their observations as they come, and holds the rows of an
/// observations export until the end of the file.
#[derive(Default)]
struct LangfuseConverter {
    rows: Traces,
}

impl Converter for LangfuseConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        match record.value()? {
            Value::Array(items) if items.first().is_some_and(is_observation) => {
                for (index, item) in items.iter().enumerate() {
                    self.observation(item, &format!("[{index}]"))?;
                }
                Ok(Vec::new())
            }
            Value::Array(traces) => traces
                .iter()
                .enumerate()
                .filter(|(_, trace)| is_export(trace))
                .map(|(index, trace)| trace_run(trace, &format!("[{index}].")))
                .collect(),
            trace if is_export(&trace) => Ok(vec![trace_run(&trace, "")?]),
            row if is_observation(&row) => {
                self.observation(&row, "the observation")?;
                Ok(Vec::new())
            }
            _ => Ok(Vec::new()),
        }
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        self.rows.into_runs()
    }
}

impl LangfuseConverter {
    /// Adds one row of an observations export; `path` names it in errors.
    fn observation(&mut self, row: &Value, path: &str) -> Result<(), RecordError> {
        if !is_observation(row) {
            return Ok(());
        }
        let trace = either(row, "trace_id", "traceId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let kind = Kind::langfuse(str_field(row, "type").unwrap_or_default());
        let time = |snake, camel| {
            either(row, snake, camel)
                .and_then(Value::as_str)
                .and_then(export_time)
        };
        let start = time("start_time", "startTime");
        let end = time("end_time", "endTime");
        self.rows.widen(&trace, start, end);
        if kind == Kind::Model
            && let Some(tokens) = generation_tokens(row)?
        {
            let model = langfuse_model(
                either(row, "provided_model_name", "providedModelName").and_then(Value::as_str),
                str_field(row, "model"),
            );
            self.rows.add_usage(&trace, model, tokens);
        }
        let tool = if kind == Kind::Tool {
            let (server, name) = langfuse_tool_name(str_field(row, "name"), row.get("metadata"));
            let name = name.ok_or_else(|| {
                RecordError::Shape(format!("a `TOOL` observation without a name at `{path}`"))
            })?;
            let message = either(row, "status_message", "statusMessage").cloned();
            Some(ToolRow {
                server,
                name,
                start,
                end,
                input: row.get("input").filter(|input| !input.is_null()).cloned(),
                output: row
                    .get("output")
                    .filter(|output| !output.is_null())
                    .map(|output| match output {
                        Value::String(text) => text_value(text),
                        other => other.clone(),
                    }),
                failed: str_field(row, "level") == Some("ERROR"),
                message,
            })
        } else {
            None
        };
        self.rows.push(trace, start, kind, tool);
        Ok(())
    }
}

fn trace_run(trace: &Value, path: &str) -> Result<Run, RecordError> {
    let observations = match trace.get("observations") {
        Some(Value::Array(observations)) => observations.as_slice(),
        _ => &[][..],
    };
    // Start time (observations without one last), then file order.
    let mut order: Vec<(bool, u64, usize)> = observations
        .iter()
        .enumerate()
        .map(|(index, observation)| {
            let start = str_field(observation, "startTime").and_then(iso_nanos);
            (start.is_none(), start.unwrap_or(0), index)
        })
        .collect();
    order.sort_unstable();
    let agents = observation_agents(observations);
    let mut run = Run::default();
    let mut generations: u32 = 0;
    for (_, _, index) in order {
        let Some(observation) = observations.get(index) else {
            continue;
        };
        let time = |key: &str| {
            str_field(observation, key)
                .and_then(iso_nanos)
                .and_then(|nanos| i64::try_from(nanos).ok())
        };
        let (start, end) = (time("startTime"), time("endTime"));
        if let Some(start) = start {
            usage::widen(&mut run.time, start, end.unwrap_or(start));
        }
        match str_field(observation, "type") {
            Some("GENERATION") => {
                generations = generations.saturating_add(1);
                if let Some(tokens) = generation_tokens(observation)? {
                    usage::add(&mut run.usage, str_field(observation, "model"), tokens);
                }
            }
            Some("TOOL") => {
                let attributes = observation
                    .get("metadata")
                    .and_then(|metadata| metadata.get("attributes"));
                let attribute = |key: &str| attributes.and_then(|a| str_field(a, key));
                let name = attribute("gen_ai.tool.name")
                    .or_else(|| {
                        str_field(observation, "name")
                            .map(|name| name.strip_prefix("running tool: ").unwrap_or(name))
                    })
                    .filter(|name| !name.is_empty())
                    .ok_or_else(|| {
                        RecordError::Shape(format!(
                            "a `TOOL` observation without a name at `{path}observations[{index}]`"
                        ))
                    })?;
                let server = attribute("mcp.server.name").map(str::to_owned);
                let step = generations.saturating_sub(1);
                let mut call = open_call(server, name.to_owned(), observation.get("input"), step);
                call.agent = agents.get(index).copied().flatten().map(str::to_owned);
                let output = observation.get("output").filter(|output| !output.is_null());
                let failed = str_field(observation, "level") == Some("ERROR");
                let ended = observation.get("endTime").is_some_and(|end| !end.is_null());
                if output.is_some() || failed || ended {
                    let status = if failed { Status::Error } else { Status::Ok };
                    let result = output.cloned().or_else(|| {
                        observation
                            .get("statusMessage")
                            .filter(|m| !m.is_null())
                            .cloned()
                    });
                    complete(&mut call, result, status);
                    call.time = usage::interval(start, end);
                }
                run.calls.push(call);
            }
            _ => {}
        }
    }
    Ok(run)
}

/// The `gen_ai.agent.name` of an observation's metadata attributes, when non-empty.
fn own_agent(observation: &Value) -> Option<&str> {
    observation
        .get("metadata")
        .and_then(|metadata| metadata.get("attributes"))
        .and_then(|attributes| str_field(attributes, "gen_ai.agent.name"))
        .filter(|name| !name.is_empty())
}

/// The agent of each observation: its own `gen_ai.agent.name`, else its nearest ancestor's.
/// Linear in the observations, whatever their parent links (a long chain, a loop): each
/// observation is settled once.
fn observation_agents(observations: &[Value]) -> Vec<Option<&str>> {
    let mut index = std::collections::BTreeMap::new();
    for (i, observation) in observations.iter().enumerate() {
        if let Some(id) = str_field(observation, "id") {
            index.entry(id).or_insert(i);
        }
    }
    let parent = |i: usize| {
        str_field(&observations[i], "parentObservationId").and_then(|id| index.get(id).copied())
    };
    // 0: not yet, 1: on the current path, 2: settled.
    let mut state = vec![0_u8; observations.len()];
    let mut agents: Vec<Option<&str>> = vec![None; observations.len()];
    let mut path = Vec::new();
    for start in 0..observations.len() {
        let mut node = start;
        let answer = loop {
            if state[node] == 2 {
                break agents[node];
            }
            if state[node] == 1 {
                break None;
            }
            if let Some(agent) = own_agent(&observations[node]) {
                break Some(agent);
            }
            state[node] = 1;
            path.push(node);
            match parent(node) {
                Some(next) => node = next,
                None => break None,
            }
        };
        for settled in path.drain(..) {
            state[settled] = 2;
            agents[settled] = answer;
        }
        if own_agent(&observations[node]).is_some() && state[node] != 2 {
            state[node] = 2;
            agents[node] = answer;
        }
    }
    agents
}

/// A generation's tokens: its usage details (`usageDetails`, or the blob storage export's
/// `usage_details`) as [`langfuse_details`] reads them; without them the older `usage`
/// object (`input`, `output`). `None` when it records no token
/// (docs/formats.md#usage-and-time).
fn generation_tokens(observation: &Value) -> Result<Option<Tokens>, RecordError> {
    if let Some(Value::Object(details)) = either(observation, "usage_details", "usageDetails")
        && !details.is_empty()
    {
        return langfuse_details(details);
    }
    match observation.get("usage") {
        Some(usage) if usage.is_object() => {
            usage::tokens(usage, &["input"], &["output"], None, &[])
        }
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests;
