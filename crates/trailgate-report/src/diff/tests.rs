//! The diff of two reports: reading what a report says of its runs, the laws of the
//! comparison (a report with itself, the two swapped, no re-scoring), and the outputs.

use std::collections::BTreeMap;
use std::io::Cursor;
use trailgate_expect::{MetricChange, MetricValue};

/// A gate as a report gives it: target, operator, value (null when skipped), actual value
/// and verdict (null when skipped).
type GateSides = (
    String,
    String,
    Option<MetricValue>,
    MetricValue,
    Option<bool>,
);

use proptest::prelude::*;
use rstest::rstest;
use serde_json::{Value, json};

use super::{
    Diff, GateChange, ReportFile, RunTally, diff_reports, pass_rate_interval, render_diff_json,
    render_diff_text,
};
use crate::lines::TextOptions;

fn file(name: &str, text: &str) -> ReportFile<Cursor<Vec<u8>>> {
    ReportFile {
        name: name.to_owned(),
        reader: Cursor::new(text.as_bytes().to_vec()),
    }
}

fn diff(base: &Value, head: &Value) -> Result<Diff, trailgate_expect::SuiteError> {
    diff_reports(
        file("base.json", &base.to_string()),
        file("head.json", &head.to_string()),
    )
}

fn text(diff: &Diff) -> String {
    let mut out = Vec::new();
    render_diff_text(diff, TextOptions::with_color(false), &mut out).expect("renders");
    String::from_utf8(out).expect("UTF-8")
}

/// A report of one test, whose grader objects are `graders` and whose runs are `sources`.
fn report(sources: &Value, graders: &Value) -> Value {
    let mut test = json!({
        "name": "t",
        "agent": null,
        "passed": true,
        "runs": sources.as_array().map_or(0, Vec::len),
        "sources": sources,
        "metrics": {"m.score": 50},
        "gates": [],
    });
    if let (Some(test), Some(graders)) = (test.as_object_mut(), graders.as_object()) {
        test.extend(graders.clone());
    }
    json!({"version": 2, "passed": true, "summary": {}, "tests": [test]})
}

/// The verdicts `diff` reads of a test's two runs, whose `sources` entries say `own` and
/// whose graders' objects are `graders`.
#[track_caller]
fn check_verdicts(own: [Option<bool>; 2], graders: &Value, expected: &[Option<bool>]) {
    let source = |run: usize, passed: Option<bool>| {
        let mut entry = json!({"run": run, "source": "a.jsonl", "line": run, "format": "trailgate", "calls": 1});
        if let (Some(entry), Some(passed)) = (entry.as_object_mut(), passed) {
            entry.insert("passed".to_owned(), json!(passed));
        }
        entry
    };
    let sources = json!([source(1, own[0]), source(2, own[1])]);
    let head = report(&sources, graders);
    let read = super::read::read_report(&mut Cursor::new(head.to_string().into_bytes()))
        .expect("the report reads");
    let verdicts: Vec<Option<bool>> = read.tests[0].listed.iter().map(|r| r.verdict).collect();
    assert_eq!(verdicts, expected);
    let diff = diff(&report(&sources, &json!({})), &head).expect("the reports compare");
    assert_eq!(diff.tests[0].runs.lined_up, 2);
}

#[rstest]
#[case::the_sources_say([Some(true), Some(false)], json!({}), &[Some(true), Some(false)])]
#[case::no_entry_says([None, None], json!({}), &[None, None])]
#[case::one_entry_says([None, Some(false)], json!({}), &[None, Some(false)])]
// A grader's per-run `passed` is that grader's verdict, not the run's: a run that fails a
// grader's own check may still pass every gate of its test, and the other way round.
#[case::a_grader_that_fails_the_run_is_not_read(
    [Some(true), Some(true)],
    json!({"g": {"runs": [{"run": 1, "passed": false}, {"run": 2, "passed": false}]}}),
    &[Some(true), Some(true)]
)]
#[case::a_grader_that_passes_the_run_is_not_read(
    [Some(false), None],
    json!({"g": {"passed_runs": 2, "runs": [{"run": 1, "passed": true}, {"run": 2, "passed": true}]}}),
    &[Some(false), None]
)]
#[case::other_shapes_are_skipped(
    [Some(true), Some(false)],
    json!({
        "g": {"runs": [{"run": 1, "passed": false, "nested": {"runs": [{"run": 2, "passed": true}]}}]},
        "h": [1, "two", null, {"runs": 3}],
        "i": "text",
        "j": {"runs": "not a list"}
    }),
    &[Some(true), Some(false)]
)]
fn a_runs_verdict_is_its_sources_entrys_passed(
    #[case] own: [Option<bool>; 2],
    #[case] graders: Value,
    #[case] expected: &[Option<bool>],
) {
    check_verdicts(own, &graders, expected);
}

