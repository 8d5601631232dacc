//! Unit tests of the GitHub Actions workflow commands: the escaping rules, the order of
//! the annotations, the cap of ten errors, and the plain lines after them.

use std::fmt::Write as _;

use rstest::rstest;
use trailgate_core::Percent;
use trailgate_expect::{Block, Gate, GateOutcome, GateValue, MetricValue, Op, SuiteOutcome};

use super::{relative_shortfall, shortfall};
use crate::escape::{github_data as data, github_property as property};
use crate::render_github;
use crate::testing::{call, evaluate};

/// Two tests: the first fails `f1 >= 80` by 14 (line 11), the second its default gate
/// `f1 >= 50` by 28 (the block's line, 14).
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

/// Run 1 misses `fetch` and makes two unexpected calls; run 2 satisfies both classes.
const MIXED: &[&str] = &[
    "google.search shell.exec brave.web_search fs.read",
    "http.get brave.web_search google.search",
];

/// Every gate of both tests holds.
const CLEAN: &[&str] = &["brave.web_search http.get"];

/// The outcome of `suite` with every test scored over `runs`, each a space-separated list
/// of calls.
fn outcome(suite: &str, runs: &[&str]) -> SuiteOutcome {
    evaluate("trailgate.yaml", suite, |_| {
        runs.iter()
            .map(|run| run.split_whitespace().map(call).collect())
            .collect()
    })
}

fn github(outcome: &SuiteOutcome, suite_path: &str) -> String {
    let mut out = Vec::new();
    render_github(outcome, suite_path, &mut out).expect("writing to a Vec");
    String::from_utf8(out).expect("UTF-8")
}

/// One test per threshold, named `t1`, `t2`, ..., each gating `f1 >= threshold` on a class
/// its run misses, so that each fails by its threshold.
fn thresholds(values: &[u8]) -> String {
    let mut suite = "tests:\n".to_owned();
    for (number, value) in (1..).zip(values) {
        write!(
            suite,
            "  - name: t{number}\n    equal_function_sets:\n      classes:\n        - name: x\n          members: [x]\n      expect:\n        - tool_selection.f1: {{ \">=\": {value} }}\n"
        )
        .expect("writing to a String");
    }
    suite
}

/// The test named in each `::error` line's title, in order.
fn error_titles(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|line| line.starts_with("::error "))
        .filter_map(|line| line.split_once(",title=trailgate%3A "))
        .filter_map(|(_, rest)| rest.split_once("::"))
        .map(|(title, _)| title)
        .collect()
}

// ---------------------------------------------------------------------------------------
// Escaping.

#[track_caller]
fn check_data(value: &str, expected: &str) {
    assert_eq!(data(value), expected);
}

#[rstest]
#[case::plain("f1 >= 80 (actual 66)", "f1 >= 80 (actual 66)")]
#[case::percent("100%", "100%25")]
#[case::newline_shown_escaped("a\nb", r"a\nb")]
#[case::carriage_return_shown_escaped("a\r\nb", r"a\r\nb")]
#[case::percent_before_the_others("%0A\n", r"%250A\n")]
#[case::terminal_escapes("a\u{1b}]0;x\u{7}", r"a\u{1b}]0;x\u{7}")]
#[case::colon_kept("a: b", "a: b")]
#[case::comma_kept("a, b", "a, b")]
#[case::double_colon_kept("a::b", "a::b")]
#[case::non_ascii("検索 café", "検索 café")]
fn data_escapes(#[case] value: &str, #[case] expected: &str) {
    check_data(value, expected);
}

#[track_caller]
fn check_property(value: &str, expected: &str) {
    assert_eq!(property(value), expected);
}

#[rstest]
#[case::plain("trailgate.yaml", "trailgate.yaml")]
#[case::colon("trailgate: picks", "trailgate%3A picks")]
#[case::comma("a,b", "a%2Cb")]
#[case::windows_path(r"C:\ci\trailgate.yaml", r"C%3A\ci\trailgate.yaml")]
#[case::percent("100%", "100%25")]
#[case::newline_shown_escaped("a\nb", r"a\nb")]
#[case::carriage_return_shown_escaped("a\rb", r"a\rb")]
#[case::escapes_not_escaped_twice("%3A:", "%253A%3A")]
fn property_escapes(#[case] value: &str, #[case] expected: &str) {
    check_property(value, expected);
}

