//! The `langsmith` format: LangSmith runs as its SDK dumps them (`Run.json()`, one run per
//! line of a JSON Lines file, or a list of them in a `.json` file), the same rows as its
//! bulk export's Parquet files (`columnar.rs`).
//!
//! Runs are grouped by `trace_id` into trailgate runs (`export.rs`). The calls are the runs
//! of `run_type: tool`, in start order: the name from `name`, arguments from `inputs`, the
//! result from `outputs` (its `output` when that is all it holds), `error` for a run with an
//! `error`. A step is one `llm` run: a tool takes the step of the last one that started at
//! or before it.
//!
//! Each `llm` run's `prompt_tokens` (counting the cached ones, `prompt_token_details`'
//! `cache_read`) and `completion_tokens` add to its trace's usage, under the model its
//! response names (`outputs.llm_output.model_name`), else `extra.metadata.ls_model_name`,
//! else `extra.invocation_params`' `model` or `model_name`; a run that gives only
//! `total_tokens` does not say input from output and adds nothing. A trace spans its runs'
//! `start_time` and `end_time`, and a call is its tool run's (docs/formats.md#usage-and-time).
//! The Parquet reader reads the same columns by the same rules (`export.rs`).

use serde_json::Value;

use crate::formats::export::{
    Kind, ToolRow, Traces, export_time, langsmith_model, langsmith_output,
};
use crate::formats::{Adapter, Converter, Record, RecordError, str_field, usage};
use crate::model::Run;

pub(crate) struct LangSmith;

impl Adapter for LangSmith {
    fn name(&self) -> &'static str {
        "langsmith"
    }

    fn expects(&self) -> &'static str {
        "LangSmith runs, one `{id, trace_id, run_type, name, start_time, inputs, outputs, \
         ...}` per line, or a list of them"
    }

    fn detect(&self, first: &Value) -> bool {
        match first {
            Value::Array(runs) => runs.first().is_some_and(is_run),
            other => is_run(other),
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(LangSmithConverter::default())
    }
}

/// A LangSmith run: a `run_type`, a `trace_id` and a `start_time`.
fn is_run(value: &Value) -> bool {
    value.get("run_type").is_some_and(Value::is_string)
        && value.get("trace_id").is_some_and(Value::is_string)
        && value.get("start_time").is_some()
}

/// Holds the runs' rows until the end of the file.
#[derive(Default)]
struct LangSmithConverter {
    rows: Traces,
}

impl Converter for LangSmithConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        match record.value()? {
            Value::Array(runs) => {
                for (index, run) in runs.iter().enumerate() {
                    self.run(run, &format!("[{index}]"))?;
                }
            }
            run => self.run(&run, "the run")?,
        }
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        self.rows.into_runs()
    }
}

impl LangSmithConverter {
    /// Adds one run; `path` names it in errors.
    fn run(&mut self, run: &Value, path: &str) -> Result<(), RecordError> {
        if !is_run(run) {
            return Ok(());
        }
        let trace = str_field(run, "trace_id").unwrap_or_default().to_owned();
        let kind = Kind::langsmith(str_field(run, "run_type").unwrap_or_default());
        let time = |key| str_field(run, key).and_then(export_time);
        let start = time("start_time");
        self.rows.widen(&trace, start, time("end_time"));
        if kind == Kind::Model
            && let Some(tokens) = usage::tokens(
                run,
                &["prompt_tokens"],
                &["completion_tokens"],
                run.get("prompt_token_details"),
                &["cache_read"],
            )?
        {
            self.rows.add_usage(
                &trace,
                langsmith_model(run.get("outputs"), run.get("extra")),
                tokens,
            );
        }
        let tool = if kind == Kind::Tool {
            let name = str_field(run, "name")
                .filter(|name| !name.is_empty())
                .ok_or_else(|| {
                    RecordError::Shape(format!("a `tool` run without a name at `{path}`"))
                })?;
            let error = run
                .get("error")
                .filter(|error| !error.is_null() && error.as_str() != Some(""));
            Some(ToolRow {
                server: None,
                name: name.to_owned(),
                start,
                end: time("end_time"),
                input: run
                    .get("inputs")
                    .filter(|inputs| !inputs.is_null())
                    .cloned(),
                output: run.get("outputs").cloned().and_then(langsmith_output),
                failed: error.is_some(),
                message: error.cloned(),
            })
        } else {
            None
        };
        self.rows.push(trace, start, kind, tool);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
