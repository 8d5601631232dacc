//! What the fuzz targets share: each feeds arbitrary bytes to one of trailgate's parsers the
//! way the command-line tool does, and renders the diagnostic of a rejected input the way
//! the command-line tool prints it. An error is a fine outcome; only a panic, a hang, a
//! stack overflow or running out of memory is a finding.

use std::io::Cursor;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme};
use trailgate_expect::{ArgsMode, SuiteFile};
use trailgate_trace::{
    Naming, PartReader, ReadOptions, ValueRef, parse_accuracy_input, parse_run, read_trace,
    write_run,
};

/// Reads `data` as a trace file, once as a `.json` document and once as `.jsonl` lines;
/// `format` forces a format (as `trace_format:` does), `None` detects it. Every run read is
/// written back as `trailgate convert` writes it.
pub fn trace(format: Option<&str>, data: &[u8]) {
    let options = ReadOptions {
        format: format.map(str::to_owned),
        naming: Naming::Default,
    };
    for (file, lines) in [("trace.json", false), ("trace.jsonl", true)] {
        let mut out = Vec::new();
        let result = read_trace(file, Cursor::new(data), lines, &options, |run| {
            // Writing into memory cannot fail; a failure would be an error, not a finding.
            let _ = write_run(&run, file, &mut out);
        });
        if let Err(error) = result {
            render(&error);
        }
    }
}

/// Reads `data` as a `.parquet` trace, detected and then forced as each export, as
/// `trailgate check` reads one; every run read is written back as `trailgate convert` writes
/// it. A panic inside the `parquet` crate is caught by the reader and told as a corrupt
/// page (the user sees exit 2 and the diagnostic), so the fuzzer's aborting hook is kept
/// for every other panic only: a panic the reader does not catch is a finding.
pub fn parquet(data: &[u8]) {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(trailgate_trace::quiet_guarded_panics);
    for format in [None, Some("langfuse"), Some("langsmith")] {
        let options = ReadOptions {
            format: format.map(str::to_owned),
            naming: Naming::Default,
        };
        let result = PartReader::<&[u8]>::parquet_bytes("trace.parquet", data.to_vec(), &options)
            .and_then(|mut parts| {
                let mut out = Vec::new();
                while let Some(part) = parts.next_part()? {
                    for run in part.into_runs() {
                        // Writing into memory cannot fail.
                        let _ = write_run(&run?, "trace.parquet", &mut out);
                    }
                }
                parts.finish().map(|_| ())
            });
        if let Err(error) = result {
            render(&error);
        }
    }
}

/// Parses `data` as a suite file; the CLI reads suites as UTF-8 text, so other bytes are
/// rejected before the loader sees them.
pub fn suite(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = SuiteFile::new("trailgate.yaml", text.to_owned());
    if let Err(error) = file.parse() {
        render(&error);
    }
}

/// Reads the text before the input's first NUL byte as one value matcher in YAML, as a
/// grader's `args` holds one (`SuiteFile::parse_matcher`: the suite's checks of the text,
/// then the matcher's reader, which compiles regexes and schemas), or renders its
/// diagnostic. A matcher that compiles is matched against the JSON value after the NUL byte
/// (without one, `null`), in both `args_mode`s, and explained, on the value as the trace
/// reader keeps it (the text of a call's argument and of its result) and as parsed. The two
/// must agree, as `ValueRef` promises: a disagreement panics, a wrong answer found.
pub fn matcher(data: &[u8]) {
    let (yaml, json) = match data.iter().position(|&byte| byte == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b"null"[..]),
    };
    let Ok(yaml) = std::str::from_utf8(yaml) else {
        return;
    };
    let matcher = match SuiteFile::new("matcher.yaml", yaml.to_owned()).parse_matcher() {
        Ok(matcher) => matcher,
        Err(error) => {
            render(&error);
            return;
        }
    };
    // One JSON value and nothing else, so that it is the whole argument in the trace below.
    let Some((json, value)) = std::str::from_utf8(json)
        .ok()
        .and_then(|json| Some((json, serde_json::from_str::<serde_json::Value>(json).ok()?)))
    else {
        return;
    };
    let parsed = ValueRef::parsed(&value);
    let trace = format!(
        r#"{{"tool_calls": [{{"name": "f", "args": {{"v": {json}}}, "result": {json}}}]}}"#
    );
    for mode in [ArgsMode::Exact, ArgsMode::Subset] {
        let expected = matcher.matches(Some(parsed), mode);
        let _ = matcher.explain(Some(parsed), mode);
        let _ = matcher.matches(None, mode);
        let _ = matcher.explain(None, mode);
        // Read anew for each mode, so that each reads the text, not a parse left by the
        // mode before. A value nested near the parser's limit is refused inside the
        // trace: it is matched parsed only.
        let Ok(run) = parse_run("trace.json", &trace, 1) else {
            continue;
        };
        let Some(call) = run.calls.first() else {
            continue;
        };
        // The argument through the index of its call's members, the result read whole
        // (`null` is no result).
        let views = [
            ("argument", call.args_view().get("v")),
            ("result", call.result_view()),
        ];
        for (place, text) in views {
            let Some(text) = text else {
                continue;
            };
            assert_eq!(
                matcher.matches(Some(text), mode),
                expected,
                "{matcher} against {json}: the {place}'s text and the parse disagree ({mode:?})"
            );
            assert_eq!(
                matcher.explain(Some(text), mode).is_none(),
                expected,
                "{matcher} against {json}: explain and matches disagree on the {place} ({mode:?})"
            );
        }
    }
}

