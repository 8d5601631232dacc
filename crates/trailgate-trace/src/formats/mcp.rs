//! The `mcp` format: captured MCP JSON-RPC traffic
//! (docs/formats.md#mcp-json-rpc-captures-mcp). Each `tools/call` request is a call,
//! answered by the response with the same `id`; a capture file is one run.
//!
//! Besides bare messages, one per line or in an array, it reads mcp-recorder cassettes
//! (`interactions` of `{request, response}`, the server from `metadata.server_info.name`)
//! and proxy logs that write each message beside its `direction` (under `message`, `data`,
//! `payload`, `msg` or `content`).
//!
//! JSON-RPC has no conversation, so every call is step 0, in capture order. The server is
//! not in the messages, except in `result._meta["io.modelcontextprotocol/serverInfo"]`
//! since MCP 2026-07-28; without it the call has no server, and names are never split,
//! because a `tools/call` names the tool as its server knows it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::equality::args_equal;
use crate::formats::{Adapter, Converter, Record, RecordError, arguments, complete, id_field};
use crate::formats::{open_call, str_field};
use crate::model::{Call, Run, Status};
use crate::naming::Naming;

pub(crate) struct Mcp;

impl Adapter for Mcp {
    fn name(&self) -> &'static str {
        "mcp"
    }

    fn expects(&self) -> &'static str {
        "JSON-RPC 2.0 messages (`{\"jsonrpc\": \"2.0\", \"method\": \"tools/call\", ...}` and the \
         responses with the same `id`), one per line or in a JSON array"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(messages) => messages.first().is_some_and(is_message),
            other => {
                is_message(other)
                    || is_bare_result(other)
                    || is_cassette(other)
                    || logged_message(other).is_some()
            }
        }
    }

    fn naming(&self) -> Naming {
        // `params.name` is the tool's own name on its server; a prefix-looking name
        // (`mcp__a__b`) is still one tool name there.
        Naming::None
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(McpConverter::default())
    }
}

/// An mcp-recorder cassette: `{version, metadata, interactions: [{type, request,
/// response}]}`.
fn is_cassette(value: &Value) -> bool {
    value
        .get("interactions")
        .and_then(Value::as_array)
        .is_some_and(|interactions| {
            interactions.first().is_none_or(|first| {
                first.get("request").is_some() && first.get("response").is_some()
            })
        })
        && value.get("metadata").is_some()
}

/// The keys a logging proxy puts a message under, beside its direction.
const LOGGED_KEYS: &[&str] = &["message", "data", "payload", "msg", "content"];

/// The message of a record logged with its direction (`{direction: "client->server" |
/// "incoming" | ..., message: {jsonrpc, ...}}`, or the message's own fields beside `dir`).
fn logged_message(value: &Value) -> Option<&Value> {
    let object = value.as_object()?;
    if !["direction", "dir"]
        .iter()
        .any(|key| object.get(*key).is_some_and(Value::is_string))
    {
        return None;
    }
    LOGGED_KEYS
        .iter()
        .filter_map(|key| object.get(*key))
        .find(|inner| is_message(inner))
}

/// A JSON-RPC message: a request, a notification or a response.
fn is_message(value: &Value) -> bool {
    value.get("jsonrpc").is_some_and(Value::is_string)
        && (value.get("method").is_some_and(Value::is_string)
            || value.get("result").is_some()
            || value.get("error").is_some())
}

/// A result or error object saved without its JSON-RPC envelope, as the MCP specification's
/// examples are. It answers no request that the file holds, so it reads as a run without
/// calls rather than as an unknown format.
fn is_bare_result(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    // Chat messages and typed events carry these, and may also carry `content`.
    if object.contains_key("role") || object.contains_key("type") {
        return false;
    }
    let result_type = object.get("resultType").is_some_and(Value::is_string);
    let call_result = object.get("content").is_some_and(Value::is_array)
        && (object.get("isError").is_some_and(Value::is_boolean)
            || object.contains_key("structuredContent"));
    let tool_list = object
        .get("tools")
        .and_then(Value::as_array)
        .and_then(|tools| tools.first())
        .is_some_and(|tool| tool.get("inputSchema").is_some());
    let error = object.get("code").is_some_and(Value::is_i64)
        && object.get("message").is_some_and(Value::is_string)
        && object
            .keys()
            .all(|key| matches!(key.as_str(), "code" | "message" | "data"));
    result_type || call_result || tool_list || error
}

