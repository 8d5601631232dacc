//! The `cohere` format: a Cohere v2 chat response, `{id, message: {role: assistant,
//! tool_plan?, tool_calls?, content?}, finish_reason}`.
//!
//! The message's `tool_calls` are the calls (`function.name`, `function.arguments` as a
//! JSON string), all in step 0. A response holds no results. Its `usage.tokens` is the
//! run's usage (docs/formats.md#usage-and-time). Cohere's v2 request bodies
//! (`messages` with `tool_calls` and `role: tool` results) have the Chat Completions shape
//! and are read as `openai-chat`.

use serde_json::Value;

use crate::formats::{Adapter, Converter, Record, RecordError, open_call, str_field, usage};
use crate::model::Run;

pub(crate) struct Cohere;

impl Adapter for Cohere {
    fn name(&self) -> &'static str {
        "cohere"
    }

    fn expects(&self) -> &'static str {
        "a Cohere v2 chat response: `{id, message: {role, tool_plan?, tool_calls?}, \
         finish_reason}`"
    }

    fn detect(&self, first: &Value) -> bool {
        let Some(message) = first.get("message").filter(|m| m.is_object()) else {
            return false;
        };
        // Cohere writes `finish_reason` in capitals (`TOOL_CALL`, `COMPLETE`).
        str_field(message, "role") == Some("assistant")
            && first.get("finish_reason").is_some_and(Value::is_string)
            && first.get("type").is_none()
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(CohereConverter)
    }
}

struct CohereConverter;

impl Converter for CohereConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        let value = record.value()?;
        let mut run = Run::default();
        let tool_calls = value
            .get("message")
            .and_then(|message| message.get("tool_calls"))
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for (index, tool_call) in tool_calls.iter().enumerate() {
            let function = tool_call.get("function").unwrap_or(tool_call);
            let name = str_field(function, "name").ok_or_else(|| {
                RecordError::Shape(format!(
                    "a tool call without a `name` at `message.tool_calls[{index}]`"
                ))
            })?;
            run.calls.push(open_call(
                None,
                name.to_owned(),
                function.get("arguments"),
                0,
            ));
        }
        add_usage(&mut run, &value)?;
        Ok(vec![run])
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        Vec::new()
    }
}

/// A response's usage: `usage.tokens` (`input_tokens`, which counts the `cached_tokens`
/// beside it, and `output_tokens`), the tokens the model read and wrote; `billed_units`
/// leaves out what Cohere does not bill, such as the system prompt it adds. A v2 response
/// does not name its model.
fn add_usage(run: &mut Run, response: &Value) -> Result<(), RecordError> {
    let Some(recorded) = response.get("usage") else {
        return Ok(());
    };
    let Some(tokens) = recorded.get("tokens") else {
        return Ok(());
    };
    if let Some(tokens) = usage::tokens(
        tokens,
        &["input_tokens"],
        &["output_tokens"],
        Some(recorded),
        &["cached_tokens"],
    )? {
        usage::add(&mut run.usage, None, tokens);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
