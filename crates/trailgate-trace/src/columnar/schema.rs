//! The columns an export is read by: whose export a file is, and where each needed column
//! is among the file's and how it is written (a string, a timestamp, an integer, a MAP of
//! strings to integers), found and checked once when the file opens
//! (docs/formats.md#parquet-exports).

use parquet::basic::{ConvertedType, LogicalType, TimeUnit, Type as Physical};
use parquet::schema::types::{ColumnDescriptor, SchemaDescriptor};

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

    /// The columns read, each `(name, what it must be, whether it must be there)`, in the
    /// order of [`Columns`]; a column the platform has no use for has no name.
    fn columns(self) -> [(&'static str, Shape, bool); COLUMNS] {
        use Shape::{Count, Text, Time, Usage};
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
                ("usage_details", Usage, false),
                ("provided_model_name", Text, false),
                ("", Count, false),
                ("", Count, false),
                ("", Text, false),
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
                ("", Usage, false),
                ("", Text, false),
                // `total_tokens` is not read: a total alone does not say input from output,
                // and adds nothing (as in the JSON Lines reader).
                ("prompt_tokens", Count, false),
                ("completion_tokens", Count, false),
                ("extra", Text, false),
            ],
        }
    }

    /// The columns that name a model row's model: read in the first pass, but only for the
    /// rows whose tokens are counted ([`ParquetRuns::read_sparse`]).
    pub(super) fn model_columns(self) -> &'static [usize] {
        match self {
            Self::Langfuse => &[MODEL],
            Self::LangSmith => &[OUTPUT, EXTRA],
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
    /// A token count: `INT64` or `INT32`, signed or unsigned.
    Count,
    /// Token counts by name: a MAP of strings to integers (`ClickHouse`'s `Map(String,
    /// UInt64)`), or a string holding a JSON object of them.
    Usage,
}

/// Where each column needed is among the file's columns, and how to read it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Column {
    pub(super) name: &'static str,
    /// Its leaf column among the file's columns; a MAP's key column.
    pub(super) index: usize,
    /// That leaf's greatest definition level: a value is there (a MAP's entry, for its key
    /// column) when its level is this.
    pub(super) def: i16,
    pub(super) form: Form,
}

/// How a column is written.
#[derive(Debug, Clone, Copy)]
pub(super) enum Form {
    /// `BYTE_ARRAY`: a string, or a time or token counts written as text.
    Text,
    /// An `INT64` timestamp, in nanoseconds per unit.
    Time(i64),
    /// An integer (`INT64` or `INT32`); `unsigned` when annotated so (`UINT_64`,
    /// `ClickHouse`'s `UInt64`), its bits then read as unsigned.
    Int { unsigned: bool },
    /// A MAP of strings to integers: [`Column::index`] is its key column, `value` its value
    /// column, whose value is there when its definition level is `value_def`.
    Map {
        value: usize,
        value_def: i16,
        unsigned: bool,
    },
}

impl Column {
    /// Its leaf columns among the file's: one, or a MAP's key and value.
    pub(super) fn leaves(self) -> impl Iterator<Item = usize> {
        let value = match self.form {
            Form::Map { value, .. } => Some(value),
            _ => None,
        };
        std::iter::once(self.index).chain(value)
    }
}

/// How many columns the reader knows, over both platforms.
pub(super) const COLUMNS: usize = 15;

