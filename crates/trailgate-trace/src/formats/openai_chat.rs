//! The `openai-chat` format: Chat Completions conversations, as a `chat.completion`
//! response, a list of messages, a request body with `messages`, or JSON Lines of messages.
//!
//! Calls are an assistant message's `tool_calls` (`type: function` with its arguments as a
//! JSON string, or `type: custom` with free-form text) and the legacy single
//! `function_call`. Results are `role: tool` messages paired by `tool_call_id`, and legacy
//! `role: function` messages paired by name. The format has no error signal, so a paired
//! call's status is `unknown`. Each assistant message is a step.

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;

use crate::formats::{
    Adapter, Converter, Record, RecordError, complete, id_field, open_call, result_value,
    str_field, usage,
};
use crate::model::{Call, Run, Status, Tokens};

pub(crate) struct OpenAiChat;

impl Adapter for OpenAiChat {
    fn name(&self) -> &'static str {
        "openai-chat"
    }

    fn expects(&self) -> &'static str {
        "OpenAI Chat Completions: a `chat.completion` response with `choices`, a list of \
         `{role, content, tool_calls?}` messages, or a request body with `messages`"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(messages) => is_message_list(messages),
            Value::Object(object) => {
                // Anthropic request bodies also hold `messages`; only they have these keys.
                if object.contains_key("system") || object.contains_key("anthropic_version") {
                    return false;
                }
                match str_field(first, "object") {
                    Some("chat.completion") => return true,
                    // Stream chunks, Responses objects, lists: not a whole completion.
                    Some(_) => return false,
                    None => {}
                }
                if let Some(Value::Array(choices)) = object.get("choices") {
                    return choices
                        .iter()
                        .any(|choice| choice.get("message").is_some_and(Value::is_object));
                }
                if let Some(Value::Array(messages)) = object.get("messages") {
                    return is_message_list(messages);
                }
                is_message(first)
            }
            _ => false,
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(ChatConverter::default())
    }
}

const ROLES: &[&str] = &[
    "system",
    "developer",
    "user",
    "assistant",
    "tool",
    "function",
];

/// A Chat message: a known `role`, and nothing that marks another format's message
/// (Gemini's and OpenTelemetry's `parts`, Anthropic's tool blocks).
fn is_message(value: &Value) -> bool {
    str_field(value, "role").is_some_and(|role| ROLES.contains(&role)) && !is_foreign(value)
}

fn is_message_list(messages: &[Value]) -> bool {
    !messages.is_empty()
        && messages.iter().all(|message| {
            message.get("role").is_some_and(Value::is_string) && !is_foreign(message)
        })
        && messages.iter().any(is_message)
}

fn is_foreign(message: &Value) -> bool {
    message.get("parts").is_some()
        || message
            .get("content")
            .and_then(Value::as_array)
            .is_some_and(|blocks| {
                blocks.iter().any(|block| {
                    matches!(
                        str_field(block, "type"),
                        Some(
                            "tool_use"
                                | "tool_result"
                                | "mcp_tool_use"
                                | "mcp_tool_result"
                                | "server_tool_use"
                                | "thinking"
                                | "redacted_thinking"
                        )
                    )
                })
            })
}

/// The tokens of a Chat Completions `usage` object: `prompt_tokens` counts the cached
/// ones, which `prompt_tokens_details.cached_tokens` gives apart.
pub(super) fn openai_tokens(usage: &Value) -> Result<Option<Tokens>, RecordError> {
    usage::tokens(
        usage,
        &["prompt_tokens"],
        &["completion_tokens"],
        usage.get("prompt_tokens_details"),
        &["cached_tokens"],
    )
}

/// A whole document (a completion, a message list, a request body) is a run of its own; a
/// record holding one message belongs to the conversation the file's messages make up.
#[derive(Debug, Default)]
struct ChatConverter {
    conversation: Option<Conversation>,
}

