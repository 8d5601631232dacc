//! The same inputs give the same bytes (docs/reports.md): a generated suite and generated
//! runs, checked twice in one folder and once in another, give identical reports in every
//! format (`docs/robustness.md`, "Properties").

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use serde_json::json;

use crate::support::trailgate;

const SUITE: &str = r#"tests:
  - name: every block
    traces: "traces/*.json*"
    equal_function_sets:
      classes:
        - name: search
          members: [brave.search, search]
        - name: fetch
          members: [http.get]
    graders:
      - type: tool-calls
        config:
          required: [{ name: search }]
          disallowed: [{ name: "^rm$" }]
          sequence: [search, get]
      - type: tool-correctness
        config:
          expected_tools: [search, http.get]
      - type: call-accuracy
        config:
          expected:
            - tool: search
              args: { q: a }
            - tool: http.get
              args: { q: b }
      - type: trajectory
        config:
          mode: in_order
          expected: [search, { tool: get, args: { q: b } }]
      - type: budget
        config:
          max_calls: 3
          max_repeats: 0
          optimal_calls: 2
      - type: errors
        config:
          expect: [errors.rate: { "<=": 50 }]
      - type: dependencies
        config:
          edges:
            - { before: search, after: http.get }
            - { feeds: search, into: get, arg: q }
"#;

/// One call as trailgate's call list writes it.
fn call() -> impl Strategy<Value = serde_json::Value> {
    (
        prop::option::of(prop::sample::select(&["brave", "http"][..])),
        prop::sample::select(&["search", "get", "rm", "other"][..]),
        prop::sample::select(&["a", "b", "ü \" <&>"][..]),
        any::<bool>(),
    )
        .prop_map(|(server, name, q, completed)| {
            let mut call = json!({ "name": name, "args": { "q": q }, "completed": completed });
            if let Some(server) = server {
                call["server"] = json!(server);
            }
            call
        })
}

/// Trace files: each a `.json` run or a `.jsonl` file of runs.
fn traces() -> impl Strategy<Value = Vec<(bool, Vec<Vec<serde_json::Value>>)>> {
    prop::collection::vec(
        (
            any::<bool>(),
            prop::collection::vec(prop::collection::vec(call(), 0..=4), 1..=3),
        ),
        1..=3,
    )
}

/// Writes the suite and the traces under `dir`.
fn write_case(dir: &Path, files: &[(bool, Vec<Vec<serde_json::Value>>)]) {
    fs::create_dir_all(dir.join("traces")).unwrap();
    fs::create_dir_all(dir.join("out")).unwrap();
    fs::write(dir.join("trailgate.yaml"), SUITE).unwrap();
    for (index, (lines, runs)) in files.iter().enumerate() {
        let runs: Vec<String> = runs
            .iter()
            .map(|calls| json!({ "tool_calls": calls }).to_string())
            .collect();
        let (name, text) = if *lines {
            (format!("run-{index}.jsonl"), runs.join("\n") + "\n")
        } else {
            // A `.json` file holds one run: the first.
            (format!("run-{index}.json"), runs[0].clone())
        };
        fs::write(dir.join("traces").join(name), text).unwrap();
    }
}

/// Every report of one `trailgate check` on `threads` threads: the files, then what it
/// printed.
fn reports(dir: &Path, threads: &str) -> Vec<(String, Vec<u8>)> {
    let run = trailgate(
        dir,
        &[
            "check",
            "--threads",
            threads,
            "--format",
            "json",
            "--output",
            "out/report.json",
            "--format",
            "junit",
            "--output",
            "out/report.xml",
            "--format",
            "markdown",
            "--output",
            "out/report.md",
            "--format",
            "text",
            "--output",
            "out/report.txt",
            "--format",
            "html",
            "--output",
            "out/report.html",
            "--format",
            "github",
        ],
    );
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    let mut reports: Vec<(String, Vec<u8>)> = [
        "report.json",
        "report.xml",
        "report.md",
        "report.txt",
        "report.html",
    ]
    .iter()
    .map(|name| {
        (
            (*name).to_owned(),
            fs::read(dir.join("out").join(name)).unwrap(),
        )
    })
    .collect();
    reports.push(("stdout".to_owned(), run.stdout.into_bytes()));
    reports.push(("exit code".to_owned(), run.code.to_string().into_bytes()));
    reports
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn reports_are_byte_identical_across_runs_folders_and_threads(files in traces()) {
        let root = tempfile::tempdir().unwrap();
        let (here, there) = (root.path().join("here"), root.path().join("elsewhere/deeper"));
        write_case(&here, &files);
        write_case(&there, &files);
        let first = reports(&here, "2");
        prop_assert!(first.iter().all(|(_, bytes)| !bytes.is_empty()));
        prop_assert_eq!(&reports(&here, "2"), &first, "a second run in the same folder");
        prop_assert_eq!(&reports(&there, "2"), &first, "the same inputs in another folder");
        prop_assert_eq!(&reports(&here, "1"), &first, "on one thread");
    }
}
