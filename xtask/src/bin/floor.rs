//! The floor of issue 8: a bare `serde_json` pass over a JSONL file that parses each
//! non-empty line into `serde::de::IgnoredAny`, then prints the number of lines parsed.
//! `cargo xtask bench` runs it beside `trailgate check` on the same file; their ratio of wall
//! times is the figure the issue sets a goal for (docs/performance.md).
//!
//! Usage: `floor FILE.jsonl`.

use std::env;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::process::ExitCode;

use serde::de::IgnoredAny;

fn main() -> ExitCode {
    match run() {
        Ok(lines) => {
            let mut stdout = std::io::stdout().lock();
            if writeln!(stdout, "{lines}").is_ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "floor: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<u64, String> {
    let path = env::args_os()
        .nth(1)
        .ok_or_else(|| "usage: floor FILE.jsonl".to_owned())?;
    let file = File::open(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut line = String::new();
    let mut lines = 0_u64;
    let mut number = 0_u64;
    loop {
        line.clear();
        let read = reader
            .read_line(&mut line)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if read == 0 {
            return Ok(lines);
        }
        number += 1;
        if line.trim().is_empty() {
            continue;
        }
        serde_json::from_str::<IgnoredAny>(&line)
            .map_err(|e| format!("{}:{number}: {e}", path.display()))?;
        lines += 1;
    }
}