#[test]
fn runs_line_up_by_source_and_line_not_by_number() {
    let source = |run: usize, line: usize, passed: bool| json!({"run": run, "source": "a.jsonl", "line": line, "format": "trailgate", "calls": 1, "passed": passed});
    // Base lists lines 1, 2, 3; head lists lines 3, 2, 9 as its runs 1, 2, 3.
    let base = report(
        &json!([source(1, 1, true), source(2, 2, true), source(3, 3, true)]),
        &json!({}),
    );
    let head = report(
        &json!([source(1, 3, false), source(2, 2, true), source(3, 9, false)]),
        &json!({}),
    );
    let diff = diff(&base, &head).expect("the reports compare");
    let runs = &diff.tests[0].runs;
    assert_eq!(
        (runs.lined_up, runs.judged, runs.base_only, runs.head_only),
        (2, 2, 1, 1)
    );
    assert_eq!(runs.changed.len(), 1);
    let change = &runs.changed[0];
    assert_eq!(
        (change.base_run, change.head_run, change.line),
        (3, 1, Some(3))
    );
    assert!(!change.passes_now);
}

/// Newcombe's interval at 95 % from the independent Python reference
/// (`crates/trailgate-core/tests/reliability/newcombe.tsv`): first sample minus second.
const NEWCOMBE: &str = include_str!("../../../trailgate-core/tests/reliability/newcombe.tsv");

/// `pass_rate_interval` is the reference's interval for head minus base, for every pair of
/// samples of several runs in the table: the order of the two reports is the one that
/// matters here, the arithmetic being the core's.
#[test]
fn the_pass_rate_interval_is_newcombes_for_head_minus_base() {
    let mut rows = 0;
    for line in NEWCOMBE.lines().skip(1) {
        let fields: Vec<i64> = line
            .split('\t')
            .map(|f| f.parse().expect("a number"))
            .collect();
        let [confidence, n1, c1, n2, c2, lower, upper] = fields[..] else {
            panic!("seven fields: {line}");
        };
        if confidence != 95 || n1 < 2 || n2 < 2 {
            continue;
        }
        let tally = |runs: i64, passed: i64| RunTally {
            runs: usize::try_from(runs).expect("a count"),
            passed: usize::try_from(passed).expect("a count"),
        };
        let interval = pass_rate_interval(tally(n2, c2), tally(n1, c1)).expect("an interval");
        assert_eq!(
            (i64::from(interval.lower), i64::from(interval.upper)),
            (lower, upper),
            "{line}"
        );
        assert_eq!(interval.significant, lower > 0 || upper < 0, "{line}");
        rows += 1;
    }
    assert!(rows > 200, "the table has pairs of several runs: {rows}");
}

/// A report of one test of `runs` runs, `passed` of which passed, with the metric `m.score`
/// at 50 whatever the runs did.
fn tally_report(runs: usize, passed: usize, with_count: bool) -> Value {
    let sources: Vec<Value> = (1..=runs)
        .map(|run| {
            json!({"run": run, "source": "a.jsonl", "line": run, "format": "trailgate",
                   "calls": 1, "passed": run <= passed})
        })
        .collect();
    let mut report = report(&json!(sources), &json!({}));
    if with_count {
        report["tests"][0]["passed_runs"] = json!(passed);
    }
    report
}