/// What a request still waiting for its response was.
#[derive(Debug, Clone, Copy)]
enum Waiting {
    /// A `tools/call`: the index of its call.
    Call(usize),
    /// Any other request. Kept so that its response, whose `id` may equal an open call's
    /// (a server numbers its own requests to the client), is not taken for the call's.
    Other,
}

#[derive(Debug, Default)]
struct McpConverter {
    calls: Vec<Call>,
    /// Requests without a response yet, by id, latest last.
    open: BTreeMap<String, Vec<Waiting>>,
    /// Calls answered with `input_required`, oldest first: the client's retry, a new
    /// request with a new id, continues one of them.
    pending: Vec<usize>,
    /// The server a cassette was recorded against (`metadata.server_info.name`), for the
    /// calls whose responses name none.
    server: Option<String>,
}

impl Converter for McpConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        match record.value()? {
            // A JSON array of messages, or a JSON-RPC batch on one line.
            Value::Array(messages) => {
                for (index, message) in messages.iter().enumerate() {
                    self.message(message, &format!("[{index}]."))?;
                }
            }
            cassette if is_cassette(&cassette) => self.cassette(&cassette)?,
            message => match logged_message(&message) {
                Some(inner) => self.message(inner, "")?,
                None => self.message(&message, "")?,
            },
        }
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        let mut calls = self.calls;
        if let Some(server) = &self.server {
            for call in calls.iter_mut().filter(|call| call.server.is_none()) {
                call.server = Some(server.clone());
            }
        }
        vec![Run {
            calls,
            format: "",
            line: None,
            ..Default::default()
        }]
    }
}

impl McpConverter {
    /// An mcp-recorder cassette: each interaction's request, then its response.
    fn cassette(&mut self, cassette: &Value) -> Result<(), RecordError> {
        self.server = cassette
            .get("metadata")
            .and_then(|metadata| metadata.get("server_info"))
            .and_then(|info| str_field(info, "name"))
            .map(str::to_owned);
        let interactions = cassette
            .get("interactions")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for (index, interaction) in interactions.iter().enumerate() {
            for key in ["request", "response"] {
                if let Some(message) = interaction.get(key).filter(|m| m.is_object()) {
                    self.message(message, &format!("interactions[{index}].{key}."))?;
                }
            }
        }
        Ok(())
    }

    /// Reads one message; `path` locates it in its record for errors.
    fn message(&mut self, message: &Value, path: &str) -> Result<(), RecordError> {
        if let Some(method) = str_field(message, "method") {
            match method {
                "tools/call" => self.request(message, path)?,
                "notifications/cancelled" => {
                    // A cancelled request gets no response; forget it so that a later
                    // request reusing its id pairs correctly. The call stays unanswered.
                    if let Some(id) = message
                        .get("params")
                        .and_then(|params| id_field(params, "requestId"))
                    {
                        self.take(&id);
                    }
                }
                _ => {
                    // Notifications have no id and get no response.
                    if let Some(id) = id_field(message, "id") {
                        self.open.entry(id).or_default().push(Waiting::Other);
                    }
                }
            }
        } else if message.get("result").is_some() || message.get("error").is_some() {
            self.response(message);
        }
        Ok(())
    }

