//! Unit tests of the Markdown report, over the outcomes of small suites: one `check` per
//! property of the report and a row per case.

use rstest::rstest;
use serde_json::{Value, json};
use trailgate_expect::SuiteOutcome;

use crate::render_markdown;
use crate::testing::{call, evaluate};

/// A test of each block, failing, and one that passes.
const SUITE: &str = r#"tests:
  - name: picks search then fetch
    equal_function_sets:
      classes:
        - name: search
          members: [brave.web_search, google.search]
        - name: fetch
          members: [http.get]
      expect:
        - tool_selection.f1: { ">=": 80 }
        - tool_selection.recall: { ">=": 50 }
  - name: coder | reviewer
    graders:
      - type: tool-calls
        config:
          required:
            - create
            - name: bash
              command: "npm test"
          disallowed:
            - name: view
              path: "secret\\.env$"
          sequence:
            - name: validate
            - name: create
  - name: hotel agent
    graders:
      - type: tool-correctness
        config:
          expected_tools: [search_hotels, book_hotel]
          threshold: 1
      - type: call-accuracy
        config:
          expected:
            - tool: search_hotels
              args: { city: Paris }
            - tool: book_hotel
              args: { hotel_id: h-17 }
          expect:
            - call_accuracy.f1: { ">=": 90 }
  - name: fetches
    equal_function_sets:
      classes:
        - name: fetch
          members: [get]
"#;

/// The runs of each test of [`SUITE`], in suite order: each run a space-separated list of
/// calls, `server.name` or `name`, with JSON arguments glued on.
const RUNS: &[&[&str]] = &[
    // Run 1 misses `fetch` and makes two unexpected calls; run 2 satisfies both classes.
    &[
        "google.search shell.exec brave.web_search fs.read",
        "http.get brave.web_search",
    ],
    // Run 1 passes; run 2 runs the wrong command, views the secret and creates before it
    // validates.
    &[
        r#"validate create bash{"command":"npm test"}"#,
        r#"create view{"path":"config/secret.env"} bash{"command":"npm run lint"} validate"#,
    ],
    // Finds the hotel, sorts, and books another room; never books in the second run.
    &[
        r#"search_hotels{"city":"Paris"} sort_by_price book_hotel{"hotel_id":"h-42"}"#,
        r#"search_hotels{"city":"Paris"}"#,
    ],
    &["http.get"],
];