/// (base runs, passed), (head runs, passed) -> the runs passed line, whether the test
/// regressed, whether it improved.
#[track_caller]
fn check_pass_rate(
    base: (usize, usize),
    head: (usize, usize),
    line: &str,
    regressed: bool,
    improved: bool,
) {
    for with_count in [true, false] {
        let diff = diff(
            &tally_report(base.0, base.1, with_count),
            &tally_report(head.0, head.1, with_count),
        )
        .expect("the reports compare");
        let test = &diff.tests[0];
        assert!(
            test.metrics
                .iter()
                .all(|m| m.change() == Some(MetricChange::default()))
        );
        assert_eq!(
            (test.regressed(), test.improved()),
            (regressed, improved),
            "{line}"
        );
        assert_eq!(diff.regressed(), regressed);
        let shown = text(&diff);
        assert!(
            shown.contains(&format!("  runs passed: {line}\n")),
            "{shown}"
        );
    }
}

#[rstest]
// Significant: the interval excludes 0. A drop is a regression with no metric or gate moved.
#[case::significant_drop(
    (10, 9), (10, 3),
    "9 of 10 -> 3 of 10; 95% interval of the change -81 to -17 points, significant",
    true, false
)]
#[case::significant_rise(
    (10, 3), (10, 9),
    "3 of 10 -> 9 of 10; 95% interval of the change 17 to 81 points, significant",
    false, true
)]
// Not significant: shown, and not a regression by itself.
#[case::drop_not_significant(
    (5, 5), (5, 4),
    "5 of 5 -> 4 of 5; 95% interval of the change -63 to 27 points, not significant",
    false, false
)]
#[case::rise_not_significant(
    (5, 4), (5, 5),
    "4 of 5 -> 5 of 5; 95% interval of the change -27 to 63 points, not significant",
    false, false
)]
fn a_change_in_pass_rate_is_significant_when_its_interval_excludes_0(
    #[case] base: (usize, usize),
    #[case] head: (usize, usize),
    #[case] line: &str,
    #[case] regressed: bool,
    #[case] improved: bool,
) {
    check_pass_rate(base, head, line, regressed, improved);
}

#[test]
fn the_interval_is_in_the_json_output() {
    let diff = diff(&tally_report(10, 9, true), &tally_report(10, 3, true)).expect("compares");
    let mut out = Vec::new();
    render_diff_json(&diff, &mut out).expect("renders");
    let parsed: Value = serde_json::from_slice(&out).expect("JSON");
    assert_eq!(
        parsed["tests"][0]["pass_rate"],
        json!({"base": {"passed": 9, "runs": 10}, "head": {"passed": 3, "runs": 10},
               "interval": {"lower": -81, "upper": -17, "significant": true}})
    );
    assert_eq!(parsed["regressed"], json!(true));
}

#[rstest]
// One run on a side: no pass rate to compare (docs/baselines.md: several runs in both).
#[case::one_run(json!(1), json!(1), json!([true]))]
// No count and no verdict per run: an older report.
#[case::nothing_says(Value::Null, json!(2), json!([null, null]))]
// More passed than ran: not a report `check` writes; no interval rather than a wrong one.
#[case::more_passed_than_ran(json!(3), json!(2), json!([true, true]))]
fn no_pass_rate_without_counts_of_several_runs(
    #[case] passed_runs: Value,
    #[case] runs: Value,
    #[case] verdicts: Value,
) {
    let sources: Vec<Value> = verdicts
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, passed)| {
            json!({"run": i + 1, "source": "a.jsonl", "line": i + 1, "format": "trailgate",
                   "calls": 1, "passed": passed})
        })
        .collect();
    let mut report = report(&json!(sources), &json!({}));
    report["tests"][0]["runs"] = runs;
    if !passed_runs.is_null() {
        report["tests"][0]["passed_runs"] = passed_runs;
    }
    let diff = diff(&report, &report).expect("compares");
    assert_eq!(diff.tests[0].pass_rate, None);
    assert!(!text(&diff).contains("runs passed"));
}

/// A generated test: a name from a small pool (so that two reports share some), metrics,
/// gates on them, and listed runs with verdicts.
#[derive(Debug, Clone)]
struct GenTest {
    name: usize,
    metrics: BTreeMap<usize, u8>,
    gates: Vec<(usize, usize, u8, bool)>,
    runs: Vec<(usize, Option<usize>, Option<bool>)>,
}

