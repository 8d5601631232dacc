//! `cargo xtask bench`: `trailgate check` in each report format against the floor of issue 8
//! on the same corpus, in one run, and the start-up time of a tiny suite
//! (docs/performance.md).
//!
//! Builds `trailgate` and the `floor` and `measure` programs in the `profiling` profile
//! (release with debug info), generates the corpus when it is missing, then runs the floor
//! and the check in turn, several times each, each under `measure` (wall time and peak RSS
//! of that child alone). Prints a table; nothing here asserts a figure.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::bench_data::{self, DEFAULT_CALLS, DEFAULT_SEED};

/// The report formats timed, in the table's order: adding a format is adding its line.
pub(crate) const FORMATS: &[&str] = &[
    "text",  // the default report, the one the 1.5 goal of issue 8 is about
    "json",  // issue 24: at most 2 times the floor, smaller than the corpus
    "jsonl", // issue 24: streamed as the runs are scored
    "html",  // issue 24: one self-contained page for people
];

const USAGE: &str = "usage: cargo xtask bench [--calls N] [--seed S] [--reps R] [--startup-reps R] [--no-build] [--short]";

/// What one child cost.
#[derive(Debug, Clone, Copy)]
struct Sample {
    wall: Duration,
    rss_kib: u64,
    code: i32,
}

/// The command line of `cargo xtask bench`.
#[derive(Debug)]
struct Options {
    calls: u64,
    seed: u64,
    reps: u64,
    startup_reps: u64,
    build: bool,
    short: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut options = Self {
            calls: DEFAULT_CALLS,
            seed: DEFAULT_SEED,
            reps: 5,
            startup_reps: 30,
            build: true,
            short: false,
        };
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            if flag == "--no-build" {
                options.build = false;
                continue;
            }
            if flag == "--short" {
                options.short = true;
                continue;
            }
            let value = args
                .next()
                .ok_or_else(|| format!("`{flag}` needs a value; {USAGE}"))?;
            match flag.as_str() {
                "--calls" => options.calls = bench_data::number(flag, value)?,
                "--seed" => options.seed = bench_data::number(flag, value)?,
                "--reps" => options.reps = bench_data::number(flag, value)?.max(1),
                "--startup-reps" => options.startup_reps = bench_data::number(flag, value)?.max(1),
                _ => return Err(format!("unknown flag `{flag}`; {USAGE}")),
            }
        }
        Ok(options)
    }
}

/// `cargo xtask bench [--calls N] [--seed S] [--reps R] [--startup-reps R] [--no-build]`.
pub(crate) fn command(root: &Path, target: &Path, args: &[String]) -> Result<(), String> {
    let Options {
        calls,
        seed,
        reps,
        startup_reps,
        build,
        short,
    } = Options::parse(args)?;
    if build {
        build_release(root)?;
    }
    // The release build with debug info (`[profile.profiling]`), so that `perf` can read
    // the same binaries the figures come from.
    let release = target.join("profiling");
    let trailgate = release.join("trailgate");
    let floor = release.join("floor");
    let measure = release.join("measure");

    let bench_data::Prepared {
        dir: data,
        corpus,
        suite,
        bytes,
    } = bench_data::prepared("bench", target, calls, seed, short)?;
    let floor_out = data.join("floor.out");
    let floor_cmd = [path_str(&floor)?, path_str(&corpus)?];
    let mut formats = timed_formats(&trailgate, &suite, &data)?;

    // One untimed pass of each brings the corpus into the page cache and checks that both
    // programs work.
    crate::say("bench: warming up");
    let warm = run(&measure, &floor_out, &floor_cmd)?;
    if warm.code != 0 {
        return Err(format!("the floor exited with {}", warm.code));
    }
    let runs = fs::read_to_string(&floor_out)
        .map_err(|e| format!("cannot read {}: {e}", floor_out.display()))?
        .trim()
        .to_owned();
    for timed in &mut formats {
        let warm = run(&measure, &timed.out, &timed.command)?;
        if !matches!(warm.code, 0 | 1) {
            return Err(format!(
                "trailgate check --format {} exited with {}: see its message above",
                timed.format, warm.code
            ));
        }
        timed.code = warm.code;
    }

    // Each repetition runs the floor, then every format, so that each format's ratio can
    // be paired with the floor of its own repetition.
    let mut floor_samples = Vec::new();
    for rep in 1..=reps {
        crate::say(&format!("bench: repetition {rep} of {reps}"));
        floor_samples.push(run(&measure, &floor_out, &floor_cmd)?);
        for timed in &mut formats {
            timed
                .samples
                .push(run(&measure, &timed.out, &timed.command)?);
        }
    }
    for timed in &mut formats {
        timed.bytes = fs::metadata(&timed.out).map_or(0, |m| m.len());
        // The large reports are only measured; the disk is not kept for them.
        if timed.format != "text" {
            let _ = fs::remove_file(&timed.out);
        }
    }

    crate::say("bench: start-up of the bundled fixture");
    let fixture = root.join("fixtures/seed-000-first-run/trailgate.yaml");
    let startup_cmd = [path_str(&trailgate)?, "check".into(), path_str(&fixture)?];
    let startup_out = data.join("startup.out");
    let mut startup_samples = Vec::new();
    for _ in 0..startup_reps {
        startup_samples.push(run(&measure, &startup_out, &startup_cmd)?);
    }

    let table = Table {
        calls,
        runs,
        bytes,
        corpus: &corpus,
        reps,
        floor: &floor_samples,
        formats: &formats,
        startup: &startup_samples,
    };
    crate::show(&table.render());
    Ok(())
}

