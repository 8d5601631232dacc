//! OpenTelemetry traces (FORMATS 1.6): OTLP JSON, as one `{"resourceSpans": [...]}` document
//! or the file exporter's JSON Lines (one export request per line), and the `GenAI` message
//! values (`gen_ai.input.messages`, `gen_ai.output.messages`). A file is one run.
//!
//! Tool calls are `GenAI` `execute_tool` spans, MCP `tools/call` spans, `OpenInference` `TOOL`
//! spans and Vercel AI SDK `ai.toolCall` spans. The file exporter writes spans when they end,
//! children first, so every span of the file is collected before any call is built: calls
//! are ordered by start time, then span id, then file order. One call recorded twice (an
//! `execute_tool` span with its MCP client span, or an MCP client span with the server's
//! span) becomes one call.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Number, Value};

use crate::formats::{
    Adapter, CallLog, Converter, Record, RecordError, complete, id_field, open_call, result_value,
    str_field,
};
use crate::model::{Call, Run, Status};

pub(crate) struct Otel;

impl Adapter for Otel {
    fn name(&self) -> &'static str {
        "otel"
    }

    fn expects(&self) -> &'static str {
        "an OTLP JSON export `{\"resourceSpans\": [...]}` (one per line from the file exporter), \
         or a GenAI messages value: a list of `{role, parts: [{type, ...}]}`"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(items) => {
                items
                    .first()
                    .is_some_and(|item| is_request(item) || is_sdk_span(item))
                    || (!items.is_empty() && items.iter().all(is_message))
            }
            other => {
                is_request(other) || is_message(other) || is_sdk_span(other) || is_span_map(other)
            }
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(OtelConverter::default())
    }
}

/// An OTLP export request (`TracesData` or `ExportTraceServiceRequest`).
fn is_request(value: &Value) -> bool {
    field(value, "resourceSpans", "resource_spans").is_some_and(Value::is_array)
}

/// A span as the Python SDK's `Span.to_json()` (the console exporter) writes it:
/// `{name, context: {trace_id, span_id}, kind, parent_id, start_time, attributes, ...}`.
fn is_sdk_span(value: &Value) -> bool {
    value.get("name").is_some_and(Value::is_string)
        && value
            .get("context")
            .is_some_and(|context| context.get("span_id").is_some())
}

/// One span's attributes as a flat object (`{"gen_ai.operation.name": "chat", ...}`), as
/// `OpenInference`'s and others' test fixtures and span dumps hold them.
fn is_span_map(value: &Value) -> bool {
    value.as_object().is_some_and(|object| {
        ["gen_ai.operation.name", "openinference.span.kind"]
            .iter()
            .any(|key| object.get(*key).is_some_and(Value::is_string))
    })
}

/// A `GenAI` chat message: `{role, parts}` whose parts all carry a `type`. The semconv part
/// types are written with `_` (`tool_call`); a `-` in a type marks another format's message
/// parts (the AI SDK's `tool-<name>` and `step-start`), and Gemini's parts carry no `type`.
fn is_message(value: &Value) -> bool {
    value.get("role").is_some_and(Value::is_string)
        && value
            .get("parts")
            .and_then(Value::as_array)
            .is_some_and(|parts| {
                parts
                    .iter()
                    .all(|part| str_field(part, "type").is_some_and(|kind| !kind.contains('-')))
            })
}

/// A field written in lowerCamelCase, as OTLP JSON has it, or with the protobuf field name,
/// as `MessageToJson(preserving_proto_field_name=True)` writes it.
fn field<'v>(value: &'v Value, camel: &str, snake: &str) -> Option<&'v Value> {
    value.get(camel).or_else(|| value.get(snake))
}

/// `path` followed by `key`, for error messages (`[2].resourceSpans`).
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn shape(what: &str, path: &str) -> RecordError {
    RecordError::Shape(format!("{what} at `{path}`"))
}

#[derive(Default)]
struct OtelConverter {
    spans: Vec<Span>,
    /// `(trace id, span id)` of the spans read, so that a span exported twice counts once.
    seen: BTreeSet<(String, String)>,
    messages: Messages,
}

impl Converter for OtelConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        let value = record.value()?;
        match &value {
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    self.item(item, &format!("[{index}]"))?;
                }
            }
            other => self.item(other, "")?,
        }
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        let mut calls = span_calls(&self.spans);
        calls.extend(self.messages.log.calls);
        vec![Run {
            calls,
            format: "",
            line: None,
        }]
    }
}

