//! The `openai-responses` format: Responses API items, as a response object with
//! `output`, a request body with `input`, a list or JSON Lines of items, and the Codex CLI
//! rollout (`~/.codex/sessions/**/rollout-*.jsonl`), which wraps the same items as
//! `{timestamp, type: response_item, payload}` among records of its own.
//!
//! Calls are `function_call` (arguments as a JSON string, the server in `namespace` when
//! there is one), `custom_tool_call` (free-form text), `mcp_call` (hosted MCP: the server in
//! `server_label`, the result and error inline), `mcp_approval_request`, and the built-in
//! tools' `*_call` items. Outputs pair with calls by `call_id`. Only `mcp_call` (`error`,
//! `status: failed`), a denied approval, a hosted tool's `status`, `apply_patch_call_output`
//! and Codex's `{content, success}` output say whether a call failed; any other paired call
//! is `unknown`. A step is one model response: a run of model output items (messages,
//! reasoning, calls) that input items (outputs, user messages) end.

use std::collections::{BTreeMap, VecDeque};

use serde_json::{Map, Value};

use crate::formats::openai_chat::{free_form_call, join, shape};
use crate::formats::{
    Adapter, Converter, Record, RecordError, complete, id_field, open_call, result_value,
    str_field, usage,
};
use crate::model::{Call, Interval, Run, Status, Tokens, Usage};

pub(crate) struct OpenAiResponses;

impl Adapter for OpenAiResponses {
    fn name(&self) -> &'static str {
        "openai-responses"
    }

    fn expects(&self) -> &'static str {
        "OpenAI Responses: a response with `output` items, a list or JSON Lines of items \
         (`{type: function_call | function_call_output | mcp_call | message, ...}`), or a \
         Codex CLI rollout (`{timestamp, type: session_meta | response_item | ..., payload}`)"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(records) => records.iter().any(is_record),
            other => is_record(other),
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(ResponsesConverter::default())
    }
}

/// The record types of a Codex rollout, each wrapping a `payload`.
const ROLLOUT_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "turn_context",
    "event_msg",
    "compacted",
];

/// A record of this format, as the first of a file: a rollout record, a stream event, a
/// response, a request body, an item, or the first line of an older Codex rollout.
fn is_record(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    if let Some(kind) = str_field(value, "type") {
        if ROLLOUT_TYPES.contains(&kind) && object.get("payload").is_some_and(Value::is_object) {
            return true;
        }
        if kind.starts_with("response.") && object.get("response").is_some_and(Value::is_object) {
            return true;
        }
        return is_item(value);
    }
    if str_field(value, "object") == Some("response") {
        return true;
    }
    let holds_items = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|items| items.iter().any(is_item))
    };
    if holds_items("output") || holds_items("input") {
        return true;
    }
    // Codex rollouts written before September 2025 begin with the bare session meta.
    object.get("id").is_some_and(Value::is_string)
        && object.contains_key("timestamp")
        && object.contains_key("instructions")
}

/// An item whose `type` only the Responses API uses. Other formats' types (`tool_call`,
/// `tool_use`, `human`) are deliberately not matched by suffix.
fn is_item(value: &Value) -> bool {
    match str_field(value, "type") {
        Some("message") => is_message_item(value),
        Some(kind) => matches!(
            kind,
            "function_call"
                | "function_call_output"
                | "custom_tool_call"
                | "custom_tool_call_output"
                | "mcp_call"
                | "mcp_list_tools"
                | "mcp_approval_request"
                | "mcp_approval_response"
                | "reasoning"
                | "web_search_call"
                | "file_search_call"
                | "code_interpreter_call"
                | "image_generation_call"
                | "computer_call"
                | "computer_call_output"
                | "local_shell_call"
                | "local_shell_call_output"
                | "shell_call"
                | "shell_call_output"
                | "apply_patch_call"
                | "apply_patch_call_output"
        ),
        None => false,
    }
}

