//! Parquet exports of Langfuse (observations) and LangSmith (runs), read with the `parquet`
//! crate's column API: only the columns the calls need, one row group at a time, a slice of
//! its rows at a time (docs/formats.md#parquet-exports, the limits in
//! docs/robustness.md#parquet).
//!
//! Two passes over the file. The first reads each row group's trace id, kind, start and end
//! columns, and the model rows' token counts: how many tool rows each trace has, when its
//! model rows started, its usage per model and the span of its rows' times, and so the
//! order of the runs (earliest start, then trace id). Model rows can sit in any row group,
//! so their usage is gathered there, not in the second pass. The second reads the row
//! groups that hold tool rows again with every column a call needs, [`SLICE`] rows at a
//! time, and hands a run over as soon as its last tool row is read and the runs before it
//! are handed over. Memory holds a slice's values, the page each column reader has
//! decompressed (and its dictionary), the traces' counts and usage, and the calls of the
//! runs not yet handed over: for an export written in time order, a few runs.
//!
//! `schema.rs` finds the columns a file is read by and checks their types; `cells.rs` reads
//! a slice of their rows: values with their levels, integers, a MAP's entries, rows
//! skipped.

use std::collections::BTreeMap;

use parquet::column::reader::ColumnReader;
use parquet::data_type::ByteArray;
use parquet::file::reader::{ChunkReader, FileReader, RowGroupReader, SerializedFileReader};
use serde_json::Value;

use crate::error::TraceError;
use crate::formats::RecordError;
use crate::formats::export::{
    Kind, ToolRow, langfuse_details, langfuse_model, langfuse_tokens, langfuse_tool_name,
    langsmith_model, langsmith_output, start_key, step_of, text_value, widen_row,
};
use crate::formats::usage::{self, UNNAMED_MODEL};
use crate::model::{Call, Interval, Run, Tokens, Usage};

mod cells;
mod schema;

use cells::{Cells, IntReader, Reader, Slice};
use schema::{
    CALLED, COLUMNS, COMPLETION, COUNTED, Columns, END, EXTRA, Form, INPUT, KIND, LEVEL, MESSAGE,
    METADATA, MODEL, NAME, OUTPUT, PROMPT, Platform, START, TRACE, USAGE, columns, detect,
};

/// The most a row group's needed columns may hold, uncompressed, as the file's metadata
/// states it: 128 MiB. A row group is read a slice of rows at a time, but each column's
/// reader decompresses a page whole, and a row group's pages are at most its size: so this
/// bounds the memory the reading takes whatever the pages; a larger row group is refused
/// before any is read ([`TraceError::Parquet`]). Langfuse and LangSmith write row groups of
/// a few megabytes, in pages of about one.
pub const MAX_ROW_GROUP_BYTES: usize = 128 << 20;

/// How many rows of a row group are read at a time, from every column read at once: the
/// calls of a slice are built, and the runs it completes handed over, before the next slice
/// is read, so that memory holds a slice's values rather than a row group's.
const SLICE: usize = 4096;

/// A Parquet export being read, run by run.
pub(crate) struct ParquetRuns {
    file: String,
    reader: Box<dyn FileReader>,
    platform: Platform,
    columns: Columns,
    /// The traces, in the order the first pass met them.
    traces: Vec<TraceSlot>,
    /// The places in `traces`, in order of trace id: where a trace id is, by a binary
    /// search.
    by_id: Vec<usize>,
    /// The places in `traces`, in the order their runs are handed over.
    order: Vec<usize>,
    /// Each row group's number of rows and of tool rows, as the first pass read them.
    groups: Vec<(usize, usize)>,
    /// The next row group of the second pass to open.
    group: usize,
    /// The number of the first row of `group` in the file.
    row: u64,
    /// The row group the second pass is reading, slice by slice.
    open: Option<Group>,
    /// How many rows a slice holds: [`SLICE`], fewer in tests.
    slice: usize,
    /// The next trace to hand over, in `order`.
    next: usize,
    /// Whether any tool row was read.
    pub(crate) calls: bool,
    /// The names of the models that answered, each once, in the order met: the traces'
    /// usage names a model by its place here.
    models: Vec<Box<str>>,
    /// The tokens of the models after the first to answer in a trace, by the trace's place
    /// in `traces`, summed per model.
    more_usage: BTreeMap<usize, Vec<(usize, Tokens)>>,
}

