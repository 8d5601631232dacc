//! The `gemini-cli` format: Gemini CLI's own session files
//! (`~/.gemini/tmp/<project-hash>/chats/session-*.json`), `{sessionId, projectHash,
//! startTime, lastUpdated, messages}`.
//!
//! A message of `type: "gemini"` is one step; its `toolCalls` are the calls, each with its
//! `result` (the `functionResponse` parts sent back to the model) and `status` (`success`,
//! `error`, `cancelled`) recorded on the call itself, so no pairing is needed.
//!
//! A `gemini` message's `tokens` are its response's usage, under its `model`; the run spans
//! its messages' `timestamp`s. A call records one time (`timestamp`, when its result was
//! written), so it has no duration (docs/formats.md#usage-and-time).

use serde_json::Value;

use crate::formats::{
    Adapter, Converter, Record, RecordError, complete, open_call, str_field, usage,
};
use crate::model::{Run, Status};
use crate::naming::Naming;

pub(crate) struct GeminiCli;

impl Adapter for GeminiCli {
    fn name(&self) -> &'static str {
        "gemini-cli"
    }

    fn expects(&self) -> &'static str {
        "a Gemini CLI session file (`chats/session-*.json`): `{sessionId, projectHash, \
         messages}`, the `gemini` messages carrying `toolCalls`"
    }

    fn detect(&self, first: &Value) -> bool {
        let Some(Value::Array(messages)) = first.get("messages") else {
            return false;
        };
        first.get("sessionId").is_some()
            && (first.get("projectHash").is_some()
                || messages
                    .iter()
                    .any(|message| str_field(message, "type") == Some("gemini")))
    }

    fn naming(&self) -> Naming {
        // Gemini CLI names MCP tools `mcp_<server>_<tool>`, which only a list of servers can
        // split; with no list nothing is split.
        Naming::McpSingle {
            servers: Vec::new(),
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(GeminiCliConverter)
    }
}

struct GeminiCliConverter;

impl Converter for GeminiCliConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        let value = record.value()?;
        let messages = match value.get("messages") {
            Some(Value::Array(messages)) => messages.as_slice(),
            None | Some(Value::Null) => &[][..],
            Some(_) => return Err(RecordError::Shape("`messages` is not a list".to_owned())),
        };
        let mut run = Run::default();
        let mut steps: u32 = 0;
        for (index, message) in messages.iter().enumerate() {
            if let Some(at) = usage::time_field(message, "timestamp") {
                usage::widen(&mut run.time, at, at);
            }
            if str_field(message, "type") != Some("gemini") {
                continue;
            }
            add_usage(&mut run, message)?;
            let step = steps;
            steps = steps.saturating_add(1);
            let calls = match message.get("toolCalls") {
                Some(Value::Array(calls)) => calls.as_slice(),
                None | Some(Value::Null) => &[][..],
                Some(_) => {
                    return Err(RecordError::Shape(format!(
                        "`toolCalls` is not a list at `messages[{index}].toolCalls`"
                    )));
                }
            };
            for (position, tool_call) in calls.iter().enumerate() {
                let name = str_field(tool_call, "name").ok_or_else(|| {
                    RecordError::Shape(format!(
                        "a tool call without a `name` at `messages[{index}].toolCalls[{position}]`"
                    ))
                })?;
                let mut call = open_call(None, name.to_owned(), tool_call.get("args"), step);
                let result = tool_call
                    .get("result")
                    .filter(|result| !result.is_null())
                    .map(result);
                let status = match str_field(tool_call, "status") {
                    Some("success") => Status::Ok,
                    Some("error" | "cancelled") => Status::Error,
                    _ => Status::Unknown,
                };
                if result.is_some() || status != Status::Unknown {
                    complete(&mut call, result, status);
                }
                run.calls.push(call);
            }
        }
        Ok(vec![run])
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        Vec::new()
    }
}

/// A `gemini` message's `tokens`: `input` counts the `cached` ones, as Gemini's
/// `promptTokenCount` does; the `thoughts` are output, as they are billed (as for
/// `usageMetadata`); `tool` (the tool-use prompt) is left out, as there.
fn add_usage(run: &mut Run, message: &Value) -> Result<(), RecordError> {
    let Some(recorded) = message.get("tokens") else {
        return Ok(());
    };
    let Some(tokens) = usage::thinking_tokens(
        recorded,
        &["input"],
        &["output"],
        &["cached"],
        &["thoughts"],
    )?
    else {
        return Ok(());
    };
    usage::add(&mut run.usage, str_field(message, "model"), tokens);
    Ok(())
}

/// A call's result: the `response` of its `functionResponse` part, its `output` or
/// `error` alone when that is all it holds; any other shape as it is.
fn result(value: &Value) -> Value {
    let parts = match value {
        Value::Array(parts) => parts.as_slice(),
        other => std::slice::from_ref(other),
    };
    let responses: Vec<&Value> = parts
        .iter()
        .filter_map(|part| part.get("functionResponse")?.get("response"))
        .collect();
    match responses.as_slice() {
        [response] => match response.as_object() {
            Some(object) if object.len() == 1 => object
                .get("output")
                .or_else(|| object.get("error"))
                .map_or_else(|| (*response).clone(), Clone::clone),
            _ => (*response).clone(),
        },
        _ => value.clone(),
    }
}

#[cfg(test)]
mod tests;
