//! Reading a slice of a row group's rows from its column readers: each column's values
//! with their definition levels, integers as their annotation says, a MAP's entries from
//! its key and value columns with their repetition levels, and the rows of a column that
//! are not needed skipped.

use parquet::column::reader::ColumnReaderImpl;
use parquet::data_type::{ByteArray, ByteArrayType, DataType, Int32Type, Int64Type};

use super::schema::{COLUMNS, Column, END, Form, START};
use super::{Group, ParquetRuns, SLICE, at, unwound};
use crate::error::TraceError;
use crate::formats::export::export_time;

/// A column's reader, by the column's physical type.
pub(super) enum Reader {
    /// A string, or a time or token counts written as text.
    Text(ColumnReaderImpl<ByteArrayType>),
    /// An integer, or an `INT64` timestamp.
    Int(IntReader),
    /// A MAP's key column and value column, read together (boxed: two readers are twice
    /// the size of the others).
    Map(Box<(ColumnReaderImpl<ByteArrayType>, IntReader)>),
}

/// An integer column's reader.
pub(super) enum IntReader {
    Wide(ColumnReaderImpl<Int64Type>),
    Narrow(ColumnReaderImpl<Int32Type>),
}

/// The values of a slice of a row group's rows, in the order of [`Columns`].
pub(super) struct Slice {
    /// The place of its first row in its row group, from 0.
    pub(super) first: usize,
    pub(super) rows: usize,
    pub(super) cells: [Cells; COLUMNS],
}

/// One column's values over a slice's rows, `None` for a null.
pub(super) enum Cells {
    /// A column not read, or not in the file: all nulls.
    Absent,
    Text(Vec<Option<ByteArray>>),
    /// Nanoseconds since the epoch; `None` also for a text that is not a time.
    Time(Vec<Option<i64>>),
    /// Integers as written, signed or unsigned (an `i128` holds both).
    Int(Vec<Option<i128>>),
    Map(Entries),
}

/// A MAP column's entries over a slice's rows.
pub(super) struct Entries {
    /// Where each row's entries start in `keys` and `values`, and, last, where they end.
    bounds: Vec<usize>,
    keys: Vec<ByteArray>,
    /// `None` for a null value.
    values: Vec<Option<i128>>,
}

impl Slice {
    /// The text value of column `which` in `row`, not yet checked to be UTF-8.
    pub(super) fn text(&self, which: usize, row: usize) -> Option<&ByteArray> {
        match self.cells.get(which) {
            Some(Cells::Text(values)) => values.get(row).and_then(Option::as_ref),
            _ => None,
        }
    }

    /// The time in column `which` in `row`.
    pub(super) fn time(&self, which: usize, row: usize) -> Option<i64> {
        match self.cells.get(which) {
            Some(Cells::Time(values)) => values.get(row).copied().flatten(),
            _ => None,
        }
    }

    /// The integer in column `which` in `row`.
    pub(super) fn int(&self, which: usize, row: usize) -> Option<i128> {
        match self.cells.get(which) {
            Some(Cells::Int(values)) => values.get(row).copied().flatten(),
            _ => None,
        }
    }
}

impl Entries {
    /// The keys and values of `row`'s entries.
    pub(super) fn row(&self, row: usize) -> (&[ByteArray], &[Option<i128>]) {
        let start = self.bounds.get(row).copied().unwrap_or(0);
        let end = self.bounds.get(row + 1).copied().unwrap_or(start);
        (
            self.keys.get(start..end).unwrap_or_default(),
            self.values.get(start..end).unwrap_or_default(),
        )
    }
}