/// A `message` item: a role, and text or Responses content parts. Anthropic responses
/// share the type but hold `text` and `tool_use` blocks and a `stop_reason`.
fn is_message_item(value: &Value) -> bool {
    if !value.get("role").is_some_and(Value::is_string) || value.get("stop_reason").is_some() {
        return false;
    }
    match value.get("content") {
        Some(Value::String(_)) => true,
        Some(Value::Array(parts)) => parts.iter().all(|part| {
            matches!(
                str_field(part, "type"),
                Some(
                    "input_text"
                        | "output_text"
                        | "refusal"
                        | "input_image"
                        | "input_file"
                        | "input_audio"
                )
            )
        }),
        _ => false,
    }
}

/// A whole document (a response, a request body) is a run of its own; loose items and
/// rollout records make up the one session of the file.
#[derive(Debug, Default)]
struct ResponsesConverter {
    session: Option<Session>,
}

impl Converter for ResponsesConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        let value = record.value()?;
        let mut runs = Vec::new();
        match &value {
            // A JSON array holds the records a JSON Lines file would hold one per line.
            Value::Array(records) => {
                for (index, element) in records.iter().enumerate() {
                    self.element(element, &format!("[{index}]"), &mut runs)?;
                }
            }
            other => self.element(other, "", &mut runs)?,
        }
        let line = record.lines.then_some(record.line);
        for run in &mut runs {
            run.line = line;
        }
        Ok(runs)
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        self.session.map(Session::into_run).into_iter().collect()
    }
}

impl ResponsesConverter {
    fn element(
        &mut self,
        value: &Value,
        path: &str,
        runs: &mut Vec<Run>,
    ) -> Result<(), RecordError> {
        let Some(object) = value.as_object() else {
            return Ok(());
        };
        let kind = str_field(value, "type");
        if let Some(kind) = kind
            && ROLLOUT_TYPES.contains(&kind)
            && let Some(payload) = object.get("payload")
        {
            let session = self.session.get_or_insert_with(Session::default);
            session.now = usage::time_field(value, "timestamp");
            if let Some(now) = session.now {
                usage::widen(&mut session.time, now, now);
            }
            match kind {
                // Codex: the model of the turn, whose token counts follow.
                "turn_context" if str_field(payload, "model").is_some() => {
                    session.model = str_field(payload, "model").map(str::to_owned);
                    session.end_response();
                }
                // Codex: each response's tokens (`last_token_usage`; `total_token_usage`
                // is the running sum, which would count them again).
                "event_msg" if str_field(payload, "type") == Some("token_count") => {
                    // An event that repeats the running sum before it (Codex writes one
                    // again when only its rate limits changed) adds no response.
                    let total = payload.pointer("/info/total_token_usage");
                    if total.is_some() && total == session.last_total.as_ref() {
                        return Ok(());
                    }
                    session.last_total = total.cloned();
                    if let Some(tokens) = payload
                        .pointer("/info/last_token_usage")
                        .map(responses_tokens)
                        .transpose()?
                        .flatten()
                    {
                        usage::add(&mut session.usage, session.model.as_deref(), tokens);
                    }
                }
                "response_item" => session.item(payload, &join(path, "payload"))?,
                // A new turn: whatever the model said last is over.
                "turn_context" => session.end_response(),
                "event_msg" if str_field(payload, "type") == Some("user_message") => {
                    session.end_response();
                }
                _ => {}
            }
            return Ok(());
        }
        if let Some(kind) = kind
            && kind.starts_with("response.")
        {
            // A saved event stream: the final event carries the whole response; the
            // deltas before it would only repeat its items.
            if matches!(
                kind,
                "response.completed" | "response.incomplete" | "response.failed"
            ) && let Some(response) = object.get("response")
            {
                runs.push(document(response, &join(path, "response"))?);
            }
            return Ok(());
        }
        if kind.is_none() {
            let is_document = str_field(value, "object") == Some("response")
                || object.get("output").is_some_and(Value::is_array)
                || object.get("input").is_some_and(Value::is_array);
            if is_document {
                runs.push(document(value, path)?);
                return Ok(());
            }
            if !object.contains_key("role") {
                // The bare session meta of an older Codex rollout opens the session;
                // its `{record_type: state}` markers and unknown records are skipped.
                if object.contains_key("instructions") {
                    self.session.get_or_insert_with(Session::default);
                }
                return Ok(());
            }
        }
        self.session
            .get_or_insert_with(Session::default)
            .item(value, path)
    }
}

