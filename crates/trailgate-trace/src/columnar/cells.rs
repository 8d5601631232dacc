//! Reading a slice of a row group's rows from its column readers: each column's values
//! with their definition levels, times in nanoseconds.

use parquet::column::reader::ColumnReaderImpl;
use parquet::data_type::{ByteArray, ByteArrayType, DataType, Int64Type};

use super::schema::{Column, END, START};
use super::{Group, ParquetRuns, SLICE, at, unwound};
use crate::error::TraceError;
use crate::formats::export::export_time;

/// A column's reader, by the column's physical type.
pub(super) enum Reader {
    /// A string, or a time written as text.
    Text(ColumnReaderImpl<ByteArrayType>),
    /// An `INT64` timestamp.
    Time(ColumnReaderImpl<Int64Type>),
}

/// The values of a slice of a row group's rows, in the order of [`Columns`].
pub(super) struct Slice {
    /// The place of its first row in its row group, from 0.
    pub(super) first: usize,
    pub(super) rows: usize,
    pub(super) cells: [Cells; 10],
}

/// One column's values over a slice's rows, `None` for a null.
pub(super) enum Cells {
    /// A column not read, or not in the file: all nulls.
    Absent,
    Text(Vec<Option<ByteArray>>),
    /// Nanoseconds since the epoch; `None` also for a text that is not a time.
    Time(Vec<Option<i64>>),
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
}

impl ParquetRuns {
    /// The next slice of `group`'s rows, from every column it reads: times in nanoseconds
    /// (a time written as text is read, and checked to be UTF-8, in every row).
    pub(super) fn read_slice(&self, group: &mut Group) -> Result<Slice, TraceError> {
        let rows = self.slice.min(group.rows.saturating_sub(group.read));
        let mut cells: [Cells; 10] = std::array::from_fn(|_| Cells::Absent);
        for (which, (cell, reader)) in cells.iter_mut().zip(&mut group.readers).enumerate() {
            let (Some(reader), Some(column)) = (reader, self.columns.get(which).copied().flatten())
            else {
                continue;
            };
            let place = (group.number, group.read, group.rows);
            *cell = match reader {
                Reader::Time(reader) => {
                    let nanos = column.nanos.unwrap_or(1);
                    let values = self.values(reader, column, place, rows)?;
                    Cells::Time(
                        values
                            .into_iter()
                            .map(|value| value.and_then(|value| value.checked_mul(nanos)))
                            .collect(),
                    )
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
        let max_def = self
            .reader
            .metadata()
            .file_metadata()
            .schema_descr()
            .column(column.index)
            .max_def_level();
        Ok(if max_def == 0 {
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
        })
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
                Reader::Time(reader) => rest(reader),
            })
            .map_err(|problem| self.error(Some(at(group.number, Some(column.name))), problem))?;
            if more > 0 {
                return Err(self.miscount(column, group.number, group.rows + more, group.rows));
            }
        }
        Ok(())
    }
}

/// How many values are left in a column: those past its row group's rows.
fn rest<T: DataType>(reader: &mut ColumnReaderImpl<T>) -> parquet::errors::Result<usize> {
    let mut more = 0;
    loop {
        let mut levels = Vec::new();
        let mut values = Vec::new();
        let (records, _, _) = reader.read_records(SLICE, Some(&mut levels), None, &mut values)?;
        if records == 0 {
            return Ok(more);
        }
        more += records;
    }
}