/// Builds `trailgate`, `floor`, `measure` and `readers` in the `profiling` profile.
pub(crate) fn build_release(root: &Path) -> Result<(), String> {
    for (package, bins) in [
        ("trailgate-cli", &["trailgate"][..]),
        ("xtask", &["floor", "measure", "readers"][..]),
    ] {
        let mut args = vec!["build", "--profile", "profiling", "-p", package];
        for bin in bins {
            args.extend(["--bin", bin]);
        }
        cargo(root, &args)?;
    }
    Ok(())
}

/// The command of each format of [`FORMATS`], its report in the corpus's folder.
fn timed_formats(trailgate: &Path, suite: &Path, data: &Path) -> Result<Vec<Timed>, String> {
    FORMATS
        .iter()
        .map(|&format| {
            Ok(Timed {
                format,
                out: data.join(format!("report.{format}")),
                command: vec![
                    path_str(trailgate)?,
                    "check".into(),
                    path_str(suite)?,
                    "--format".into(),
                    format.to_owned(),
                ],
                samples: Vec::new(),
                code: 0,
                bytes: 0,
            })
        })
        .collect()
}

fn cargo(root: &Path, args: &[&str]) -> Result<(), String> {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .current_dir(root)
        .args(args)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed", args.join(" ")))
    }
}

pub(crate) fn path_str(path: &Path) -> Result<String, String> {
    path.to_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{} is not UTF-8", path.display()))
}

/// Runs `command` under `measure`, its standard output to `out`.
fn run(measure: &Path, out: &Path, command: &[String]) -> Result<Sample, String> {
    let output = Command::new(measure)
        .arg(out)
        .args(command)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", measure.display()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<&str> = text.split_whitespace().collect();
    let parse = |index: usize| -> Result<i128, String> {
        fields
            .get(index)
            .and_then(|field| field.parse().ok())
            .ok_or_else(|| {
                format!(
                    "measure printed `{}` for {}: {}",
                    text.trim(),
                    command.join(" "),
                    String::from_utf8_lossy(&output.stderr).trim()
                )
            })
    };
    let nanos = u64::try_from(parse(0)?).map_err(|e| e.to_string())?;
    Ok(Sample {
        wall: Duration::from_nanos(nanos),
        rss_kib: u64::try_from(parse(1)?).map_err(|e| e.to_string())?,
        code: i32::try_from(parse(2)?).map_err(|e| e.to_string())?,
    })
}

/// One format's command, where its report goes, and what it cost.
struct Timed {
    format: &'static str,
    out: PathBuf,
    command: Vec<String>,
    samples: Vec<Sample>,
    /// The exit code of the untimed first run.
    code: i32,
    /// The size of the report.
    bytes: u64,
}

struct Table<'a> {
    calls: u64,
    runs: String,
    bytes: u64,
    corpus: &'a PathBuf,
    reps: u64,
    floor: &'a [Sample],
    formats: &'a [Timed],
    startup: &'a [Sample],
}

/// The best and the median wall time of some samples.
fn best_median(samples: &[Sample]) -> (Duration, Duration) {
    let mut walls: Vec<Duration> = samples.iter().map(|s| s.wall).collect();
    walls.sort_unstable();
    let best = walls.first().copied().unwrap_or_default();
    let median = walls.get(walls.len() / 2).copied().unwrap_or_default();
    (best, median)
}

