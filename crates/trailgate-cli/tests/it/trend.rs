//! `trailgate trend` from the command line: what a fixture cannot show (usage errors of its
//! options, the order of the reports, files written with `--output`).

use std::fs;
use std::path::Path;

use rstest::rstest;

use crate::support::trailgate;

fn drift() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/trend-drift"
    ))
}

const REPORTS: [&str; 5] = ["r1.json", "r2.json", "r3.json", "r4.json", "r5.json"];

#[rstest]
#[case::window_of_one(&["--window", "1"], "--window")]
#[case::window_of_zero(&["--window", "0"], "--window")]
#[case::negative_window(&["--window=-3"], "--window")]
#[case::negative_min_change(&["--min-change=-1"], "--min-change")]
#[case::unknown_format(&["--format", "junit"], "--format")]
fn bad_options_are_usage_errors(#[case] options: &[&str], #[case] named: &str) {
    let mut args = vec!["trend"];
    args.extend(REPORTS);
    args.extend(options);
    let run = trailgate(drift(), &args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains(named), "{}", run.stderr);
}

#[test]
fn no_report_is_a_usage_error_and_one_is_refused() {
    let run = trailgate(drift(), &["trend"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("<REPORT>"), "{}", run.stderr);
    let run = trailgate(drift(), &["trend", "r1.json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("trailgate::trend::too_few"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn a_window_of_two_judges_the_last_two_reports() {
    let mut args = vec!["trend"];
    args.extend(REPORTS);
    args.extend(["--window", "2", "--format", "json"]);
    let run = trailgate(drift(), &args);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(json["window"]["first"], 3);
    // #4 to #5: precision 66 to 50 drifts, `tidy errors` stays at 2.
    assert_eq!(run.code, 1, "{}", run.stderr);
    let tidy = &json["tests"][2];
    assert_eq!(tidy["name"], "tidy errors");
    assert_eq!(tidy["metrics"][0]["name"], "errors.rate");
    assert_eq!(tidy["metrics"][0]["status"], "steady");
}

/// The reports are taken oldest first, in the order given: the same reports newest first
/// tell the opposite story, and the metrics that drifted now improve.
#[test]
fn the_order_of_the_reports_is_the_order_of_time() {
    let mut args = vec!["trend"];
    args.extend(REPORTS.iter().rev());
    let run = trailgate(drift(), &args);
    assert!(run.stdout.contains("#1 r5.json"), "{}", run.stdout);
    let search = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("tool_selection.precision"))
        .expect("the precision of `search then fetch` moved");
    assert!(search.contains("better from #1 to #2"), "{search}");
    // Every metric that moved is better somewhere: nothing drifts.
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout.contains("\nOK no metric drifts; "),
        "{}",
        run.stdout
    );
}

#[test]
fn output_writes_the_format_and_the_text_still_goes_to_the_log() {
    let temp = tempfile::tempdir().unwrap();
    let markdown = temp.path().join("trend.md");
    let mut args = vec!["trend"];
    let reports: Vec<String> = REPORTS
        .iter()
        .map(|r| drift().join(r).display().to_string())
        .collect();
    args.extend(reports.iter().map(String::as_str));
    let markdown_arg = markdown.display().to_string();
    args.extend(["--output", &markdown_arg]);
    let run = trailgate(temp.path(), &args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("DRIFT 5 metrics of 3 tests drift"),
        "{}",
        run.stdout
    );
    let written = fs::read_to_string(&markdown).expect("the Markdown was written");
    assert!(
        written.starts_with("## trailgate trend: 5 metrics of 3 tests drift\n"),
        "{written}"
    );
    assert!(written.contains("| ██▃▃▁ |"), "{written}");
}

#[test]
fn a_missing_report_is_named() {
    let run = trailgate(drift(), &["trend", "r1.json", "r6.json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("trailgate::trend::io"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("`r6.json`"), "{}", run.stderr);
}

/// docs/baselines.md's worked example is what `trend` prints on `fixtures/trend-drift`.
#[test]
fn the_docs_worked_example_is_the_fixtures_output() {
    let mut args = vec!["trend"];
    args.extend(REPORTS);
    let run = trailgate(drift(), &args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let docs = fs::read_to_string(drift().join("../../docs/baselines.md")).unwrap();
    assert!(
        docs.contains(&format!("```text\n{}```\n", run.stdout)),
        "docs/baselines.md#a-worked-example differs from:\n{}",
        run.stdout
    );
}
