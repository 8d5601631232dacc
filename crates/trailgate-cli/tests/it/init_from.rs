//! `trailgate init --from` (docs/init.md): the suite it writes passes on the runs it came
//! from, reads back to the names and values recorded, is the same bytes every time, and a
//! bad input writes nothing.

use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support::trailgate;

/// A fresh folder under the target folder, emptied.
fn folder(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("init-from")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fresh folder holding `run.json`, one run of one call.
fn folder_with_a_run(name: &str) -> PathBuf {
    let dir = folder(name);
    fs::write(
        dir.join("run.json"),
        r#"{"tool_calls": [{"name": "search"}]}"#,
    )
    .unwrap();
    dir
}

/// Strings that YAML reads otherwise when written plain.
const AWKWARD: &[&str] = &[
    "search",
    "a#b",
    "*star",
    "&anchor",
    "!tag",
    "quote\"d",
    "line\nbreak",
    "nel\u{85}ls\u{2028}",
    "colon: x",
    "- dash",
    "{brace}",
    "yes",
    "null",
    "12",
    "repos.list",
    "  spaced  ",
    "ü <&>",
];

fn awkward() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(AWKWARD).prop_map(str::to_owned),
        1 => Just("x".repeat(10_000)),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        awkward().prop_map(Value::String),
        any::<i32>().prop_map(|n| json!(n)),
        prop::sample::select(&[0.5, -2.25, 1e300][..]).prop_map(|n| json!(n)),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(&["k", "$ref", "a b"][..]).prop_map(str::to_owned),
                inner,
                0..3
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// One call as trailgate's call list writes it.
fn call() -> impl Strategy<Value = Value> {
    (
        prop::option::of(prop::sample::select(&["brave", "github.repos", "&srv"][..])),
        prop::sample::select(AWKWARD).prop_filter("a name", |name| !name.trim().is_empty()),
        prop::collection::btree_map(
            prop::sample::select(&["q", "page", "$schema", "path: x", "line\nkey"][..]),
            value(),
            0..3,
        ),
        prop::sample::select(&["ok", "error"][..]),
        0_u32..3,
        any::<bool>(),
    )
        .prop_map(|(server, name, args, status, step, completed)| {
            let mut call = json!({
                "name": name,
                "args": args,
                "status": status,
                "step": step,
                "completed": completed,
            });
            if let Some(server) = server {
                call["server"] = json!(server);
            }
            call
        })
}

/// Runs of one test: at least one, its first with a call.
fn runs() -> impl Strategy<Value = Vec<Vec<Value>>> {
    prop::collection::vec(prop::collection::vec(call(), 1..5), 1..4)
}

/// How the runs are written.
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// trailgate's call list, one `.json` file per run.
    Files,
    /// trailgate's call list, one `.jsonl` file of every run.
    Lines,
    /// `openai-chat` messages, one `.json` file per run: each call an assistant message, and a
    /// tool message with its result when it completed (no server, no status).
    OpenAiChat,
}

/// A run as `openai-chat` messages.
fn openai_chat(calls: &[Value]) -> Value {
    let mut messages = vec![json!({ "role": "user", "content": "go" })];
    for (index, call) in calls.iter().enumerate() {
        let id = format!("call_{index}");
        messages.push(json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [{
                "id": id,
                "type": "function",
                "function": { "name": call["name"], "arguments": call["args"].to_string() },
            }],
        }));
        if call["completed"] == json!(true) {
            messages.push(json!({ "role": "tool", "tool_call_id": id, "content": "done" }));
        }
    }
    json!({ "messages": messages })
}