/// A response (its `output`) or a request body (its `input`), or a logged exchange with
/// both: the input's items, then the output as one model response.
fn document(value: &Value, path: &str) -> Result<Run, RecordError> {
    let mut session = Session::default();
    if let Some(Value::Array(items)) = value.get("input") {
        session.items(items, &join(path, "input"))?;
    }
    session.end_response();
    if let Some(Value::Array(items)) = value.get("output") {
        session.items(items, &join(path, "output"))?;
    }
    let mut run = session.into_run();
    if let Some(tokens) = value
        .get("usage")
        .map(responses_tokens)
        .transpose()?
        .flatten()
    {
        usage::add(&mut run.usage, str_field(value, "model"), tokens);
    }
    Ok(run)
}

/// The tokens of a Responses `usage` object (Codex's `token_count` events write the same
/// keys): `input_tokens` counts the cached ones, which `input_tokens_details.cached_tokens`
/// (Codex: `cached_input_tokens`) gives apart.
fn responses_tokens(usage: &Value) -> Result<Option<Tokens>, RecordError> {
    let mut tokens = usage::tokens(
        usage,
        &["input_tokens"],
        &["output_tokens"],
        usage.get("input_tokens_details"),
        &["cached_tokens"],
    )?;
    if let Some(tokens) = &mut tokens
        && tokens.cached_input.is_none()
    {
        tokens.cached_input = usage::count(usage, "cached_input_tokens")?;
    }
    Ok(tokens)
}

/// The calls of one session, the calls still waiting for their outputs, and where the
/// current model response stands.
#[derive(Debug, Default)]
struct Session {
    calls: Vec<Call>,
    /// Open calls by `call_id`. An id written twice keeps both calls, answered in order.
    open: BTreeMap<String, VecDeque<usize>>,
    /// Calls waiting for a decision on their `mcp_approval_request`, by the request's id.
    approvals: BTreeMap<String, usize>,
    /// The model responses begun so far, which is the next one's step.
    steps: u32,
    /// The step of the model response being read, if output items are being read.
    current: Option<u32>,
    /// Codex: the model of the current turn, its usage so far, and the records' times.
    model: Option<String>,
    usage: Usage,
    time: Option<Interval>,
    /// Codex: the running sum of the last `token_count` event.
    last_total: Option<Value>,
    /// Codex: the time of the record being read.
    now: Option<i64>,
}

impl Session {
    fn items(&mut self, items: &[Value], path: &str) -> Result<(), RecordError> {
        for (index, item) in items.iter().enumerate() {
            self.item(item, &format!("{path}[{index}]"))?;
        }
        Ok(())
    }

    fn item(&mut self, item: &Value, path: &str) -> Result<(), RecordError> {
        if !item.is_object() {
            return Err(shape("an item that is not an object", path));
        }
        match str_field(item, "type") {
            // A message without a type is the API's short form of an input message.
            None | Some("message") => match str_field(item, "role") {
                Some("assistant") => {
                    self.model_output();
                }
                Some(_) => self.end_response(),
                None => {}
            },
            Some("reasoning" | "mcp_list_tools") => {
                self.model_output();
            }
            Some("function_call") => {
                let name = name(item, "function_call", path)?;
                let server = str_field(item, "namespace").and_then(namespace_server);
                let step = self.model_output();
                let call = open_call(server, name, item.get("arguments"), step);
                self.push(id_field(item, "call_id"), call);
            }
            Some("custom_tool_call") => {
                let name = name(item, "custom_tool_call", path)?;
                let step = self.model_output();
                let call = free_form_call(None, name, item.get("input"), step);
                self.push(id_field(item, "call_id"), call);
            }
            Some("mcp_call") => self.mcp_call(item, path)?,
            Some("mcp_approval_request") => {
                let name = name(item, "mcp_approval_request", path)?;
                let server = str_field(item, "server_label").map(str::to_owned);
                let step = self.model_output();
                if let Some(id) = id_field(item, "id") {
                    self.approvals.insert(id, self.calls.len());
                }
                self.calls
                    .push(open_call(server, name, item.get("arguments"), step));
            }
            Some("mcp_approval_response") => {
                self.end_response();
                self.approval_response(item);
            }
            Some(kind) if kind.ends_with("_output") => {
                self.end_response();
                self.output(item, kind);
            }
            Some(kind) => {
                if let Some(tool) = kind.strip_suffix("_call")
                    && !tool.is_empty()
                {
                    self.builtin_call(item, tool);
                }
                // Other types (compaction, item_reference, ghost_snapshot, ...) hold no
                // call and leave the response where it was.
            }
        }
        Ok(())
    }

