//! The `bedrock` format: Amazon Bedrock's Converse API, as a response (`{output: {message},
//! stopReason}`), a request body (`{messages}`) or a list of messages, whose content blocks
//! are keyed by kind (`{text}`, `{toolUse}`, `{toolResult}`) rather than typed.
//!
//! A `toolUse` block is a call (`name`, `input`), answered by the `toolResult` block with the
//! same `toolUseId` (its `content` blocks' text or JSON; `status: "error"` is an error). Each
//! assistant message is a step.

use serde_json::Value;

use crate::formats::{
    Adapter, CallLog, Converter, Record, RecordError, complete, id_field, open_call, str_field,
    usage,
};
use crate::model::{Run, Status};

pub(crate) struct Bedrock;

impl Adapter for Bedrock {
    fn name(&self) -> &'static str {
        "bedrock"
    }

    fn expects(&self) -> &'static str {
        "an Amazon Bedrock Converse response `{output: {message}, stopReason}`, a request \
         body with `messages`, or a list of `{role, content: [{text} | {toolUse} | \
         {toolResult}]}` messages"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(messages) => !messages.is_empty() && messages.iter().all(is_message),
            other => {
                other
                    .get("output")
                    .and_then(|output| output.get("message"))
                    .is_some_and(is_message)
                    || other
                        .get("messages")
                        .and_then(Value::as_array)
                        .is_some_and(|messages| {
                            !messages.is_empty() && messages.iter().all(is_message)
                        })
            }
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(BedrockConverter)
    }
}

/// A Converse message: a `role` and content blocks that are objects with one known key,
/// and no `type`.
fn is_message(message: &Value) -> bool {
    message.get("role").is_some_and(Value::is_string)
        && message
            .get("content")
            .and_then(Value::as_array)
            .is_some_and(|blocks| {
                !blocks.is_empty()
                    && blocks.iter().all(|block| {
                        block.get("type").is_none()
                            && block.as_object().is_some_and(|object| {
                                object.keys().any(|key| {
                                    matches!(
                                        key.as_str(),
                                        "text"
                                            | "toolUse"
                                            | "toolResult"
                                            | "reasoningContent"
                                            | "image"
                                            | "document"
                                            | "cachePoint"
                                    )
                                })
                            })
                    })
            })
}

struct BedrockConverter;

impl Converter for BedrockConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        let value = record.value()?;
        let messages: Vec<&Value> = match &value {
            Value::Array(messages) => messages.iter().collect(),
            other => match other.get("output").and_then(|output| output.get("message")) {
                Some(message) => vec![message],
                None => other
                    .get("messages")
                    .and_then(Value::as_array)
                    .map(|messages| messages.iter().collect())
                    .unwrap_or_default(),
            },
        };
        let mut log = CallLog::default();
        let mut steps: u32 = 0;
        for (index, message) in messages.iter().enumerate() {
            let assistant = str_field(message, "role") == Some("assistant");
            let step = if assistant {
                steps = steps.saturating_add(1);
                steps - 1
            } else {
                steps.saturating_sub(1)
            };
            let blocks = message
                .get("content")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            for (position, block) in blocks.iter().enumerate() {
                if let Some(tool_use) = block.get("toolUse") {
                    let name = str_field(tool_use, "name").ok_or_else(|| {
                        RecordError::Shape(format!(
                            "a `toolUse` without a `name` at `messages[{index}].content[{position}]`"
                        ))
                    })?;
                    let call = open_call(None, name.to_owned(), tool_use.get("input"), step);
                    log.push(id_field(tool_use, "toolUseId"), call);
                } else if let Some(result) = block.get("toolResult")
                    && let Some(id) = id_field(result, "toolUseId")
                    && let Some(call) = log.answer(&id)
                {
                    let status = match str_field(result, "status") {
                        Some("error") => Status::Error,
                        Some("success") => Status::Ok,
                        _ => Status::Unknown,
                    };
                    complete(call, result.get("content").map(result_content), status);
                }
            }
        }
        let mut run = log.into_run();
        // A Converse response's `usage`; it names no model (the request's URL does), so its
        // tokens count under `""`. Cache reads and writes are apart from `inputTokens`, as
        // in Anthropic's usage: input counts them (docs/formats.md#usage-and-time).
        if let Some(counts) = value.get("usage").filter(|usage| usage.is_object())
            && let Some(mut tokens) = usage::tokens(
                counts,
                &["inputTokens"],
                &["outputTokens"],
                Some(counts),
                &["cacheReadInputTokens"],
            )?
        {
            let written = usage::count(counts, "cacheWriteInputTokens")?.unwrap_or(0);
            tokens.input = tokens
                .input
                .saturating_add(tokens.cached_input.unwrap_or(0))
                .saturating_add(written);
            usage::add(&mut run.usage, str_field(&value, "modelId"), tokens);
        }
        Ok(vec![run])
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        Vec::new()
    }
}

/// A `toolResult`'s content: one `{json}` block's value, or the text blocks joined; any
/// other content as it is.
fn result_content(content: &Value) -> Value {
    let Some(blocks) = content.as_array() else {
        return content.clone();
    };
    if let [block] = blocks.as_slice()
        && let Some(json) = block.get("json")
    {
        return json.clone();
    }
    let texts: Option<Vec<&str>> = blocks
        .iter()
        .map(|block| str_field(block, "text"))
        .collect();
    match texts {
        Some(texts) if !texts.is_empty() => Value::String(texts.join("\n")),
        _ => content.clone(),
    }
}

#[cfg(test)]
mod tests;
