//! The reliability fixtures against the independent reference: every figure of each test's
//! `reliability` object in the JSON report of `fixtures/reliability-*` and
//! `fixtures/merge-shards-reliability` is the row of
//! `crates/trailgate-core/tests/reliability/reference.tsv` (Python fractions, computed
//! without the Rust code; its README says how) for that test's confidence, n, c and k. The
//! counts themselves are taken from the report's runs, not from the object.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::support::trailgate;

const REFERENCE: &str = include_str!("../../../trailgate-core/tests/reliability/reference.tsv");

/// The reference's figures of a row, in the order of the `reliability` object:
/// `pass_rate`, `pass_at_k`, `pass_hat_k`, `lower`, `upper`, `runs_to_resolve`, and the decay.
struct Row {
    figures: [u64; 6],
    decay: Vec<u64>,
}

/// The row of `reference.tsv` for (confidence, n, c, k), if the grid holds it.
fn reference_row(confidence: u64, n: u64, c: u64, k: u64) -> Option<Row> {
    let number = |field: &str| -> u64 {
        field
            .parse()
            .map_err(|_| format!("not a count in reference.tsv: {field}"))
            .unwrap()
    };
    REFERENCE.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 11, "{line}");
        let key = [fields[0], fields[1], fields[2], fields[3]].map(number);
        (key == [confidence, n, c, k]).then(|| Row {
            figures: [
                number(fields[4]),
                number(fields[5]),
                number(fields[6]),
                number(fields[7]),
                number(fields[8]),
                number(fields[9]),
            ],
            decay: fields[10].split(',').map(number).collect(),
        })
    })
}

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"))
}

/// The JSON report of a fixture: its `args` (a `merge ... --format json`) or
/// `check trailgate.yaml --format json`.
fn json_report(dir: &Path) -> Value {
    let args: Vec<String> = match fs::read_to_string(dir.join("args")) {
        Ok(text) => text.lines().map(str::to_owned).collect(),
        Err(_) => ["check", "trailgate.yaml", "--format", "json"]
            .map(str::to_owned)
            .to_vec(),
    };
    assert!(
        args.windows(2).any(|w| w == ["--format", "json"]),
        "{}: the fixture writes JSON",
        dir.display()
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = trailgate(dir, &args);
    assert!(
        run.code == 0 || run.code == 1,
        "{}: exit code {}\n{}",
        dir.display(),
        run.code,
        run.stderr
    );
    serde_json::from_str(&run.stdout).expect("the JSON report parses")
}

/// A count of the report.
fn count(value: &Value) -> u64 {
    value
        .as_u64()
        .ok_or_else(|| format!("not a count: {value}"))
        .unwrap()
}

/// Checks one test's `reliability` object against the reference; its n and c are counted
/// from the test's runs and their verdicts.
fn check_test(fixture: &str, test: &Value) {
    let name = format!("{fixture}: {}", test["name"]);
    let block = &test["reliability"];
    let sources = test["sources"].as_array().expect("the test's runs");
    let n = sources.len() as u64;
    let c = sources.iter().filter(|s| s["passed"] == true).count() as u64;
    assert_eq!(count(&block["runs"]), n, "{name}: n is the runs listed");
    assert_eq!(
        count(&block["passed"]),
        c,
        "{name}: c is the runs that passed"
    );
    assert_eq!(count(&test["passed_runs"]), c, "{name}: passed_runs");
    let (k, confidence) = (count(&block["k"]), count(&block["confidence"]));
    let row = reference_row(confidence, n, c, k)
        .ok_or_else(|| {
            format!(
                "{name}: no row for confidence {confidence}, n {n}, c {c}, k {k} in \
                 reference.tsv; add it to reference.py's grid and run the script"
            )
        })
        .unwrap();
    let stated = [
        "pass_rate",
        "pass_at_k",
        "pass_hat_k",
        "lower",
        "upper",
        "runs_to_resolve",
    ]
    .map(|field| count(&block[field]));
    assert_eq!(stated, row.figures, "{name}: the figures");
    let decay: Vec<u64> = block["pass_hat_k_decay"]
        .as_array()
        .expect("the decay")
        .iter()
        .map(count)
        .collect();
    assert_eq!(decay, row.decay, "{name}: the decay");
    // The test's metrics state the same figures.
    let metrics = &test["metrics"];
    for (metric, value) in [
        "reliability.pass_rate",
        "reliability.pass_at_k",
        "reliability.pass_hat_k",
        "reliability.pass_rate.lower",
        "reliability.pass_rate.upper",
    ]
    .iter()
    .zip(row.figures)
    {
        assert_eq!(count(&metrics[metric]), value, "{name}: {metric}");
    }
}

#[test]
fn every_reliability_fixture_matches_the_reference() {
    let mut fixtures_read = Vec::new();
    let mut tests_checked = 0;
    for entry in fs::read_dir(fixtures()).expect("the fixtures folder") {
        let dir = entry.expect("a fixture").path();
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap().to_owned();
        if name.starts_with("bad-") || !name.contains("reliability") {
            continue;
        }
        let report = json_report(&dir);
        for test in report["tests"].as_array().expect("the tests") {
            assert!(
                test["reliability"].is_object(),
                "{name}: every test of a reliability fixture has the block"
            );
            check_test(&name, test);
            tests_checked += 1;
        }
        fixtures_read.push(name);
    }
    fixtures_read.sort();
    // The fixtures of docs/reliability.md; none may silently disappear.
    assert_eq!(
        fixtures_read,
        [
            "merge-shards-reliability",
            "reliability-confidence",
            "reliability-five-runs-four-pass",
            "reliability-one-run",
            "reliability-twenty-all-pass",
            "reliability-twenty-none-pass",
        ]
    );
    assert_eq!(tests_checked, 11);
}

const PAGE: &str = include_str!("../../../../docs/reliability.md");

/// The body of the first fenced block of `language` after `heading` in the page.
fn fenced(heading: &str, language: &str) -> &'static str {
    let section = PAGE.split(heading).nth(1).expect("the page's section");
    let open = format!("```{language}\n");
    let body = section.split(&open).nth(1).expect("a fenced block");
    body.split("\n```").next().expect("a closed block")
}

/// The suite, the text report and the JSON object that `docs/reliability.md` shows are those
/// of `fixtures/reliability-five-runs-four-pass`, so the page cannot drift from the tool.
#[test]
fn the_page_s_excerpts_are_the_fixture_s() {
    let dir = fixtures().join("reliability-five-runs-four-pass");
    let suite = fs::read_to_string(dir.join("trailgate.yaml")).unwrap();
    let without_comments: Vec<&str> = suite
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .collect();
    let shown = fenced("## In a suite: the `reliability:` block", "yaml");
    assert_eq!(shown, without_comments.join("\n"));

    let run = trailgate(&dir, &["check", "trailgate.yaml"]);
    assert_eq!(run.code, 1);
    let shown = fenced("### In the reports", "text");
    assert_eq!(format!("{shown}\n"), run.stdout);

    let run = trailgate(&dir, &["check", "trailgate.yaml", "--format", "json"]);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let shown: Value =
        serde_json::from_str(&format!("{{{}}}", fenced("### In the reports", "json"))).unwrap();
    assert_eq!(shown["reliability"], report["tests"][0]["reliability"]);
}