    /// The step of the model response an output item belongs to, beginning one if none is
    /// being read.
    fn model_output(&mut self) -> u32 {
        if let Some(step) = self.current {
            return step;
        }
        let step = self.steps;
        self.steps = self.steps.saturating_add(1);
        self.current = Some(step);
        step
    }

    fn end_response(&mut self) {
        self.current = None;
    }

    /// A hosted MCP call carries its own result: `output`, or an `error` (a string, or an
    /// object in current SDKs), with `status: failed` on failure. A call made after an
    /// approval is the approval request's call, completed.
    fn mcp_call(&mut self, item: &Value, path: &str) -> Result<(), RecordError> {
        let name = name(item, "mcp_call", path)?;
        let server = str_field(item, "server_label").map(str::to_owned);
        let step = self.model_output();
        let output = item.get("output").filter(|output| !output.is_null());
        let error = item.get("error").filter(|error| match error {
            Value::Null => false,
            Value::String(text) => !text.is_empty(),
            _ => true,
        });
        let status = str_field(item, "status");
        let failed = error.is_some() || status == Some("failed");
        let finished = failed || output.is_some() || status == Some("completed");
        let approved =
            str_field(item, "approval_request_id").and_then(|id| self.approvals.remove(id));
        let index = approved.unwrap_or_else(|| {
            self.calls
                .push(open_call(server, name, item.get("arguments"), step));
            self.calls.len() - 1
        });
        if finished && let Some(call) = self.calls.get_mut(index) {
            let result = output.or(error).map(result_value);
            complete(
                call,
                result,
                if failed { Status::Error } else { Status::Ok },
            );
        }
        Ok(())
    }

    /// A denied approval ends its call as an error (with the reason, when given); an
    /// approved one waits for its `mcp_call`.
    fn approval_response(&mut self, item: &Value) {
        if item.get("approve").and_then(Value::as_bool) != Some(false) {
            return;
        }
        let Some(index) =
            str_field(item, "approval_request_id").and_then(|id| self.approvals.remove(id))
        else {
            return;
        };
        if let Some(call) = self.calls.get_mut(index) {
            let reason = item
                .get("reason")
                .filter(|reason| !reason.is_null())
                .cloned();
            complete(call, reason, Status::Error);
        }
    }

    /// A built-in tool's call, named after its type (`web_search_call` is `web_search`).
    /// Hosted tools run inside the response and report their own `status`; the others
    /// (computer, shell, `apply_patch`, ...) wait for an output item with their `call_id`.
    fn builtin_call(&mut self, item: &Value, tool: &str) {
        let step = self.model_output();
        let args = builtin_args(item);
        let mut call = open_call(None, tool.to_owned(), Some(&args), step);
        if matches!(
            tool,
            "web_search" | "file_search" | "code_interpreter" | "image_generation"
        ) {
            let status = match str_field(item, "status") {
                Some("completed") => Some(Status::Ok),
                Some("failed") => Some(Status::Error),
                _ => None,
            };
            if let Some(status) = status {
                // File search's `results` and the interpreter's `outputs`; an image's
                // base64 `result` is left out as no grader reads it.
                let result = ["results", "outputs"]
                    .iter()
                    .find_map(|key| item.get(*key).filter(|value| !value.is_null()))
                    .cloned();
                complete(&mut call, result, status);
            }
            self.calls.push(call);
        } else {
            // Codex's `local_shell_call` has no `call_id` when it came over Chat
            // Completions; its `id` then plays that part.
            let id = id_field(item, "call_id").or_else(|| {
                (tool == "local_shell")
                    .then(|| id_field(item, "id"))
                    .flatten()
            });
            self.push(id, call);
        }
    }

