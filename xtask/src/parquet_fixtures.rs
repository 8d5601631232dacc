//! `cargo xtask parquet-fixtures`: writes the Parquet files of the `parquet-*`,
//! `usage-*-parquet` and `bad-parquet-*` fixtures with the `parquet` crate, in the columns of
//! Langfuse's observations export and LangSmith's runs export
//! (docs/formats.md#parquet-exports), so that they can be made again and read in review here.
//!
//! `1m`, with a count, writes the measurement's export instead: that many LangSmith tool
//! runs as Parquet and the same runs as JSON Lines, and the suites that check each
//! (docs/performance.md#parquet); with `--usage`, an `llm` run with token counts before each
//! trace's tools too, and a suite with a token budget.

use std::fs;
use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use parquet::basic::{Compression, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, DataType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedFileWriter, SerializedRowGroupWriter};
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::Type;

/// One column's values, in row order; `None` is a null.
enum Values {
    Text(Vec<Option<Vec<u8>>>),
    /// An `INT64` timestamp, written as a time in JSON.
    Time(Vec<Option<i64>>),
    /// An `INT64` count, written as a number in JSON.
    Count(Vec<Option<i64>>),
    /// A required MAP of strings to `INT64`s: each row's entries, none for an empty map.
    Map(Vec<Vec<(&'static str, i64)>>),
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Self::Text(values) => values.len(),
            Self::Time(values) | Self::Count(values) => values.len(),
            Self::Map(values) => values.len(),
        }
    }
}

/// A table to write: its schema (Parquet's message syntax) and its columns in schema order.
struct Table {
    schema: String,
    columns: Vec<Values>,
}

/// A text column: `value` of each row and its place.
fn texts<R>(rows: &[R], value: impl Fn(usize, &R) -> Option<String>) -> Values {
    Values::Text(
        rows.iter()
            .enumerate()
            .map(|(i, row)| value(i, row).map(String::into_bytes))
            .collect(),
    )
}

/// Langfuse's observations export (`observations/`), in the columns its field reference
/// lists, as `ClickHouse` writes them: strings, timestamps in milliseconds, and
/// `usage_details` as `ClickHouse` writes a `Map(LowCardinality(String), UInt64)`.
const LANGFUSE: &str = "message observations {
  required binary id (STRING);
  required binary trace_id (STRING);
  required binary project_id (STRING);
  required binary type (STRING);
  optional binary parent_observation_id (STRING);
  required int64 start_time (TIMESTAMP(MILLIS,true));
  optional int64 end_time (TIMESTAMP(MILLIS,true));
  optional binary name (STRING);
  optional binary metadata (STRING);
  required binary level (STRING);
  optional binary status_message (STRING);
  optional binary version (STRING);
  optional binary input (STRING);
  optional binary output (STRING);
  optional binary provided_model_name (STRING);
  required group usage_details (MAP) {
    repeated group key_value {
      required binary key (STRING);
      required int64 value (INTEGER(64,false));
    }
  }
}";

/// LangSmith's bulk export of runs, in the fields of its run data format: strings (JSON
/// text for `inputs`, `outputs`, `extra`), timestamps in microseconds, token counts as
/// `INT64`s.
const LANGSMITH: &str = "message runs {
  required binary id (STRING);
  required binary trace_id (STRING);
  optional binary parent_run_id (STRING);
  required binary dotted_order (STRING);
  required binary session_id (STRING);
  required binary name (STRING);
  required binary run_type (STRING);
  required binary status (STRING);
  required int64 start_time (TIMESTAMP(MICROS,true));
  optional int64 end_time (TIMESTAMP(MICROS,true));
  optional binary inputs (STRING);
  optional binary outputs (STRING);
  optional binary error (STRING);
  optional binary extra (STRING);
  optional int64 prompt_tokens;
  optional int64 completion_tokens;
  optional int64 total_tokens;
}";

/// 2025-06-01T10:00:00Z in milliseconds.
const T0_MS: i64 = 1_748_772_000_000;

