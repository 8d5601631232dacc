//! The two trace shapes trailgate reads natively, and their conversion into a [`Run`].
//!
//! Traces come from agents, which add fields of their own: unknown fields are ignored here,
//! unlike in the suite. What is present must have the right type, and a document must hold
//! exactly one of `tool_calls` and `events`.
//!
//! A document is parsed with each call's arguments and result kept as JSON text
//! ([`LazyValue`]), which is most of a trace's bytes and most of what the graders never look
//! at. When that fails, or a value cannot be kept as text, the document is parsed again with
//! every value a [`Value`]: that parse is the reference, and its error (a message and a
//! position that the text path may word differently) is the one reported.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;
use std::sync::Arc;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::{TRACE_SHAPE, TraceError};
use crate::lazy_value::{Kept, LazyValue};
use crate::model::{Call, Interval, Run, Status, Tokens, Usage};

/// Parses one run in trailgate's own shapes from a JSON document (`.json` file, or one line
/// of a `.jsonl` file).
///
/// `file` names the document in diagnostics; `first_line` is the 1-based line of the file on
/// which `text` starts.
pub fn parse_run(file: &str, text: &str, first_line: usize) -> Result<Run, TraceError> {
    parse_native(text)
        .map_err(|error| TraceError::from_json(file, text, first_line, &error, TRACE_SHAPE))
}

/// Trailgate's own shapes, with serde's positions on error.
pub(crate) fn parse_native(text: &str) -> Result<Run, serde_json::Error> {
    parse_native_shared(&Arc::new(text.to_owned()), 0..text.len())
}

/// [`parse_native`] of the text at `range` in `source`: the calls' arguments and results
/// keep `source`, shared, instead of copies of their text (a part of a JSON Lines file
/// holds many runs).
pub(crate) fn parse_native_shared(
    source: &Arc<String>,
    range: Range<usize>,
) -> Result<Run, serde_json::Error> {
    let text = source.get(range).unwrap_or_default();
    let kept = serde_json::from_str::<Document<Borrowed<'_>>>(text)
        .ok()
        .and_then(|document| document.into_run_with(|value| value.keep(source)));
    match kept {
        Some(run) => Ok(run),
        // The reference parse: its error, or the value that text could not keep.
        None => serde_json::from_str::<Document<Value>>(text).map(|document| {
            document
                .into_run_with(|value| Some(LazyValue::new(value)))
                .unwrap_or_default()
        }),
    }
}

/// [`parse_native_shared`] into `run`, reusing its calls and their buffers when the text
/// is a plain call list; `run` is replaced whole otherwise.
pub(crate) fn parse_native_into(
    run: &mut Run,
    source: &Arc<String>,
    range: Range<usize>,
) -> Result<(), serde_json::Error> {
    if !call_list::read_call_list_into(run, source, range.clone()) {
        *run = parse_native_shared(source, range)?;
    }
    Ok(())
}

/// A call's arguments or result as JSON text borrowed from the document, checked as it is
/// read ([`Kept::of`]): every value of the document, including those that end up unused
/// (a result that completes no call), since the `Value` parse would refuse the whole
/// document for any of them.
enum Borrowed<'a> {
    Text(&'a RawValue),
    Parsed(Value),
}

impl Borrowed<'_> {
    /// The value kept: a range of `source`, the text it was borrowed from, or the value
    /// parsed when [`Kept::of`] said so. `None` when the text is not part of `source`.
    fn keep(self, source: &Arc<String>) -> Option<LazyValue> {
        match self {
            Self::Text(raw) => {
                let start = (raw.get().as_ptr() as usize).checked_sub(source.as_ptr() as usize)?;
                LazyValue::from_plain_shared(source, start..start + raw.get().len(), None, false)
            }
            Self::Parsed(value) => Some(LazyValue::new(value)),
        }
    }
}

impl<'de> Deserialize<'de> for Borrowed<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = <&RawValue>::deserialize(deserializer)?;
        match Kept::of(raw.get()) {
            Kept::Text => Ok(Self::Text(raw)),
            Kept::Parsed(value) => Ok(Self::Parsed(value)),
            Kept::Refused => Err(D::Error::custom("a value that is not kept as text")),
        }
    }
}

#[derive(Deserialize)]
#[serde(try_from = "RawDocument<V>")]
#[serde(bound = "V: Deserialize<'de>")]
struct Document<V> {
    body: Body<V>,
    /// The run's `usage`, `started_at` and `ended_at` (docs/suite.md#trace-files).
    usage: Usage,
    time: Option<Interval>,
}

