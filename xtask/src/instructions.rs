//! `cargo xtask instructions`: the instructions `trailgate check` executes in each report
//! format, one thread, against the floor's on the same corpus, counted by valgrind
//! (docs/performance.md); and, for issue 41, those of other JSON parsers (`readers`) and of
//! `trailgate convert` on the same corpus.
//!
//! Wall times on a shared machine drift with what else the host runs: the same binaries
//! measured 1.44 and 2.08 times the floor on two days. An instruction count does not drift
//! (two runs agree within 0.01 %), so it tells whether a change made the work smaller,
//! in one run each, where wall times need many alternated pairs; it does not see the cost
//! of memory or of waiting, which only the wall times of `cargo xtask bench` show.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::bench::{self, FORMATS};
use crate::bench_data::{self, DEFAULT_SEED};

/// The calls of the corpus counted by default: enough for the per-run and per-call costs
/// to outweigh start-up a hundredfold, few enough for valgrind's fiftyfold slowdown.
const DEFAULT_CALLS: u64 = 50_000;

/// The programs of `readers` counted beside the floor (issue 41), in the table's order.
const READERS: &[&str] = &[
    "serde_json-calls",
    "sonic-ignored",
    "sonic-value",
    "sonic-calls",
    "sonic-calls-value",
    "simd-tape",
    "simd-value",
    "simd-calls",
];

const USAGE: &str = "usage: cargo xtask instructions [--calls N] [--seed S] [--short] [--no-build]";

/// `cargo xtask instructions [--calls N] [--seed S] [--short] [--no-build]`.
pub(crate) fn command(root: &Path, target: &Path, args: &[String]) -> Result<(), String> {
    let (mut calls, mut seed, mut short, mut build) = (DEFAULT_CALLS, DEFAULT_SEED, false, true);
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--short" => short = true,
            "--no-build" => build = false,
            "--calls" | "--seed" => {
                let value = args
                    .next()
                    .ok_or_else(|| format!("`{flag}` needs a value; {USAGE}"))?;
                let value = bench_data::number(flag, value)?;
                if flag == "--calls" {
                    calls = value;
                } else {
                    seed = value;
                }
            }
            _ => return Err(format!("unknown flag `{flag}`; {USAGE}")),
        }
    }
    if Command::new("valgrind").arg("--version").output().is_err() {
        return Err(
            "valgrind is not installed: `apt-get install valgrind` (it counts the instructions)"
                .to_owned(),
        );
    }
    if build {
        bench::build_release(root)?;
    }
    let release = target.join("profiling");
    let data = bench_data::prepared("instructions", target, calls, seed, short)?;

    crate::say("instructions: the floor");
    let floor = count(
        &data.dir,
        &[
            bench::path_str(&release.join("floor"))?,
            bench::path_str(&data.corpus)?,
        ],
    )?;
    // Issue 41: other parsers on the same file (`xtask/src/bin/readers.rs`), then `trailgate
    // convert`, the nearest the command comes to its reader alone (it also writes each run).
    let mut parsers = Vec::new();
    for program in READERS {
        crate::say(&format!("instructions: readers {program}"));
        let command = [
            bench::path_str(&release.join("readers"))?,
            (*program).to_owned(),
            bench::path_str(&data.corpus)?,
        ];
        parsers.push((format!("readers {program}"), count(&data.dir, &command)?));
    }
    crate::say("instructions: trailgate convert");
    let convert = [
        bench::path_str(&release.join("trailgate"))?,
        "convert".to_owned(),
        bench::path_str(&data.corpus)?,
    ];
    parsers.push((
        "trailgate convert (reads and writes each run)".to_owned(),
        count(&data.dir, &convert)?,
    ));
    let mut rows = Vec::new();
    for format in FORMATS {
        crate::say(&format!("instructions: trailgate check --format {format}"));
        let command = [
            bench::path_str(&release.join("trailgate"))?,
            "check".to_owned(),
            bench::path_str(&data.suite)?,
            "--format".to_owned(),
            (*format).to_owned(),
            // One thread: with more, the count takes in how long workers waited for work.
            "--threads".to_owned(),
            "1".to_owned(),
        ];
        rows.push((*format, count(&data.dir, &command)?));
    }
    crate::show(&render(
        calls,
        data.bytes,
        &data.corpus,
        floor,
        &parsers,
        &rows,
    ));
    Ok(())
}

