//! Issue 41's measurement: other JSON parsers than the floor's on the same JSON Lines file,
//! so that `cargo xtask instructions` counts what each costs beside the floor
//! (docs/performance.md#simd-readers-issue-41). Each program reads the file line by line
//! through a 64 KiB `BufReader` on one thread, as `floor` does, parses each non-empty line,
//! then prints the number of lines parsed. No product crate depends on `sonic-rs` or
//! `simd-json`: only this program does.
//!
//! Usage: `readers PROGRAM FILE.jsonl`, PROGRAM one of [`PROGRAMS`]'s names.

use std::borrow::Cow;
use std::env;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::process::ExitCode;

use serde::Deserialize;
use serde::de::IgnoredAny;
use simd_json::prelude::TypedObjectValue as _;
use sonic_rs::JsonValueTrait as _;

/// The programs, each with what it does to a line (docs/performance.md says the same).
const PROGRAMS: &[(&str, &str)] = &[
    (
        "serde_json-calls",
        "serde_json into the call list's shape, `args` and `result` as `&RawValue`",
    ),
    (
        "sonic-ignored",
        "sonic-rs `from_slice::<IgnoredAny>` (skips with full validation)",
    ),
    (
        "sonic-value",
        "sonic-rs to an owned `Value`, numbers as text (`use_rawnumber`)",
    ),
    (
        "sonic-calls",
        "sonic-rs into the call list's shape, `args` and `result` as `LazyValue`",
    ),
    (
        "sonic-calls-value",
        "sonic-rs into the call list's shape, `args` and `result` as `Value` (`use_rawnumber`)",
    ),
    (
        "simd-tape",
        "simd-json `to_tape_with_buffers` on the line in place",
    ),
    (
        "simd-value",
        "simd-json `to_borrowed_value_with_buffers` on the line in place",
    ),
    (
        "simd-calls",
        "simd-json serde into the call list's shape, `args` and `result` as `BorrowedValue`",
    ),
];

/// One run of trailgate's own call list (docs/formats.md), as far as reading its calls goes:
/// the names and status as text, the step as a number, the arguments and result as `A`.
#[derive(Deserialize)]
struct Run<'a, A> {
    #[serde(borrow)]
    tool_calls: Vec<Call<'a, A>>,
}

#[derive(Deserialize)]
struct Call<'a, A> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    server: Option<Cow<'a, str>>,
    #[serde(default = "none")]
    args: Option<A>,
    #[serde(default = "none")]
    result: Option<A>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(default)]
    step: Option<u64>,
}

fn none<A>() -> Option<A> {
    None
}

impl<A> Run<'_, A> {
    /// A figure that depends on every field, so that no read is optimized away.
    fn weight(&self) -> usize {
        self.tool_calls
            .iter()
            .map(|call| {
                call.name.len()
                    + call.server.as_ref().map_or(0, |s| s.len())
                    + call.status.as_ref().map_or(0, |s| s.len())
                    + usize::from(call.args.is_some())
                    + usize::from(call.result.is_some())
                    + usize::try_from(call.step.unwrap_or(0)).unwrap_or(0)
            })
            .sum()
    }
}

fn main() -> ExitCode {
    match run() {
        Ok((lines, weight)) => {
            let mut stdout = std::io::stdout().lock();
            if writeln!(stdout, "{lines} {weight}").is_ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "readers: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(u64, usize), String> {
    let usage = || {
        let names: Vec<&str> = PROGRAMS.iter().map(|(name, _)| *name).collect();
        format!("usage: readers <{}> FILE.jsonl", names.join("|"))
    };
    let mut args = env::args_os().skip(1);
    let (Some(program), Some(path)) = (args.next(), args.next()) else {
        return Err(usage());
    };
    let program = program.to_string_lossy().into_owned();
    if !PROGRAMS.iter().any(|(name, _)| *name == program) {
        return Err(usage());
    }
    let file = File::open(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    // The line as bytes, not a `String`: every parser here checks UTF-8 itself, and
    // simd-json parses the line in place.
    let mut line = Vec::new();
    let mut buffers = simd_json::Buffers::default();
    let (mut lines, mut weight, mut number) = (0_u64, 0_usize, 0_u64);
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if read == 0 {
            return Ok((lines, weight));
        }
        number += 1;
        if line.trim_ascii().is_empty() {
            continue;
        }
        weight += parse(&program, &mut line, &mut buffers)
            .map_err(|e| format!("{}:{number}: {e}", path.display()))?;
        lines += 1;
    }
}

/// Parses one line with `program`; gives a figure that depends on what was read.
fn parse(
    program: &str,
    line: &mut [u8],
    buffers: &mut simd_json::Buffers,
) -> Result<usize, String> {
    let text = |e: &dyn std::fmt::Display| e.to_string();
    Ok(match program {
        "serde_json-calls" => serde_json::from_slice::<Run<'_, &serde_json::value::RawValue>>(line)
            .map_err(|e| text(&e))?
            .weight(),
        "sonic-ignored" => {
            sonic_rs::from_slice::<IgnoredAny>(line).map_err(|e| text(&e))?;
            1
        }
        "sonic-value" => {
            let mut de = sonic_rs::Deserializer::from_slice(line).use_rawnumber();
            let value: sonic_rs::Value = de.deserialize().map_err(|e| text(&e))?;
            de.end().map_err(|e| text(&e))?;
            usize::from(value.is_object())
        }
        "sonic-calls" => sonic_rs::from_slice::<Run<'_, sonic_rs::LazyValue<'_>>>(line)
            .map_err(|e| text(&e))?
            .weight(),
        "sonic-calls-value" => {
            let mut de = sonic_rs::Deserializer::from_slice(line).use_rawnumber();
            let run: Run<'_, sonic_rs::Value> = de.deserialize().map_err(|e| text(&e))?;
            de.end().map_err(|e| text(&e))?;
            run.weight()
        }
        "simd-tape" => simd_json::to_tape_with_buffers(line, buffers)
            .map_err(|e| text(&e))?
            .0
            .len(),
        "simd-value" => {
            let value =
                simd_json::to_borrowed_value_with_buffers(line, buffers).map_err(|e| text(&e))?;
            usize::from(value.is_object())
        }
        "simd-calls" => simd_json::serde::from_slice_with_buffers::<
            Run<'_, simd_json::BorrowedValue<'_>>,
        >(line, buffers)
        .map_err(|e| text(&e))?
        .weight(),
        _ => 0,
    })
}