/// Parses `data` as the `accuracy` command's input and renders its result, as the command
/// does.
pub fn accuracy(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_accuracy_input("input.json", text) {
        Ok(input) => {
            // As `trailgate accuracy` does: an input past the pairing limits is refused,
            // not scored.
            if trailgate_core::check_pairing_size(input.expected.len(), input.actual.len()).is_ok()
            {
                let mut out = Vec::new();
                let _ = trailgate_report::render_seed_accuracy(&input, &mut out);
            }
        }
        Err(error) => render(&error),
    }
}

/// Merges the shard reports held in `data`, split at each NUL byte (each read in memory as
/// `trailgate merge` reads a file: as a stream, then again at each test's place), and renders the merged report as text and as JSON, as the command
/// does; or renders its diagnostic.
pub fn merge(data: &[u8]) {
    let files = data
        .split(|&byte| byte == 0)
        .enumerate()
        .map(|(index, bytes)| trailgate_report::ShardFile {
            name: format!("{}.json", index + 1),
            reader: std::io::Cursor::new(bytes),
        })
        .collect();
    match trailgate_report::merge_shards(files) {
        Ok(mut merged) => {
            let mut out = Vec::new();
            let _ = trailgate_report::render_merged_json(&mut merged, &mut out);
            let options = trailgate_report::TextOptions::with_color(false);
            let _ = trailgate_report::render_merged_text(&merged, options, &mut out);
        }
        Err(error) => render(&error),
    }
}

/// Compares the two reports held in `data`, split at its first NUL byte (without one, the
/// report with itself), each read in memory as `trailgate diff` reads a file, and renders the
/// diff in every format; or renders its diagnostic.
pub fn diff(data: &[u8]) {
    let (base, head) = match data.iter().position(|&byte| byte == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, data),
    };
    let file = |name: &str, bytes: &[u8]| trailgate_report::ReportFile {
        name: name.to_owned(),
        reader: Cursor::new(bytes.to_vec()),
    };
    match trailgate_report::diff_reports(file("base.json", base), file("head.json", head)) {
        Ok(diff) => {
            let mut out = Vec::new();
            let options = trailgate_report::TextOptions::with_color(true);
            let _ = trailgate_report::render_diff_text(&diff, options, &mut out);
            let _ = trailgate_report::render_diff_json(&diff, &mut out);
            let _ = trailgate_report::render_diff_markdown(&diff, &mut out);
            let _ = trailgate_report::render_diff_github(&diff, &mut out);
        }
        Err(error) => render(&error),
    }
}

/// Renders a diagnostic as `trailgate` prints it (see the CLI's `diagnostic.rs`): spans that
/// point outside their source would show here.
fn render(diagnostic: &dyn Diagnostic) {
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
        .with_width(100)
        .with_links(false);
    let mut out = String::new();
    let _ = handler.render_report(&mut out, diagnostic);
}
