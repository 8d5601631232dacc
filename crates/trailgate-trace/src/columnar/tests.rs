//! Unit tests of the Parquet reader, on the fixtures' exports (written by `cargo xtask
//! parquet-fixtures`): runs by trace id in start order, calls and steps, the same runs as
//! the JSON Lines export of the same rows, and the errors of bad files.

use serde_json::json;

use super::{ParquetRuns, SLICE};
use crate::formats::testing::{read, summary};
use crate::{PartReader, ReadOptions, Run, Status, TraceError};

use Status::{Error as E, Ok as O, Unknown as U};

const LANGFUSE: &[u8] =
    include_bytes!("../../../../fixtures/parquet-langfuse-convert/observations.parquet");
const LANGSMITH: &[u8] =
    include_bytes!("../../../../fixtures/parquet-langsmith-convert/runs.parquet");
const LANGFUSE_LINES: &str =
    include_str!("../../../../fixtures/parquet-langfuse-jsonl/observations.jsonl");
const LANGSMITH_LINES: &str =
    include_str!("../../../../fixtures/parquet-langsmith-jsonl/runs.jsonl");

/// The runs of a Parquet export, and the format read.
fn parquet(bytes: &[u8], options: &ReadOptions) -> Result<(&'static str, Vec<Run>), TraceError> {
    let mut parts = PartReader::<&[u8]>::parquet_bytes("x.parquet", bytes.to_vec(), options)?;
    let mut runs = Vec::new();
    while let Some(part) = parts.next_part()? {
        for run in part.into_runs() {
            runs.push(run?);
        }
    }
    Ok((parts.finish()?.format, runs))
}

fn rows(rows: &[(&str, u32, bool, Status)]) -> Vec<(String, u32, bool, Status)> {
    rows.iter()
        .map(|(id, step, done, status)| ((*id).to_owned(), *step, *done, *status))
        .collect()
}

#[test]
fn langfuse_observations_are_runs_by_trace_in_start_order() {
    let (format, runs) = parquet(LANGFUSE, &ReadOptions::default()).unwrap();
    assert_eq!(format, "langfuse");
    // t-search starts first, then t-weather; t-empty has a generation and no tool.
    assert_eq!(runs.len(), 3);
    assert_eq!(summary(&runs[0]), rows(&[("web_search", 0, true, O)]));
    assert_eq!(
        summary(&runs[1]),
        rows(&[
            ("get_weather", 0, true, O),
            ("clock.get_time", 0, true, O),
            ("send_email", 1, true, E),
        ])
    );
    assert!(runs[2].calls.is_empty());
    let weather = &runs[1].calls;
    assert_eq!(weather[0].args(), &json!({"city": "Paris"}));
    assert_eq!(
        weather[0].result(),
        Some(&json!({"temp_c": 21, "sky": "clear"}))
    );
    // Output that is not JSON is kept as text; so are arguments.
    assert_eq!(weather[1].result(), Some(&json!("12:00, not JSON")));
    assert_eq!(
        weather[2].args_raw.as_deref(),
        Some("to=ops@example.com, not JSON")
    );
    assert_eq!(
        weather[2].result(),
        Some(&json!("smtp: connection refused"))
    );
    let time = weather[0].time.unwrap();
    assert_eq!(time.end_ns - time.start_ns, 1_000_000_000);
}

#[test]
fn langsmith_runs_are_runs_by_trace_in_start_order() {
    let (format, runs) = parquet(LANGSMITH, &ReadOptions::default()).unwrap();
    assert_eq!(format, "langsmith");
    assert_eq!(runs.len(), 2);
    assert_eq!(
        summary(&runs[0]),
        rows(&[("lookup_order", 0, true, O), ("refund", 1, true, E)])
    );
    assert_eq!(
        runs[0].calls[0].result(),
        Some(&json!({"status": "delivered", "total": 19.5}))
    );
    assert_eq!(
        runs[0].calls[1].result(),
        Some(&json!("PaymentError: card expired"))
    );
    assert_eq!(
        summary(&runs[1]),
        rows(&[("search_docs", 0, true, O), ("search_docs", 0, false, U)])
    );
    assert_eq!(
        runs[1].calls[1].args_raw.as_deref(),
        Some("reset 2fa, not JSON")
    );
}

/// A call as `convert` writes it: server, name, arguments, result, status, step, completion.
type Shown = (
    Option<String>,
    String,
    serde_json::Value,
    Option<serde_json::Value>,
    Status,
    u32,
    bool,
);

/// The calls of each run.
fn calls(runs: &[Run]) -> Vec<Vec<Shown>> {
    runs.iter()
        .map(|run| {
            run.calls
                .iter()
                .map(|call| {
                    (
                        call.server.clone(),
                        call.name.clone(),
                        call.args().clone(),
                        call.result().cloned(),
                        call.status,
                        call.step,
                        call.completed,
                    )
                })
                .collect()
        })
        .collect()
}

#[test]
fn the_json_lines_exports_give_the_same_runs() {
    let options = ReadOptions::default();
    let (_, from_parquet) = parquet(LANGFUSE, &options).unwrap();
    let (format, from_lines) = read(LANGFUSE_LINES, true).unwrap();
    assert_eq!(format, "langfuse");
    assert_eq!(calls(&from_parquet), calls(&from_lines));
    let (_, from_parquet) = parquet(LANGSMITH, &options).unwrap();
    let (format, from_lines) = read(LANGSMITH_LINES, true).unwrap();
    assert_eq!(format, "langsmith");
    assert_eq!(calls(&from_parquet), calls(&from_lines));
}