/// A test named `name` (a YAML scalar) gives the title `title` and the log line `line`.
#[track_caller]
fn check_name(name: &str, title: &str, line: &str) {
    let text = github(
        &outcome(&thresholds(&[50]).replace("t1", name), &["y"]),
        "trailgate.yaml",
    );
    let annotation = format!("::error file=trailgate.yaml,line=8,title=trailgate%3A {title}::");
    assert!(
        text.lines().any(|l| l.starts_with(&annotation)),
        "no line starting {annotation:?} in:\n{text}"
    );
    assert!(
        text.lines().any(|l| l == line),
        "no line {line:?} in:\n{text}"
    );
}

#[rstest]
#[case::plain("fetches", "fetches", "FAIL fetches")]
#[case::colon_and_comma("'a: b, c'", "a%3A b%2C c", "FAIL a: b, c")]
#[case::percent("'100%'", "100%25", "FAIL 100%")]
#[case::newline(r#""a\nb""#, r"a\nb", r"FAIL a\nb")]
#[case::command_in_the_name(r#""x\n::error::y""#, r"x\n%3A%3Aerror%3A%3Ay", r"FAIL x\n::error::y")]
#[case::terminal_escape(r#""x\e]0;t\a""#, r"x\u{1b}]0;t\u{7}", r"FAIL x\u{1b}]0;t\u{7}")]
fn names(#[case] name: &str, #[case] title: &str, #[case] line: &str) {
    check_name(name, title, line);
}

/// The suite's path is a property: its `:` and `,` are escaped too.
#[test]
fn suite_path_is_escaped() {
    let text = github(&outcome(SUITE, MIXED), "ci/a,b:c.yaml");
    assert!(
        text.starts_with("::error file=ci/a%2Cb%3Ac.yaml,line=14,"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------
// Annotations.

#[track_caller]
fn check_lines(runs: &[&str], expected: &[&str]) {
    let text = github(&outcome(SUITE, runs), "trailgate.yaml");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines, expected, "{text}");
}

#[rstest]
#[case::worst_first(MIXED, &[
    "::error file=trailgate.yaml,line=14,title=trailgate%3A fetches::tool_selection.f1 >= 50 (actual 22): 1 missed class (fetch), 6 unexpected calls",
    "::error file=trailgate.yaml,line=11,title=trailgate%3A picks search then fetch::tool_selection.f1 >= 80 (actual 66): 1 missed class (fetch), 2 unexpected calls",
    "FAIL picks search then fetch",
    "FAIL fetches",
])]
#[case::all_passed(CLEAN, &["PASS picks search then fetch", "PASS fetches"])]
fn annotations(#[case] runs: &[&str], #[case] expected: &[&str]) {
    check_lines(runs, expected);
}

/// A gate not read from a file has no line, and its annotation no `line=`.
#[test]
fn line_omitted_without_one() {
    let mut outcome = outcome(SUITE, MIXED);
    for test in &mut outcome.tests {
        for gate in &mut test.gates {
            gate.gate.line = None;
        }
    }
    let text = github(&outcome, "trailgate.yaml");
    assert!(
        text.starts_with("::error file=trailgate.yaml,title=trailgate%3A fetches::"),
        "{text}"
    );
}

/// Failed gates with these thresholds annotate these tests, in this order.
#[track_caller]
fn check_order(values: &[u8], expected: &[&str]) {
    let text = github(&outcome(&thresholds(values), &["y"]), "trailgate.yaml");
    assert_eq!(error_titles(&text), expected, "{text}");
}

#[rstest]
#[case::largest_shortfall_first(&[30, 60, 45], &["t2", "t3", "t1"])]
#[case::ties_in_suite_order(&[50, 70, 50, 70], &["t2", "t4", "t1", "t3"])]
#[case::passed_gates_left_out(&[0, 40, 0], &["t2"])]
fn order(#[case] values: &[u8], #[case] expected: &[&str]) {
    check_order(values, expected);
}

#[track_caller]
fn check_shortfall(op: Op, value: u8, actual: u8, expected: u16) {
    let percent = |v| MetricValue::from(Percent::new(v).expect("a percent"));
    let gate = Gate {
        // Any metric: the shortfall depends on the comparison only.
        target: Block::ALL[0].targets()[0],
        op,
        value: GateValue::Value(percent(value)),
        line: None,
    };
    let outcome = GateOutcome {
        gate,
        actual: percent(actual),
        passed: op.holds(percent(actual), percent(value)),
        note: None,
        baseline: None,
    };
    // In millionths of a point.
    assert_eq!(shortfall(&outcome), u128::from(expected) * 1_000_000);
}