impl OtelConverter {
    /// One export request, message, SDK span or span attribute map; anything else is
    /// skipped.
    fn item(&mut self, item: &Value, path: &str) -> Result<(), RecordError> {
        if let Some(resources) = field(item, "resourceSpans", "resource_spans") {
            self.request(resources, &join(path, "resourceSpans"))
        } else if is_message(item) {
            self.messages.message(item, path)
        } else if is_sdk_span(item) {
            self.sdk_span(item, path)
        } else if is_span_map(item) {
            self.span_map(item, path)
        } else {
            Ok(())
        }
    }

    /// A span of the Python SDK's `to_json()`: ids as `0x`-prefixed hex, times as ISO 8601
    /// text, kind and status as enum names.
    fn sdk_span(&mut self, span: &Value, path: &str) -> Result<(), RecordError> {
        let context = span.get("context").unwrap_or(&Value::Null);
        let hex = |value: Option<&Value>| {
            value
                .and_then(Value::as_str)
                .map(|id| id.trim_start_matches("0x").to_ascii_lowercase())
                .filter(|id| !id.is_empty())
        };
        let trace = hex(context.get("trace_id")).unwrap_or_default();
        let id = hex(context.get("span_id"));
        if let Some(id) = &id
            && !self.seen.insert((trace.clone(), id.clone()))
        {
            return Ok(());
        }
        let status_error = span
            .get("status")
            .and_then(|status| status.get("status_code"))
            .is_some_and(is_error_code);
        let server_kind = str_field(span, "kind").is_some_and(|kind| kind.ends_with("SERVER"));
        let attributes = attributes(span.get("attributes"));
        let name = str_field(span, "name").unwrap_or("");
        let role = classify(&attributes, name, server_kind, status_error, path)?;
        let time = |key: &str| str_field(span, key).and_then(iso_nanos);
        self.spans.push(Span {
            order: self.spans.len(),
            trace,
            id,
            parent: hex(span.get("parent_id")),
            start: time("start_time"),
            end: time("end_time"),
            role,
        });
        Ok(())
    }

    /// One span's attributes alone: a tool span is a call; another span's chat messages
    /// (`gen_ai.input.messages`, `gen_ai.output.messages`, the older `gen_ai.prompt`, or
    /// `OpenInference`'s `llm.input_messages.<i>...` keys) are read for their calls.
    fn span_map(&mut self, map: &Value, path: &str) -> Result<(), RecordError> {
        let attributes = attributes(Some(map));
        let role = classify(&attributes, "", false, false, path)?;
        if let Role::Tool(_) = role {
            self.spans.push(Span {
                order: self.spans.len(),
                trace: String::new(),
                id: None,
                parent: None,
                start: None,
                end: None,
                role,
            });
            return Ok(());
        }
        for key in [
            "gen_ai.prompt",
            "gen_ai.input.messages",
            "gen_ai.output.messages",
        ] {
            let messages = match attributes.get(key) {
                Some(Value::String(text)) => serde_json::from_str::<Value>(text).ok(),
                Some(other) => Some(other.clone()),
                None => None,
            };
            if let Some(Value::Array(messages)) = messages {
                for (i, message) in messages.iter().filter(|m| is_message(m)).enumerate() {
                    self.messages.message(message, &format!("{key}[{i}]"))?;
                }
            }
        }
        for prefix in ["llm.input_messages.", "llm.output_messages."] {
            for (i, message) in flattened_messages(&attributes, prefix).iter().enumerate() {
                self.messages.message(message, &format!("{prefix}{i}"))?;
            }
        }
        Ok(())
    }

    fn request(&mut self, resources: &Value, path: &str) -> Result<(), RecordError> {
        let resources = resources
            .as_array()
            .ok_or_else(|| shape("expected a list", path))?;
        for (r, resource) in resources.iter().enumerate() {
            // Before OTLP 0.19 the scopes were `instrumentationLibrarySpans`.
            let (scopes, key) = match field(resource, "scopeSpans", "scope_spans") {
                Some(scopes) => (scopes, "scopeSpans"),
                None => match field(
                    resource,
                    "instrumentationLibrarySpans",
                    "instrumentation_library_spans",
                ) {
                    Some(scopes) => (scopes, "instrumentationLibrarySpans"),
                    None => continue,
                },
            };
            let path = format!("{path}[{r}].{key}");
            let scopes = scopes
                .as_array()
                .ok_or_else(|| shape("expected a list", &path))?;
            for (s, scope) in scopes.iter().enumerate() {
                let Some(spans) = scope.get("spans") else {
                    continue;
                };
                let path = format!("{path}[{s}].spans");
                let spans = spans
                    .as_array()
                    .ok_or_else(|| shape("expected a list", &path))?;
                for (i, span) in spans.iter().enumerate() {
                    self.span(span, &format!("{path}[{i}]"))?;
                }
            }
        }
        Ok(())
    }

