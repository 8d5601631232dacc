//! Unit tests of the renderers, over the outcome of a small suite: one `check` per property
//! of a report and a row per case.

use rstest::rstest;
use serde_json::{Value, json};
use trailgate_expect::SuiteOutcome;

use crate::testing::{call, evaluate};
use crate::{JSON_VERSION, TextOptions, render_json, render_text};

/// Two tests, so that suite order shows: the seed's classes with a failing-prone gate and a
/// range, and a bare member with the default gate.
const SUITE: &str = r#"tests:
  - name: picks search then fetch
    agent: researcher
    equal_function_sets:
      classes:
        - name: search
          members: [brave.web_search, google.search]
        - name: fetch
          members: [http.get]
      expect:
        - tool_selection.f1: { ">=": 80 }
        - tool_selection.recall: { "<=": 100, ">=": 50 }
  - name: fetches
    equal_function_sets:
      classes:
        - name: fetch
          members: [get]
"#;

/// Run 1 misses `fetch`, makes two unexpected calls and repeats `search`; run 2 satisfies
/// both classes and repeats `search`. Over both: TP 3, FP 2, FN 1.
const MIXED: &[&str] = &[
    "google.search shell.exec brave.web_search fs.read",
    "http.get brave.web_search google.search",
];

/// Every gate of both tests holds.
const CLEAN: &[&str] = &["brave.web_search http.get"];

/// The outcome of [`SUITE`] with every test scored over `runs`, each a space-separated
/// list of calls.
fn outcome(runs: &[&str]) -> SuiteOutcome {
    evaluate("trailgate.yaml", SUITE, |_| {
        runs.iter()
            .map(|run| run.split_whitespace().map(call).collect())
            .collect()
    })
}

#[derive(Debug, Clone, Copy)]
enum Format {
    Text,
    Color,
    Json,
}

fn render(outcome: &SuiteOutcome, format: Format) -> Vec<u8> {
    let mut out = Vec::new();
    match format {
        Format::Text => render_text(outcome, TextOptions::with_color(false), &mut out),
        Format::Color => render_text(outcome, TextOptions::with_color(true), &mut out),
        Format::Json => render_json(outcome, &mut out),
    }
    .expect("writing to a Vec");
    out
}

fn json_report(runs: &[&str]) -> Value {
    let bytes = render(&outcome(runs), Format::Json);
    serde_json::from_slice(&bytes).expect("the JSON report parses")
}

// ---------------------------------------------------------------------------------------
// The JSON report, field by field.

#[test]
fn a_graders_run_entry_leaves_the_runs_source_to_sources() {
    let report = json_report(MIXED);
    let entry = &report["tests"][0]["equal_function_sets"]["runs"][1];
    assert_eq!(entry["run"], json!(2), "{report:#}");
    assert_eq!(entry.get("source"), None, "{report:#}");
    assert_eq!(entry.get("line"), None, "{report:#}");
}

#[test]
fn each_entry_of_a_tests_lists_is_one_line() {
    let text = String::from_utf8(render(&outcome(MIXED), Format::Json)).expect("UTF-8");
    // Every line of the report is a whole value, a key, or a bracket: an entry of `sources`,
    // `gates` or a grader's `runs` starts and ends on its own line.
    let entries: Vec<&str> = text
        .lines()
        .filter(|line| line.trim_start().starts_with("{\"run\":"))
        .collect();
    assert!(!entries.is_empty(), "{text}");
    for entry in entries {
        let entry = entry.trim().trim_end_matches(',');
        assert!(serde_json::from_str::<Value>(entry).is_ok(), "{entry}");
    }
}

