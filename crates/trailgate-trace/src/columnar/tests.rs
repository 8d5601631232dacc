//! Unit tests of the Parquet reader, on the fixtures' exports (written by `cargo xtask
//! parquet-fixtures`): runs by trace id in start order, calls and steps, usage and times,
//! the same runs as the JSON Lines export of the same rows, and the errors of bad files;
//! and on small files written here, the shapes of token columns the fixtures do not hold.

use std::sync::Arc;

use parquet::data_type::{ByteArray, ByteArrayType, DataType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::SchemaDescriptor;
use serde_json::json;

use super::{ParquetRuns, SLICE};
use crate::formats::testing::{read, summary, usage};
use crate::{Interval, PartReader, ReadOptions, Run, Status, TraceError};

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
    // Each generation's `usage_details` (a MAP) under its `provided_model_name`: `input` and
    // `input_cached_tokens` as input, the cached ones also as cached, `total` not read;
    // t-empty's generation sits in a row group without a tool row.
    assert_eq!(usage(&runs[0]), [("gpt-4o".to_owned(), 120, 12, None)]);
    assert_eq!(
        usage(&runs[1]),
        [("gpt-4o".to_owned(), 1600, 80, Some(200))]
    );
    assert_eq!(usage(&runs[2]), [("gpt-4o".to_owned(), 80, 8, None)]);
    // A run spans its rows' earliest start to their latest end (seconds after 10:00).
    let spans: Vec<(i64, i64)> = runs.iter().map(|run| millis(run.time)).collect();
    assert_eq!(
        spans,
        [(1_000, 2_500), (60_000, 66_000), (120_000, 121_000)]
    );
}

/// 2025-06-01T10:00:00Z, the fixtures' first time, in nanoseconds.
const T0_NS: i64 = 1_748_772_000_000_000_000;

