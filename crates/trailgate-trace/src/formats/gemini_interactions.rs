//! The `gemini-interactions` format: the Gemini Interactions API's interaction objects
//! (`{object: "interaction", status, steps | outputs: [...]}`), one document, a list, or
//! one per line.
//!
//! A `function_call` step is a call (`name`, `arguments`, paired by `id`), and so is an
//! `mcp_server_tool_call`, whose `server_name` is the call's server. A `function_result` or
//! `mcp_server_tool_result` answers the call its `call_id` names (`is_error` marks an
//! error). A file is one run; each interaction is one step. Each interaction's `usage`
//! adds to the run's under its `model`, and its `created` and `updated` times bound the
//! run's (docs/formats.md#usage-and-time).

use serde_json::Value;

use crate::formats::{
    Adapter, CallLog, Converter, Record, RecordError, complete, id_field, open_call, result_value,
    str_field, usage,
};
use crate::model::{Interval, Run, Status, Usage};

pub(crate) struct GeminiInteractions;

impl Adapter for GeminiInteractions {
    fn name(&self) -> &'static str {
        "gemini-interactions"
    }

    fn expects(&self) -> &'static str {
        "a Gemini Interactions API interaction: `{object: \"interaction\", steps | outputs: \
         [{type: function_call | function_result | mcp_server_tool_call | ...}]}`"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(items) => items.first().is_some_and(is_interaction),
            other => is_interaction(other),
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(InteractionsConverter::default())
    }
}

fn is_interaction(value: &Value) -> bool {
    str_field(value, "object") == Some("interaction")
}

#[derive(Default)]
struct InteractionsConverter {
    log: CallLog,
    steps: u32,
    usage: Usage,
    time: Option<Interval>,
}

impl Converter for InteractionsConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        match record.value()? {
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    self.interaction(item, &format!("[{index}]."))?;
                }
            }
            item => self.interaction(&item, "")?,
        }
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        let mut run = self.log.into_run();
        run.usage = self.usage;
        run.time = self.time;
        vec![run]
    }
}

impl InteractionsConverter {
    fn interaction(&mut self, interaction: &Value, path: &str) -> Result<(), RecordError> {
        if !is_interaction(interaction) {
            return Ok(());
        }
        let step = self.steps;
        self.steps = self.steps.saturating_add(1);
        self.usage_and_time(interaction)?;
        let (key, items) = match (interaction.get("steps"), interaction.get("outputs")) {
            (Some(Value::Array(items)), _) => ("steps", items.as_slice()),
            (_, Some(Value::Array(items))) => ("outputs", items.as_slice()),
            _ => ("steps", &[][..]),
        };
        for (index, item) in items.iter().enumerate() {
            match str_field(item, "type") {
                Some(kind @ ("function_call" | "mcp_server_tool_call")) => {
                    let name = str_field(item, "name").ok_or_else(|| {
                        RecordError::Shape(format!(
                            "a `{kind}` without a `name` at `{path}{key}[{index}]`"
                        ))
                    })?;
                    let server = str_field(item, "server_name").map(str::to_owned);
                    let call = open_call(server, name.to_owned(), item.get("arguments"), step);
                    self.log.push(id_field(item, "id"), call);
                }
                Some("function_result" | "mcp_server_tool_result") => {
                    if let Some(id) = id_field(item, "call_id")
                        && let Some(call) = self.log.answer(&id)
                    {
                        let status = match item.get("is_error").and_then(Value::as_bool) {
                            Some(true) => Status::Error,
                            Some(false) => Status::Ok,
                            None => Status::Unknown,
                        };
                        complete(call, item.get("result").map(result_value), status);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

impl InteractionsConverter {
    /// An interaction's usage: `total_input_tokens` counts the `total_cached_tokens`; the
    /// thoughts are output, as they are billed (as for Gemini's `usageMetadata`). Its
    /// `created` and `updated` times.
    fn usage_and_time(&mut self, interaction: &Value) -> Result<(), RecordError> {
        for key in ["created", "updated"] {
            if let Some(at) = usage::time_field(interaction, key) {
                usage::widen(&mut self.time, at, at);
            }
        }
        let Some(recorded) = interaction.get("usage") else {
            return Ok(());
        };
        let Some(tokens) = usage::thinking_tokens(
            recorded,
            &["total_input_tokens"],
            &["total_output_tokens"],
            &["total_cached_tokens"],
            &["total_thought_tokens"],
        )?
        else {
            return Ok(());
        };
        usage::add(&mut self.usage, str_field(interaction, "model"), tokens);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
