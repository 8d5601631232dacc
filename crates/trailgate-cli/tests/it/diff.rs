//! `trailgate diff` on the command line: its outputs to files, the formats it refuses, and
//! reports with hostile test and metric names.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::trailgate;

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"))
}

#[test]
fn each_format_goes_to_its_output_and_the_exit_code_stays() {
    let dir = fixtures().join("diff-regression");
    let temp = tempfile::tempdir().unwrap();
    let json = temp.path().join("diff.json");
    let markdown = temp.path().join("diff.md");
    let run = trailgate(
        &dir,
        &[
            "diff",
            "base.json",
            "head.json",
            "--output",
            json.to_str().unwrap(),
            "--output",
            markdown.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let alone = |format: &str| trailgate(&dir, &["diff", "base.json", "head.json", "-f", format]);
    // Every output went to a file, so the log shows the text diff.
    assert_eq!(run.stdout, alone("text").stdout);
    assert_eq!(fs::read_to_string(&json).unwrap(), alone("json").stdout);
    assert_eq!(
        fs::read_to_string(&markdown).unwrap(),
        alone("markdown").stdout
    );
}

#[test]
fn junit_is_refused_by_name_and_by_extension() {
    let dir = fixtures().join("diff-regression");
    let run = trailgate(
        &dir,
        &["diff", "base.json", "head.json", "--format", "junit"],
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("junit"), "{}", run.stderr);
    let run = trailgate(
        &dir,
        &["diff", "base.json", "head.json", "--output", "x.xml"],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("`.json`, `.md` or `.txt`"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_output_may_not_replace_a_report_it_reads() {
    let dir = fixtures().join("diff-regression");
    let run = trailgate(
        &dir,
        &[
            "diff",
            "base.json",
            "head.json",
            "-f",
            "json",
            "-o",
            "head.json",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(dir.join("head.json")).unwrap(),
        trailgate(&dir.join("head"), &["check", "--format", "json"]).stdout
    );
}

#[test]
fn hostile_names_stay_inert_in_every_output() {
    let hostile = "x\n::error::pwned | </code></summary><img src=x> @everyone `tick`";
    let temp = tempfile::tempdir().unwrap();
    let dir = fixtures().join("diff-regression");
    for side in ["base", "head"] {
        let text = fs::read_to_string(dir.join(format!("{side}.json"))).unwrap();
        let renamed = text.replace(
            "\"name\": \"search then fetch\"",
            &format!("\"name\": {}", serde_json::to_string(hostile).unwrap()),
        );
        assert_ne!(renamed, text);
        // Metric names and gate targets come from the file too.
        let renamed = renamed.replace("\"tool_selection.f1\"", r#""f1\u001b[2J\n::error::metric""#);
        fs::write(temp.path().join(format!("{side}.json")), renamed).unwrap();
    }
    for format in ["text", "markdown", "github"] {
        let run = trailgate(
            temp.path(),
            &["diff", "base.json", "head.json", "-f", format],
        );
        assert_eq!(run.code, 1, "{}", run.stderr);
        for line in run.stdout.lines() {
            // The only workflow commands are the diff's own, whose user text is escaped.
            if line.starts_with("::") {
                assert!(
                    line.starts_with("::error title=trailgate diff%3A ")
                        || line.starts_with("::warning title=trailgate diff%3A ")
                        || line.starts_with("::notice::trailgate diff: "),
                    "{format}: {line}"
                );
                assert!(!line.contains("::error::pwned"), "{format}: {line}");
            }
            // Raw HTML holds the name escaped; elsewhere it is inline code.
            if line.starts_with("<details>") && line.contains("pwned") {
                assert!(
                    line.contains("&lt;/code&gt;&lt;/summary&gt;&lt;img"),
                    "{line}"
                );
                assert!(!line.contains("<img"), "{line}");
            }
        }
        assert!(!run.stdout.contains("x\n::"), "{format}");
        assert!(
            !run.stdout.contains('\u{1b}'),
            "{format}: no terminal escape"
        );
        assert!(
            run.stdout.contains(r"f1\u{1b}[2J\n::error::metric"),
            "{format}"
        );
        assert!(
            run.stdout.contains(r"x\n::error::pwned"),
            "{format}: shown, escaped"
        );
        if format == "markdown" {
            assert!(run.stdout.contains("&lt;img"), "the summary holds the name");
        }
    }
}

/// The data segment `diff` runs under in [`diff_memory_does_not_grow_with_the_reports`]:
/// less than either report it reads, and under a third of both. A debug build with an empty
/// diff needs about 8 MiB.
const DIFF_DATA_LIMIT_KIB: u64 = 32 * 1024;

/// Writes a report whose one test has `runs` runs, each listed in `sources` with its verdict
/// (every seventh fails in `base`, every fifth in `head`) and in a grader's `runs` with
/// about 2 KB of findings, written one run at a time.
fn write_large_report(path: &Path, runs: usize, fails_every: usize) {
    let report: Value = serde_json::from_str(
        &fs::read_to_string(fixtures().join("diff-regression/head.json")).unwrap(),
    )
    .unwrap();
    let mut test = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "tests before pushing")
        .unwrap()
        .clone();
    test["runs"] = runs.into();
    test["passed_runs"] = (runs - runs / fails_every).into();
    let grader = test
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, value)| value.get("runs").is_some_and(Value::is_array))
        .map(|(key, _)| key.clone())
        .unwrap();
    test["sources"] = json!(["@sources@"]);
    test[&grader]["runs"] = json!(["@runs@"]);
    let whole =
        json!({"version": 2, "passed": false, "summary": report["summary"], "tests": [test]});
    let pretty = serde_json::to_string_pretty(&whole).unwrap();
    let (before, rest) = pretty.split_once("\"@sources@\"").unwrap();
    let (between, after) = rest.split_once("\"@runs@\"").unwrap();
    let mut out = BufWriter::new(fs::File::create(path).unwrap());
    out.write_all(before.as_bytes()).unwrap();
    for run in 1..=runs {
        let comma = if run > 1 { "," } else { "" };
        let entry = json!({"run": run, "source": "traces/runs.jsonl", "line": run,
                           "format": "trailgate", "calls": 2, "passed": run % fails_every != 0});
        write!(out, "{comma}{entry}").unwrap();
    }
    out.write_all(between.as_bytes()).unwrap();
    let finding = "x".repeat(2000);
    for run in 1..=runs {
        let comma = if run > 1 { "," } else { "" };
        let entry = json!({"run": run, "source": "traces/runs.jsonl", "line": run,
                           "passed": run % fails_every != 0, "unmet_required": [finding]});
        write!(out, "{comma}{entry}").unwrap();
    }
    out.write_all(after.as_bytes()).unwrap();
    out.flush().unwrap();
}

/// `diff` keeps a few words per run, never a report: two reports of 20,000 runs (about
/// 44 MB each) are compared under the shell's `ulimit -d` of [`DIFF_DATA_LIMIT_KIB`]. The
/// limit is a bound, not a measurement; the test asserts no time and no exact figure.
#[test]
fn diff_memory_does_not_grow_with_the_reports() {
    let temp = tempfile::tempdir().unwrap();
    let runs = 20_000;
    write_large_report(&temp.path().join("base.json"), runs, 7);
    write_large_report(&temp.path().join("head.json"), runs, 5);
    let size = fs::metadata(temp.path().join("base.json")).unwrap().len();
    assert!(
        size > DIFF_DATA_LIMIT_KIB * 1024,
        "each report is larger than the limit"
    );
    let output = Command::new("sh")
        .args([
            "-c",
            &format!("ulimit -d {DIFF_DATA_LIMIT_KIB} && exec \"$0\" \"$@\""),
            env!("CARGO_BIN_EXE_trailgate"),
            "diff",
            "base.json",
            "head.json",
            "--format",
            "json",
        ])
        .current_dir(temp.path())
        .env_clear()
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    // 17,143 of 20,000 runs pass in base and 16,000 in head, no metric moved: a significant
    // drop in pass rate, a regression by itself (`docs/baselines.md`).
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let diff: Value = serde_json::from_slice(&output.stdout).unwrap();
    let test = &diff["tests"][0];
    let rate = &test["pass_rate"];
    assert_eq!(
        (&rate["base"], &rate["head"]),
        (
            &json!({"passed": runs - runs / 7, "runs": runs}),
            &json!({"passed": runs - runs / 5, "runs": runs})
        )
    );
    assert_eq!(rate["interval"]["significant"], json!(true));
    assert!(rate["interval"]["upper"].as_i64().unwrap() < 0, "{rate}");
    assert_eq!(test["regressed"], json!(true));
    assert_eq!(test["runs"]["lined_up"], json!(runs));
    // Runs 7k fail in base, runs 5k in head: those of one and not the other changed.
    let changed = (1..=runs).filter(|r| (r % 7 == 0) != (r % 5 == 0)).count();
    assert_eq!(test["runs"]["changed"].as_array().unwrap().len(), changed);
}

/// Newcombe's interval from the independent Python reference: confidence, n₁, c₁, n₂, c₂,
/// lower, upper (`crates/trailgate-core/tests/reliability/README.md`).
const NEWCOMBE: &str = include_str!("../../../trailgate-core/tests/reliability/newcombe.tsv");

/// How many runs a test of a report has and how many passed, counted from its `sources`.
fn counted(report: &Value, name: &str) -> (u64, u64) {
    let test = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap();
    let sources = test["sources"].as_array().unwrap();
    let passed = sources.iter().filter(|s| s["passed"] == true).count();
    (sources.len() as u64, passed as u64)
}

/// Every pass-rate interval of the diff fixtures (`fixtures/diff-*`) is the reference's row
/// for the head's counts against the base's, at 95 %, the counts taken from the runs of
/// the two reports; a fixture whose counts the table lacks fails until the grid holds them.
#[test]
fn the_diff_fixtures_intervals_are_the_references() {
    let mut significant = [false, false];
    for entry in fs::read_dir(fixtures()).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_str().unwrap().to_owned();
        if !name.starts_with("diff-") {
            continue;
        }
        let args = fs::read_to_string(dir.join("args")).unwrap();
        let args: Vec<&str> = args.lines().collect();
        let read = |file: &str| -> Value {
            serde_json::from_str(&fs::read_to_string(dir.join(file)).unwrap()).unwrap()
        };
        let (base, head) = (read(args[1]), read(args[2]));
        let mut full = args.clone();
        full.extend(["--format", "json"]);
        let run = trailgate(&dir, &full);
        let diff: Value = serde_json::from_str(&run.stdout).unwrap();
        for test in diff["tests"].as_array().unwrap() {
            let Some(rate) = test.get("pass_rate") else {
                continue;
            };
            let name = test["name"].as_str().unwrap();
            let ((n2, c2), (n1, c1)) = (counted(&base, name), counted(&head, name));
            assert_eq!(
                (&rate["base"], &rate["head"]),
                (
                    &json!({"passed": c2, "runs": n2}),
                    &json!({"passed": c1, "runs": n1})
                ),
                "{}: {name}",
                dir.display()
            );
            let key = format!("95\t{n1}\t{c1}\t{n2}\t{c2}\t");
            let row = NEWCOMBE.lines().find(|line| line.starts_with(&key));
            let row = row.unwrap_or_else(|| {
                panic!(
                    "{}: {name}: no reference row {key:?}; extend the grid",
                    dir.display()
                )
            });
            let bounds: Vec<i64> = row[key.len()..]
                .split('\t')
                .map(|f| f.parse().unwrap())
                .collect();
            let interval = &rate["interval"];
            assert_eq!(
                [&interval["lower"], &interval["upper"]],
                [&json!(bounds[0]), &json!(bounds[1])],
                "{}: {name}",
                dir.display()
            );
            let is = bounds[0] > 0 || bounds[1] < 0;
            assert_eq!(
                interval["significant"],
                json!(is),
                "{}: {name}",
                dir.display()
            );
            significant[usize::from(is)] = true;
        }
    }
    assert_eq!(
        significant,
        [true, true],
        "the fixtures hold a significant and a non-significant change"
    );
}