enum Body<V> {
    CallList(Vec<RawCall<V>>),
    Events(Vec<Event<V>>),
}

#[derive(Deserialize)]
#[serde(bound = "V: Deserialize<'de>")]
struct RawDocument<V> {
    tool_calls: Option<Vec<RawCall<V>>>,
    events: Option<Vec<Event<V>>>,
    #[serde(default)]
    usage: Option<BTreeMap<String, RawTokens>>,
    #[serde(default, deserialize_with = "timestamp")]
    started_at: Option<i64>,
    #[serde(default, deserialize_with = "timestamp")]
    ended_at: Option<i64>,
}

/// A model's entry of a run's `usage`: whole token counts of 64 bits, which serde checks
/// (a negative count, a fraction or one past 2^64 - 1 is an error at its line).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[expect(
    clippy::struct_field_names,
    reason = "the keys of the trace format, as written"
)]
struct RawTokens {
    input_tokens: u64,
    output_tokens: u64,
    #[serde(default)]
    cached_input_tokens: Option<u64>,
}

/// A run's `usage`, as read.
fn usage_of(raw: Option<BTreeMap<String, RawTokens>>) -> Usage {
    Usage {
        models: raw
            .into_iter()
            .flatten()
            .map(|(model, tokens)| {
                (
                    model,
                    Tokens {
                        input: tokens.input_tokens,
                        output: tokens.output_tokens,
                        cached_input: tokens.cached_input_tokens,
                    },
                )
            })
            .collect(),
    }
}

/// An RFC 3339 timestamp (`2025-06-02T10:00:01.250Z`), as nanoseconds since the epoch.
fn timestamp<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    let Some(text) = Option::<String>::deserialize(deserializer)? else {
        return Ok(None);
    };
    let stamp: jiff::Timestamp = text.parse().map_err(|_| {
        D::Error::custom(format!(
            "`{text}` is not an RFC 3339 timestamp such as `2025-06-02T10:00:01.250Z`"
        ))
    })?;
    i64::try_from(stamp.as_nanosecond())
        .map(Some)
        .map_err(|_| D::Error::custom(format!("`{text}` is out of range")))
}

/// The interval from `start` to `end`, both given; an error when `end` is before `start`.
fn interval_of(
    start: Option<i64>,
    end: Option<i64>,
    what: &str,
) -> Result<Option<Interval>, String> {
    match (start, end) {
        (None, None) => Ok(None),
        (Some(start_ns), Some(end_ns)) if end_ns >= start_ns => {
            Ok(Some(Interval { start_ns, end_ns }))
        }
        (Some(_), Some(_)) => Err(format!("{what} `ended_at` is before its `started_at`")),
        _ => Err(format!(
            "{what} needs both `started_at` and `ended_at`, or neither"
        )),
    }
}

impl<V> TryFrom<RawDocument<V>> for Document<V> {
    type Error = String;

    fn try_from(raw: RawDocument<V>) -> Result<Self, Self::Error> {
        let body = match (raw.tool_calls, raw.events) {
            (Some(calls), None) => Body::CallList(calls),
            (None, Some(events)) => Body::Events(events),
            (Some(_), Some(_)) => {
                return Err("a trace holds either `tool_calls` or `events`, not both".to_owned());
            }
            (None, None) => {
                return Err(
                    "expected a `tool_calls` or an `events` list at the top level".to_owned(),
                );
            }
        };
        let usage = usage_of(raw.usage);
        let time = interval_of(raw.started_at, raw.ended_at, "the run")?;
        Ok(Self { body, usage, time })
    }
}

/// An entry of the call-list shape, its times checked.
#[derive(Deserialize)]
#[serde(try_from = "RawCallFields<V>")]
#[serde(bound = "V: Deserialize<'de>")]
struct RawCall<V> {
    fields: RawCallFields<V>,
    time: Option<Interval>,
}

impl<V> TryFrom<RawCallFields<V>> for RawCall<V> {
    type Error = String;

    fn try_from(fields: RawCallFields<V>) -> Result<Self, Self::Error> {
        let time = interval_of(fields.started_at, fields.ended_at, "a call")?;
        Ok(Self { fields, time })
    }
}

