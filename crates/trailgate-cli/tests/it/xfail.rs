//! Expected failures (docs/reliability.md#expected-failures): `xfail:` in the suite and
//! `check --xfail FILE`, seen from the command line: the exit code, the summary, the JUnit
//! statuses, and the list file's names checked against the whole suite.

use std::fs;
use std::path::Path;

use crate::support::trailgate;

fn fixture(name: &str) -> &'static Path {
    let path = format!("{}/../../fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    Box::leak(Path::new(&path).to_path_buf().into_boxed_path())
}

/// A suite of one test that passes and one that fails, each marked when `marks` says.
fn suite(marks: [bool; 2]) -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let traces = fixture("xfail-verdicts").join("traces");
    let mark = |marked: bool| if marked { "    xfail: known\n" } else { "" };
    fs::write(
        temp.path().join("trailgate.yaml"),
        format!(
            "tests:\n  - name: passes\n{}    traces: {}\n    graders:\n      - type: tool-calls\n        config:\n          required: [{{ name: \"^cancel$\" }}]\n  - name: fails\n{}    traces: {}\n    graders:\n      - type: tool-calls\n        config:\n          required: [{{ name: \"^cancel$\" }}]\n",
            mark(marks[0]),
            traces.join("cancels-politely.jsonl").display(),
            mark(marks[1]),
            traces.join("searches-first.jsonl").display(),
        ),
    )
    .unwrap();
    temp
}

#[test]
fn a_marked_failure_passes_the_check_and_a_marked_pass_fails_it() {
    // (marks, exit code, summary)
    let cases = [
        ([false, false], 1, "1 passed, 1 failed"),
        ([false, true], 0, "1 passed, 0 failed, 1 xfailed, 0 xpassed"),
        ([true, true], 1, "0 passed, 0 failed, 1 xfailed, 1 xpassed"),
        ([true, false], 1, "0 passed, 1 failed, 0 xfailed, 1 xpassed"),
    ];
    for (marks, code, summary) in cases {
        let temp = suite(marks);
        let run = trailgate(temp.path(), &["check", "--color", "never"]);
        assert_eq!(run.code, code, "{marks:?}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stdout.trim_end().ends_with(summary),
            "{marks:?}: {}",
            run.stdout
        );
        let json = trailgate(temp.path(), &["check", "--format", "json"]);
        let report: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
        assert_eq!(report["passed"], code == 0);
        // `passed` stays the gates' verdict, marked or not.
        assert_eq!(report["tests"][0]["passed"], true);
        assert_eq!(report["tests"][1]["passed"], false);
        let verdict = |i: usize| report["tests"][i]["verdict"].as_str().map(str::to_owned);
        assert_eq!(verdict(0), marks[0].then(|| "xpass".to_owned()));
        assert_eq!(verdict(1), marks[1].then(|| "xfail".to_owned()));
        assert_eq!(
            report["summary"].get("xfailed").is_some(),
            marks.contains(&true)
        );
    }
}

#[test]
fn junit_skips_an_xfail_and_fails_an_xpass() {
    let temp = suite([true, true]);
    let run = trailgate(temp.path(), &["check", "--format", "junit"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains(r#"<skipped message="xfail: known"/>"#),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("xpass: it passes now; remove its xfail mark (xfail: known)"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_list_marks_a_test_with_its_line_and_the_suite_keeps_its_own_reason() {
    let temp = suite([false, false]);
    fs::write(
        temp.path().join("known.txt"),
        "# flaky upstream\n\n  fails  \n",
    )
    .unwrap();
    let run = trailgate(
        temp.path(),
        &["check", "--xfail", "known.txt", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["tests"][1]["xfail"], "listed in known.txt:3");

    let marked = suite([false, true]);
    fs::write(marked.path().join("known.txt"), "fails\n").unwrap();
    let run = trailgate(
        marked.path(),
        &["check", "--xfail", "known.txt", "--format", "json"],
    );
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["tests"][1]["xfail"], "known");
}

#[test]
fn a_listed_name_is_checked_against_the_whole_suite_whatever_is_selected() {
    let temp = suite([false, false]);
    fs::write(temp.path().join("known.txt"), "fails\nfials\n").unwrap();
    for selection in [
        &["--test", "passes"][..],
        &["-k", "pass"][..],
        &["--shard", "1/2"][..],
    ] {
        let mut args = vec!["check", "--color", "never", "--xfail", "known.txt"];
        args.extend(selection);
        let run = trailgate(temp.path(), &args);
        assert_eq!(run.code, 2, "{selection:?}: {}", run.stdout);
        assert!(run.stdout.is_empty(), "nothing is checked: {}", run.stdout);
        assert!(
            run.stderr.contains("`fials` is no test of the suite")
                && run.stderr.contains("[known.txt:2:1]"),
            "{}",
            run.stderr
        );
    }
    // The selected test alone is listed: the list is right, the check runs.
    fs::write(temp.path().join("known.txt"), "fails\n").unwrap();
    let run = trailgate(
        temp.path(),
        &["check", "--xfail", "known.txt", "--test", "passes"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn a_missing_list_is_an_input_error() {
    let temp = suite([false, false]);
    let run = trailgate(temp.path(), &["check", "--xfail", "nowhere.txt"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("cannot read `nowhere.txt`"),
        "{}",
        run.stderr
    );
}
