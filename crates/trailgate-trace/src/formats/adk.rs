//! Google ADK: session JSON (`events[]` whose `content.parts` hold Gemini `function_call`
//! and `function_response` parts), lists of events, and evaluation sets and test files,
//! whose expected trajectories (`intermediate_data.tool_uses`) read as calls.

use serde_json::Value;

use crate::formats::gemini::{Trajectory, at, calls_in, field, gemini_tokens, index, pending_call};
use crate::formats::{Adapter, Converter, Record, RecordError, open_call, usage};
use crate::model::{Interval, Run, Usage};

pub(crate) struct Adk;

impl Adapter for Adk {
    fn name(&self) -> &'static str {
        "adk"
    }

    fn expects(&self) -> &'static str {
        "an ADK session (`events` of `{author, invocation_id, content}`), an event, a list of \
         events, or an eval set (`eval_cases` with `conversation[].intermediate_data`)"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(items) => items
                .first()
                .is_some_and(|item| is_event(item) || is_eval_case(item) || is_old_test(item)),
            Value::Object(_) => {
                is_event(first)
                    || is_eval_set(first)
                    || is_eval_case(first)
                    || field(first, &["events"])
                        .and_then(Value::as_array)
                        .and_then(|events| events.first())
                        .is_some_and(is_event)
            }
            _ => false,
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(AdkConverter::default())
    }
}

/// An ADK `Event`: authored, and part of an invocation.
fn is_event(value: &Value) -> bool {
    value.get("author").is_some_and(Value::is_string)
        && (value.get("invocation_id").is_some() || value.get("invocationId").is_some())
}

/// An `EvalSet`.
fn is_eval_set(value: &Value) -> bool {
    value.get("eval_cases").is_some_and(Value::is_array)
        || value.get("evalCases").is_some_and(Value::is_array)
        || value.get("eval_set_id").is_some()
        || value.get("evalSetId").is_some()
}

/// An `EvalCase`.
fn is_eval_case(value: &Value) -> bool {
    (value.get("eval_id").is_some() || value.get("evalId").is_some())
        && value.get("conversation").is_some()
}

/// An entry of the test files ADK wrote before eval sets (`[{query, expected_tool_use}]`).
fn is_old_test(value: &Value) -> bool {
    value.get("query").is_some() && value.get("expected_tool_use").is_some()
}

/// The first of `keys` that `value` holds (not as `null`), with the key, for error paths.
fn keyed<'v>(value: &'v Value, keys: &[&'static str]) -> Option<(&'static str, &'v Value)> {
    keys.iter()
        .find_map(|key| value.get(*key).map(|found| (*key, found)))
        .filter(|(_, found)| !found.is_null())
}

/// Events accumulate into the file's one session; eval sets and cases are runs of their own.
#[derive(Debug, Default)]
struct AdkConverter {
    session: Option<Trajectory>,
    /// The session's usage (each event's `usage_metadata`, or, in a session that records
    /// none on its events, each of its `event_logs`' model response's) and the span of its
    /// events' times.
    usage: Usage,
    time: Option<Interval>,
}

/// Adds a model response's `usage_metadata` (Gemini's counts) under its `model_version`.
fn add_usage(usage: &mut Usage, response: &Value) -> Result<bool, RecordError> {
    let Some(tokens) = keyed(response, &["usage_metadata", "usageMetadata"])
        .map(|(_, metadata)| gemini_tokens(metadata))
        .transpose()?
        .flatten()
    else {
        return Ok(false);
    };
    let model =
        keyed(response, &["model_version", "modelVersion"]).and_then(|(_, model)| model.as_str());
    usage::add(usage, model, tokens);
    Ok(true)
}

impl AdkConverter {
    fn session(&mut self) -> &mut Trajectory {
        self.session.get_or_insert_with(Trajectory::default)
    }

    /// An event's usage and time (`timestamp`, seconds since the epoch); whether it had
    /// usage. A streamed partial event is repeated whole by the final one, which counts.
    fn usage_and_time(&mut self, event: &Value) -> Result<bool, RecordError> {
        if let Some(now) = usage::time_field(event, "timestamp") {
            usage::widen(&mut self.time, now, now);
        }
        if event.get("partial").and_then(Value::as_bool) == Some(true) {
            return Ok(false);
        }
        add_usage(&mut self.usage, event)
    }

