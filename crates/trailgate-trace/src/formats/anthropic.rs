//! The `anthropic` format: Anthropic Messages API conversations, as a messages list, a
//! request body, a response, or a recorded list of request/response exchanges.
//!
//! Calls are `tool_use`, `mcp_tool_use` (which names its server) and `server_tool_use`
//! content blocks; results are `tool_result`, `mcp_tool_result` and the server tools'
//! `*_tool_result` blocks, paired by `tool_use_id`. Each assistant message is a step. The
//! content-block reading is shared with the Claude Code adapter, whose records carry
//! Anthropic messages.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::formats::{
    Adapter, CallLog, Converter, Record, RecordError, complete, id_field, open_call, result_value,
    str_field, usage,
};
use crate::model::{Interval, Run, Status, Tokens, Usage};

pub(crate) struct Anthropic;

impl Adapter for Anthropic {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn expects(&self) -> &'static str {
        "Anthropic Messages: a list of `{role, content}` messages with `tool_use` or \
         `tool_result` blocks, a request body with `messages`, a response `{type: message, \
         content}`, or a list of recorded `{request_body, response_body}` exchanges"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(items) => items.iter().any(is_item),
            other => is_item(other),
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(AnthropicConverter::default())
    }
}

/// Block types only Anthropic messages hold: a Chat Completions message never carries them, and
/// a text-only message says nothing about its format.
fn is_anthropic_block(block: &Value) -> bool {
    str_field(block, "type").is_some_and(|kind| {
        matches!(
            kind,
            "tool_use" | "mcp_tool_use" | "server_tool_use" | "thinking" | "redacted_thinking"
        ) || is_result_block(kind)
    })
}

fn has_anthropic_block(message: &Value) -> bool {
    message
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|blocks| blocks.iter().any(is_anthropic_block))
}

/// One element of the file: an exchange, a request body, a response or a message.
fn is_item(value: &Value) -> bool {
    if value.get("request_body").is_some() || value.get("response_body").is_some() {
        return body(value.get("request_body")).is_some_and(|request| is_request(&request))
            || body(value.get("response_body")).is_some_and(|response| is_response(&response));
    }
    if value.get("messages").is_some() {
        return is_request(value);
    }
    if str_field(value, "type") == Some("message") {
        return is_response(value);
    }
    matches!(str_field(value, "role"), Some("user" | "assistant")) && has_anthropic_block(value)
}

/// A request body: `messages`, and something only Anthropic's API has (its content
/// blocks, tools declared with `input_schema`, a top-level `system`, or Bedrock's and
/// Vertex's `anthropic_version`), since Chat Completions requests hold `messages` too.
fn is_request(value: &Value) -> bool {
    let Some(messages) = value.get("messages").and_then(Value::as_array) else {
        return false;
    };
    messages.iter().any(has_anthropic_block)
        || value
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(|tools| tools.iter().any(|tool| tool.get("input_schema").is_some()))
        || value.get("system").is_some()
        || value.get("anthropic_version").is_some()
}

/// A response: `type: message` with `content` blocks. Responses API `message` items
/// share the type, but hold `output_text` parts and never a `stop_reason`.
fn is_response(value: &Value) -> bool {
    if str_field(value, "type") != Some("message") {
        return false;
    }
    let Some(blocks) = value.get("content").and_then(Value::as_array) else {
        return false;
    };
    let openai = blocks.iter().any(|block| {
        matches!(
            str_field(block, "type"),
            Some("output_text" | "input_text" | "refusal")
        )
    });
    !openai && (value.get("stop_reason").is_some() || blocks.iter().any(is_anthropic_block))
}

/// A recorded body: an object, or the same object as JSON text (as HTTP recorders keep it).
fn body(value: Option<&Value>) -> Option<Value> {
    match value? {
        Value::String(text) => serde_json::from_str(text).ok(),
        other => Some(other.clone()),
    }
}

/// How a message is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// A message not read before: an assistant message is a step.
    New,
    /// A message a request repeats from the conversation so far: it starts a step only if
    /// it holds a call not recorded yet.
    Replayed,
}

#[derive(Debug, Default)]
struct AnthropicConverter {
    calls: ContentCalls,
    /// The steps begun so far, which is the next step's index.
    steps: u32,
    /// How many messages of the conversation have been read: the next request repeats
    /// them before its new ones.
    history: usize,
}

impl Converter for AnthropicConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        match record.value()? {
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    self.item(item, &format!("[{index}]"))?;
                }
            }
            other => self.item(&other, "")?,
        }
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        vec![self.calls.into_run()]
    }
}

