//! Hostile and broken inputs that once gave a wrong answer, a panic or a misleading
//! message: each gives the right score or a clear error naming the cause.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;

use rstest::rstest;

use crate::support::trailgate;

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
    fs::write(temp.path().join("trailgate.yaml"), CALL_F_WITHOUT_ARGS).unwrap();
    fs::write(temp.path().join("t.json"), openai_chat(arguments)).unwrap();
    let run = trailgate(temp.path(), &["check", "--color", "never"]);
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
    fs::write(temp.path().join("trailgate.yaml"), suite).unwrap();
    fs::write(
        temp.path().join("t.json"),
        r#"{"tool_calls":[{"name":"x"}]}"#,
    )
    .unwrap();
    let run = trailgate(temp.path(), &["check", "--color", "never"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("trailgate.yaml:"), "{}", run.stderr);
    // The long value is cut, the line shown by a window.
    assert!(run.stderr.len() < 8_000, "{} bytes", run.stderr.len());
}

/// A test `t` that reads `traces` and expects `runs` runs of a call to `x`.
fn suite_of(traces: &str, runs: usize) -> String {
    format!(
        "tests:\n  - name: t\n    traces: {traces}\n    runs: {runs}\n    graders:\n      - type: \
         tool-correctness\n        config:\n          expected_tools: [x]\n"
    )
}

const CALL_X: &str = r#"{"tool_calls":[{"name":"x"}]}"#;

