//! OpenTelemetry traces
//! (docs/formats.md#opentelemetry-genai-semantic-conventions-mcp-openinference): OTLP JSON,
//! as one `{"resourceSpans": [...]}` document or the file exporter's JSON Lines (one export
//! request per line), and the `GenAI` message values (`gen_ai.input.messages`,
//! `gen_ai.output.messages`). Each trace id of a file is one run.
//!
//! Tool calls are `GenAI` `execute_tool` spans, MCP `tools/call` spans, `OpenInference` `TOOL`
//! spans and Vercel AI SDK `ai.toolCall` spans. The file exporter writes spans when they end,
//! children first, so every span of the file is collected before any call is built: calls
//! are ordered by start time, then span id, then file order. One call recorded twice (an
//! `execute_tool` span with its MCP client span, or an MCP client span with the server's
//! span) becomes one call.
//!
//! This file holds the adapter (what the format detects) and the converter, which reads the
//! file's shapes (export requests with their resources, scopes and spans; the Python SDK's
//! spans; span attribute maps; messages) into spans and messages. The rest is in submodules:
//! - [`values`]: values as OTLP JSON writes them (attributes and their `AnyValue`s, ids,
//!   times, the span kind and status code);
//! - [`spans`]: one span as read, and what its attributes say it is (a tool call, an
//!   inference, an agent);
//! - [`calls`]: the calls of all the file's spans (their parent tree, the steps, the order,
//!   and the spans that recorded one call);
//! - [`messages`]: the calls and results in `GenAI` messages.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use self::calls::span_calls;
use self::messages::{Messages, flattened_messages};
use self::spans::{Role, Span, agent_name, classify};
use self::values::{attributes, is_error_code, is_server_kind, nanos, span_id};
use crate::formats::{Adapter, Converter, Record, RecordError, str_field, usage};
use crate::model::{Interval, Run, Tokens, Usage};