    fn span(&mut self, span: &Value, path: &str) -> Result<(), RecordError> {
        if !span.is_object() {
            return Err(shape("expected a span object", path));
        }
        let trace = field(span, "traceId", "trace_id")
            .and_then(span_id)
            .unwrap_or_default();
        let id = field(span, "spanId", "span_id").and_then(span_id);
        if let Some(id) = &id
            && !self.seen.insert((trace.clone(), id.clone()))
        {
            return Ok(());
        }
        let status_error = span
            .get("status")
            .and_then(|status| status.get("code"))
            .is_some_and(is_error_code);
        let server_kind = span.get("kind").is_some_and(is_server_kind);
        let attributes = attributes(span.get("attributes"));
        let name = str_field(span, "name").unwrap_or("");
        let role = classify(&attributes, name, server_kind, status_error, path)?;
        self.spans.push(Span {
            order: self.spans.len(),
            trace,
            id,
            parent: field(span, "parentSpanId", "parent_span_id").and_then(span_id),
            start: field(span, "startTimeUnixNano", "start_time_unix_nano").and_then(nanos),
            end: field(span, "endTimeUnixNano", "end_time_unix_nano").and_then(nanos),
            role,
        });
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Spans.

struct Span {
    /// The position in the file, the last tie-breaker of the order.
    order: usize,
    /// The trace id, lower-case hex; empty when the span has none.
    trace: String,
    id: Option<String>,
    parent: Option<String>,
    start: Option<u64>,
    end: Option<u64>,
    role: Role,
}

impl Span {
    /// The order of calls and of steps: start time (spans without one last), span id, file
    /// order.
    fn key(&self) -> (bool, u64, &str, usize) {
        (
            self.start.is_none(),
            self.start.unwrap_or(0),
            self.id.as_deref().unwrap_or(""),
            self.order,
        )
    }

    fn tool(&self) -> Option<&ToolSpan> {
        match &self.role {
            Role::Tool(tool) => Some(tool),
            _ => None,
        }
    }
}

enum Role {
    Tool(Box<ToolSpan>),
    /// A model inference (`chat`, `text_completion`, `generate_content`, `OpenInference` `LLM`):
    /// one step.
    Inference,
    /// An agent invocation: the calls under it belong to that agent's own steps.
    Agent,
    Other,
}

/// Which side recorded a tool span. The order is the preference when one call was recorded
/// by several: the agent's own span knows the name the model used and the arguments it gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    /// `execute_tool`, `OpenInference` `TOOL`, AI SDK `ai.toolCall`.
    Tool,
    McpClient,
    McpServer,
}

impl Layer {
    fn bit(self) -> u8 {
        match self {
            Self::Tool => 1,
            Self::McpClient => 2,
            Self::McpServer => 4,
        }
    }
}

struct ToolSpan {
    layer: Layer,
    name: String,
    server: Option<String>,
    call_id: Option<String>,
    /// `jsonrpc.request.id` and `mcp.session.id`, which tie an MCP client span to the
    /// server's span of the same request.
    request: Option<(String, String)>,
    args: Option<Value>,
    result: Option<Value>,
    /// The span's status is an error, `error.type` is set, or the result is a
    /// `CallToolResult` with `isError: true`.
    error: bool,
}

/// Attribute keys tried in order for each field. The `GenAI` keys come first; the others
/// are what `OpenInference`, the AI SDK, Google ADK and Codex write.
/// Claude Code's `claude_code.tool` spans write `tool_name`, `tool_use_id` and, with
/// `OTEL_LOG_TOOL_DETAILS`, `tool_input`; some `execute_tool` spans carry bare `input` and
/// `output` (`OpenInference`'s `GenAI` test spans).
const NAME_KEYS: &[&str] = &[
    "gen_ai.tool.name",
    "tool.name",
    "mcp.tool.name",
    "ai.toolCall.name",
    "tool_name",
];
const CALL_ID_KEYS: &[&str] = &[
    "gen_ai.tool.call.id",
    "tool.call_id",
    "tool.id",
    "ai.toolCall.id",
    "tool_use_id",
];
const ARGS_KEYS: &[&str] = &[
    "gen_ai.tool.call.arguments",
    "ai.toolCall.args",
    "input.value",
    "gcp.vertex.agent.tool_call_args",
    "tool_input",
    "input",
];
const RESULT_KEYS: &[&str] = &[
    "gen_ai.tool.call.result",
    "ai.toolCall.result",
    "output.value",
    "gcp.vertex.agent.tool_response",
    "output",
];

fn classify(
    attributes: &BTreeMap<String, Value>,
    span_name: &str,
    server_kind: bool,
    status_error: bool,
    path: &str,
) -> Result<Role, RecordError> {
    let text = |key: &str| {
        attributes
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
    };
    let id = |key: &str| match attributes.get(key)? {
        Value::String(text) if !text.trim().is_empty() => Some(text.trim().to_owned()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    };
    let operation = text("gen_ai.operation.name");
    let openinference = text("openinference.span.kind").map(str::to_ascii_uppercase);
    let openinference = openinference.as_deref();
    let layer = if text("mcp.method.name") == Some("tools/call") {
        if server_kind {
            Layer::McpServer
        } else {
            Layer::McpClient
        }
    } else if operation == Some("execute_tool")
        || openinference == Some("TOOL")
        || text("ai.toolCall.name").is_some()
        || (span_name == "claude_code.tool" && text("tool_name").is_some())
    {
        Layer::Tool
    } else if matches!(
        operation,
        Some("chat" | "text_completion" | "generate_content")
    ) || openinference == Some("LLM")
        || text("ai.operationId")
            .is_some_and(|op| op.ends_with(".doGenerate") || op.ends_with(".doStream"))
    {
        return Ok(Role::Inference);
    } else if matches!(operation, Some("invoke_agent" | "create_agent"))
        || openinference == Some("AGENT")
    {
        return Ok(Role::Agent);
    } else {
        return Ok(Role::Other);
    };
    let name = NAME_KEYS
        .iter()
        .find_map(|key| text(key))
        .or_else(|| name_from_span(span_name))
        .ok_or_else(|| {
            shape(
                "a tool span without `gen_ai.tool.name` or a span name",
                path,
            )
        })?;
    // MCP has no server-name attribute; Codex writes `mcp.server.name`, and an MCP client
    // span names the host it called in `server.address`.
    let server = text("mcp.server.name").or_else(|| {
        if layer == Layer::Tool {
            None
        } else {
            text("server.address")
        }
    });
    let (result, result_error) = match RESULT_KEYS.iter().find_map(|key| attributes.get(*key)) {
        Some(value) if !value.is_null() => {
            let (result, error) = tool_result(value);
            (Some(result), error)
        }
        _ => (None, false),
    };
    Ok(Role::Tool(Box::new(ToolSpan {
        layer,
        name: name.to_owned(),
        server: server.map(str::to_owned),
        call_id: CALL_ID_KEYS.iter().find_map(|key| id(key)),
        request: id("jsonrpc.request.id").map(|request| {
            (
                request,
                text("mcp.session.id").unwrap_or_default().to_owned(),
            )
        }),
        args: ARGS_KEYS
            .iter()
            .find_map(|key| attributes.get(*key))
            .filter(|value| !value.is_null())
            .cloned(),
        result,
        // Claude Code writes `success: false` on a tool that failed.
        error: status_error
            || text("error.type").is_some()
            || result_error
            || matches!(attributes.get("success"), Some(Value::Bool(false)))
            || text("success") == Some("false"),
    })))
}

/// The tool name in a span name: `execute_tool get_weather`, `tools/call get-weather`, or
/// the bare tool name `OpenInference` uses.
fn name_from_span(span_name: &str) -> Option<&str> {
    let name = span_name.trim();
    let name = name
        .strip_prefix("execute_tool ")
        .or_else(|| name.strip_prefix("tools/call "))
        .unwrap_or(name)
        .trim();
    (!name.is_empty() && name != "execute_tool" && name != "tools/call").then_some(name)
}

/// A result as recorded: a JSON string holding an object or a list is parsed (the semconv
/// records structured values as JSON strings where attributes cannot hold them), other text
/// is kept as it is. An MCP `CallToolResult` gives its `structuredContent` or its joined text,
/// and whether `isError` is set.
fn tool_result(value: &Value) -> (Value, bool) {
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

/// The calls of the spans, in order, one per tool call however many spans recorded it.
fn span_calls(spans: &[Span]) -> Vec<Call> {
    let tree = Tree::new(spans);
    let steps = Steps::new(&tree);
    let mut tools: Vec<usize> = (0..spans.len())
        .filter(|&i| spans[i].tool().is_some())
        .collect();
    tools.sort_by_key(|&i| spans[i].key());
    let mut groups = Groups::new(spans);
    groups.merge_nested(&tree, &tools);
    groups.merge_by_id(spans, &tools);
    // Members in call order: each group's first member places the call.
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &i in &tools {
        members.entry(groups.find(i)).or_default().push(i);
    }
    let mut ordered: Vec<Vec<usize>> = members.into_values().collect();
    ordered.sort_by_key(|group| group.first().map(|&i| spans[i].key()));
    ordered
        .into_iter()
        .filter_map(|group| build_call(spans, &steps, group))
        .collect()
}

/// One call from the spans that recorded it.
fn build_call(spans: &[Span], steps: &Steps<'_>, mut group: Vec<usize>) -> Option<Call> {
    // Preference order: the agent's own span, then the MCP client's, then the server's.
    group.sort_by_key(|&i| (spans[i].tool().map(|tool| tool.layer), spans[i].key()));
    let tools: Vec<(usize, &ToolSpan)> = group
        .iter()
        .filter_map(|&i| spans[i].tool().map(|tool| (i, tool)))
        .collect();
    let &(primary, first) = tools.first()?;
    // A recorded server comes with the name that server knows the tool by; without one,
    // the agent's name is kept, which a naming scheme may still split.
    let (server, name) = tools
        .iter()
        .find_map(|(_, tool)| {
            tool.server
                .as_ref()
                .map(|server| (Some(server), &tool.name))
        })
        .unwrap_or((None, &first.name));
    let args = tools.iter().find_map(|(_, tool)| tool.args.as_ref());
    let result = tools.iter().find_map(|(_, tool)| tool.result.clone());
    let error = tools.iter().any(|(_, tool)| tool.error);
    let ended = tools
        .iter()
        .any(|&(i, _)| spans[i].end.is_some_and(|end| end > 0));
    let mut call = open_call(server.cloned(), name.clone(), args, steps.of(primary));
    if ended || error || result.is_some() {
        let status = if error { Status::Error } else { Status::Ok };
        complete(&mut call, result, status);
    }
    Some(call)
}

/// Parent links between the spans of the file, and for each span the nearest ancestor
/// that is not an [`Role::Other`] span, both worked out once: every question about a span's
/// ancestry is then answered in constant time, so that no shape of parent links (a chain of
/// thousands of spans, a cycle) makes reading slower than linear.
struct Tree<'s> {
    spans: &'s [Span],
    /// The nearest ancestor of each span whose role is not `Other`.
    marked: Vec<Option<usize>>,
}

impl<'s> Tree<'s> {
    fn new(spans: &'s [Span]) -> Self {
        let mut index = BTreeMap::new();
        for (i, span) in spans.iter().enumerate() {
            if let Some(id) = &span.id {
                index.entry((span.trace.as_str(), id.as_str())).or_insert(i);
            }
        }
        let parents: Vec<Option<usize>> = spans
            .iter()
            .map(|span| {
                let parent = span.parent.as_deref()?;
                index.get(&(span.trace.as_str(), parent)).copied()
            })
            .collect();
        let marked = nearest_marked(&parents, |i| !matches!(spans[i].role, Role::Other));
        Self { spans, marked }
    }

    /// The nearest ancestor of span `i` whose role is not `Other`: an inference, agent or
    /// tool span. A cycle of parent links through `Other` spans only (malformed input) has
    /// none.
    fn marked_ancestor(&self, i: usize) -> Option<usize> {
        self.marked.get(i).copied().flatten()
    }
}

/// For each node, its nearest proper ancestor for which `marked` holds, following `parents`;
/// `None` when the links end, or loop, before one. Linear: each node is settled once.
fn nearest_marked(parents: &[Option<usize>], marked: impl Fn(usize) -> bool) -> Vec<Option<usize>> {
    // 0: not yet, 1: on the current path, 2: settled.
    let mut state = vec![0_u8; parents.len()];
    let mut found = vec![None; parents.len()];
    let mut path = Vec::new();
    for start in 0..parents.len() {
        if state[start] == 2 {
            continue;
        }
        let mut node = start;
        let answer = loop {
            state[node] = 1;
            path.push(node);
            let Some(parent) = parents[node] else {
                break None;
            };
            if marked(parent) {
                break Some(parent);
            }
            match state[parent] {
                2 => break found[parent],
                // A loop of unmarked spans: no marked ancestor.
                1 => break None,
                _ => node = parent,
            }
        };
        // Every node on the path reached `answer` through unmarked spans only.
        for node in path.drain(..) {
            found[node] = answer;
            state[node] = 2;
        }
    }
    found
}

/// Steps: one per inference span, numbered in start order. An inference span nested in
/// another (two instrumentations of one model call) is the same step.
struct Steps<'t> {
    tree: &'t Tree<'t>,
    /// The start times of the counted inference spans that have one, in step order.
    starts: Vec<u64>,
    /// The step of each inference span, counted or nested; `None` for other spans.
    inference_step: Vec<Option<u32>>,
}

impl<'t> Steps<'t> {
    fn new(tree: &'t Tree<'t>) -> Self {
        let spans = tree.spans;
        let mut counted: Vec<usize> = (0..spans.len())
            .filter(|&i| matches!(spans[i].role, Role::Inference))
            .filter(|&i| nearest_inference(tree, i).is_none())
            .collect();
        counted.sort_by_key(|&i| spans[i].key());
        let step: BTreeMap<usize, u32> = counted
            .iter()
            .zip(0_u32..)
            .map(|(&i, step)| (i, step))
            .collect();
        let starts = counted.iter().filter_map(|&i| spans[i].start).collect();
        // An uncounted inference span is nested in another through `Other` spans only; its
        // step is that of the counted span at the top of the nesting.
        let counted_above = nearest_marked(
            &(0..spans.len())
                .map(|i| nearest_inference(tree, i))
                .collect::<Vec<_>>(),
            |i| step.contains_key(&i),
        );
        let inference_step = (0..spans.len())
            .map(|i| {
                step.get(&i)
                    .or_else(|| counted_above[i].and_then(|c| step.get(&c)))
                    .copied()
            })
            .collect();
        Self {
            tree,
            starts,
            inference_step,
        }
    }

