//! `LangChain` messages, as `messages_to_dict` writes them (`[{type: human | ai | tool, data}]`)
//! or as `dumpd` does (`{lc: 1, type: constructor, id: [..., "AIMessage"], kwargs}`): an AI
//! message's `tool_calls` and `invalid_tool_calls`, answered by tool messages. Each AI
//! message's usage adds to the run's; messages carry no times
//! (docs/formats.md#usage-and-time).

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;

use crate::formats::openai_chat::openai_tokens;
use crate::formats::{
    Adapter, Converter, Record, RecordError, complete, id_field, open_call, result_value,
    str_field, usage,
};
use crate::model::{Call, Run, Status, Usage};

pub(crate) struct LangChain;

impl Adapter for LangChain {
    fn name(&self) -> &'static str {
        "langchain"
    }

    fn expects(&self) -> &'static str {
        "a list of LangChain messages, as `messages_to_dict` writes them (`{type: human | ai | \
         tool, data}`) or as `dumpd` does (`{lc: 1, type: constructor, kwargs}`)"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(items) => items.first().is_some_and(|item| message(item).is_some()),
            other => {
                message(other).is_some()
                    || other
                        .get("messages")
                        .and_then(Value::as_array)
                        .and_then(|messages| messages.first())
                        .is_some_and(|item| message(item).is_some())
            }
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(LangChainConverter::default())
    }
}

/// What a message is, as far as calls go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ai,
    Tool,
    Other,
}

/// The `type` values `messages_to_dict` writes (a message's `type`, chunks included).
const TYPES: &[(&str, Kind)] = &[
    ("ai", Kind::Ai),
    ("AIMessageChunk", Kind::Ai),
    ("tool", Kind::Tool),
    ("ToolMessageChunk", Kind::Tool),
    ("human", Kind::Other),
    ("HumanMessageChunk", Kind::Other),
    ("system", Kind::Other),
    ("SystemMessageChunk", Kind::Other),
    ("chat", Kind::Other),
    ("ChatMessageChunk", Kind::Other),
    ("function", Kind::Other),
    ("FunctionMessageChunk", Kind::Other),
    ("remove", Kind::Other),
];

/// A message's kind, the key its fields sit under, and the fields; `None` when `value` is
/// not a `LangChain` message.
fn message(value: &Value) -> Option<(Kind, &'static str, &Value)> {
    let kind = value.get("type").and_then(Value::as_str)?;
    if let Some(data) = value.get("data").filter(|data| data.is_object()) {
        let (_, kind) = TYPES.iter().find(|(name, _)| *name == kind)?;
        return Some((*kind, "data", data));
    }
    // `dumpd`: the class name is the last element of `id`.
    if kind != "constructor" || !value.get("lc").is_some_and(Value::is_number) {
        return None;
    }
    let class = value
        .get("id")
        .and_then(Value::as_array)
        .and_then(|id| id.last())
        .and_then(Value::as_str)
        .filter(|class| class.ends_with("Message") || class.ends_with("MessageChunk"))?;
    let kwargs = value.get("kwargs").filter(|kwargs| kwargs.is_object())?;
    let kind = match class {
        "AIMessage" | "AIMessageChunk" => Kind::Ai,
        "ToolMessage" | "ToolMessageChunk" => Kind::Tool,
        _ => Kind::Other,
    };
    Some((kind, "kwargs", kwargs))
}

/// All messages of the file are one run; each AI message is one step.
#[derive(Debug, Default)]
struct LangChainConverter {
    calls: Vec<Call>,
    /// Calls waiting for a tool message, by id, first made first answered.
    open: BTreeMap<String, VecDeque<usize>>,
    ai_messages: u32,
    usage: Usage,
}

impl LangChainConverter {
    fn document(&mut self, value: &Value) -> Result<(), RecordError> {
        let (items, path) = match value {
            Value::Array(items) => (items.as_slice(), ""),
            other if message(other).is_some() => {
                return self.message(other, "");
            }
            other => match other.get("messages").and_then(Value::as_array) {
                Some(items) => (items.as_slice(), "messages"),
                None => return Ok(()),
            },
        };
        for (i, item) in items.iter().enumerate() {
            self.message(item, &format!("{path}[{i}]"))?;
        }
        Ok(())
    }

