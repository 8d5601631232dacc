//! `cargo xtask parquet-fixtures`: writes the Parquet files of the `parquet-*` and
//! `bad-parquet-*` fixtures with the `parquet` crate, in the columns of Langfuse's
//! observations export and LangSmith's runs export (docs/formats.md#parquet-exports), so
//! that they can be made again and read in review here.
//!
//! `parquet-1m`, with a count, writes the measurement's export instead: that many LangSmith
//! tool runs as Parquet and the same runs as JSON Lines (docs/performance.md#parquet).

use std::fs;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use parquet::basic::{Compression, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

/// One column's values, in row order; `None` is a null.
enum Values {
    Text(Vec<Option<Vec<u8>>>),
    Time(Vec<Option<i64>>),
}

/// A table to write: its schema (Parquet's message syntax) and its columns in schema order.
struct Table {
    schema: &'static str,
    columns: Vec<Values>,
}

/// Langfuse's observations export (`observations/`), in the columns its field reference
/// lists, as `ClickHouse` writes them: strings, and timestamps in milliseconds.
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
}";

/// LangSmith's bulk export of runs, in the fields of its run data format: strings (JSON
/// text for `inputs`, `outputs`, `extra`), timestamps in microseconds.
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
}";

/// 2025-06-01T10:00:00Z in milliseconds.
const T0_MS: i64 = 1_748_772_000_000;

pub(crate) fn command(root: &Path, args: &[String]) -> Result<(), String> {
    if args.first().map(String::as_str) == Some("1m") {
        let calls = args
            .get(1)
            .map_or(Ok(1_000_000), |count| count.parse::<usize>())
            .map_err(|e| format!("the count of calls: {e}"))?;
        let dir = args
            .get(2)
            .map_or_else(|| root.join("target").join("parquet-1m"), Into::into);
        return million(&dir, calls);
    }
    if let Some(other) = args.first() {
        return Err(format!(
            "unknown argument `{other}`: `cargo xtask parquet-fixtures` rewrites the fixtures' \
             Parquet files; `cargo xtask parquet-fixtures 1m [CALLS] [DIR]` writes a large \
             export (CALLS calls, 1000000 unless given)"
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
    let langsmith = langsmith_rows();
    write(
        &fixtures.join("parquet-langsmith-runs/traces/runs.parquet"),
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
/// message, input, output)`.
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
);

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
        ),
        (
            "t-search", "EVENT", "log", 2_500, None, None, "DEBUG", None, None, None,
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
        ),
    ]
}

fn langfuse_rows() -> Table {
    let rows = observations();
    let column = |f: &dyn Fn(usize, &Observation) -> Option<String>| {
        Values::Text(
            rows.iter()
                .enumerate()
                .map(|(i, row)| f(i, row).map(String::into_bytes))
                .collect(),
        )
    };
    Table {
        schema: LANGFUSE,
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
        ],
    }
}

/// A LangSmith run: `(trace, run_type, name, start s, end s, inputs, outputs, error)`.
type LangSmithRun = (
    &'static str,
    &'static str,
    &'static str,
    i64,
    Option<i64>,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
);

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
        ),
        (
            "0195f0a1-aaaa-7000-8000-000000000001",
            "llm",
            "ChatOpenAI",
            1,
            Some(2),
            Some(r#"{"messages":[]}"#),
            None,
            None,
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
        ),
    ]
}

