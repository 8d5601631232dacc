//! The `inspect-ai` format: `inspect_ai` evaluation logs in JSON (`inspect eval ...
//! --log-format json`, or `inspect log convert --to json`): `{version, eval, samples}`.
//!
//! Each sample (one sample at one epoch) is a run. Its `messages` give the calls: an
//! assistant message's `tool_calls` (`function`, `arguments`, `id`), each answered by the
//! `tool` message with its `tool_call_id`, whose `error` (`{type, message}`) makes it an
//! error and whose absence makes it ok. A `tool` message that answers no call in the
//! messages (a log trimmed of them) is still a call, of its `function`, without
//! arguments. Each assistant message is a step. A sample without messages is read from
//! its `tool` events, a `model` event being a step; so is a document of `events` alone.
//!
//! Usage: each `model` event's `output.usage` under the `output.model` the response names
//! (else the event's `model`); a sample whose events record none has its `model_usage`
//! (per model, as Inspect names them). Times: the events' `timestamp` and `completed`; a
//! call from its `tool` event's `timestamp` to its `completed` (docs/formats.md#usage-and-time).

use serde_json::{Map, Value};

use crate::formats::{
    Adapter, CallLog, Converter, Record, RecordError, complete, id_field, open_call, result_value,
    str_field, usage,
};
use crate::model::{Interval, Run, Status, Tokens};

pub(crate) struct InspectAi;

impl Adapter for InspectAi {
    fn name(&self) -> &'static str {
        "inspect-ai"
    }

    fn expects(&self) -> &'static str {
        "an inspect_ai evaluation log in JSON: `{version, eval, samples: [{messages, events}]}`, \
         or `{events: [{event: model | tool | ...}]}`"
    }

    fn detect(&self, first: &Value) -> bool {
        let log = first.get("eval").is_some_and(Value::is_object)
            && (first.get("samples").is_some() || first.get("version").is_some());
        let events = first
            .get("events")
            .and_then(Value::as_array)
            .and_then(|events| events.first())
            .is_some_and(|event| event.get("event").is_some_and(Value::is_string));
        log || events
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(InspectConverter)
    }
}

struct InspectConverter;

impl Converter for InspectConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        let value = record.value()?;
        if value.get("eval").is_some_and(Value::is_object) {
            let samples = match value.get("samples") {
                Some(Value::Array(samples)) => samples.as_slice(),
                None | Some(Value::Null) => &[][..],
                Some(_) => return Err(RecordError::Shape("`samples` is not a list".to_owned())),
            };
            return samples
                .iter()
                .enumerate()
                .map(|(index, sample)| sample_run(sample, &format!("samples[{index}]")))
                .collect();
        }
        Ok(vec![events_run(list(&value, "events"), "")?])
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        Vec::new()
    }
}

fn list<'v>(value: &'v Value, key: &str) -> &'v [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
}

fn sample_run(sample: &Value, path: &str) -> Result<Run, RecordError> {
    let messages = list(sample, "messages");
    let events = list(sample, "events");
    let mut run = if messages.is_empty() {
        events_run(events, &format!("{path}."))?
    } else {
        messages_run(messages, events, path)?
    };
    if run.usage.models.is_empty()
        && let Some(Value::Object(models)) = sample.get("model_usage")
    {
        for (model, recorded) in models {
            if let Some(tokens) = inspect_tokens(recorded)? {
                usage::add(&mut run.usage, Some(model), tokens);
            }
        }
    }
    Ok(run)
}

/// The calls of a sample's messages; their times from its `tool` events, by call id.
fn messages_run(messages: &[Value], events: &[Value], path: &str) -> Result<Run, RecordError> {
    let mut log = CallLog::default();
    // The id of each call, to find its `tool` event.
    let mut ids: Vec<Option<String>> = Vec::new();
    let mut steps: u32 = 0;
    for (index, message) in messages.iter().enumerate() {
        match str_field(message, "role") {
            Some("assistant") => {
                let step = steps;
                steps = steps.saturating_add(1);
                for (position, tool_call) in list(message, "tool_calls").iter().enumerate() {
                    let name = str_field(tool_call, "function").ok_or_else(|| {
                        RecordError::Shape(format!(
                            "a tool call without a `function` at \
                             `{path}.messages[{index}].tool_calls[{position}]`"
                        ))
                    })?;
                    let call = open_call(None, name.to_owned(), tool_call.get("arguments"), step);
                    let id = id_field(tool_call, "id");
                    ids.push(id.clone());
                    log.push(id, call);
                }
            }
            Some("tool") => {
                let result = message.get("content").map(result_value);
                let status = status(message.get("error"));
                let id = id_field(message, "tool_call_id");
                if let Some(call) = id.as_deref().and_then(|id| log.answer(id)) {
                    complete(call, result, status);
                } else if let Some(name) = str_field(message, "function") {
                    let mut call = open_call(None, name.to_owned(), None, steps.saturating_sub(1));
                    complete(&mut call, result, status);
                    ids.push(id);
                    log.calls.push(call);
                }
            }
            _ => {}
        }
    }
    let mut run = log.into_run();
    let mut times = std::collections::BTreeMap::new();
    for event in events {
        if str_field(event, "event") == Some("tool")
            && let Some(id) = id_field(event, "id")
            && let Some(time) = tool_time(event)
        {
            times.insert(id, time);
        }
    }
    for (call, id) in run.calls.iter_mut().zip(&ids) {
        if call.completed {
            call.time = id.as_ref().and_then(|id| times.get(id)).copied();
        }
    }
    usage_and_times(&mut run, events)?;
    Ok(run)
}

