//! The columns an export is read by: whose export a file is, and where each needed column
//! is among the file's and how it is written (a string or a timestamp), found and checked
//! once when the file opens (docs/formats.md#parquet-exports).

use parquet::basic::{ConvertedType, LogicalType, TimeUnit, Type as Physical};
use parquet::schema::types::SchemaDescriptor;

/// Whose export a file is, told by its columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Platform {
    Langfuse,
    LangSmith,
}

impl Platform {
    /// The format's name, as the JSON readers of the same rows are named.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Langfuse => "langfuse",
            Self::LangSmith => "langsmith",
        }
    }

    /// The columns read, each `(name, what it must be, whether it must be there)`.
    fn columns(self) -> [(&'static str, Shape, bool); 10] {
        use Shape::{Text, Time};
        match self {
            Self::Langfuse => [
                ("trace_id", Text, true),
                ("type", Text, true),
                ("start_time", Time, true),
                ("name", Text, true),
                ("end_time", Time, false),
                ("input", Text, false),
                ("output", Text, false),
                ("level", Text, false),
                ("status_message", Text, false),
                ("metadata", Text, false),
            ],
            Self::LangSmith => [
                ("trace_id", Text, true),
                ("run_type", Text, true),
                ("start_time", Time, true),
                ("name", Text, true),
                ("end_time", Time, false),
                ("inputs", Text, false),
                ("outputs", Text, false),
                // LangSmith has no level (a run failed when its `error` is set), and its
                // tools' names need no metadata: no column is read for either.
                ("", Text, false),
                ("error", Text, false),
                ("", Text, false),
            ],
        }
    }
}

/// What a column must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// A string: `BYTE_ARRAY`, UTF-8.
    Text,
    /// A timestamp: `INT64` annotated as a timestamp, or a string in one of the exports'
    /// time formats.
    Time,
}

/// Where each column needed is among the file's columns, and how to read it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Column {
    pub(super) name: &'static str,
    pub(super) index: usize,
    /// For an `INT64` timestamp, nanoseconds per unit; `None` for a string.
    pub(super) nanos: Option<i64>,
}

/// The needed columns, in the order of [`Platform::columns`]: the first three are read in
/// both passes.
pub(super) type Columns = [Option<Column>; 10];
pub(super) const TRACE: usize = 0;
pub(super) const KIND: usize = 1;
pub(super) const START: usize = 2;
pub(super) const NAME: usize = 3;
pub(super) const END: usize = 4;
pub(super) const INPUT: usize = 5;
pub(super) const OUTPUT: usize = 6;
pub(super) const LEVEL: usize = 7;
pub(super) const MESSAGE: usize = 8;
pub(super) const METADATA: usize = 9;

/// Whose export the file is, by its columns.
pub(super) fn detect(schema: &SchemaDescriptor) -> Result<Platform, String> {
    let has = |name: &str| top_level(schema, name).is_some();
    if has("run_type") {
        Ok(Platform::LangSmith)
    } else if has("type") && has("trace_id") {
        Ok(Platform::Langfuse)
    } else if has("timestamp") && has("id") {
        Err(
            "this is a Langfuse traces export, which holds no tool calls: pass the \
             `observations` (or `observations_v2`) export of the same window"
                .to_owned(),
        )
    } else {
        Err(
            "the columns are neither a Langfuse observations export (`trace_id`, `type`, \
             `start_time`, `name`, ...) nor a LangSmith runs export (`trace_id`, `run_type`, \
             `start_time`, `name`, ...)"
                .to_owned(),
        )
    }
}

/// The index of the top-level column `name`.
fn top_level(schema: &SchemaDescriptor, name: &str) -> Option<usize> {
    (0..schema.num_columns()).find(|&index| {
        let column = schema.column(index);
        column.path().parts() == [name]
    })
}

/// Finds each needed column and checks its type.
pub(super) fn columns(schema: &SchemaDescriptor, platform: Platform) -> Result<Columns, String> {
    let mut found: Columns = [None; 10];
    for (slot, (name, shape, required)) in found.iter_mut().zip(platform.columns()) {
        let Some(index) = top_level(schema, name) else {
            if required {
                return Err(format!(
                    "the column `{name}` is missing: a {} export has it",
                    platform.name()
                ));
            }
            continue;
        };
        let column = schema.column(index);
        if column.max_rep_level() > 0 {
            return Err(format!("the column `{name}` is a list, not a single value"));
        }
        let physical = column.physical_type();
        let nanos = match (shape, physical) {
            (_, Physical::BYTE_ARRAY) => None,
            (Shape::Time, Physical::INT64) => Some(
                time_unit(column.logical_type_ref(), column.converted_type()).ok_or_else(|| {
                    format!("the column `{name}` is an INT64 that is not a timestamp")
                })?,
            ),
            (Shape::Text, other) => {
                return Err(format!("the column `{name}` is {other}, not a string"));
            }
            (Shape::Time, other) => {
                return Err(format!(
                    "the column `{name}` is {other}, not a timestamp (INT64) or a string"
                ));
            }
        };
        *slot = Some(Column { name, index, nanos });
    }
    Ok(found)
}

/// Nanoseconds per unit of an `INT64` timestamp column.
fn time_unit(logical: Option<&LogicalType>, converted: ConvertedType) -> Option<i64> {
    match logical {
        Some(LogicalType::Timestamp(timestamp)) => Some(match timestamp.unit {
            TimeUnit::MILLIS => 1_000_000,
            TimeUnit::MICROS => 1_000,
            TimeUnit::NANOS => 1,
        }),
        _ => match converted {
            ConvertedType::TIMESTAMP_MILLIS => Some(1_000_000),
            ConvertedType::TIMESTAMP_MICROS => Some(1_000),
            _ => None,
        },
    }
}
