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

/// Issue 40: `1e1000000000000000000`, whose exponent is past 64 bits, was never compared
/// (`$gt: 1000` let it through, `$not: {$gte: 1}` matched it). Every comparison is exact,
/// whatever the exponent, in every trace format.
#[rstest]
#[case::gt_catches_it("{ $gt: 1000 }", "1e1000000000000000000", 0)]
#[case::not_gte_does_not_match("{ $not: { $gte: 1 } }", "1e1000000000000000000", 1)]
#[case::lt_below_every_number("{ $lt: -1000 }", "-1e1000000000000000000", 0)]
#[case::gt_zero_tiny("{ $gt: 0 }", "1e-1000000000000000000", 0)]
#[case::number_type("{ $type: number }", "1e1000000000000000000", 0)]
#[case::integer_type("{ $type: integer }", "1e1000000000000000000", 0)]
#[case::not_an_integer("{ $type: integer }", "1e-1000000000000000000", 1)]
#[case::equal_by_value("10e999999999999999999", "1e1000000000000000000", 0)]
#[case::one_apart("1e1000000000000000001", "1e1000000000000000000", 1)]
// Numbers the suite writes past what a float holds (issue 40, also): read as written.
#[case::suite_past_a_float("{ $gte: 1e400 }", "1e401", 0)]
#[case::suite_past_a_float_below("{ $gte: 1e400 }", "9e399", 1)]
#[case::suite_below_a_float("{ $gt: 1e-400 }", "1e-401", 1)]
#[case::suite_literal_past_a_float("1e400", "10e399", 0)]
#[case::suite_literal_below_a_float("1e-400", "0", 1)]
fn numbers_past_the_exponent_limit_compare_exactly(
    #[case] expected: &str,
    #[case] in_trace: &str,
    #[case] code: i32,
) {
    for (name, trace) in traces(in_trace) {
        let (exit, stdout) = run(name, &trace, expected, "text");
        assert_eq!(
            exit, code,
            "{name}: {expected} against {in_trace}\n{stdout}"
        );
    }
}

/// The issue's own suite: a `disallowed` entry that a payment past the exponent limit
/// breaks, which let the run pass (exit 0) before.
#[test]
fn a_disallowed_call_past_the_exponent_limit_fails_the_gate() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let suite = "tests:\n  - name: pays\n    traces: own.json\n    graders:\n      - type: tool-calls\n        config:\n          disallowed:\n            - name: \"^pay$\"\n              args: { amount: { $gt: 1000 } }\n          expect:\n            - tool_calls.pass_rate: { \">=\": 100 }\n";
    fs::write(dir.path().join("trailgate.yaml"), suite).expect("the suite is written");
    for amount in [
        "1e1000000000000000000",
        "1E+1000000000000000000",
        "0.5e99999999999999999999999999999999999999",
    ] {
        let trace =
            format!(r#"{{"tool_calls": [{{"name": "pay", "args": {{"amount": {amount}}}}}]}}"#);
        fs::write(dir.path().join("own.json"), trace).expect("the trace is written");
        let run = trailgate(dir.path(), &["check", "trailgate.yaml"]);
        assert_eq!(run.code, 1, "{amount}: {}", run.stdout);
        assert!(run.stdout.contains("broken disallowed"), "{}", run.stdout);
    }
}

/// In `tool-calls`, a plain string is a regex, but a number written past a float's range
/// is a number.
#[test]
fn a_tool_calls_number_past_a_float_is_a_number() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let suite = "tests:\n  - name: pays\n    traces: own.json\n    graders:\n      - type: tool-calls\n        config:\n          required:\n            - name: \"^pay$\"\n              args: { amount: 1e400, fee: 1e-400 }\n          expect:\n            - tool_calls.pass_rate: { \">=\": 100 }\n";
    fs::write(dir.path().join("trailgate.yaml"), suite).expect("the suite is written");
    for (args, code) in [
        (r#"{"amount": 10e399, "fee": 0.1e-399}"#, 0),
        (r#"{"amount": "1e400", "fee": 1e-400}"#, 1),
        (r#"{"amount": 1e400, "fee": 0}"#, 1),
    ] {
        let trace = format!(r#"{{"tool_calls": [{{"name": "pay", "args": {args}}}]}}"#);
        fs::write(dir.path().join("own.json"), trace).expect("the trace is written");
        let run = trailgate(dir.path(), &["check", "trailgate.yaml"]);
        assert_eq!(run.code, code, "{args}: {}{}", run.stdout, run.stderr);
    }
}