#[test]
fn the_json_lines_report_says_what_the_json_report_says() {
    let outcome = outcome(MIXED);
    let report: Value =
        serde_json::from_slice(&render(&outcome, Format::Json)).expect("the JSON report parses");
    let mut bytes = Vec::new();
    crate::render_jsonl(&outcome, "trailgate.yaml", &mut bytes).expect("writing to a Vec");
    let lines: Vec<Value> = String::from_utf8(bytes)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("every line parses"))
        .collect();
    assert_eq!(lines[0]["type"], "header");
    assert_eq!(lines[0]["version"], report["version"]);
    let mut at = 1;
    for test in report["tests"].as_array().expect("tests") {
        let sources = test["sources"].as_array().expect("sources");
        for (index, source) in sources.iter().enumerate() {
            let run = &lines[at];
            at += 1;
            assert_eq!(run["type"], "run");
            assert_eq!(run["test"], test["name"]);
            for key in ["run", "source", "line", "calls", "passed"] {
                assert_eq!(run[key], source[key], "{key}");
            }
            let entry = &test["equal_function_sets"]["runs"][index];
            assert_eq!(run["equal_function_sets"]["f1"], entry["f1"]);
            assert_eq!(run["equal_function_sets"]["classes"], entry["classes"]);
        }
        let line = &lines[at];
        at += 1;
        assert_eq!(line["type"], "test");
        for key in ["name", "passed", "runs", "passed_runs", "metrics", "gates"] {
            assert_eq!(line[key], test[key], "{key}");
        }
    }
    assert_eq!(lines[at]["type"], "summary");
    assert_eq!(lines.len(), at + 1);
    assert_eq!(lines[at]["tests"], report["summary"]["tests"]);
    assert_eq!(lines[at]["passed"], report["passed"]);
}

#[track_caller]
fn check_json(runs: &[&str], pointer: &str, expected: &Value) {
    let report = json_report(runs);
    assert_eq!(report.pointer(pointer), Some(expected), "{report:#}");
}

#[rstest]
#[case::version(MIXED, "/version", json!(JSON_VERSION))]
#[case::version_is_3(MIXED, "/version", json!(3))]
#[case::failed(MIXED, "/passed", json!(false))]
#[case::passed(CLEAN, "/passed", json!(true))]
#[case::tests_in_suite_order(MIXED, "/tests/1/name", json!("fetches"))]
#[case::name(MIXED, "/tests/0/name", json!("picks search then fetch"))]
#[case::agent(MIXED, "/tests/0/agent", json!("researcher"))]
#[case::test_failed(MIXED, "/tests/0/passed", json!(false))]
#[case::test_passed(CLEAN, "/tests/0/passed", json!(true))]
#[case::runs(MIXED, "/tests/0/runs", json!(2))]
#[case::f1(MIXED, "/tests/0/metrics/tool_selection.f1", json!(66))]
#[case::metrics(MIXED, "/tests/0/metrics", json!({
    "tool_selection.f1": 66,
    "tool_selection.precision": 60,
    "tool_selection.recall": 75,
}))]
#[case::gates_failing(MIXED, "/tests/0/gates", json!([
    {"target": "tool_selection.f1", "op": ">=", "value": 80, "actual": 66, "passed": false, "line": 11},
    {"target": "tool_selection.recall", "op": ">=", "value": 50, "actual": 75, "passed": true, "line": 12},
    {"target": "tool_selection.recall", "op": "<=", "value": 100, "actual": 75, "passed": true, "line": 12},
]))]
#[case::gates_passing(CLEAN, "/tests/0/gates", json!([
    {"target": "tool_selection.f1", "op": ">=", "value": 80, "actual": 100, "passed": true, "line": 11},
    {"target": "tool_selection.recall", "op": ">=", "value": 50, "actual": 100, "passed": true, "line": 12},
    {"target": "tool_selection.recall", "op": "<=", "value": 100, "actual": 100, "passed": true, "line": 12},
]))]
#[case::default_gate(MIXED, "/tests/1/gates", json!([
    {"target": "tool_selection.f1", "op": ">=", "value": 50, "actual": 22, "passed": false, "line": 14},
]))]
#[case::true_positives(MIXED, "/tests/0/equal_function_sets/true_positives", json!(3))]
#[case::false_positives(MIXED, "/tests/0/equal_function_sets/false_positives", json!(2))]
#[case::false_negatives(MIXED, "/tests/0/equal_function_sets/false_negatives", json!(1))]
#[case::classes_once(MIXED, "/tests/0/equal_function_sets/classes", json!(["search", "fetch"]))]
#[case::missed_class_is_null(MIXED, "/tests/0/equal_function_sets/runs/0/satisfied_by/1", json!(null))]
#[case::unexpected_calls_in_trace_order(MIXED, "/tests/0/equal_function_sets/runs/0/unexpected_calls", json!([2, 4]))]
#[case::repeats_in_trace_order(MIXED, "/tests/0/equal_function_sets/runs/0/repeats", json!([[3, 1]]))]
#[case::repeat_of_the_second_run(MIXED, "/tests/0/equal_function_sets/runs/1/repeats", json!([[3, 1]]))]
#[case::each_calls_tool_once_in_its_sources_entry(MIXED, "/tests/0/sources/0/tools", json!(["google.search", "shell.exec", "brave.web_search", "fs.read"]))]
#[case::nothing_missed(CLEAN, "/tests/0/equal_function_sets/runs/0/satisfied_by", json!([1, 2]))]
#[case::run_source(MIXED, "/tests/0/sources/1/source", json!("traces/run2.json"))]
#[case::run_f1(MIXED, "/tests/0/equal_function_sets/runs/0/f1", json!(40))]
#[case::run_classes(MIXED, "/tests/0/equal_function_sets/runs/0/satisfied_by", json!([1, null]))]
#[case::bare_member_in_another_test(MIXED, "/tests/1/equal_function_sets/runs/1/satisfied_by/0", json!(1))]
fn json_fields(#[case] runs: &[&str], #[case] pointer: &str, #[case] expected: Value) {
    check_json(runs, pointer, &expected);
}