/// A `tool` event's time: from its `timestamp` to its `completed`.
fn tool_time(event: &Value) -> Option<Interval> {
    if event.get("pending").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    usage::interval(
        usage::time_field(event, "timestamp"),
        usage::time_field(event, "completed"),
    )
}

/// The run's time (its events' `timestamp` and `completed`) and usage (each `model`
/// event's response, under the model it names).
fn usage_and_times(run: &mut Run, events: &[Value]) -> Result<(), RecordError> {
    for event in events {
        for key in ["timestamp", "completed"] {
            if let Some(at) = usage::time_field(event, key) {
                usage::widen(&mut run.time, at, at);
            }
        }
        if str_field(event, "event") != Some("model")
            || event.get("pending").and_then(Value::as_bool) == Some(true)
        {
            continue;
        }
        let Some(output) = event.get("output").filter(|output| output.is_object()) else {
            continue;
        };
        if let Some(tokens) = output
            .get("usage")
            .map(inspect_tokens)
            .transpose()?
            .flatten()
        {
            let model = str_field(output, "model").or_else(|| str_field(event, "model"));
            usage::add(&mut run.usage, model, tokens);
        }
    }
    Ok(())
}

/// The tokens of an Inspect `ModelUsage`. Its meaning follows the provider: `OpenAI`'s
/// `input_tokens` count the cache reads and its `output_tokens` the reasoning, Anthropic's
/// `input_tokens` leave the cache reads and writes apart, Google's `output_tokens` leave
/// the reasoning apart. `total_tokens` tells which: cache tokens, or reasoning tokens,
/// that the total counts beside input and output are added in. Without a total, the
/// counts are taken as they are.
fn inspect_tokens(recorded: &Value) -> Result<Option<Tokens>, RecordError> {
    let Some(mut tokens) = usage::tokens(
        recorded,
        &["input_tokens"],
        &["output_tokens"],
        Some(recorded),
        &["input_tokens_cache_read"],
    )?
    else {
        return Ok(None);
    };
    let read = tokens.cached_input.unwrap_or(0);
    let write = usage::count(recorded, "input_tokens_cache_write")?.unwrap_or(0);
    let reasoning = usage::count(recorded, "reasoning_tokens")?.unwrap_or(0);
    let Some(total) = usage::count(recorded, "total_tokens")? else {
        return Ok(Some(tokens));
    };
    let base = tokens.input.saturating_add(tokens.output);
    let cache = read.saturating_add(write);
    let with_cache = base.saturating_add(cache);
    let cache_apart =
        cache > 0 && [with_cache, with_cache.saturating_add(reasoning)].contains(&total);
    let reasoning_apart = reasoning > 0
        && [
            base.saturating_add(reasoning),
            with_cache.saturating_add(reasoning),
        ]
        .contains(&total);
    if cache_apart {
        tokens.input = tokens.input.saturating_add(cache);
    }
    if reasoning_apart {
        tokens.output = tokens.output.saturating_add(reasoning);
    }
    Ok(Some(tokens))
}

/// A tool's `error` (`{type, message}`) is an error; none is ok.
fn status(error: Option<&Value>) -> Status {
    if error.is_some_and(|error| !error.is_null()) {
        Status::Error
    } else {
        Status::Ok
    }
}

/// Calls from `tool` events (`{id, function, arguments, result, error}`), a `model` event
/// beginning a step.
fn events_run(events: &[Value], path: &str) -> Result<Run, RecordError> {
    let mut run = Run::default();
    let mut models: u32 = 0;
    for (index, event) in events.iter().enumerate() {
        match str_field(event, "event") {
            Some("model") => models = models.saturating_add(1),
            Some("tool") => {
                let name = str_field(event, "function").ok_or_else(|| {
                    RecordError::Shape(format!(
                        "a `tool` event without a `function` at `{path}events[{index}]`"
                    ))
                })?;
                let args = event
                    .get("arguments")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new()));
                let mut call =
                    open_call(None, name.to_owned(), Some(&args), models.saturating_sub(1));
                let result = event.get("result").filter(|result| !result.is_null());
                let error = event.get("error").filter(|error| !error.is_null());
                let pending = event.get("pending").and_then(Value::as_bool) == Some(true);
                if !pending
                    && (result.is_some() || error.is_some() || event.get("completed").is_some())
                {
                    complete(&mut call, result.map(result_value), status(error));
                    call.time = tool_time(event);
                }
                run.calls.push(call);
            }
            _ => {}
        }
    }
    usage_and_times(&mut run, events)?;
    Ok(run)
}

#[cfg(test)]
mod tests;
