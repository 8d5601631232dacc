//! The `claude-code` format: Claude Code session transcripts
//! (`~/.claude/projects/<project>/<session>.jsonl`) and the output of
//! `claude -p --output-format stream-json`, one record per line or the same records in a
//! JSON array.
//!
//! `assistant` and `user` records carry Anthropic messages, read with the `anthropic`
//! adapter's content blocks. A step is one assistant message: the CLI writes one record per
//! content block, so the records that share `message.id` are one step.
//!
//! A subagent's calls carry its agent (docs/formats.md#agents): the `subagent_type` of the
//! `Task` (or `Agent`) call that spawned it, found through `parent_tool_use_id` in
//! stream-json, and for a transcript's side chain (`isSidechain`) the last such call made
//! before it; in a subagent's own file, which does not write its type, the records'
//! `agentId`. The main agent's calls have none.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::formats::anthropic::{ContentCalls, anthropic_tokens, join};
use crate::formats::{Adapter, Converter, Record, RecordError, id_field, str_field, usage};
use crate::model::{Run, Tokens, Usage};

pub(crate) struct ClaudeCode;

impl Adapter for ClaudeCode {
    fn name(&self) -> &'static str {
        "claude-code"
    }

    fn expects(&self) -> &'static str {
        "a Claude Code session or `claude -p --output-format stream-json` output: records \
         `{type: user | assistant | system | summary, ...}`, the user and assistant ones \
         carrying `message`, one per line or in a JSON array"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            // The array form starts with `system/init` in `claude -p` output; a saved
            // transcript may start elsewhere, so any conversation record also tells.
            Value::Array(records) => {
                records.first().is_some_and(is_record)
                    || records.iter().any(|record| {
                        matches!(str_field(record, "type"), Some("user" | "assistant"))
                            && is_record(record)
                    })
            }
            other => is_record(other),
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(ClaudeCodeConverter::default())
    }
}

/// A record of a transcript or of stream-json output, judged by its `type` and the fields
/// that come with it. A transcript's first line may be a `summary` or, in newer versions,
/// a `file-history-snapshot` rather than a message.
fn is_record(record: &Value) -> bool {
    let has = |key: &str| record.get(key).is_some();
    match str_field(record, "type") {
        Some("user" | "assistant") => record.get("message").is_some_and(Value::is_object),
        Some("summary") => has("summary") || has("leafUuid"),
        Some("system") => has("subtype") || has("session_id") || has("sessionId"),
        Some("file-history-snapshot") => has("snapshot") || has("messageId"),
        Some("queue-operation") => has("sessionId") || has("operation"),
        _ => false,
    }
}

#[derive(Debug, Default)]
struct ClaudeCodeConverter {
    calls: ContentCalls,
    /// The steps begun so far, which is the next step's index.
    steps: u32,
    /// The step of each assistant message id seen.
    message_steps: BTreeMap<String, u32>,
    /// MCP servers from `system/init`, as they appear in tool names.
    servers: Vec<String>,
    /// The usage of each assistant message by `message.id`: the CLI writes one record per
    /// content block, each with the message's usage so far, so the last record's counts.
    message_usage: BTreeMap<String, (Option<String>, Tokens)>,
    /// The usage of assistant messages without an id, each counted once.
    usage: Usage,
    /// Whether a record of the main agent (one not `isSidechain`) has been read: until
    /// then the file is a subagent's own (`<session>/subagents/agent-*.jsonl`), whose
    /// records take steps of their own.
    main_seen: bool,
    /// The `subagent_type` of each `Task` or `Agent` call seen, by call id.
    task_agents: BTreeMap<String, String>,
    /// The `subagent_type` of the last `Task` or `Agent` call seen.
    last_task_agent: Option<String>,
}

impl Converter for ClaudeCodeConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        match record.value()? {
            Value::Array(records) => {
                for (index, item) in records.iter().enumerate() {
                    self.item(item, &format!("[{index}]"))?;
                }
            }
            other => self.item(&other, "")?,
        }
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        let mut run = self.calls.into_run();
        run.usage = self.usage;
        for (model, tokens) in self.message_usage.into_values() {
            usage::add(&mut run.usage, model.as_deref(), tokens);
        }
        split_by_servers(&mut run, &self.servers);
        vec![run]
    }
}

impl ClaudeCodeConverter {
    fn item(&mut self, record: &Value, path: &str) -> Result<(), RecordError> {
        if matches!(str_field(record, "type"), Some("user" | "assistant")) && !is_sidechain(record)
        {
            self.main_seen = true;
        }
        self.calls.at(record);
        match str_field(record, "type") {
            Some("system") if str_field(record, "subtype") == Some("init") => {
                self.init(record);
            }
            Some("assistant") => {
                let Some(message) = record.get("message").filter(|m| m.is_object()) else {
                    return Ok(());
                };
                self.usage_of(message)?;
                let step = self.step(record, message);
                let agent = self.agent(record);
                let first = self.calls.len();
                self.calls
                    .blocks(message.get("content"), Some(step), &join(path, "message"))?;
                self.calls.set_agent_from(first, agent.as_deref());
                self.note_tasks(message);
            }
            Some("user") => {
                if let Some(message) = record.get("message") {
                    self.calls
                        .blocks(message.get("content"), None, &join(path, "message"))?;
                }
            }
            // `summary`, `result`, other `system` records, snapshots and whatever later
            // versions add hold no calls.
            _ => {}
        }
        Ok(())
    }