/// The instructions `command` executes, its standard output to a file beside the corpus
/// (removed after); its exit code must be one `trailgate check` gives on a finished check.
fn count(data: &Path, command: &[String]) -> Result<u64, String> {
    let out = data.join("instructions.out");
    let report =
        fs::File::create(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let output = Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
        ])
        .args(command)
        .stdout(report)
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    let _ = fs::remove_file(&out);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !matches!(output.status.code(), Some(0 | 1)) {
        return Err(format!(
            "`{}` exited with {:?} under valgrind: {}",
            command.join(" "),
            output.status.code(),
            stderr.trim()
        ));
    }
    instructions_in(&stderr).ok_or_else(|| {
        format!(
            "valgrind printed no instruction count for `{}`: {}",
            command.join(" "),
            stderr.trim()
        )
    })
}

/// The count of cachegrind's summary line, `==PID== I   refs:      544,876,111`.
fn instructions_in(stderr: &str) -> Option<u64> {
    stderr.lines().find_map(|line| {
        let (_, count) = line.split_once("I   refs:")?;
        count.trim().replace(',', "").parse().ok()
    })
}

fn render(
    calls: u64,
    bytes: u64,
    corpus: &Path,
    floor: u64,
    parsers: &[(String, u64)],
    rows: &[(&str, u64)],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\ncorpus   {}: {} calls, {:.1} MiB; instructions counted by valgrind (cachegrind), one thread",
        corpus.display(),
        bench::grouped(bench::u64_f64(calls)),
        bench::mib(bytes),
    );
    let _ = writeln!(
        out,
        "\n| program | instructions | per call | ratio to the floor |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|");
    let per_call =
        |count: u64| bench::grouped(bench::u64_f64(count) / bench::u64_f64(calls.max(1)));
    let _ = writeln!(
        out,
        "| floor (serde_json IgnoredAny) | {} | {} | 1 |",
        bench::grouped(bench::u64_f64(floor)),
        per_call(floor)
    );
    let ratio = |count: u64| bench::u64_f64(count) / bench::u64_f64(floor.max(1));
    for (program, count) in parsers {
        let _ = writeln!(
            out,
            "| {program} | {} | {} | {:.3} |",
            bench::grouped(bench::u64_f64(*count)),
            per_call(*count),
            ratio(*count)
        );
    }
    for (format, count) in rows {
        let _ = writeln!(
            out,
            "| trailgate check --format {format} --threads 1 | {} | {} | {:.3} |",
            bench::grouped(bench::u64_f64(*count)),
            per_call(*count),
            ratio(*count)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_is_read_off_cachegrinds_summary_line() {
        let stderr = "==8439== Command: trailgate check trailgate.yaml --threads 1\n==8439== \n\
                      --8439-- warning: L3 cache found, using its data for the LL simulation.\n\
                      ==8439== I   refs:      544,876,111\n";
        assert_eq!(instructions_in(stderr), Some(544_876_111));
        assert_eq!(instructions_in("==1== I   refs:      12\n"), Some(12));
        assert_eq!(instructions_in("==1== ERROR SUMMARY: 0 errors\n"), None);
        assert_eq!(instructions_in("==1== I   refs:      n/a\n"), None);
    }

    #[test]
    fn the_table_gives_each_format_its_ratio_to_the_floor() {
        let table = render(
            50_000,
            15 << 20,
            Path::new("corpus.jsonl"),
            257_000_000,
            &[("readers sonic-ignored".to_owned(), 77_100_000)],
            &[("text", 544_500_000), ("json", 872_000_000)],
        );
        assert!(
            table.contains("| floor (serde_json IgnoredAny) | 257,000,000 | 5,140 | 1 |"),
            "{table}"
        );
        assert!(
            table.contains(
                "| trailgate check --format text --threads 1 | 544,500,000 | 10,890 | 2.119 |"
            ),
            "{table}"
        );
        assert!(
            table.contains(
                "| trailgate check --format json --threads 1 | 872,000,000 | 17,440 | 3.393 |"
            ),
            "{table}"
        );
        assert!(
            table.contains("| readers sonic-ignored | 77,100,000 | 1,542 | 0.300 |"),
            "{table}"
        );
        assert!(table.contains("50,000 calls, 15.0 MiB"), "{table}");
    }
}
