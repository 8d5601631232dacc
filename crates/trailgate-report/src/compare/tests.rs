//! The comparison of several reports: the matrix's order and gaps, b, c and p against the
//! first report, the refusals, the laws (a report with itself, two swapped), and outputs
//! that keep user text inert.

use std::io::Cursor;

use proptest::prelude::*;
use rstest::rstest;
use serde_json::{Value, json};

use super::{Comparison, LabelledReport, compare_reports};
use crate::diff::ReportFile;
use crate::lines::TextOptions;
use crate::{
    render_compare_html, render_compare_json, render_compare_markdown, render_compare_text,
};

/// A test of a report: its name, verdict, runs and runs passed, and one metric.
fn test(name: &str, passed: bool, runs: usize, passed_runs: usize) -> Value {
    json!({
        "name": name,
        "agent": null,
        "passed": passed,
        "runs": runs,
        "passed_runs": passed_runs,
        "sources": [],
        "metrics": {"m.score": if passed { 90 } else { 40 }},
        "gates": [],
    })
}

fn report(tests: &[Value]) -> Value {
    json!({"version": 2, "passed": true, "summary": {}, "tests": tests})
}

/// A report of single-run tests named by `verdicts`' keys.
fn verdicts(verdicts: &[(&str, bool)]) -> Value {
    let tests: Vec<Value> = verdicts
        .iter()
        .map(|&(name, passed)| test(name, passed, 1, usize::from(passed)))
        .collect();
    report(&tests)
}

fn labelled(label: &str, report: &Value) -> LabelledReport<Cursor<Vec<u8>>> {
    LabelledReport {
        label: label.to_owned(),
        file: ReportFile {
            name: format!("{label}.json"),
            reader: Cursor::new(report.to_string().into_bytes()),
        },
    }
}

fn compare(reports: &[&Value], metric: Option<&str>) -> Result<Comparison, String> {
    let files = reports
        .iter()
        .enumerate()
        .map(|(index, report)| labelled(&format!("r{index}"), report))
        .collect();
    compare_reports(files, metric).map_err(|error| {
        error
            .problems()
            .map(|p| format!("{}: {}", p.code, p.message))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

fn rendered(render: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    render(&mut out).expect("renders");
    String::from_utf8(out).expect("UTF-8")
}

/// b, c and the p shown of each report against the first.
fn pairs(comparison: &Comparison) -> Vec<(usize, usize, String)> {
    comparison
        .against_first
        .iter()
        .map(|p| (p.b, p.c, p.p.to_string()))
        .collect()
}

#[test]
fn b_counts_the_firsts_passes_the_other_fails_and_c_the_reverse() {
    let first = verdicts(&[("a", true), ("b", true), ("c", false), ("d", false)]);
    let other = verdicts(&[("a", false), ("b", true), ("c", true), ("d", true)]);
    let comparison = compare(&[&first, &other], None).expect("compares");
    assert_eq!(pairs(&comparison), [(1, 2, "1.0000".to_owned())]);
    assert_eq!(comparison.against_first[0].in_both, 4);
}

#[test]
fn the_rows_are_the_firsts_tests_then_the_others_new_ones_in_order() {
    let first = verdicts(&[("b", true), ("a", true)]);
    let second = verdicts(&[("z", true), ("a", false), ("y", true)]);
    let third = verdicts(&[("x", true), ("y", false), ("b", true)]);
    let comparison = compare(&[&first, &second, &third], None).expect("compares");
    let names: Vec<&str> = comparison.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["b", "a", "z", "y", "x"]);
    // The gaps: `z` is only in the second report.
    let z = &comparison.rows[2];
    assert_eq!(
        z.cells.iter().map(Option::is_some).collect::<Vec<_>>(),
        [false, true, false]
    );
    // A test absent from the first counts in no pair.
    assert_eq!(
        comparison
            .against_first
            .iter()
            .map(|p| p.in_both)
            .collect::<Vec<_>>(),
        [1, 1]
    );
    let text = rendered(|out| render_compare_text(&comparison, TextOptions::default(), out));
    assert!(text.contains("\nz       -       PASS    -\n"), "{text}");
}

#[test]
fn the_pass_rate_change_is_diffs_interval() {
    let first = report(&[test("t", true, 10, 9)]);
    let other = report(&[test("t", false, 10, 3)]);
    let comparison = compare(&[&first, &other], None).expect("compares");
    let rate = comparison.rows[0].rates[0].expect("several runs in both");
    let interval = rate.interval.expect("an interval");
    // The row `95 10 3 10 9 -81 -17` of crates/trailgate-core/tests/reliability/newcombe.tsv.
    assert_eq!((interval.lower, interval.upper), (-81, -17));
    assert!(interval.significant);
    // One run on either side: no pass rate to compare.
    let single = report(&[test("t", true, 1, 1)]);
    let comparison = compare(&[&single, &other], None).expect("compares");
    assert_eq!(comparison.rows[0].rates[0], None);
}

#[test]
fn a_metric_lower_is_better_marks_the_lowest() {
    let errors = |value: u8| {
        let mut t = test("t", true, 1, 1);
        t["metrics"] = json!({"errors.rate": value, "m.score": value});
        report(&[t])
    };
    let (a, b, c) = (errors(20), errors(5), errors(50));
    let comparison = compare(&[&a, &b, &c], Some("errors.rate")).expect("compares");
    let metric = comparison.metric.as_ref().expect("a metric");
    assert_eq!(comparison.rows[0].best(metric), [false, true, false]);
    let comparison = compare(&[&a, &b, &c], Some("m.score")).expect("compares");
    let metric = comparison.metric.as_ref().expect("a metric");
    assert_eq!(comparison.rows[0].best(metric), [false, false, true]);
    // All alike: no best.
    let comparison = compare(&[&a, &a], Some("m.score")).expect("compares");
    let metric = comparison.metric.as_ref().expect("a metric");
    assert_eq!(comparison.rows[0].best(metric), [false, false]);
}

#[rstest]
#[case::one_report(
    1,
    "trailgate::compare::count: `compare` takes 2 to 16 reports; 1 given"
)]
#[case::seventeen_reports(
    17,
    "trailgate::compare::count: `compare` takes 2 to 16 reports; 17 given"
)]
fn the_number_of_reports_is_bounded(#[case] count: usize, #[case] expected: &str) {
    let one = verdicts(&[("a", true)]);
    let reports: Vec<&Value> = std::iter::repeat_n(&one, count).collect();
    assert_eq!(compare(&reports, None).err().as_deref(), Some(expected));
    let sixteen: Vec<&Value> = std::iter::repeat_n(&one, 16).collect();
    assert!(compare(&sixteen, None).is_ok());
}