impl ParquetRuns {
    /// The next slice of `group`'s rows, from every column it reads but those in `sparse`
    /// (which [`read_sparse`](Self::read_sparse) reads next): times in nanoseconds (a time
    /// written as text is read, and checked to be UTF-8, in every row).
    pub(super) fn read_slice(
        &self,
        group: &mut Group,
        sparse: &[usize],
    ) -> Result<Slice, TraceError> {
        let rows = self.slice.min(group.rows.saturating_sub(group.read));
        let mut cells: [Cells; COLUMNS] = std::array::from_fn(|_| Cells::Absent);
        for (which, (cell, reader)) in cells.iter_mut().zip(&mut group.readers).enumerate() {
            let (Some(reader), Some(column)) = (reader, self.columns.get(which).copied().flatten())
            else {
                continue;
            };
            if sparse.contains(&which) {
                continue;
            }
            let place = (group.number, group.read, group.rows);
            *cell = match reader {
                Reader::Int(reader) => {
                    let values = self.ints(reader, column, place, rows)?;
                    match column.form {
                        Form::Time(nanos) => Cells::Time(
                            values
                                .into_iter()
                                .map(|value| {
                                    value
                                        .and_then(|value| i64::try_from(value).ok())
                                        .and_then(|value| value.checked_mul(nanos))
                                })
                                .collect(),
                        ),
                        _ => Cells::Int(values),
                    }
                }
                Reader::Map(map) => {
                    let (keys, values) = &mut **map;
                    Cells::Map(self.entries(keys, values, column, place, rows)?)
                }
                Reader::Text(reader) => {
                    let values = self.values(reader, column, place, rows)?;
                    if matches!(which, START | END) {
                        Cells::Time(
                            values
                                .iter()
                                .map(|text| {
                                    Ok(self
                                        .text(text.as_ref(), group.number, which)?
                                        .and_then(export_time))
                                })
                                .collect::<Result<_, TraceError>>()?,
                        )
                    } else {
                        Cells::Text(values)
                    }
                }
            };
        }
        let first = group.read;
        group.read += rows;
        Ok(Slice { first, rows, cells })
    }

    /// Reads the text columns `sparse` of `slice`'s rows (which [`read_slice`](Self::read_slice)
    /// left out) only in the rows that `need` marks, and skips the others.
    ///
    /// These are the columns that name a model (LangSmith's `outputs` and `extra`, Langfuse's
    /// `provided_model_name`), needed only in the model rows whose tokens count. Reading
    /// LangSmith's `outputs` and `extra` in every row of the first pass would decode the
    /// largest columns of the export twice, for the few rows that need them; skipping the
    /// others lets the `parquet` crate pass over a whole page of rows that need none without
    /// decompressing it (`skip_records`). Reading them in a third pass, over only the row
    /// groups with such rows, would decompress the same pages for those rows and open every
    /// column once more.
    pub(super) fn read_sparse(
        &self,
        group: &mut Group,
        slice: &mut Slice,
        sparse: &[usize],
        need: &[bool],
    ) -> Result<(), TraceError> {
        for &which in sparse {
            let (Some(Some(Reader::Text(reader))), Some(column)) = (
                group.readers.get_mut(which),
                self.columns.get(which).copied().flatten(),
            ) else {
                continue;
            };
            let mut values = Vec::with_capacity(need.len());
            let mut row = 0;
            while let Some(&wanted) = need.get(row) {
                let run = need
                    .get(row..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|&&needed| needed == wanted)
                    .count();
                let place = (group.number, slice.first + row, group.rows);
                if wanted {
                    values.extend(self.values(reader, column, place, run)?);
                } else {
                    let skipped = unwound(|| reader.skip_records(run)).map_err(|problem| {
                        self.error(Some(at(group.number, Some(column.name))), problem)
                    })?;
                    if skipped != run {
                        return Err(self.miscount(
                            column,
                            group.number,
                            slice.first + row + skipped,
                            group.rows,
                        ));
                    }
                    values.extend(std::iter::repeat_n(None, run));
                }
                row += run;
            }
            if let Some(cell) = slice.cells.get_mut(which) {
                *cell = Cells::Text(values);
            }
        }
        Ok(())
    }

    /// The next `rows` values of one column, `None` for a null, or an error naming the
    /// column; `(group, read, rows)` is the row group's place, the rows of it read and the
    /// rows it has.
    pub(super) fn values<T: DataType>(
        &self,
        reader: &mut ColumnReaderImpl<T>,
        column: Column,
        (group, read, group_rows): (usize, usize, usize),
        rows: usize,
    ) -> Result<Vec<Option<T::T>>, TraceError> {
        let place = || Some(at(group, Some(column.name)));
        let mut levels = Vec::new();
        let mut values = Vec::new();
        let (records, _, _) =
            unwound(|| reader.read_records(rows, Some(&mut levels), None, &mut values))
                .map_err(|problem| self.error(place(), problem))?;
        if records != rows {
            return Err(self.miscount(column, group, read + records, group_rows));
        }
        Ok(if column.def == 0 {
            values.into_iter().map(Some).collect()
        } else {
            let mut values = values.into_iter();
            levels
                .iter()
                .map(|&level| {
                    if level == column.def {
                        values.next()
                    } else {
                        None
                    }
                })
                .collect()
        })
    }

