//! The `openhands` format: an `OpenHands` event stream, the list of events its server and
//! `--save-trajectory-path` write (`[{id, source, action | observation, ...}]`), or the same
//! events one per line.
//!
//! An action event with `tool_call_metadata` is a call: its name is `function_name`, its
//! arguments those the model gave (the matching `tool_calls` entry of the metadata's
//! `model_response`), else the action's `args`. The observation whose `cause` is the
//! action's `id` (or with the same `tool_call_id`) answers it. The events of one model
//! response (one `model_response.id`) are one step.
//!
//! Usage: each model response a call's metadata keeps (`model_response.usage`, once per
//! response `id`, under its `model`); the last `llm_metrics.accumulated_token_usage` is the
//! running total of every response, so what it holds beyond those (responses that made no
//! call) is added under its own `model`. Times: each event's `timestamp`, written without
//! an offset and read as UTC; a call from its action to its observation
//! (docs/formats.md#usage-and-time).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::formats::export::export_time;
use crate::formats::{
    Adapter, Converter, Record, RecordError, complete, id_field, open_call, str_field, usage,
};
use crate::model::{Call, Interval, Run, Status, Tokens, Usage};

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
    /// The usage of the model responses counted, by their ids.
    usage: Usage,
    counted: BTreeSet<String>,
    /// The last `llm_metrics.accumulated_token_usage`: its tokens and model.
    accumulated: Option<(Tokens, Option<String>)>,
    /// The time of each call's action, by call index, and the span of the events' times.
    starts: Vec<Option<i64>>,
    time: Option<Interval>,
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
        let mut usage = self.usage;
        if let Some((total, model)) = self.accumulated {
            add_beyond(&mut usage, total, model.as_deref());
        }
        vec![Run {
            calls: self.calls,
            format: "",
            line: None,
            usage,
            time: self.time,
            ..Default::default()
        }]
    }
}

impl OpenHandsConverter {
    fn event(&mut self, event: &Value, path: &str) -> Result<(), RecordError> {
        let metadata = event
            .get("tool_call_metadata")
            .filter(|metadata| metadata.is_object());
        let now = event
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(export_time);
        if let Some(now) = now {
            usage::widen(&mut self.time, now, now);
        }
        self.usage_of(event, metadata)?;
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
            self.starts.push(now);
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
            let Some(index) = by_cause.or(by_id) else {
                return Ok(());
            };
            let start = self.starts.get(index).copied().flatten();
            let Some(call) = self.calls.get_mut(index) else {
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
            call.time = usage::interval(start, now);
        }
        Ok(())
    }

    /// The usage an event records: its call's model response, the first time its `id` is
    /// seen (an observation repeats its action's metadata), and the running total of
    /// `llm_metrics`.
    fn usage_of(&mut self, event: &Value, metadata: Option<&Value>) -> Result<(), RecordError> {
        if let Some(total) = event
            .get("llm_metrics")
            .and_then(|metrics| metrics.get("accumulated_token_usage"))
            .filter(|total| total.is_object())
            && let Some(tokens) = usage::tokens(
                total,
                &["prompt_tokens"],
                &["completion_tokens"],
                Some(total),
                &["cache_read_tokens"],
            )?
        {
            let model = str_field(total, "model").map(str::to_owned);
            self.accumulated = Some((tokens, model));
        }
        let Some(response) = metadata.and_then(|metadata| metadata.get("model_response")) else {
            return Ok(());
        };
        let Some(recorded) = response.get("usage").filter(|usage| usage.is_object()) else {
            return Ok(());
        };
        let first = match id_field(response, "id") {
            Some(id) => self.counted.insert(id),
            // A response without an id is counted on its action alone.
            None => event.get("action").is_some(),
        };
        if !first {
            return Ok(());
        }
        if let Some(tokens) = usage::tokens(
            recorded,
            &["prompt_tokens"],
            &["completion_tokens"],
            recorded.get("prompt_tokens_details"),
            &["cached_tokens"],
        )? {
            usage::add(&mut self.usage, str_field(response, "model"), tokens);
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

/// Adds to `usage` what the running `total` holds beyond the responses counted, under the
/// total's `model`: the responses that made no call, whose usage only the total keeps.
fn add_beyond(usage: &mut Usage, total: Tokens, model: Option<&str>) {
    let (mut input, mut output, mut cached) = (0_u64, 0_u64, 0_u64);
    for tokens in usage.models.values() {
        input = input.saturating_add(tokens.input);
        output = output.saturating_add(tokens.output);
        cached = cached.saturating_add(tokens.cached_input.unwrap_or(0));
    }
    let beyond = Tokens {
        input: total.input.saturating_sub(input),
        output: total.output.saturating_sub(output),
        cached_input: total.cached_input.map(|total| total.saturating_sub(cached)),
    };
    if beyond.input > 0 || beyond.output > 0 || usage.models.is_empty() {
        usage::add(usage, model, beyond);
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
