//! Hostile and broken inputs that once gave a wrong answer, a panic or a misleading
//! message: each gives the right score or a clear error naming the cause.

use std::fs;

use rstest::rstest;

use crate::support::toolgate;

/// A chat completion (`openai-chat`) whose one call has `arguments`.
fn openai_chat(arguments: &str) -> String {
    let arguments = serde_json::to_string(arguments).unwrap();
    format!(
        r#"{{"id":"c","object":"chat.completion","choices":[{{"index":0,"finish_reason":"tool_calls","message":{{"role":"assistant","content":null,"tool_calls":[{{"id":"1","type":"function","function":{{"name":"f","arguments":{arguments}}}}}]}}}}]}}"#
    )
}

const CALL_F_WITHOUT_ARGS: &str = "tests:\n  - name: t\n    traces: t.json\n    graders:\n      \
    - type: call-accuracy\n        config:\n          expected:\n            - tool: f\n          \
    expect:\n            - call_accuracy.f1: { \"==\": 100 }\n";

#[rstest]
#[case::not_json("{not json", 1, "incorrect")]
#[case::a_bare_word("hello", 1, "incorrect")]
#[case::empty_object("{}", 0, "PASS")]
#[case::deep_but_within_the_limit(&nested(124), 1, "incorrect")]
#[case::just_past_the_value_limit(&nested(125), 2, "more than 124 deep")]
#[case::past_the_parser_limit(&nested(130), 2, "more than 124 deep")]
#[case::far_past_it(&nested(10_000), 2, "more than 124 deep")]
fn unreadable_arguments_never_score_as_correct(
    #[case] arguments: &str,
    #[case] code: i32,
    #[case] shown: &str,
) {
    let temp = tempfile::tempdir().unwrap();
    fs::write(temp.path().join("toolgate.yaml"), CALL_F_WITHOUT_ARGS).unwrap();
    fs::write(temp.path().join("t.json"), openai_chat(arguments)).unwrap();
    let run = toolgate(temp.path(), &["check", "--color", "never"]);
    assert_eq!(run.code, code, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(shown) || run.stderr.contains(shown),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

/// An object nested `depth` levels deep.
fn nested(depth: usize) -> String {
    format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
}

/// A suite whose one long line is `prefix`, 70,000 `a`s, then `suffix`.
fn long_line_suite(prefix: &str, suffix: &str) -> String {
    format!("{prefix}{}{suffix}", "a".repeat(70_000))
}

#[rstest]
#[case::syntax(long_line_suite("tests: [{name: '", "', traces: t.json, : : ]\n"))]
#[case::runs_mismatch(long_line_suite(
    "tests:\n  - {runs: 3, traces: t.json, graders: [{type: tool-correctness, config: {expected_tools: [x]}}], name: ",
    "}\n"
))]
#[case::duplicate_name({
    let test = long_line_suite(
        "  - {traces: t.json, graders: [{type: tool-correctness, config: {expected_tools: [x]}}], name: ",
        "}\n",
    );
    format!("tests:\n{test}{test}")
})]
fn a_diagnostic_past_column_65535_is_shown_not_a_panic(#[case] suite: String) {
    let temp = tempfile::tempdir().unwrap();
    fs::write(temp.path().join("toolgate.yaml"), suite).unwrap();
    fs::write(
        temp.path().join("t.json"),
        r#"{"tool_calls":[{"name":"x"}]}"#,
    )
    .unwrap();
    let run = toolgate(temp.path(), &["check", "--color", "never"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("toolgate.yaml:"), "{}", run.stderr);
    // The long value is cut, the line shown by a window.
    assert!(run.stderr.len() < 8_000, "{} bytes", run.stderr.len());
}
