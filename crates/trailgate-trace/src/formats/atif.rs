//! The `atif` format: Harbor's Agent Trajectory Interchange Format, `ATIF-v1.0` to
//! `ATIF-v1.8` (docs/formats.md#harbor--atif-trajectories-atif). One trajectory document is
//! one run: the `tool_calls` of its steps, answered by the `observation.results` whose
//! `source_call_id` names them, or, for results that name no call (terminus-2), by the
//! step's calls in order when their numbers agree.
//!
//! A call's step counts the agent's steps only: the first `source: "agent"` step is step 0,
//! whatever user and system steps come before it. Embedded `subagent_trajectories` (v1.7)
//! are other agents' trajectories and are not read.
//!
//! Each step's `metrics` are its response's usage (`prompt_tokens` counting the
//! `cached_tokens`, `completion_tokens`), under the step's `model_name` or else the agent's;
//! a trajectory whose steps record none has its `final_metrics` totals. The run spans its
//! steps' `timestamp`s; ATIF records no time of a call (docs/formats.md#usage-and-time).

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;

use crate::formats::{
    Adapter, Converter, Record, RecordError, complete, id_field, open_call, result_value,
    str_field, usage,
};
use crate::model::{Call, Run, Status};

pub(crate) struct Atif;

impl Adapter for Atif {
    fn name(&self) -> &'static str {
        "atif"
    }

    fn expects(&self) -> &'static str {
        "an ATIF trajectory: an object with `schema_version: \"ATIF-v1.x\"` and `steps` of \
         `{source, tool_calls, observation}`"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(trajectories) => trajectories.first().is_some_and(is_trajectory),
            other => is_trajectory(other),
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(AtifConverter)
    }
}

fn is_trajectory(value: &Value) -> bool {
    str_field(value, "schema_version").is_some_and(|version| version.starts_with("ATIF"))
}

/// A document read as a trajectory: one that says so, or one with steps.
fn is_document(value: &Value) -> bool {
    is_trajectory(value) || value.get("steps").is_some()
}

/// Every trajectory document is a run of its own, so a JSON Lines file of trajectories (or
/// a JSON array of them) holds one run per document.
struct AtifConverter;

impl Converter for AtifConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        let line = record.lines.then_some(record.line);
        match record.value()? {
            Value::Array(documents) => documents
                .iter()
                .enumerate()
                .filter(|(_, document)| is_document(document))
                .map(|(index, document)| trajectory_run(document, &format!("[{index}]."), line))
                .collect(),
            document if is_document(&document) => Ok(vec![trajectory_run(&document, "", line)?]),
            // Among many trajectories, a record of another kind is skipped; a file that
            // is one document of another kind was given this format by hand, and says so.
            _ if record.lines => Ok(Vec::new()),
            _ => Err(RecordError::Shape(
                "not an ATIF trajectory: no `schema_version` or `steps`".to_owned(),
            )),
        }
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        Vec::new()
    }
}

/// Calls in order, with the calls still waiting for a result by `tool_call_id`, oldest
/// first, so that two calls sharing an id are answered in the order they were made.
#[derive(Default)]
struct Pairing {
    calls: Vec<Call>,
    open: BTreeMap<String, VecDeque<usize>>,
}

impl Pairing {
    /// Answers the calls of the step that begins at `first_call` with the results that
    /// name no call (terminus-2 writes none of `source_call_id`), as Harbor's viewer does:
    /// only when the pairing is unambiguous, as many such results as the step has calls
    /// still open, taken in the same order. Otherwise the calls stay unanswered.
    fn answer_in_order(&mut self, first_call: usize, unnamed: &[&Value]) {
        let open: Vec<usize> = (first_call..self.calls.len())
            .filter(|&index| self.calls.get(index).is_some_and(|call| !call.completed))
            .collect();
        if unnamed.is_empty() || open.len() != unnamed.len() {
            return;
        }
        for (&index, result) in open.iter().zip(unnamed) {
            for waiting in self.open.values_mut() {
                waiting.retain(|&other| other != index);
            }
            if let Some(call) = self.calls.get_mut(index) {
                complete(call, content(result), status(result));
            }
        }
    }
}