/// The fields of an entry of the call-list shape, as written.
#[derive(Deserialize)]
#[serde(bound = "V: Deserialize<'de>")]
struct RawCallFields<V> {
    name: String,
    #[serde(default)]
    server: Option<String>,
    #[serde(default, alias = "arguments")]
    args: Option<V>,
    #[serde(default)]
    result: Option<V>,
    #[serde(default)]
    status: Option<Status>,
    #[serde(default)]
    step: Option<u32>,
    #[serde(default)]
    args_raw: Option<String>,
    #[serde(default)]
    completed: Option<bool>,
    /// The agent that made the call (docs/suite.md#trace-files): a non-empty name.
    #[serde(default)]
    agent: Option<AgentName>,
    #[serde(default, deserialize_with = "timestamp")]
    started_at: Option<i64>,
    #[serde(default, deserialize_with = "timestamp")]
    ended_at: Option<i64>,
}

/// An agent's name in the call-list shape: a non-empty string.
struct AgentName(String);

impl<'de> Deserialize<'de> for AgentName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        if name.is_empty() {
            return Err(serde::de::Error::invalid_value(
                serde::de::Unexpected::Str(""),
                &"a non-empty agent name",
            ));
        }
        Ok(Self(name))
    }
}

/// The fields an event may carry, on the event itself or inside its `data` object.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[serde(bound = "V: Deserialize<'de>")]
struct EventFields<V> {
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(alias = "tool_name")]
    tool_name: Option<String>,
    #[serde(alias = "tool_call_id")]
    tool_call_id: Option<CallId>,
    #[serde(alias = "args")]
    arguments: Option<V>,
    server: Option<String>,
    success: Option<bool>,
    result: Option<V>,
    data: Option<Box<EventFields<V>>>,
}

impl<V> Default for EventFields<V> {
    fn default() -> Self {
        Self {
            kind: None,
            tool_name: None,
            tool_call_id: None,
            arguments: None,
            server: None,
            success: None,
            result: None,
            data: None,
        }
    }
}

/// A call id, written as a string or an integer.
#[derive(Deserialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[serde(from = "IdValue")]
struct CallId(String);

#[derive(Deserialize)]
#[serde(untagged)]
enum IdValue {
    Text(String),
    Number(serde_json::Number),
}

impl From<IdValue> for CallId {
    fn from(value: IdValue) -> Self {
        match value {
            IdValue::Text(text) => Self(text),
            IdValue::Number(number) => Self(number.to_string()),
        }
    }
}

/// One event of the trajectory shape, with its fields merged from the event and its `data`.
#[derive(Deserialize)]
#[serde(try_from = "EventFields<V>")]
#[serde(bound = "V: Deserialize<'de>")]
enum Event<V> {
    TurnStart,
    ToolCall {
        name: String,
        id: Option<CallId>,
        server: Option<String>,
        arguments: Option<V>,
    },
    ToolResult {
        name: Option<String>,
        id: Option<CallId>,
        success: Option<bool>,
        result: Option<V>,
    },
    Other,
}

impl<V> TryFrom<EventFields<V>> for Event<V> {
    type Error = String;

    fn try_from(fields: EventFields<V>) -> Result<Self, Self::Error> {
        let data = fields.data.map(|data| *data).unwrap_or_default();
        let kind = fields.kind.or(data.kind);
        let Some(kind) = kind else {
            return Err("an event needs a `type`".to_owned());
        };
        Ok(match kind.as_str() {
            "turn_start" => Self::TurnStart,
            "tool_call" => Self::ToolCall {
                name: fields
                    .tool_name
                    .or(data.tool_name)
                    .ok_or("a `tool_call` event needs a `toolName`")?,
                id: fields.tool_call_id.or(data.tool_call_id),
                server: fields.server.or(data.server),
                arguments: fields.arguments.or(data.arguments),
            },
            "tool_result" => Self::ToolResult {
                name: fields.tool_name.or(data.tool_name),
                id: fields.tool_call_id.or(data.tool_call_id),
                success: fields.success.or(data.success),
                result: fields.result.or(data.result),
            },
            _ => Self::Other,
        })
    }
}