#[rstest]
#[case::ge(Op::Ge, 80, 66, 14)]
#[case::gt_at_the_bound(Op::Gt, 80, 80, 1)]
#[case::gt(Op::Gt, 80, 70, 11)]
#[case::le(Op::Le, 20, 35, 15)]
#[case::lt_at_the_bound(Op::Lt, 20, 20, 1)]
#[case::eq_below(Op::Eq, 50, 40, 10)]
#[case::eq_above(Op::Eq, 50, 60, 10)]
#[case::ne(Op::Ne, 50, 50, 1)]
#[case::passed(Op::Ge, 50, 60, 0)]
fn shortfalls(#[case] op: Op, #[case] value: u8, #[case] actual: u8, #[case] expected: u16) {
    check_shortfall(op, value, actual, expected);
}

/// A failed gate on `target` comparing `actual` with `value` (whole units).
fn failed_gate(target: trailgate_expect::Target, op: Op, value: u128, actual: u128) -> GateOutcome {
    let (value, actual) = (MetricValue::whole(value), MetricValue::whole(actual));
    GateOutcome {
        gate: Gate {
            target,
            op,
            value: GateValue::Value(value),
            line: None,
        },
        actual,
        passed: op.holds(actual, value),
        note: None,
        baseline: None,
    }
}

/// Failed gates are ordered by how far each is from passing for its scale: a percent out of
/// 100 points, a token count out of its limit.
#[test]
fn a_token_limit_weighs_its_shortfall_against_its_own_value() {
    let targets = || {
        Block::ALL
            .iter()
            .flat_map(|block| block.targets().iter().copied())
    };
    let percent = targets()
        .find(|t| t.is_percent())
        .expect("a percent metric");
    let tokens = targets()
        .find(|t| t.as_str() == "usage.input_tokens")
        .expect("the input tokens metric");
    // 500 tokens over a limit of 10,000: a twentieth of it.
    let over = relative_shortfall(&failed_gate(tokens, Op::Le, 10_000, 10_500));
    // 10 and 2 points under a percent gate.
    let ten = relative_shortfall(&failed_gate(percent, Op::Ge, 80, 70));
    let two = relative_shortfall(&failed_gate(percent, Op::Ge, 80, 78));
    assert_eq!((ten, over, two), (100_000, 50_000, 20_000));
}

/// With `failing` failed gates: how many `::error` lines, and the `::notice` line if any.
#[track_caller]
fn check_cap(failing: u8, errors: usize, notice: Option<&str>) {
    let values: Vec<u8> = (1..=failing).collect();
    let text = github(&outcome(&thresholds(&values), &["y"]), "trailgate.yaml");
    let count = text.lines().filter(|l| l.starts_with("::error ")).count();
    assert_eq!(count, errors, "{text}");
    let notices: Vec<&str> = text.lines().filter(|l| l.starts_with("::notice")).collect();
    assert_eq!(notices, notice.into_iter().collect::<Vec<_>>(), "{text}");
    let plain = text.lines().filter(|l| l.starts_with("FAIL t")).count();
    assert_eq!(plain, usize::from(failing), "a line per test:\n{text}");
}

#[rstest]
#[case::under(9, 9, None)]
#[case::at_the_cap(10, 10, None)]
#[case::one_over(
    11,
    10,
    Some(
        "::notice::trailgate: 1 more failed gate not annotated (GitHub shows at most 10 errors per step); the full report is in the job log"
    )
)]
#[case::far_over(
    25,
    10,
    Some(
        "::notice::trailgate: 15 more failed gates not annotated (GitHub shows at most 10 errors per step); the full report is in the job log"
    )
)]
fn cap(#[case] failing: u8, #[case] errors: usize, #[case] notice: Option<&str>) {
    check_cap(failing, errors, notice);
}

/// The ten annotations kept are the ten worst, and the notice follows them.
#[test]
fn cap_keeps_the_worst() {
    let values: Vec<u8> = (1..=12).collect();
    let text = github(&outcome(&thresholds(&values), &["y"]), "trailgate.yaml");
    let expected: Vec<String> = (3..=12).rev().map(|n| format!("t{n}")).collect();
    assert_eq!(error_titles(&text), expected, "{text}");
    let kinds: Vec<&str> = text
        .lines()
        .map(|l| l.split([' ', ':']).find(|w| !w.is_empty()).unwrap_or(""))
        .collect();
    let mut expected_kinds = vec!["error"; 10];
    expected_kinds.push("notice");
    expected_kinds.extend(["FAIL"; 12]);
    assert_eq!(kinds, expected_kinds, "{text}");
}

// ---------------------------------------------------------------------------------------
// Explanations of the graders' gates.