/// One trace: how many tool rows it has, its model rows' starts, its usage and time, and
/// the calls read.
#[derive(Debug, Default)]
struct TraceSlot {
    /// The trace id, which the run's source carries.
    id: Box<str>,
    first: Option<i64>,
    tools: usize,
    models: Vec<i64>,
    calls: Vec<(u64, Option<i64>, Call)>,
    /// The tokens of its first model to answer (its place in [`ParquetRuns::models`]),
    /// summed; any other model's are in [`ParquetRuns::more_usage`]. Kept in the slot,
    /// without an allocation of its own: a trace most often has one model, an export may
    /// hold as many traces as rows, and a [`Usage`]'s B-tree map would allocate a node of
    /// about 630 bytes for it.
    usage: Option<(usize, Tokens)>,
    /// The span of its rows' start and end times.
    time: Option<Interval>,
}

/// A row group being read a slice at a time: a reader for each column read, all at the same
/// row.
struct Group {
    /// Its place among the file's row groups, from 0.
    number: usize,
    /// How many rows it has.
    rows: usize,
    /// How many of them are read.
    read: usize,
    /// The number of its first row in the file.
    first_row: u64,
    /// The readers, in the order of [`Columns`]; `None` for a column not read.
    readers: [Option<Reader>; COLUMNS],
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
        Self::open_sliced(file, input, format, SLICE)
    }

    /// [`open`](Self::open), reading `slice` rows of a row group at a time.
    fn open_sliced<C: ChunkReader + 'static>(
        file: &str,
        input: C,
        format: Option<&str>,
        slice: usize,
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
            by_id: Vec::new(),
            order: Vec::new(),
            groups: Vec::new(),
            group: 0,
            row: 0,
            open: None,
            slice: slice.max(1),
            next: 0,
            calls: false,
            models: Vec::new(),
            more_usage: BTreeMap::new(),
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
            for (column, leaf) in self
                .columns
                .iter()
                .flatten()
                .flat_map(|column| column.leaves().map(move |leaf| (column, leaf)))
            {
                let Some(chunk) = row_group.columns().get(leaf) else {
                    return Err(self.error(
                        Some(at(group, Some(column.name))),
                        "the row group has no such column chunk".to_owned(),
                    ));
                };
                // The `parquet` crate asserts these are not negative when it opens the
                // column (`byte_range`): a corrupt file is refused here instead.
                let start = chunk
                    .dictionary_page_offset()
                    .unwrap_or_else(|| chunk.data_page_offset());
                if start < 0 || chunk.compressed_size() < 0 || chunk.uncompressed_size() < 0 {
                    return Err(self.error(
                        Some(at(group, Some(column.name))),
                        "the column chunk's offset or size is negative: the file is corrupt"
                            .to_owned(),
                    ));
                }
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

    /// The first pass: each trace's tool rows, model starts, earliest start, time and
    /// usage, each row group's rows and tool rows, and the order of the runs.
    fn count(&mut self) -> Result<(), TraceError> {
        // Each trace's place in `traces`; the slots are small and made once, since an
        // export may hold as many traces as rows.
        let mut places: BTreeMap<Box<str>, usize> = BTreeMap::new();
        // Each model's place in `models`.
        let mut models: BTreeMap<Box<str>, usize> = BTreeMap::new();
        let mut first_row = 0;
        let named = self.platform.model_columns();
        let read: Vec<usize> = COUNTED.iter().chain(named).copied().collect();
        for number in 0..self.reader.num_row_groups() {
            let mut group = self.open_group(number, first_row, &read)?;
            let mut tools = 0;
            while group.read < group.rows {
                let mut slice = self.read_slice(&mut group, named)?;
                // The model rows whose tokens count, and so whose model is read.
                let mut need = vec![false; slice.rows];
                let mut counted = Vec::new();
                for row in 0..slice.rows {
                    let id = self
                        .text(slice.text(TRACE, row), number, TRACE)?
                        .unwrap_or_default();
                    let kind = self.kind(&slice, number, row)?;
                    let tokens = match kind {
                        Kind::Model => self.tokens(&slice, number, row)?,
                        _ => None,
                    };
                    let start = slice.time(START, row);
                    let place = if let Some(&place) = places.get(id) {
                        place
                    } else {
                        places.insert(id.into(), self.traces.len());
                        self.traces.push(TraceSlot::default());
                        self.traces.len() - 1
                    };
                    let Some(slot) = self.traces.get_mut(place) else {
                        continue;
                    };
                    slot.first = match (slot.first, start) {
                        (Some(first), Some(start)) => Some(first.min(start)),
                        (first, start) => first.or(start),
                    };
                    widen_row(&mut slot.time, start, slice.time(END, row));
                    match kind {
                        Kind::Tool => {
                            slot.tools += 1;
                            tools += 1;
                        }
                        Kind::Model => slot.models.extend(start),
                        Kind::Other => {}
                    }
                    if let (Some(tokens), Some(needed)) = (tokens, need.get_mut(row)) {
                        *needed = true;
                        counted.push((place, row, tokens));
                    }
                }
                self.read_sparse(&mut group, &mut slice, named, &need)?;
                for (place, row, tokens) in counted {
                    let name = self.model(&slice, number, row)?;
                    let model = if let Some(&model) = models.get(&name) {
                        model
                    } else {
                        models.insert(name.clone(), self.models.len());
                        self.models.push(name);
                        self.models.len() - 1
                    };
                    self.add_usage(place, model, tokens);
                }
            }
            self.check_end(&mut group)?;
            first_row = first_row.saturating_add(group.rows as u64);
            self.groups.push((group.rows, tools));
        }
        self.by_id.reserve_exact(places.len());
        for (id, place) in places {
            if let Some(slot) = self.traces.get_mut(place) {
                slot.id = id;
                slot.models.sort_unstable();
            }
            self.by_id.push(place);
        }
        let traces = &self.traces;
        let rank = |place: usize| {
            traces
                .get(place)
                .map(|slot| (slot.first.is_none(), slot.first, &slot.id))
        };
        self.order = (0..traces.len()).collect();
        self.order.sort_by(|&a, &b| rank(a).cmp(&rank(b)));
        Ok(())
    }

    /// Adds a model row's tokens to the usage of the trace at `place`, under `model`.
    fn add_usage(&mut self, place: usize, model: usize, tokens: Tokens) {
        let Some(slot) = self.traces.get_mut(place) else {
            return;
        };
        let sum = match &mut slot.usage {
            None => {
                slot.usage = Some((model, tokens));
                return;
            }
            Some((first, sum)) if *first == model => sum,
            Some(_) => {
                let more = self.more_usage.entry(place).or_default();
                if let Some((_, sum)) = more.iter_mut().find(|(known, _)| *known == model) {
                    sum
                } else {
                    more.push((model, tokens));
                    return;
                }
            }
        };
        usage::add_tokens(sum, tokens);
    }

    /// The place in `traces` of trace `id`.
    fn place(&self, id: &str) -> Option<usize> {
        let traces = &self.traces;
        let found = self
            .by_id
            .binary_search_by(|&place| traces.get(place).map_or("", |slot| &*slot.id).cmp(id));
        found.ok().and_then(|at| self.by_id.get(at).copied())
    }

    fn row_group(&self, group: usize) -> Result<Box<dyn RowGroupReader + '_>, TraceError> {
        self.reader
            .get_row_group(group)
            .map_err(|problem| self.error(Some(at(group, None)), problem.to_string()))
    }

    /// Starts reading row group `number`, whose first row is `first_row` in the file: a
    /// reader for each column in `read` that the file has.
    fn open_group(
        &self,
        number: usize,
        first_row: u64,
        read: &[usize],
    ) -> Result<Group, TraceError> {
        let row_group = self.row_group(number)?;
        let rows = usize::try_from(row_group.metadata().num_rows()).map_err(|_| {
            self.error(
                Some(at(number, None)),
                "the row group states a negative number of rows".to_owned(),
            )
        })?;
        let mut readers: [Option<Reader>; COLUMNS] = std::array::from_fn(|_| None);
        for (which, slot) in readers.iter_mut().enumerate() {
            let Some(column) = self.columns.get(which).copied().flatten() else {
                continue;
            };
            if !read.contains(&which) {
                continue;
            }
            let place = || Some(at(number, Some(column.name)));
            // A panic of the `parquet` crate while it opens the column (a bug there, met on a
            // corrupt file) is caught like one while it reads it.
            let open = |index: usize| {
                unwound(|| row_group.get_column_reader(index))
                    .map_err(|problem| self.error(place(), problem))
            };
            let refused = |what: &str| self.error(place(), format!("the column is not {what}"));
            *slot = Some(match (column.form, open(column.index)?) {
                (Form::Text, ColumnReader::ByteArrayColumnReader(reader)) => Reader::Text(reader),
                (Form::Time(_) | Form::Int { .. }, ColumnReader::Int64ColumnReader(reader)) => {
                    Reader::Int(IntReader::Wide(reader))
                }
                (Form::Int { .. }, ColumnReader::Int32ColumnReader(reader)) => {
                    Reader::Int(IntReader::Narrow(reader))
                }
                (Form::Map { value, .. }, ColumnReader::ByteArrayColumnReader(keys)) => {
                    match open(value)? {
                        ColumnReader::Int64ColumnReader(values) => {
                            Reader::Map(Box::new((keys, IntReader::Wide(values))))
                        }
                        ColumnReader::Int32ColumnReader(values) => {
                            Reader::Map(Box::new((keys, IntReader::Narrow(values))))
                        }
                        _ => return Err(refused("a map of strings to integers")),
                    }
                }
                (Form::Text, _) => return Err(refused("a string")),
                (Form::Time(_), _) => return Err(refused("a timestamp")),
                (Form::Int { .. }, _) => return Err(refused("an integer")),
                (Form::Map { .. }, _) => return Err(refused("a map of strings to integers")),
            });
        }
        Ok(Group {
            number,
            rows,
            read: 0,
            first_row,
            readers,
        })
    }

    /// The kind of `row` in a slice.
    fn kind(&self, slice: &Slice, group: usize, row: usize) -> Result<Kind, TraceError> {
        let kind = self
            .text(slice.text(KIND, row), group, KIND)?
            .unwrap_or_default();
        Ok(match self.platform {
            Platform::Langfuse => Kind::langfuse(kind),
            Platform::LangSmith => Kind::langsmith(kind),
        })
    }

    /// The tokens of the model row `row` of a slice, `None` when it records neither input nor
    /// output: read as the JSON readers of the same rows read them (`export.rs`), or an
    /// error naming the row group, column and row for a count that is not a whole number
    /// from 0 to 2^64 - 1.
    fn tokens(
        &self,
        slice: &Slice,
        group: usize,
        row: usize,
    ) -> Result<Option<Tokens>, TraceError> {
        let refused = |which: usize, message: String| {
            let name = self.columns.get(which).copied().flatten().map(|c| c.name);
            self.error(
                Some(at(group, name)),
                format!("row {}: {message}", slice.first + row + 1),
            )
        };
        match self.platform {
            Platform::Langfuse => match slice.cells.get(USAGE) {
                Some(Cells::Map(entries)) => {
                    let (keys, values) = entries.row(row);
                    let mut counts = Vec::with_capacity(keys.len());
                    for (key, value) in keys.iter().zip(values) {
                        let key = self.text(Some(key), group, USAGE)?.unwrap_or_default();
                        let Some(value) = *value else {
                            continue;
                        };
                        let count = u64::try_from(value)
                            .map_err(|_| refused(USAGE, usage::bad_count(key, value)))?;
                        counts.push((key, count));
                    }
                    Ok(langfuse_tokens(counts))
                }
                Some(Cells::Text(_)) => {
                    // The JSON export's object, as text; anything but an object is no
                    // usage, as for the JSON rows.
                    let text = self.cell(slice, row, group, USAGE)?.unwrap_or_default();
                    match serde_json::from_str::<Value>(text) {
                        Ok(Value::Object(details)) => {
                            langfuse_details(&details).map_err(|problem| {
                                refused(
                                    USAGE,
                                    match problem {
                                        RecordError::Shape(message) => message,
                                        RecordError::Json(problem) => problem.to_string(),
                                    },
                                )
                            })
                        }
                        _ => Ok(None),
                    }
                }
                _ => Ok(None),
            },
            Platform::LangSmith => {
                let count = |which: usize| {
                    slice
                        .int(which, row)
                        .map(|value| {
                            let name = self
                                .columns
                                .get(which)
                                .copied()
                                .flatten()
                                .map_or("", |c| c.name);
                            u64::try_from(value)
                                .map_err(|_| refused(which, usage::bad_count(name, value)))
                        })
                        .transpose()
                };
                Ok(usage::tokens_of(count(PROMPT)?, count(COMPLETION)?, None))
            }
        }
    }

    /// The model of the model row `row` of a slice, as the JSON readers of the same rows
    /// name it (`export.rs`); [`UNNAMED_MODEL`] when the row names none.
    fn model(&self, slice: &Slice, group: usize, row: usize) -> Result<Box<str>, TraceError> {
        let model = match self.platform {
            Platform::Langfuse => {
                langfuse_model(self.cell(slice, row, group, MODEL)?, None).map(Box::from)
            }
            Platform::LangSmith => {
                let json = |which| -> Result<Option<Value>, TraceError> {
                    Ok(self
                        .cell(slice, row, group, which)?
                        .and_then(|text| serde_json::from_str(text).ok()))
                };
                let (outputs, extra) = (json(OUTPUT)?, json(EXTRA)?);
                langsmith_model(outputs.as_ref(), extra.as_ref()).map(Box::from)
            }
        };
        Ok(model.unwrap_or_else(|| UNNAMED_MODEL.into()))
    }

    /// The text in `row` of column `which` of a slice.
    fn cell<'v>(
        &self,
        slice: &'v Slice,
        row: usize,
        group: usize,
        which: usize,
    ) -> Result<Option<&'v str>, TraceError> {
        self.text(slice.text(which, row), group, which)
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
            if !self.read_calls()? {
                return Ok(Vec::new());
            }
        }
    }

    /// The runs complete and next in order, taken out.
    fn ready_runs(&mut self) -> Vec<Run> {
        let mut runs = Vec::new();
        while let Some((place, slot)) = self
            .order
            .get(self.next)
            .and_then(|&place| Some((place, self.traces.get_mut(place)?)))
        {
            if slot.calls.len() < slot.tools {
                break;
            }
            let mut calls = std::mem::take(&mut slot.calls);
            slot.models = Vec::new();
            calls.sort_by_key(|(row, start, _)| start_key(*start, *row));
            let mut usage = Usage::default();
            let more = self.more_usage.remove(&place).unwrap_or_default();
            for (model, tokens) in slot.usage.take().into_iter().chain(more) {
                usage::add(
                    &mut usage,
                    self.models.get(model).map(|name| &**name),
                    tokens,
                );
            }
            // The id stays: `place` searches the slots by it.
            let id = slot.id.to_string();
            runs.push(Run {
                calls: calls.into_iter().map(|(_, _, call)| call).collect(),
                trace_id: (!id.is_empty()).then_some(id),
                usage,
                time: slot.time.take(),
                ..Run::default()
            });
            self.next += 1;
        }
        runs
    }

    /// The second pass over the next slice of rows: its tool rows become calls of their
    /// traces. Row groups without a tool row (the first pass counted them) are not read
    /// again. `false` once every row group is read.
    fn read_calls(&mut self) -> Result<bool, TraceError> {
        let mut group = match self.open.take() {
            Some(group) => group,
            None => loop {
                let Some(&(rows, tools)) = self.groups.get(self.group) else {
                    return Ok(false);
                };
                let (number, first_row) = (self.group, self.row);
                self.group += 1;
                self.row = self.row.saturating_add(rows as u64);
                if tools > 0 {
                    break self.open_group(number, first_row, &CALLED)?;
                }
            },
        };
        let slice = self.read_slice(&mut group, &[])?;
        let number = group.number;
        let first_row = group.first_row + slice.first as u64;
        let kinds = (0..slice.rows)
            .map(|row| self.kind(&slice, number, row))
            .collect::<Result<Vec<Kind>, TraceError>>()?;
        for (row, kind) in kinds.into_iter().enumerate() {
            if kind != Kind::Tool {
                continue;
            }
            let (id, tool) = self.tool_row(&slice, number, row)?;
            let Some(slot) = self.place(id).and_then(|place| self.traces.get_mut(place)) else {
                continue;
            };
            self.calls = true;
            let start = tool.start;
            let step = step_of(&slot.models, start);
            slot.calls
                .push((first_row + row as u64, start, tool.into_call(step)));
        }
        if group.read < group.rows {
            self.open = Some(group);
        } else {
            self.check_end(&mut group)?;
        }
        Ok(true)
    }

    /// The tool row `row` of a slice of row group `group`, with its trace id.
    fn tool_row<'s>(
        &self,
        slice: &'s Slice,
        group: usize,
        row: usize,
    ) -> Result<(&'s str, ToolRow), TraceError> {
        let id = self.cell(slice, row, group, TRACE)?.unwrap_or_default();
        let start = slice.time(START, row);
        let name = self.cell(slice, row, group, NAME)?;
        let (server, name) = match self.platform {
            Platform::Langfuse => {
                let metadata = self
                    .cell(slice, row, group, METADATA)?
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
                format!("row {}: a tool row without a name", slice.first + row + 1),
            ));
        };
        let input = self
            .cell(slice, row, group, INPUT)?
            .filter(|input| !input.trim().is_empty())
            .map(|input| Value::String(input.to_owned()));
        let output = self.cell(slice, row, group, OUTPUT)?.map(text_value);
        let message = self
            .cell(slice, row, group, MESSAGE)?
            .filter(|message| !message.is_empty());
        let (output, failed) = match self.platform {
            Platform::Langfuse => (
                output,
                self.cell(slice, row, group, LEVEL)? == Some("ERROR"),
            ),
            Platform::LangSmith => (output.and_then(langsmith_output), message.is_some()),
        };
        Ok((
            id,
            ToolRow {
                server,
                name,
                start,
                end: slice.time(END, row),
                input,
                output,
                failed,
                message: message.map(|message| Value::String(message.to_owned())),
            },
        ))
    }
}

/// Runs a read of a column by the `parquet` crate, turning a panic inside it into the error
/// of a corrupt page, so that the diagnostic names the row group and column. The crate's
/// PLAIN string decoder reads a value's length past the end of a page cut short
/// (`read_num_bytes`: an assertion, or an index out of bounds), a bug there that the
/// `parquet` fuzz target found; the reader is not used again after it.
fn unwound<T>(read: impl FnOnce() -> parquet::errors::Result<T>) -> Result<T, String> {
    match crate::guarded::guarded(read) {
        Some(result) => result.map_err(|problem| problem.to_string()),
        None => Err("a page is corrupt: the `parquet` crate failed decoding it".to_owned()),
    }
}

#[cfg(test)]
mod tests;