    /// An output item: the result of the earliest open call with its `call_id`.
    fn output(&mut self, item: &Value, kind: &str) {
        let id = id_field(item, "call_id").or_else(|| {
            (kind == "local_shell_call_output")
                .then(|| id_field(item, "id"))
                .flatten()
        });
        let Some(index) = id.and_then(|id| self.take(&id)) else {
            return;
        };
        let output = item.get("output").filter(|output| !output.is_null());
        let (result, status) = match output {
            // Codex wrote a failed call's output as `{content, success: false}` (2025).
            Some(Value::Object(fields)) if fields.get("success").is_some_and(Value::is_boolean) => {
                let success = fields.get("success").and_then(Value::as_bool) == Some(true);
                (
                    fields.get("content").map(result_value),
                    if success { Status::Ok } else { Status::Error },
                )
            }
            other => {
                let status = match (kind, str_field(item, "status")) {
                    ("apply_patch_call_output", Some("completed")) => Status::Ok,
                    ("apply_patch_call_output", Some("failed")) => Status::Error,
                    _ => Status::Unknown,
                };
                (other.map(result_value), status)
            }
        };
        if let Some(call) = self.calls.get_mut(index) {
            complete(call, result, status);
            call.time = usage::interval(call.time.map(|time| time.start_ns), self.now);
        }
    }

    fn push(&mut self, id: Option<String>, mut call: Call) {
        // Codex: the call starts at its record's time, kept as an instant until its output's
        // record ends it.
        call.time = self.now.map(|now| Interval {
            start_ns: now,
            end_ns: now,
        });
        if let Some(id) = id {
            self.open.entry(id).or_default().push_back(self.calls.len());
        }
        self.calls.push(call);
    }

    fn take(&mut self, id: &str) -> Option<usize> {
        let waiting = self.open.get_mut(id)?;
        let index = waiting.pop_front();
        if waiting.is_empty() {
            self.open.remove(id);
        }
        index
    }

    fn into_run(mut self) -> Run {
        // A call no timed output ended has only a start: no duration.
        for call in self.calls.iter_mut().filter(|call| !call.completed) {
            call.time = None;
        }
        Run {
            calls: self.calls,
            format: "",
            line: None,
            usage: self.usage,
            time: self.time,
            trace_id: None,
        }
    }
}

/// A call item's `name`, which every call type but the built-in tools requires.
fn name(item: &Value, kind: &str, path: &str) -> Result<String, RecordError> {
    str_field(item, "name")
        .map(str::to_owned)
        .ok_or_else(|| shape(&format!("a `{kind}` without a `name`"), path))
}

/// The server of a namespaced `function_call`. Codex names an MCP server's namespace
/// `mcp__<server>` (earlier `mcp__<server>__`); other namespaces are taken as they are.
fn namespace_server(namespace: &str) -> Option<String> {
    let server = namespace.strip_prefix("mcp__").unwrap_or(namespace);
    let server = server.strip_suffix("__").unwrap_or(server);
    (!server.is_empty()).then(|| server.to_owned())
}

/// What the model asked a built-in tool to do: its `action` (web search, computer, shell),
/// `operation` (`apply_patch`) or `arguments`, else the fields it wrote (file search's
/// `queries`, the interpreter's `code`, a batch of computer `actions`).
fn builtin_args(item: &Value) -> Value {
    if let Some(args) = ["action", "operation", "arguments"]
        .iter()
        .find_map(|key| item.get(*key).filter(|value| !value.is_null()))
    {
        return args.clone();
    }
    let mut args = Map::new();
    for key in ["queries", "code", "actions"] {
        if let Some(value) = item.get(key).filter(|value| !value.is_null()) {
            args.insert(key.to_owned(), value.clone());
        }
    }
    Value::Object(args)
}

#[cfg(test)]
mod tests;