impl AnthropicConverter {
    fn item(&mut self, value: &Value, path: &str) -> Result<(), RecordError> {
        if value.get("request_body").is_some() || value.get("response_body").is_some() {
            if let Some(request) = body(value.get("request_body")) {
                self.request(&request, &join(path, "request_body"))?;
            }
            if let Some(response) = body(value.get("response_body"))
                && is_message(&response)
            {
                self.message(&response, Seen::New, &join(path, "response_body"))?;
                self.history = self.history.saturating_add(1);
            }
        } else if value.get("messages").is_some() {
            self.request(value, path)?;
        } else if is_message(value) {
            self.message(value, Seen::New, path)?;
            self.history = self.history.saturating_add(1);
        }
        Ok(())
    }

    /// A request body: its messages repeat the conversation so far and add new ones. A
    /// request shorter than the conversation so far rewrote it (a new conversation, or
    /// older turns dropped), so each of its messages is read as possibly repeated.
    fn request(&mut self, request: &Value, path: &str) -> Result<(), RecordError> {
        let Some(messages) = request.get("messages").and_then(Value::as_array) else {
            return Ok(());
        };
        let rewritten = messages.len() < self.history;
        for (index, message) in messages.iter().enumerate() {
            let seen = if rewritten || index < self.history {
                Seen::Replayed
            } else {
                Seen::New
            };
            self.message(message, seen, &join(path, &format!("messages[{index}]")))?;
        }
        self.history = messages.len();
        Ok(())
    }

    fn message(&mut self, message: &Value, seen: Seen, path: &str) -> Result<(), RecordError> {
        let content = message.get("content");
        let assistant = match str_field(message, "role") {
            Some(role) => role == "assistant",
            None => str_field(message, "type") == Some("message"),
        };
        if !assistant {
            self.calls.blocks(content, None, path)?;
            return Ok(());
        }
        if seen == Seen::New
            && let Some(tokens) = message
                .get("usage")
                .map(anthropic_tokens)
                .transpose()?
                .flatten()
        {
            usage::add(&mut self.calls.usage, str_field(message, "model"), tokens);
        }
        let added = self.calls.blocks(content, Some(self.steps), path)?;
        if seen == Seen::New || added {
            self.steps = self.steps.saturating_add(1);
        }
        Ok(())
    }
}

/// A message: a `role`, or a response's `type: message`; an API error body is neither.
fn is_message(value: &Value) -> bool {
    value.get("role").is_some_and(Value::is_string) || str_field(value, "type") == Some("message")
}

/// `prefix.rest`, for the paths in error messages (`[0].request_body.messages[2]`).
pub(crate) fn join(prefix: &str, rest: &str) -> String {
    if prefix.is_empty() {
        rest.to_owned()
    } else if rest.starts_with('[') {
        format!("{prefix}{rest}")
    } else {
        format!("{prefix}.{rest}")
    }
}

/// A result block: `tool_result`, `mcp_tool_result`, and the server tools' results
/// (`web_search_tool_result`, `code_execution_tool_result`, ...).
fn is_result_block(kind: &str) -> bool {
    kind == "tool_result" || kind.ends_with("_tool_result")
}

/// The calls of one conversation of Anthropic content blocks, paired with their results.
/// Shared with the Claude Code adapter, whose records carry Anthropic messages.
#[derive(Debug, Default)]
pub(crate) struct ContentCalls {
    log: CallLog,
    /// The step of each call recorded so far, by id. Anthropic ids are unique, so a
    /// `tool_use` whose id is here is the same call recorded again (a replayed history,
    /// a transcript written twice) and is not counted twice.
    steps_by_id: BTreeMap<String, u32>,
    /// The run's usage so far.
    pub(crate) usage: Usage,
    /// The time of the record being read, when it has one: a call opened in it starts then,
    /// a result in it ends its call then.
    now: Option<i64>,
    /// The span of the records' times so far.
    time: Option<Interval>,
}

/// The tokens of an Anthropic `usage` object: `input_tokens` leaves out the tokens read from
/// and written to the prompt cache, which count as input here (docs/formats.md#usage-and-time);
/// the tokens read from it are the cached input.
pub(crate) fn anthropic_tokens(usage: &Value) -> Result<Option<Tokens>, RecordError> {
    let Some(mut tokens) = usage::tokens(
        usage,
        &["input_tokens"],
        &["output_tokens"],
        Some(usage),
        &["cache_read_input_tokens"],
    )?
    else {
        return Ok(None);
    };
    let written = usage::count(usage, "cache_creation_input_tokens")?.unwrap_or(0);
    tokens.input = tokens
        .input
        .saturating_add(tokens.cached_input.unwrap_or(0))
        .saturating_add(written);
    Ok(Some(tokens))
}