    fn message(&mut self, value: &Value, path: &str) -> Result<(), RecordError> {
        let Some((kind, key, fields)) = message(value) else {
            return Ok(());
        };
        let path = if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        };
        match kind {
            Kind::Ai => self.ai(fields, &path),
            Kind::Tool => {
                self.tool(fields);
                Ok(())
            }
            Kind::Other => Ok(()),
        }
    }

    fn ai(&mut self, fields: &Value, path: &str) -> Result<(), RecordError> {
        let step = self.ai_messages;
        self.ai_messages = self.ai_messages.saturating_add(1);
        self.add_usage(fields)?;
        let tool_calls = fields.get("tool_calls").and_then(Value::as_array);
        let invalid = fields.get("invalid_tool_calls").and_then(Value::as_array);
        for (j, call) in tool_calls.into_iter().flatten().enumerate() {
            let name = call.get("name").and_then(Value::as_str).ok_or_else(|| {
                RecordError::Shape(format!(
                    "a tool call without a `name` at `{path}.tool_calls[{j}]`"
                ))
            })?;
            let call_id = id_field(call, "id");
            self.push(
                call_id,
                open_call(None, name.to_owned(), call.get("args"), step),
            );
        }
        // An invalid tool call is one the model made but LangChain could not parse: it
        // keeps its text in `args`, and is an error until a tool message says otherwise.
        // One without a name names no tool and is left out.
        for call in invalid.into_iter().flatten() {
            let Some(name) = call.get("name").and_then(Value::as_str) else {
                continue;
            };
            let mut made = open_call(None, name.to_owned(), call.get("args"), step);
            made.status = Status::Error;
            self.push(id_field(call, "id"), made);
        }
        // Before `tool_calls` existed (langchain-core < 0.2) only the provider's raw calls
        // were kept, OpenAI's shape under `additional_kwargs`.
        if tool_calls.is_none() && invalid.is_none() {
            let raw = fields
                .get("additional_kwargs")
                .and_then(|extra| extra.get("tool_calls"))
                .and_then(Value::as_array);
            for (j, call) in raw.into_iter().flatten().enumerate() {
                let function = call.get("function");
                let name = function
                    .and_then(|function| function.get("name"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        RecordError::Shape(format!(
                            "a tool call without a `function.name` at \
                             `{path}.additional_kwargs.tool_calls[{j}]`"
                        ))
                    })?;
                let args = function.and_then(|function| function.get("arguments"));
                self.push(
                    id_field(call, "id"),
                    open_call(None, name.to_owned(), args, step),
                );
            }
        }
        Ok(())
    }

    /// An AI message's usage: its `usage_metadata` (`input_tokens` sums every kind of input,
    /// cached ones included; `input_token_details.cache_read`), else the provider's
    /// `response_metadata.token_usage` (Chat Completions' shape), under the model its
    /// `response_metadata` names (`model_name`, else `model`). A streamed chunk carries its
    /// part of the usage, so chunks add up to the response's.
    fn add_usage(&mut self, fields: &Value) -> Result<(), RecordError> {
        let metadata = fields.get("response_metadata");
        let tokens = match fields
            .get("usage_metadata")
            .filter(|usage| usage.is_object())
        {
            Some(recorded) => usage::tokens(
                recorded,
                &["input_tokens"],
                &["output_tokens"],
                recorded.get("input_token_details"),
                &["cache_read"],
            )?,
            None => metadata
                .and_then(|metadata| metadata.get("token_usage"))
                .filter(|usage| usage.is_object())
                .map(openai_tokens)
                .transpose()?
                .flatten(),
        };
        if let Some(tokens) = tokens {
            let model = metadata.and_then(|metadata| {
                str_field(metadata, "model_name").or_else(|| str_field(metadata, "model"))
            });
            usage::add(&mut self.usage, model, tokens);
        }
        Ok(())
    }

    fn push(&mut self, id: Option<String>, call: Call) {
        if let Some(id) = id {
            self.open.entry(id).or_default().push_back(self.calls.len());
        }
        self.calls.push(call);
    }

    /// A tool message answers the first open call with its `tool_call_id`.
    fn tool(&mut self, fields: &Value) {
        let Some(id) = id_field(fields, "tool_call_id") else {
            return;
        };
        let Some(index) = self.open.get_mut(&id).and_then(VecDeque::pop_front) else {
            return;
        };
        let Some(call) = self.calls.get_mut(index) else {
            return;
        };
        let status = if fields.get("status").and_then(Value::as_str) == Some("error") {
            Status::Error
        } else {
            Status::Ok
        };
        complete(call, fields.get("content").map(result_value), status);
    }
}

impl Converter for LangChainConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        self.document(&record.value()?)?;
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        vec![Run {
            calls: self.calls,
            format: "",
            line: None,
            usage: self.usage,
            ..Default::default()
        }]
    }
}

#[cfg(test)]
mod tests;