    /// The step of a tool span: its inference ancestor's, when the parent links reach one
    /// before an agent or another tool span; otherwise the last inference span that started
    /// at or before it (instrumentations often make tool spans siblings of the inference
    /// that asked for them); 0 without either.
    fn of(&self, i: usize) -> u32 {
        if let Some(inference) = nearest_inference(self.tree, i) {
            return self.of_inference(inference);
        }
        let Some(start) = self.tree.spans[i].start else {
            return 0;
        };
        let before = self.starts.partition_point(|&s| s <= start);
        u32::try_from(before.saturating_sub(1)).unwrap_or(u32::MAX)
    }

    /// The step of an inference span: its own when it is counted, otherwise that of the
    /// counted inference span it is nested in (0 without one).
    fn of_inference(&self, i: usize) -> u32 {
        self.inference_step.get(i).copied().flatten().unwrap_or(0)
    }
}

/// The nearest inference ancestor of span `i`, searched up to the first agent or tool span.
fn nearest_inference(tree: &Tree<'_>, i: usize) -> Option<usize> {
    tree.marked_ancestor(i)
        .filter(|&a| matches!(tree.spans[a].role, Role::Inference))
}

/// Tool spans grouped by the call they record (union-find over span indices).
struct Groups {
    parent: Vec<usize>,
    /// The layers present in each group, by root.
    layers: Vec<u8>,
}

impl Groups {
    fn new(spans: &[Span]) -> Self {
        Self {
            parent: (0..spans.len()).collect(),
            layers: spans
                .iter()
                .map(|span| span.tool().map_or(0, |tool| tool.layer.bit()))
                .collect(),
        }
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[b] = a;
            self.layers[a] |= self.layers[b];
        }
    }

