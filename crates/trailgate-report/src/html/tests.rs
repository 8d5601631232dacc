//! Unit tests of the HTML report's pieces: the escaping of the embedded data, the cuts, and
//! what a failed test's section says about why it failed.

use rstest::rstest;
use serde_json::{Value, json};

use super::{base64, cut, failures, write_escaped};
use crate::testing::{call, evaluate};

#[track_caller]
fn check_escaped(json: &str, expected: &str) {
    let mut out = Vec::new();
    write_escaped(&mut out, json.as_bytes()).expect("writes into memory");
    assert_eq!(String::from_utf8(out).expect("UTF-8"), expected);
}

#[rstest]
#[case::plain(r#"{"a":"b"}"#, r#"{"a":"b"}"#)]
#[case::script_end(
    r#"["</script><script>alert(1)</script>"]"#,
    r#"["\u003c/script\u003e\u003cscript\u003ealert(1)\u003c/script\u003e"]"#
)]
#[case::comment(r#"["<!--"]"#, r#"["\u003c!--"]"#)]
#[case::ampersand(r#"["a&amp;b"]"#, r#"["a\u0026amp;b"]"#)]
#[case::line_separators("[\"a\u{2028}b\u{2029}c\"]", r#"["a\u2028b\u2029c"]"#)]
#[case::other_three_byte_characters("[\"\u{2027}\u{20ac}…\"]", "[\"\u{2027}\u{20ac}…\"]")]
fn the_embedded_data_cannot_end_its_script(#[case] json: &str, #[case] expected: &str) {
    check_escaped(json, expected);
}

#[test]
fn escaped_data_is_still_the_same_json() {
    let value = serde_json::json!({"s": "<script>&\u{2028}</script>", "n": [1, 2]});
    let mut out = Vec::new();
    write_escaped(&mut out, value.to_string().as_bytes()).expect("writes into memory");
    let read: serde_json::Value = serde_json::from_slice(&out).expect("still JSON");
    assert_eq!(read, value);
}

#[rstest]
#[case::short("abc", 5, "abc")]
#[case::exact("abcde", 5, "abcde")]
#[case::cut("abcdefg", 5, "abcde… [2 more bytes not shown]")]
#[case::on_a_character_boundary("aé", 2, "a… [2 more bytes not shown]")]
fn long_values_are_cut_with_a_marker(
    #[case] text: &str,
    #[case] cap: usize,
    #[case] expected: &str,
) {
    assert_eq!(cut(text, cap), expected);
}

#[test]
fn the_page_assets_cannot_end_the_script_or_style_early() {
    assert!(!super::SCRIPT.to_ascii_lowercase().contains("</script"));
    assert!(!super::CSS.to_ascii_lowercase().contains("</style"));
    assert!(
        !super::SCRIPT.contains("innerHTML"),
        "the script builds the page with DOM calls only"
    );
    assert!(
        super::PAGE.contains("/*DATA*/")
            && super::PAGE.contains("/*CSS*/")
            && super::PAGE.contains("/*SCRIPT*/")
    );
}

#[rstest]
#[case::empty(b"", "")]
#[case::one(b"f", "Zg==")]
#[case::two(b"fo", "Zm8=")]
#[case::three(b"foo", "Zm9v")]
#[case::six(b"foobar", "Zm9vYmFy")]
fn base64_is_the_standard_one(#[case] bytes: &[u8], #[case] expected: &str) {
    assert_eq!(base64(bytes), expected);
}

/// What the page's "Why it failed" shows for the one test of `suite` scored over `runs`
/// (each a space-separated list of calls), as the page's data holds it.
#[track_caller]
fn check_failures(suite: &str, runs: &[&str], expected: &Value) {
    let outcome = evaluate("trailgate.yaml", suite, |_| {
        runs.iter()
            .map(|run| run.split_whitespace().map(call).collect())
            .collect()
    });
    let test = &outcome.tests[0];
    let shown = serde_json::to_value(failures(test)).expect("plain data");
    assert_eq!(&shown, expected, "{shown:#}");
}

