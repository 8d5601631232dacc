//! The `openhands` format: an `OpenHands` event stream, the list of events its server and
//! `--save-trajectory-path` write (`[{id, source, action | observation, ...}]`), or the same
//! events one per line.
//!
//! An action event with `tool_call_metadata` is a call: its name is `function_name`, its
//! arguments those the model gave (the matching `tool_calls` entry of the metadata's
//! `model_response`), else the action's `args`. The observation whose `cause` is the
//! action's `id` (or with the same `tool_call_id`) answers it. The events of one model
//! response (one `model_response.id`) are one step.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::formats::{
    Adapter, Converter, Record, RecordError, complete, id_field, open_call, str_field,
};
use crate::model::{Call, Run, Status};

pub(crate) struct OpenHands;

impl Adapter for OpenHands {
    fn name(&self) -> &'static str {
        "openhands"
    }

    fn expects(&self) -> &'static str {
        "an OpenHands event stream: a list (or JSON Lines) of events `{id, source, action | \
         observation, tool_call_metadata?, ...}`"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(events) => events.first().is_some_and(is_event),
            other => is_event(other),
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(OpenHandsConverter::default())
    }
}

fn is_event(value: &Value) -> bool {
    value.get("id").is_some()
        && value.get("source").is_some_and(Value::is_string)
        && (value.get("action").is_some_and(Value::is_string)
            || value.get("observation").is_some_and(Value::is_string))
}

#[derive(Default)]
struct OpenHandsConverter {
    calls: Vec<Call>,
    /// The call of each action event id, and of each tool call id.
    by_event: BTreeMap<String, usize>,
    by_call_id: BTreeMap<String, usize>,
    /// The step of each model response id, and the steps begun.
    responses: BTreeMap<String, u32>,
    steps: u32,
}

impl Converter for OpenHandsConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        match record.value()? {
            Value::Array(events) => {
                for (index, event) in events.iter().enumerate() {
                    self.event(event, &format!("[{index}]"))?;
                }
            }
            event => self.event(&event, "")?,
        }
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        vec![Run {
            calls: self.calls,
            format: "",
            line: None,
            ..Default::default()
        }]
    }
}

impl OpenHandsConverter {
    fn event(&mut self, event: &Value, path: &str) -> Result<(), RecordError> {
        let metadata = event
            .get("tool_call_metadata")
            .filter(|metadata| metadata.is_object());
        if event.get("action").is_some_and(Value::is_string) {
            let Some(metadata) = metadata else {
                return Ok(());
            };
            let name = str_field(metadata, "function_name").ok_or_else(|| {
                RecordError::Shape(format!(
                    "`tool_call_metadata` without a `function_name` at `{path}`"
                ))
            })?;
            let call_id = id_field(metadata, "tool_call_id");
            let response = metadata.get("model_response");
            let step = self.step(response.and_then(|response| id_field(response, "id")));
            let args = call_id
                .as_deref()
                .and_then(|id| model_arguments(response, id))
                .or_else(|| event.get("args"));
            let index = self.calls.len();
            self.calls
                .push(open_call(None, name.to_owned(), args, step));
            if let Some(id) = id_field(event, "id") {
                self.by_event.insert(id, index);
            }
            if let Some(id) = call_id {
                self.by_call_id.insert(id, index);
            }
        } else if let Some(kind) = str_field(event, "observation") {
            let by_cause = id_field(event, "cause").and_then(|cause| self.by_event.remove(&cause));
            let by_id = metadata
                .and_then(|metadata| id_field(metadata, "tool_call_id"))
                .and_then(|id| self.by_call_id.get(&id).copied());
            let Some(call) = by_cause
                .or(by_id)
                .and_then(|index| self.calls.get_mut(index))
            else {
                return Ok(());
            };
            if call.completed {
                return Ok(());
            }
            let result = event
                .get("content")
                .filter(|content| !content.is_null())
                .cloned();
            complete(call, result, status(event, kind));
        }
        Ok(())
    }

    fn step(&mut self, response: Option<String>) -> u32 {
        if let Some(step) = response.as_ref().and_then(|id| self.responses.get(id)) {
            return *step;
        }
        let step = self.steps;
        self.steps = self.steps.saturating_add(1);
        if let Some(id) = response {
            self.responses.insert(id, step);
        }
        step
    }
}

/// The arguments the model gave to the call `id`, from the model response the metadata
/// keeps.
fn model_arguments<'v>(response: Option<&'v Value>, id: &str) -> Option<&'v Value> {
    response?
        .get("choices")?
        .as_array()?
        .iter()
        .filter_map(|choice| choice.get("message")?.get("tool_calls")?.as_array())
        .flatten()
        .find(|tool_call| id_field(tool_call, "id").as_deref() == Some(id))?
        .get("function")?
        .get("arguments")
}

/// An `error` observation, `success: false` or a non-zero `exit_code` is an error; `success:
/// true` or exit code 0 is ok; otherwise unknown.
fn status(event: &Value, kind: &str) -> Status {
    if kind == "error" {
        return Status::Error;
    }
    if let Some(success) = event.get("success").and_then(Value::as_bool) {
        return if success { Status::Ok } else { Status::Error };
    }
    let exit_code = event
        .get("extras")
        .and_then(|extras| extras.get("metadata"))
        .and_then(|metadata| metadata.get("exit_code"))
        .and_then(Value::as_i64);
    match exit_code {
        Some(0) => Status::Ok,
        Some(_) => Status::Error,
        None => Status::Unknown,
    }
}

#[cfg(test)]
mod tests;