/// A run's time, in milliseconds after [`T0_NS`].
fn millis(time: Option<Interval>) -> (i64, i64) {
    let time = time.unwrap();
    (
        (time.start_ns - T0_NS) / 1_000_000,
        (time.end_ns - T0_NS) / 1_000_000,
    )
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
    // Each `llm` run's `prompt_tokens` and `completion_tokens`, under the model its
    // `outputs` names, else its `extra`; the chain run's sums are not counted again, and a
    // run with only `total_tokens` adds nothing.
    assert_eq!(
        usage(&runs[0]),
        [
            ("gpt-4o-mini".to_owned(), 402, 31, None),
            ("gpt-4o-mini-2024-07-18".to_owned(), 310, 28, None),
        ]
    );
    assert_eq!(
        usage(&runs[1]),
        [("claude-sonnet-4-20250514".to_owned(), 1210, 64, None)]
    );
    let spans: Vec<(i64, i64)> = runs.iter().map(|run| millis(run.time)).collect();
    assert_eq!(spans, [(0, 9_000), (20_000, 24_000)]);
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

/// The usage and time of each run.
fn spent(runs: &[Run]) -> Vec<(crate::Usage, Option<Interval>)> {
    runs.iter()
        .map(|run| (run.usage.clone(), run.time))
        .collect()
}

#[test]
fn the_json_lines_exports_give_the_same_runs() {
    let options = ReadOptions::default();
    let (_, from_parquet) = parquet(LANGFUSE, &options).unwrap();
    let (format, from_lines) = read(LANGFUSE_LINES, true).unwrap();
    assert_eq!(format, "langfuse");
    assert_eq!(calls(&from_parquet), calls(&from_lines));
    assert_eq!(spent(&from_parquet), spent(&from_lines));
    let (_, from_parquet) = parquet(LANGSMITH, &options).unwrap();
    let (format, from_lines) = read(LANGSMITH_LINES, true).unwrap();
    assert_eq!(format, "langsmith");
    assert_eq!(calls(&from_parquet), calls(&from_lines));
    assert_eq!(spent(&from_parquet), spent(&from_lines));
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
        "`x.parquet`, row group 1, column `inputs`: the row group's columns read hold 136316826 \
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

// ---------------------------------------------------------------------------------------
// Small files written here: token columns in the shapes the fixtures do not write.

/// A leaf column's values in one row group.
enum Leaf {
    Text(Vec<String>),
    Int64(Vec<i64>),
    Int32(Vec<i32>),
}

/// A leaf column of a row group to write: its values, its definition levels and its
/// repetition levels (`None` for a column that has none).
type Written = (Leaf, Option<Vec<i16>>, Option<Vec<i16>>);

/// A required leaf.
fn required(values: Leaf) -> Written {
    (values, None, None)
}

/// An optional text leaf, `None` a null.
fn optional_text(values: impl Iterator<Item = Option<String>>) -> Written {
    let values: Vec<Option<String>> = values.collect();
    let def = values.iter().map(|v| i16::from(v.is_some())).collect();
    (
        Leaf::Text(values.into_iter().flatten().collect()),
        Some(def),
        None,
    )
}

/// An optional integer leaf, `INT64` when `wide`, else `INT32`; `None` a null.
fn optional_int(values: impl Iterator<Item = Option<i64>>, wide: bool) -> Written {
    let values: Vec<Option<i64>> = values.collect();
    let def = values.iter().map(|v| i16::from(v.is_some())).collect();
    (numbers(values.into_iter().flatten(), wide), Some(def), None)
}

/// Integers as an `INT64` (`wide`) or `INT32` leaf.
fn numbers(values: impl Iterator<Item = i64>, wide: bool) -> Leaf {
    if wide {
        Leaf::Int64(values.collect())
    } else {
        Leaf::Int32(values.map(|n| i32::try_from(n).unwrap()).collect())
    }
}

/// The Parquet bytes of `groups`, each a row group's leaf columns in `schema`'s order.
fn written(schema: &str, groups: Vec<Vec<Written>>) -> Vec<u8> {
    fn leaf<T: DataType>(
        group: &mut parquet::file::writer::SerializedRowGroupWriter<'_, &mut Vec<u8>>,
        values: &[T::T],
        def: Option<&[i16]>,
        rep: Option<&[i16]>,
    ) {
        let mut column = group.next_column().unwrap().unwrap();
        column.typed::<T>().write_batch(values, def, rep).unwrap();
        column.close().unwrap();
    }
    let schema = Arc::new(parse_message_type(schema).unwrap());
    let properties = Arc::new(WriterProperties::builder().build());
    let mut out = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut out, schema, properties).unwrap();
    for leaves in groups {
        let mut group = writer.next_row_group().unwrap();
        for (values, def, rep) in leaves {
            let (def, rep) = (def.as_deref(), rep.as_deref());
            match values {
                Leaf::Text(texts) => {
                    let texts: Vec<ByteArray> = texts
                        .iter()
                        .map(|text| ByteArray::from(text.as_str()))
                        .collect();
                    leaf::<ByteArrayType>(&mut group, &texts, def, rep);
                }
                Leaf::Int64(numbers) => leaf::<Int64Type>(&mut group, &numbers, def, rep),
                Leaf::Int32(numbers) => leaf::<Int32Type>(&mut group, &numbers, def, rep),
            }
        }
        group.close().unwrap();
    }
    writer.close().unwrap();
    out
}

/// A file with `schema` and no row.
fn empty(schema: &str) -> bytes::Bytes {
    bytes::Bytes::from(written(schema, Vec::new()))
}

/// A Langfuse observation: `(trace, type, provided model name, start s, end s, usage
/// details)`; `None` usage is a null map (or text), a `None` count a null value.
type Observation = (
    &'static str,
    &'static str,
    &'static str,
    i64,
    Option<i64>,
    Option<&'static [(&'static str, Option<i64>)]>,
);

