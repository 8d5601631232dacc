//! Trace formats: one adapter per format, each in its own file under `formats/`, and the
//! table that lists them in detection order. Adding a format touches its file and `ADAPTERS`.
//!
//! An adapter sees records: the whole document of a `.json` file, or each non-empty line of
//! a `.jsonl` file. It turns them into runs in trailgate's model: calls with server, name,
//! arguments, result, status, step and completion, in trace order.

use std::ops::Range;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::lazy_value::LazyValue;
use crate::model::{Call, Run, Status};
use crate::naming::Naming;

mod adk;
mod anthropic;
mod atif;
mod bedrock;
mod claude_code;
mod codex_exec;
mod cohere;
mod copilot;
pub(crate) mod export;
mod gemini;
mod gemini_cli;
mod gemini_interactions;
mod inspect_ai;
mod langchain;
mod langfuse;
mod langsmith;
mod mcp;
mod mini_swe_agent;
mod native;
mod openai_agents;
mod openai_chat;
mod openai_responses;
mod openhands;
mod otel;
mod swe_agent;
#[cfg(test)]
pub(crate) mod testing;
pub(crate) mod usage;

/// Every format, in detection order: the first whose `detect` accepts the first record
/// reads the file. More specific shapes come before looser ones.
pub(crate) const ADAPTERS: &[&dyn Adapter] = &[
    &native::Native,
    &otel::Otel,
    &openai_agents::OpenAiAgents,
    &atif::Atif,
    &mini_swe_agent::MiniSweAgent,
    &gemini_cli::GeminiCli,
    &codex_exec::CodexExec,
    &langfuse::Langfuse,
    &langsmith::LangSmith,
    &swe_agent::SweAgent,
    &openhands::OpenHands,
    &bedrock::Bedrock,
    &cohere::Cohere,
    &gemini_interactions::GeminiInteractions,
    &inspect_ai::InspectAi,
    &mcp::Mcp,
    &claude_code::ClaudeCode,
    &openai_responses::OpenAiResponses,
    &copilot::Copilot,
    &adk::Adk,
    &gemini::Gemini,
    &langchain::LangChain,
    &anthropic::Anthropic,
    &openai_chat::OpenAiChat,
];

/// The names of the formats, as written in suites and on the command line.
pub fn format_names() -> Vec<&'static str> {
    ADAPTERS.iter().map(|adapter| adapter.name()).collect()
}

/// A trace format.
pub(crate) trait Adapter: Sync {
    /// The format's name in suites and on the command line (`claude-code`).
    fn name(&self) -> &'static str;
    /// What a file of this format starts with, for the error when no format matches.
    fn expects(&self) -> &'static str;
    /// Whether the first record (a whole `.json` document, or the first line of a
    /// `.jsonl` file) is of this format.
    fn detect(&self, first: &Value) -> bool;
    /// The naming scheme used when the suite names none.
    fn naming(&self) -> Naming {
        Naming::McpDouble
    }
    /// A converter for one file.
    fn converter(&self) -> Box<dyn Converter>;
    /// Whether the format's records state their calls outright, so that a file with none
    /// means none (trailgate's own shapes), rather than a file read in the wrong format.
    fn states_its_calls(&self) -> bool {
        false
    }
    /// Whether each line of a JSON Lines file converts alone into exactly one run, so that
    /// the lines can be parsed apart, on several threads ([`crate::read_trace_in_parts`]).
    fn one_run_per_line(&self) -> bool {
        false
    }
    /// Reads one line of a JSON Lines file into `run`, for a format whose lines convert
    /// alone ([`one_run_per_line`](Self::one_run_per_line)): the line is the text at
    /// `range` in `source`, which holds other lines too. A format may share `source` with
    /// the run's values and reuse the buffers of `run`, the run read before.
    fn line_run_into(
        &self,
        run: &mut Run,
        source: &Arc<String>,
        range: Range<usize>,
        line: usize,
    ) -> Result<(), RecordError> {
        let record = Record {
            text: source.get(range).unwrap_or_default(),
            line,
            lines: true,
        };
        // The format converts each line into exactly one run.
        *run = self.converter().record(&record)?.pop().unwrap_or_default();
        Ok(())
    }
}

/// Turns the records of one file into runs.
pub(crate) trait Converter: Send {
    /// Reads one record; returns the runs it completes (most formats complete their one
    /// run at the end of the file, trailgate's own JSON Lines one run per line).
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError>;
    /// The end of the file: the runs still open.
    fn finish(self: Box<Self>) -> Vec<Run>;
}