#[rstest]
#[case::one_loop(&["g/sub/up"])]
#[case::two_loops(&["g/sub/up", "g/sub/again"])]
fn a_glob_counts_each_file_once_through_symbolic_link_loops(#[case] loops: &[&str]) {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    fs::create_dir_all(dir.join("g/sub")).unwrap();
    fs::write(dir.join("g/a.json"), CALL_X).unwrap();
    fs::write(dir.join("g/sub/b.json"), CALL_X).unwrap();
    for link in loops {
        std::os::unix::fs::symlink("..", dir.join(link)).unwrap();
    }
    // A link to a file already found is the same file.
    std::os::unix::fs::symlink("a.json", dir.join("g/same.json")).unwrap();
    fs::write(dir.join("trailgate.yaml"), suite_of("\"g/**/*.json\"", 2)).unwrap();
    let run = trailgate(dir, &["check", "--color", "never"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[rstest]
#[case::glob("\"u/*.json\"")]
#[case::folder("u")]
#[case::recursive_glob("\"**/*.json\"")]
fn file_names_that_are_not_utf8_are_found(#[case] traces: &str) {
    use std::os::unix::ffi::OsStrExt;
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    fs::create_dir(dir.join("u")).unwrap();
    fs::write(dir.join("u/ok.json"), CALL_X).unwrap();
    let odd = std::ffi::OsStr::from_bytes(b"u/n\xff.json");
    fs::write(dir.join(odd), CALL_X).unwrap();
    fs::write(dir.join("trailgate.yaml"), suite_of(traces, 2)).unwrap();
    let run = trailgate(dir, &["check", "--color", "never"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

/// Sets up a trace `t.json` for the message cases.
enum Trace {
    Fifo,
    LoopingLink,
    Text(&'static [u8]),
}

#[rstest]
#[case::fifo(Trace::Fifo, 2, "is not a regular file")]
#[case::looping_link(Trace::LoopingLink, 2, "cannot read trace file `t.json`")]
#[case::lone_first_half(
    Trace::Text(br#"{"tool_calls":[{"name":"x\ud800"}]}"#),
    2,
    "`\\ud800` is the first half of a UTF-16 surrogate pair"
)]
#[case::lone_second_half(
    Trace::Text(br#"{"tool_calls":[{"name":"x\udc00y"}]}"#),
    2,
    "`\\udc00` is the second half"
)]
#[case::byte_order_mark(
    Trace::Text(b"\xef\xbb\xbf{\"tool_calls\":[{\"name\":\"x\"}]}"),
    0,
    "PASS t"
)]
fn a_trace_that_cannot_be_read_says_why(
    #[case] trace: Trace,
    #[case] code: i32,
    #[case] message: &str,
) {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let path = dir.join("t.json");
    match trace {
        Trace::Fifo => {
            let made = std::process::Command::new("mkfifo")
                .arg(&path)
                .status()
                .unwrap();
            assert!(made.success());
        }
        Trace::LoopingLink => std::os::unix::fs::symlink("t.json", &path).unwrap(),
        Trace::Text(bytes) => fs::write(&path, bytes).unwrap(),
    }
    fs::write(dir.join("trailgate.yaml"), suite_of("t.json", 1)).unwrap();
    let run = trailgate(dir, &["check", "--color", "never"]);
    assert_eq!(run.code, code, "{}{}", run.stdout, run.stderr);
    let shown = format!("{}{}", run.stdout, run.stderr).replace("\n  │ ", " ");
    assert!(shown.contains(message), "{shown}");
}

#[rstest]
#[case::nul("\u{0}", "`\\u{0}`")]
#[case::escape("\u{1b}", "`\\u{1b}`")]
#[case::c1("\u{9b}", "`\\u{9b}`")]
fn a_character_yaml_refuses_is_placed_in_the_suite(#[case] character: &str, #[case] named: &str) {
    let temp = tempfile::tempdir().unwrap();
    let suite = suite_of("t.json", 1).replace("name: t", &format!("name: a{character}b"));
    fs::write(temp.path().join("trailgate.yaml"), suite).unwrap();
    fs::write(temp.path().join("t.json"), CALL_X).unwrap();
    let run = trailgate(temp.path(), &["check", "--color", "never"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains(named), "{}", run.stderr);
    assert!(
        run.stderr.contains("[trailgate.yaml:2:12]"),
        "{}",
        run.stderr
    );
}

fn shard_report(k: usize) -> serde_json::Value {
    let path = format!(
        "{}/../../fixtures/merge-shards/shards/{k}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// The stability a test of several runs states for its `passed_runs` of `runs`.
fn stability(test: &serde_json::Value) -> &'static str {
    match (test["passed_runs"].as_u64(), test["runs"].as_u64()) {
        (Some(0), _) => "failing",
        (Some(passed), Some(runs)) if passed == runs => "stable",
        _ => "flaky",
    }
}

/// A run's entry repeated: the test then has two runs.
fn two_runs(test: &mut serde_json::Value) {
    test["runs"] = 2.into();
    let passed = test["passed_runs"].as_u64().unwrap();
    test["passed_runs"] = (passed * 2).into();
    test["stability"] = stability(test).into();
    for list in ["sources", "/equal_function_sets/runs", "/tool_calls/runs"] {
        let pointer = if list.starts_with('/') {
            list.to_owned()
        } else {
            format!("/{list}")
        };
        let runs = test.pointer_mut(&pointer).unwrap().as_array_mut().unwrap();
        let again = runs[0].clone();
        runs.push(again);
    }
}

use serde_json::Value;

type Edit = fn(&mut Value, &mut Value);

#[rstest]
#[case::a_wrapping_sum(|one: &mut Value, _: &mut Value| {
    // u64::MAX true positives in one run and one more in the other wrap to the stated sum.
    let test = &mut one["tests"][0];
    two_runs(test);
    let stated = test["equal_function_sets"]["true_positives"].as_u64().unwrap();
    test["equal_function_sets"]["runs"][0]["true_positives"] = u64::MAX.into();
    test["equal_function_sets"]["runs"][1]["true_positives"] = (stated + 1).into();
}, "true positives")]
#[case::runs_not_listed(|one: &mut Value, _: &mut Value| one["tests"][0]["runs"] = 3.into(), "lists 1 runs but `runs` says 3")]
#[case::a_run_metric_that_its_counts_do_not_give(|one: &mut Value, _: &mut Value| {
    one["tests"][0]["equal_function_sets"]["runs"][0]["precision"] = 0.into();
}, "equal_function_sets.runs[0].precision")]
#[case::a_stability_for_one_run(|one: &mut Value, _: &mut Value| {
    one["tests"][0]["stability"] = "stable".into();
}, "`stability` is stable but")]
#[case::a_mark_without_its_verdict(|one: &mut Value, _: &mut Value| {
    one["tests"][0]["xfail"] = "known".into();
}, "`verdict` is missing but a test marked `xfail`")]
#[case::a_verdict_without_a_mark(|one: &mut Value, _: &mut Value| {
    one["tests"][0]["verdict"] = "xfail".into();
}, "`verdict` is xfail but a test not marked `xfail`")]
#[case::an_xpass_edited_to_xfail(|one: &mut Value, _: &mut Value| {
    let test = &mut one["tests"][0];
    test["xfail"] = "known".into();
    test["verdict"] = if test["passed"] == true { "xfail" } else { "xpass" }.into();
}, "`verdict` is x")]
#[case::a_test_name_twice(|one: &mut Value, two: &mut Value| {
    one["tests"][0]["name"] = two["tests"][0]["name"].clone();
}, "a suite names each test once")]
#[case::another_suite_of_the_same_name_and_size(|one: &mut Value, _: &mut Value| {
    one["shard"]["suite_digest"] = "0".repeat(64).into();
}, "is a shard of `trailgate.yaml`")]
fn merge_refuses_shards_that_do_not_add_up(#[case] edit: Edit, #[case] message: &str) {
    let (mut one, mut two) = (shard_report(1), shard_report(2));
    edit(&mut one, &mut two);
    let temp = tempfile::tempdir().unwrap();
    fs::write(temp.path().join("1.json"), one.to_string()).unwrap();
    fs::write(temp.path().join("2.json"), two.to_string()).unwrap();
    let run = trailgate(
        temp.path(),
        &["merge", "1.json", "2.json", "--color", "never"],
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    let shown = run.stderr.replace("\n  │ ", " ");
    assert!(shown.contains(message), "{shown}");
    assert!(shown.contains("1.json"), "names the shard: {shown}");
}

/// Writes shard 1 of the `merge-shards` fixture with its first test listing `runs` runs,
/// each the fixture's one run again (so its counts are the fixture's times `runs` and its
/// percents the same). Each run's entry is written `runs` times into the text, so that the
/// test does not hold the report it writes.
fn write_large_shard(path: &Path, runs: u64) {
    let mut report = shard_report(1);
    let test = &mut report["tests"][0];
    test["runs"] = runs.into();
    for count in [
        "/equal_function_sets/true_positives",
        "/equal_function_sets/false_positives",
        "/equal_function_sets/false_negatives",
        "/tool_calls/passed_runs",
        "/passed_runs",
    ] {
        let value = test.pointer_mut(count).unwrap();
        *value = (value.as_u64().unwrap() * runs).into();
    }
    test["stability"] = stability(test).into();
    let mut entries = Vec::new();
    for (index, list) in ["/sources", "/equal_function_sets/runs", "/tool_calls/runs"]
        .into_iter()
        .enumerate()
    {
        let list = test.pointer_mut(list).unwrap();
        entries.push(serde_json::to_string(&list[0]).unwrap());
        *list = serde_json::json!([format!("@runs {index}@")]);
    }
    let pretty = serde_json::to_string_pretty(&report).unwrap();
    // The lists in the order the text has them.
    let marker = |index: usize| format!("\"@runs {index}@\"");
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&index| pretty.find(&marker(index)).unwrap());
    let mut out = BufWriter::new(fs::File::create(path).unwrap());
    let mut rest = pretty.as_str();
    for index in order {
        let (before, after) = rest.split_once(&marker(index)).unwrap();
        let entry = &entries[index];
        out.write_all(before.as_bytes()).unwrap();
        for run in 0..runs {
            if run > 0 {
                out.write_all(b",\n").unwrap();
            }
            out.write_all(entry.as_bytes()).unwrap();
        }
        rest = after;
    }
    out.write_all(rest.as_bytes()).unwrap();
    out.into_inner().unwrap().sync_all().unwrap();
}

