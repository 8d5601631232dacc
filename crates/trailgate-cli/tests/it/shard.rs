//! Sharding: `check --shard K/N` on every scored fixture, then `merge`, gives the unsharded
//! run's JSON report byte for byte and the same exit code. Threads: `--threads 1` and
//! `--threads 2` give the same reports.

use std::fs;
use std::path::Path;

use crate::support::trailgate;

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
            Err(_) => vec!["check".to_owned(), "trailgate.yaml".to_owned()],
        };
        // A help text (`check -h`) scores nothing.
        let help = args.iter().any(|arg| arg == "-h" || arg == "--help");
        if args.first().map(String::as_str) == Some("check") && !help {
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
        let whole = trailgate(&dir, &full);
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
                let run = trailgate(&dir, &sharded);
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
            let merged = trailgate(&dir, &merge);
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
    let run = trailgate(&dir, &["check", "--shard", "2/2"]);
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
    let run = trailgate(&dir, &["check", "--shard", "1/2", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // The digest is the SHA-256 of the suite's text, which `sha256sum trailgate.yaml` gives.
    assert_eq!(
        report["shard"],
        serde_json::json!({"index": 1, "count": 2, "suite": "trailgate.yaml", "suite_tests": 4,
            "suite_digest": "9280ed90868a12885ccd4251d44651f18d812e3211bf10f45bfed2c3e9d49490"})
    );
    // Without `--shard` there is no `shard` object.
    let whole = trailgate(&dir, &["check", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&whole.stdout).unwrap();
    assert!(report.get("shard").is_none());
}

#[test]
fn a_shard_that_does_not_exist_is_a_usage_error() {
    let dir = fixtures().join("merge-shards");
    for spec in ["0/2", "3/2", "1/0", "2", "a/b", "1/2/3", "-1/2"] {
        let shard = format!("--shard={spec}");
        let run = trailgate(&dir, &["check", &shard]);
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
    let run = trailgate(
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
    let whole = trailgate(&dir, &["check", "--format", "json"]);
    assert_eq!(fs::read_to_string(&json).unwrap(), whole.stdout);
}

#[test]
fn merge_refuses_formats_it_cannot_write() {
    let dir = fixtures().join("merge-shards");
    let run = trailgate(&dir, &["merge", "shards/1.json", "--format", "junit"]);
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
    let run = trailgate(&dir, &["merge", "shards/1.json", "shards/9.json"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("trailgate::merge::io"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("shards/9.json"), "{}", run.stderr);
}

/// Scoring on one thread or on two (each worker reading and scoring its own parts) gives
/// the same bytes in every format, and the same exit code, for every scored fixture.
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
            for format in ["text", "json", "jsonl", "junit", "markdown", "github"] {
                let path = temp.path().join(format!("{threads}.{format}"));
                full.extend([
                    "--format".to_owned(),
                    format.to_owned(),
                    "--output".to_owned(),
                    path.display().to_string(),
                ]);
            }
            let full: Vec<&str> = full.iter().map(String::as_str).collect();
            let outcome = trailgate(&dir, &full);
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

/// A suite with every grader kind over one JSON Lines file, for the tests of many parts.
const MANY_RUNS_SUITE: &str = r#"tests:
  - name: many runs
    traces: runs.jsonl
    equal_function_sets:
      classes:
        - name: search
          members: [brave.search, google.search]
        - name: fetch
          members: [http.get]
      expect:
        - tool_selection.f1: { ">=": 60 }
    graders:
      - type: tool-calls
        config:
          required:
            - name: "^search$"
              args: { q: "b" }
          disallowed: [{ name: "^rm$" }]
          sequence: [search, get]
      - type: tool-correctness
        config:
          expected_tools: [brave.search, http.get]
          check_ordering: true
      - type: call-accuracy
        config:
          expected:
            - tool: brave.search
              args: { q: b }
            - tool: http.get
              args: { url: "https://a" }
"#;

/// Run `index` of the many-runs file: one to six calls picked from the index, so the runs
/// differ and some pass where others fail.
fn many_runs_line(index: usize) -> String {
    const CALLS: [&str; 6] = [
        r#"{"server":"brave","name":"search","args":{"q":"b"},"result":{"hits":[1,2]},"step":0}"#,
        r#"{"server":"google","name":"search","args":{"q":"é"},"step":0}"#,
        r#"{"server":"http","name":"get","args":{"url":"https://a"},"result":"ok","step":1}"#,
        r#"{"server":"http","name":"get","args":{"url":"https://b"},"status":"error","step":1}"#,
        r#"{"name":"rm","args":{"path":"/"},"step":2}"#,
        r#"{"name":"read_file","args":{"path":"a.rs","range":{"start":1}},"step":2}"#,
    ];
    let calls: Vec<&str> = (0..=index % 6)
        .map(|k| CALLS[(index * 7 + k * 3 + index / 6) % CALLS.len()])
        .collect();
    format!(r#"{{"tool_calls":[{}]}}"#, calls.join(","))
}

/// Writes the suite and a JSON Lines file of `runs` runs, with the lines `replaced` put in
/// place of the runs at those 1-based lines.
fn many_runs(runs: usize, replaced: &[(usize, &[u8])]) -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    fs::write(temp.path().join("trailgate.yaml"), MANY_RUNS_SUITE).unwrap();
    let mut file = Vec::new();
    for line in 1..=runs {
        match replaced.iter().find(|(at, _)| *at == line) {
            Some((_, text)) => file.extend_from_slice(text),
            None => file.extend_from_slice(many_runs_line(line).as_bytes()),
        }
        file.push(b'\n');
    }
    fs::write(temp.path().join("runs.jsonl"), file).unwrap();
    temp
}

/// Runs `check` on the folder with `threads` threads and the JSON and text reports in
/// files; returns the exit code, the standard error and the two reports.
fn check_with_threads(dir: &Path, threads: &str) -> (i32, String, Vec<u8>, Vec<u8>) {
    let json = format!("{threads}.json");
    let text = format!("{threads}.txt");
    let outcome = trailgate(
        dir,
        &[
            "check",
            "--threads",
            threads,
            "--format",
            "json",
            "--output",
            &json,
            "--format",
            "text",
            "--output",
            &text,
        ],
    );
    let read = |name: &str| fs::read(dir.join(name)).unwrap_or_default();
    (outcome.code, outcome.stderr, read(&json), read(&text))
}

/// A file of hundreds of runs is read in many parts, which the threads parse and score
/// out of order: the report lists every run in file order and is the same, byte for byte,
/// whatever the number of threads.
#[test]
fn many_parts_give_the_same_report_whatever_the_number_of_threads() {
    let temp = many_runs(300, &[]);
    let (code, stderr, json, text) = check_with_threads(temp.path(), "1");
    assert!(code == 0 || code == 1, "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&json).expect("a JSON report");
    let runs = report
        .pointer("/tests/0/sources")
        .and_then(|runs| runs.as_array());
    let lines: Vec<u64> = runs
        .expect("the runs of the test")
        .iter()
        .filter_map(|run| run.get("line").and_then(serde_json::Value::as_u64))
        .collect();
    assert_eq!(
        lines,
        (1..=300).collect::<Vec<u64>>(),
        "every run, in file order"
    );
    for threads in ["2", "3"] {
        let (other_code, _, other_json, other_text) = check_with_threads(temp.path(), threads);
        assert_eq!(code, other_code, "--threads {threads}: the exit code");
        assert!(
            json == other_json,
            "--threads {threads}: the JSON reports differ"
        );
        assert!(
            text == other_text,
            "--threads {threads}: the text reports differ"
        );
    }
}

/// The JSON Lines report of a large suite, written as its runs are scored on several
/// threads: every line parses; a header, then one line per run in file order, the test's
/// line, the summary; the runs, their verdicts and the test's metrics and gates are the
/// JSON report's; the bytes are the same whatever the number of threads.
#[test]
fn the_json_lines_report_streams_every_run_in_order_and_agrees_with_the_json_report() {
    const RUNS: usize = 2000;
    let temp = many_runs(RUNS, &[]);
    let check = |threads: &str| {
        let outcome = trailgate(
            temp.path(),
            &[
                "check",
                "--threads",
                threads,
                "--format",
                "json",
                "--output",
                "r.json",
                "--format",
                "jsonl",
                "--output",
                "r.jsonl",
            ],
        );
        assert!(outcome.code == 0 || outcome.code == 1, "{}", outcome.stderr);
        let read = |name: &str| fs::read(temp.path().join(name)).unwrap();
        (read("r.json"), read("r.jsonl"))
    };
    let (json, jsonl) = check("1");
    let report: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let lines: Vec<serde_json::Value> = std::str::from_utf8(&jsonl)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("every line parses"))
        .collect();
    assert_eq!(
        lines.len(),
        RUNS + 3,
        "a header, the runs, the test, the summary"
    );
    assert_eq!(lines[0]["type"], "header");
    assert_eq!(lines[0]["version"], report["version"]);
    let test = &report["tests"][0];
    let sources = test["sources"].as_array().unwrap();
    for (index, (line, source)) in lines[1..=RUNS].iter().zip(sources).enumerate() {
        assert_eq!(line["type"], "run");
        assert_eq!(line["run"], serde_json::json!(index + 1), "in file order");
        for key in ["source", "line", "calls", "passed"] {
            assert_eq!(line[key], source[key], "run {}: {key}", index + 1);
        }
    }
    let passed = lines[1..=RUNS]
        .iter()
        .filter(|line| line["passed"] == true)
        .count();
    assert_eq!(serde_json::json!(passed), test["passed_runs"]);
    let test_line = &lines[RUNS + 1];
    assert_eq!(test_line["type"], "test");
    for key in ["name", "passed", "runs", "passed_runs", "metrics", "gates"] {
        assert_eq!(test_line[key], test[key], "{key}");
    }
    assert_eq!(lines[RUNS + 2]["type"], "summary");
    assert_eq!(lines[RUNS + 2]["passed"], report["passed"]);
    for threads in ["2", "3"] {
        let (other_json, other_jsonl) = check(threads);
        assert!(
            json == other_json,
            "--threads {threads}: the JSON reports differ"
        );
        assert!(
            jsonl == other_jsonl,
            "--threads {threads}: the JSON Lines reports differ"
        );
    }
}

/// A shard's JSON Lines report says which shard it is in its header; its runs and tests
/// are the shard's, as in its JSON report.
#[test]
fn a_shards_json_lines_report_names_the_shard_and_holds_its_tests() {
    let dir = fixtures().join("merge-shards");
    let lines = trailgate(&dir, &["check", "--shard", "2/2", "--format", "jsonl"]);
    let json = trailgate(&dir, &["check", "--shard", "2/2", "--format", "json"]);
    assert_eq!(lines.code, json.code, "{}", lines.stderr);
    let lines: Vec<serde_json::Value> = lines
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("every line parses"))
        .collect();
    let report: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        lines[0]["shard"],
        serde_json::json!({"index": 2, "count": 2})
    );
    let tests: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|line| line["type"] == "test")
        .map(|line| &line["name"])
        .collect();
    let expected: Vec<&serde_json::Value> = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|test| &test["name"])
        .collect();
    assert_eq!(tests, expected);
    let unsharded = trailgate(&dir, &["check", "--format", "jsonl"]);
    let header: serde_json::Value =
        serde_json::from_str(unsharded.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(header.get("shard"), None);
}

/// With bad lines in several parts, every number of threads reports the first one in the
/// file, and writes no report.
#[rstest::rstest]
#[case::malformed_then_not_utf8(&[(150, b"{\"tool_calls\": [".as_slice()), (260, b"\xff\xfe")], 150)]
#[case::not_utf8_then_malformed(&[(75, b"{\"tool_calls\":[]} \xc3".as_slice()), (240, b"[1,")], 75)]
#[case::wrong_shape_late(&[(290, b"{\"calls\": []}".as_slice())], 290)]
fn the_first_bad_line_is_reported_whatever_the_number_of_threads(
    #[case] replaced: &[(usize, &[u8])],
    #[case] line: usize,
) {
    let temp = many_runs(300, replaced);
    let (code, stderr, json, text) = check_with_threads(temp.path(), "1");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        // A syntax error points into the file; text that is not UTF-8 is named by line and byte.
        stderr.contains(&format!("runs.jsonl:{line}:"))
            || stderr.contains(&format!("`runs.jsonl`: line {line}, byte")),
        "line {line} is named: {stderr}"
    );
    assert!(json.is_empty() && text.is_empty(), "no report is written");
    for threads in ["2", "3"] {
        let (other_code, other_stderr, _, _) = check_with_threads(temp.path(), threads);
        assert_eq!(other_code, 2, "--threads {threads}");
        assert_eq!(stderr, other_stderr, "--threads {threads}: the diagnostic");
    }
}

/// The shards of a check with `--baseline` carry each gate on the baseline resolved (its
/// value, verdict and the baseline's value) or skipped; `merge` rechecks the comparison with
/// the recorded value and gives the unsharded report, and refuses a shard whose resolved
/// value is not the baseline's moved by the gate's offset.
#[test]
fn merge_rechecks_gates_on_the_baseline() {
    let dir = fixtures().join("baseline-gates");
    let check = ["check", "trailgate.yaml", "--baseline", "base.json"];
    let whole = trailgate(&dir, &[&check[..], &["--format", "json"]].concat());
    assert_eq!(whole.code, 1, "{}", whole.stderr);
    let temp = tempfile::tempdir().unwrap();
    let mut shards = Vec::new();
    for index in 1..=2 {
        let path = temp.path().join(format!("{index}.json"));
        let spec = format!("{index}/2");
        let out = path.to_str().unwrap().to_owned();
        let extra = ["--shard", &spec, "--format", "json", "--output", &out];
        let run = trailgate(&dir, &[&check[..], &extra[..]].concat());
        assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
        shards.push(out);
    }
    let merge = |shards: &[String]| {
        let mut args = vec!["merge"];
        args.extend(shards.iter().map(String::as_str));
        args.extend(["--format", "json"]);
        trailgate(&dir, &args)
    };
    let merged = merge(&shards);
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    assert_eq!(merged.stdout, whole.stdout);
    // Shard 1 holds `search then fetch`: its `baseline - 15` gate resolved to 85 (the
    // baseline's 100, moved). A value edited to 80 no longer follows from the baseline.
    let first = fs::read_to_string(&shards[0]).unwrap();
    let resolved = "\"value\":85,";
    assert_eq!(first.matches(resolved).count(), 1, "{first}");
    fs::write(&shards[0], first.replace(resolved, "\"value\":80,")).unwrap();
    let edited = merge(&shards);
    assert_eq!(edited.code, 2, "{}", edited.stderr);
    assert_eq!(edited.stdout, "");
    assert!(
        edited
            .stderr
            .contains("compared with 80 but the baseline's 100 gives 85"),
        "{}",
        edited.stderr
    );
    fs::write(&shards[0], &first).unwrap();
    assert_eq!(merge(&shards).stdout, whole.stdout);
    // A skipped gate stays skipped, and its metric is still checked: a skipped gate given a
    // verdict, or another metric value, is refused.
    let mut report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&shards[1]).unwrap()).unwrap();
    let gate = &mut report["tests"][0]["gates"][2];
    assert_eq!(
        gate["skipped"],
        "the baseline's test has no metric `call_accuracy.f1`"
    );
    for (field, value, message) in [
        ("passed", serde_json::json!(true), "neither skipped"),
        (
            "actual",
            serde_json::json!(50),
            "compared 50 but the metric is 100",
        ),
    ] {
        let mut edited = report.clone();
        edited["tests"][0]["gates"][2][field] = value;
        fs::write(&shards[1], serde_json::to_string_pretty(&edited).unwrap()).unwrap();
        let run = merge(&shards);
        assert_eq!(run.code, 2, "{field}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{field}: {}", run.stderr);
    }
}
