//! The Gemini API (`generateContent` and streamed responses, request bodies, gemini-cli's
//! recorded responses and chat checkpoints), and the part-level reading the ADK adapter
//! shares: `functionCall` and `functionResponse` parts, paired by id or, since Gemini often
//! sends no ids, by name in order.

use serde_json::Value;

use crate::formats::{
    Adapter, Converter, Record, RecordError, complete, id_field, open_call, usage,
};
use crate::model::{Call, Interval, Run, Status, Tokens};
use crate::naming::Naming;

pub(crate) struct Gemini;

/// The methods of gemini-cli's recorded responses (`gemini --record-responses FILE`).
const METHODS: &[&str] = &[
    "generateContent",
    "generateContentStream",
    "countTokens",
    "embedContent",
];

impl Adapter for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn expects(&self) -> &'static str {
        "a Gemini `generateContent` response (`candidates`), a gemini-cli recorded response \
         (`{method, response}`), a request body (`contents` of `{role, parts}`) or a list of \
         such contents"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(items) => items
                .first()
                .is_some_and(|item| is_record(item) || is_content(item)),
            other => is_record(other),
        }
    }

    fn naming(&self) -> Naming {
        // Gemini CLI names MCP tools `mcp_<server>_<tool>`, which only a list of servers can
        // split; with no list nothing is split.
        Naming::McpSingle {
            servers: Vec::new(),
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(GeminiConverter::default())
    }
}

/// Whether `value` is one record of the format: a response, a recorded response, a request
/// body, a request/response pair or a chat checkpoint.
fn is_record(value: &Value) -> bool {
    is_response(value)
        || is_recorded(value)
        || is_history(value.get("contents"))
        || is_history(value.get("history"))
        || value
            .get("request")
            .is_some_and(|request| is_history(request.get("contents")))
}

/// A `GenerateContentResponse`.
fn is_response(value: &Value) -> bool {
    value.get("candidates").is_some_and(Value::is_array)
}

/// gemini-cli's `{method, response}` record.
fn is_recorded(value: &Value) -> bool {
    value
        .get("method")
        .and_then(Value::as_str)
        .is_some_and(|method| METHODS.contains(&method))
        && value.get("response").is_some()
}

/// A non-empty list of contents.
fn is_history(value: Option<&Value>) -> bool {
    value
        .and_then(Value::as_array)
        .and_then(|items| items.first())
        .is_some_and(is_content)
}

/// A `Content`: `{role, parts}`. OpenTelemetry's generative-AI messages are `{role, parts}` too, but
/// their roles are `assistant` and `tool`, and their parts are typed (`{type: text, ...}`);
/// a Gemini part is keyed by its kind (`{text}`, `{functionCall}`) instead.
fn is_content(value: &Value) -> bool {
    let role_fits = value
        .get("role")
        .is_none_or(|role| role.as_str().is_some_and(|role| ROLES.contains(&role)));
    let parts_fit = value
        .get("parts")
        .and_then(Value::as_array)
        .is_some_and(|parts| {
            parts
                .iter()
                .all(|part| !part.get("type").is_some_and(Value::is_string))
        });
    role_fits && parts_fit
}

/// The roles of Gemini contents.
const ROLES: &[&str] = &["user", "model", "function", "system"];

/// `path.key`, for the paths in error messages.
pub(super) fn at(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// `path[index]`.
pub(super) fn index(path: &str, index: usize) -> String {
    format!("{path}[{index}]")
}

/// The first of `keys` that `value` holds with a value other than `null`: the API writes
/// camelCase, Python dumps `snake_case`, and dumps spell absent parts as `null`.
pub(super) fn field<'v>(value: &'v Value, keys: &[&str]) -> Option<&'v Value> {
    keys.iter()
        .find_map(|key| value.get(*key))
        .filter(|found| !found.is_null())
}

/// A call read from a part, not yet placed in a step.
pub(super) struct Pending<'v> {
    id: Option<String>,
    name: String,
    args: Option<&'v Value>,
}

