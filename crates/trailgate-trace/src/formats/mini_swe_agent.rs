//! The `mini-swe-agent` format: a mini-swe-agent trajectory (`<instance>.traj.json`,
//! `trajectory_format: "mini-swe-agent-1"`), `{info, messages}`.
//!
//! mini-swe-agent gives its model no tools: the model answers in text, and the one
//! ```` ```bash ```` block of an assistant message is the command the agent runs. Each such
//! block is read as a call of a `bash` tool with the argument `command`; a message with no
//! block or with several is refused by the agent (a format error) and runs nothing, so it
//! makes no call. The next `user` message (the observation) is its result. The status is
//! `unknown`: the observation's `<returncode>` is text a template writes, not a field.
//! Each assistant message is a step. A message that carries Chat Completions `tool_calls` (the
//! tool-calling agents of later versions) has those calls read instead.
//!
//! Each assistant message keeps its model response in `extra.response` (`LiteLLM`'s Chat
//! Completions shape): its `usage` under its `model` is the run's usage. `info.model_stats`
//! holds only the cost and the number of calls. Times: the responses' `created` and the
//! messages' `extra.timestamp` (seconds since the epoch; later versions write it), a call
//! from its assistant message's `extra.timestamp` to its observation's
//! (docs/formats.md#usage-and-time).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};

use crate::formats::openai_chat::openai_tokens;
use crate::formats::{
    Adapter, CallLog, Converter, Record, RecordError, complete, id_field, open_call, result_value,
    str_field, usage,
};
use crate::model::{Run, Status};
use crate::naming::Naming;

pub(crate) struct MiniSweAgent;

impl Adapter for MiniSweAgent {
    fn name(&self) -> &'static str {
        "mini-swe-agent"
    }

    fn expects(&self) -> &'static str {
        "a mini-swe-agent trajectory: an object with `trajectory_format: \"mini-swe-agent-1\"` \
         (or `info.mini_version`) and `messages`"
    }

    fn detect(&self, first: &Value) -> bool {
        str_field(first, "trajectory_format").is_some_and(|f| f.starts_with("mini-swe-agent"))
            || (first.get("messages").is_some_and(Value::is_array)
                && first
                    .get("info")
                    .is_some_and(|info| info.get("mini_version").is_some()))
    }

    fn naming(&self) -> Naming {
        Naming::None
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(MiniConverter)
    }
}

/// The agent's own action pattern (`action_regex` of its default configuration).
static ACTION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?s)```bash\s*\n(.*?)\n```").ok());

struct MiniConverter;

impl Converter for MiniConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        let value = record.value()?;
        let messages = match value.get("messages") {
            Some(Value::Array(messages)) => messages.as_slice(),
            None | Some(Value::Null) => &[][..],
            Some(_) => return Err(RecordError::Shape("`messages` is not a list".to_owned())),
        };
        Ok(vec![messages_run(messages)?])
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        Vec::new()
    }
}

fn messages_run(messages: &[Value]) -> Result<Run, RecordError> {
    let mut log = CallLog::default();
    let mut run = Run::default();
    let mut steps: u32 = 0;
    // The text action waiting for its observation.
    let mut waiting: Option<usize> = None;
    // The time of the last assistant message, when it records one.
    let mut asked: Option<i64> = None;
    for message in messages {
        let extra = message.get("extra").unwrap_or(&Value::Null);
        let now = usage::time_field(extra, "timestamp");
        if let Some(now) = now {
            usage::widen(&mut run.time, now, now);
        }
        match str_field(message, "role") {
            Some("assistant") => {
                let step = steps;
                steps = steps.saturating_add(1);
                waiting = None;
                asked = now;
                if let Some(response) = extra.get("response").filter(|value| value.is_object()) {
                    if let Some(created) = usage::time_field(response, "created") {
                        usage::widen(&mut run.time, created, created);
                    }
                    if let Some(tokens) = response
                        .get("usage")
                        .map(openai_tokens)
                        .transpose()?
                        .flatten()
                    {
                        usage::add(&mut run.usage, str_field(response, "model"), tokens);
                    }
                }
                if let Some(Value::Array(tool_calls)) = message.get("tool_calls") {
                    for tool_call in tool_calls {
                        let function = tool_call.get("function").unwrap_or(tool_call);
                        let Some(name) = str_field(function, "name") else {
                            continue;
                        };
                        let call =
                            open_call(None, name.to_owned(), function.get("arguments"), step);
                        log.push(id_field(tool_call, "id"), call);
                    }
                    continue;
                }
                let text = text(message.get("content"));
                let Some(action) = ACTION.as_ref() else {
                    continue;
                };
                let mut found = action.captures_iter(&text);
                if let (Some(only), None) = (found.next(), found.next())
                    && let Some(command) = only.get(1)
                {
                    let args = json!({"command": command.as_str()});
                    waiting = Some(log.calls.len());
                    log.push(None, open_call(None, "bash".to_owned(), Some(&args), step));
                }
            }
            Some("tool") => {
                if let Some(id) = id_field(message, "tool_call_id")
                    && let Some(call) = log.answer(&id)
                {
                    let result = message.get("content").map(result_value);
                    complete(call, result, Status::Unknown);
                    call.time = usage::interval(asked, now);
                }
            }
            Some("user") => {
                if let Some(call) = waiting.take().and_then(|index| log.calls.get_mut(index)) {
                    let result = Value::String(text(message.get("content")));
                    complete(call, Some(result), Status::Unknown);
                    call.time = usage::interval(asked, now);
                }
            }
            _ => {}
        }
    }
    let calls = log.into_run().calls;
    Ok(Run { calls, ..run })
}

/// A message's text: a string, or its text parts joined.
fn text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| str_field(part, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests;
