//! The `openai-agents` format: the `OpenAI` Agents SDK's trace export
//! (docs/formats.md#openai-agents-sdk-traces). Each span is exported as
//! `{object: "trace.span", id, trace_id, parent_id, started_at, ended_at, span_data, error}`
//! (the SDK's `Span.export()`), next to `{object: "trace", id, workflow_name, ...}` records;
//! a file holds them one per line, in a JSON array, or as the ingest body `{data: [...]}`.
//! A file is one run.
//!
//! A `function` span is a call: its `name`, the arguments from `input` (JSON text), the
//! result from `output`, the server from `mcp_data.server`, an error when `error` is set.
//! Its agent is the `name` of its nearest ancestor `agent` span; a function span under no
//! agent span belongs to the agent the last handoff before it went to (`to_agent`). A step
//! is one model response (a `generation` or `response` span): a call takes the step of the
//! last one that started before it. Calls are in start order, then file order.
//!
//! Usage: each `generation` span's `usage` (`input_tokens`, or `prompt_tokens`; its
//! `input_tokens_details.cached_tokens`; `output_tokens`, or `completion_tokens`) under the
//! span's `model`; a `response` span's export keeps only the response's id, so runs of the
//! Responses API record no usage. Times: the run spans its spans' `started_at` to their
//! `ended_at`, and a call is its function span's (docs/formats.md#usage-and-time).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::formats::export::export_time;
use crate::formats::{
    Adapter, Converter, Record, RecordError, complete, open_call, str_field, usage,
};
use crate::model::{Interval, Run, Status, Usage};

pub(crate) struct OpenAiAgents;

impl Adapter for OpenAiAgents {
    fn name(&self) -> &'static str {
        "openai-agents"
    }

    fn expects(&self) -> &'static str {
        "an OpenAI Agents SDK trace export: records `{object: \"trace.span\", id, trace_id, \
         parent_id, started_at, ended_at, span_data: {type, ...}, error}` (and `{object: \
         \"trace\", ...}`), one per line, in a JSON array, or as `{data: [...]}`"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(items) => items.first().is_some_and(is_record),
            other => {
                is_record(other)
                    || other
                        .get("data")
                        .and_then(Value::as_array)
                        .and_then(|items| items.first())
                        .is_some_and(is_record)
            }
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(AgentsConverter::default())
    }
}

/// A span (`object: "trace.span"` with its `span_data`) or a trace (`object: "trace"` with
/// its `workflow_name`).
fn is_record(value: &Value) -> bool {
    match str_field(value, "object") {
        Some("trace.span") => value.get("span_data").is_some_and(Value::is_object),
        Some("trace") => value.get("workflow_name").is_some() && value.get("id").is_some(),
        _ => false,
    }
}

/// One span as read.
#[derive(Debug)]
struct Span {
    id: Option<String>,
    parent: Option<String>,
    start: Option<i64>,
    /// The span's start and end, when it records both.
    time: Option<Interval>,
    data: Value,
    ended: bool,
    error: Option<Value>,
}

#[derive(Debug, Default)]
struct AgentsConverter {
    spans: Vec<Span>,
    /// The `generation` spans' usage, per model.
    usage: Usage,
    /// From the first span's start to the last one's end.
    time: Option<Interval>,
}

impl Converter for AgentsConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        match record.value()? {
            Value::Array(items) => {
                for (index, item) in items.into_iter().enumerate() {
                    self.item(item, &format!("[{index}]"))?;
                }
            }
            other if is_record(&other) => self.item(other, "")?,
            Value::Object(mut object) => {
                if let Some(Value::Array(items)) = object.remove("data") {
                    for (index, item) in items.into_iter().enumerate() {
                        self.item(item, &format!("data[{index}]"))?;
                    }
                }
            }
            _ => {}
        }
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        let mut run = run_of(&self.spans);
        run.usage = self.usage;
        run.time = self.time;
        vec![run]
    }
}

impl AgentsConverter {
    fn item(&mut self, mut item: Value, path: &str) -> Result<(), RecordError> {
        if str_field(&item, "object") != Some("trace.span") {
            // Trace records and anything else carry no calls.
            return Ok(());
        }
        let Some(data) = item.get_mut("span_data").map(Value::take) else {
            return Err(RecordError::Shape(format!(
                "a span without `span_data` at `{}`",
                if path.is_empty() { "the record" } else { path }
            )));
        };
        if !data.is_object() {
            return Err(RecordError::Shape(format!(
                "a span whose `span_data` is not an object at `{}`",
                if path.is_empty() { "the record" } else { path }
            )));
        }
        if str_field(&data, "type") == Some("generation")
            && let Some(read) = data.get("usage").filter(|u| u.is_object())
            && let Some(tokens) = usage::tokens(
                read,
                &["input_tokens", "prompt_tokens"],
                &["output_tokens", "completion_tokens"],
                read.get("input_tokens_details"),
                &["cached_tokens"],
            )?
        {
            usage::add(&mut self.usage, str_field(&data, "model"), tokens);
        }
        let time = |key: &str| str_field(&item, key).and_then(span_time);
        let (started, ended) = (time("started_at"), time("ended_at"));
        if let Some(start) = started {
            usage::widen(&mut self.time, start, ended.unwrap_or(start));
        }
        let text = |key: &str| str_field(&item, key).map(str::to_owned);
        self.spans.push(Span {
            id: text("id"),
            parent: text("parent_id"),
            start: started,
            time: usage::interval(started, ended),
            ended: item.get("ended_at").is_some_and(|end| !end.is_null()),
            error: item.get("error").filter(|error| !error.is_null()).cloned(),
            data,
        });
        Ok(())
    }
}

