//! The trace model: runs, calls, and the status of a call.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::lazy_value::LazyValue;
use crate::value_ref::ValueRef;

/// One recorded trajectory of one agent attempt.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Run {
    /// The calls, in trace order.
    pub calls: Vec<Call>,
    /// The name of the format it was read from (`trailgate`, `claude-code`, ...).
    pub format: &'static str,
    /// The 1-based line it was read from, for formats that hold one run per line.
    pub line: Option<usize>,
    /// The run's token usage per model, summed over its model responses; empty when the
    /// trace records none (docs/formats.md says where each format keeps it).
    pub usage: Usage,
    /// The times of the run's first and last events, when the trace records times.
    pub time: Option<Interval>,
    /// The trace id the run was grouped by, for formats that hold several runs per file
    /// under trace ids (OpenTelemetry): lower-case hex.
    pub trace_id: Option<String>,
}

/// One tool call as the trace recorded it.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The server the call went to, when the trace recorded one.
    pub server: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments; `{}` when the trace recorded none, or when they arrived as text that
    /// is not valid JSON (then `args_raw` holds that text). Parsed on first use: read them
    /// with [`Call::args`].
    pub args: LazyValue,
    /// Arguments that arrived as a string which is not valid JSON, kept as they were.
    pub args_raw: Option<String>,
    /// The result, when one was recorded. Parsed on first use: read it with
    /// [`Call::result`].
    pub result: Option<LazyValue>,
    /// Whether the call succeeded, as far as the trace says.
    pub status: Status,
    /// The agent turn the call was made in, from 0.
    pub step: u32,
    /// Whether a result was recorded for the call.
    pub completed: bool,
    /// The agent that made the call, when the trace says (a sub-agent's name, an
    /// OpenTelemetry span's `gen_ai.agent.name`, ADK's `author`, ...).
    pub agent: Option<String>,
    /// When the call started and ended, when the trace records both.
    pub time: Option<Interval>,
}

impl Call {
    /// The arguments, parsed on the first call; `{}` when the trace recorded none.
    pub fn args(&self) -> &Value {
        self.args.get()
    }

    /// The result, parsed on the first call, when one was recorded.
    pub fn result(&self) -> Option<&Value> {
        self.result.as_ref().map(LazyValue::get)
    }

    /// The arguments, read without parsing them ([`LazyValue::view`]).
    pub fn args_view(&self) -> ValueRef<'_> {
        self.args.view()
    }

    /// The result, read without parsing it, when one was recorded: read whole
    /// ([`LazyValue::whole_view`]), as a `result` pattern reads it.
    pub fn result_view(&self) -> Option<ValueRef<'_>> {
        self.result.as_ref().map(LazyValue::whole_view)
    }
}

/// A run's token usage: the tokens of each model that answered in it, in model-name order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Usage {
    /// The tokens per model, keyed by the model's name as the trace records it.
    pub models: BTreeMap<String, Tokens>,
}

impl Usage {
    /// Whether the trace recorded no usage for the run.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }
}

/// The tokens one model read and wrote over a run's responses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Input tokens, counting cached ones.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Cached input tokens on their own, where the trace records them.
    pub cached_input: Option<u64>,
}

/// A stretch of time: its start and end, in nanoseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Interval {
    /// When it started.
    pub start_ns: i64,
    /// When it ended; never before `start_ns`.
    pub end_ns: i64,
}

/// Whether a call succeeded, as far as the trace says. Never guessed from result text.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The trace says it succeeded.
    Ok,
    /// The trace says it failed.
    Error,
    /// The trace does not say.
    #[default]
    Unknown,
}

/// How a trace file holds its records, told by its extension. (Which trace format the
/// records are in, `claude-code` or `otel`, is told by their content.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileLayout {
    /// `.json` (or SWE-agent's `.traj`): one JSON document.
    Json,
    /// `.jsonl`: one JSON record per non-empty line, read one line at a time.
    JsonLines,
    /// `.parquet`: a Langfuse or LangSmith export, read one row group at a time
    /// (docs/formats.md#parquet-exports).
    Parquet,
}

impl FileLayout {
    /// The layout of a file with this path, or `None` when its extension is none of
    /// `.json`, `.jsonl` and `.parquet`.
    pub fn from_path(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()? {
            // SWE-agent writes its JSON trajectories as `.traj`.
            "json" | "traj" => Some(Self::Json),
            "jsonl" => Some(Self::JsonLines),
            "parquet" => Some(Self::Parquet),
            _ => None,
        }
    }
}