    /// The next `rows` values of an integer column, as [`values`](Self::values) reads them.
    pub(super) fn ints(
        &self,
        reader: &mut IntReader,
        column: Column,
        place: (usize, usize, usize),
        rows: usize,
    ) -> Result<Vec<Option<i128>>, TraceError> {
        let unsigned = match column.form {
            Form::Int { unsigned } => unsigned,
            _ => false,
        };
        match reader {
            IntReader::Wide(reader) => self.integers(reader, column, place, rows, unsigned),
            IntReader::Narrow(reader) => self.integers(reader, column, place, rows, unsigned),
        }
    }

    /// [`ints`](Self::ints) of one physical type.
    fn integers<T: DataType>(
        &self,
        reader: &mut ColumnReaderImpl<T>,
        column: Column,
        place: (usize, usize, usize),
        rows: usize,
        unsigned: bool,
    ) -> Result<Vec<Option<i128>>, TraceError>
    where
        T::T: Integer,
    {
        Ok(self
            .values(reader, column, place, rows)?
            .into_iter()
            .map(|value| value.map(|value| value.annotated(unsigned)))
            .collect())
    }

    /// The next `rows` rows' entries of a MAP column, from its key and value columns, read
    /// with their definition and repetition levels: a row's entries start at a repetition
    /// level of 0, an entry is there when its key's definition level is the key column's
    /// greatest, and its value when the value's is the value column's greatest. A null or
    /// empty map has no entry. `place` is as for [`values`](Self::values).
    pub(super) fn entries(
        &self,
        keys: &mut ColumnReaderImpl<ByteArrayType>,
        values: &mut IntReader,
        column: Column,
        (group, read, group_rows): (usize, usize, usize),
        rows: usize,
    ) -> Result<Entries, TraceError> {
        let Form::Map {
            value_def,
            unsigned,
            ..
        } = column.form
        else {
            return Err(self.error(
                Some(at(group, Some(column.name))),
                "the column is not a map of strings to integers".to_owned(),
            ));
        };
        let place = || Some(at(group, Some(column.name)));
        let mut key_levels = Levels::default();
        let mut key_values = Vec::new();
        let records = unwound(|| key_levels.read(keys, rows, &mut key_values))
            .map_err(|problem| self.error(place(), problem))?;
        if records != rows {
            return Err(self.miscount(column, group, read + records, group_rows));
        }
        let mut value_levels = Levels::default();
        let (records, numbers) = match values {
            IntReader::Wide(reader) => value_levels.read_integers(reader, rows, unsigned),
            IntReader::Narrow(reader) => value_levels.read_integers(reader, rows, unsigned),
        };
        let records = records.map_err(|problem| self.error(place(), problem))?;
        if records != rows {
            return Err(self.miscount(column, group, read + records, group_rows));
        }
        if key_levels.repetition != value_levels.repetition
            || key_levels.definition.len() != value_levels.definition.len()
        {
            return Err(self.error(
                place(),
                "the map's keys and values do not line up: the file is corrupt".to_owned(),
            ));
        }
        let mut entries = Entries {
            bounds: Vec::with_capacity(rows + 1),
            keys: Vec::new(),
            values: Vec::new(),
        };
        let mut key_values = key_values.into_iter();
        let mut numbers = numbers.into_iter();
        let levels = key_levels
            .definition
            .iter()
            .zip(&value_levels.definition)
            .zip(&key_levels.repetition);
        for ((&key_level, &value_level), &repetition) in levels {
            if repetition == 0 {
                entries.bounds.push(entries.keys.len());
            }
            let value = if value_level == value_def {
                numbers.next()
            } else {
                None
            };
            if key_level == column.def
                && let Some(key) = key_values.next()
            {
                entries.keys.push(key);
                entries.values.push(value);
            }
        }
        entries.bounds.push(entries.keys.len());
        if entries.bounds.len() != rows + 1 {
            return Err(self.error(
                place(),
                format!(
                    "the map's levels hold {} rows where {rows} were read: the file is corrupt",
                    entries.bounds.len() - 1
                ),
            ));
        }
        Ok(entries)
    }

