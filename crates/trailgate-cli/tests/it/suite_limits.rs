//! Suites that asked for unbounded work or memory through their value matchers (issue 40,
//! items 4 to 6), from the user's side: each is read and scored within its bounds, or
//! refused with a diagnostic at its place (docs/robustness.md#limits).

use std::fs;
use std::process::Command;

/// The data segment `trailgate` runs in for [`aliases_of_one_regex_are_compiled_once`]:
/// 256 MiB, an eighth of what the suite held before.
const REGEX_DATA_LIMIT_KIB: u64 = 256 * 1024;

/// A chat completion (`openai-chat`) with one call of `f` whose arguments are `arguments`.
fn call_of_f(arguments: &serde_json::Value) -> String {
    serde_json::json!({
        "id": "c", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "1", "type": "function", "function": {
                "name": "f", "arguments": arguments.to_string()
            }}]
        }}]
    })
    .to_string()
}

/// A suite whose one test expects a call of `f` with `args`, and all of its calls right.
fn expecting(args: &str) -> String {
    format!(
        "tests:\n  - name: t\n    traces: t.json\n    graders:\n      - type: call-accuracy\n        \
         config:\n          expected:\n            - tool: f\n              args: {args}\n          \
         expect:\n            - call_accuracy.f1: {{ \"==\": 100 }}\n"
    )
}

/// 300 aliases of one `$regex` of megabytes: 7 KB of suite held 1.3 GB (each alias compiled
/// the pattern again), and 1,000 aborted at 4 GB. The pattern is compiled once, so the suite
/// is read and scored with the process's data segment limited by `ulimit -d`, where an
/// allocation past the limit aborts.
#[test]
fn aliases_of_one_regex_are_compiled_once() {
    let temp = tempfile::tempdir().unwrap();
    let aliases = vec!["*w"; 299].join(", ");
    let suite = expecting(&format!(
        "{{q: {{$any_of: [&w {{$regex: '\\w{{64}}'}}, {aliases}]}}}}"
    ));
    fs::write(temp.path().join("trailgate.yaml"), suite).unwrap();
    let trace = call_of_f(&serde_json::json!({"q": "a".repeat(64)}));
    fs::write(temp.path().join("t.json"), trace).unwrap();
    let output = Command::new("sh")
        .args([
            "-c",
            &format!("ulimit -d {REGEX_DATA_LIMIT_KIB} && exec \"$0\" \"$@\""),
            env!("CARGO_BIN_EXE_trailgate"),
            "check",
            "trailgate.yaml",
            "--color",
            "never",
        ])
        .current_dir(temp.path())
        .env_clear()
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(stderr, "");
    assert!(stdout.contains("PASS"), "{stdout}");
}