/// The calls of a run: split at the spaces outside JSON arguments.
fn split(run: &str) -> Vec<&str> {
    let mut calls = Vec::new();
    let mut depth = 0_usize;
    let mut start = 0;
    for (at, c) in run.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ' ' if depth == 0 => {
                calls.push(&run[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    calls.push(&run[start..]);
    calls.retain(|call| !call.is_empty());
    calls
}

/// The outcome of `suite` with test `i` scored over `runs[i]`.
fn outcome(suite: &str, runs: &[&[&str]]) -> SuiteOutcome {
    let mut outcome = evaluate("trailgate.yaml", suite, |test| {
        runs.get(test).map_or_else(Vec::new, |runs| {
            runs.iter()
                .map(|run| split(run).into_iter().map(call).collect())
                .collect()
        })
    });
    // Only the tests given runs are reported.
    outcome.tests.truncate(runs.len());
    outcome
}

fn markdown(outcome: &SuiteOutcome) -> String {
    let mut out = Vec::new();
    render_markdown(outcome, &mut out).expect("writing to a Vec");
    String::from_utf8(out).expect("UTF-8")
}

/// A suite of one test named `name` (a YAML scalar), with one class that its run misses.
fn named(name: &str) -> String {
    let suite = format!(
        "tests:\n  - name: {name}\n    equal_function_sets:\n      classes:\n        - name: x\n          members: [x]\n"
    );
    markdown(&outcome(&suite, &[&["y"]]))
}

// ---------------------------------------------------------------------------------------
// Lines of the report.

/// The report of [`SUITE`] over [`RUNS`] holds `expected` as a whole line.
#[track_caller]
fn check_line(expected: &str) {
    let text = markdown(&outcome(SUITE, RUNS));
    assert!(
        text.lines().any(|line| line == expected),
        "no line {expected:?} in:\n{text}"
    );
}

#[rstest]
#[case::verdict("## trailgate: 1 of 4 tests passed")]
#[case::tests_header("| Test | Verdict | Runs | Metrics |")]
#[case::tests_alignment("| --- | --- | ---: | --- |")]
#[case::test_row_with_metrics(
    "| `picks search then fetch` | FAIL | 1 of 2 passed (flaky) | tool_selection.precision 60, tool_selection.recall 75, tool_selection.f1 66 |"
)]
#[case::test_row_of_graders(
    "| `hotel agent` | FAIL | 0 of 2 passed (failing) | tool_correctness.score 75, call_accuracy.precision 50, call_accuracy.recall 50, call_accuracy.f1 50, call_accuracy.arguments 50 |"
)]
#[case::passed_test_row(
    "| `fetches` | PASS | 1 | tool_selection.precision 100, tool_selection.recall 100, tool_selection.f1 100 |"
)]
#[case::gates_header("| Test | Gate | Actual | Verdict |")]
#[case::failed_gate_row("| `picks search then fetch` | `tool_selection.f1 >= 80` | 66 | FAIL |")]
#[case::passed_gate_row(
    "| `picks search then fetch` | `tool_selection.recall >= 50` | 75 | PASS |"
)]
#[case::default_gate_row("| `fetches` | `tool_selection.f1 >= 50` | 100 | PASS |")]
#[case::pipe_in_a_cell(
    "| `coder \\| reviewer` | FAIL | 1 of 2 passed (flaky) | tool_calls.pass_rate 50 |"
)]
#[case::pipe_in_a_gate_row("| `coder \\| reviewer` | `tool_calls.pass_rate >= 100` | 50 | FAIL |")]
#[case::failed_section("#### `picks search then fetch`")]
#[case::failed_gates("Failed gates: `tool_selection.f1 >= 80` (actual 66)")]
#[case::pipe_kept_outside_tables("#### `coder | reviewer`")]
#[case::selection_label("**Equal-function sets**")]
#[case::missed_and_unexpected(
    "- run 1 (`traces/run1.json`): missed `fetch`; unexpected `shell.exec` (call 2), `fs.read` (call 4)"
)]
#[case::tool_calls_label("**Tool calls**")]
#[case::tool_calls_run(
    "- run 2 (`traces/run2.json`): unmet required `` `bash` with command `npm test` ``: no matching call (closest: call 3 `bash` has command `npm run lint`); broken disallowed `` `view` with path `secret\\.env$` ``: call 2 `view`; sequence stopped at entry 2 `` `create` ``: no call after the match of entry 1 matches it (closest: call 1 `create` matches it but came before call 4, the match of entry 1)"
)]
#[case::tool_correctness_missed("- run 2 (`traces/run2.json`): missed `book_hotel`")]
#[case::call_accuracy_incorrect_and_extra(
    r#"- run 1 (`traces/run1.json`): incorrect `book_hotel {"hotel_id":"h-17"}`: call 3 has `{"hotel_id":"h-42"}` (differs in `hotel_id`; `hotel_id`: expected `"h-17"`, found `"h-42"`); extra `sort_by_price` (call 2)"#
)]
#[case::call_accuracy_missed(
    r#"- run 2 (`traces/run2.json`): missed `book_hotel {"hotel_id":"h-17"}`"#
)]
fn lines(#[case] expected: &str) {
    check_line(expected);
}

/// The report of [`SUITE`] over [`RUNS`] holds no line with `unexpected`.
#[track_caller]
fn check_no_line_with(unexpected: &str) {
    let text = markdown(&outcome(SUITE, RUNS));
    assert!(
        !text.lines().any(|line| line.contains(unexpected)),
        "a line with {unexpected:?} in:\n{text}"
    );
}

#[rstest]
#[case::no_section_for_a_passed_test("#### `fetches`")]
#[case::no_fact_for_a_clean_run("- run 2 (`traces/run2.json`): missed `fetch`")]
#[case::no_fact_for_a_passed_tool_calls_run("- run 1 (`traces/run1.json`): unmet")]
fn absent(#[case] unexpected: &str) {
    check_no_line_with(unexpected);
}