impl Converter for ChatConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        let value = record.value()?;
        let mut runs = Vec::new();
        match &value {
            Value::Array(messages) => {
                let mut conversation = Conversation::default();
                conversation.messages(messages, "")?;
                runs.push(conversation.into_run());
            }
            Value::Object(object) => {
                if let Some(Value::Array(choices)) = object.get("choices") {
                    // Each choice is another sample of the same request: another attempt,
                    // so another run.
                    for (index, choice) in choices.iter().enumerate() {
                        let mut conversation = Conversation::default();
                        if let Some(message) =
                            choice.get("message").filter(|message| !message.is_null())
                        {
                            conversation.message(message, &format!("choices[{index}].message"))?;
                        }
                        runs.push(conversation.into_run());
                    }
                    if choices.is_empty() {
                        runs.push(Conversation::default().into_run());
                    }
                    // The usage covers every choice: it is a run's only when there is one.
                    if let [run] = runs.as_mut_slice()
                        && let Some(tokens) = object
                            .get("usage")
                            .map(openai_tokens)
                            .transpose()?
                            .flatten()
                    {
                        usage::add(&mut run.usage, str_field(&value, "model"), tokens);
                    }
                } else if let Some(Value::Array(messages)) = object.get("messages") {
                    let mut conversation = Conversation::default();
                    conversation.messages(messages, "messages")?;
                    runs.push(conversation.into_run());
                } else if object.get("role").is_some_and(Value::is_string) {
                    self.conversation
                        .get_or_insert_with(Conversation::default)
                        .message(&value, "")?;
                }
            }
            // Anything else is not a record this format knows.
            _ => {}
        }
        let line = record.lines.then_some(record.line);
        for run in &mut runs {
            run.line = line;
        }
        Ok(runs)
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        self.conversation
            .map(Conversation::into_run)
            .into_iter()
            .collect()
    }
}

/// The calls of one conversation, and the calls still waiting for their results.
#[derive(Debug, Default)]
struct Conversation {
    calls: Vec<Call>,
    /// Open calls by id. An id written twice keeps both calls, answered in order.
    open: BTreeMap<String, VecDeque<usize>>,
    /// Open calls without an id (the legacy `function_call`), answered by name.
    unnamed: Vec<usize>,
    /// The assistant messages read so far, which is the next one's step.
    steps: u32,
}

impl Conversation {
    fn messages(&mut self, messages: &[Value], path: &str) -> Result<(), RecordError> {
        for (index, message) in messages.iter().enumerate() {
            self.message(message, &format!("{path}[{index}]"))?;
        }
        Ok(())
    }

    fn message(&mut self, message: &Value, path: &str) -> Result<(), RecordError> {
        if !message.is_object() {
            return Err(shape("a message that is not an object", path));
        }
        match str_field(message, "role") {
            Some("tool" | "function") => {
                self.result(message);
                Ok(())
            }
            Some("assistant") => self.assistant(message, path),
            // A message without a role is an assistant's only when it carries calls.
            None if has_calls(message) => self.assistant(message, path),
            _ => Ok(()),
        }
    }

    fn assistant(&mut self, message: &Value, path: &str) -> Result<(), RecordError> {
        let step = self.steps;
        self.steps = self.steps.saturating_add(1);
        match message.get("tool_calls") {
            None | Some(Value::Null) => {}
            Some(Value::Array(calls)) => {
                for (index, call) in calls.iter().enumerate() {
                    self.tool_call(call, step, &join(path, &format!("tool_calls[{index}]")))?;
                }
            }
            Some(_) => return Err(shape("`tool_calls` that is not a list", path)),
        }
        match message.get("function_call") {
            None | Some(Value::Null) => {}
            Some(call) => {
                let path = join(path, "function_call");
                let name = str_field(call, "name")
                    .ok_or_else(|| shape("a `function_call` without a `name`", &path))?;
                self.unnamed.push(self.calls.len());
                self.calls.push(open_call(
                    None,
                    name.to_owned(),
                    call.get("arguments"),
                    step,
                ));
            }
        }
        Ok(())
    }