/// The seed's classes; a gate on f1 and one on recall.
const CLASSES: &str = r#"tests:
  - name: picks search then fetch
    equal_function_sets:
      classes:
        - name: search
          members: [brave.web_search, google.search]
        - name: fetch
          members: [http.get]
      expect:
        - tool_selection.f1: { ">=": 80 }
        - tool_selection.recall: { ">=": 100 }
"#;

/// A `tool-calls` grader that forbids `exec` and a reliability block, without classes.
const TOOL_CALLS: &str = r#"tests:
  - name: never runs a shell
    graders:
      - type: tool-calls
        config:
          disallowed:
            - name: "^exec$"
    reliability:
      k: 1
      expect:
        - reliability.pass_rate.lower: { ">=": 90 }
"#;

/// A gate that pins the aggregate: it fails over runs in which no grader finds anything.
const PINNED: &str = r#"tests:
  - name: pinned
    equal_function_sets:
      classes:
        - name: fetch
          members: [http.get]
      expect:
        - tool_selection.f1: { "<=": 50 }
"#;

#[rstest]
#[case::a_passing_test_has_none(CLASSES, &["google.search http.get"], json!([]))]
// The seed's second run: the text report's words for the gate, the counts behind it and
// the run's findings; two failed gates of one grader share its explanation.
#[case::the_graders_words_for_its_gates(CLASSES, &["google.search shell.exec"], json!([{
    "gates": [[0, "tool_selection.f1 >= 80"], [1, "tool_selection.recall >= 100"]],
    "key": "equal_function_sets",
    "title": "Equal-function sets",
    "note": "1 missed class (fetch), 1 unexpected call",
    "runs": [[1, ["missed fetch", "unexpected shell.exec (call 2)"]]],
}]))]
// Only the runs with findings are named, by number; the reliability gate, which no run's
// findings explain, has the block's sums.
#[case::each_grader_in_the_order_of_its_first_gate(
    TOOL_CALLS,
    &["web.search", "shell.exec", "web.search"],
    json!([{
        "gates": [[0, "tool_calls.pass_rate >= 100"]],
        "key": "tool-calls",
        "title": "Tool calls",
        "note": "1 of 3 runs failed (1 disallowed call)",
        "runs": [[2, ["broken disallowed `^exec$`: call 1 `shell.exec`"]]],
    }, {
        "gates": [[1, "reliability.pass_rate.lower >= 90"]],
        "key": "reliability",
        "title": "Reliability",
        "note": "pass_rate 66 (20 to 94)  pass_at_k 66  pass_hat_k 66  pass^k for k = 1..3: 66 33 0",
        "runs": [],
    }])
)]
#[case::a_gate_no_run_explains(PINNED, &["http.get"], json!([{
    "gates": [[0, "tool_selection.f1 <= 50"]],
    "key": "equal_function_sets",
    "title": "Equal-function sets",
    "note": "tool selection: TP 1  FP 0  FN 0  precision 100  recall 100  f1 100",
    "runs": [],
}]))]
// User text in the findings is shown as the text report shows it: control characters
// escaped, so a line break or a bidi control in a tool's name cannot reshape the page.
#[case::control_characters_escaped(CLASSES, &["google.search evil\u{202e}.exec\u{1b}"], json!([{
    "gates": [[0, "tool_selection.f1 >= 80"], [1, "tool_selection.recall >= 100"]],
    "key": "equal_function_sets",
    "title": "Equal-function sets",
    "note": "1 missed class (fetch), 1 unexpected call",
    "runs": [[1, ["missed fetch", "unexpected evil\\u{202e}.exec\\u{1b} (call 2)"]]],
}]))]
fn a_failed_test_says_why_in_the_text_reports_words(
    #[case] suite: &str,
    #[case] runs: &[&str],
    #[case] expected: Value,
) {
    check_failures(suite, runs, &expected);
}