/// A Langfuse observations export's columns, `usage_details` declared as `usage`.
fn observations_schema(usage: &str) -> String {
    format!(
        "message observations {{
  required binary trace_id (STRING);
  required binary type (STRING);
  required binary name (STRING);
  required int64 start_time (TIMESTAMP(MILLIS,true));
  optional int64 end_time (TIMESTAMP(MILLIS,true));
  optional binary provided_model_name (STRING);
  {usage}
}}"
    )
}

/// A MAP of strings to unsigned 64-bit counts, the map and its values optional.
const MAP_U64: &str = "optional group usage_details (MAP) {
    repeated group key_value {
      required binary key (STRING);
      optional int64 value (INTEGER(64,false));
    }
  }";

/// `usage_details` as JSON text.
const TEXT: &str = "optional binary usage_details (STRING);";

/// 2025-06-01T10:00:00Z, plus `seconds`, in milliseconds.
fn ms(seconds: i64) -> i64 {
    1_748_772_000_000 + seconds * 1_000
}

/// The Langfuse export of `rows`, `per_group` rows to a row group, `usage_details` declared
/// as `usage`: a MAP (its levels from the schema) or JSON text.
fn observations(rows: &[Observation], per_group: usize, usage: &str) -> Vec<u8> {
    let schema = observations_schema(usage);
    let descriptor = SchemaDescriptor::new(Arc::new(parse_message_type(&schema).unwrap()));
    let groups = rows
        .chunks(per_group)
        .map(|rows| {
            let text = |f: fn(&Observation) -> &'static str| {
                required(Leaf::Text(
                    rows.iter().map(|row| f(row).to_owned()).collect(),
                ))
            };
            let mut leaves = vec![
                text(|row| row.0),
                text(|row| row.1),
                text(|row| row.1),
                required(Leaf::Int64(rows.iter().map(|row| ms(row.3)).collect())),
                optional_int(rows.iter().map(|row| row.4.map(ms)), true),
                optional_text(rows.iter().map(|row| {
                    Some(row.2)
                        .filter(|model| !model.is_empty())
                        .map(str::to_owned)
                })),
            ];
            if descriptor.num_columns() == 7 {
                leaves.push(optional_text(rows.iter().map(|row| {
                    row.5.map(|details| {
                        let object: serde_json::Map<String, serde_json::Value> = details
                            .iter()
                            .map(|(key, count)| ((*key).to_owned(), json!(count)))
                            .collect();
                        serde_json::Value::Object(object).to_string()
                    })
                })));
            } else {
                leaves.extend(map_leaves(rows, &descriptor));
            }
            leaves
        })
        .collect();
    written(&schema, groups)
}

/// The key and value leaves of the `usage_details` MAP of `rows`, the levels from the
/// schema (the key column's is column 6, the value's 7).
fn map_leaves(rows: &[Observation], descriptor: &SchemaDescriptor) -> [Written; 2] {
    let (key_def, value_def) = (
        descriptor.column(6).max_def_level(),
        descriptor.column(7).max_def_level(),
    );
    let (mut keys, mut values) = (Vec::new(), Vec::new());
    let (mut key_defs, mut value_defs, mut reps) = (Vec::new(), Vec::new(), Vec::new());
    for row in rows {
        match row.5 {
            None | Some([]) => {
                // A null map is below the map's level, an empty one at it.
                let level = if row.5.is_none() { 0 } else { key_def - 1 };
                key_defs.push(level);
                value_defs.push(level);
                reps.push(0);
            }
            Some(entries) => {
                for (index, (key, count)) in entries.iter().enumerate() {
                    keys.push((*key).to_owned());
                    key_defs.push(key_def);
                    reps.push(i16::from(index > 0));
                    value_defs.push(if count.is_some() {
                        value_def
                    } else {
                        value_def - 1
                    });
                    values.extend(*count);
                }
            }
        }
    }
    let wide = descriptor.column(7).physical_type() == parquet::basic::Type::INT64;
    [
        (Leaf::Text(keys), Some(key_defs), Some(reps.clone())),
        (
            numbers(values.into_iter(), wide),
            Some(value_defs),
            Some(reps),
        ),
    ]
}