/// Writes `runs` under `dir/runs/` in `layout`.
fn write_runs(dir: &Path, runs: &[Vec<Value>], layout: Layout) {
    let folder = dir.join("runs");
    fs::create_dir_all(&folder).unwrap();
    match layout {
        Layout::Lines => {
            let text: String = runs
                .iter()
                .map(|calls| json!({ "tool_calls": calls }).to_string() + "\n")
                .collect();
            fs::write(folder.join("all.jsonl"), text).unwrap();
        }
        Layout::Files | Layout::OpenAiChat => {
            for (index, calls) in runs.iter().enumerate() {
                let text = match layout {
                    Layout::OpenAiChat => openai_chat(calls),
                    _ => json!({ "tool_calls": calls }),
                };
                fs::write(folder.join(format!("run-{index}.json")), text.to_string()).unwrap();
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The written suite passes on its runs, whatever their names and values: a string
    /// written so that YAML reads it otherwise would name another tool or compare another
    /// value, and a gate would fail. Written twice, it is the same bytes, and `check` passes
    /// on it with one thread and with three.
    #[test]
    fn the_suite_written_from_runs_passes_on_them(
        runs in runs(),
        layout in prop::sample::select(&[Layout::Files, Layout::Lines, Layout::OpenAiChat][..]),
    ) {
        let dir = folder("property");
        write_runs(&dir, &runs, layout);
        let written = trailgate(&dir, &["init", "--from", "runs"]);
        prop_assert_eq!(written.code, 0, "{}", written.stderr);
        let suite = fs::read_to_string(dir.join("trailgate.yaml")).unwrap();
        let again = trailgate(&dir, &["init", "--from", "runs", "--output", "-"]);
        prop_assert_eq!(again.code, 0, "{}", again.stderr);
        prop_assert_eq!(&again.stdout, &suite);
        for threads in ["1", "3"] {
            let checked = trailgate(&dir, &["check", "trailgate.yaml", "--threads", threads]);
            prop_assert_eq!(checked.code, 0, "{}\n{}\n{}", suite, checked.stdout, checked.stderr);
        }
    }
}

#[test]
fn a_path_without_calls_or_traces_writes_nothing() {
    let dir = folder("bad-paths");
    fs::create_dir_all(dir.join("empty")).unwrap();
    fs::write(dir.join("silent.json"), r#"{"tool_calls": []}"#).unwrap();
    fs::write(
        dir.join("good.json"),
        r#"{"tool_calls": [{"name": "search"}]}"#,
    )
    .unwrap();
    for (path, message) in [
        ("missing", "no trace file at `missing`"),
        ("empty", "no trace file at `empty`"),
        ("silent.json", "no tool call was read from `silent.json`"),
    ] {
        let run = trailgate(&dir, &["init", "--from", "good.json", path]);
        assert_eq!(run.code, 2, "{path}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{path}: {}", run.stderr);
        assert!(
            !dir.join("trailgate.yaml").exists(),
            "{path}: nothing written"
        );
    }
    let leftovers: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name.to_string_lossy().starts_with(".trailgate-init-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn an_existing_output_is_replaced_only_with_force() {
    let dir = folder_with_a_run("exists");
    fs::write(dir.join("trailgate.yaml"), "mine\n").unwrap();
    let refused = trailgate(&dir, &["init", "--from", "run.json"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("`trailgate.yaml` exists already"));
    assert_eq!(
        fs::read_to_string(dir.join("trailgate.yaml")).unwrap(),
        "mine\n"
    );

    let forced = trailgate(&dir, &["init", "--from", "run.json", "--force"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert!(
        forced
            .stdout
            .starts_with("wrote trailgate.yaml: 1 test from 1 run;")
    );
    let suite = fs::read_to_string(dir.join("trailgate.yaml")).unwrap();
    assert!(suite.contains("- name: \"run\""), "{suite}");
    assert_eq!(trailgate(&dir, &["check"]).code, 0);
}

#[cfg(unix)]
#[test]
fn a_link_at_the_output_is_not_followed() {
    let dir = folder_with_a_run("link");
    std::os::unix::fs::symlink(dir.join("elsewhere.yaml"), dir.join("trailgate.yaml")).unwrap();
    let refused = trailgate(&dir, &["init", "--from", "run.json"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(!dir.join("elsewhere.yaml").exists());
    let forced = trailgate(&dir, &["init", "--from", "run.json", "--force"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert!(
        !dir.join("elsewhere.yaml").exists(),
        "the link is replaced, not followed"
    );
    assert!(
        fs::symlink_metadata(dir.join("trailgate.yaml"))
            .unwrap()
            .is_file()
    );
}

#[test]
fn traces_are_written_relative_to_the_suite_with_globs_escaped() {
    let dir = folder("relative");
    fs::create_dir_all(dir.join("runs/a[1]*")).unwrap();
    fs::write(
        dir.join("runs/a[1]*/run?.json"),
        r#"{"tool_calls": [{"name": "search"}, {"name": "fetch"}]}"#,
    )
    .unwrap();
    fs::create_dir_all(dir.join("suites")).unwrap();
    let run = trailgate(
        &dir,
        &[
            "init",
            "--from",
            "runs/a[1]*",
            "--output",
            "suites/agent.yaml",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let suite = fs::read_to_string(dir.join("suites/agent.yaml")).unwrap();
    assert!(
        suite.contains("- \"../runs/a[[]1[]][*]/run[?].json\""),
        "{suite}"
    );
    assert!(suite.contains("- name: \"a[1]*\""), "{suite}");
    assert_eq!(trailgate(&dir, &["check", "suites/agent.yaml"]).code, 0);
}

/// The folders of `fixtures/` that hold trace files, but the `bad-` cases and those whose
/// runs call no tool.
fn fixture_trace_folders() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut folders = Vec::new();
    let mut stack: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            path.is_dir() && !name.starts_with("bad-") && name != "no-calls"
        })
        .collect();
    while let Some(dir) = stack.pop() {
        let mut has_traces = false;
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if dir.components().any(|c| c.as_os_str() == "traces")
                && matches!(
                    path.extension().and_then(|e| e.to_str()),
                    Some("json" | "jsonl")
                )
            {
                has_traces = true;
            }
        }
        if has_traces {
            folders.push(dir);
        }
    }
    folders.sort();
    folders
}

#[test]
fn every_fixture_s_runs_give_a_passing_suite() {
    let out = folder("fixtures");
    let folders = fixture_trace_folders();
    assert!(folders.len() > 50, "{} folders", folders.len());
    let mut failed = Vec::new();
    for runs in &folders {
        let from = runs.to_string_lossy().into_owned();
        let run = trailgate(&out, &["init", "--from", &from, "--force"]);
        if run.code != 0 {
            failed.push(format!("{from}: {}", run.stderr));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn real_traces_of_three_formats_give_passing_suites() {
    let wild = Path::new(env!("CARGO_MANIFEST_DIR")).join("../trailgate-trace/tests/wild");
    let out = folder("wild");
    for file in [
        "claude-code/spotter__tool_heavy.jsonl",
        "codex/codemie__rollout-codex-tui-0.125.0.jsonl",
        "openai-chat/vercel-ai__groq-tool-call.json",
    ] {
        let path = wild.join(file);
        assert!(path.is_file(), "{file} is in the repository");
        let from = path.to_string_lossy().into_owned();
        let run = trailgate(&out, &["init", "--from", &from, "--force"]);
        assert_eq!(run.code, 0, "{file}: {}", run.stderr);
        let check = trailgate(&out, &["check"]);
        assert_eq!(check.code, 0, "{file}: {}", check.stdout);
    }
}

#[test]
fn how_to_read_runs_needs_runs_to_read() {
    let dir = folder("no-from");
    let run = trailgate(&dir, &["init", "--trace-format", "claude-code"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("give `--from PATH`"), "{}", run.stderr);
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 0, "nothing written");
}