    /// Whether `a` and `b` are in different groups that share no layer: an id seen on two
    /// spans of the same layer is two calls, not one recorded twice.
    fn disjoint(&mut self, a: usize, b: usize) -> bool {
        let (a, b) = (self.find(a), self.find(b));
        a != b && self.layers[a] & self.layers[b] == 0
    }

    /// A tool span inside another tool span (an MCP client span under `execute_tool`, the
    /// server's span under the client's, two instrumentations of one call) is the same call
    /// when nothing says otherwise: no agent or inference span between them, no conflicting
    /// call ids, and matching names.
    fn merge_nested(&mut self, tree: &Tree<'_>, tools: &[usize]) {
        for &b in tools {
            let Some(a) = tree.marked_ancestor(b) else {
                continue;
            };
            if let (Role::Tool(outer), Some(inner)) = (&tree.spans[a].role, tree.spans[b].tool())
                && same_call(outer, inner)
            {
                self.union(a, b);
            }
        }
    }

    /// Spans of different layers with the same `gen_ai.tool.call.id`, or an MCP client span
    /// and a server span with the same JSON-RPC request id in the same session, are one call.
    fn merge_by_id(&mut self, spans: &[Span], tools: &[usize]) {
        let mut by_call: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        let mut by_request: BTreeMap<(&str, &str, &str), Vec<usize>> = BTreeMap::new();
        for &b in tools {
            let Some(tool) = spans[b].tool() else {
                continue;
            };
            if let Some(id) = &tool.call_id {
                let earlier = by_call.entry(id.as_str()).or_default();
                for &a in earlier.iter() {
                    if let Some(other) = spans[a].tool()
                        && other.layer != tool.layer
                        && names_match(&other.name, &tool.name)
                        && self.disjoint(a, b)
                    {
                        self.union(a, b);
                    }
                }
                earlier.push(b);
            }
            if let Some((request, session)) = &tool.request
                && tool.layer != Layer::Tool
            {
                let key = (request.as_str(), session.as_str(), tool.name.as_str());
                let earlier = by_request.entry(key).or_default();
                for &a in earlier.iter() {
                    if spans[a]
                        .tool()
                        .is_some_and(|other| other.layer != tool.layer)
                        && self.disjoint(a, b)
                    {
                        self.union(a, b);
                    }
                }
                earlier.push(b);
            }
        }
    }
}