/// A span's `started_at` or `ended_at` as the SDK writes it, `datetime.isoformat()` in UTC
/// (`2025-06-02T09:14:02.104511+00:00`), in nanoseconds since the epoch; any other offset
/// is read as written, and a time without one as UTC. The calls' order and their times
/// read the same value.
fn span_time(text: &str) -> Option<i64> {
    export_time(text)
}

/// The run of a file's spans.
fn run_of(spans: &[Span]) -> Run {
    let index: BTreeMap<&str, usize> = spans
        .iter()
        .enumerate()
        .filter_map(|(i, span)| Some((span.id.as_deref()?, i)))
        .collect();
    let agents = nearest_agents(spans, &index);
    let mut order: Vec<(bool, i64, usize)> = spans
        .iter()
        .enumerate()
        .map(|(i, span)| (span.start.is_none(), span.start.unwrap_or(0), i))
        .collect();
    order.sort_unstable();
    let mut run = Run::default();
    let mut responses: u32 = 0;
    let mut handed_to: Option<String> = None;
    for (_, _, i) in order {
        let span = &spans[i];
        match str_field(&span.data, "type") {
            Some("generation" | "response") => responses = responses.saturating_add(1),
            Some("handoff") => {
                if let Some(to) = str_field(&span.data, "to_agent") {
                    handed_to = crate::formats::agent_name(to);
                }
            }
            Some("function") => {
                let Some(name) = str_field(&span.data, "name").filter(|name| !name.is_empty())
                else {
                    continue;
                };
                let server = span
                    .data
                    .get("mcp_data")
                    .and_then(|mcp| str_field(mcp, "server"))
                    .map(str::to_owned);
                let step = responses.saturating_sub(1);
                let mut call = open_call(server, name.to_owned(), span.data.get("input"), step);
                call.agent = agents[i].map(str::to_owned).or_else(|| handed_to.clone());
                call.time = span.time;
                let output = span.data.get("output").filter(|output| !output.is_null());
                if output.is_some() || span.error.is_some() || span.ended {
                    let status = if span.error.is_some() {
                        Status::Error
                    } else {
                        Status::Ok
                    };
                    let result = output.cloned().or_else(|| {
                        let error = span.error.as_ref()?;
                        Some(
                            error
                                .get("message")
                                .cloned()
                                .unwrap_or_else(|| error.clone()),
                        )
                    });
                    complete(&mut call, result, status);
                }
                run.calls.push(call);
            }
            _ => {}
        }
    }
    run
}

/// The name of each span's nearest ancestor `agent` span (the span itself excluded).
/// Linear whatever the parent links (a long chain, a loop): each span is settled once.
fn nearest_agents<'s>(spans: &'s [Span], index: &BTreeMap<&str, usize>) -> Vec<Option<&'s str>> {
    let agent_name = |i: usize| {
        let data = &spans[i].data;
        (str_field(data, "type") == Some("agent"))
            .then(|| str_field(data, "name"))
            .flatten()
            .filter(|name| !name.is_empty())
    };
    let parent = |i: usize| {
        spans[i]
            .parent
            .as_deref()
            .and_then(|id| index.get(id).copied())
    };
    // 0: not yet, 1: on the current path, 2: settled.
    let mut state = vec![0_u8; spans.len()];
    let mut found: Vec<Option<&str>> = vec![None; spans.len()];
    let mut path = Vec::new();
    for start in 0..spans.len() {
        let mut node = start;
        let answer = loop {
            if state[node] == 2 {
                break found[node];
            }
            state[node] = 1;
            path.push(node);
            let Some(next) = parent(node) else {
                break None;
            };
            if let Some(name) = agent_name(next) {
                break Some(name);
            }
            if state[next] == 1 {
                break None;
            }
            node = next;
        };
        for settled in path.drain(..) {
            state[settled] = 2;
            found[settled] = answer;
        }
    }
    found
}

#[cfg(test)]
mod tests;