/// The failed sections come after both tables, in suite order.
#[test]
fn sections_in_order() {
    let text = markdown(&outcome(SUITE, RUNS));
    let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("no {needle:?}"));
    let order = [
        "### Tests",
        "### Gates",
        "### Failed tests",
        "#### `picks search then fetch`",
        "#### `coder | reviewer`",
        "#### `hotel agent`",
    ];
    for pair in order.windows(2) {
        assert!(at(pair[0]) < at(pair[1]), "{pair:?} out of order:\n{text}");
    }
}

// ---------------------------------------------------------------------------------------
// User text in table cells.

/// A test named `name` (a YAML scalar) shows as `expected` in the tests table.
#[track_caller]
fn check_name_cell(name: &str, expected: &str) {
    let text = named(name);
    let row = format!("| {expected} | FAIL | 1 |");
    assert!(
        text.lines().any(|line| line.starts_with(&row)),
        "no row starting {row:?} in:\n{text}"
    );
}

#[rstest]
#[case::plain("fetches", "`fetches`")]
#[case::pipe("'a | b'", "`a \\| b`")]
#[case::pipes_in_a_row("'a||b'", "`a\\|\\|b`")]
#[case::escaped_pipe(r"'a\|b'", r"`a\\|b`")]
#[case::backtick("'a `b` c'", "``a `b` c``")]
#[case::double_backtick("'a ``b'", "```a ``b```")]
#[case::leading_backtick("'`b'", "`` `b ``")]
#[case::newline(r#""a\nb""#, r"`a\nb`")]
#[case::carriage_return_and_tab(r#""a\r\tb""#, r"`a\r\tb`")]
#[case::edge_spaces("' a '", "`  a  `")]
#[case::markdown_left_as_is("'*a* _b_ [c](d) <e> #1 @team'", "`*a* _b_ [c](d) <e> #1 @team`")]
#[case::non_ascii("'検索 café'", "`検索 café`")]
fn name_cells(#[case] name: &str, #[case] expected: &str) {
    check_name_cell(name, expected);
}

// ---------------------------------------------------------------------------------------
// Properties of the whole report.

/// The same outcome gives the same bytes, whether rendered twice or rebuilt from scratch.
#[track_caller]
fn check_stable(suite: &str, runs: &[&[&str]]) {
    let first = outcome(suite, runs);
    let text = markdown(&first);
    assert_eq!(markdown(&first), text, "rendered twice");
    assert_eq!(markdown(&outcome(suite, runs)), text, "rebuilt");
}

#[track_caller]
fn check_trailing_newline(suite: &str, runs: &[&[&str]]) {
    let text = markdown(&outcome(suite, runs));
    assert!(text.ends_with('\n'), "ends with a newline");
    assert!(!text.ends_with("\n\n"), "ends with one newline");
}

const PASSING: &[&[&str]] = &[
    &["google.search http.get"],
    &[r#"validate create bash{"command":"npm test"}"#],
    &[r#"search_hotels{"city":"Paris"} book_hotel{"hotel_id":"h-17"}"#],
    &["get"],
];

#[rstest]
#[case::failing(RUNS)]
#[case::passing(PASSING)]
fn stable(#[case] runs: &[&[&str]]) {
    check_stable(SUITE, runs);
}

#[rstest]
#[case::failing(RUNS)]
#[case::passing(PASSING)]
fn trailing_newline(#[case] runs: &[&[&str]]) {
    check_trailing_newline(SUITE, runs);
}

/// Every gate passed: the verdict, both tables, and no failed section.
#[test]
fn passing_suite() {
    let text = markdown(&outcome(SUITE, PASSING));
    assert!(
        text.starts_with("## trailgate: 4 of 4 tests passed\n"),
        "{text}"
    );
    assert!(text.contains("### Gates"), "{text}");
    assert!(!text.contains("Failed"), "{text}");
}

/// A value that does not fit a comment is cut, and its control characters are shown.
#[test]
fn long_arguments_are_cut() {
    let long: String = "x".repeat(100);
    let suite = "tests:\n  - name: t\n    graders:\n      - type: call-accuracy\n        config:\n          expected:\n            - tool: a\n              args: { k: v }\n";
    let run = format!(r#"a{{"k":"{long}"}}"#);
    let text = markdown(&outcome(suite, &[&[run.as_str()]]));
    let value: Value = json!({ "k": long });
    let head: String = value.to_string().chars().take(60).collect();
    assert!(text.contains(&format!("call 1 has `{head}…`")), "{text}");
}