/// Reads a `FunctionCall` object (`{name, args, id?}`); `path` locates it for errors.
pub(super) fn pending_call<'v>(call: &'v Value, path: &str) -> Result<Pending<'v>, RecordError> {
    let name = call.get("name").and_then(Value::as_str).ok_or_else(|| {
        RecordError::Shape(format!("a function call without a `name` at `{path}`"))
    })?;
    Ok(Pending {
        id: id_field(call, "id"),
        name: name.to_owned(),
        args: call.get("args"),
    })
}

/// The calls of the `functionCall` parts of `parts`.
pub(super) fn calls_in<'v>(
    parts: &'v [Value],
    path: &str,
) -> Result<Vec<Pending<'v>>, RecordError> {
    let mut calls = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if let Some(call) = field(part, &["functionCall", "function_call"]) {
            calls.push(pending_call(call, &index(path, i))?);
        }
    }
    Ok(calls)
}

/// The `FunctionResponse` objects of the `functionResponse` parts of `parts`.
pub(super) fn responses_in(parts: &[Value]) -> impl Iterator<Item = &Value> {
    parts
        .iter()
        .filter_map(|part| field(part, &["functionResponse", "function_response"]))
}

/// Calls in order with their ids and the end of each step, answered by id or by name.
#[derive(Debug, Default)]
pub(super) struct Trajectory {
    calls: Vec<Call>,
    ids: Vec<Option<String>>,
    /// For each step, the number of calls made up to its end. A history that is read again
    /// (each request body repeats the conversation so far) pairs its results only with the
    /// calls made up to where it stands, never with later calls of the same name.
    step_ends: Vec<usize>,
    /// The time of the record being read, where the format records one (ADK's events):
    /// a call starts when the record that makes it was written and ends when the one
    /// answering it was (docs/formats.md#usage-and-time).
    now: Option<i64>,
}

impl Trajectory {
    /// Sets the time of the record about to be read.
    pub(super) fn set_now(&mut self, now: Option<i64>) {
        self.now = now;
    }

    /// The number of calls so far.
    pub(super) fn len(&self) -> usize {
        self.calls.len()
    }

    /// Sets the agent of the calls from the `from`-th on: those of the step just added.
    pub(super) fn set_agent_from(&mut self, from: usize, agent: Option<&str>) {
        for call in self.calls.iter_mut().skip(from) {
            call.agent = agent.and_then(crate::formats::agent_name);
        }
    }

    /// The number of calls made up to the end of step `step`, if there is such a step.
    pub(super) fn step_end(&self, step: usize) -> Option<usize> {
        self.step_ends.get(step).copied()
    }

    /// Adds `calls` as a new step; a response without calls opens none.
    pub(super) fn add_step(&mut self, calls: Vec<Pending<'_>>) -> Option<u32> {
        if calls.is_empty() {
            return None;
        }
        let step = u32::try_from(self.step_ends.len()).unwrap_or(u32::MAX);
        self.push(calls, step);
        self.step_ends.push(self.calls.len());
        Some(step)
    }

    /// Adds `calls` to the last step, `step`: the next chunk of one streamed response.
    fn extend_step(&mut self, calls: Vec<Pending<'_>>, step: u32) {
        self.push(calls, step);
        if let Some(end) = self.step_ends.last_mut() {
            *end = self.calls.len();
        }
    }

    fn push(&mut self, calls: Vec<Pending<'_>>, step: u32) {
        for pending in calls {
            let mut call = open_call(None, pending.name, pending.args, step);
            // The start is kept as an instant until a timed response ends the call.
            call.time = self.now.map(|now| Interval {
                start_ns: now,
                end_ns: now,
            });
            self.calls.push(call);
            self.ids.push(pending.id);
        }
    }

