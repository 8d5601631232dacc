//! Parquet exports of Langfuse (observations) and LangSmith (runs), read with the `parquet`
//! crate's column API: only the columns the calls need, one row group at a time
//! (docs/formats.md#parquet-exports, the limits in docs/robustness.md#parquet).
//!
//! Two passes over the file. The first reads each row group's trace id, kind and start
//! columns: how many tool rows each trace has, when its model rows started, and so the
//! order of the runs (earliest start, then trace id). The second reads the row groups
//! again with every needed column and hands a run over as soon as its last tool row is read
//! and the runs before it are handed over. Memory holds one row group's needed columns, the
//! traces' counts, and the calls of the runs not yet handed over: for an export written in
//! time order, a few runs.

use std::collections::BTreeMap;

use parquet::basic::{ConvertedType, LogicalType, TimeUnit, Type as Physical};
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{ByteArray, DataType};
use parquet::file::reader::{ChunkReader, FileReader, RowGroupReader, SerializedFileReader};
use parquet::schema::types::SchemaDescriptor;
use serde_json::Value;

use crate::error::TraceError;
use crate::formats::export::{
    Kind, ToolRow, export_time, langfuse_tool_name, langsmith_output, start_key, step_of,
    text_value,
};
use crate::model::{Call, Run};

/// The most a row group's needed columns may hold, uncompressed, as the file's metadata
/// states it: 128 MiB. A row group is read whole, column by column, so this bounds the
/// memory one takes; a larger one is refused before it is read
/// ([`TraceError::Parquet`]). Langfuse and LangSmith write row groups of a few megabytes.
pub const MAX_ROW_GROUP_BYTES: usize = 128 << 20;

/// How many values a column reader is asked for at a time.
const BATCH: usize = 4096;

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
enum Shape {
    /// A string: `BYTE_ARRAY`, UTF-8.
    Text,
    /// A timestamp: `INT64` annotated as a timestamp, or a string in one of the exports'
    /// time formats.
    Time,
}

/// Where each column needed is among the file's columns, and how to read it.
#[derive(Debug, Clone, Copy)]
struct Column {
    name: &'static str,
    index: usize,
    /// For an `INT64` timestamp, nanoseconds per unit; `None` for a string.
    nanos: Option<i64>,
}

/// The needed columns, in the order of [`Platform::columns`]: the first three are read in
/// both passes.
type Columns = [Option<Column>; 10];
const TRACE: usize = 0;
const KIND: usize = 1;
const START: usize = 2;
const NAME: usize = 3;
const END: usize = 4;
const INPUT: usize = 5;
const OUTPUT: usize = 6;
const LEVEL: usize = 7;
const MESSAGE: usize = 8;
const METADATA: usize = 9;

/// A Parquet export being read, run by run.
pub(crate) struct ParquetRuns {
    file: String,
    reader: Box<dyn FileReader>,
    platform: Platform,
    columns: Columns,
    /// The traces, in the order their runs are handed over.
    traces: Vec<TraceSlot>,
    /// Where each trace id is in `traces`.
    index: BTreeMap<String, usize>,
    /// The next row group of the second pass.
    group: usize,
    /// The number of the first row of `group` in the file.
    row: u64,
    /// The next trace to hand over.
    next: usize,
    /// Whether any tool row was read.
    pub(crate) calls: bool,
}

/// One trace: how many tool rows it has, its model rows' starts, and the calls read.
#[derive(Debug, Default)]
struct TraceSlot {
    /// The trace id, which the run's source carries.
    id: String,
    first: Option<i64>,
    tools: usize,
    models: Vec<i64>,
    calls: Vec<(u64, Option<i64>, Call)>,
}

/// Where in the file an error is.
fn at(group: usize, column: Option<&str>) -> String {
    match column {
        Some(column) => format!("row group {}, column `{column}`", group + 1),
        None => format!("row group {}", group + 1),
    }
}

