//! Command-line behaviour that is not a fixture: defaults, flags, determinism.

use std::fs;
use std::path::Path;

use crate::support::trailgate;

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"))
}

#[test]
fn suite_defaults_to_trailgate_yaml_in_the_current_folder() {
    let run = trailgate(&fixtures().join("seed-000-first-run"), &["check"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("PASS research-agent picks search then fetch")
    );
}

#[test]
fn suite_path_may_point_into_another_folder() {
    let run = trailgate(
        fixtures(),
        &[
            "check",
            "seed-000-second-run/trailgate.yaml",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    // Sources are relative to the suite's folder, wherever trailgate runs from.
    assert!(
        run.stdout
            .contains(r#""source":"traces/research-agent-picks-search-then-fetch.json""#)
    );
}

#[test]
fn reports_are_byte_identical_across_runs() {
    let dir = fixtures().join("several-runs");
    for format in ["text", "json"] {
        let first = trailgate(&dir, &["check", "--format", format]);
        let second = trailgate(&dir, &["check", "--format", format]);
        assert_eq!(first.stdout, second.stdout);
    }
}

#[test]
fn traces_dir_moves_the_default_location() {
    let temp = tempfile::tempdir().unwrap();
    let seed = fixtures().join("seed-000-first-run");
    fs::copy(
        seed.join("trailgate.yaml"),
        temp.path().join("trailgate.yaml"),
    )
    .unwrap();
    fs::create_dir(temp.path().join("elsewhere")).unwrap();
    // The second run's trace, under the first run's test name, in another folder.
    fs::copy(
        fixtures().join("seed-000-second-run/traces/research-agent-picks-search-then-fetch.json"),
        temp.path()
            .join("elsewhere/research-agent-picks-search-then-fetch.json"),
    )
    .unwrap();
    let run = trailgate(temp.path(), &["check", "--traces-dir", "elsewhere"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("f1 50"));
}

#[test]
fn color_is_off_without_a_terminal_and_on_when_asked() {
    let dir = fixtures().join("seed-000-second-run");
    let plain = trailgate(&dir, &["check"]);
    assert!(!plain.stdout.contains('\u{1b}'));
    let colored = trailgate(&dir, &["--color", "always", "check"]);
    assert!(colored.stdout.contains('\u{1b}'));
}

#[test]
fn usage_errors_exit_2() {
    let run = trailgate(fixtures(), &["check", "--format", "yaml"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
}

#[test]
fn accuracy_reads_standard_input_when_given_a_dash() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let input = fs::read(fixtures().join("accuracy-command-seed-first/input.json")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_trailgate"))
        .args(["accuracy", "-"])
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains(r#""score": 0.4,"#), "{stdout}");
    assert!(
        stdout
            .contains("Accuracy Score: 40.0% | Correct: 1/2 | Incorrect: 1 | Missed: 0 | Extra: 1")
    );
}

#[test]
fn accuracy_on_a_missing_file_exits_2() {
    let run = trailgate(fixtures(), &["accuracy", "no-such-input.json"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("trailgate::trace::io"),
        "{}",
        run.stderr
    );
}

#[test]
fn convert_output_reads_back_unchanged() {
    let dir = fixtures().join("event-trajectory");
    let first = trailgate(
        &dir,
        &["convert", "traces/coding-agent-event-trajectory.jsonl"],
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    let temp = tempfile::tempdir().unwrap();
    fs::write(temp.path().join("converted.jsonl"), &first.stdout).unwrap();
    let second = trailgate(temp.path(), &["convert", "converted.jsonl"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    // Only the `source` differs: the converted file is a new file.
    let strip = |text: &str| -> Vec<String> {
        text.lines()
            .map(|line| {
                let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
                value["source"] = serde_json::Value::Null;
                value.to_string()
            })
            .collect()
    };
    assert_eq!(strip(&first.stdout), strip(&second.stdout));
    assert!(
        first.stdout.contains(r#""completed":false"#),
        "an unfinished call is marked"
    );
}

/// The agents `convert` writes read back as they were, through the one-pass reader of
/// trailgate's call list and, for an empty name, refused by the derived parse.
#[test]
fn convert_output_with_agents_reads_back_unchanged() {
    let cases = [
        ("agents-openai-agents-handoff", "customer-service.jsonl"),
        ("agents-convert-otel-agent-name", "research-crew.otlp.json"),
        ("agents-convert-adk-agent-tool", "trip-planner.session.json"),
        (
            "agents-convert-claude-code-sidechain",
            "session-with-sidechain.jsonl",
        ),
    ];
    for (fixture, file) in cases {
        let first = trailgate(&fixtures().join(fixture), &["convert", file]);
        assert_eq!(first.code, 0, "{fixture}: {}", first.stderr);
        assert!(
            first.stdout.contains(r#""agent":""#),
            "{fixture}: {}",
            first.stdout
        );
        let temp = tempfile::tempdir().unwrap();
        fs::write(temp.path().join("converted.jsonl"), &first.stdout).unwrap();
        let second = trailgate(temp.path(), &["convert", "converted.jsonl"]);
        assert_eq!(second.code, 0, "{fixture}: {}", second.stderr);
        let calls = |text: &str| -> Vec<serde_json::Value> {
            text.lines()
                .map(|line| {
                    serde_json::from_str::<serde_json::Value>(line).unwrap()["tool_calls"].clone()
                })
                .collect()
        };
        assert_eq!(calls(&first.stdout), calls(&second.stdout), "{fixture}");
    }
    let temp = tempfile::tempdir().unwrap();
    fs::write(
        temp.path().join("empty.json"),
        r#"{"tool_calls": [{"name": "search", "agent": ""}]}"#,
    )
    .unwrap();
    let run = trailgate(temp.path(), &["convert", "empty.json"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("a non-empty agent name"),
        "{}",
        run.stderr
    );
}

#[test]
fn convert_fails_whole_on_a_file_of_no_known_format() {
    let temp = tempfile::tempdir().unwrap();
    fs::write(
        temp.path().join("good.json"),
        r#"{"tool_calls": [{"name": "a"}]}"#,
    )
    .unwrap();
    fs::write(temp.path().join("odd.json"), r#"{"something": "else"}"#).unwrap();
    let run = trailgate(temp.path(), &["convert", "good.json", "odd.json"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "", "nothing half-written");
    assert!(
        run.stderr.contains("trailgate::trace::unknown_format"),
        "{}",
        run.stderr
    );
}

#[test]
fn trace_format_and_naming_flags_apply_to_convert() {
    let temp = tempfile::tempdir().unwrap();
    fs::write(
        temp.path().join("t.json"),
        r#"{"tool_calls": [{"name": "mcp_github_list"}]}"#,
    )
    .unwrap();
    let run = trailgate(
        temp.path(),
        &[
            "convert",
            "--trace-format",
            "trailgate",
            "--naming",
            "mcp-single",
            "--servers",
            "github",
            "t.json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(r#""name":"list","server":"github""#),
        "{}",
        run.stdout
    );
    let bad = trailgate(temp.path(), &["convert", "--naming", "regex", "t.json"]);
    assert_eq!(bad.code, 2, "regex without a pattern is a usage error");
}

#[test]
fn several_reports_from_one_run_equal_the_single_reports() {
    let dir = fixtures().join("several-runs");
    let temp = tempfile::tempdir().unwrap();
    let json_path = temp.path().join("report.json");
    let both = trailgate(
        &dir,
        &[
            "check",
            "--format",
            "json",
            "--output",
            json_path.to_str().unwrap(),
            "--format",
            "text",
        ],
    );
    assert_eq!(both.code, 0, "{}", both.stderr);
    let text = trailgate(&dir, &["check", "--format", "text"]);
    let json = trailgate(&dir, &["check", "--format", "json"]);
    assert_eq!(both.stdout, text.stdout);
    assert_eq!(fs::read_to_string(&json_path).unwrap(), json.stdout);
    let left: Vec<_> = fs::read_dir(temp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("report.json")],
        "no temporary file is left"
    );
}

#[test]
fn an_invalid_suite_writes_no_report_file() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("report.json");
    let run = trailgate(
        &fixtures().join("bad-unknown-key"),
        &[
            "check",
            "--format",
            "json",
            "--output",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 2);
    assert!(!out.exists(), "nothing half-written");
}

#[test]
fn a_failed_run_leaves_existing_reports_as_they_were() {
    let temp = tempfile::tempdir().unwrap();
    let json = temp.path().join("report.json");
    let junit = temp.path().join("report.xml");
    fs::write(&json, "old json").unwrap();
    fs::write(&junit, "old junit").unwrap();
    // An invalid trace: nothing is scored, nothing is written.
    let run = trailgate(
        &fixtures().join("bad-trace-malformed-json"),
        &[
            "check",
            "--format",
            "json",
            "--output",
            json.to_str().unwrap(),
            "--format",
            "junit",
            "--output",
            junit.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 2);
    assert_eq!(fs::read_to_string(&json).unwrap(), "old json");
    assert_eq!(fs::read_to_string(&junit).unwrap(), "old junit");
    // A valid run whose second report cannot be written: the first is not replaced either.
    let run = trailgate(
        &fixtures().join("several-runs"),
        &[
            "check",
            "--format",
            "json",
            "--output",
            json.to_str().unwrap(),
            "--format",
            "junit",
            "--output",
            temp.path()
                .join("no-such-folder/report.xml")
                .to_str()
                .unwrap(),
        ],
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("cannot write"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(fs::read_to_string(&json).unwrap(), "old json");
    let left: Vec<_> = fs::read_dir(temp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        left,
        ["report.json", "report.xml"],
        "no temporary file is left"
    );
}

#[rstest::rstest]
#[case::two_to_stdout(&["check", "--format", "json", "--format", "text"])]
#[case::output_before_two_formats(&["check", "--output", "x.json", "--format", "json", "--format", "text"])]
#[case::two_outputs_for_one_format(&["check", "--format", "json", "--output", "a", "--output", "b"])]
fn report_target_misuse_is_a_usage_error(#[case] args: &[&str]) {
    let run = trailgate(&fixtures().join("seed-000-first-run"), args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn init_then_check_passes_and_init_never_overwrites() {
    let temp = tempfile::tempdir().unwrap();
    let init = trailgate(temp.path(), &["init"]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    let check = trailgate(temp.path(), &["check"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    let suite = fs::read_to_string(temp.path().join("trailgate.yaml")).unwrap();
    fs::write(temp.path().join("trailgate.yaml"), "# mine\n").unwrap();
    let again = trailgate(temp.path(), &["init"]);
    assert_eq!(again.code, 2);
    assert_eq!(
        fs::read_to_string(temp.path().join("trailgate.yaml")).unwrap(),
        "# mine\n"
    );
    assert!(suite.contains("tests:"));
}

/// A report that is not a file is copied before it is read, up to the document limit: an
/// endless one (`/dev/zero`) is refused instead of filling the disk, by `diff`, by `merge`
/// and by `check --baseline`.
#[cfg(unix)]
#[test]
fn diff_refuses_an_endless_input() {
    let dir = fixtures().join("merge-shards");
    for (args, code, report) in [
        (
            &["diff", "shards/1.json", "/dev/zero"][..],
            "trailgate::diff::io",
            "report",
        ),
        (
            &["merge", "shards/1.json", "/dev/zero"][..],
            "trailgate::merge::io",
            "shard report",
        ),
        (
            &["check", "--baseline", "/dev/zero"][..],
            "trailgate::baseline::io",
            "baseline",
        ),
    ] {
        let run = trailgate(&dir, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(run.stderr.contains(code), "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!(
                "cannot read {report} `/dev/zero`: it is not a file and gives more than 256 MiB"
            )),
            "{args:?}: {}",
            run.stderr
        );
    }
}

/// The input of `trailgate accuracy` is one document, read whole up to the document limit:
/// an endless one (`/dev/zero`) is refused once it passes 256 MiB, one byte past it read.
#[cfg(unix)]
#[test]
fn the_accuracy_input_past_its_size_limit_is_refused() {
    let run = trailgate(fixtures(), &["accuracy", "/dev/zero"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("trailgate::accuracy::too_large"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("`/dev/zero` is larger than 256 MiB"),
        "{}",
        run.stderr
    );
}

/// A diagnostic cuts a message after 1,000 characters: a suite value it quotes can be
/// megabytes long. Two tests named by the same 5,000 characters make one message that
/// quotes the name.
#[test]
fn a_message_is_cut_after_1000_characters() {
    let temp = tempfile::tempdir().unwrap();
    let name = "n".repeat(5_000);
    let test = format!(
        "  - name: {name}\n    equal_function_sets:\n      classes:\n        - name: c\n          \
         members: [a]\n"
    );
    fs::write(
        temp.path().join("trailgate.yaml"),
        format!("tests:\n{test}{test}"),
    )
    .unwrap();
    let run = trailgate(temp.path(), &["check", "--color", "never"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("trailgate::suite::duplicate_name"),
        "{}",
        run.stderr
    );
    // The message (``test name `...` is used twice``) and the help each quote the name, each
    // cut after 1,000 characters; the source shows a window of the line.
    assert!(
        run.stderr.contains("n… (4026 more characters)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("n… (4052 more characters)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.len() < name.len(),
        "{} bytes of stderr",
        run.stderr.len()
    );
}

/// A `command` matcher that meets calls without a `command` argument cannot judge them: the
/// diagnostic names the first 10 such calls of each matcher and counts the rest.
#[test]
fn a_matcher_that_cannot_judge_names_its_first_10_calls() {
    let temp = tempfile::tempdir().unwrap();
    let run = r#"{"tool_calls":[{"name":"bash","args":{"script":"make"}}]}"#;
    fs::write(temp.path().join("t.jsonl"), vec![run; 15].join("\n")).unwrap();
    fs::write(
        temp.path().join("trailgate.yaml"),
        "tests:\n  - name: t\n    traces: t.jsonl\n    graders:\n      - type: tool-calls\n        \
         config:\n          required:\n            - name: \"^bash$\"\n              command: \
         \"npm test\"\n",
    )
    .unwrap();
    let run = trailgate(temp.path(), &["check", "--color", "never"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("trailgate::grader::missing_argument"),
        "{}",
        run.stderr
    );
    let named = run.stderr.matches("call 1 `bash`").count();
    assert_eq!(named, 10, "{}", run.stderr);
    assert!(run.stderr.contains("and 5 more"), "{}", run.stderr);
}

/// A baseline whose metric is past 100 (`255`) is no report trailgate wrote: it is refused,
/// not read as a report without the metric, which skipped the gate and passed.
#[test]
fn a_baseline_metric_past_100_is_refused() {
    let dir = fixtures().join("baseline-gates");
    let temp = tempfile::tempdir().unwrap();
    let base = fs::read_to_string(dir.join("base.json")).unwrap();
    let edited = base.replacen(
        "\"tool_selection.f1\": 100",
        "\"tool_selection.f1\": 255",
        1,
    );
    assert_ne!(
        base, edited,
        "the fixture's report has tool_selection.f1 at 100"
    );
    let path = temp.path().join("base.json");
    fs::write(&path, edited).unwrap();
    let path = path.to_str().unwrap();
    for args in [
        &["check", "--baseline", path][..],
        &["diff", path, "base.json"][..],
    ] {
        let run = trailgate(&dir, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("expected a percent from 0 to 100"),
            "{args:?}: {}",
            run.stderr
        );
    }
}

/// A `trailgate.yaml` that is a link leading nowhere is a file that exists: `init` does not
/// follow it to create the file it names elsewhere.
#[cfg(unix)]
#[test]
fn init_does_not_follow_a_dangling_link() {
    let temp = tempfile::tempdir().unwrap();
    let elsewhere = temp.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    let project = temp.path().join("project");
    fs::create_dir(&project).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("x"), project.join("trailgate.yaml")).unwrap();
    let init = trailgate(&project, &["init"]);
    assert_eq!(init.code, 2, "{}", init.stderr);
    assert!(init.stderr.contains("exists already"), "{}", init.stderr);
    assert!(!elsewhere.join("x").exists());
    assert!(!project.join("traces").exists());
}

#[test]
fn init_points_at_the_docs_of_the_installed_version() {
    // A user who installed a wheel or a binary has no docs/ folder: the comments and the
    // closing line name the docs of this version in the project's repository.
    let temp = tempfile::tempdir().unwrap();
    let init = trailgate(temp.path(), &["init"]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    let docs = format!(
        "{}/blob/v{}/docs",
        env!("CARGO_PKG_REPOSITORY"),
        env!("CARGO_PKG_VERSION")
    );
    assert!(docs.starts_with("https://github.com/"), "{docs}");
    assert!(
        init.stdout.ends_with(&format!("docs: {docs}/suite.md\n")),
        "{}",
        init.stdout
    );
    let suite = fs::read_to_string(temp.path().join("trailgate.yaml")).unwrap();
    assert!(
        suite.contains(&format!("reference: {docs}/suite.md\n")),
        "{suite}"
    );
    assert!(suite.contains(&format!("# {docs}/formats.md\n")), "{suite}");
    assert!(!suite.contains("{docs}"), "{suite}");
}

#[test]
fn github_format_appends_the_summary_when_the_runner_asks() {
    use std::process::Command;
    let temp = tempfile::tempdir().unwrap();
    let summary = temp.path().join("summary.md");
    fs::write(&summary, "earlier step\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_trailgate"))
        .args(["check", "--format", "github"])
        .current_dir(fixtures().join("seed-000-second-run"))
        .env_clear()
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.starts_with("::error file=trailgate.yaml,line=13,"),
        "{stdout}"
    );
    let written = fs::read_to_string(&summary).unwrap();
    assert!(
        written.starts_with("earlier step\n## trailgate: 0 of 1 test passed"),
        "{written}"
    );
}

#[test]
fn clicolor_force_colours_without_a_terminal_and_no_color_wins() {
    use std::process::Command;
    let run = |vars: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_trailgate"));
        command
            .arg("check")
            .current_dir(fixtures().join("seed-000-second-run"))
            .env_clear();
        for (key, value) in vars {
            command.env(key, value);
        }
        String::from_utf8(command.output().unwrap().stdout).unwrap()
    };
    assert!(!run(&[]).contains('\u{1b}'));
    assert!(run(&[("CLICOLOR_FORCE", "1")]).contains('\u{1b}'));
    assert!(!run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]).contains('\u{1b}'));
}

#[test]
fn a_diagnostic_on_a_long_line_shows_a_window_with_the_real_position() {
    let temp = tempfile::tempdir().unwrap();
    fs::create_dir(temp.path().join("traces")).unwrap();
    let good = format!(
        r#"{{"tool_calls":[{{"name":"a","args":{{"x":"{}"}}}}]}}"#,
        "y".repeat(200_000)
    );
    let bad = format!(
        r#"{{"tool_calls":[{{"name":"b","args":{{"x":"{}"}} oops]}}"#,
        "z".repeat(300_000)
    );
    fs::write(
        temp.path().join("traces/t.jsonl"),
        format!("{good}\n{bad}\n"),
    )
    .unwrap();
    fs::write(
        temp.path().join("trailgate.yaml"),
        "tests:\n  - name: t\n    traces: traces/t.jsonl\n    equal_function_sets:\n      classes:\n        - name: a\n          members: [a]\n",
    )
    .unwrap();
    let run = trailgate(temp.path(), &["check"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.len() < 2_000,
        "{} bytes of stderr",
        run.stderr.len()
    );
    // The error is on line 2, at the column of `oops`, counted in the whole line.
    let column = bad.find("oops").unwrap() + 1;
    assert!(
        run.stderr.contains(&format!("[traces/t.jsonl:2:{column}]")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("\"} oops]}"), "{}", run.stderr);
}

#[test]
fn a_suite_past_its_size_limit_is_refused_before_it_is_read() {
    let temp = tempfile::tempdir().unwrap();
    let suite = temp.path().join("trailgate.yaml");
    let line = format!("# {}\n", "x".repeat(1021));
    fs::write(&suite, line.repeat((16 << 20) / line.len() + 1)).unwrap();
    let run = trailgate(temp.path(), &["check"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("trailgate::suite::too_large"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("larger than 16 MiB"), "{}", run.stderr);
}

/// A run of `calls` calls of tool `a`, as one JSON line.
fn run_of(calls: usize) -> String {
    format!(
        r#"{{"tool_calls":[{}]}}"#,
        vec![r#"{"name":"a"}"#; calls].join(",")
    )
}

/// The pairing limits (docs/robustness.md, "Limits") are checked per run: only the runs
/// past them are named, at most 20 of them, and the ordered `tool-correctness` mode, which
/// pairs by a longest common subsequence, is limited by the pairs alone, not by the size.
#[test]
fn pairing_limits_name_the_runs_past_them_and_spare_the_ordered_mode() {
    let temp = tempfile::tempdir().unwrap();
    fs::create_dir(temp.path().join("traces")).unwrap();
    let expected = vec!["a"; 646].join(", ");
    let mut lines = vec![run_of(600), run_of(3)];
    lines.extend(std::iter::repeat_n(run_of(646), 22));
    fs::write(temp.path().join("traces/runs.jsonl"), lines.join("\n")).unwrap();
    let suite = |check_ordering: bool| {
        format!(
            "tests:\n  - name: t\n    traces: traces/runs.jsonl\n    graders:\n      - type: \
             tool-correctness\n        config:\n          check_ordering: {check_ordering}\n          \
             expected_tools: [{expected}]\n          expect:\n            - \
             tool_correctness.score: {{\">=\": 0}}\n"
        )
    };
    fs::write(temp.path().join("trailgate.yaml"), suite(false)).unwrap();
    let run = trailgate(temp.path(), &["check"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("trailgate::tool_correctness::too_many_calls"),
        "{}",
        run.stderr
    );
    // The message wraps at spaces and after slashes: compare without either.
    let flat: String = run
        .stderr
        .replace("\n  │ ", "")
        .chars()
        .filter(|c| *c != ' ')
        .collect();
    for named in [
        "`traces/runs.jsonl:3`(646calls)",
        "`traces/runs.jsonl:22`(646calls),and2moreruns",
    ] {
        assert!(flat.contains(named), "{named}: {}", run.stderr);
    }
    assert!(!flat.contains("runs.jsonl:1`"), "{}", run.stderr);
    assert!(!flat.contains("runs.jsonl:2`"), "{}", run.stderr);
    fs::write(temp.path().join("trailgate.yaml"), suite(true)).unwrap();
    let run = trailgate(temp.path(), &["check"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// The ordered `tool-correctness` mode keeps a longest-common-subsequence table of four
/// bytes per pair: past `MAX_PAIRING_PAIRS` pairs (4,097 expected tools against a run of
/// 4,096 calls), the run is refused rather than given a table of 64 MiB and more.
#[test]
fn the_ordered_mode_is_limited_by_its_pairs() {
    let temp = tempfile::tempdir().unwrap();
    fs::create_dir(temp.path().join("traces")).unwrap();
    fs::write(temp.path().join("traces/runs.jsonl"), run_of(4_096)).unwrap();
    let suite = |expected: usize| {
        format!(
            "tests:\n  - name: t\n    traces: traces/runs.jsonl\n    graders:\n      - type: \
             tool-correctness\n        config:\n          check_ordering: true\n          \
             expected_tools: [{}]\n          expect:\n            - \
             tool_correctness.score: {{\">=\": 0}}\n",
            vec!["a"; expected].join(", ")
        )
    };
    fs::write(temp.path().join("trailgate.yaml"), suite(4_097)).unwrap();
    let run = trailgate(temp.path(), &["check"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("trailgate::tool_correctness::too_many_calls"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
    // At the limit, 4,096 × 4,096 pairs, the run is scored.
    fs::write(temp.path().join("trailgate.yaml"), suite(4_096)).unwrap();
    let run = trailgate(temp.path(), &["check"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}