/// Whether a tool span nested in another records the same call.
fn same_call(outer: &ToolSpan, inner: &ToolSpan) -> bool {
    match (&outer.call_id, &inner.call_id) {
        (Some(a), Some(b)) if a != b => false,
        (Some(a), Some(b)) if a == b => true,
        _ => names_match(&outer.name, &inner.name),
    }
}

/// Equal names, or one name that is the other with a prefix ending in a separator: the
/// agent's `mcp__github__search_issues` and the MCP server's `search_issues`.
fn names_match(a: &str, b: &str) -> bool {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    long == short
        || long
            .strip_suffix(short)
            .is_some_and(|prefix| prefix.ends_with(['_', '-', '.', '/', ':']) && !short.is_empty())
}

// ---------------------------------------------------------------------------------------
// Attribute values and the protobuf JSON mapping.

/// Attributes as a map from key to JSON: the OTLP list of `{key, value: AnyValue}`, or (as
/// some exporters write it) an object of plain values. The first of a repeated key wins.
fn attributes(value: Option<&Value>) -> BTreeMap<String, Value> {
    let mut map = BTreeMap::new();
    match value {
        Some(Value::Array(entries)) => {
            for entry in entries {
                if let Some(key) = str_field(entry, "key") {
                    let value = entry.get("value").map_or(Value::Null, any_value);
                    map.entry(key.to_owned()).or_insert(value);
                }
            }
        }
        Some(Value::Object(entries)) => {
            for (key, value) in entries {
                map.insert(key.clone(), any_value(value));
            }
        }
        _ => {}
    }
    map
}

