//! The command line as cargo, ripgrep and pytest users expect it: test selection with
//! `--test` and `-k`, short flags, subcommand usage errors, `--version`.

use std::path::{Path, PathBuf};

use crate::support::trailgate;

/// A suite of eleven tests, six passing (`fixtures/expect-operators`).
fn operators() -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/expect-operators"
    ))
    .to_path_buf()
}

/// The verdict lines of a text report: `PASS name (1 run)`, ..., and the summary.
fn verdicts(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|line| line.starts_with("PASS") || line.starts_with("FAIL"))
        .collect()
}

#[rstest::rstest]
#[case::one_name(&["--test", "f1 above 80"], &["FAIL f1 above 80 (1 run)", "FAIL 1 test: 0 passed, 1 failed"], 1)]
#[case::two_names_in_suite_order(
    &["--test", "expect omitted", "--test", "f1 at least 80"],
    &["PASS f1 at least 80 (1 run)", "PASS expect omitted (1 run)", "PASS 2 tests: 2 passed, 0 failed"],
    0
)]
#[case::substring(&["-k", "in band"], &["PASS f1 in band (1 run)", "FAIL recall in band (1 run)", "FAIL 2 tests: 1 passed, 1 failed"], 1)]
#[case::regex(&["-k", "^precision"], &["PASS precision at most 100 (1 run)", "PASS precision exactly 100 (1 run)", "PASS 2 tests: 2 passed, 0 failed"], 0)]
#[case::not_a_regex_is_a_substring(&["-k", "f1 ("], &[], 4)]
#[case::k_ignores_case_as_pytest_does(&["-k", "IN BAND"], &["PASS f1 in band (1 run)", "FAIL recall in band (1 run)", "FAIL 2 tests: 1 passed, 1 failed"], 1)]
#[case::k_regex_ignores_case(&["-k", "^PRECISION"], &["PASS precision at most 100 (1 run)", "PASS precision exactly 100 (1 run)", "PASS 2 tests: 2 passed, 0 failed"], 0)]
#[case::test_takes_a_glob(&["--test", "precision *"], &["PASS precision at most 100 (1 run)", "PASS precision exactly 100 (1 run)", "PASS 2 tests: 2 passed, 0 failed"], 0)]
#[case::test_glob_and_name(&["--test", "f1 a*", "--test", "expect omitted"], &["PASS f1 at least 80 (1 run)", "FAIL f1 above 80 (1 run)", "PASS expect omitted (1 run)", "FAIL 3 tests: 2 passed, 1 failed"], 1)]
#[case::both_must_hold(&["--test", "f1 in band", "--test", "f1 not 100", "-k", "band"], &["PASS f1 in band (1 run)", "PASS 1 test: 1 passed, 0 failed"], 0)]
fn test_selection_reports_and_sums_only_the_selected_tests(
    #[case] selection: &[&str],
    #[case] expected: &[&str],
    #[case] code: i32,
) {
    let args: Vec<&str> = ["check"].iter().chain(selection).copied().collect();
    let run = trailgate(&operators(), &args);
    assert_eq!(run.code, code, "{}", run.stderr);
    assert_eq!(verdicts(&run.stdout), expected);
}

#[test]
fn the_json_report_covers_only_the_selected_tests() {
    let run = trailgate(&operators(), &["check", "-k", "band", "-f", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        report["summary"],
        serde_json::json!({"tests": 2, "passed": 1, "failed": 1})
    );
    let names: Vec<&str> = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|test| test["name"].as_str())
        .collect();
    assert_eq!(names, ["f1 in band", "recall in band"]);
}

