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

use serde_json::{Map, Value};

use crate::formats::{
    Adapter, CallLog, Converter, Record, RecordError, complete, id_field, open_call, result_value,
    str_field,
};
use crate::model::{Run, Status};

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
    if messages.is_empty() {
        return events_run(list(sample, "events"), &format!("{path}."));
    }
    let mut log = CallLog::default();
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
                    log.push(id_field(tool_call, "id"), call);
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
                    log.calls.push(call);
                }
            }
            _ => {}
        }
    }
    Ok(log.into_run())
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
                }
                run.calls.push(call);
            }
            _ => {}
        }
    }
    Ok(run)
}

#[cfg(test)]
mod tests;