/// The run of one trajectory document; `path` locates the document in its record.
fn trajectory_run(trajectory: &Value, path: &str, line: Option<usize>) -> Result<Run, RecordError> {
    let steps = match trajectory.get("steps") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(steps)) => steps.as_slice(),
        Some(_) => {
            return Err(RecordError::Shape(format!(
                "`steps` is not a list at `{path}steps`"
            )));
        }
    };
    let mut pairing = Pairing::default();
    let mut run = Run {
        format: "",
        line,
        ..Default::default()
    };
    let agent_model = trajectory
        .get("agent")
        .and_then(|agent| str_field(agent, "model_name"));
    let mut agent_steps: u32 = 0;
    for (index, step) in steps.iter().enumerate() {
        let step_path = format!("{path}steps[{index}]");
        if let Some(at) = usage::time_field(step, "timestamp") {
            usage::widen(&mut run.time, at, at);
        }
        if let Some(metrics) = step.get("metrics")
            && let Some(tokens) = usage::tokens(
                metrics,
                &["prompt_tokens"],
                &["completion_tokens"],
                Some(metrics),
                &["cached_tokens"],
            )?
        {
            let model = str_field(step, "model_name").or(agent_model);
            usage::add(&mut run.usage, model, tokens);
        }
        // Only agent steps may call tools (harbor validates that); a source-less step is
        // taken for an agent step, since nothing else could have made its calls.
        let number = if matches!(str_field(step, "source"), None | Some("agent")) {
            agent_steps = agent_steps.saturating_add(1);
            agent_steps - 1
        } else {
            // A user or system step is no model response. Calls it carries anyway join the
            // agent step before it (step 0 when there is none), as trailgate's own event
            // trajectory counts a call before the first `turn_start`.
            agent_steps.saturating_sub(1)
        };
        let first_call = pairing.calls.len();
        for (position, tool_call) in list(step, "tool_calls", &step_path)?.iter().enumerate() {
            let call_path = format!("{step_path}.tool_calls[{position}]");
            let name = str_field(tool_call, "function_name").ok_or_else(|| {
                RecordError::Shape(format!(
                    "a tool call without a `function_name` at `{call_path}`"
                ))
            })?;
            let call = open_call(None, name.to_owned(), tool_call.get("arguments"), number);
            if let Some(id) = id_field(tool_call, "tool_call_id") {
                pairing
                    .open
                    .entry(id)
                    .or_default()
                    .push_back(pairing.calls.len());
            }
            pairing.calls.push(call);
        }
        // The results of a step answer its own calls, and since v1.2 a system step's
        // observation may answer earlier ones; a result naming no open call is ignored.
        let observation = step.get("observation").unwrap_or(&Value::Null);
        let mut unnamed = Vec::new();
        for result in list(observation, "results", &format!("{step_path}.observation"))? {
            let Some(id) = id_field(result, "source_call_id") else {
                unnamed.push(result);
                continue;
            };
            let Some(index) = pairing.open.get_mut(&id).and_then(VecDeque::pop_front) else {
                continue;
            };
            if let Some(call) = pairing.calls.get_mut(index) {
                complete(call, content(result), status(result));
            }
        }
        pairing.answer_in_order(first_call, &unnamed);
    }
    if run.usage.models.is_empty()
        && let Some(totals) = trajectory.get("final_metrics")
        && let Some(tokens) = usage::tokens(
            totals,
            &["total_prompt_tokens"],
            &["total_completion_tokens"],
            Some(totals),
            &["total_cached_tokens"],
        )?
    {
        usage::add(&mut run.usage, agent_model, tokens);
    }
    run.calls = pairing.calls;
    Ok(run)
}

/// The list under `key`; absent or `null` is empty, anything else but a list is unusable.
fn list<'v>(value: &'v Value, key: &str, path: &str) -> Result<&'v [Value], RecordError> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(RecordError::Shape(format!(
            "`{key}` is not a list at `{path}.{key}`"
        ))),
    }
}

/// A result's `content`: a string, or (v1.6 and later) content parts, whose text parts are
/// joined when all parts are text; none when the result recorded no content.
fn content(result: &Value) -> Option<Value> {
    result
        .get("content")
        .filter(|content| !content.is_null())
        .map(result_value)
}

/// ATIF has no error field of its own; the converters that write it keep the tool's flag in
/// the result's `extra` (Claude Code, Pi, Kimi: `is_error`, `tool_result_is_error` or
/// `tool_result_metadata.is_error`; Copilot: `success`; Strands: `status`). A result with
/// none of them is `unknown`.
fn status(result: &Value) -> Status {
    let Some(extra) = result.get("extra").filter(|extra| extra.is_object()) else {
        return Status::Unknown;
    };
    let flags = [
        extra.get("is_error"),
        extra.get("tool_result_is_error"),
        extra
            .get("tool_result_metadata")
            .and_then(|metadata| metadata.get("is_error")),
    ];
    let failed = flags
        .iter()
        .flatten()
        .filter_map(|flag| flag.as_bool())
        .chain(extra.get("success").and_then(Value::as_bool).map(|ok| !ok))
        .chain(str_field(extra, "status").and_then(|status| {
            match status.to_ascii_lowercase().as_str() {
                "error" | "failed" | "failure" => Some(true),
                "success" | "ok" | "completed" => Some(false),
                _ => None,
            }
        }))
        .collect::<Vec<bool>>();
    if failed.contains(&true) {
        Status::Error
    } else if failed.is_empty() {
        Status::Unknown
    } else {
        Status::Ok
    }
}

#[cfg(test)]
mod tests;
