//! `GenAI` messages (`{role, parts}`, the values of `gen_ai.input.messages` and
//! `gen_ai.output.messages`): their `tool_call` parts are calls and their
//! `tool_call_response` parts the results. Also `OpenInference`'s flattened messages,
//! rebuilt as `GenAI` messages, and the reading of a recorded tool result, which tool spans
//! share.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{join, shape};
use crate::formats::{
    CallLog, RecordError, complete, id_field, open_call, result_value, str_field,
};
use crate::model::Status;

/// Calls from `{role, parts}` messages: `tool_call` parts are calls, `tool_call_response`
/// parts their results, paired by `id`. A model message (`assistant`, `model`) is a step.
#[derive(Default)]
pub(super) struct Messages {
    pub(super) log: CallLog,
    /// The model messages seen so far.
    responses: u32,
    /// Call ids seen so far: the input messages of a later inference repeat the history.
    ids: BTreeSet<String>,
}

impl Messages {
    pub(super) fn message(&mut self, message: &Value, path: &str) -> Result<(), RecordError> {
        let step = if matches!(str_field(message, "role"), Some("assistant" | "model")) {
            self.responses += 1;
            self.responses - 1
        } else {
            self.responses.saturating_sub(1)
        };
        let parts = message
            .get("parts")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for (i, part) in parts.iter().enumerate() {
            match str_field(part, "type") {
                Some("tool_call") => {
                    let Some(name) = str_field(part, "name").filter(|name| !name.is_empty()) else {
                        return Err(shape(
                            "a `tool_call` part without a `name`",
                            &join(path, &format!("parts[{i}]")),
                        ));
                    };
                    let id = id_field(part, "id");
                    if let Some(id) = &id
                        && !self.ids.insert(id.clone())
                    {
                        continue;
                    }
                    let call = open_call(None, name.to_owned(), part.get("arguments"), step);
                    self.log.push(id, call);
                }
                Some("tool_call_response") => {
                    if let Some(id) = id_field(part, "id")
                        && let Some(call) = self.log.answer(&id)
                    {
                        // The part has no error signal of its own; only an MCP result's
                        // `isError` says anything.
                        let (result, error) = match part.get("response") {
                            Some(response) if !response.is_null() => {
                                let (result, error) = tool_result(response);
                                (Some(result), error)
                            }
                            _ => (None, false),
                        };
                        let status = if error {
                            Status::Error
                        } else {
                            Status::Unknown
                        };
                        complete(call, result, status);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// `OpenInference`'s flattened messages (`llm.input_messages.<i>.message.role`, `.content`,
/// `.tool_calls.<j>.tool_call.{id, function.name, function.arguments}`, `.tool_call_id`),
/// rebuilt as `GenAI` messages in index order: tool calls as `tool_call` parts, a tool
/// message as the `tool_call_response` of its `tool_call_id`.
pub(super) fn flattened_messages(attributes: &BTreeMap<String, Value>, prefix: &str) -> Vec<Value> {
    #[derive(Default)]
    struct Flat {
        role: Option<String>,
        content: Option<Value>,
        call_id: Option<String>,
        calls: BTreeMap<usize, BTreeMap<String, Value>>,
    }
    let mut messages: BTreeMap<usize, Flat> = BTreeMap::new();
    for (key, value) in attributes.range(prefix.to_owned()..) {
        let Some(rest) = key.strip_prefix(prefix) else {
            break;
        };
        let Some((index, field)) = rest.split_once(".message.") else {
            continue;
        };
        let Ok(index) = index.parse::<usize>() else {
            continue;
        };
        let message = messages.entry(index).or_default();
        if let Some(call) = field.strip_prefix("tool_calls.") {
            let Some((j, part)) = call.split_once(".tool_call.") else {
                continue;
            };
            if let Ok(j) = j.parse::<usize>() {
                message
                    .calls
                    .entry(j)
                    .or_default()
                    .insert(part.to_owned(), value.clone());
            }
            continue;
        }
        match field {
            "role" => message.role = value.as_str().map(str::to_owned),
            "content" => message.content = Some(value.clone()),
            "tool_call_id" => {
                message.call_id = match value {
                    Value::String(id) => Some(id.clone()),
                    Value::Number(id) => Some(id.to_string()),
                    _ => None,
                };
            }
            _ => {}
        }
    }
    messages
        .into_values()
        .filter_map(|message| {
            let role = message.role?;
            let mut parts: Vec<Value> = message
                .calls
                .into_values()
                .filter_map(|call| {
                    let name = call.get("function.name")?.clone();
                    Some(serde_json::json!({
                        "type": "tool_call",
                        "id": call.get("id").cloned().unwrap_or(Value::Null),
                        "name": name,
                        "arguments": call.get("function.arguments").cloned().unwrap_or(Value::Null),
                    }))
                })
                .collect();
            if let Some(id) = message.call_id {
                parts.push(serde_json::json!({
                    "type": "tool_call_response",
                    "id": id,
                    "response": message.content.unwrap_or(Value::Null),
                }));
            }
            Some(serde_json::json!({"role": role, "parts": parts}))
        })
        .collect()
}

/// A result as recorded: a JSON string holding an object or a list is parsed (the semconv
/// records structured values as JSON strings where attributes cannot hold them), other text
/// is kept as it is. An MCP `CallToolResult` gives its `structuredContent` or its joined text,
/// and whether `isError` is set.
pub(super) fn tool_result(value: &Value) -> (Value, bool) {
    let parsed = match value {
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(parsed @ (Value::Object(_) | Value::Array(_))) => parsed,
            _ => value.clone(),
        },
        other => other.clone(),
    };
    if let Value::Object(map) = &parsed
        && let Some(content) = map.get("content").filter(|content| content.is_array())
        && map.keys().all(|key| {
            matches!(
                key.as_str(),
                "content" | "structuredContent" | "isError" | "_meta" | "resultType"
            )
        })
    {
        let error = map.get("isError").and_then(Value::as_bool) == Some(true);
        let result = match map.get("structuredContent") {
            Some(structured) if !structured.is_null() => structured.clone(),
            _ => result_value(content),
        };
        return (result, error);
    }
    (result_value(&parsed), false)
}