/// The median of the ratios of the runs made one after the other, a check and the floor
/// of the same repetition: on a machine whose speed drifts between repetitions, as shared
/// machines' does, the pairs drift together.
fn paired_ratio(floor: &[Sample], check: &[Sample]) -> f64 {
    let mut ratios: Vec<f64> = floor
        .iter()
        .zip(check)
        .map(|(floor, check)| {
            check.wall.as_secs_f64() / floor.wall.as_secs_f64().max(f64::MIN_POSITIVE)
        })
        .collect();
    ratios.sort_unstable_by(f64::total_cmp);
    ratios.get(ratios.len() / 2).copied().unwrap_or_default()
}

fn peak_mib(samples: &[Sample]) -> f64 {
    let kib = samples.iter().map(|s| s.rss_kib).max().unwrap_or(0);
    mib(kib * 1024)
}

#[expect(
    clippy::cast_precision_loss,
    reason = "sizes far below 2^52 bytes, shown with one decimal"
)]
pub(crate) fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

#[expect(
    clippy::cast_precision_loss,
    reason = "call counts far below 2^52, shown rounded"
)]
fn per_second(calls: u64, wall: Duration) -> f64 {
    calls as f64 / wall.as_secs_f64().max(f64::MIN_POSITIVE)
}

/// `1234567.8` as `1,234,568`.
pub(crate) fn grouped(value: f64) -> String {
    let digits = format!("{value:.0}");
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

impl Table<'_> {
    fn render(&self) -> String {
        let (floor_best, floor_median) = best_median(self.floor);
        let (startup_best, startup_median) = best_median(self.startup);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\ncorpus   {}: {} calls in {} runs, {:.1} MiB; {} repetitions, best and median",
            self.corpus.display(),
            grouped(u64_f64(self.calls)),
            self.runs
                .parse::<u64>()
                .map_or_else(|_| self.runs.clone(), |runs| grouped(u64_f64(runs))),
            mib(self.bytes),
            self.reps
        );
        let _ = writeln!(
            out,
            "\n| program | best wall | median wall | peak RSS | calls/s (best) | ratio to the floor: best / median / paired | report | report / corpus |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
        let _ = writeln!(
            out,
            "| floor (serde_json IgnoredAny) | {:.3} s | {:.3} s | {:.1} MiB | {} | 1 | | |",
            floor_best.as_secs_f64(),
            floor_median.as_secs_f64(),
            peak_mib(self.floor),
            grouped(per_second(self.calls, floor_best))
        );
        for timed in self.formats {
            let (best, median) = best_median(&timed.samples);
            let _ = writeln!(
                out,
                "| trailgate check --format {} | {:.3} s | {:.3} s | {:.1} MiB | {} | {:.2} / {:.2} / {:.2} | {:.1} MiB | {:.3} |",
                timed.format,
                best.as_secs_f64(),
                median.as_secs_f64(),
                peak_mib(&timed.samples),
                grouped(per_second(self.calls, best)),
                best.as_secs_f64() / floor_best.as_secs_f64().max(f64::MIN_POSITIVE),
                median.as_secs_f64() / floor_median.as_secs_f64().max(f64::MIN_POSITIVE),
                paired_ratio(self.floor, &timed.samples),
                mib(timed.bytes),
                ratio(timed.bytes, self.bytes),
            );
        }
        let _ = writeln!(
            out,
            "\ngoals    text at most 1.5 x the floor (issue 8); json at most 2 x the floor and smaller than the corpus (issue 24)"
        );
        let codes: Vec<String> = self
            .formats
            .iter()
            .map(|timed| format!("{} {}", timed.format, timed.code))
            .collect();
        let _ = writeln!(out, "check    exit codes: {}", codes.join(", "));
        let _ = writeln!(
            out,
            "startup  trailgate check fixtures/seed-000-first-run/trailgate.yaml: {:.2} ms (best), {:.2} ms (median) of {}, peak RSS {:.1} MiB; goal under 10 ms",
            startup_best.as_secs_f64() * 1e3,
            startup_median.as_secs_f64() * 1e3,
            self.startup.len(),
            peak_mib(self.startup)
        );
        out
    }
}

#[expect(
    clippy::cast_precision_loss,
    reason = "sizes far below 2^52 bytes, shown with three decimals"
)]
fn ratio(part: u64, whole: u64) -> f64 {
    part as f64 / whole.max(1) as f64
}

#[expect(
    clippy::cast_precision_loss,
    reason = "call counts far below 2^52, shown rounded"
)]
pub(crate) fn u64_f64(value: u64) -> f64 {
    value as f64
}