// ---------------------------------------------------------------------------------------
// Properties of both formats.

#[track_caller]
fn check_escapes(format: Format, expected: bool) {
    for runs in [MIXED, CLEAN] {
        let bytes = render(&outcome(runs), format);
        assert_eq!(
            bytes.contains(&0x1b),
            expected,
            "ESC in the {format:?} report"
        );
    }
}

#[rstest]
#[case::text_without_colour(Format::Text, false)]
#[case::text_with_colour(Format::Color, true)]
#[case::json(Format::Json, false)]
fn escapes(#[case] format: Format, #[case] expected: bool) {
    check_escapes(format, expected);
}

/// The same outcome gives the same bytes, whether rendered twice or rebuilt from scratch.
#[track_caller]
fn check_stable(format: Format, runs: &[&str]) {
    let first = outcome(runs);
    let bytes = render(&first, format);
    assert_eq!(render(&first, format), bytes, "rendered twice");
    assert_eq!(render(&outcome(runs), format), bytes, "rebuilt");
}

#[rstest]
#[case::text_mixed(Format::Text, MIXED)]
#[case::text_clean(Format::Text, CLEAN)]
#[case::color_mixed(Format::Color, MIXED)]
#[case::json_mixed(Format::Json, MIXED)]
#[case::json_clean(Format::Json, CLEAN)]
fn stable(#[case] format: Format, #[case] runs: &[&str]) {
    check_stable(format, runs);
}

#[track_caller]
fn check_trailing_newline(format: Format, runs: &[&str]) {
    let bytes = render(&outcome(runs), format);
    assert!(bytes.ends_with(b"\n"), "ends with a newline");
    assert!(!bytes.ends_with(b"\n\n"), "ends with one newline");
}

#[rstest]
#[case::text(Format::Text, MIXED)]
#[case::color(Format::Color, MIXED)]
#[case::json(Format::Json, MIXED)]
#[case::json_clean(Format::Json, CLEAN)]
fn trailing_newline(#[case] format: Format, #[case] runs: &[&str]) {
    check_trailing_newline(format, runs);
}

/// The text report without colour holds a line with each of `expected`'s words, in order.
#[track_caller]
fn check_text_line(runs: &[&str], expected: &[&str]) {
    let text = String::from_utf8(render(&outcome(runs), Format::Text)).expect("UTF-8");
    let found = text.lines().any(|line| {
        let mut rest = line;
        expected.iter().all(|word| match rest.find(word) {
            Some(at) => {
                rest = &rest[at + word.len()..];
                true
            }
            None => false,
        })
    });
    assert!(found, "no line with {expected:?} in:\n{text}");
}

#[rstest]
#[case::failed_test(MIXED, &["FAIL", "picks search then fetch"])]
#[case::missed_class(MIXED, &["fetch", "missed"])]
#[case::unexpected_call(MIXED, &["unexpected", "shell.exec", "2"])]
#[case::repeat(MIXED, &["repeat", "google.search", "3", "search"])]
#[case::failed_gate(MIXED, &["FAIL", "tool_selection.f1 >= 80", "66"])]
#[case::passed_gate(MIXED, &["PASS", "tool_selection.recall >= 50", "75"])]
#[case::passed_test(CLEAN, &["PASS", "fetches"])]
fn text_lines(#[case] runs: &[&str], #[case] expected: &[&str]) {
    check_text_line(runs, expected);
}