impl ParquetRuns {
    /// Opens the export in `input`, named `file` in diagnostics; `format` is the format
    /// named by hand, if any. Reads its metadata, checks its schema and row groups, and
    /// runs the first pass.
    pub(crate) fn open<C: ChunkReader + 'static>(
        file: &str,
        input: C,
        format: Option<&str>,
    ) -> Result<Self, TraceError> {
        let error = |place: Option<String>, message: String| TraceError::Parquet {
            file: file.to_owned(),
            place: place.map(|place| format!(", {place}")).unwrap_or_default(),
            message,
        };
        let reader = SerializedFileReader::new(input)
            .map_err(|problem| error(None, format!("not a readable Parquet file: {problem}")))?;
        let schema = reader.metadata().file_metadata().schema_descr();
        let platform = match format {
            Some("langfuse") => Platform::Langfuse,
            Some("langsmith") => Platform::LangSmith,
            Some(other) => {
                return Err(error(
                    None,
                    format!("a `.parquet` file is a Langfuse or LangSmith export, not `{other}`"),
                ));
            }
            None => detect(schema).map_err(|message| error(None, message))?,
        };
        let columns = columns(schema, platform).map_err(|message| error(None, message))?;
        let mut runs = Self {
            file: file.to_owned(),
            reader: Box::new(reader),
            platform,
            columns,
            traces: Vec::new(),
            index: BTreeMap::new(),
            group: 0,
            row: 0,
            next: 0,
            calls: false,
        };
        runs.check_sizes()?;
        runs.count()?;
        Ok(runs)
    }

    /// The name of the format read.
    pub(crate) fn platform_name(&self) -> &'static str {
        self.platform.name()
    }

    fn error(&self, place: Option<String>, message: String) -> TraceError {
        TraceError::Parquet {
            file: self.file.clone(),
            place: place.map(|place| format!(", {place}")).unwrap_or_default(),
            message,
        }
    }

    /// Refuses a row group whose needed columns are larger than [`MAX_ROW_GROUP_BYTES`],
    /// before any is read.
    fn check_sizes(&self) -> Result<(), TraceError> {
        let metadata = self.reader.metadata();
        for (group, row_group) in metadata.row_groups().iter().enumerate() {
            let mut total: u64 = 0;
            let mut largest: Option<(u64, &str)> = None;
            for column in self.columns.iter().flatten() {
                let Some(chunk) = row_group.columns().get(column.index) else {
                    return Err(self.error(
                        Some(at(group, Some(column.name))),
                        "the row group has no such column chunk".to_owned(),
                    ));
                };
                let size = u64::try_from(chunk.uncompressed_size()).unwrap_or(u64::MAX);
                total = total.saturating_add(size);
                if largest.is_none_or(|(most, _)| size > most) {
                    largest = Some((size, column.name));
                }
            }
            if total > MAX_ROW_GROUP_BYTES as u64 {
                return Err(self.error(
                    Some(at(group, largest.map(|(_, name)| name))),
                    format!(
                        "the row group's columns read hold {total} bytes uncompressed, more \
                         than the {} MiB a row group may hold",
                        MAX_ROW_GROUP_BYTES >> 20
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The first pass: each trace's tool rows, model starts and earliest start, and the
    /// order of the runs.
    fn count(&mut self) -> Result<(), TraceError> {
        let mut traces: BTreeMap<String, TraceSlot> = BTreeMap::new();
        for group in 0..self.reader.num_row_groups() {
            let row_group = self.row_group(group)?;
            let rows = self.rows(&*row_group, group)?;
            let ids = self.text_column(&*row_group, group, TRACE, rows)?;
            let kinds = self.kinds(&*row_group, group, rows)?;
            let starts = self.time_column(&*row_group, group, START, rows)?;
            for ((id, kind), start) in ids.iter().zip(kinds).zip(starts) {
                let id = self.text(id.as_ref(), group, TRACE)?.unwrap_or_default();
                let slot = match traces.get_mut(id) {
                    Some(slot) => slot,
                    None => traces.entry(id.to_owned()).or_default(),
                };
                slot.first = match (slot.first, start) {
                    (Some(first), Some(start)) => Some(first.min(start)),
                    (first, start) => first.or(start),
                };
                match kind {
                    Kind::Tool => slot.tools += 1,
                    Kind::Model => slot.models.extend(start),
                    Kind::Other => {}
                }
            }
        }
        let mut order: Vec<(String, TraceSlot)> = traces.into_iter().collect();
        order.sort_by(|(a_id, a), (b_id, b)| {
            (a.first.is_none(), a.first, a_id).cmp(&(b.first.is_none(), b.first, b_id))
        });
        for (place, (id, mut slot)) in order.into_iter().enumerate() {
            slot.models.sort_unstable();
            slot.id.clone_from(&id);
            self.index.insert(id, place);
            self.traces.push(slot);
        }
        Ok(())
    }

    fn row_group(&self, group: usize) -> Result<Box<dyn RowGroupReader + '_>, TraceError> {
        self.reader
            .get_row_group(group)
            .map_err(|problem| self.error(Some(at(group, None)), problem.to_string()))
    }

    /// The row group's number of rows.
    fn rows(&self, row_group: &dyn RowGroupReader, group: usize) -> Result<usize, TraceError> {
        usize::try_from(row_group.metadata().num_rows()).map_err(|_| {
            self.error(
                Some(at(group, None)),
                "the row group states a negative number of rows".to_owned(),
            )
        })
    }

    /// The values of a text column, one per row (`None` for a null); a column that is not
    /// in the file is all nulls.
    fn text_column(
        &self,
        row_group: &dyn RowGroupReader,
        group: usize,
        which: usize,
        rows: usize,
    ) -> Result<Vec<Option<ByteArray>>, TraceError> {
        let Some(column) = self.columns.get(which).copied().flatten() else {
            return Ok(vec![None; rows]);
        };
        let place = || Some(at(group, Some(column.name)));
        let reader = row_group
            .get_column_reader(column.index)
            .map_err(|problem| self.error(place(), problem.to_string()))?;
        let ColumnReader::ByteArrayColumnReader(reader) = reader else {
            return Err(self.error(place(), "the column is not a string".to_owned()));
        };
        self.values(reader, column, group, rows)
    }

    /// The values of a time column, in nanoseconds since the epoch (`None` for a null or a
    /// text that is not a time).
    fn time_column(
        &self,
        row_group: &dyn RowGroupReader,
        group: usize,
        which: usize,
        rows: usize,
    ) -> Result<Vec<Option<i64>>, TraceError> {
        let Some(column) = self.columns.get(which).copied().flatten() else {
            return Ok(vec![None; rows]);
        };
        let Some(nanos) = column.nanos else {
            let texts = self.text_column(row_group, group, which, rows)?;
            return texts
                .iter()
                .map(|text| {
                    Ok(self
                        .text(text.as_ref(), group, which)?
                        .and_then(export_time))
                })
                .collect();
        };
        let place = || Some(at(group, Some(column.name)));
        let reader = row_group
            .get_column_reader(column.index)
            .map_err(|problem| self.error(place(), problem.to_string()))?;
        let ColumnReader::Int64ColumnReader(reader) = reader else {
            return Err(self.error(place(), "the column is not a timestamp".to_owned()));
        };
        let values = self.values(reader, column, group, rows)?;
        Ok(values
            .into_iter()
            .map(|value| value.and_then(|value| value.checked_mul(nanos)))
            .collect())
    }

    /// Every value of one column of a row group, `None` for a null: as many as the row
    /// group has rows, or an error naming the column.
    fn values<T: DataType>(
        &self,
        mut reader: ColumnReaderImpl<T>,
        column: Column,
        group: usize,
        rows: usize,
    ) -> Result<Vec<Option<T::T>>, TraceError> {
        let place = || Some(at(group, Some(column.name)));
        let max_def = self
            .reader
            .metadata()
            .file_metadata()
            .schema_descr()
            .column(column.index)
            .max_def_level();
        let mut levels = Vec::new();
        let mut values = Vec::new();
        loop {
            let (records, _, _) = reader
                .read_records(BATCH, Some(&mut levels), None, &mut values)
                .map_err(|problem| self.error(place(), problem.to_string()))?;
            if records == 0 {
                break;
            }
        }
        let out: Vec<Option<T::T>> = if max_def == 0 {
            values.into_iter().map(Some).collect()
        } else {
            let mut values = values.into_iter();
            levels
                .iter()
                .map(|&level| {
                    if level == max_def {
                        values.next()
                    } else {
                        None
                    }
                })
                .collect()
        };
        if out.len() != rows {
            return Err(self.error(
                place(),
                format!(
                    "the column holds {} values, the row group {rows} rows",
                    out.len()
                ),
            ));
        }
        Ok(out)
    }

    /// Each row's kind.
    fn kinds(
        &self,
        row_group: &dyn RowGroupReader,
        group: usize,
        rows: usize,
    ) -> Result<Vec<Kind>, TraceError> {
        let kinds = self.text_column(row_group, group, KIND, rows)?;
        kinds
            .iter()
            .map(|kind| {
                let kind = self.text(kind.as_ref(), group, KIND)?.unwrap_or_default();
                Ok(match self.platform {
                    Platform::Langfuse => Kind::langfuse(kind),
                    Platform::LangSmith => Kind::langsmith(kind),
                })
            })
            .collect()
    }

    /// The text in `row` of a column's values.
    fn cell<'v>(
        &self,
        values: &'v [Option<ByteArray>],
        row: usize,
        group: usize,
        which: usize,
    ) -> Result<Option<&'v str>, TraceError> {
        self.text(values.get(row).and_then(Option::as_ref), group, which)
    }

    /// A text value as UTF-8, or the error that names its row group and column.
    fn text<'v>(
        &self,
        value: Option<&'v ByteArray>,
        group: usize,
        which: usize,
    ) -> Result<Option<&'v str>, TraceError> {
        let Some(value) = value else {
            return Ok(None);
        };
        std::str::from_utf8(value.data())
            .map(Some)
            .map_err(|problem| {
                let name = self
                    .columns
                    .get(which)
                    .copied()
                    .flatten()
                    .map(|column| column.name);
                self.error(
                    Some(at(group, name)),
                    format!(
                        "a value is not valid UTF-8 (byte {})",
                        problem.valid_up_to() + 1
                    ),
                )
            })
    }

    /// The next runs, in order, at least one unless the file is read to its end (then
    /// none).
    pub(crate) fn next_runs(&mut self) -> Result<Vec<Run>, TraceError> {
        loop {
            let runs = self.ready_runs();
            if !runs.is_empty() {
                return Ok(runs);
            }
            if self.group >= self.reader.num_row_groups() {
                return Ok(Vec::new());
            }
            self.read_group()?;
        }
    }

    /// The runs complete and next in order, taken out.
    fn ready_runs(&mut self) -> Vec<Run> {
        let mut runs = Vec::new();
        while let Some(slot) = self.traces.get_mut(self.next) {
            if slot.calls.len() < slot.tools {
                break;
            }
            let mut calls = std::mem::take(&mut slot.calls);
            slot.models = Vec::new();
            calls.sort_by_key(|(row, start, _)| start_key(*start, *row));
            let id = std::mem::take(&mut slot.id);
            runs.push(Run {
                calls: calls.into_iter().map(|(_, _, call)| call).collect(),
                trace_id: (!id.is_empty()).then_some(id),
                ..Run::default()
            });
            self.next += 1;
        }
        runs
    }

    /// The second pass over one row group: its tool rows become calls of their traces.
    fn read_group(&mut self) -> Result<(), TraceError> {
        let group = self.group;
        self.group += 1;
        let first_row = self.row;
        let rows = {
            let row_group = self.row_group(group)?;
            self.rows(&*row_group, group)?
        };
        self.row += rows as u64;
        let row_group = self.row_group(group)?;
        let kinds = self.kinds(&*row_group, group, rows)?;
        if !kinds.contains(&Kind::Tool) {
            return Ok(());
        }
        let ids = self.text_column(&*row_group, group, TRACE, rows)?;
        let starts = self.time_column(&*row_group, group, START, rows)?;
        let ends = self.time_column(&*row_group, group, END, rows)?;
        let names = self.text_column(&*row_group, group, NAME, rows)?;
        let inputs = self.text_column(&*row_group, group, INPUT, rows)?;
        let outputs = self.text_column(&*row_group, group, OUTPUT, rows)?;
        let levels = self.text_column(&*row_group, group, LEVEL, rows)?;
        let messages = self.text_column(&*row_group, group, MESSAGE, rows)?;
        let metadata = self.text_column(&*row_group, group, METADATA, rows)?;
        drop(row_group);
        let mut calls = Vec::new();
        for (row, kind) in kinds.iter().enumerate() {
            if *kind != Kind::Tool {
                continue;
            }
            let id = self.cell(&ids, row, group, TRACE)?.unwrap_or_default();
            let start = starts.get(row).copied().flatten();
            let name = self.cell(&names, row, group, NAME)?;
            let (server, name) = match self.platform {
                Platform::Langfuse => {
                    let metadata = self
                        .cell(&metadata, row, group, METADATA)?
                        .map(|m| Value::String(m.to_owned()));
                    langfuse_tool_name(name, metadata.as_ref())
                }
                Platform::LangSmith => (
                    None,
                    name.filter(|name| !name.is_empty()).map(str::to_owned),
                ),
            };
            let Some(name) = name else {
                return Err(self.error(
                    Some(at(group, Some("name"))),
                    format!("row {}: a tool row without a name", row + 1),
                ));
            };
            let input = self
                .cell(&inputs, row, group, INPUT)?
                .filter(|input| !input.trim().is_empty())
                .map(|input| Value::String(input.to_owned()));
            let output = self.cell(&outputs, row, group, OUTPUT)?.map(text_value);
            let message = self
                .cell(&messages, row, group, MESSAGE)?
                .filter(|message| !message.is_empty());
            let (output, failed) = match self.platform {
                Platform::Langfuse => (
                    output,
                    self.cell(&levels, row, group, LEVEL)? == Some("ERROR"),
                ),
                Platform::LangSmith => (output.and_then(langsmith_output), message.is_some()),
            };
            let tool = ToolRow {
                server,
                name,
                start,
                end: ends.get(row).copied().flatten(),
                input,
                output,
                failed,
                message: message.map(|message| Value::String(message.to_owned())),
            };
            calls.push((id.to_owned(), first_row + row as u64, tool));
        }
        for (id, row, tool) in calls {
            let Some(slot) = self
                .index
                .get(&id)
                .and_then(|&place| self.traces.get_mut(place))
            else {
                continue;
            };
            self.calls = true;
            let start = tool.start;
            let step = step_of(&slot.models, start);
            slot.calls.push((row, start, tool.into_call(step)));
        }
        Ok(())
    }
}

/// Whose export the file is, by its columns.
fn detect(schema: &SchemaDescriptor) -> Result<Platform, String> {
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
fn columns(schema: &SchemaDescriptor, platform: Platform) -> Result<Columns, String> {
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

#[cfg(test)]
mod tests;