/// The most memory `merge` may take here (`RLIMIT_DATA`: the heap and every private
/// mapping), a fifth of the large shard. The release binary merges a 540 MB shard within
/// 8 MiB; reading the shard whole took its size, and more.
const MERGE_DATA_LIMIT_KIB: u64 = 10 * 1024;

/// `merge` holds about one run's JSON, not a shard's: shard 1 holds a test of 150,000 runs
/// (about 66 MB), and `merge` runs under the shell's `ulimit -d` of
/// [`MERGE_DATA_LIMIT_KIB`], so that an allocation past it fails and `trailgate` aborts. The
/// limit is a bound, not a measurement: it holds on any Linux whatever else runs, and the
/// test asserts no time and no exact figure.
#[test]
fn merge_memory_does_not_grow_with_the_shards() {
    let temp = tempfile::tempdir().unwrap();
    let runs = 150_000;
    write_large_shard(&temp.path().join("1.json"), runs);
    fs::write(temp.path().join("2.json"), shard_report(2).to_string()).unwrap();
    let size = fs::metadata(temp.path().join("1.json")).unwrap().len();
    assert!(
        size > 5 * MERGE_DATA_LIMIT_KIB * 1024,
        "the shard ({size} bytes) is five times the limit"
    );
    for format in ["json", "text"] {
        let output = Command::new("sh")
            .args([
                "-c",
                &format!("ulimit -d {MERGE_DATA_LIMIT_KIB} && exec \"$0\" \"$@\""),
                env!("CARGO_BIN_EXE_trailgate"),
                "merge",
                "1.json",
                "2.json",
                "--format",
                format,
                "--color",
                "never",
            ])
            .current_dir(temp.path())
            .env_clear()
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{format}: {stderr}");
        assert_eq!(stderr, "", "{format}");
        let shown = if format == "json" {
            format!("\"runs\": {runs},")
        } else {
            format!("({runs} runs")
        };
        assert!(
            stdout.contains(&shown),
            "{format}: {}",
            &stdout[..2000.min(stdout.len())]
        );
    }
}