/// An OTLP `AnyValue` as plain JSON. A value that is not an `AnyValue` is kept as it is.
fn any_value(value: &Value) -> Value {
    let Value::Object(map) = value else {
        return value.clone();
    };
    if map.is_empty() {
        return Value::Null;
    }
    let mut entries = map.iter();
    let (Some((key, inner)), None) = (entries.next(), entries.next()) else {
        return value.clone();
    };
    match key.as_str() {
        "stringValue" | "string_value" | "boolValue" | "bool_value" | "bytesValue"
        | "bytes_value" => inner.clone(),
        // 64-bit integers are decimal strings in the protobuf JSON mapping.
        "intValue" | "int_value" => match inner {
            Value::String(text) => text
                .trim()
                .parse::<i64>()
                .map(Value::from)
                .or_else(|_| text.trim().parse::<u64>().map(Value::from))
                .unwrap_or_else(|_| inner.clone()),
            other => other.clone(),
        },
        // `NaN` and `Infinity` arrive as strings and stay strings.
        "doubleValue" | "double_value" => match inner {
            Value::String(text) => text
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .map_or_else(|| inner.clone(), Value::Number),
            other => other.clone(),
        },
        "arrayValue" | "array_value" => Value::Array(
            inner
                .get("values")
                .and_then(Value::as_array)
                .map(|values| values.iter().map(any_value).collect())
                .unwrap_or_default(),
        ),
        "kvlistValue" | "kvlist_value" => {
            let mut object = Map::new();
            for entry in inner
                .get("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(key) = str_field(entry, "key") {
                    let value = entry.get("value").map_or(Value::Null, any_value);
                    object.insert(key.to_owned(), value);
                }
            }
            Value::Object(object)
        }
        _ => value.clone(),
    }
}

