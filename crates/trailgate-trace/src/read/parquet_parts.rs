//! A `PartReader` over a Parquet export (docs/formats.md#parquet-exports): its runs come
//! from `columnar.rs` and are handed over in the same parts as a JSON file's.

use std::io::BufRead;

#[cfg(feature = "parquet")]
use super::{PART_RUNS, Part, TracePart, TraceRead, finish_run, forced_adapter};
use super::{PartReader, ReadOptions};
use crate::error::TraceError;
#[cfg(feature = "parquet")]
use crate::formats::Adapter;

impl<'a, R: BufRead> PartReader<'a, R> {
    /// Starts reading the Parquet export `input` (docs/formats.md#parquet-exports), named
    /// `file` in diagnostics: its metadata, schema and row group sizes are checked, and its
    /// trace ids counted, before the first part is asked for.
    pub fn parquet(
        file: &'a str,
        input: std::fs::File,
        options: &'a ReadOptions,
    ) -> Result<Self, TraceError> {
        #[cfg(feature = "parquet")]
        {
            Self::parquet_from(file, input, options)
        }
        #[cfg(not(feature = "parquet"))]
        {
            drop(input);
            Self::without_parquet(file, options)
        }
    }

    /// Starts reading a Parquet export held in memory, as [`parquet`](Self::parquet) reads
    /// one from a file.
    pub fn parquet_bytes(
        file: &'a str,
        input: Vec<u8>,
        options: &'a ReadOptions,
    ) -> Result<Self, TraceError> {
        #[cfg(feature = "parquet")]
        {
            Self::parquet_from(file, bytes::Bytes::from(input), options)
        }
        #[cfg(not(feature = "parquet"))]
        {
            drop(input);
            Self::without_parquet(file, options)
        }
    }

    #[cfg(not(feature = "parquet"))]
    fn without_parquet(file: &'a str, _options: &'a ReadOptions) -> Result<Self, TraceError> {
        Err(TraceError::Parquet {
            file: file.to_owned(),
            place: String::new(),
            message: "this build of trailgate reads no Parquet: build it with the `parquet` \
                      feature (on by default)"
                .to_owned(),
        })
    }

    #[cfg(feature = "parquet")]
    fn parquet_from<C: parquet::file::reader::ChunkReader + 'static>(
        file: &'a str,
        input: C,
        options: &'a ReadOptions,
    ) -> Result<Self, TraceError> {
        let forced = forced_adapter(file, options)?.map(Adapter::name);
        let runs = guard(file, || {
            crate::columnar::ParquetRuns::open(file, input, forced)
        })?;
        let mut parts = Self::unread(file, None, false, options, None);
        parts.parquet = Some((Box::new(runs), options.naming.clone()));
        Ok(parts)
    }

    /// The next runs of a Parquet export, in parts; at its end, what the reading found.
    #[cfg(feature = "parquet")]
    pub(super) fn parquet_step(&mut self) -> Result<(), TraceError> {
        let file = self.file;
        let Some((runs, naming)) = &mut self.parquet else {
            return Ok(());
        };
        let next = guard(file, || runs.next_runs())?;
        let format = runs.platform_name();
        if next.is_empty() {
            self.done = true;
            self.read = Some(TraceRead {
                format,
                no_calls: !runs.calls,
            });
            return Ok(());
        }
        let mut part = Vec::with_capacity(PART_RUNS.min(next.len()));
        for run in next {
            part.push(finish_run(run, format, naming, file, None)?);
            if part.len() == PART_RUNS {
                self.ready
                    .push_back(TracePart(Part::Runs(std::mem::take(&mut part))));
            }
        }
        if !part.is_empty() {
            self.ready.push_back(TracePart(Part::Runs(part)));
        }
        Ok(())
    }
}

/// Runs `read` over the `parquet` crate, turning a panic inside it (a bug there, met on a
/// corrupt file) into the diagnostic for a file that cannot be read, so that no input ends
/// trailgate with a panic.
#[cfg(feature = "parquet")]
fn guard<T>(file: &str, read: impl FnOnce() -> Result<T, TraceError>) -> Result<T, TraceError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)).unwrap_or_else(|_| {
        Err(TraceError::Parquet {
            file: file.to_owned(),
            place: String::new(),
            message: "the Parquet reader failed on this file: it is corrupt".to_owned(),
        })
    })
}
