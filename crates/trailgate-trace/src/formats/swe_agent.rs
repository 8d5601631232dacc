//! The `swe-agent` format: SWE-agent trajectories (`<instance>.traj`, JSON), `{history,
//! trajectory, info, ...}`.
//!
//! In the function-calling form, the `history` holds the conversation: an assistant
//! message's `tool_calls` (Chat Completions shape) are the calls, and a `tool` message's
//! `content` answers each of its `tool_call_ids`. Each assistant message is a step;
//! demonstration messages (`is_demo`) are skipped. A trajectory without any `tool_calls`
//! is the classic form, whose actions are command lines the model wrote as text: each entry
//! of `trajectory` is then one call, named by the action's first word (`edit`, `python`),
//! its whole text as the argument `command`, its `observation` as the result.
//!
//! The usage is `info.model_stats`' totals over the run's model calls (`tokens_sent` as
//! input, `tokens_received` as output; cached tokens are not recorded), under the model
//! `replay_config` names (`agent.model.name`, as configured: the responses are not kept),
//! else under no name. The trajectory records no times, only each step's
//! `execution_time` (docs/formats.md#usage-and-time).

use serde_json::{Value, json};

use crate::formats::{
    Adapter, CallLog, Converter, Record, RecordError, complete, id_field, open_call, result_value,
    str_field, usage,
};
use crate::model::{Run, Status};
use crate::naming::Naming;

pub(crate) struct SweAgent;

impl Adapter for SweAgent {
    fn name(&self) -> &'static str {
        "swe-agent"
    }

    fn expects(&self) -> &'static str {
        "a SWE-agent trajectory (`.traj`): `{history: [{role, content, agent, tool_calls?, \
         tool_call_ids?}], trajectory: [{action, observation}]}`"
    }

    fn detect(&self, first: &Value) -> bool {
        let history = first
            .get("history")
            .and_then(Value::as_array)
            .is_some_and(|history| {
                history.first().is_some_and(|message| {
                    message.get("role").is_some()
                        && (message.get("agent").is_some() || message.get("message_type").is_some())
                })
            });
        let trajectory = first
            .get("trajectory")
            .and_then(Value::as_array)
            .is_some_and(|steps| {
                steps.first().is_some_and(|step| {
                    step.get("action").is_some() && step.get("observation").is_some()
                })
            });
        history || trajectory
    }

    fn naming(&self) -> Naming {
        Naming::None
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(SweAgentConverter)
    }
}

struct SweAgentConverter;

impl Converter for SweAgentConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        let value = record.value()?;
        let history = list(&value, "history")?;
        let function_calling = history
            .iter()
            .any(|message| message.get("tool_calls").is_some_and(Value::is_array));
        let mut run = if function_calling || list(&value, "trajectory")?.is_empty() {
            history_run(history)?
        } else {
            classic_run(list(&value, "trajectory")?)
        };
        if let Some(stats) = value.get("info").and_then(|info| info.get("model_stats"))
            && let Some(tokens) =
                usage::tokens(stats, &["tokens_sent"], &["tokens_received"], None, &[])?
        {
            usage::add(&mut run.usage, configured_model(&value).as_deref(), tokens);
        }
        Ok(vec![run])
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        Vec::new()
    }
}

fn list<'v>(value: &'v Value, key: &str) -> Result<&'v [Value], RecordError> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(RecordError::Shape(format!("`{key}` is not a list"))),
    }
}

fn history_run(history: &[Value]) -> Result<Run, RecordError> {
    let mut log = CallLog::default();
    let mut steps: u32 = 0;
    for (index, message) in history.iter().enumerate() {
        if is_demo(message) {
            continue;
        }
        match str_field(message, "role") {
            Some("assistant") => {
                let step = steps;
                steps = steps.saturating_add(1);
                let Some(Value::Array(tool_calls)) = message.get("tool_calls") else {
                    continue;
                };
                for (position, tool_call) in tool_calls.iter().enumerate() {
                    let function = tool_call.get("function").unwrap_or(tool_call);
                    let name = str_field(function, "name").ok_or_else(|| {
                        RecordError::Shape(format!(
                            "a tool call without a `name` at `history[{index}].tool_calls[{position}]`"
                        ))
                    })?;
                    let call = open_call(None, name.to_owned(), function.get("arguments"), step);
                    log.push(id_field(tool_call, "id"), call);
                }
            }
            Some("tool") => {
                let ids = match message.get("tool_call_ids") {
                    Some(Value::Array(ids)) => ids.iter().filter_map(as_id).collect(),
                    _ => id_field(message, "tool_call_id")
                        .into_iter()
                        .collect::<Vec<_>>(),
                };
                let result = message.get("content").map(result_value);
                for id in ids {
                    if let Some(call) = log.answer(&id) {
                        complete(call, result.clone(), Status::Unknown);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(log.into_run())
}

fn classic_run(trajectory: &[Value]) -> Run {
    let mut run = Run::default();
    for (step, entry) in (0_u32..).zip(trajectory) {
        let Some(action) = str_field(entry, "action").map(str::trim) else {
            continue;
        };
        let Some(command) = action.split_whitespace().next() else {
            continue;
        };
        let mut call = open_call(
            None,
            command.to_owned(),
            Some(&json!({"command": action})),
            step,
        );
        if let Some(observation) = entry.get("observation").filter(|o| !o.is_null()) {
            complete(&mut call, Some(result_value(observation)), Status::Unknown);
        }
        run.calls.push(call);
    }
    run
}

/// The model name of the run's configuration: `replay_config` (JSON text, or an object),
/// `agent.model.name`.
fn configured_model(trajectory: &Value) -> Option<String> {
    let config = trajectory.get("replay_config")?;
    let parsed;
    let config = match config {
        Value::String(text) => {
            parsed = serde_json::from_str::<Value>(text).ok()?;
            &parsed
        }
        other => other,
    };
    let model = config.get("agent")?.get("model")?;
    str_field(model, "name").map(str::to_owned)
}

fn is_demo(message: &Value) -> bool {
    match message.get("is_demo") {
        Some(Value::Bool(demo)) => *demo,
        Some(Value::String(demo)) => demo.eq_ignore_ascii_case("true"),
        _ => false,
    }
}

fn as_id(value: &Value) -> Option<String> {
    match value {
        Value::String(id) => Some(id.clone()),
        Value::Number(id) => Some(id.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
