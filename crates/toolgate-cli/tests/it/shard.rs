//! Sharding: `check --shard K/N` on every scored fixture, then `merge`, gives the unsharded
//! run's JSON report byte for byte and the same exit code. Threads: `--threads 1` and
//! `--threads 2` give the same reports.

use std::fs;
use std::path::Path;

use crate::support::toolgate;

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"))
}

/// The command line of every fixture that `check`s a suite and scores it.
fn scored_fixtures() -> Vec<(String, Vec<String>)> {
    let mut cases = Vec::new();
    for entry in fs::read_dir(fixtures()).expect("the fixtures folder") {
        let dir = entry.expect("a fixture").path();
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap().to_owned();
        if name.starts_with("bad-") || !dir.join("README.md").is_file() {
            continue;
        }
        let args = match fs::read_to_string(dir.join("args")) {
            Ok(text) => text.lines().map(str::to_owned).collect(),
            Err(_) => vec!["check".to_owned(), "toolgate.yaml".to_owned()],
        };
        if args.first().map(String::as_str) == Some("check") {
            cases.push((name, args));
        }
    }
    cases.sort();
    cases
}

#[test]
fn sharded_then_merged_equals_unsharded() {
    let cases = scored_fixtures();
    assert!(cases.len() > 50, "the fixtures are found");
    let mut multi_test = 0;
    for (name, args) in cases {
        let dir = fixtures().join(&name);
        let mut full: Vec<&str> = args.iter().map(String::as_str).collect();
        full.extend(["--format", "json"]);
        let whole = toolgate(&dir, &full);
        assert!(
            whole.code == 0 || whole.code == 1,
            "{name}: {}",
            whole.stderr
        );
        let report: serde_json::Value = serde_json::from_str(&whole.stdout).unwrap();
        let tests = report["tests"].as_array().unwrap().len();
        if tests > 1 {
            multi_test += 1;
        }
        // One shard, fewer shards than tests, and more shards than tests (some empty).
        for count in [1, 2, 3, tests + 2] {
            let temp = tempfile::tempdir().unwrap();
            let mut shards = Vec::new();
            for index in 1..=count {
                let path = temp.path().join(format!("shard-{index}.json"));
                let spec = format!("{index}/{count}");
                let out = path.to_str().unwrap();
                let mut sharded = full.clone();
                sharded.extend(["--shard", &spec, "--output", out]);
                let run = toolgate(&dir, &sharded);
                assert!(
                    run.code == 0 || run.code == 1,
                    "{name} {spec}: {}",
                    run.stderr
                );
                shards.push(path);
            }
            // Shards may come in any order.
            shards.reverse();
            let mut merge = vec!["merge".to_owned()];
            merge.extend(shards.iter().map(|p| p.to_str().unwrap().to_owned()));
            merge.extend(["--format".to_owned(), "json".to_owned()]);
            let merge: Vec<&str> = merge.iter().map(String::as_str).collect();
            let merged = toolgate(&dir, &merge);
            assert_eq!(merged.stderr, "", "{name} in {count} shards");
            assert_eq!(
                merged.code, whole.code,
                "{name} in {count} shards: exit code"
            );
            assert!(
                merged.stdout == whole.stdout,
                "{name} in {count} shards: the merged report differs from the unsharded one"
            );
        }
    }
    assert!(
        multi_test > 10,
        "fixtures with several tests are split for real"
    );
}