const METRICS: &[&str] = &["a.f1", "a.recall", "b.pass_rate", "c.score"];
const OPS: &[&str] = &[">=", ">", "<=", "<", "==", "!="];
const SOURCES: &[&str] = &["traces/x.json", "traces/y.jsonl", "traces/z.json"];

fn gen_test() -> impl Strategy<Value = GenTest> {
    (
        0..6_usize,
        prop::collection::btree_map(0..METRICS.len(), 0..=100_u8, 0..4),
        prop::collection::vec(
            (0..METRICS.len(), 0..OPS.len(), 0..=100_u8, any::<bool>()),
            0..4,
        ),
        prop::collection::vec(
            (
                0..SOURCES.len(),
                prop::option::of(1..4_usize),
                prop::option::of(any::<bool>()),
            ),
            0..6,
        ),
    )
        .prop_map(|(name, metrics, gates, runs)| GenTest {
            name,
            metrics,
            gates,
            runs,
        })
}

fn gen_report() -> impl Strategy<Value = Value> {
    prop::collection::vec(gen_test(), 1..6).prop_map(|tests| {
        let mut seen = std::collections::BTreeSet::new();
        let tests: Vec<Value> = tests
            .into_iter()
            .filter(|t| seen.insert(t.name))
            .map(|t| {
                let metrics: serde_json::Map<String, Value> = t
                    .metrics
                    .iter()
                    .map(|(m, v)| (METRICS[*m].to_owned(), json!(v)))
                    .collect();
                let gates: Vec<Value> = t
                    .gates
                    .iter()
                    .map(|(m, op, value, passed)| {
                        json!({"target": METRICS[*m], "op": OPS[*op], "value": value,
                               "actual": t.metrics.get(m).copied().unwrap_or(0),
                               "passed": passed, "line": null})
                    })
                    .collect();
                let sources: Vec<Value> = t
                    .runs
                    .iter()
                    .enumerate()
                    .map(|(i, (s, line, passed))| {
                        let mut entry = json!({"run": i + 1, "source": SOURCES[*s], "line": line,
                               "format": "trailgate", "calls": 1});
                        if let (Some(entry), Some(passed)) = (entry.as_object_mut(), passed) {
                            entry.insert("passed".to_owned(), json!(passed));
                        }
                        entry
                    })
                    .collect();
                // A grader's own per-run `passed`, the opposite of the run's verdict: the
                // diff must not read it.
                let entries: Vec<Value> = t
                    .runs
                    .iter()
                    .enumerate()
                    .filter_map(|(i, (_, _, passed))| {
                        passed.map(|p| json!({"run": i + 1, "passed": !p}))
                    })
                    .collect();
                json!({
                    "name": format!("test {}", t.name),
                    "agent": null,
                    "passed": t.gates.iter().all(|g| g.3),
                    "runs": t.runs.len(),
                    "sources": sources,
                    "metrics": metrics,
                    "gates": gates,
                    "grader": {"score": 1, "runs": entries},
                })
            })
            .collect();
        json!({"version": 2, "passed": true, "summary": {}, "tests": tests})
    })
}

fn names(tests: &[super::read::TestRead]) -> Vec<&str> {
    let mut names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    names
}

