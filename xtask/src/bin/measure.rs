//! Runs one program and reports what it cost, for `cargo xtask bench`: the wall time from
//! spawn to exit, and the peak resident set size of the child (from `getrusage` of the
//! waited-for children, which in this process is that one child and what it waited for).
//!
//! Usage: `measure OUT PROGRAM [ARGS...]`. The child's standard output goes to the file
//! OUT, its standard error is inherited. Prints `WALL_NANOS MAX_RSS_KIB EXIT_CODE` on one
//! line; the exit code is -1 when a signal ended the child.

use std::env;
use std::fs::File;
use std::io::Write;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use nix::sys::resource::{UsageWho, getrusage};

fn main() -> ExitCode {
    match run() {
        Ok(line) => {
            let mut stdout = std::io::stdout().lock();
            if writeln!(stdout, "{line}").is_ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "measure: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<String, String> {
    let mut args = env::args_os().skip(1);
    let usage = || "usage: measure OUT PROGRAM [ARGS...]".to_owned();
    let out = args.next().ok_or_else(usage)?;
    let program = args.next().ok_or_else(usage)?;
    let out = File::create(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let start = Instant::now();
    let status = Command::new(&program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let wall = start.elapsed();
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).map_err(|e| format!("getrusage: {e}"))?;
    Ok(format!(
        "{} {} {}",
        wall.as_nanos(),
        usage.max_rss(),
        status.code().unwrap_or(-1)
    ))
}
