//! The input of seed 004's tool-call accuracy package: `{"expected": [...], "actual": [...]}`,
//! each entry `{"tool": ..., "args": {...}}`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::TraceError;

/// One call of seed 004's input: a tool name, compared whole, and its arguments.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct PlainCall {
    /// The tool's name.
    pub tool: String,
    /// The arguments; `{}` when absent.
    #[serde(default = "empty_object")]
    pub args: Value,
}

/// Seed 004's input object.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AccuracyInput {
    /// The calls that should have been made.
    pub expected: Vec<PlainCall>,
    /// The calls that were made.
    pub actual: Vec<PlainCall>,
}

const INPUT_SHAPE: &str = "the input is `{\"expected\": [{\"tool\": ..., \"args\": {...}}], \
                           \"actual\": [...]}`; see docs/graders/call-accuracy.md";

fn empty_object() -> Value {
    Value::Object(Map::new())
}

/// Parses seed 004's input from `text`, named `file` in diagnostics.
pub fn parse_accuracy_input(file: &str, text: &str) -> Result<AccuracyInput, TraceError> {
    serde_json::from_str(text)
        .map_err(|error| TraceError::from_json(file, text, 1, &error, INPUT_SHAPE))
}