fn langsmith_rows() -> Table {
    let rows = runs();
    // 2025-06-01T10:00:00Z in microseconds.
    let t0 = T0_MS * 1_000;
    let column = |f: &dyn Fn(usize, &LangSmithRun) -> Option<String>| {
        Values::Text(
            rows.iter()
                .enumerate()
                .map(|(i, row)| f(i, row).map(String::into_bytes))
                .collect(),
        )
    };
    Table {
        schema: LANGSMITH,
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
            column(&|_, _| Some(r#"{"metadata":{"ls_provider":"openai"}}"#.to_owned())),
        ],
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
    let schema = Arc::new(parse_message_type(table.schema).map_err(|e| e.to_string())?);
    let rows = match table.columns.first() {
        Some(Values::Text(values)) => values.len(),
        Some(Values::Time(values)) => values.len(),
        None => 0,
    };
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
    let fields = schema.get_fields();
    let mut start = 0;
    while start < rows {
        let end = (start + per_group).min(rows);
        let mut group = writer.next_row_group().map_err(|e| e.to_string())?;
        for (index, values) in table.columns.iter().enumerate() {
            let optional = fields.get(index).is_some_and(|field| field.is_optional());
            let Some(mut column) = group.next_column().map_err(|e| e.to_string())? else {
                return Err("fewer columns in the schema than values".to_owned());
            };
            match values {
                Values::Text(values) => {
                    let part = &values[start..end];
                    let present: Vec<ByteArray> = part
                        .iter()
                        .flatten()
                        .map(|v| ByteArray::from(v.clone()))
                        .collect();
                    let levels: Vec<i16> = part.iter().map(|v| i16::from(v.is_some())).collect();
                    column
                        .typed::<ByteArrayType>()
                        .write_batch(&present, optional.then_some(&levels[..]), None)
                        .map_err(|e| e.to_string())?;
                }
                Values::Time(values) => {
                    let part = &values[start..end];
                    let present: Vec<i64> = part.iter().flatten().copied().collect();
                    let levels: Vec<i16> = part.iter().map(|v| i16::from(v.is_some())).collect();
                    column
                        .typed::<Int64Type>()
                        .write_batch(&present, optional.then_some(&levels[..]), None)
                        .map_err(|e| e.to_string())?;
                }
            }
            column.close().map_err(|e| e.to_string())?;
        }
        group.close().map_err(|e| e.to_string())?;
        start = end;
    }
    writer.close().map_err(|e| e.to_string())?;
    Ok(out)
}

/// The same rows as the JSON Lines export writes them: Langfuse's blob storage export
/// (`trace_id`, `start_time` as `YYYY-MM-DD HH:MM:SS.ffffff`, `input` and `output` as
/// text), or LangSmith runs as its SDK dumps them (`inputs` and `outputs` as objects).
fn write_lines(path: &Path, table: &Table, langfuse: bool) -> Result<(), String> {
    let names: Vec<String> = parse_message_type(table.schema)
        .map_err(|e| e.to_string())?
        .get_fields()
        .iter()
        .map(|field| field.name().to_owned())
        .collect();
    let rows = match table.columns.first() {
        Some(Values::Text(values)) => values.len(),
        _ => 0,
    };
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
    missing.schema = "message runs {
  required binary id (STRING);
  required binary name (STRING);
  required binary run_type (STRING);
  required int64 start_time (TIMESTAMP(MICROS,true));
}";
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
    wrong.schema = LANGSMITH_INT_START;
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

/// [`LANGSMITH`] with `start_time` an INT64 without the timestamp annotation.
const LANGSMITH_INT_START: &str = "message runs {
  required binary id (STRING);
  required binary trace_id (STRING);
  optional binary parent_run_id (STRING);
  required binary dotted_order (STRING);
  required binary session_id (STRING);
  required binary name (STRING);
  required binary run_type (STRING);
  required binary status (STRING);
  required int64 start_time;
  optional int64 end_time (TIMESTAMP(MICROS,true));
  optional binary inputs (STRING);
  optional binary outputs (STRING);
  optional binary error (STRING);
  optional binary extra (STRING);
}";

/// The rows of a row group of the measurement's export.
const GROUP: usize = 100_000;

/// The measurement's export: `calls` LangSmith tool runs, ten to a trace with a model run
/// before each, as Parquet (row groups of 100,000 rows, zstd) and as JSON Lines.
#[expect(
    clippy::too_many_lines,
    reason = "one pass writing both files, row group by row group"
)]
fn million(dir: &Path, calls: usize) -> Result<(), String> {
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
        let mut starts = Vec::new();
        let mut ends = Vec::new();
        for index in call..end {
            let trace = format!("trace-{:07}", index / 10);
            let name = tools[index % tools.len()];
            let start = t0 + i64::try_from(index).unwrap_or(0) * 1_000;
            let inputs = format!("{{\"query\":\"item {index}\"}}");
            let outputs = format!("{{\"output\":\"result {index}\"}}");
            let row: [Option<String>; 14] = [
                Some(format!("run-{index:08}")),
                Some(trace.clone()),
                None,
                Some(format!("{index:08}")),
                Some("session".to_owned()),
                Some(name.to_owned()),
                Some("tool".to_owned()),
                Some("success".to_owned()),
                None,
                None,
                Some(inputs.clone()),
                Some(outputs.clone()),
                None,
                None,
            ];
            for (column, value) in table.iter_mut().zip(row) {
                column.push(value.map(String::into_bytes));
            }
            starts.push(Some(start));
            ends.push(Some(start + 500));
            let line = serde_json::json!({
                "id": format!("run-{index:08}"),
                "trace_id": trace,
                "run_type": "tool",
                "name": name,
                "start_time": civil(start, false),
                "end_time": civil(start + 500, false),
                "inputs": serde_json::from_str::<serde_json::Value>(&inputs).map_err(|e| e.to_string())?,
                "outputs": serde_json::from_str::<serde_json::Value>(&outputs).map_err(|e| e.to_string())?,
            });
            writeln!(lines, "{line}").map_err(|e| e.to_string())?;
        }
        let mut columns: Vec<Values> = table.into_iter().map(Values::Text).collect();
        columns[8] = Values::Time(starts);
        columns[9] = Values::Time(ends);
        let mut group = writer.next_row_group().map_err(|e| e.to_string())?;
        for (index, values) in columns.iter().enumerate() {
            let optional = schema
                .get_fields()
                .get(index)
                .is_some_and(|field| field.is_optional());
            let Some(mut column) = group.next_column().map_err(|e| e.to_string())? else {
                return Err("fewer columns in the schema than values".to_owned());
            };
            match values {
                Values::Text(values) => {
                    let present: Vec<ByteArray> = values
                        .iter()
                        .flatten()
                        .map(|v| ByteArray::from(v.clone()))
                        .collect();
                    let levels: Vec<i16> = values.iter().map(|v| i16::from(v.is_some())).collect();
                    column
                        .typed::<ByteArrayType>()
                        .write_batch(&present, optional.then_some(&levels[..]), None)
                        .map_err(|e| e.to_string())?;
                }
                Values::Time(values) => {
                    let present: Vec<i64> = values.iter().flatten().copied().collect();
                    let levels: Vec<i16> = values.iter().map(|v| i16::from(v.is_some())).collect();
                    column
                        .typed::<Int64Type>()
                        .write_batch(&present, optional.then_some(&levels[..]), None)
                        .map_err(|e| e.to_string())?;
                }
            }
            column.close().map_err(|e| e.to_string())?;
        }
        group.close().map_err(|e| e.to_string())?;
        call = end;
    }
    writer.close().map_err(|e| e.to_string())?;
    lines.flush().map_err(|e| e.to_string())?;
    Ok(())
}