    fn document(&mut self, value: &Value) -> Result<Vec<Run>, RecordError> {
        match value {
            Value::Array(items) if items.first().is_some_and(is_old_test) => {
                Ok(vec![old_test(items)?])
            }
            Value::Array(items) => {
                let mut runs = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    runs.extend(self.object(item, &index("", i))?);
                }
                Ok(runs)
            }
            other => self.object(other, ""),
        }
    }

    fn object(&mut self, value: &Value, path: &str) -> Result<Vec<Run>, RecordError> {
        if is_eval_set(value) {
            let mut runs = Vec::new();
            if let Some((key, cases)) = keyed(value, &["eval_cases", "evalCases"]) {
                for (i, case) in cases.as_array().into_iter().flatten().enumerate() {
                    runs.push(eval_case(case, &index(&at(path, key), i))?);
                }
            }
            return Ok(runs);
        }
        if is_eval_case(value) {
            return Ok(vec![eval_case(value, path)?]);
        }
        if let Some(events) = value.get("events").and_then(Value::as_array) {
            let mut counted = false;
            for (i, event) in events.iter().enumerate() {
                read_event(self.session(), event, &index(&at(path, "events"), i))?;
                counted |= self.usage_and_time(event)?;
            }
            if !counted {
                let logs = value.get("event_logs").and_then(Value::as_array);
                for log in logs.into_iter().flatten() {
                    if let Some(response) = log.get("model_response") {
                        add_usage(&mut self.usage, response)?;
                    }
                }
            }
        } else if is_event(value) {
            read_event(self.session(), value, path)?;
            self.usage_and_time(value)?;
        }
        Ok(Vec::new())
    }
}

/// One event: its calls are one step (ADK writes one event per model response), and its
/// function responses answer calls made so far.
fn read_event(trajectory: &mut Trajectory, event: &Value, path: &str) -> Result<(), RecordError> {
    // A streamed partial event is repeated whole by the final event that follows it.
    if event.get("partial").and_then(Value::as_bool) == Some(true) {
        return Ok(());
    }
    let Some(parts) = event
        .get("content")
        .and_then(|content| content.get("parts"))
        .and_then(Value::as_array)
    else {
        return Ok(());
    };
    // A call starts at the event that makes it and ends at the one that answers it.
    trajectory.set_now(usage::time_field(event, "timestamp"));
    let first = trajectory.len();
    trajectory.add_step(calls_in(parts, &at(path, "content.parts"))?);
    // The event's `author` is the agent that wrote it (docs/formats.md#agents).
    trajectory.set_agent_from(first, event.get("author").and_then(Value::as_str));
    let limit = trajectory.len();
    trajectory.answer_parts(parts, limit);
    Ok(())
}

/// One eval case as one run: each invocation (conversation turn) that used tools is one
/// step. `tool_uses` does not say which calls came in the same model response, so the turn
/// is the finest step it gives; `invocation_events`, when present instead, gives one step
/// per event.
fn eval_case(case: &Value, path: &str) -> Result<Run, RecordError> {
    let mut trajectory = Trajectory::default();
    let turns = case.get("conversation").and_then(Value::as_array);
    for (i, turn) in turns.into_iter().flatten().enumerate() {
        let turn_path = index(&at(path, "conversation"), i);
        let Some((data_key, data)) = keyed(turn, &["intermediate_data", "intermediateData"]) else {
            continue;
        };
        let data_path = at(&turn_path, data_key);
        if let Some((key, uses)) = keyed(data, &["tool_uses", "toolUses"]) {
            let mut calls = Vec::new();
            for (j, call) in uses.as_array().into_iter().flatten().enumerate() {
                calls.push(pending_call(call, &index(&at(&data_path, key), j))?);
            }
            trajectory.add_step(calls);
            if let Some(responses) =
                field(data, &["tool_responses", "toolResponses"]).and_then(Value::as_array)
            {
                for response in responses {
                    let limit = trajectory.len();
                    trajectory.answer(response, limit);
                }
            }
        } else if let Some((key, events)) = keyed(data, &["invocation_events", "invocationEvents"])
        {
            for (j, event) in events.as_array().into_iter().flatten().enumerate() {
                read_event(&mut trajectory, event, &index(&at(&data_path, key), j))?;
            }
        }
    }
    Ok(trajectory.into_run())
}

/// A test file of the older shape, one run: each entry is a turn, and its
/// `expected_tool_use` (`{tool_name, tool_input}`) the calls of one step, with no results.
fn old_test(entries: &[Value]) -> Result<Run, RecordError> {
    let mut calls = Vec::new();
    let mut step = 0;
    for (i, entry) in entries.iter().enumerate() {
        let uses = entry.get("expected_tool_use").and_then(Value::as_array);
        let uses = uses.map(Vec::as_slice).unwrap_or_default();
        for (j, call) in uses.iter().enumerate() {
            let name = call.get("tool_name").and_then(Value::as_str).ok_or_else(|| {
                RecordError::Shape(format!(
                    "an expected tool use without a `tool_name` at `[{i}].expected_tool_use[{j}]`"
                ))
            })?;
            calls.push(open_call(
                None,
                name.to_owned(),
                call.get("tool_input"),
                step,
            ));
        }
        if !uses.is_empty() {
            step += 1;
        }
    }
    Ok(Run {
        calls,
        format: "",
        line: None,
        ..Default::default()
    })
}

impl Converter for AdkConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        self.document(&record.value()?)
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        let (usage, time) = (self.usage, self.time);
        self.session
            .map(|session| {
                let mut run = session.into_run();
                run.usage = usage;
                run.time = time;
                run
            })
            .into_iter()
            .collect()
    }
}

#[cfg(test)]
mod tests;
