//! `check --baseline`: the baseline report is an input like the suite, and the runs'
//! verdicts never depend on it.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::support::trailgate;

fn case() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/baseline-gates"
    ))
}

#[test]
fn a_baseline_given_through_a_pipe_is_read_as_from_its_file() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let from_file = trailgate(case(), &["check", "--baseline", "base.json", "-f", "json"]);
    assert_eq!(from_file.code, 1, "{}", from_file.stderr);
    // `--baseline /dev/stdin` with a pipe as standard input: a file that cannot seek.
    let mut child = Command::new(env!("CARGO_BIN_EXE_trailgate"))
        .args(["check", "--baseline", "/dev/stdin", "-f", "json"])
        .current_dir(case())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let report = fs::read(case().join("base.json")).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&report));
    let piped = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert_eq!(piped.status.code(), Some(1), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&piped.stdout), from_file.stdout);
}

#[test]
fn an_output_may_not_replace_the_baseline() {
    let temp = tempfile::tempdir().unwrap();
    let base = temp.path().join("base.json");
    fs::copy(case().join("base.json"), &base).unwrap();
    let base = base.to_str().unwrap();
    let run = trailgate(
        case(),
        &["check", "--baseline", base, "-f", "json", "-o", base],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(
        fs::read_to_string(base).unwrap(),
        fs::read_to_string(case().join("base.json")).unwrap()
    );
}

/// Each test's `passed_runs` and each run's `passed` are the same with the committed
/// baseline, with no baseline, and with a baseline whose every metric is 0 or 100: only the
/// gates on the baseline and the tests' verdicts move.
#[test]
fn run_verdicts_do_not_depend_on_the_baseline() {
    let temp = tempfile::tempdir().unwrap();
    let committed: Value =
        serde_json::from_str(&fs::read_to_string(case().join("base.json")).unwrap()).unwrap();
    let mut verdicts = Vec::new();
    let mut gates = Vec::new();
    // `None`: the committed baseline; `Some(v)`: it with every metric set to v.
    for every_metric in [None, Some(0), Some(100)] {
        let mut args = vec!["check", "--format", "json"];
        let path = temp.path().join(format!("{every_metric:?}.json"));
        let path = path.to_str().unwrap().to_owned();
        match every_metric {
            None => args.extend(["--baseline", "base.json"]),
            Some(value) => {
                let mut edited = committed.clone();
                for test in edited["tests"].as_array_mut().unwrap() {
                    for metric in test["metrics"].as_object_mut().unwrap().values_mut() {
                        *metric = Value::from(value);
                    }
                }
                fs::write(&path, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
                args.extend(["--baseline", &path]);
            }
        }
        let run = trailgate(case(), &args);
        assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
        let report: Value = serde_json::from_str(&run.stdout).unwrap();
        let tests = report["tests"].as_array().unwrap();
        verdicts.push(
            tests
                .iter()
                .map(|t| (t["passed_runs"].clone(), t["sources"].clone()))
                .collect::<Vec<_>>(),
        );
        gates.push(tests.iter().map(|t| t["gates"].clone()).collect::<Vec<_>>());
    }
    let without = trailgate(case(), &["check", "--format", "json"]);
    let report: Value = serde_json::from_str(&without.stdout).unwrap();
    let unbased: Vec<_> = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["passed_runs"].clone(), t["sources"].clone()))
        .collect();
    for each in &verdicts {
        assert_eq!(each, &unbased);
    }
    // The three baselines did give the gates different values to compare with.
    assert_ne!(gates[0], gates[1]);
    assert_ne!(gates[1], gates[2]);
}