const GRADERS: &str = r#"tests:
  - name: coder
    graders:
      - type: tool-calls
        config:
          required: [create]
          disallowed: [view]
          sequence: [validate, create]
      - type: tool-correctness
        config:
          expected_tools: [validate, create, bash]
          exact_match: true
          threshold: 1
      - type: call-accuracy
        config:
          expected:
            - tool: create
              args: { path: a.ts }
            - tool: bash
              args: {}
          expect:
            - call_accuracy.recall: { ">=": 100 }
            - call_accuracy.precision: { "==": 100 }
"#;

#[track_caller]
fn check_message(runs: &[&str], expected: &str) {
    let text = github(&outcome(GRADERS, runs), "trailgate.yaml");
    assert!(
        text.lines().any(|line| line.ends_with(expected)),
        "no line ending {expected:?} in:\n{text}"
    );
}

#[rstest]
#[case::tool_calls(
    &[r#"validate create{"path":"a.ts"}"#, r#"create{"path":"b.ts"} view"#],
    "::tool_calls.pass_rate >= 100 (actual 50): 1 of 2 runs failed (1 disallowed call, 1 incomplete sequence)"
)]
#[case::tool_calls_unmet(
    &["validate view"],
    "::tool_calls.pass_rate >= 100 (actual 0): 1 of 1 run failed (1 unmet required entry, 1 disallowed call, 1 incomplete sequence)"
)]
#[case::tool_correctness_exact(
    &[r#"validate create{"path":"a.ts"}"#, r#"validate create{"path":"b.ts"} bash"#],
    "::tool_correctness.score >= 100 (actual 50): 1 of 2 runs not an exact match"
)]
#[case::call_accuracy(
    &[r#"validate create{"path":"b.ts"}"#],
    "::call_accuracy.recall >= 100 (actual 0): 1 incorrect call, 1 missed call, 1 extra call"
)]
#[case::call_accuracy_precision(
    &[r#"validate create{"path":"b.ts"}"#],
    "::call_accuracy.precision == 100 (actual 0): 1 incorrect call, 1 missed call, 1 extra call"
)]
fn messages(#[case] runs: &[&str], #[case] expected: &str) {
    check_message(runs, expected);
}

// ---------------------------------------------------------------------------------------
// Properties of the whole output.

/// The same outcome gives the same bytes, whether rendered twice or rebuilt from scratch.
#[track_caller]
fn check_stable(suite: &str, runs: &[&str]) {
    let first = outcome(suite, runs);
    let text = github(&first, "trailgate.yaml");
    assert_eq!(github(&first, "trailgate.yaml"), text, "rendered twice");
    assert_eq!(
        github(&outcome(suite, runs), "trailgate.yaml"),
        text,
        "rebuilt"
    );
    assert!(text.ends_with('\n'), "ends with a newline");
}

#[rstest]
#[case::mixed(SUITE, MIXED)]
#[case::clean(SUITE, CLEAN)]
#[case::capped(&thresholds(&[40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40]), &["y"])]
fn stable(#[case] suite: &str, #[case] runs: &[&str]) {
    check_stable(suite, runs);
}

/// `tests` tests, each with one gate on the baseline, skipped (no baseline is given): a
/// notice per skipped gate on its line, at most eight, then one counting the rest.
#[rstest]
#[case::one(1, 1, None)]
#[case::eight(8, 8, None)]
#[case::eleven(
    11,
    8,
    Some(
        "::notice::trailgate: 3 more skipped gates on the baseline not annotated; the full report is in the job log"
    )
)]
fn skipped_gates_are_notices(
    #[case] tests: usize,
    #[case] annotated: usize,
    #[case] rest: Option<&str>,
) {
    let mut suite = "tests:\n".to_owned();
    for number in 1..=tests {
        write!(
            suite,
            "  - name: t{number}\n    equal_function_sets:\n      classes:\n        - name: x\n          members: [x]\n      expect:\n        - tool_selection.f1: {{ \">=\": \"baseline - 2\" }}\n"
        )
        .expect("writing to a String");
    }
    let text = github(&outcome(&suite, &["x"]), "trailgate.yaml");
    let notices: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("::notice file=trailgate.yaml,line="))
        .collect();
    assert_eq!(notices.len(), annotated, "{text}");
    assert!(
        notices[0].ends_with(
            ",title=trailgate%3A t1::tool_selection.f1 >= baseline - 2 skipped: no --baseline given"
        ),
        "{text}"
    );
    let summary = text.lines().find(|line| line.starts_with("::notice::"));
    assert_eq!(summary, rest, "{text}");
    // A skipped gate fails nothing.
    assert!(!text.contains("::error"), "{text}");
    assert!(text.lines().any(|line| line == "PASS t1"), "{text}");
}