pub(crate) use self::values::iso_nanos;

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
    /// Per trace id (empty for spans without one), the usage of the spans read and the span
    /// of their times.
    usage: BTreeMap<String, (Usage, Option<Interval>)>,
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

    /// Each trace id is one run: the traces that hold a tool, inference or agent span, in
    /// order of their earliest span start (traces without one last), then trace id. Calls
    /// read from `GenAI` message values, which belong to no trace, are one more run, last; a
    /// file with neither is one run without calls.
    fn finish(self: Box<Self>) -> Vec<Run> {
        let mut usage = self.usage;
        let mut traces: BTreeMap<String, Vec<Span>> = BTreeMap::new();
        for span in self.spans {
            traces.entry(span.trace.clone()).or_default().push(span);
        }
        let mut runs: Vec<((bool, u64), Run)> = traces
            .into_iter()
            .filter(|(_, spans)| spans.iter().any(|span| !matches!(span.role, Role::Other)))
            .map(|(trace, spans)| {
                let earliest = spans.iter().filter_map(|span| span.start).min();
                let (usage, time) = usage.remove(&trace).unwrap_or_default();
                let run = Run {
                    calls: span_calls(&spans),
                    usage,
                    time,
                    trace_id: (!trace.is_empty()).then_some(trace),
                    ..Run::default()
                };
                ((earliest.is_none(), earliest.unwrap_or(0)), run)
            })
            .collect();
        // A stable sort: traces that start together stay in trace id order.
        runs.sort_by_key(|(earliest, _)| *earliest);
        let mut runs: Vec<Run> = runs.into_iter().map(|(_, run)| run).collect();
        let messages = self.messages.log.calls;
        if !messages.is_empty() || runs.is_empty() {
            // The usage of spans without a trace id that made no run of their own.
            let (usage, time) = usage.remove("").unwrap_or_default();
            runs.push(Run {
                calls: messages,
                usage,
                time,
                ..Run::default()
            });
        }
        runs
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
        self.usage_of(&trace, &attributes, time("start_time"), time("end_time"))?;
        self.spans.push(Span {
            order: self.spans.len(),
            trace,
            id,
            parent: hex(span.get("parent_id")),
            start: time("start_time"),
            end: time("end_time"),
            role,
            agent: agent_name(&attributes),
        });
        Ok(())
    }

    /// One span's attributes alone: a tool span is a call; another span's chat messages
    /// (`gen_ai.input.messages`, `gen_ai.output.messages`, the older `gen_ai.prompt`, or
    /// `OpenInference`'s `llm.input_messages.<i>...` keys) are read for their calls.
    fn span_map(&mut self, map: &Value, path: &str) -> Result<(), RecordError> {
        let attributes = attributes(Some(map));
        let role = classify(&attributes, "", false, false, path)?;
        self.usage_of("", &attributes, None, None)?;
        if let Role::Tool(_) = role {
            self.spans.push(Span {
                order: self.spans.len(),
                trace: String::new(),
                id: None,
                parent: None,
                start: None,
                end: None,
                role,
                agent: agent_name(&attributes),
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

    /// A span's `gen_ai.usage.*` tokens, under its `gen_ai.response.model` (or
    /// `gen_ai.request.model`), and its times. An agent or tool span's usage would count its
    /// children's model calls again, so only other spans' usage counts
    /// (docs/formats.md#usage-and-time).
    fn usage_of(
        &mut self,
        trace: &str,
        attributes: &BTreeMap<String, Value>,
        start: Option<u64>,
        end: Option<u64>,
    ) -> Result<(), RecordError> {
        let nanos =
            |value: Option<u64>| value.filter(|&n| n > 0).and_then(|n| i64::try_from(n).ok());
        let (run_usage, run_time) = self.usage.entry(trace.to_owned()).or_default();
        if let (Some(start), Some(end)) = (nanos(start), nanos(end)) {
            usage::widen(run_time, start, end);
        }
        let operation = attributes
            .get("gen_ai.operation.name")
            .and_then(Value::as_str);
        if matches!(
            operation,
            Some("invoke_agent" | "create_agent" | "execute_tool")
        ) {
            return Ok(());
        }
        let count = |keys: &[&str]| -> Result<Option<u64>, RecordError> {
            for key in keys {
                match attributes.get(*key) {
                    None | Some(Value::Null) => {}
                    Some(Value::String(text)) => {
                        return usage::count(
                            &json!({ *key: text.parse::<Value>().unwrap_or(Value::String(text.clone())) }),
                            key,
                        );
                    }
                    Some(other) => return usage::count(&json!({ *key: other }), key),
                }
            }
            Ok(None)
        };
        let input = count(&["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"])?;
        let output = count(&[
            "gen_ai.usage.output_tokens",
            "gen_ai.usage.completion_tokens",
        ])?;
        if input.is_none() && output.is_none() {
            return Ok(());
        }
        let cached_input = count(&[
            "gen_ai.usage.cache_read.input_tokens",
            "gen_ai.usage.cache_read_input_tokens",
        ])?;
        let model = ["gen_ai.response.model", "gen_ai.request.model"]
            .iter()
            .find_map(|key| attributes.get(*key).and_then(Value::as_str));
        usage::add(
            run_usage,
            model,
            Tokens {
                input: input.unwrap_or(0),
                output: output.unwrap_or(0),
                cached_input,
            },
        );
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
        self.usage_of(
            &trace,
            &attributes,
            field(span, "startTimeUnixNano", "start_time_unix_nano").and_then(nanos),
            field(span, "endTimeUnixNano", "end_time_unix_nano").and_then(nanos),
        )?;
        self.spans.push(Span {
            order: self.spans.len(),
            trace,
            id,
            parent: field(span, "parentSpanId", "parent_span_id").and_then(span_id),
            start: field(span, "startTimeUnixNano", "start_time_unix_nano").and_then(nanos),
            end: field(span, "endTimeUnixNano", "end_time_unix_nano").and_then(nanos),
            role,
            agent: agent_name(&attributes),
        });
        Ok(())
    }
}

mod calls;
mod messages;
mod spans;
mod values;

#[cfg(test)]
mod tests;