    fn request(&mut self, message: &Value, path: &str) -> Result<(), RecordError> {
        let params = message.get("params");
        let name = params
            .and_then(|params| str_field(params, "name"))
            .ok_or_else(|| {
                RecordError::Shape(format!(
                    "a `tools/call` request without a tool name at `{path}params.name`"
                ))
            })?;
        let raw_args = params.and_then(|params| params.get("arguments"));
        let retry = params.is_some_and(|params| {
            params.get("inputResponses").is_some() || params.get("requestState").is_some()
        });
        let continued = if retry {
            self.pending_call(name, raw_args)
        } else {
            None
        };
        let index = continued.unwrap_or_else(|| {
            self.calls
                .push(open_call(None, name.to_owned(), raw_args, 0));
            self.calls.len() - 1
        });
        if let Some(id) = id_field(message, "id") {
            self.open.entry(id).or_default().push(Waiting::Call(index));
        }
        Ok(())
    }

    /// The oldest call waiting for input with this name and these arguments, taken off the
    /// pending list: the call that a retry continues, so that it is counted once.
    fn pending_call(&mut self, name: &str, raw_args: Option<&Value>) -> Option<usize> {
        let (args, args_raw) = arguments(raw_args);
        let position = self.pending.iter().position(|&index| {
            self.calls.get(index).is_some_and(|call| {
                call.name == name && call.args_raw == args_raw && args_equal(call.args(), &args)
            })
        })?;
        Some(self.pending.remove(position))
    }

    /// The latest request still waiting with this id, taken off the open list. The latest,
    /// because a request made while another with the same id is open (a server's request
    /// during a tool call) is answered first.
    fn take(&mut self, id: &str) -> Option<Waiting> {
        let waiting = self.open.get_mut(id)?;
        let taken = waiting.pop();
        if waiting.is_empty() {
            self.open.remove(id);
        }
        taken
    }

    fn response(&mut self, message: &Value) {
        let Some(Waiting::Call(index)) = id_field(message, "id").and_then(|id| self.take(&id))
        else {
            return;
        };
        let Some(call) = self.calls.get_mut(index) else {
            return;
        };
        if let Some(error) = message.get("error").filter(|error| !error.is_null()) {
            // A protocol error: the tool was never run, or its arguments were refused.
            complete(call, Some(error.clone()), Status::Error);
            return;
        }
        let result = message.get("result").unwrap_or(&Value::Null);
        if let Some(server) = result
            .get("_meta")
            .and_then(|meta| meta.get("io.modelcontextprotocol/serverInfo"))
            .and_then(|info| str_field(info, "name"))
        {
            call.server = Some(server.to_owned());
        }
        if input_required(result) {
            // Not an answer yet: the call stays open until the retry's response.
            self.pending.push(index);
            return;
        }
        let status = if result.get("isError") == Some(&Value::Bool(true)) {
            Status::Error
        } else {
            Status::Ok
        };
        complete(call, call_result(result), status);
    }
}

/// Whether a result asks the client for input before the tool can answer: `resultType:
/// "input_required"` (2026-07-28), or the draft's bare `inputRequests`/`requestState`.
fn input_required(result: &Value) -> bool {
    match str_field(result, "resultType") {
        Some(kind) => kind == "input_required",
        None => {
            result.get("content").is_none()
                && (result.get("inputRequests").is_some() || result.get("requestState").is_some())
        }
    }
}

/// The result trailgate keeps: `structuredContent` when present, for structured matching;
/// otherwise the `text` blocks of `content` joined by newlines, or the blocks themselves
/// when none is text (an image, a resource).
fn call_result(result: &Value) -> Option<Value> {
    if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
        return Some(structured.clone());
    }
    match result.get("content") {
        Some(Value::Array(blocks)) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|block| str_field(block, "type") == Some("text"))
                .filter_map(|block| str_field(block, "text"))
                .collect();
            if texts.is_empty() && !blocks.is_empty() {
                Some(Value::Array(blocks.clone()))
            } else {
                Some(Value::String(texts.join("\n")))
            }
        }
        None | Some(Value::Null) => None,
        Some(other) => Some(other.clone()),
    }
}

#[cfg(test)]
mod tests;