/// Trace `a`: a generation first (alone in a row group without a tool row, in row groups
/// of 1 or 2 rows), a span with an empty map, a tool, and generations of two models, one
/// with a null count and one whose map is null; trace `b`: a generation that names no
/// model.
const ROWS: &[Observation] = &[
    (
        "a",
        "GENERATION",
        "gpt-4o",
        1,
        Some(2),
        Some(&[
            ("input", Some(100)),
            ("input_cached_tokens", Some(60)),
            ("output", Some(10)),
            ("total", Some(170)),
        ]),
    ),
    ("a", "SPAN", "", 0, None, Some(&[])),
    ("a", "TOOL", "", 3, Some(4), None),
    (
        "a",
        "GENERATION",
        "gpt-4o",
        5,
        Some(6),
        Some(&[
            ("input", Some(200)),
            ("output", None),
            ("output_reasoning", Some(7)),
        ]),
    ),
    (
        "a",
        "GENERATION",
        "claude-sonnet-4-0",
        7,
        Some(9),
        Some(&[("input", Some(50)), ("output", Some(5))]),
    ),
    ("a", "GENERATION", "gpt-4o", 8, None, None),
    (
        "b",
        "GENERATION",
        "",
        20,
        Some(21),
        Some(&[("input", Some(1)), ("output", Some(2))]),
    ),
];

/// The usage and time (milliseconds after 10:00) of each run, in order.
type Spent = Vec<(Vec<(String, u64, u64, Option<u64>)>, (i64, i64))>;

fn spent_of(runs: &[Run]) -> Spent {
    runs.iter()
        .map(|run| (usage(run), millis(run.time)))
        .collect()
}

#[track_caller]
fn check_usage(bytes: &[u8], expected: &Spent) {
    let whole = sliced(bytes, SLICE).unwrap();
    assert_eq!(&spent_of(&whole), expected);
    for slice in [1, 2, 3] {
        assert_eq!(sliced(bytes, slice).unwrap(), whole, "{slice} rows a slice");
    }
}

fn expected_langfuse() -> Spent {
    vec![
        (
            vec![
                ("claude-sonnet-4-0".to_owned(), 50, 5, None),
                ("gpt-4o".to_owned(), 360, 17, Some(60)),
            ],
            (0, 9_000),
        ),
        (vec![(String::new(), 1, 2, None)], (20_000, 21_000)),
    ]
}

#[test]
fn a_usage_map_sums_each_trace_s_generations_per_model_in_any_row_group() {
    for per_group in [1, 2, 7] {
        check_usage(
            &observations(ROWS, per_group, MAP_U64),
            &expected_langfuse(),
        );
    }
    // Required map and values, as ClickHouse writes `Map(String, UInt64)`; an `INT32` value.
    let required = MAP_U64.replace("optional", "required");
    let rows: Vec<Observation> = ROWS
        .iter()
        .map(|row| {
            let details = row.5.map(|details| {
                let present: Vec<(&str, Option<i64>)> = details
                    .iter()
                    .copied()
                    .filter(|(_, count)| count.is_some())
                    .collect();
                &*Vec::leak(present)
            });
            (
                row.0,
                row.1,
                row.2,
                row.3,
                row.4,
                Some(details.unwrap_or_default()),
            )
        })
        .collect();
    check_usage(&observations(&rows, 3, &required), &expected_langfuse());
    let narrow = MAP_U64.replace("int64 value (INTEGER(64,false))", "int32 value");
    check_usage(&observations(ROWS, 3, &narrow), &expected_langfuse());
}