#[track_caller]
fn check_refused(reports: &[&Value], metric: Option<&str>, code: &str) {
    let error = compare(reports, metric).expect_err("refused");
    assert!(error.starts_with(code), "{error}");
}

#[rstest]
#[case::more_runs_passed_than_ran(
    vec![report(&[test("a", true, 2, 3)]), verdicts(&[("a", true)])],
    None,
    "trailgate::compare::counts"
)]
#[case::counts_in_a_later_report(
    vec![verdicts(&[("a", true)]), report(&[test("a", true, 0, 1)])],
    None,
    "trailgate::compare::counts"
)]
#[case::negative_runs(
    vec![verdicts(&[("a", true)]), report(&[json!({"name": "a", "passed": true, "runs": -1, "metrics": {}, "gates": []})])],
    None,
    "trailgate::compare::json"
)]
#[case::overflowing_runs(
    vec![verdicts(&[("a", true)]), report(&[json!({"name": "a", "passed": true, "runs": 1e30, "metrics": {}, "gates": []})])],
    None,
    "trailgate::compare::json"
)]
#[case::a_test_named_twice(
    vec![verdicts(&[("a", true), ("a", false)]), verdicts(&[("a", true)])],
    None,
    "trailgate::compare::duplicate_test"
)]
#[case::no_test_in_common(
    vec![verdicts(&[("a", true)]), verdicts(&[("a", true)]), verdicts(&[("b", true)])],
    None,
    "trailgate::compare::disjoint"
)]
#[case::another_version(
    vec![verdicts(&[("a", true)]), json!({"version": 1, "tests": []})],
    None,
    "trailgate::compare::version"
)]
#[case::a_shard(
    vec![verdicts(&[("a", true)]), json!({"version": 2, "shard": {"index": 1, "count": 2}, "tests": []})],
    None,
    "trailgate::compare::shard"
)]
#[case::a_metric_no_report_has(
    vec![verdicts(&[("a", true)]), verdicts(&[("a", true)])],
    Some("tool_selection.f1"),
    "trailgate::compare::unknown_metric: no test of any report has a metric `tool_selection.f1`"
)]
fn inconsistent_or_foreign_input_is_refused(
    #[case] reports: Vec<Value>,
    #[case] metric: Option<&str>,
    #[case] code: &str,
) {
    let reports: Vec<&Value> = reports.iter().collect();
    check_refused(&reports, metric, code);
}

#[test]
fn a_label_given_twice_is_refused_naming_both_files() {
    let one = verdicts(&[("a", true)]);
    let reports = vec![
        labelled("x", &one),
        labelled("y", &one),
        labelled("x", &one),
    ];
    let error = compare_reports(reports, None).expect_err("refused");
    let problem = error.problems().next().expect("a problem");
    assert_eq!(problem.code, "trailgate::compare::duplicate_label");
    assert!(
        problem
            .message
            .contains("`x.json` and `x.json` are both labelled `x`"),
        "{}",
        problem.message
    );
}