impl ContentCalls {
    /// Reads a message's content blocks in order: calls (only when `step` is given, for an
    /// assistant message) and results. `path` is the message's place in the record.
    /// Returns whether a call not recorded before was added.
    pub(crate) fn blocks(
        &mut self,
        content: Option<&Value>,
        step: Option<u32>,
        path: &str,
    ) -> Result<bool, RecordError> {
        let Some(Value::Array(blocks)) = content else {
            return Ok(false);
        };
        let mut added = false;
        for (index, block) in blocks.iter().enumerate() {
            let Some(kind) = str_field(block, "type") else {
                continue;
            };
            if matches!(kind, "tool_use" | "mcp_tool_use" | "server_tool_use") {
                if let Some(step) = step {
                    let at = || join(path, &format!("content[{index}]"));
                    added |= self.call(block, kind, step, at)?;
                }
            } else if is_result_block(kind) {
                self.result(block);
            }
        }
        Ok(added)
    }

    fn call(
        &mut self,
        block: &Value,
        kind: &str,
        step: u32,
        at: impl Fn() -> String,
    ) -> Result<bool, RecordError> {
        let Some(name) = str_field(block, "name") else {
            return Err(RecordError::Shape(format!(
                "a `{kind}` block without a string `name` at `{}`",
                at()
            )));
        };
        let id = id_field(block, "id");
        if let Some(id) = &id {
            if self.steps_by_id.contains_key(id) {
                return Ok(false);
            }
            self.steps_by_id.insert(id.clone(), step);
        }
        // Only the MCP connector's `mcp_tool_use` names its server; any other block is a
        // tool the client (or Anthropic, for server tools) ran.
        let server = str_field(block, "server_name").map(str::to_owned);
        let mut call = open_call(server, name.to_owned(), block.get("input"), step);
        // The start is kept as an instant until a timed result ends the call.
        call.time = self.now.map(|now| Interval {
            start_ns: now,
            end_ns: now,
        });
        self.log.push(id, call);
        Ok(true)
    }

    /// Pairs a result block with its call. `is_error: true` is the error signal of
    /// `tool_result` and `mcp_tool_result`; a server tool reports failure as content of a
    /// `*_error` type (`web_search_tool_result_error`).
    fn result(&mut self, block: &Value) {
        let Some(id) = id_field(block, "tool_use_id") else {
            return;
        };
        let Some(call) = self.log.answer(&id) else {
            return;
        };
        let content = block.get("content").filter(|content| !content.is_null());
        let failed = block.get("is_error").and_then(Value::as_bool) == Some(true)
            || content
                .and_then(|content| str_field(content, "type"))
                .is_some_and(|kind| kind.ends_with("_error"));
        let status = if failed { Status::Error } else { Status::Ok };
        complete(call, content.map(result_value), status);
        call.time = usage::interval(call.time.map(|time| time.start_ns), self.now);
    }

    /// The number of calls recorded so far.
    pub(crate) fn len(&self) -> usize {
        self.log.calls.len()
    }

    /// Sets the agent of the calls from the `from`-th on: those of the message just read.
    pub(crate) fn set_agent_from(&mut self, from: usize, agent: Option<&str>) {
        for call in self.log.calls.iter_mut().skip(from) {
            call.agent = agent.and_then(crate::formats::agent_name);
        }
    }

    /// The step of the call with this id, when it was recorded.
    pub(crate) fn step_of(&self, id: &str) -> Option<u32> {
        self.steps_by_id.get(id).copied()
    }

    /// The calls as one run.
    pub(crate) fn into_run(self) -> Run {
        let mut run = self.log.into_run();
        // A call no timed result ended has only a start: no duration.
        for call in run.calls.iter_mut().filter(|call| !call.completed) {
            call.time = None;
        }
        run.usage = self.usage;
        run.time = self.time;
        run
    }

    /// Notes the time of the record about to be read (`timestamp`), when it has one.
    pub(crate) fn at(&mut self, record: &Value) {
        self.now = usage::time_field(record, "timestamp");
        if let Some(now) = self.now {
            usage::widen(&mut self.time, now, now);
        }
    }
}

#[cfg(test)]
mod tests;
