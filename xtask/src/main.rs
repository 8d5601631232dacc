//! Project automation, as one Rust binary: `cargo xtask <task>`.
//!
//! - `snapshots`: regenerate the golden reports of every fixture, then show what changed.
//! - `tidy`: check the crate layering and the workspace's conventions.
//! - `bench-data`, `bench`: the corpus of issue 8 and `trailgate check` against its floor
//!   (docs/performance.md).
//! - `instructions`: the instructions `trailgate check` executes against the floor's, counted
//!   by valgrind: a figure that does not drift with the machine's load.
//! - `fuzz-corpus`: rebuild the fuzz targets' seed corpus from the fixtures.
//! - `parquet-fixtures`: write the Parquet files of the `parquet-*`, `usage-*-parquet` and
//!   `bad-parquet-*` fixtures; `parquet-fixtures 1m [CALLS] [DIR] [--usage]` the export of
//!   the Parquet measurement.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod bench;
mod bench_data;
mod fuzz_corpus;
mod instructions;
mod parquet_fixtures;
mod tidy;

fn main() -> ExitCode {
    let task = env::args().nth(1);
    let result = match task.as_deref() {
        Some("snapshots") => snapshots(),
        Some("tidy") => tidy::check(&root()).map(|()| {
            say("tidy: the layering and conventions hold");
        }),
        Some("bench-data") => bench_data::command(&target(), &rest()),
        Some("bench") => bench::command(&root(), &target(), &rest()),
        Some("instructions") => instructions::command(&root(), &target(), &rest()),
        Some("fuzz-corpus") => fuzz_corpus::build(&root()),
        Some("parquet-fixtures") => parquet_fixtures::command(&root(), &rest()),
        _ => Err(
            "usage: cargo xtask <snapshots|tidy|bench-data|bench|instructions|fuzz-corpus|parquet-fixtures>"
                .to_owned(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            say(&format!("xtask: {message}"));
            ExitCode::FAILURE
        }
    }
}

#[expect(
    clippy::print_stderr,
    reason = "xtask talks to the developer on stderr"
)]
fn say(message: &str) {
    eprintln!("{message}");
}

#[expect(
    clippy::print_stdout,
    reason = "xtask prints its results, such as the bench table, on stdout"
)]
fn show(message: &str) {
    println!("{message}");
}

/// The arguments after the task's name.
fn rest() -> Vec<String> {
    env::args().skip(2).collect()
}

/// Cargo's target folder: `CARGO_TARGET_DIR` when set, else `target/` under the root.
fn target() -> PathBuf {
    env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from)
}

/// The workspace root: the folder above this crate.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Deletes every fixture's `.snap` files, reruns the golden test with insta writing what it
/// sees, and prints `git status` of `fixtures/`: the review is the diff.
fn snapshots() -> Result<(), String> {
    let root = root();
    let fixtures = root.join("fixtures");
    let mut removed = 0;
    for case in read_dir(&fixtures)? {
        let snapshots = case.join("snapshots");
        if !snapshots.is_dir() {
            continue;
        }
        for file in read_dir(&snapshots)? {
            let name = file.to_string_lossy();
            if name.ends_with(".snap") || name.ends_with(".snap.new") {
                fs::remove_file(&file).map_err(|e| format!("cannot remove {name}: {e}"))?;
                removed += 1;
            }
        }
    }
    say(&format!("removed {removed} snapshot files; regenerating"));
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let written = write_diff_reports(&root, &fixtures, &cargo)?;
    say(&format!(
        "wrote {written} reports of `diff`, `trend` and `compare` fixtures"
    ));
    let status = Command::new(cargo)
        .current_dir(&root)
        .args([
            "test",
            "--package",
            "trailgate-cli",
            "--test",
            "it",
            "--",
            "golden",
        ])
        .env("INSTA_UPDATE", "always")
        .env("INSTA_FORCE_PASS", "1")
        .env_remove("CI")
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("the golden test failed for a reason other than its snapshots".to_owned());
    }
    let status = Command::new("git")
        .current_dir(&root)
        .args(["status", "--short", "fixtures/"])
        .status()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("git status failed".to_owned())
    }
}

/// Writes again the reports that `diff`, `trend` and `compare` fixtures compare: each
/// `<case>/<name>.json` beside a folder `<case>/<name>/` (`base` and `head` for `diff`, `r1` ... for `trend`) is
/// what `trailgate check --format json` prints in that folder (or, where the folder has an
/// `args` file, `trailgate <args> --format json`), so a change to the JSON report reaches
/// them too (the golden test checks they are current).
fn write_diff_reports(root: &Path, fixtures: &Path, cargo: &str) -> Result<usize, String> {
    let status = Command::new(cargo)
        .current_dir(root)
        .args(["build", "--package", "trailgate-cli", "--bin", "trailgate"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("cannot build trailgate".to_owned());
    }
    let trailgate = target().join("debug").join("trailgate");
    let mut written = 0;
    for case in read_dir(fixtures)?.into_iter().filter(|case| case.is_dir()) {
        let sides = read_dir(&case)?
            .into_iter()
            .filter(|dir| dir.is_dir() && dir.with_extension("json").is_file());
        for dir in sides {
            let args: Vec<String> = match fs::read_to_string(dir.join("args")) {
                Ok(text) => text.lines().map(str::to_owned).collect(),
                Err(_) if dir.join("trailgate.yaml").is_file() => vec!["check".to_owned()],
                Err(_) => continue,
            };
            let output = Command::new(&trailgate)
                .current_dir(&dir)
                .args(&args)
                .args(["--format", "json"])
                .env_clear()
                .output()
                .map_err(|e| format!("cannot run trailgate: {e}"))?;
            if !matches!(output.status.code(), Some(0 | 1)) {
                return Err(format!(
                    "trailgate check failed in {}: {}",
                    dir.display(),
                    String::from_utf8_lossy(&output.stderr)
                ));
            }
            let report = dir.with_extension("json");
            fs::write(&report, &output.stdout)
                .map_err(|e| format!("cannot write {}: {e}", report.display()))?;
            written += 1;
        }
    }
    Ok(written)
}

fn read_dir(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    Ok(entries)
}