    /// The agent of an assistant record's calls: a subagent's type, or `None` for the main
    /// agent's (and for a subagent whose type the file does not say).
    fn agent(&self, record: &Value) -> Option<String> {
        if let Some(parent) = id_field(record, "parent_tool_use_id") {
            return self.task_agents.get(&parent).cloned();
        }
        if !is_sidechain(record) {
            return None;
        }
        if self.main_seen {
            self.last_task_agent.clone()
        } else {
            str_field(record, "agentId").map(str::to_owned)
        }
    }

    /// Notes the `subagent_type` of the `Task` and `Agent` calls of an assistant message,
    /// for the subagents they spawn.
    fn note_tasks(&mut self, message: &Value) {
        let Some(blocks) = message.get("content").and_then(Value::as_array) else {
            return;
        };
        for block in blocks {
            if str_field(block, "type") != Some("tool_use")
                || !matches!(str_field(block, "name"), Some("Task" | "Agent"))
            {
                continue;
            }
            let Some(kind) = block
                .get("input")
                .and_then(|input| str_field(input, "subagent_type"))
                .filter(|kind| !kind.is_empty())
            else {
                continue;
            };
            if let Some(id) = id_field(block, "id") {
                self.task_agents.insert(id, kind.to_owned());
            }
            self.last_task_agent = Some(kind.to_owned());
        }
    }

    /// The usage of an assistant message: the last record of a `message.id` replaces the
    /// earlier ones' (docs/formats.md#usage-and-time).
    fn usage_of(&mut self, message: &Value) -> Result<(), RecordError> {
        let Some(tokens) = message
            .get("usage")
            .map(anthropic_tokens)
            .transpose()?
            .flatten()
        else {
            return Ok(());
        };
        let model = str_field(message, "model").map(str::to_owned);
        match id_field(message, "id") {
            Some(id) => {
                self.message_usage.insert(id, (model, tokens));
            }
            None => usage::add(&mut self.usage, model.as_deref(), tokens),
        }
        Ok(())
    }

    /// `mcp_servers` of `system/init`: `[{name, status}]` (or plain names).
    fn init(&mut self, record: &Value) {
        let Some(servers) = record.get("mcp_servers").and_then(Value::as_array) else {
            return;
        };
        for server in servers {
            let name = server.as_str().or_else(|| str_field(server, "name"));
            if let Some(name) = name {
                let normalized = normalize(name);
                if !self.servers.contains(&normalized) {
                    self.servers.push(normalized);
                }
            }
        }
    }

    /// The step of an assistant record. A subagent's records (`parent_tool_use_id` in
    /// stream-json, `isSidechain` in transcripts) are the work of the `Task` call that
    /// spawned them, so they take its step and begin none of their own; otherwise the
    /// records sharing a `message.id` are one step, and a record without an id is one.
    /// A subagent's own file, whose records are all `isSidechain`, is a run of its own:
    /// there its records take steps as the main agent's do.
    fn step(&mut self, record: &Value, message: &Value) -> u32 {
        let current = self.steps.saturating_sub(1);
        if let Some(parent) = id_field(record, "parent_tool_use_id") {
            return self.calls.step_of(&parent).unwrap_or(current);
        }
        if is_sidechain(record) && self.main_seen {
            return current;
        }
        let id = id_field(message, "id");
        if let Some(step) = id.as_ref().and_then(|id| self.message_steps.get(id)) {
            return *step;
        }
        let step = self.steps;
        self.steps = self.steps.saturating_add(1);
        if let Some(id) = id {
            self.message_steps.insert(id, step);
        }
        step
    }
}

/// Whether a record is a subagent's (`isSidechain: true`).
fn is_sidechain(record: &Value) -> bool {
    record.get("isSidechain").and_then(Value::as_bool) == Some(true)
}

/// A server name as Claude Code writes it into tool names: characters outside
/// `[A-Za-z0-9_-]` become `_` (`claude.ai Gmail` is `claude_ai_Gmail`).
fn normalize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Splits `mcp__S__T` by the servers `system/init` listed, where the `mcp-double` naming
/// scheme would split it wrongly: a server whose name holds `__` itself. Every other name
/// is left whole for the naming scheme, so a suite's `naming:` keeps its say.
fn split_by_servers(run: &mut Run, servers: &[String]) {
    let ambiguous: Vec<&String> = servers.iter().filter(|s| s.contains("__")).collect();
    if ambiguous.is_empty() {
        return;
    }
    for call in run.calls.iter_mut().filter(|call| call.server.is_none()) {
        let Some(rest) = call.name.strip_prefix("mcp__") else {
            continue;
        };
        let split = ambiguous
            .iter()
            .filter_map(|server| {
                let tool = rest.strip_prefix(server.as_str())?.strip_prefix("__")?;
                (!tool.is_empty()).then_some((*server, tool))
            })
            .max_by_key(|(server, _)| server.len());
        if let Some((server, tool)) = split {
            let tool = tool.to_owned();
            call.server = Some(server.clone());
            call.name = tool;
        }
    }
}

#[cfg(test)]
mod tests;