    /// The error for a column whose number of values is not its row group's number of rows.
    pub(super) fn miscount(
        &self,
        column: Column,
        group: usize,
        values: usize,
        rows: usize,
    ) -> TraceError {
        self.error(
            Some(at(group, Some(column.name))),
            format!("the column holds {values} values, the row group {rows} rows"),
        )
    }

    /// Once every row of `group` is read: refuses a column that holds more values.
    pub(super) fn check_end(&self, group: &mut Group) -> Result<(), TraceError> {
        for (which, reader) in group.readers.iter_mut().enumerate() {
            let (Some(reader), Some(column)) = (reader, self.columns.get(which).copied().flatten())
            else {
                continue;
            };
            let more = unwound(|| match reader {
                Reader::Text(reader) => rest(reader),
                Reader::Int(reader) => reader.rest(),
                Reader::Map(map) => {
                    let (keys, values) = &mut **map;
                    Ok(rest(keys)?.max(values.rest()?))
                }
            })
            .map_err(|problem| self.error(Some(at(group.number, Some(column.name))), problem))?;
            if more > 0 {
                return Err(self.miscount(column, group.number, group.rows + more, group.rows));
            }
        }
        Ok(())
    }
}

/// How many values (records, for a MAP) are left in a column: those past its row group's
/// rows.
fn rest<T: DataType>(reader: &mut ColumnReaderImpl<T>) -> parquet::errors::Result<usize> {
    let mut more = 0;
    loop {
        let mut levels = Levels::default();
        let mut values = Vec::new();
        let records = levels.read(reader, SLICE, &mut values)?;
        if records == 0 {
            return Ok(more);
        }
        more += records;
    }
}

impl IntReader {
    /// [`rest`] of the column.
    fn rest(&mut self) -> parquet::errors::Result<usize> {
        match self {
            Self::Wide(reader) => rest(reader),
            Self::Narrow(reader) => rest(reader),
        }
    }
}

/// A column's definition and repetition levels, as read.
#[derive(Default)]
struct Levels {
    definition: Vec<i16>,
    repetition: Vec<i16>,
}

impl Levels {
    /// Reads up to `rows` whole records of `reader`, their levels into `self` and their
    /// values into `values`: how many records were read. A column that is not repeated (or
    /// not optional) writes no repetition (or definition) levels.
    fn read<T: DataType>(
        &mut self,
        reader: &mut ColumnReaderImpl<T>,
        rows: usize,
        values: &mut Vec<T::T>,
    ) -> parquet::errors::Result<usize> {
        let (records, _, _) = reader.read_records(
            rows,
            Some(&mut self.definition),
            Some(&mut self.repetition),
            values,
        )?;
        Ok(records)
    }

    /// [`read`](Self::read) of an integer column: the records read (or why not, a panic of
    /// the `parquet` crate caught) and the values as the column's annotation says.
    fn read_integers<T: DataType>(
        &mut self,
        reader: &mut ColumnReaderImpl<T>,
        rows: usize,
        unsigned: bool,
    ) -> (Result<usize, String>, Vec<i128>)
    where
        T::T: Integer,
    {
        let mut numbers = Vec::new();
        let records = unwound(|| self.read(reader, rows, &mut numbers));
        let numbers = numbers
            .into_iter()
            .map(|number| number.annotated(unsigned))
            .collect();
        (records, numbers)
    }
}

/// A value of an `INT64` or `INT32` column.
trait Integer: Copy {
    /// The value as its column's annotation says: its bits read as unsigned when it is.
    fn annotated(self, unsigned: bool) -> i128;
}

impl Integer for i64 {
    fn annotated(self, unsigned: bool) -> i128 {
        if unsigned {
            i128::from(self.cast_unsigned())
        } else {
            i128::from(self)
        }
    }
}

impl Integer for i32 {
    fn annotated(self, unsigned: bool) -> i128 {
        if unsigned {
            i128::from(self.cast_unsigned())
        } else {
            i128::from(self)
        }
    }
}