pub(crate) fn command(root: &Path, args: &[String]) -> Result<(), String> {
    if args.first().map(String::as_str) == Some("1m") {
        let usage = args.iter().any(|arg| arg == "--usage");
        let args: Vec<&String> = args.iter().filter(|arg| *arg != "--usage").collect();
        let calls = args
            .get(1)
            .map_or(Ok(1_000_000), |count| count.parse::<usize>())
            .map_err(|e| format!("the count of calls: {e}"))?;
        let dir = args
            .get(2)
            .map_or_else(|| root.join("target").join("parquet-1m"), Into::into);
        return million(&dir, calls, usage);
    }
    if let Some(other) = args.first() {
        return Err(format!(
            "unknown argument `{other}`: `cargo xtask parquet-fixtures` rewrites the fixtures' \
             Parquet files; `cargo xtask parquet-fixtures 1m [CALLS] [DIR] [--usage]` writes a \
             large export (CALLS calls, 1000000 unless given; with `--usage`, an `llm` run with \
             token counts before each trace's calls)"
        ));
    }
    let fixtures = root.join("fixtures");
    let langfuse = langfuse_rows();
    write(
        &fixtures.join("parquet-langfuse-observations/traces/observations.parquet"),
        &langfuse,
        Some(4),
    )?;
    write(
        &fixtures.join("parquet-langfuse-convert/observations.parquet"),
        &langfuse,
        Some(4),
    )?;
    write(
        &fixtures.join("usage-langfuse-observations-parquet/traces/observations.parquet"),
        &langfuse,
        Some(4),
    )?;
    let langsmith = langsmith_rows();
    write(
        &fixtures.join("parquet-langsmith-runs/traces/runs.parquet"),
        &langsmith,
        Some(3),
    )?;
    write(
        &fixtures.join("usage-langsmith-parquet/traces/runs.parquet"),
        &langsmith,
        Some(3),
    )?;
    write(
        &fixtures.join("parquet-langsmith-convert/runs.parquet"),
        &langsmith,
        Some(3),
    )?;
    // The JSON Lines exports of the same rows.
    write_lines(
        &fixtures.join("parquet-langfuse-jsonl/observations.jsonl"),
        &langfuse,
        true,
    )?;
    write_lines(
        &fixtures.join("parquet-langsmith-jsonl/runs.jsonl"),
        &langsmith,
        false,
    )?;
    bad(&fixtures)
}

/// A Langfuse observation: `(trace, type, name, start ms, end ms, metadata, level, status
/// message, input, output, usage details)`.
type Observation = (
    &'static str,
    &'static str,
    &'static str,
    i64,
    Option<i64>,
    Option<&'static str>,
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
    &'static [(&'static str, i64)],
);

/// The `usage_details` of an observation that records none: an empty map.
const NO_USAGE: &[(&str, i64)] = &[];