#[test]
fn usage_details_as_json_text_read_as_the_map() {
    check_usage(&observations(ROWS, 2, TEXT), &expected_langfuse());
}

#[test]
fn an_unsigned_count_reads_its_bits_as_unsigned() {
    let rows: &[Observation] = &[(
        "a",
        "GENERATION",
        "m",
        0,
        None,
        Some(&[("input", Some(-1))]),
    )];
    check_usage(
        &observations(rows, 1, MAP_U64),
        &vec![(vec![("m".to_owned(), u64::MAX, 0, None)], (0, 0))],
    );
}

#[test]
fn a_negative_count_is_refused_naming_the_row_group_column_and_row() {
    let generation: &[(&str, Option<i64>)] = &[("input", Some(3)), ("output", Some(-5))];
    let rows: &[Observation] = &[
        ("a", "TOOL", "", 0, None, None),
        // Only generations' usage is read: a span's negative count is not.
        ("a", "SPAN", "", 0, None, Some(&[("input", Some(-9))])),
        ("a", "GENERATION", "m", 1, None, Some(generation)),
    ];
    let signed = MAP_U64.replace(" (INTEGER(64,false))", "");
    let expected = "`x.parquet`, row group 2, column `usage_details`: row 1: the token count \
                    `output` is -5: a token count is a whole number from 0 to \
                    18446744073709551615";
    for slice in [1, SLICE] {
        let error = sliced(&observations(rows, 2, &signed), slice).unwrap_err();
        assert_eq!(error, expected);
    }
    let error = sliced(&observations(rows, 2, TEXT), SLICE).unwrap_err();
    assert_eq!(error, expected);
}

#[track_caller]
fn refused_schema(schema: &str, expected: &str) {
    let error = ParquetRuns::open_sliced("x.parquet", empty(schema), None, 1).err();
    assert_eq!(
        error.map(|error| error.to_string()).as_deref(),
        Some(expected)
    );
}

#[test]
fn usage_details_of_another_shape_are_refused() {
    let expected = "`x.parquet`: the column `usage_details` is neither a map of strings to \
                    integers (MAP) nor JSON text (BYTE_ARRAY)";
    let floats = MAP_U64.replace("int64 value (INTEGER(64,false))", "double value");
    refused_schema(&observations_schema(&floats), expected);
    let not_a_map = MAP_U64.replace(" (MAP)", "");
    refused_schema(&observations_schema(&not_a_map), expected);
    refused_schema(
        &observations_schema("optional int64 usage_details;"),
        expected,
    );
}

/// A LangSmith run: `(trace, run_type, start s, prompt, completion, outputs, extra)`.
type LangSmithRun = (
    &'static str,
    &'static str,
    i64,
    Option<i64>,
    Option<i64>,
    Option<&'static str>,
    Option<&'static str>,
);

/// A LangSmith runs export's columns, its token columns declared as `count` with `NAME`
/// for their name (`int64 NAME`, `int32 NAME (INTEGER(32,false))`...).
fn runs_schema(count: &str) -> String {
    let (prompt, completion) = (
        count.replace("NAME", "prompt_tokens"),
        count.replace("NAME", "completion_tokens"),
    );
    format!(
        "message runs {{
  required binary trace_id (STRING);
  required binary run_type (STRING);
  required binary name (STRING);
  required int64 start_time (TIMESTAMP(MICROS,true));
  optional binary outputs (STRING);
  optional binary extra (STRING);
  optional {prompt};
  optional {completion};
}}"
    )
}

