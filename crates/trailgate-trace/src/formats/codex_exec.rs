//! The `codex-exec` format: the events `codex exec --json` prints, one per line
//! (`thread.started`, `turn.started`, `item.started`, `item.updated`, `item.completed`,
//! `turn.completed`, ...).
//!
//! An item is a call when it is a `command_execution`, a `file_change`, a `web_search` or an
//! `mcp_tool_call`; the first event naming an item's `id` places the call, and the last
//! one gives its result and status (`failed`, `declined` or a non-zero `exit_code` is an
//! error). The events mark no model response, so a step is a turn.
//!
//! A `turn.completed` event's `usage` is the thread's running total (Codex writes the
//! total of its last token count), so the last one is the run's usage, under no model name:
//! the events name none, and carry no times (docs/formats.md#usage-and-time).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::formats::{
    Adapter, Converter, Record, RecordError, complete, open_call, result_value, str_field, usage,
};
use crate::model::{Call, Run, Status, Tokens};

pub(crate) struct CodexExec;

impl Adapter for CodexExec {
    fn name(&self) -> &'static str {
        "codex-exec"
    }

    fn expects(&self) -> &'static str {
        "`codex exec --json` events, one per line: `{type: thread.started | turn.started | \
         item.started | item.completed | turn.completed, ...}`"
    }

    fn detect(&self, first: &Value) -> bool {
        match str_field(first, "type") {
            Some("thread.started") => first.get("thread_id").is_some(),
            Some("turn.started") => first.as_object().is_some_and(|object| object.len() == 1),
            Some("turn.completed" | "turn.failed") => {
                first.get("usage").is_some() || first.get("error").is_some()
            }
            Some("item.started" | "item.updated" | "item.completed") => first
                .get("item")
                .is_some_and(|item| item.get("id").is_some() && item.get("type").is_some()),
            _ => false,
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(CodexExecConverter::default())
    }
}

#[derive(Default)]
struct CodexExecConverter {
    calls: Vec<Call>,
    /// The index of each item's call by item id.
    items: BTreeMap<String, usize>,
    /// The turns begun so far.
    turns: u32,
    /// The usage of the last `turn.completed`: the thread's total so far.
    total: Option<Tokens>,
}

impl Converter for CodexExecConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        let event = record.value()?;
        match str_field(&event, "type") {
            Some("turn.started") => self.turns = self.turns.saturating_add(1),
            Some("turn.completed") => {
                if let Some(recorded) = event.get("usage") {
                    let tokens = usage::tokens(
                        recorded,
                        &["input_tokens"],
                        &["output_tokens"],
                        Some(recorded),
                        &["cached_input_tokens"],
                    )?;
                    self.total = tokens.or(self.total);
                }
            }
            Some("item.started" | "item.updated" | "item.completed") => {
                if let Some(item) = event.get("item").filter(|item| item.is_object()) {
                    self.item(item)?;
                }
            }
            _ => {}
        }
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        let mut run = Run {
            calls: self.calls,
            format: "",
            line: None,
            ..Default::default()
        };
        if let Some(total) = self.total {
            usage::add(&mut run.usage, None, total);
        }
        vec![run]
    }
}

impl CodexExecConverter {
    fn item(&mut self, item: &Value) -> Result<(), RecordError> {
        let Some((server, name, args)) = call_of(item)? else {
            return Ok(());
        };
        let id = match item.get("id") {
            Some(Value::String(id)) => id.clone(),
            Some(Value::Number(id)) => id.to_string(),
            _ => return Err(RecordError::Shape("an item without an `id`".to_owned())),
        };
        let index = if let Some(&index) = self.items.get(&id) {
            index
        } else {
            let step = self.turns.saturating_sub(1);
            self.items.insert(id, self.calls.len());
            self.calls.push(open_call(server, name, Some(&args), step));
            self.calls.len() - 1
        };
        let Some(call) = self.calls.get_mut(index) else {
            return Ok(());
        };
        let failed_exit = item
            .get("exit_code")
            .and_then(Value::as_i64)
            .is_some_and(|code| code != 0);
        let status = match str_field(item, "status") {
            // Some versions mark a command that exited non-zero `completed`.
            Some("completed") if failed_exit => Status::Error,
            Some("completed") => Status::Ok,
            Some("failed" | "declined") => Status::Error,
            // `web_search` items carry no status and are only written once done.
            None if str_field(item, "type") == Some("web_search") => Status::Unknown,
            _ => return Ok(()),
        };
        complete(call, result(item), status);
        Ok(())
    }
}

/// The server, name and arguments of an item that is a call; none for other items
/// (messages, reasoning, the to-do list, errors).
fn call_of(item: &Value) -> Result<Option<(Option<String>, String, Value)>, RecordError> {
    Ok(Some(match str_field(item, "type") {
        Some("command_execution") => (
            None,
            "command_execution".to_owned(),
            json!({"command": item.get("command").cloned().unwrap_or(Value::Null)}),
        ),
        Some("file_change") => (
            None,
            "file_change".to_owned(),
            json!({"changes": item.get("changes").cloned().unwrap_or(Value::Null)}),
        ),
        Some("web_search") => (
            None,
            "web_search".to_owned(),
            json!({"query": item.get("query").cloned().unwrap_or(Value::Null)}),
        ),
        Some("mcp_tool_call") => {
            let tool = str_field(item, "tool").ok_or_else(|| {
                RecordError::Shape("an `mcp_tool_call` item without a `tool`".to_owned())
            })?;
            (
                str_field(item, "server").map(str::to_owned),
                tool.to_owned(),
                item.get("arguments").cloned().unwrap_or(Value::Null),
            )
        }
        _ => return Ok(None),
    }))
}

/// An item's result: a command's output, an MCP call's content (its text joined) or
/// structured content, or its error's message.
fn result(item: &Value) -> Option<Value> {
    if let Some(message) = item.get("error").and_then(|error| error.get("message")) {
        return Some(message.clone());
    }
    match str_field(item, "type") {
        Some("command_execution") => item.get("aggregated_output").cloned(),
        Some("mcp_tool_call") => {
            let result = item.get("result").filter(|result| !result.is_null())?;
            let structured = result
                .get("structured_content")
                .filter(|content| !content.is_null());
            structured
                .cloned()
                .or_else(|| result.get("content").map(result_value))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