    /// Pairs a `FunctionResponse` (`{name, response, id?}`) with the first open call among
    /// the first `limit`: the one with its id or, when no call has that id (Gemini leaves
    /// ids out, and clients fill in their own on one side only), the first of its name.
    /// A response that pairs with nothing is ignored.
    pub(super) fn answer(&mut self, response: &Value, limit: usize) {
        let now = self.now;
        let id = id_field(response, "id");
        let name = response.get("name").and_then(Value::as_str);
        let open = || {
            self.calls
                .iter()
                .zip(&self.ids)
                .take(limit)
                .enumerate()
                .filter(|(_, (call, _))| !call.completed)
        };
        let by_id = id.as_deref().and_then(|id| {
            open()
                .find(|(_, (_, call_id))| call_id.as_deref() == Some(id))
                .map(|(i, _)| i)
        });
        let by_name = || {
            let name = name?;
            open()
                .find(|(_, (call, call_id))| {
                    call.name == name && (id.is_none() || call_id.is_none())
                })
                .map(|(i, _)| i)
        };
        let Some(call) = by_id.or_else(by_name).and_then(|i| self.calls.get_mut(i)) else {
            return;
        };
        let result = field(response, &["response"]).cloned();
        let status = response_status(result.as_ref());
        complete(call, result, status);
        call.time = usage::interval(call.time.map(|time| time.start_ns), now);
    }

    /// Pairs every `functionResponse` part of `parts`.
    pub(super) fn answer_parts(&mut self, parts: &[Value], limit: usize) {
        for response in responses_in(parts) {
            self.answer(response, limit);
        }
    }

    /// The calls as one run.
    pub(super) fn into_run(self) -> Run {
        let mut calls = self.calls;
        // A call no timed response ended has only a start: no duration.
        for call in calls.iter_mut().filter(|call| !call.completed) {
            call.time = None;
        }
        Run {
            calls,
            format: "",
            line: None,
            ..Default::default()
        }
    }
}

/// The status a function response gives its call. The API's documented error signal is an
/// `error` key in `response`; ADK's MCP tools pass MCP's `isError` through as well.
fn response_status(response: Option<&Value>) -> Status {
    let failed = response.is_some_and(|response| {
        response.get("error").is_some_and(|error| !error.is_null())
            || response.get("isError").and_then(Value::as_bool) == Some(true)
    });
    if failed { Status::Error } else { Status::Ok }
}

/// The last response read, so that the chunks of one streamed response share a step.
#[derive(Debug)]
struct LastResponse {
    id: Option<String>,
    step: Option<u32>,
}

#[derive(Debug, Default)]
struct GeminiConverter {
    trajectory: Trajectory,
    last: Option<LastResponse>,
    /// Each response's `modelVersion` and `usageMetadata`: a later chunk of a streamed
    /// response replaces the earlier chunks' counts, which it includes.
    usage: Vec<(Option<String>, Tokens)>,
}

/// The tokens of a Gemini `usageMetadata`: `promptTokenCount` counts the cached ones
/// (`cachedContentTokenCount`); the thoughts are output, as they are billed.
pub(super) fn gemini_tokens(metadata: &Value) -> Result<Option<Tokens>, RecordError> {
    usage::thinking_tokens(
        metadata,
        &["promptTokenCount", "prompt_token_count"],
        &["candidatesTokenCount", "candidates_token_count"],
        &["cachedContentTokenCount", "cached_content_token_count"],
        &["thoughtsTokenCount", "thoughts_token_count"],
    )
}