proptest! {
    #[test]
    fn a_report_with_itself_shows_no_change(report in gen_report()) {
        let diff = diff(&report, &report).expect("a report compares with itself");
        prop_assert!(!diff.regressed());
        prop_assert!(diff.added.is_empty() && diff.removed.is_empty());
        for test in &diff.tests {
            prop_assert!(!test.moved() && !test.regressed() && !test.improved());
            prop_assert!(test.metrics.iter().all(|m| m.change() == Some(MetricChange::default())));
            prop_assert!(test.gates.iter().all(|g| g.change() == GateChange::Unchanged));
            prop_assert!(test.runs.changed.is_empty());
            prop_assert_eq!(test.runs.base_only + test.runs.head_only, 0);
        }
        prop_assert!(text(&diff).contains("\nOK "));
    }

    #[test]
    fn swapping_the_reports_swaps_every_sign(a in gen_report(), b in gen_report()) {
        let (Ok(forward), Ok(backward)) = (diff(&a, &b), diff(&b, &a)) else {
            // Refused both ways alike: no test in common.
            prop_assert!(diff(&a, &b).is_err() && diff(&b, &a).is_err());
            return Ok(());
        };
        prop_assert_eq!(names(&forward.added), names(&backward.removed));
        prop_assert_eq!(names(&forward.removed), names(&backward.added));
        prop_assert_eq!(forward.tests.len(), backward.tests.len());
        for test in &forward.tests {
            let other = backward.tests.iter().find(|t| t.name == test.name);
            let other = other.expect("a test in both, both ways");
            prop_assert_eq!(test.metrics.len(), other.metrics.len());
            for (m, o) in test.metrics.iter().zip(&other.metrics) {
                prop_assert_eq!(&m.name, &o.name);
                prop_assert_eq!((m.base, m.head), (o.head, o.base));
                prop_assert_eq!(m.change().map(MetricChange::millionths), o.change().map(|c| -c.millionths()));
            }
            for gate in &test.gates {
                let swapped = gate.change();
                let found = other.gates.iter().any(|o| {
                    o.target == gate.target && o.op == gate.op
                        && (o.base, o.head) == (gate.head, gate.base)
                });
                prop_assert!(found, "{:?} has no swapped counterpart", gate);
                let back = other.gates.iter().find(|o| {
                    o.target == gate.target && o.op == gate.op
                        && (o.base, o.head) == (gate.head, gate.base)
                }).map(super::GateDiff::change);
                let expected = match swapped {
                    GateChange::NewlyFailing if gate.base.is_some() => GateChange::NewlyPassing,
                    GateChange::NewlyFailing | GateChange::Added => GateChange::Removed,
                    GateChange::NewlyPassing => GateChange::NewlyFailing,
                    GateChange::Unchanged => GateChange::Unchanged,
                    GateChange::Removed if gate.base.is_some_and(|g| g.passed == Some(false)) => GateChange::NewlyFailing,
                    GateChange::Removed => GateChange::Added,
                };
                prop_assert_eq!(back, Some(expected));
            }
            let key = |r: &super::RunChange, swap: bool| {
                let (b, h) = if swap { (r.head_run, r.base_run) } else { (r.base_run, r.head_run) };
                (r.source.to_string(), r.line, b, h, r.passes_now != swap)
            };
            let mut there: Vec<_> = test.runs.changed.iter().map(|r| key(r, false)).collect();
            let mut back: Vec<_> = other.runs.changed.iter().map(|r| key(r, true)).collect();
            there.sort();
            back.sort();
            prop_assert_eq!(there, back);
            let swapped = other.pass_rate.map(|r| {
                let i = r.interval.map(|i| (-i.upper, -i.lower, i.significant));
                (r.head, r.base, i)
            });
            let interval = |r: super::PassRates| r.interval.map(|i| (i.lower, i.upper, i.significant));
            prop_assert_eq!(test.pass_rate.map(|r| (r.base, r.head, interval(r))), swapped);
            prop_assert_eq!(
                (test.runs.lined_up, test.runs.base_only, test.runs.head_only),
                (other.runs.lined_up, other.runs.head_only, other.runs.base_only)
            );
        }
    }

    #[test]
    fn the_numbers_are_the_reports_own(a in gen_report(), b in gen_report()) {
        let Ok(diff) = diff(&a, &b) else { return Ok(()); };
        let find = |report: &Value, name: &str| {
            report["tests"].as_array().and_then(|tests| {
                tests.iter().find(|t| t["name"] == json!(name)).cloned()
            })
        };
        for test in &diff.tests {
            let (base, head) = (find(&a, &test.name), find(&b, &test.name));
            let (Some(base), Some(head)) = (base, head) else {
                prop_assert!(false, "{} is in both reports", test.name);
                return Ok(());
            };
            for metric in &test.metrics {
                prop_assert_eq!(metric.base.map(|v| json!(v)), base["metrics"].get(&metric.name).cloned());
                prop_assert_eq!(metric.head.map(|v| json!(v)), head["metrics"].get(&metric.name).cloned());
            }
            let sides = |report: &Value| -> Vec<GateSides> {
                report["gates"].as_array().into_iter().flatten().map(|g| (
                    g["target"].as_str().unwrap_or_default().to_owned(),
                    g["op"].as_str().unwrap_or_default().to_owned(),
                    g["value"].as_u64().map(|v| MetricValue::whole(u128::from(v))),
                    MetricValue::whole(u128::from(g["actual"].as_u64().unwrap_or_default())),
                    g["passed"].as_bool(),
                )).collect()
            };
            let mut from_diff_base: Vec<_> = test.gates.iter().filter_map(|g| g.base.map(|s| (g.target.clone(), g.op.clone(), s.value, s.actual, s.passed))).collect();
            let mut from_diff_head: Vec<_> = test.gates.iter().filter_map(|g| g.head.map(|s| (g.target.clone(), g.op.clone(), s.value, s.actual, s.passed))).collect();
            let (mut in_base, mut in_head) = (sides(&base), sides(&head));
            for list in [&mut from_diff_base, &mut from_diff_head, &mut in_base, &mut in_head] {
                list.sort();
            }
            prop_assert_eq!(from_diff_base, in_base);
            prop_assert_eq!(from_diff_head, in_head);
            prop_assert_eq!((test.base.passed, test.head.passed), (base["passed"] == json!(true), head["passed"] == json!(true)));
        }
    }
}