/// A LangSmith export of `rows`, two rows to a row group, its token columns declared as
/// [`runs_schema`] says.
fn langsmith(rows: &[LangSmithRun], count: &str) -> Vec<u8> {
    let wide = count.starts_with("int64");
    let groups = rows
        .chunks(2)
        .map(|rows| {
            let text = |f: fn(&LangSmithRun) -> &'static str| {
                required(Leaf::Text(
                    rows.iter().map(|row| f(row).to_owned()).collect(),
                ))
            };
            let json = |f: fn(&LangSmithRun) -> Option<&'static str>| {
                optional_text(rows.iter().map(|row| f(row).map(str::to_owned)))
            };
            vec![
                text(|row| row.0),
                text(|row| row.1),
                text(|row| row.1),
                required(Leaf::Int64(
                    rows.iter().map(|row| ms(row.2) * 1_000).collect(),
                )),
                json(|row| row.5),
                json(|row| row.6),
                optional_int(rows.iter().map(|row| row.3), wide),
                optional_int(rows.iter().map(|row| row.4), wide),
            ]
        })
        .collect();
    written(&runs_schema(count), groups)
}

/// Trace `a`: a chain run whose sums are not counted again, `llm` runs naming their model
/// in `outputs` (preferred), `extra.metadata` or `extra.invocation_params`, one whose
/// `outputs` are not JSON, one with no count; trace `b`: an `llm` run naming no model.
const RUNS: &[LangSmithRun] = &[
    ("a", "chain", 0, Some(999), Some(999), None, None),
    (
        "a",
        "llm",
        1,
        Some(10),
        Some(2),
        Some(r#"{"llm_output":{"model_name":"gpt-4o-2024-08-06"}}"#),
        Some(r#"{"metadata":{"ls_model_name":"gpt-4o"}}"#),
    ),
    (
        "a",
        "llm",
        2,
        Some(20),
        None,
        Some("not JSON"),
        Some(r#"{"metadata":{"ls_model_name":"gpt-4o"}}"#),
    ),
    ("a", "tool", 3, None, None, None, None),
    (
        "a",
        "llm",
        4,
        None,
        None,
        None,
        Some(r#"{"invocation_params":{"model_name":"claude-sonnet-4-0"}}"#),
    ),
    (
        "a",
        "llm",
        5,
        Some(30),
        Some(3),
        None,
        Some(r#"{"invocation_params":{"model_name":"claude-sonnet-4-0"}}"#),
    ),
    ("b", "llm", 6, None, Some(4), None, None),
];

#[test]
fn token_columns_of_any_integer_type_count_under_the_model_the_json_rules_name() {
    let expected: Spent = vec![
        (
            vec![
                ("claude-sonnet-4-0".to_owned(), 30, 3, None),
                ("gpt-4o".to_owned(), 20, 0, None),
                ("gpt-4o-2024-08-06".to_owned(), 10, 2, None),
            ],
            (0, 5_000),
        ),
        (vec![(String::new(), 0, 4, None)], (6_000, 6_000)),
    ];
    for count in [
        "int64 NAME",
        "int64 NAME (INTEGER(64,false))",
        "int32 NAME",
        "int32 NAME (INTEGER(32,false))",
    ] {
        check_usage(&langsmith(RUNS, count), &expected);
    }
}

#[test]
fn a_negative_token_count_is_refused_naming_its_column() {
    let rows: &[LangSmithRun] = &[
        ("a", "chain", 0, Some(-1), None, None, None),
        ("a", "tool", 1, None, None, None, None),
        ("a", "llm", 2, Some(1), Some(-2), None, None),
    ];
    let error = sliced(&langsmith(rows, "int32 NAME"), SLICE).unwrap_err();
    assert_eq!(
        error,
        "`x.parquet`, row group 2, column `completion_tokens`: row 1: the token count \
         `completion_tokens` is -2: a token count is a whole number from 0 to \
         18446744073709551615"
    );
    refused_schema(
        &runs_schema("int64 NAME (TIMESTAMP(MILLIS,true))"),
        "`x.parquet`: the column `prompt_tokens` is an INT64 that is not an integer",
    );
    refused_schema(
        &runs_schema("binary NAME"),
        "`x.parquet`: the column `prompt_tokens` is BYTE_ARRAY, not an integer (INT64 or INT32)",
    );
}