impl GeminiConverter {
    fn document(&mut self, value: &Value) -> Result<(), RecordError> {
        match value {
            Value::Array(items) if items.first().is_some_and(is_content) => self.history(items, ""),
            // One body of `streamGenerateContent`: the chunks of one response.
            Value::Array(items) if items.first().is_some_and(is_response) => self.stream(items, ""),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.object(item, &index("", i))?;
                }
                Ok(())
            }
            other => self.object(other, ""),
        }
    }

    fn object(&mut self, value: &Value, path: &str) -> Result<(), RecordError> {
        // A request comes before its response: it answers the calls of earlier steps.
        for key in ["contents", "history"] {
            if let Some(contents) = value.get(key).and_then(Value::as_array) {
                self.history(contents, &at(path, key))?;
            }
        }
        if let Some(contents) = value
            .get("request")
            .and_then(|request| request.get("contents"))
            .and_then(Value::as_array)
        {
            self.history(contents, &at(path, "request.contents"))?;
        }
        if is_response(value) {
            let continues = self
                .last
                .as_ref()
                .is_some_and(|last| last.id.is_some() && last.id.as_deref() == response_id(value));
            self.response(value, path, continues)?;
        }
        let counted = value
            .get("method")
            .and_then(Value::as_str)
            .is_none_or(|method| method.starts_with("generateContent"));
        match value.get("response") {
            Some(Value::Array(chunks)) if counted => self.stream(chunks, &at(path, "response")),
            Some(response) if counted && is_response(response) => {
                self.response(response, &at(path, "response"), false)
            }
            _ => Ok(()),
        }
    }

    /// The chunks of one streamed response: one step, unless their `responseId`s say they
    /// are several responses.
    fn stream(&mut self, chunks: &[Value], path: &str) -> Result<(), RecordError> {
        // The id of the response being read: a chunk without one continues it.
        let mut current: Option<&str> = None;
        for (i, chunk) in chunks.iter().enumerate() {
            let id = response_id(chunk);
            let continues = i > 0
                && match (current, id) {
                    (Some(current), Some(id)) => current == id,
                    _ => true,
                };
            self.response(chunk, &index(path, i), continues)?;
            current = id.or(if continues { current } else { None });
        }
        Ok(())
    }

    /// One response or chunk; `continues` says it is the next chunk of the last response.
    fn response(
        &mut self,
        response: &Value,
        path: &str,
        continues: bool,
    ) -> Result<(), RecordError> {
        let mut step = if continues {
            self.last.as_ref().and_then(|last| last.step)
        } else {
            None
        };
        if let Some(tokens) = field(response, &["usageMetadata", "usage_metadata"])
            .map(gemini_tokens)
            .transpose()?
            .flatten()
        {
            let model = field(response, &["modelVersion", "model_version"])
                .and_then(Value::as_str)
                .map(str::to_owned);
            match self.usage.last_mut() {
                Some(last) if continues => *last = (model, tokens),
                _ => self.usage.push((model, tokens)),
            }
        }
        let candidates = response.get("candidates").and_then(Value::as_array);
        for (i, candidate) in candidates.into_iter().flatten().enumerate() {
            // Other candidates are alternatives the agent did not act on.
            if candidate
                .get("index")
                .and_then(Value::as_u64)
                .is_some_and(|n| n != 0)
            {
                continue;
            }
            let parts_path = at(&index(&at(path, "candidates"), i), "content.parts");
            let Some(parts) = candidate
                .get("content")
                .and_then(|content| content.get("parts"))
                .and_then(Value::as_array)
            else {
                continue;
            };
            let calls = calls_in(parts, &parts_path)?;
            match step {
                Some(step) => self.trajectory.extend_step(calls, step),
                None => step = self.trajectory.add_step(calls),
            }
            let limit = self.trajectory.len();
            self.trajectory.answer_parts(parts, limit);
        }
        self.last = Some(LastResponse {
            id: response_id(response).map(str::to_owned),
            step,
        });
        Ok(())
    }

    /// A conversation so far (a request's `contents`, or a checkpoint's `history`). Its
    /// model turns with calls are the steps so far: those already read are only used to
    /// place the results that follow them.
    fn history(&mut self, contents: &[Value], path: &str) -> Result<(), RecordError> {
        self.last = None;
        let mut seen = 0;
        let mut limit = 0;
        for (i, content) in contents.iter().enumerate() {
            let Some(parts) = content.get("parts").and_then(Value::as_array) else {
                continue;
            };
            let calls = calls_in(parts, &at(&index(path, i), "parts"))?;
            if !calls.is_empty() {
                if let Some(end) = self.trajectory.step_end(seen) {
                    limit = end;
                } else {
                    self.trajectory.add_step(calls);
                    limit = self.trajectory.len();
                }
                seen += 1;
            }
            self.trajectory.answer_parts(parts, limit);
        }
        Ok(())
    }
}

/// A response's `responseId`.
fn response_id(response: &Value) -> Option<&str> {
    field(response, &["responseId", "response_id"]).and_then(Value::as_str)
}

impl Converter for GeminiConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        self.document(&record.value()?)?;
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        let mut run = self.trajectory.into_run();
        for (model, tokens) in self.usage {
            usage::add(&mut run.usage, model.as_deref(), tokens);
        }
        vec![run]
    }
}

#[cfg(test)]
mod tests;
