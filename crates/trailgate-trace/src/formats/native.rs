//! Trailgate's own shapes (docs/suite.md#trace-files): the call list and the event trajectory,
//! one run
//! per `.json` file or per line of a `.jsonl` file.

use serde_json::Value;

use std::ops::Range;
use std::sync::Arc;

use crate::document::{parse_native, parse_native_into};
use crate::formats::{Adapter, Converter, Record, RecordError};
use crate::model::Run;

pub(crate) struct Native;

impl Adapter for Native {
    fn name(&self) -> &'static str {
        "trailgate"
    }

    fn expects(&self) -> &'static str {
        "an object with a `tool_calls` list of `{name, server?, args?}` or an `events` list of \
         `{type: turn_start | tool_call | tool_result, ...}`"
    }

    fn detect(&self, first: &Value) -> bool {
        let Some(object) = first.as_object() else {
            return false;
        };
        // An OpenAI assistant message also has `tool_calls`, under a `role`.
        if object.contains_key("role") || object.contains_key("choices") {
            return false;
        }
        // An OpenTelemetry span of the Python SDK has `events` too, under its `context`.
        if object
            .get("context")
            .is_some_and(|context| context.get("span_id").is_some())
        {
            return false;
        }
        let calls_are_named = |calls: &Vec<Value>| {
            calls.iter().all(|call| {
                call.get("name").is_some_and(Value::is_string) && call.get("function").is_none()
            })
        };
        let events_are_typed = |events: &Vec<Value>| {
            events.iter().all(|event| {
                event.get("type").is_some_and(Value::is_string)
                    || event.pointer("/data/type").is_some_and(Value::is_string)
            })
        };
        match (object.get("tool_calls"), object.get("events")) {
            (Some(Value::Array(calls)), None) => calls_are_named(calls),
            (None, Some(Value::Array(events))) => events_are_typed(events),
            _ => false,
        }
    }

    fn converter(&self) -> Box<dyn Converter> {
        Box::new(NativeConverter)
    }

    fn one_run_per_line(&self) -> bool {
        true
    }

    fn states_its_calls(&self) -> bool {
        true
    }

    fn line_run_into(
        &self,
        run: &mut Run,
        source: &Arc<String>,
        range: Range<usize>,
        line: usize,
    ) -> Result<(), RecordError> {
        parse_native_into(run, source, range).map_err(RecordError::Json)?;
        run.line = Some(line);
        Ok(())
    }
}

struct NativeConverter;

impl Converter for NativeConverter {
    fn record(&mut self, record: &Record<'_>) -> Result<Vec<Run>, RecordError> {
        let mut run = parse_native(record.text).map_err(RecordError::Json)?;
        run.line = record.lines.then_some(record.line);
        Ok(vec![run])
    }

    fn finish(self: Box<Self>) -> Vec<Run> {
        Vec::new()
    }
}
