//! Trace files that say nothing (docs/formats.md#a-file-that-says-nothing): a file read in an
//! agent's format that gives no
//! call warns on stderr and is noted in the report; a format named by hand that finds none
//! of its records is an input error; trailgate's own empty call list is neither.

use std::fs;

use rstest::rstest;

use crate::support::trailgate;

/// A Chat Completions conversation without a call: detected, read, and empty.
const CHAT_WITHOUT_CALLS: &str =
    r#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]"#;
/// trailgate's own call list, empty on purpose.
const OWN_EMPTY: &str = r#"{"tool_calls": []}"#;
const SUITE: &str = "tests:\n  - name: t\n    traces: [t.json]\n    equal_function_sets:\n      classes:\n        - name: search\n          members: [search]\n";

#[rstest]
#[case::detected_chat_without_calls(CHAT_WITHOUT_CALLS, true)]
#[case::own_empty_call_list(OWN_EMPTY, false)]
fn convert_warns_on_a_file_without_calls(#[case] trace: &str, #[case] warned: bool) {
    let temp = tempfile::tempdir().unwrap();
    fs::write(temp.path().join("t.json"), trace).unwrap();
    let run = trailgate(temp.path(), &["convert", "t.json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(r#""tool_calls":[]"#), "{}", run.stdout);
    let warning = "warning: `t.json` was read as `openai-chat` and holds no tool call";
    assert_eq!(run.stderr.contains(warning), warned, "{}", run.stderr);
    assert_eq!(run.stderr.is_empty(), !warned, "{}", run.stderr);
}

#[rstest]
#[case::text(
    "text",
    "note: `t.json` was read as `openai-chat` and holds no tool call"
)]
#[case::json("json", r#""notes": ["#)]
fn check_warns_and_notes_a_file_without_calls(#[case] format: &str, #[case] note: &str) {
    let temp = tempfile::tempdir().unwrap();
    fs::write(temp.path().join("trailgate.yaml"), SUITE).unwrap();
    fs::write(temp.path().join("t.json"), CHAT_WITHOUT_CALLS).unwrap();
    let run = trailgate(temp.path(), &["check", "--format", format]);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("warning: `t.json` was read as `openai-chat` and holds no tool call"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains(note), "{}", run.stdout);
}

#[test]
fn check_is_silent_on_an_own_empty_call_list() {
    let temp = tempfile::tempdir().unwrap();
    fs::write(temp.path().join("trailgate.yaml"), SUITE).unwrap();
    fs::write(temp.path().join("t.json"), OWN_EMPTY).unwrap();
    let run = trailgate(temp.path(), &["check", "--format", "json"]);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    assert_eq!(run.stderr, "");
    assert!(!run.stdout.contains("notes"), "{}", run.stdout);
}

#[rstest]
#[case::convert(&["convert", "--trace-format", "claude-code", "t.json"])]
#[case::check(&["check", "--trace-format", "claude-code"])]
fn a_forced_format_without_its_records_exits_2(#[case] args: &[&str]) {
    let temp = tempfile::tempdir().unwrap();
    fs::write(temp.path().join("trailgate.yaml"), SUITE).unwrap();
    fs::write(temp.path().join("t.json"), CHAT_WITHOUT_CALLS).unwrap();
    let run = trailgate(temp.path(), args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stdout, "", "nothing half-written");
    assert!(
        run.stderr.contains("trailgate::trace::no_records"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("holds no record of the trace format `claude-code`"),
        "{}",
        run.stderr
    );
}