/// The runs of an export as the reader hands them over, reading `slice` rows at a time, or
/// its error.
fn sliced(bytes: &[u8], slice: usize) -> Result<Vec<Run>, String> {
    let input = bytes::Bytes::from(bytes.to_vec());
    let mut reader = ParquetRuns::open_sliced("x.parquet", input, None, slice)
        .map_err(|error| error.to_string())?;
    let mut runs = Vec::new();
    loop {
        let next = reader.next_runs().map_err(|error| error.to_string())?;
        if next.is_empty() {
            return Ok(runs);
        }
        runs.extend(next);
    }
}

#[test]
fn slices_of_any_size_give_the_same_runs_and_errors() {
    let not_utf8: &[u8] = include_bytes!("../../../../fixtures/bad-parquet-not-utf8/runs.parquet");
    for export in [LANGFUSE, LANGSMITH, not_utf8] {
        let whole = sliced(export, SLICE);
        for slice in [1, 2, 3, 5] {
            assert_eq!(sliced(export, slice), whole, "{slice} rows a slice");
        }
    }
    assert!(sliced(LANGSMITH, SLICE).unwrap().len() > 1);
    assert_eq!(
        sliced(not_utf8, 1).unwrap_err(),
        "`x.parquet`, row group 3, column `name`: a value is not valid UTF-8 (byte 9)",
    );
}

#[track_caller]
fn refused(bytes: &[u8], format: Option<&str>, expected: &str) {
    let options = ReadOptions {
        format: format.map(str::to_owned),
        ..ReadOptions::default()
    };
    let error = parquet(bytes, &options).unwrap_err();
    assert!(matches!(error, TraceError::Parquet { .. }), "{error:?}");
    assert_eq!(error.to_string(), expected);
}

#[test]
fn bad_files_are_refused_naming_the_row_group_and_column() {
    refused(
        &LANGSMITH[..LANGSMITH.len() / 2],
        None,
        "`x.parquet`: not a readable Parquet file: Parquet error: Invalid Parquet file. Corrupt footer",
    );
    refused(
        include_bytes!("../../../../fixtures/bad-parquet-missing-column/runs.parquet"),
        None,
        "`x.parquet`: the column `trace_id` is missing: a langsmith export has it",
    );
    refused(
        include_bytes!("../../../../fixtures/bad-parquet-wrong-type/runs.parquet"),
        None,
        "`x.parquet`: the column `start_time` is an INT64 that is not a timestamp",
    );
    refused(
        include_bytes!("../../../../fixtures/bad-parquet-not-utf8/runs.parquet"),
        None,
        "`x.parquet`, row group 3, column `name`: a value is not valid UTF-8 (byte 9)",
    );
    refused(
        include_bytes!("../../../../fixtures/bad-parquet-row-group-too-large/runs.parquet"),
        None,
        "`x.parquet`, row group 1, column `inputs`: the row group's columns read hold 136316001 \
         bytes uncompressed, more than the 128 MiB a row group may hold",
    );
    refused(
        LANGSMITH,
        Some("otel"),
        "`x.parquet`: a `.parquet` file is a Langfuse or LangSmith export, not `otel`",
    );
    refused(
        b"PAR1",
        None,
        "`x.parquet`: not a readable Parquet file: EOF: Parquet file too small. Size is 4 but need 8",
    );
}

#[test]
fn a_format_named_by_hand_reads_the_file_as_that_export() {
    let options = ReadOptions {
        format: Some("langfuse".to_owned()),
        ..ReadOptions::default()
    };
    let error = parquet(LANGSMITH, &options).unwrap_err();
    assert_eq!(
        error.to_string(),
        "`x.parquet`: the column `type` is missing: a langfuse export has it"
    );
}

/// A panic inside the `parquet` crate is caught and told as a corrupt file; none of these
/// inputs meets one.
#[track_caller]
fn no_panic(bytes: &[u8]) {
    if let Err(error) = parquet(bytes, &ReadOptions::default()) {
        assert!(
            !error.to_string().contains("the Parquet reader failed"),
            "{error}"
        );
    }
}

#[test]
fn cut_and_flipped_exports_are_refused_or_read_never_a_panic() {
    for cut in (0..LANGFUSE.len()).step_by(7) {
        no_panic(&LANGFUSE[..cut]);
    }
    let mut flipped = LANGSMITH.to_vec();
    for index in (0..flipped.len()).step_by(13) {
        flipped[index] ^= 0x5a;
        no_panic(&flipped);
        flipped[index] ^= 0x5a;
    }
}

/// The `parquet` fuzz target's crash of 2026-11-28: a string column's PLAIN page cut short,
/// on which the `parquet` crate's decoder panics. The panic is caught at the column read and
/// told as a corrupt page, naming the row group and column.
#[test]
fn a_page_the_parquet_crate_panics_on_is_refused_naming_its_column() {
    let crash = include_bytes!("crash-plain-page-cut.parquet");
    let error = parquet(crash, &ReadOptions::default()).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, TraceError::Parquet { .. }), "{error:?}");
    assert!(message.contains(", row group "), "{message}");
    assert!(message.contains(", column `"), "{message}");
    assert!(message.contains("a page is corrupt"), "{message}");
}

/// The `parquet` fuzz target's second crash (2026-11-29): a column chunk whose offset is
/// negative, on which the crate asserts when it opens the column. It is refused before any
/// column is opened, naming the row group and column.
#[test]
fn a_column_chunk_with_a_negative_offset_is_refused_naming_its_column() {
    let crash = include_bytes!("crash-negative-chunk-offset.parquet");
    let error = parquet(crash, &ReadOptions::default()).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, TraceError::Parquet { .. }), "{error:?}");
    assert!(
        message.contains(", row group 2, column `trace_id`"),
        "{message}"
    );
    assert!(message.contains("offset or size is negative"), "{message}");
}