impl<V> Document<V> {
    /// The run, with each value kept by `keep`; `None` when `keep` refuses one.
    fn into_run_with(self, mut keep: impl FnMut(V) -> Option<LazyValue>) -> Option<Run> {
        let mut run = match self.body {
            Body::CallList(raw_calls) => {
                // Made as large as it will be at once: a call is a few hundred bytes.
                let mut calls = Vec::with_capacity(raw_calls.len());
                for RawCall {
                    fields: raw,
                    time: checked,
                } in raw_calls
                {
                    calls.push(Call {
                        server: raw.server,
                        name: raw.name,
                        args: match raw.args {
                            Some(args) => keep(args)?,
                            None => empty_args(),
                        },
                        args_raw: raw.args_raw,
                        result: keep_present(raw.result, &mut keep).ok()?,
                        status: raw.status.unwrap_or_default(),
                        step: raw.step.unwrap_or(0),
                        // `trailgate convert` writes `completed: false` for a call without a
                        // result, so that its output reads back as it was read.
                        completed: raw.completed.unwrap_or(true),
                        agent: raw.agent.map(|agent| agent.0),
                        // Checked whole when the document was read.
                        time: checked,
                    });
                }
                Run {
                    calls,
                    format: "trailgate",
                    line: None,
                    ..Default::default()
                }
            }
            Body::Events(events) => events_to_run(
                events
                    .into_iter()
                    .map(|event| event.keep_with(&mut keep))
                    .collect::<Option<Vec<_>>>()?,
            ),
        };
        run.usage = self.usage;
        // Without the run's own times, its calls' times span it.
        run.time = self.time.or_else(|| {
            let mut times = run.calls.iter().filter_map(|call| call.time);
            let first = times.next()?;
            Some(times.fold(first, |span, time| Interval {
                start_ns: span.start_ns.min(time.start_ns),
                end_ns: span.end_ns.max(time.end_ns),
            }))
        });
        Some(run)
    }
}

impl<V> Event<V> {
    /// The event with its values kept by `keep`; `None` when `keep` refuses one.
    fn keep_with(self, keep: &mut impl FnMut(V) -> Option<LazyValue>) -> Option<Event<LazyValue>> {
        Some(match self {
            Self::TurnStart => Event::TurnStart,
            Self::ToolCall {
                name,
                id,
                server,
                arguments,
            } => Event::ToolCall {
                name,
                id,
                server,
                arguments: keep_present(arguments, keep).ok()?,
            },
            Self::ToolResult {
                name,
                id,
                success,
                result,
            } => Event::ToolResult {
                name,
                id,
                success,
                result: keep_present(result, keep).ok()?,
            },
            Self::Other => Event::Other,
        })
    }
}

/// A value that may be absent, kept by `keep`; an error when `keep` refuses it.
fn keep_present<V>(
    value: Option<V>,
    keep: &mut impl FnMut(V) -> Option<LazyValue>,
) -> Result<Option<LazyValue>, Refused> {
    value.map(|value| keep(value).ok_or(Refused)).transpose()
}

/// A value `keep` refused.
struct Refused;

fn empty_args() -> LazyValue {
    LazyValue::new(Value::Object(Map::new()))
}

/// Replays a trajectory: steps from `turn_start` events, results paired with their calls.
fn events_to_run(events: Vec<Event<LazyValue>>) -> Run {
    let mut calls: Vec<Call> = Vec::new();
    let mut turns: u32 = 0;
    let mut open_by_id: BTreeMap<CallId, usize> = BTreeMap::new();
    // Calls of each tool, oldest first, for results that carry no id. Entries completed by
    // id stay here and are skipped when reached.
    let mut open_by_name: BTreeMap<String, VecDeque<usize>> = BTreeMap::new();

    for event in events {
        match event {
            Event::TurnStart => turns = turns.saturating_add(1),
            Event::ToolCall {
                name,
                id,
                server,
                arguments,
            } => {
                let index = calls.len();
                if let Some(id) = id {
                    open_by_id.insert(id, index);
                }
                open_by_name
                    .entry(name.clone())
                    .or_default()
                    .push_back(index);
                calls.push(Call {
                    server,
                    name,
                    args: arguments.unwrap_or_else(empty_args),
                    args_raw: None,
                    result: None,
                    status: Status::Unknown,
                    step: turns.saturating_sub(1),
                    completed: false,
                    agent: None,
                    time: None,
                });
            }
            Event::ToolResult {
                name,
                id,
                success,
                result,
            } => {
                let index = match (id, name) {
                    (Some(id), _) => open_by_id.remove(&id),
                    (None, Some(name)) => open_by_name.get_mut(&name).and_then(|queue| {
                        while let Some(index) = queue.pop_front() {
                            if !calls[index].completed {
                                return Some(index);
                            }
                        }
                        None
                    }),
                    (None, None) => None,
                };
                // A result that completes nothing is ignored (docs/suite.md#trace-files).
                if let Some(call) = index.and_then(|index| calls.get_mut(index)) {
                    if call.completed {
                        continue;
                    }
                    call.completed = true;
                    call.result = result;
                    call.status = match success {
                        Some(true) => Status::Ok,
                        Some(false) => Status::Error,
                        None => Status::Unknown,
                    };
                }
            }
            Event::Other => {}
        }
    }
    Run {
        calls,
        format: "trailgate",
        line: None,
        ..Default::default()
    }
}

mod call_list;
#[cfg(test)]
mod tests;