/// A trace or span id as lower-case hex. OTLP JSON writes hex; the plain protobuf JSON
/// mapping writes bytes as base64. An all-zero id is the empty parent of a root span.
fn span_id(value: &Value) -> Option<String> {
    let text = match value {
        Value::String(text) => text.trim().to_owned(),
        Value::Number(number) => number.to_string(),
        _ => return None,
    };
    let is_hex = !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit());
    let id = if is_hex && matches!(text.len(), 16 | 32) {
        text.to_ascii_lowercase()
    } else if let Some(bytes) = base64(&text).filter(|bytes| matches!(bytes.len(), 8 | 16)) {
        bytes.iter().fold(String::new(), |mut hex, b| {
            hex.push(char::from(HEX[usize::from(b >> 4)]));
            hex.push(char::from(HEX[usize::from(b & 0xf)]));
            hex
        })
    } else if is_hex {
        text.to_ascii_lowercase()
    } else {
        text
    };
    (!id.is_empty() && !id.bytes().all(|b| b == b'0')).then_some(id)
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Standard or URL-safe base64, padded or not; `None` when `text` is not base64.
fn base64(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut bits: u32 = 0;
    let mut count = 0;
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for c in text.bytes() {
        let sextet = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(sextet);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push(u8::try_from((bits >> count) & 0xff).ok()?);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

/// A time in Unix nanoseconds, a decimal string or a number; 0 (the protobuf default)
/// means none.
fn nanos(value: &Value) -> Option<u64> {
    match value {
        Value::String(text) => text.trim().parse().ok(),
        Value::Number(number) => number.as_u64(),
        _ => None,
    }
    .filter(|&nanos| nanos > 0)
}

/// A time written as ISO 8601 UTC text (`2024-05-01T12:00:00.123456Z`), in nanoseconds
/// since the epoch: the Python SDK writes span times so.
pub(crate) fn iso_nanos(text: &str) -> Option<u64> {
    let text = text.trim().strip_suffix('Z').unwrap_or(text.trim());
    let (date, time) = text.split_once('T')?;
    let mut date = date.splitn(3, '-').map(str::parse::<i64>);
    let (year, month, day) = (date.next()?.ok()?, date.next()?.ok()?, date.next()?.ok()?);
    let (clock, fraction) = time.split_once('.').unwrap_or((time, ""));
    let mut clock = clock.splitn(3, ':').map(str::parse::<i64>);
    let (hour, minute, second) = (
        clock.next()?.ok()?,
        clock.next()?.ok()?,
        clock.next()?.ok()?,
    );
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || fraction.len() > 9 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let shifted = if month <= 2 { year - 1 } else { year };
    let era = shifted.div_euclid(400);
    let year_of_era = shifted - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second;
    let fraction: u64 = if fraction.is_empty() {
        0
    } else {
        format!("{fraction:0<9}").parse().ok()?
    };
    u64::try_from(seconds)
        .ok()?
        .checked_mul(1_000_000_000)?
        .checked_add(fraction)
        .filter(|&nanos| nanos > 0)
}

/// `OpenInference`'s flattened messages (`llm.input_messages.<i>.message.role`, `.content`,
/// `.tool_calls.<j>.tool_call.{id, function.name, function.arguments}`, `.tool_call_id`),
/// rebuilt as `GenAI` messages in index order: tool calls as `tool_call` parts, a tool
/// message as the `tool_call_response` of its `tool_call_id`.
fn flattened_messages(attributes: &BTreeMap<String, Value>, prefix: &str) -> Vec<Value> {
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

/// `kind` 2, `SPAN_KIND_SERVER`.
fn is_server_kind(value: &Value) -> bool {
    match value {
        Value::Number(number) => number.as_u64() == Some(2),
        Value::String(text) => matches!(
            text.trim().to_ascii_uppercase().as_str(),
            "SPAN_KIND_SERVER" | "SERVER" | "2"
        ),
        _ => false,
    }
}

/// `status.code` 2, `STATUS_CODE_ERROR`.
fn is_error_code(value: &Value) -> bool {
    match value {
        Value::Number(number) => number.as_u64() == Some(2),
        Value::String(text) => matches!(
            text.trim().to_ascii_uppercase().as_str(),
            "STATUS_CODE_ERROR" | "ERROR" | "2"
        ),
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------
// GenAI messages values.

/// Calls from `{role, parts}` messages: `tool_call` parts are calls, `tool_call_response`
/// parts their results, paired by `id`. A model message (`assistant`, `model`) is a step.
#[derive(Default)]
struct Messages {
    log: CallLog,
    /// The model messages seen so far.
    responses: u32,
    /// Call ids seen so far: the input messages of a later inference repeat the history.
    ids: BTreeSet<String>,
}

impl Messages {
    fn message(&mut self, message: &Value, path: &str) -> Result<(), RecordError> {
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

#[cfg(test)]
mod tests;
