//! Numbers in traces keep their exact value and their text, whatever the trace format: an
//! integer beyond 64 bits is neither rounded to a float for comparison nor rewritten in the
//! report, and a number too large for a float in any field does not refuse the file.

use std::fs;

use rstest::rstest;

use crate::support::trailgate;

/// A suite that expects `pay` called with `amount: <expected>`, against one trace.
fn run(trace_name: &str, trace: &str, expected: &str, format: &str) -> (i32, String) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let suite = format!(
        "tests:\n  - name: pays\n    traces: {trace_name}\n    graders:\n      - type: call-accuracy\n        config:\n          expected:\n            - {{ tool: pay, args: {{ amount: {expected} }} }}\n          expect:\n            - call_accuracy.f1: {{ \">=\": 100 }}\n"
    );
    fs::write(dir.path().join("trailgate.yaml"), suite).expect("the suite is written");
    fs::write(dir.path().join(trace_name), trace).expect("the trace is written");
    let run = trailgate(dir.path(), &["check", "trailgate.yaml", "--format", format]);
    (run.code, run.stdout)
}

/// trailgate's own call list, whose arguments are kept as text, and an `OpenAI` chat trace, whose
/// argument string is parsed: the same numbers either way.
fn traces(amount: &str) -> [(&'static str, String); 2] {
    [
        (
            "own.json",
            format!(r#"{{"tool_calls": [{{"name": "pay", "args": {{"amount": {amount}}}}}]}}"#),
        ),
        (
            "chat.json",
            format!(
                r#"{{"messages": [{{"role": "assistant", "tool_calls": [{{"id": "c1", "type": "function", "function": {{"name": "pay", "arguments": "{{\"amount\": {amount}}}"}}}}]}}]}}"#
            ),
        ),
    ]
}

#[rstest]
#[case::same_big_integer("123456789012345678901234567890", "123456789012345678901234567890", 0)]
#[case::big_integers_one_apart(
    "123456789012345678901234567890",
    "123456789012345678901234567891",
    1
)]
#[case::past_2_53_one_apart("9007199254740993", "9007199254740992", 1)]
#[case::float_spelling_of_an_integer("9007199254740993.0", "9007199254740993", 0)]
#[case::exponent_spelling("100", "1e2", 0)]
fn integers_compare_by_exact_value(
    #[case] in_trace: &str,
    #[case] expected: &str,
    #[case] code: i32,
) {
    for (name, trace) in traces(in_trace) {
        let (exit, stdout) = run(name, &trace, expected, "text");
        assert_eq!(exit, code, "{name}: {stdout}");
    }
}

#[test]
fn a_big_integer_is_reported_as_written() {
    for (name, trace) in traces("123456789012345678901234567891") {
        let (exit, stdout) = run(name, &trace, "123456789012345678901234567890", "json");
        assert_eq!(exit, 1, "{name}");
        assert!(
            stdout.contains("123456789012345678901234567891"),
            "{name}: the call's amount as written in\n{stdout}"
        );
        assert!(!stdout.contains("1.2345678901234568e"), "{name}: no float");
    }
}

#[rstest]
#[case::own_format(
    "own.json",
    r#"{"tool_calls": [{"name": "pay", "args": {"amount": 5}, "note": 1e400}]}"#
)]
#[case::in_the_arguments(
    "own.json",
    r#"{"tool_calls": [{"name": "pay", "args": {"amount": 5, "big": 1e400}}]}"#
)]
#[case::chat_format(
    "chat.json",
    r#"{"id": 1e400, "messages": [{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "pay", "arguments": "{\"amount\": 5}"}}]}]}"#
)]
fn a_number_too_large_for_a_float_does_not_refuse_the_file(
    #[case] name: &str,
    #[case] trace: &str,
) {
    let (exit, stdout) = run(name, trace, "5", "text");
    // Read and scored: 0 when the only call matches, 1 when an extra key makes it differ.
    assert!(exit == 0 || exit == 1, "{name}: exit {exit}\n{stdout}");
    assert!(stdout.contains("pays"), "{stdout}");
}