/// The needed columns, in the order of [`Platform::columns`]: the first pass reads
/// [`COUNTED`] and the platform's [`model_columns`](Platform::model_columns), the second
/// [`CALLED`].
pub(super) type Columns = [Option<Column>; COLUMNS];
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
/// Langfuse's `usage_details`.
pub(super) const USAGE: usize = 10;
/// Langfuse's `provided_model_name`.
pub(super) const MODEL: usize = 11;
/// LangSmith's `prompt_tokens`.
pub(super) const PROMPT: usize = 12;
/// LangSmith's `completion_tokens`.
pub(super) const COMPLETION: usize = 13;
/// LangSmith's `extra`.
pub(super) const EXTRA: usize = 14;
/// The columns the first pass reads in every row: those the traces' counts, order, times
/// and tokens need.
pub(super) const COUNTED: [usize; 7] = [TRACE, KIND, START, END, USAGE, PROMPT, COMPLETION];
/// The columns the second pass reads: those the calls need.
pub(super) const CALLED: [usize; 10] = [
    TRACE, KIND, START, NAME, END, INPUT, OUTPUT, LEVEL, MESSAGE, METADATA,
];

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
    let mut found: Columns = [None; COLUMNS];
    for (slot, (name, shape, required)) in found.iter_mut().zip(platform.columns()) {
        if name.is_empty() {
            continue;
        }
        let Some(index) = top_level(schema, name) else {
            if shape == Shape::Usage {
                *slot = map_column(schema, name)?;
            } else if required {
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
        let form = match (shape, physical) {
            (Shape::Count, Physical::INT64 | Physical::INT32) => Form::Int {
                unsigned: unsigned(&column).ok_or_else(|| {
                    format!("the column `{name}` is an {physical} that is not an integer")
                })?,
            },
            (Shape::Count, other) => {
                return Err(format!(
                    "the column `{name}` is {other}, not an integer (INT64 or INT32)"
                ));
            }
            (_, Physical::BYTE_ARRAY) => Form::Text,
            (Shape::Time, Physical::INT64) => Form::Time(
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
            (Shape::Usage, _) => return Err(not_usage(name)),
        };
        *slot = Some(Column {
            name,
            index,
            def: column.max_def_level(),
            form,
        });
    }
    Ok(found)
}

/// The column `name` as a MAP of strings to integers, as `ClickHouse` writes a
/// `Map(String, UInt64)`: a group annotated `MAP` holding a repeated group of a `key`
/// (`BYTE_ARRAY`) and a `value` (`INT64` or `INT32`), each a leaf column repeated once.
/// `None` when the file has no column `name`; an error when it is another shape. The levels
/// are the schema's, not assumed.
fn map_column(schema: &SchemaDescriptor, name: &'static str) -> Result<Option<Column>, String> {
    let leaves: Vec<usize> = (0..schema.num_columns())
        .filter(|&index| {
            schema
                .column(index)
                .path()
                .parts()
                .first()
                .map(String::as_str)
                == Some(name)
        })
        .collect();
    if leaves.is_empty() {
        return Ok(None);
    }
    let annotated = schema
        .root_schema()
        .get_fields()
        .iter()
        .find(|field| field.name() == name)
        .is_some_and(|field| {
            let info = field.get_basic_info();
            matches!(info.logical_type_ref(), Some(LogicalType::Map))
                || matches!(
                    info.converted_type(),
                    ConvertedType::MAP | ConvertedType::MAP_KEY_VALUE
                )
        });
    let &[key, value] = leaves.as_slice() else {
        return Err(not_usage(name));
    };
    let (key, value_column) = (schema.column(key), schema.column(value));
    let leaf = |column: &ColumnDescriptor, last: &str| {
        let parts = column.path().parts();
        parts.len() == 3
            && parts.get(2).map(String::as_str) == Some(last)
            && column.max_rep_level() == 1
    };
    let (key_def, value_def) = (key.max_def_level(), value_column.max_def_level());
    // The value is there at the key's level (a required value) or one more (an optional
    // one).
    if !annotated
        || !leaf(&key, "key")
        || !leaf(&value_column, "value")
        || key.physical_type() != Physical::BYTE_ARRAY
        || !matches!(
            value_column.physical_type(),
            Physical::INT64 | Physical::INT32
        )
        || !(value_def == key_def || value_def == key_def + 1)
    {
        return Err(not_usage(name));
    }
    let unsigned = unsigned(&value_column).ok_or_else(|| not_usage(name))?;
    Ok(Some(Column {
        name,
        index: leaves.first().copied().unwrap_or_default(),
        def: key_def,
        form: Form::Map {
            value,
            value_def,
            unsigned,
        },
    }))
}

/// The error for a usage column of another shape.
fn not_usage(name: &str) -> String {
    format!(
        "the column `{name}` is neither a map of strings to integers (MAP) nor JSON text \
         (BYTE_ARRAY)"
    )
}

/// Whether an integer column is unsigned, by its annotation; `None` when it is annotated as
/// something other than an integer (a timestamp, a decimal, a date).
fn unsigned(column: &ColumnDescriptor) -> Option<bool> {
    match column.logical_type_ref() {
        Some(LogicalType::Integer(int)) => Some(!int.is_signed),
        Some(_) => None,
        None => match column.converted_type() {
            ConvertedType::NONE
            | ConvertedType::INT_8
            | ConvertedType::INT_16
            | ConvertedType::INT_32
            | ConvertedType::INT_64 => Some(false),
            ConvertedType::UINT_8
            | ConvertedType::UINT_16
            | ConvertedType::UINT_32
            | ConvertedType::UINT_64 => Some(true),
            _ => None,
        },
    }
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
