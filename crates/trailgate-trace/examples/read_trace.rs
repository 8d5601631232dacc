//! Parse-only timing of issue 8 (docs/performance.md): reads a trace file with
//! [`trailgate_trace::read_trace`], scores nothing, and prints the runs and calls read. Run
//! it beside the floor (`xtask/src/bin/floor.rs`) on the benchmark corpus:
//!
//! ```console
//! $ cargo build --release -p trailgate-trace --example read_trace
//! $ target/release/measure /dev/null target/release/examples/read_trace \
//!     target/bench-data/calls-1000000/corpus.jsonl
//! ```
//!
//! Usage: `read_trace FILE`; a `.jsonl` file is read one line at a time.

use std::env;
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::Path;
use std::process::ExitCode;

use trailgate_trace::{FileLayout, ReadOptions, read_trace};

fn main() -> ExitCode {
    let Some(path) = env::args().nth(1) else {
        let _ = writeln!(std::io::stderr(), "usage: read_trace FILE");
        return ExitCode::from(2);
    };
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "read_trace: cannot open {path}: {error}");
            return ExitCode::from(2);
        }
    };
    let lines = FileLayout::from_path(Path::new(&path)) == Some(FileLayout::JsonLines);
    let (mut runs, mut calls) = (0_u64, 0_u64);
    let read = read_trace(
        &path,
        BufReader::with_capacity(1 << 16, file),
        lines,
        &ReadOptions::default(),
        |run| {
            runs += 1;
            calls += run.calls.len() as u64;
        },
    );
    match read {
        Ok(read) => {
            let format = read.format;
            let _ = writeln!(std::io::stdout(), "{format}: {runs} runs, {calls} calls");
            if let Some(warning) = read.warning(&path) {
                let _ = writeln!(std::io::stderr(), "warning: {warning}");
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "read_trace: {error}");
            ExitCode::from(2)
        }
    }
}
