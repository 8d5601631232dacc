//! The trace files real agents wrote (`tests/wild/`, origins in its `SOURCES.md` and
//! `more/SOURCES-all.md`), each read as `trailgate check` and `convert` read it: one snapshot
//! per file lists every call (step, server and name, status, arguments, result) or the
//! error. The snapshots were checked against the files by hand; a file in a format trailgate
//! does not read must end in the error that lists every format.

use std::fmt::Write as _;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use miette::Diagnostic;
use serde_json::Value;
use trailgate_trace::{FileLayout, ReadOptions, Run, TraceError, format_names, read_trace};

/// At most this many characters of an argument or result are shown: enough to check it.
const SHOWN: usize = 160;

#[test]
fn wild_files() {
    insta::glob!("../wild", "**/*.{json,jsonl,traj,yaml}", |path| {
        insta::assert_snapshot!(read(path));
    });
}

/// What trailgate reads from one file, as text to review.
fn read(path: &Path) -> String {
    let lines = FileLayout::from_path(path) == Some(FileLayout::JsonLines);
    let reader = BufReader::new(File::open(path).unwrap());
    let mut runs = Vec::new();
    match read_trace("file", reader, lines, &ReadOptions::default(), |run| {
        runs.push(run);
    }) {
        Ok(read) => {
            let mut text = format!("format: {}\n", read.format);
            if let Some(warning) = read.warning("file") {
                let _ = writeln!(text, "warning: {warning}");
            }
            for (index, run) in runs.iter().enumerate() {
                text.push_str(&show_run(index, run));
            }
            text
        }
        Err(error) => show_error(&error),
    }
}

fn show_run(index: usize, run: &Run) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "run {index}{}: {} calls",
        line(run.line),
        run.calls.len()
    );
    for call in &run.calls {
        let id = match &call.server {
            Some(server) => format!("{server} / {}", call.name),
            None => call.name.clone(),
        };
        let status = format!("{:?}", call.status).to_lowercase();
        let open = if call.completed { "" } else { " (no result)" };
        let _ = writeln!(text, "  step {} {id} {status}{open}", call.step);
        let _ = writeln!(text, "    args: {}", shorten(&call.args().to_string()));
        if let Some(raw) = &call.args_raw {
            let _ = writeln!(text, "    args_raw: {}", shorten(raw));
        }
        if let Some(result) = call.result() {
            let shown = match result {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let _ = writeln!(text, "    result: {}", shorten(&shown));
        }
    }
    text
}

fn line(line: Option<usize>) -> String {
    line.map(|line| format!(" (line {line})"))
        .unwrap_or_default()
}

/// The error's code and message; for a file of no known format, that every format was
/// tried.
fn show_error(error: &TraceError) -> String {
    let code = error
        .code()
        .map(|code| code.to_string())
        .unwrap_or_default();
    let mut text = format!("error: {code}\n{error}\n");
    if let TraceError::UnknownFormat { tried, .. } = error {
        let listed = format_names()
            .iter()
            .all(|name| tried.contains(&format!("`{name}`")));
        let _ = writeln!(text, "every format listed: {listed}");
    }
    text
}

/// The text on one line, cut after [`SHOWN`] characters.
fn shorten(text: &str) -> String {
    let flat = text.replace('\n', "\\n");
    match flat.char_indices().nth(SHOWN) {
        Some((at, _)) => format!("{}…", &flat[..at]),
        None => flat,
    }
}