/// A report of one test `t` with these metrics and no gate or run.
fn with_metrics(metrics: &Value) -> Value {
    json!({"version": 2, "passed": true, "summary": {}, "tests": [
        {"name": "t", "passed": true, "runs": 1, "metrics": metrics, "gates": []}
    ]})
}

/// Whether the diff of a test whose metric `name` goes from `base` to `head` regressed, and
/// whether it improved (docs/baselines.md#which-way-is-better).
#[rstest]
#[case::errors_rate_rising_regresses("errors.rate", 0, 10, true, false)]
#[case::errors_rate_falling_improves("errors.rate", 10, 0, false, true)]
#[case::usage_rising_regresses("usage.tokens", 40, 41, true, false)]
#[case::a_score_falling_regresses("tool_selection.f1", 90, 80, true, false)]
#[case::a_score_rising_improves("tool_selection.f1", 80, 90, false, true)]
#[case::errors_recovery_is_better_higher("errors.recovery", 100, 50, true, false)]
#[case::unchanged("errors.rate", 5, 5, false, false)]
fn a_metrics_direction_decides_a_regression(
    #[case] name: &str,
    #[case] base: u8,
    #[case] head: u8,
    #[case] regressed: bool,
    #[case] improved: bool,
) {
    let diff = diff(
        &with_metrics(&json!({ name: base })),
        &with_metrics(&json!({ name: head })),
    )
    .expect("the reports compare");
    assert_eq!(diff.regressed(), regressed, "regressed");
    assert_eq!(diff.tests[0].improved(), improved, "improved");
    let shown = text(&diff);
    assert_eq!(shown.contains("REGRESSED t ("), regressed, "{shown}");
    assert_eq!(shown.contains("IMPROVED t ("), improved, "{shown}");
}

#[test]
fn github_says_which_way_a_better_lower_metric_moved() {
    let diff = diff(
        &with_metrics(&json!({"errors.rate": 0, "tool_selection.f1": 100})),
        &with_metrics(&json!({"errors.rate": 25, "tool_selection.f1": 90})),
    )
    .expect("the reports compare");
    let mut out = Vec::new();
    super::render_diff_github(&diff, &mut out).expect("renders");
    let out = String::from_utf8(out).expect("UTF-8");
    assert!(
        out.contains(
            "::warning title=trailgate diff%3A t::errors.rate rose from 0 to 25 (+25; better lower)"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "::warning title=trailgate diff%3A t::tool_selection.f1 fell from 100 to 90 (-10)"
        ),
        "{out}"
    );
}