#[rstest::rstest]
#[case::unknown_name(&["--test", "f1 at least 08"], "no test of the suite is named `f1 at least 08`")]
#[case::one_known_one_unknown(&["--test", "f1 in band", "--test", "nope"], "no test of the suite is named `nope`")]
#[case::glob_matching_nothing(&["--test", "latency *"], "no test name matches `latency *`")]
#[case::pattern_matching_nothing(&["-k", "latency"], "no test name contains or matches `latency`")]
#[case::disjoint(&["--test", "f1 in band", "-k", "precision"], "no test is both named by `--test` and matched by `-k`")]
fn selecting_nothing_exits_4_and_lists_the_tests(
    #[case] selection: &[&str],
    #[case] message: &str,
) {
    let args: Vec<&str> = ["check"].iter().chain(selection).copied().collect();
    let run = trailgate(&operators(), &args);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("trailgate::usage::nothing_selected"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(message), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("the suite's tests: `f1 at least 80`, `f1 above 80`"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("and 1 more"), "{}", run.stderr);
}

#[rstest::rstest]
#[case::with_shard(&["check", "--test", "f1 in band", "--shard", "1/2"], "Usage: trailgate check")]
#[case::empty_pattern(&["check", "-k", ""], "the pattern is empty")]
fn selection_misuse_is_a_usage_error(#[case] args: &[&str], #[case] message: &str) {
    let run = trailgate(&operators(), args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains(message), "{}", run.stderr);
}

#[test]
fn short_flags_f_and_o_are_format_and_output() {
    let temp = tempfile::tempdir().unwrap();
    let report = temp.path().join("report.json");
    let report = report.to_str().unwrap();
    let short = trailgate(
        &operators(),
        &["check", "-f", "json", "-o", report, "-f", "text"],
    );
    let long = trailgate(&operators(), &["check", "--format", "json"]);
    assert_eq!(short.code, 1, "{}", short.stderr);
    assert_eq!(std::fs::read_to_string(report).unwrap(), long.stdout);
    assert!(short.stdout.contains("FAIL 11 tests: 6 passed, 5 failed"));
}

/// `trailgate check` of the operators' suite from `dir`, where relative outputs land.
fn check_elsewhere(dir: &Path, options: &[&str]) -> crate::support::Transcript {
    let suite = operators().join("trailgate.yaml");
    let mut args = vec!["check", suite.to_str().unwrap()];
    args.extend(options);
    trailgate(dir, &args)
}

#[rstest::rstest]
#[case::format_then_output(&["-f", "json", "-o", "report.json"])]
#[case::output_then_format(&["-o", "report.json", "-f", "json"])]
#[case::long_output_then_format(&["--output", "report.json", "--format", "json"])]
fn one_format_and_one_output_pair_in_either_order_and_the_log_keeps_the_text(
    #[case] options: &[&str],
) {
    let temp = tempfile::tempdir().unwrap();
    let run = check_elsewhere(temp.path(), options);
    let json = check_elsewhere(temp.path(), &["--format", "json"]);
    let text = check_elsewhere(temp.path(), &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(temp.path().join("report.json")).unwrap(),
        json.stdout
    );
    // Every report went to a file, so the log shows the text report.
    assert_eq!(run.stdout, text.stdout);
}

#[rstest::rstest]
#[case::by_extension(&["-o", "report.html"], "")]
#[case::quiet(&["-o", "report.html", "--quiet"], "quiet")]
#[case::quiet_short(&["-q", "--format", "html", "--output", "report.html"], "quiet")]
#[case::one_to_stdout_already(&["-f", "html", "-o", "report.html", "-f", "json"], "json")]
fn the_log_says_what_happened_unless_quiet(#[case] options: &[&str], #[case] stdout: &str) {
    let temp = tempfile::tempdir().unwrap();
    let run = check_elsewhere(temp.path(), options);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let page = std::fs::read_to_string(temp.path().join("report.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    match stdout {
        "quiet" => assert_eq!(run.stdout, ""),
        "json" => assert!(run.stdout.starts_with('{'), "{}", run.stdout),
        _ => assert!(
            run.stdout.ends_with("FAIL 11 tests: 6 passed, 5 failed\n"),
            "{}",
            run.stdout
        ),
    }
}

#[rstest::rstest]
#[case::check(&["check", "-o", "report.bin"], "Usage: trailgate check [OPTIONS] [SUITE]")]
#[case::merge(&["merge", "a.json", "-f", "json", "-f", "text"], "Usage: trailgate merge [OPTIONS] <REPORT>...")]
fn usage_errors_show_the_subcommands_usage(#[case] args: &[&str], #[case] usage: &str) {
    let run = trailgate(&operators(), args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains(usage), "{}", run.stderr);
}

#[test]
fn version_names_the_json_reports_version() {
    let run = trailgate(&operators(), &["--version"]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        concat!(
            "trailgate ",
            env!("CARGO_PKG_VERSION"),
            " (JSON report version 3)\n"
        )
    );
}