#[test]
fn user_text_stays_inert_in_every_output() {
    let hostile = "x\n::error::pwned | </code></td><script>alert(1)</script> `tick` \u{1b}[2J";
    let first = verdicts(&[(hostile, true)]);
    let other = verdicts(&[(hostile, false)]);
    let reports = vec![labelled(hostile, &first), labelled("<b>other</b>", &other)];
    let comparison = compare_reports(reports, Some("m.score")).expect("compares");
    let text = rendered(|out| render_compare_text(&comparison, TextOptions::default(), out));
    assert!(
        !text.contains('\u{1b}') && !text.contains("\n::error"),
        "{text}"
    );
    let markdown = rendered(|out| render_compare_markdown(&comparison, out));
    // In Markdown, markup is inert inside a code span, its pipes escaped for the table.
    assert!(!markdown.contains("\n::error"), "{markdown}");
    let span = crate::escape::markdown(hostile).replace('|', "\\|");
    assert!(markdown.contains(&format!("| {span} |")), "{markdown}");
    let html = rendered(|out| render_compare_html(&comparison, out));
    assert!(
        !html.contains("<script") && !html.contains("<b>other"),
        "{html}"
    );
    assert!(
        html.contains("&lt;/code&gt;&lt;/td&gt;&lt;script&gt;"),
        "{html}"
    );
    let json = rendered(|out| render_compare_json(&comparison, out));
    let parsed: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(parsed["tests"][0]["name"], hostile);
    assert_eq!(parsed["reports"][0]["label"], hostile);
}

#[test]
fn the_json_gives_p_rounded_up_and_significance_exactly() {
    let mut first = Vec::new();
    let mut other = Vec::new();
    for index in 0..6 {
        let name = format!("t{index}");
        first.push((name.clone(), false));
        other.push((name, true));
    }
    let as_refs = |v: &[(String, bool)]| -> Value {
        let pairs: Vec<(&str, bool)> = v.iter().map(|(n, p)| (n.as_str(), *p)).collect();
        verdicts(&pairs)
    };
    let comparison = compare(&[&as_refs(&first), &as_refs(&other)], None).expect("compares");
    let json = rendered(|out| render_compare_json(&comparison, out));
    let parsed: Value = serde_json::from_str(&json).expect("JSON");
    let pair = &parsed["reports"][1]["against_first"];
    assert_eq!(pair["b"], 0);
    assert_eq!(pair["c"], 6);
    assert!(json.contains("\"p\": 0.0313,"), "{json}");
    assert_eq!(pair["significant"], true);
    assert_eq!(parsed["reports"][0]["against_first"], Value::Null);
}

/// A generated report: up to 8 tests from a pool of 10 names, in any order, each with a
/// verdict, 1 to 5 runs and a count of runs passed, and a metric.
fn gen_report() -> impl Strategy<Value = Value> {
    let one = (0..10usize, any::<bool>(), 1..=5usize, 0..=5usize, 0..=100u8);
    prop::collection::vec(one, 1..8).prop_map(|tests| {
        let mut seen = std::collections::BTreeSet::new();
        let tests: Vec<Value> = tests
            .into_iter()
            .filter(|(name, ..)| seen.insert(*name))
            .map(|(name, passed, runs, passed_runs, metric)| {
                let mut t = test(&format!("t{name}"), passed, runs, passed_runs.min(runs));
                t["metrics"] = json!({"m.score": metric});
                t
            })
            .collect();
        report(&tests)
    })
}

proptest! {
    #[test]
    fn a_report_with_itself_gives_b_c_zero_and_p_one(r in gen_report()) {
        let comparison = compare(&[&r, &r], Some("m.score")).expect("a report compares with itself");
        let pair = &comparison.against_first[0];
        prop_assert_eq!((pair.b, pair.c), (0, 0));
        prop_assert_eq!(pair.p.to_string(), "1.0000");
        prop_assert!(!pair.p.significant());
        prop_assert_eq!(pair.in_both, comparison.rows.len());
        for row in &comparison.rows {
            if let Some(rate) = row.rates[0] {
                prop_assert_eq!(rate.first, rate.other);
                prop_assert!(rate.interval.is_none_or(|i| !i.significant));
            }
        }
    }

    #[test]
    fn swapping_two_reports_swaps_b_and_c_and_keeps_p(a in gen_report(), b in gen_report()) {
        let (Ok(forward), Ok(backward)) = (compare(&[&a, &b], None), compare(&[&b, &a], None)) else {
            // Refused both ways alike: no test in common.
            prop_assert!(compare(&[&a, &b], None).is_err() && compare(&[&b, &a], None).is_err());
            return Ok(());
        };
        let (f, w) = (&forward.against_first[0], &backward.against_first[0]);
        prop_assert_eq!((f.b, f.c), (w.c, w.b));
        prop_assert_eq!(f.p, w.p);
        prop_assert_eq!(f.in_both, w.in_both);
    }
}