#[expect(
    clippy::too_many_lines,
    reason = "a table of rows, one a line as rustfmt writes them"
)]
fn observations() -> Vec<Observation> {
    vec![
        (
            "t-weather",
            "SPAN",
            "agent run",
            60_000,
            Some(66_000),
            None,
            "DEFAULT",
            None,
            Some(r#"{"task":"weather in Paris, mail it"}"#),
            None,
            NO_USAGE,
        ),
        (
            "t-weather",
            "GENERATION",
            "chat gpt-4o",
            61_000,
            Some(61_900),
            None,
            "DEFAULT",
            None,
            Some(r#"[{"role":"user","content":"weather in Paris"}]"#),
            Some(r#"{"tool_calls":[{"name":"get_weather"},{"name":"get_time"}]}"#),
            &[
                ("input", 1000),
                ("input_cached_tokens", 200),
                ("output", 50),
                ("total", 1250),
            ],
        ),
        (
            "t-weather",
            "TOOL",
            "get_weather",
            62_000,
            Some(63_000),
            None,
            "DEFAULT",
            None,
            Some(r#"{"city":"Paris"}"#),
            Some(r#"{"temp_c":21,"sky":"clear"}"#),
            NO_USAGE,
        ),
        (
            "t-search",
            "GENERATION",
            "chat gpt-4o",
            1_000,
            Some(1_800),
            None,
            "DEFAULT",
            None,
            Some(r#"[{"role":"user","content":"find parquet docs"}]"#),
            None,
            &[("input", 120), ("output", 12), ("total", 132)],
        ),
        (
            "t-search",
            "TOOL",
            "running tool: web_search",
            2_000,
            Some(2_400),
            None,
            "DEFAULT",
            None,
            Some(r#"{"q":"apache parquet format"}"#),
            Some(r#"["https://parquet.apache.org/docs/"]"#),
            NO_USAGE,
        ),
        (
            "t-weather",
            "TOOL",
            "clock",
            62_500,
            Some(62_600),
            Some(r#"{"attributes":{"gen_ai.tool.name":"get_time","mcp.server.name":"clock"}}"#),
            "DEFAULT",
            None,
            Some(r#"{"tz":"Europe/Paris"}"#),
            Some("12:00, not JSON"),
            NO_USAGE,
        ),
        (
            "t-weather",
            "GENERATION",
            "chat gpt-4o",
            64_000,
            Some(64_500),
            None,
            "DEFAULT",
            None,
            None,
            None,
            &[("input", 400), ("output", 30), ("total", 430)],
        ),
        (
            "t-weather",
            "TOOL",
            "send_email",
            65_000,
            Some(65_200),
            None,
            "ERROR",
            Some("smtp: connection refused"),
            Some("to=ops@example.com, not JSON"),
            None,
            NO_USAGE,
        ),
        (
            "t-search", "EVENT", "log", 2_500, None, None, "DEBUG", None, None, None, NO_USAGE,
        ),
        (
            "t-empty",
            "GENERATION",
            "chat gpt-4o",
            120_000,
            Some(121_000),
            None,
            "DEFAULT",
            None,
            None,
            None,
            &[("input", 80), ("output", 8), ("total", 88)],
        ),
    ]
}

fn langfuse_rows() -> Table {
    let rows = observations();
    let column = |f: &dyn Fn(usize, &Observation) -> Option<String>| texts(&rows, f);
    Table {
        schema: LANGFUSE.to_owned(),
        columns: vec![
            column(&|i, _| Some(format!("obs-{:02}", i + 1))),
            column(&|_, row| Some(row.0.to_owned())),
            column(&|_, _| Some("proj-demo".to_owned())),
            column(&|_, row| Some(row.1.to_owned())),
            column(&|_, _| None),
            Values::Time(rows.iter().map(|row| Some(T0_MS + row.3)).collect()),
            Values::Time(
                rows.iter()
                    .map(|row| row.4.map(|end| T0_MS + end))
                    .collect(),
            ),
            column(&|_, row| Some(row.2.to_owned())),
            column(&|_, row| row.5.map(str::to_owned)),
            column(&|_, row| Some(row.6.to_owned())),
            column(&|_, row| row.7.map(str::to_owned)),
            column(&|_, _| None),
            column(&|_, row| row.8.map(str::to_owned)),
            column(&|_, row| row.9.map(str::to_owned)),
            column(&|_, row| (row.1 == "GENERATION").then(|| "gpt-4o".to_owned())),
            Values::Map(rows.iter().map(|row| row.10.to_vec()).collect()),
        ],
    }
}

/// A LangSmith run: `(trace, run_type, name, start s, end s, inputs, outputs, error, usage)`.
type LangSmithRun = (
    &'static str,
    &'static str,
    &'static str,
    i64,
    Option<i64>,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
    RunUsage,
);

/// A run's model as its `extra.metadata.ls_model_name` names it, and its `prompt_tokens`,
/// `completion_tokens` and `total_tokens`.
type RunUsage = (Option<&'static str>, [Option<i64>; 3]);

/// A run that records no tokens.
const NO_TOKENS: RunUsage = (None, [None, None, None]);

#[expect(
    clippy::too_many_lines,
    reason = "a table of rows, one a line as rustfmt writes them"
)]
fn runs() -> Vec<LangSmithRun> {
    vec![
        (
            "0195f0a1-aaaa-7000-8000-000000000001",
            "chain",
            "AgentExecutor",
            0,
            Some(9),
            Some(r#"{"input":"refund order 42"}"#),
            Some(r#"{"output":"refunded"}"#),
            None,
            (None, [Some(712), Some(59), Some(771)]),
        ),
        (
            "0195f0a1-aaaa-7000-8000-000000000001",
            "llm",
            "ChatOpenAI",
            1,
            Some(2),
            Some(r#"{"messages":[]}"#),
            Some(r#"{"llm_output":{"model_name":"gpt-4o-mini-2024-07-18"}}"#),
            None,
            (Some("gpt-4o-mini"), [Some(310), Some(28), Some(338)]),
        ),
        (
            "0195f0a1-aaaa-7000-8000-000000000001",
            "tool",
            "lookup_order",
            3,
            Some(4),
            Some(r#"{"order_id":42}"#),
            Some(r#"{"output":{"status":"delivered","total":19.5}}"#),
            None,
            NO_TOKENS,
        ),
        (
            "0195f0a1-aaaa-7000-8000-000000000001",
            "llm",
            "ChatOpenAI",
            5,
            Some(6),
            Some(r#"{"messages":[]}"#),
            None,
            None,
            (Some("gpt-4o-mini"), [Some(402), Some(31), Some(433)]),
        ),
        (
            "0195f0a1-aaaa-7000-8000-000000000001",
            "tool",
            "refund",
            7,
            Some(8),
            Some(r#"{"order_id":42,"amount":19.5}"#),
            None,
            Some("PaymentError: card expired"),
            NO_TOKENS,
        ),
        (
            "0195f0a1-bbbb-7000-8000-000000000002",
            "llm",
            "ChatAnthropic",
            20,
            Some(21),
            None,
            None,
            None,
            (
                Some("claude-sonnet-4-20250514"),
                [Some(1210), Some(64), Some(1274)],
            ),
        ),
        (
            "0195f0a1-bbbb-7000-8000-000000000002",
            "tool",
            "search_docs",
            22,
            Some(23),
            Some(r#"{"input":"reset password"}"#),
            Some(r#"{"output":"Open Settings, then Security."}"#),
            None,
            NO_TOKENS,
        ),
        (
            "0195f0a1-bbbb-7000-8000-000000000002",
            "tool",
            "search_docs",
            24,
            None,
            Some("reset 2fa, not JSON"),
            None,
            None,
            NO_TOKENS,
        ),
        // A total alone says nothing of input and output: it adds no usage. It starts
        // after the trace's last tool, so no step changes.
        (
            "0195f0a1-aaaa-7000-8000-000000000001",
            "llm",
            "ChatOpenAI",
            8,
            Some(9),
            Some(r#"{"messages":[]}"#),
            None,
            None,
            (Some("gpt-4o-mini"), [None, None, Some(120)]),
        ),
    ]
}

fn langsmith_rows() -> Table {
    let rows = runs();
    // 2025-06-01T10:00:00Z in microseconds.
    let t0 = T0_MS * 1_000;
    let column = |f: &dyn Fn(usize, &LangSmithRun) -> Option<String>| texts(&rows, f);
    let count = |which: usize| Values::Count(rows.iter().map(|row| row.8.1[which]).collect());
    Table {
        schema: LANGSMITH.to_owned(),
        columns: vec![
            column(&|i, row| Some(format!("{}-{i:02}", &row.0[..24]))),
            column(&|_, row| Some(row.0.to_owned())),
            column(&|_, row| (row.1 != "chain").then(|| format!("{}-00", &row.0[..24]))),
            column(&|i, _| Some(format!("20250601T100000000000Z.{i:02}"))),
            column(&|_, _| Some("5b4c2d10-0000-4000-8000-00000000cafe".to_owned())),
            column(&|_, row| Some(row.2.to_owned())),
            column(&|_, row| Some(row.1.to_owned())),
            column(&|_, row| Some(if row.7.is_some() { "error" } else { "success" }.to_owned())),
            Values::Time(
                rows.iter()
                    .map(|row| Some(t0 + row.3 * 1_000_000))
                    .collect(),
            ),
            Values::Time(
                rows.iter()
                    .map(|row| row.4.map(|end| t0 + end * 1_000_000))
                    .collect(),
            ),
            column(&|_, row| row.5.map(str::to_owned)),
            column(&|_, row| row.6.map(str::to_owned)),
            column(&|_, row| row.7.map(str::to_owned)),
            column(&|_, row| Some(extra(row.8.0))),
            count(0),
            count(1),
            count(2),
        ],
    }
}

/// A run's `extra`: its provider, and the model it asked for when it names one.
fn extra(model: Option<&str>) -> String {
    match model {
        Some(model) => {
            let provider = if model.starts_with("claude") {
                "anthropic"
            } else {
                "openai"
            };
            format!(r#"{{"metadata":{{"ls_model_name":"{model}","ls_provider":"{provider}"}}}}"#)
        }
        None => r#"{"metadata":{"ls_provider":"openai"}}"#.to_owned(),
    }
}

/// Writes `table` with zstd, `rows_per_group` rows to a row group.
fn write(path: &Path, table: &Table, rows_per_group: Option<usize>) -> Result<(), String> {
    let bytes = encode(
        table,
        rows_per_group,
        Compression::ZSTD(ZstdLevel::default()),
    )?;
    save(path, &bytes)
}

fn save(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The Parquet bytes of `table`.
fn encode(
    table: &Table,
    rows_per_group: Option<usize>,
    compression: Compression,
) -> Result<Vec<u8>, String> {
    let schema = Arc::new(parse_message_type(&table.schema).map_err(|e| e.to_string())?);
    let rows = table.columns.first().map_or(0, Values::len);
    let per_group = rows_per_group.unwrap_or(rows).max(1);
    let properties = Arc::new(
        WriterProperties::builder()
            .set_compression(compression)
            .set_dictionary_enabled(false)
            .build(),
    );
    let mut out = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut out, schema.clone(), properties)
        .map_err(|e| e.to_string())?;
    let mut start = 0;
    while start < rows {
        let end = (start + per_group).min(rows);
        write_group(&mut writer, &schema, &table.columns, start..end)?;
        start = end;
    }
    writer.close().map_err(|e| e.to_string())?;
    Ok(out)
}

/// Writes the rows `range` of `columns`, in the order of `schema`'s fields, as one row group.
fn write_group<W: Write + Send>(
    writer: &mut SerializedFileWriter<W>,
    schema: &Type,
    columns: &[Values],
    range: Range<usize>,
) -> Result<(), String> {
    let mut group = writer.next_row_group().map_err(|e| e.to_string())?;
    for (field, values) in schema.get_fields().iter().zip(columns) {
        let optional = field.is_optional();
        match values {
            Values::Text(values) => {
                let part = values.get(range.clone()).unwrap_or_default();
                let part = part.iter().map(|v| v.clone().map(ByteArray::from));
                write_leaf::<ByteArrayType>(&mut group, part, optional)?;
            }
            Values::Time(values) | Values::Count(values) => {
                let part = values.get(range.clone()).unwrap_or_default();
                write_leaf::<Int64Type>(&mut group, part.iter().copied(), optional)?;
            }
            Values::Map(rows) => {
                // A required map: an entry is at definition level 1, and each row's first
                // entry (or its empty map) at repetition level 0.
                let (mut definition, mut repetition) = (Vec::new(), Vec::new());
                let (mut keys, mut numbers) = (Vec::new(), Vec::new());
                for entries in rows.get(range.clone()).unwrap_or_default() {
                    if entries.is_empty() {
                        definition.push(0);
                        repetition.push(0);
                    }
                    for (index, (key, number)) in entries.iter().enumerate() {
                        definition.push(1);
                        repetition.push(i16::from(index > 0));
                        keys.push(ByteArray::from(*key));
                        numbers.push(*number);
                    }
                }
                let levels = (&definition[..], &repetition[..]);
                write_levels::<ByteArrayType>(&mut group, &keys, levels)?;
                write_levels::<Int64Type>(&mut group, &numbers, levels)?;
            }
        }
    }
    group.close().map_err(|e| e.to_string())?;
    Ok(())
}

/// Writes the next leaf column, not repeated: `values` in row order, `None` a null.
fn write_leaf<T: DataType>(
    group: &mut SerializedRowGroupWriter<'_, impl Write + Send>,
    values: impl Iterator<Item = Option<T::T>>,
    optional: bool,
) -> Result<(), String> {
    let values: Vec<Option<T::T>> = values.collect();
    let present: Vec<T::T> = values.iter().flatten().cloned().collect();
    let levels: Vec<i16> = values.iter().map(|v| i16::from(v.is_some())).collect();
    let Some(mut column) = group.next_column().map_err(|e| e.to_string())? else {
        return Err("fewer columns in the schema than values".to_owned());
    };
    column
        .typed::<T>()
        .write_batch(&present, optional.then_some(&levels[..]), None)
        .map_err(|e| e.to_string())?;
    column.close().map_err(|e| e.to_string())
}

/// Writes the next leaf column with its definition and repetition levels.
fn write_levels<T: DataType>(
    group: &mut SerializedRowGroupWriter<'_, impl Write + Send>,
    values: &[T::T],
    (definition, repetition): (&[i16], &[i16]),
) -> Result<(), String> {
    let Some(mut column) = group.next_column().map_err(|e| e.to_string())? else {
        return Err("fewer columns in the schema than values".to_owned());
    };
    column
        .typed::<T>()
        .write_batch(values, Some(definition), Some(repetition))
        .map_err(|e| e.to_string())?;
    column.close().map_err(|e| e.to_string())
}

/// The same rows as the JSON Lines export writes them: Langfuse's blob storage export
/// (`trace_id`, `start_time` as `YYYY-MM-DD HH:MM:SS.ffffff`, `input` and `output` as
/// text), or LangSmith runs as its SDK dumps them (`inputs` and `outputs` as objects).
fn write_lines(path: &Path, table: &Table, langfuse: bool) -> Result<(), String> {
    let names: Vec<String> = parse_message_type(&table.schema)
        .map_err(|e| e.to_string())?
        .get_fields()
        .iter()
        .map(|field| field.name().to_owned())
        .collect();
    let rows = table.columns.first().map_or(0, Values::len);
    let mut out = String::new();
    for row in 0..rows {
        let mut object = serde_json::Map::new();
        for (name, values) in names.iter().zip(&table.columns) {
            let value = match values {
                Values::Text(values) => match values.get(row).cloned().flatten() {
                    None => serde_json::Value::Null,
                    Some(bytes) => {
                        let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
                        let object_field =
                            !langfuse && ["inputs", "outputs", "extra"].contains(&name.as_str());
                        match serde_json::from_str::<serde_json::Value>(&text) {
                            Ok(parsed) if object_field || (langfuse && name == "metadata") => {
                                parsed
                            }
                            _ => serde_json::Value::String(text),
                        }
                    }
                },
                Values::Time(values) => match values.get(row).copied().flatten() {
                    None => serde_json::Value::Null,
                    Some(time) => {
                        let micros = if langfuse { time * 1_000 } else { time };
                        serde_json::Value::String(civil(micros, langfuse))
                    }
                },
                Values::Count(values) => values
                    .get(row)
                    .copied()
                    .flatten()
                    .map_or(serde_json::Value::Null, serde_json::Value::from),
                Values::Map(values) => serde_json::Value::Object(
                    values
                        .get(row)
                        .into_iter()
                        .flatten()
                        .map(|(key, number)| ((*key).to_owned(), serde_json::Value::from(*number)))
                        .collect(),
                ),
            };
            object.insert(name.clone(), value);
        }
        out.push_str(&serde_json::Value::Object(object).to_string());
        out.push('\n');
    }
    save(path, out.as_bytes())
}

/// A time in microseconds since the epoch as civil UTC text, to the microsecond:
/// `2025-06-01 10:00:00.000000` (`spaced`) or `2025-06-01T10:00:00.000000`.
fn civil(micros: i64, spaced: bool) -> String {
    let seconds = micros.div_euclid(1_000_000);
    let fraction = micros.rem_euclid(1_000_000);
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    // Civil date from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let separator = if spaced { ' ' } else { 'T' };
    format!(
        "{year:04}-{month:02}-{day:02}{separator}{:02}:{:02}:{:02}.{fraction:06}",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// The `bad-parquet-*` fixtures' files: each breaks one rule of docs/robustness.md#parquet.
fn bad(fixtures: &Path) -> Result<(), String> {
    let good = encode(
        &langsmith_rows(),
        Some(3),
        Compression::ZSTD(ZstdLevel::default()),
    )?;
    // Cut short: the footer, which holds the metadata, is gone.
    save(
        &fixtures.join("bad-parquet-truncated/runs.parquet"),
        &good[..good.len() / 2],
    )?;
    // No `trace_id` column.
    let mut missing = langsmith_rows();
    "message runs {
  required binary id (STRING);
  required binary name (STRING);
  required binary run_type (STRING);
  required int64 start_time (TIMESTAMP(MICROS,true));
}"
    .clone_into(&mut missing.schema);
    missing.columns = vec![
        missing.columns.remove(0),
        missing.columns.remove(4),
        missing.columns.remove(4),
        missing.columns.remove(5),
    ];
    write(
        &fixtures.join("bad-parquet-missing-column/runs.parquet"),
        &missing,
        None,
    )?;
    // `start_time` as a plain INT64, not a timestamp.
    let mut wrong = langsmith_rows();
    wrong.schema = LANGSMITH.replace("start_time (TIMESTAMP(MICROS,true))", "start_time");
    write(
        &fixtures.join("bad-parquet-wrong-type/runs.parquet"),
        &wrong,
        None,
    )?;
    // A tool's name that is not UTF-8, in the second row group.
    let mut latin1 = langsmith_rows();
    if let Some(Values::Text(names)) = latin1.columns.get_mut(5) {
        names[6] = Some(b"search_d\xf6cs".to_vec());
    }
    write(
        &fixtures.join("bad-parquet-not-utf8/runs.parquet"),
        &latin1,
        Some(3),
    )?;
    // One row group whose `inputs` hold 130 MiB uncompressed: a few kilobytes compressed.
    let mut large = langsmith_rows();
    if let Some(Values::Text(inputs)) = large.columns.get_mut(10) {
        let big = format!("{{\"blob\":\"{}\"}}", "a".repeat(65 << 20));
        inputs[2] = Some(big.clone().into_bytes());
        inputs[4] = Some(big.into_bytes());
    }
    write(
        &fixtures.join("bad-parquet-row-group-too-large/runs.parquet"),
        &large,
        None,
    )?;
    Ok(())
}

/// The rows of a row group of the measurement's export.
const GROUP: usize = 100_000;

/// The measurement's export: `calls` LangSmith tool runs, ten to a trace, as Parquet (row
/// groups of 100,000 calls, zstd) and as JSON Lines; with `usage`, each trace's calls come
/// after an `llm` run that records its tokens and names its model.
#[expect(
    clippy::too_many_lines,
    reason = "one pass writing both files, row group by row group"
)]
fn million(dir: &Path, calls: usize, usage: bool) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join("runs.parquet");
    let file =
        fs::File::create(&path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let schema = Arc::new(parse_message_type(LANGSMITH).map_err(|e| e.to_string())?);
    let properties = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .build(),
    );
    let mut writer =
        SerializedFileWriter::new(file, schema.clone(), properties).map_err(|e| e.to_string())?;
    let lines_path = dir.join("runs.jsonl");
    let lines_file = fs::File::create(&lines_path)
        .map_err(|e| format!("cannot write {}: {e}", lines_path.display()))?;
    let mut lines = std::io::BufWriter::new(lines_file);
    let t0 = T0_MS * 1_000;
    let tools = ["search", "fetch", "summarize", "lookup"];
    let mut call = 0;
    while call < calls {
        let end = (call + GROUP).min(calls);
        let mut table: Vec<Vec<Option<Vec<u8>>>> = vec![Vec::new(); 14];
        let (mut starts, mut ends) = (Vec::new(), Vec::new());
        let mut counts: [Vec<Option<i64>>; 3] = Default::default();
        for index in call..end {
            let trace = format!("trace-{:07}", index / 10);
            let start = t0 + i64::try_from(index).unwrap_or(0) * 1_000;
            let mut rows = Vec::new();
            if usage && index % 10 == 0 {
                // The model run, in the 500 µs between the trace's previous tool and its first.
                let prompt = 1_000 + i64::try_from(index % 7).unwrap_or(0);
                let line = serde_json::json!({
                    "id": format!("run-{index:08}-llm"),
                    "trace_id": trace,
                    "run_type": "llm",
                    "name": "ChatOpenAI",
                    "start_time": civil(start - 400, false),
                    "end_time": civil(start - 100, false),
                    "inputs": {"messages": []},
                    "outputs": {"llm_output": {"model_name": "gpt-4o-mini-2024-07-18"}},
                    "extra": {"metadata": {"ls_model_name": "gpt-4o-mini"}},
                    "prompt_tokens": prompt,
                    "completion_tokens": 50,
                    "total_tokens": prompt + 50,
                });
                rows.push((line, "llm", [Some(prompt), Some(50), Some(prompt + 50)]));
            }
            let name = tools[index % tools.len()];
            let line = serde_json::json!({
                "id": format!("run-{index:08}"),
                "trace_id": trace,
                "run_type": "tool",
                "name": name,
                "start_time": civil(start, false),
                "end_time": civil(start + 500, false),
                "inputs": {"query": format!("item {index}")},
                "outputs": {"output": format!("result {index}")},
            });
            rows.push((line, "tool", [None; 3]));
            for (line, kind, tokens) in rows {
                let field = |key: &str| line.get(key).map(ToString::to_string);
                let text = |key: &str| line.get(key).and_then(|v| v.as_str()).map(str::to_owned);
                let (run_start, run_end) = if kind == "llm" {
                    (start - 400, start - 100)
                } else {
                    (start, start + 500)
                };
                let row: [Option<String>; 14] = [
                    text("id"),
                    text("trace_id"),
                    None,
                    Some(format!("{index:08}")),
                    Some("session".to_owned()),
                    text("name"),
                    text("run_type"),
                    Some("success".to_owned()),
                    None,
                    None,
                    field("inputs"),
                    field("outputs"),
                    None,
                    field("extra"),
                ];
                for (column, value) in table.iter_mut().zip(row) {
                    column.push(value.map(String::into_bytes));
                }
                starts.push(Some(run_start));
                ends.push(Some(run_end));
                for (column, count) in counts.iter_mut().zip(tokens) {
                    column.push(count);
                }
                writeln!(lines, "{line}").map_err(|e| e.to_string())?;
            }
        }
        let rows = starts.len();
        let mut columns: Vec<Values> = table.into_iter().map(Values::Text).collect();
        columns[8] = Values::Time(starts);
        columns[9] = Values::Time(ends);
        columns.extend(counts.into_iter().map(Values::Count));
        write_group(&mut writer, &schema, &columns, 0..rows)?;
        call = end;
    }
    writer.close().map_err(|e| e.to_string())?;
    lines.flush().map_err(|e| e.to_string())?;
    suites(dir, usage)
}

/// The measurement's suites beside its export: `parquet.yaml` and `jsonl.yaml` score the same
/// runs from each file, and with `usage`, `budget.yaml` holds the Parquet runs to the largest
/// trace's tokens (1,006 in, 50 out), which each run's usage must be read to pass.
fn suites(dir: &Path, usage: bool) -> Result<(), String> {
    let graders = "    graders:
      - type: tool-correctness
        config:
          expected_tools: [search, fetch, summarize, lookup]
          threshold: 0.75
";
    let tool_calls = "      - type: tool-calls
        config:
          required:
            - name: \"^search$\"
          disallowed:
            - name: \"^delete\"
";
    let mut files = vec![
        (
            "parquet.yaml",
            format!(
                "tests:\n  - name: a million tool runs\n    traces: runs.parquet\n{graders}{tool_calls}"
            ),
        ),
        (
            "jsonl.yaml",
            format!(
                "tests:\n  - name: a million tool runs\n    traces: runs.jsonl\n{graders}{tool_calls}"
            ),
        ),
    ];
    if usage {
        files.push((
            "budget.yaml",
            format!(
                "tests:\n  - name: a million tool runs within a token budget\n    traces: runs.parquet\n{graders}      - type: budget\n        config:\n          max_input_tokens: 1006\n          max_output_tokens: 50\n"
            ),
        ));
    }
    for (name, text) in files {
        let path = dir.join(name);
        fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}