#[test]
fn a_shard_checks_only_its_tests() {
    let dir = fixtures().join("merge-shards");
    let run = toolgate(&dir, &["check", "--shard", "2/2"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    // Tests 2 and 4 of the suite; 1 and 3 belong to shard 1.
    assert!(run.stdout.contains("researcher reads then searches"));
    assert!(run.stdout.contains("hotel agent books the cheapest room"));
    assert!(!run.stdout.contains("researcher searches then reads"));
    assert!(!run.stdout.contains("researcher wanders"));
    assert!(run.stdout.ends_with("FAIL 2 tests: 1 passed, 1 failed\n"));
}

#[test]
fn shard_json_names_the_split() {
    let dir = fixtures().join("merge-shards");
    let run = toolgate(&dir, &["check", "--shard", "1/2", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        report["shard"],
        serde_json::json!({"index": 1, "count": 2, "suite": "toolgate.yaml", "suite_tests": 4})
    );
    // Without `--shard` there is no `shard` object.
    let whole = toolgate(&dir, &["check", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&whole.stdout).unwrap();
    assert!(report.get("shard").is_none());
}

#[test]
fn a_shard_that_does_not_exist_is_a_usage_error() {
    let dir = fixtures().join("merge-shards");
    for spec in ["0/2", "3/2", "1/0", "2", "a/b", "1/2/3", "-1/2"] {
        let shard = format!("--shard={spec}");
        let run = toolgate(&dir, &["check", &shard]);
        assert_eq!(run.code, 2, "{spec}");
        assert_eq!(run.stdout, "", "{spec}");
        assert!(
            run.stderr.contains("is not a shard"),
            "{spec}: {}",
            run.stderr
        );
    }
}

#[test]
fn merge_writes_each_format_to_its_output() {
    let dir = fixtures().join("merge-shards");
    let temp = tempfile::tempdir().unwrap();
    let json = temp.path().join("merged.json");
    let run = toolgate(
        &dir,
        &[
            "merge",
            "shards/1.json",
            "shards/2.json",
            "--format",
            "json",
            "--output",
            json.to_str().unwrap(),
            "--format",
            "text",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.ends_with("FAIL 4 tests: 2 passed, 2 failed\n"));
    let whole = toolgate(&dir, &["check", "--format", "json"]);
    assert_eq!(fs::read_to_string(&json).unwrap(), whole.stdout);
}

#[test]
fn merge_refuses_formats_it_cannot_write() {
    let dir = fixtures().join("merge-shards");
    let run = toolgate(&dir, &["merge", "shards/1.json", "--format", "junit"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("invalid value 'junit'"),
        "{}",
        run.stderr
    );
}

#[test]
fn merge_of_an_unreadable_file_is_an_input_error() {
    let dir = fixtures().join("merge-shards");
    let run = toolgate(&dir, &["merge", "shards/1.json", "shards/9.json"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("toolgate::merge::io"), "{}", run.stderr);
    assert!(run.stderr.contains("shards/9.json"), "{}", run.stderr);
}

/// Scoring on one thread or on two (one reading while the other scores) gives the same
/// bytes in every format, and the same exit code, for every scored fixture.
#[test]
fn reports_are_identical_whatever_the_number_of_threads() {
    let cases = scored_fixtures();
    assert!(cases.len() > 50, "the fixtures are found");
    for (name, args) in cases {
        let dir = fixtures().join(&name);
        let temp = tempfile::tempdir().unwrap();
        let run = |threads: &str| {
            let mut full: Vec<String> = args.clone();
            full.extend(["--threads".to_owned(), threads.to_owned()]);
            for format in ["text", "json", "junit", "markdown", "github"] {
                let path = temp.path().join(format!("{threads}.{format}"));
                full.extend([
                    "--format".to_owned(),
                    format.to_owned(),
                    "--output".to_owned(),
                    path.display().to_string(),
                ]);
            }
            let full: Vec<&str> = full.iter().map(String::as_str).collect();
            let outcome = toolgate(&dir, &full);
            assert!(
                outcome.code == 0 || outcome.code == 1,
                "{name}: {}",
                outcome.stderr
            );
            outcome.code
        };
        assert_eq!(run("1"), run("2"), "{name}: the exit codes");
        for format in ["text", "json", "junit", "markdown", "github"] {
            let one = fs::read(temp.path().join(format!("1.{format}"))).unwrap();
            let two = fs::read(temp.path().join(format!("2.{format}"))).unwrap();
            assert!(one == two, "{name}: the {format} reports differ");
        }
    }
}