/// A flaky test whose shard report says `stable` is refused by `merge`: its runs' verdicts
/// (7 of 10 passed on their own) give `flaky`.
#[test]
fn merge_refuses_a_stability_the_runs_do_not_give() {
    let temp = tempfile::tempdir().unwrap();
    let shards = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/merge-shards-reliability/shards");
    let one = fs::read_to_string(shards.join("1.json")).unwrap();
    assert!(one.contains("\"stability\": \"flaky\""));
    fs::write(
        temp.path().join("1.json"),
        one.replace("\"stability\": \"flaky\"", "\"stability\": \"stable\""),
    )
    .unwrap();
    fs::copy(shards.join("2.json"), temp.path().join("2.json")).unwrap();
    let run = trailgate(temp.path(), &["merge", "1.json", "2.json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("`stability` is stable but 7 of 10 runs passed on")
            && run.stderr.contains("give flaky"),
        "{}",
        run.stderr
    );
}

/// A Parquet page cut short, on which the `parquet` crate's string decoder panics (found by
/// the `parquet` fuzz target): the reader catches it, and the user sees exit 2 and the
/// diagnostic naming the row group and column, with no panic message before it.
#[test]
fn a_corrupt_parquet_page_is_an_input_error_without_a_panic_message() {
    let temp = tempfile::tempdir().unwrap();
    let crash = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../trailgate-trace/src/columnar/crash-plain-page-cut.parquet");
    fs::copy(crash, temp.path().join("runs.parquet")).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_trailgate"))
        .current_dir(temp.path())
        .args(["convert", "runs.parquet"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("row group 2, column `trace_id`: a page is corrupt"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(output.stdout.is_empty());
}