/// One record of a trace file.
pub(crate) struct Record<'a> {
    /// The record's text.
    pub(crate) text: &'a str,
    /// The record's 1-based first line in its file.
    pub(crate) line: usize,
    /// Whether the file is JSON Lines (a record per line) rather than one document.
    pub(crate) lines: bool,
}

impl Record<'_> {
    /// The record as a JSON value.
    pub(crate) fn value(&self) -> Result<Value, RecordError> {
        serde_json::from_str(self.text).map_err(RecordError::Json)
    }
}

/// Why a record could not be read.
#[derive(Debug)]
pub(crate) enum RecordError {
    /// The text is not JSON.
    Json(serde_json::Error),
    /// The JSON is not what the format holds; the message says where (`messages[3]`).
    Shape(String),
}

// ---------------------------------------------------------------------------------------
// Helpers shared by the adapters.

/// Arguments as a value: an object (or any JSON value) is kept; a string is parsed as JSON,
/// and when it is not valid JSON the call keeps the text itself as its arguments, and as
/// `args_raw`. Arguments that cannot be read are never `{}`: that would equal an expected
/// call without arguments and score as correct. Text nested too deep to parse is refused
/// when the run is finished (`TraceError::TooDeepValue`).
pub(crate) fn arguments(value: Option<&Value>) -> (Value, Option<String>) {
    match value {
        None | Some(Value::Null) => (Value::Object(Map::new()), None),
        Some(Value::String(text)) if text.trim().is_empty() => (Value::Object(Map::new()), None),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(parsed) => (parsed, None),
            Err(_) => (Value::String(text.clone()), Some(text.clone())),
        },
        Some(other) => (other.clone(), None),
    }
}

/// A result as trailgate keeps it: a string as is; content blocks (`[{type: text, text}]`)
/// joined into one string; any other value as it is.
pub(crate) fn result_value(value: &Value) -> Value {
    match value {
        Value::Array(blocks) if !blocks.is_empty() && blocks.iter().all(is_text_block) => {
            Value::String(
                blocks
                    .iter()
                    .filter_map(|block| block.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        }
        other => other.clone(),
    }
}

fn is_text_block(block: &Value) -> bool {
    block
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t == "text" || t == "input_text" || t == "output_text")
        && block.get("text").is_some_and(Value::is_string)
}

/// A string field of a JSON object.
pub(crate) fn str_field<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

/// An id written as a string or a number, as text.
pub(crate) fn id_field(value: &Value, key: &str) -> Option<String> {
    match value.get(key)? {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// An agent's name as a call keeps it: `None` for an empty name, which names no agent
/// (docs/formats.md#agents).
pub(crate) fn agent_name(name: &str) -> Option<String> {
    (!name.is_empty()).then(|| name.to_owned())
}

/// A new call that has not been answered yet.
pub(crate) fn open_call(
    server: Option<String>,
    name: String,
    args: Option<&Value>,
    step: u32,
) -> Call {
    let (args, args_raw) = arguments(args);
    Call {
        server,
        name,
        args: args.into(),
        args_raw,
        result: None,
        status: Status::Unknown,
        step,
        completed: false,
        agent: None,
        time: None,
    }
}

/// Records `result` and `status` on a call, marking it completed.
pub(crate) fn complete(call: &mut Call, result: Option<Value>, status: Status) {
    call.completed = true;
    call.result = result.map(LazyValue::from);
    call.status = status;
}

/// Calls in order, with the indices of calls still waiting for a result by id: the pairing
/// most formats need.
#[derive(Debug, Default)]
pub(crate) struct CallLog {
    pub(crate) calls: Vec<Call>,
    open: std::collections::BTreeMap<String, usize>,
}

impl CallLog {
    /// Adds a call; `id` pairs it with its result later.
    pub(crate) fn push(&mut self, id: Option<String>, call: Call) {
        if let Some(id) = id {
            self.open.insert(id, self.calls.len());
        }
        self.calls.push(call);
    }

    /// The open call with this id, taken off the open list; a result that pairs with
    /// nothing is ignored by the caller.
    pub(crate) fn answer(&mut self, id: &str) -> Option<&mut Call> {
        let index = self.open.remove(id)?;
        self.calls.get_mut(index)
    }

    /// The calls as one run.
    pub(crate) fn into_run(self) -> Run {
        Run {
            calls: self.calls,
            format: "",
            line: None,
            ..Default::default()
        }
    }
}