    fn tool_call(&mut self, call: &Value, step: u32, path: &str) -> Result<(), RecordError> {
        let id = id_field(call, "id");
        let kind = str_field(call, "type");
        if kind == Some("custom") {
            let custom = call.get("custom");
            let name = custom
                .and_then(|custom| str_field(custom, "name"))
                .ok_or_else(|| shape("a custom tool call without a `custom.name`", path))?;
            let input = custom.and_then(|custom| custom.get("input"));
            self.push(id, free_form_call(None, name.to_owned(), input, step));
            return Ok(());
        }
        let Some(function) = call.get("function") else {
            if kind.is_none() || kind == Some("function") {
                return Err(shape("a tool call without a `function`", path));
            }
            // A call type newer than this adapter, with no function to read: skipped.
            return Ok(());
        };
        let name = str_field(function, "name")
            .ok_or_else(|| shape("a tool call without a `function.name`", path))?;
        self.push(
            id,
            open_call(None, name.to_owned(), function.get("arguments"), step),
        );
        Ok(())
    }

    fn push(&mut self, id: Option<String>, call: Call) {
        if let Some(id) = id {
            self.open.entry(id).or_default().push_back(self.calls.len());
        }
        self.calls.push(call);
    }

    /// A `role: tool` or `role: function` message: the result of the earliest open call
    /// with its `tool_call_id`, or without an id, of the earliest open id-less call with its
    /// `name`. A result that pairs with nothing is ignored.
    fn result(&mut self, message: &Value) {
        let index = match id_field(message, "tool_call_id") {
            Some(id) => {
                let waiting = self.open.get_mut(&id);
                let index = waiting.and_then(VecDeque::pop_front);
                if self.open.get(&id).is_some_and(VecDeque::is_empty) {
                    self.open.remove(&id);
                }
                index
            }
            None => str_field(message, "name").and_then(|name| {
                let position = self.unnamed.iter().position(|&index| {
                    self.calls.get(index).is_some_and(|call| call.name == name)
                })?;
                Some(self.unnamed.remove(position))
            }),
        };
        let content = message
            .get("content")
            .filter(|content| !content.is_null())
            .map(result_value);
        if let Some(call) = index.and_then(|index| self.calls.get_mut(index)) {
            complete(call, content, Status::Unknown);
        }
    }

    fn into_run(self) -> Run {
        Run {
            calls: self.calls,
            format: "",
            line: None,
            ..Default::default()
        }
    }
}

fn has_calls(message: &Value) -> bool {
    message
        .get("tool_calls")
        .and_then(Value::as_array)
        .is_some_and(|calls| !calls.is_empty())
        || message.get("function_call").is_some_and(Value::is_object)
}

/// A call whose input is free-form text (a custom tool's grammar output, a patch), not JSON
/// arguments: the text is kept as `args_raw` and never parsed, so a patch that happens to
/// look like JSON does not turn into arguments. Input that is not a string is read like
/// any arguments.
pub(super) fn free_form_call(
    server: Option<String>,
    name: String,
    input: Option<&Value>,
    step: u32,
) -> Call {
    match input {
        Some(Value::String(text)) if !text.is_empty() => {
            let mut call = open_call(server, name, None, step);
            call.args_raw = Some(text.clone());
            call
        }
        Some(Value::String(_)) => open_call(server, name, None, step),
        other => open_call(server, name, other, step),
    }
}

/// `path.rest`, or `rest` at the top of the record.
pub(super) fn join(path: &str, rest: &str) -> String {
    if path.is_empty() {
        rest.to_owned()
    } else {
        format!("{path}.{rest}")
    }
}

/// A shape error: `what`, and where when it is inside the record.
pub(super) fn shape(what: &str, path: &str) -> RecordError {
    if path.is_empty() {
        RecordError::Shape(what.to_owned())
    } else {
        RecordError::Shape(format!("{what} at `{path}`"))
    }
}

#[cfg(test)]
mod tests;
