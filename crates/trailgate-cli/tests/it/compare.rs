//! `trailgate compare` on the command line: the fixtures' p values against exact fractions,
//! labels, outputs to files, and the formats it refuses.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::support::trailgate;

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"))
}

/// McNemar's exact p for small b + c, rounded up to four decimals and whether it is below
/// 0.05, with 128-bit integers: apart from the report crate's big integers, so that the
/// two agree only when both are right.
fn exact_p(b: u128, c: u128) -> (u128, bool) {
    let n = b + c;
    assert!(n < 100, "b + c = {n} is beyond 128 bits");
    let mut row = vec![1u128];
    for _ in 0..n {
        let mut next = vec![1u128; row.len() + 1];
        for i in 1..row.len() {
            next[i] = row[i - 1] + row[i];
        }
        row = next;
    }
    let sum: u128 = row[..=usize::try_from(b.min(c)).unwrap()].iter().sum();
    let denominator = 1u128 << n;
    let numerator = (2 * sum).min(denominator);
    let rounded_up = (numerator * 10_000).div_ceil(denominator);
    (rounded_up, numerator * 20 < denominator)
}

#[test]
fn the_exact_reference_is_right() {
    assert_eq!(exact_p(0, 0), (10_000, false));
    assert_eq!(exact_p(1, 5), (2188, false));
    assert_eq!(exact_p(0, 6), (313, true));
    assert_eq!(exact_p(10, 0), (20, true));
}

#[test]
fn the_compare_fixtures_p_values_are_exact() {
    let mut pairs = Vec::new();
    for entry in fs::read_dir(fixtures()).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_str().unwrap().to_owned();
        if !name.starts_with("compare-") {
            continue;
        }
        let args = fs::read_to_string(dir.join("args")).unwrap();
        let mut args: Vec<&str> = args.lines().collect();
        args.extend(["--format", "json"]);
        let run = trailgate(&dir, &args);
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        let comparison: Value = serde_json::from_str(&run.stdout).unwrap();
        let files: Vec<&str> = args[1..]
            .iter()
            .copied()
            .filter(|a| Path::new(a).extension().is_some_and(|e| e == "json"))
            .collect();
        // The verdicts as the reports themselves give them.
        let verdicts: Vec<Value> = files
            .iter()
            .map(|file| serde_json::from_str(&fs::read_to_string(dir.join(file)).unwrap()).unwrap())
            .collect();
        let verdict = |report: &Value, test: &str| {
            report["tests"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == test)
                .map(|t| t["passed"].as_bool().unwrap())
        };
        let first = &verdicts[0];
        let reports = comparison["reports"].as_array().unwrap();
        for (report, shown) in verdicts.iter().zip(reports).skip(1) {
            let (mut b, mut c) = (0, 0);
            for test in first["tests"].as_array().unwrap() {
                let test = test["name"].as_str().unwrap();
                match (verdict(first, test), verdict(report, test)) {
                    (Some(true), Some(false)) => b += 1,
                    (Some(false), Some(true)) => c += 1,
                    _ => {}
                }
            }
            let pair = &shown["against_first"];
            assert_eq!((pair["b"].as_u64(), pair["c"].as_u64()), (Some(b), Some(c)));
            let (rounded_up, significant) = exact_p(u128::from(b), u128::from(c));
            let expected = format!("{}.{:04}", rounded_up / 10_000, rounded_up % 10_000);
            let text = serde_json::to_string(&pair["p"]).unwrap();
            assert_eq!(
                format!("{text:0<6}"),
                expected,
                "{name}: {} (b = {b}, c = {c})",
                shown["label"]
            );
            assert_eq!(pair["significant"], significant);
            pairs.push((b, c));
        }
    }
    // The pairs the fixtures pin, among them b + c = 0.
    for pair in [(0, 0), (1, 5), (0, 6), (10, 0), (3, 3)] {
        assert!(pairs.contains(&pair), "{pair:?} in {pairs:?}");
    }
}

#[test]
fn labels_are_given_once_per_report_or_not_at_all() {
    let dir = fixtures().join("compare-agents");
    let run = trailgate(
        &dir,
        &["compare", "large.json", "small.json", "--label", "big"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("`--label` is given once for 2 reports"),
        "{}",
        run.stderr
    );
    let run = trailgate(
        &dir,
        &[
            "compare",
            "large.json",
            "small.json",
            "--label",
            "big",
            "--label",
            "little",
            "-f",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let parsed: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(parsed["reports"][0]["label"], "big");
    assert_eq!(parsed["reports"][1]["label"], "little");
    assert_eq!(parsed["reports"][1]["file"], "small.json");
    let run = trailgate(
        &dir,
        &["compare", "large.json", "small.json", "--label", ""],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn two_files_with_one_stem_need_labels() {
    let temp = tempfile::tempdir().unwrap();
    let report = fs::read_to_string(fixtures().join("compare-agents/large.json")).unwrap();
    for folder in ["a", "b"] {
        fs::create_dir(temp.path().join(folder)).unwrap();
        fs::write(temp.path().join(folder).join("report.json"), &report).unwrap();
    }
    let run = trailgate(temp.path(), &["compare", "a/report.json", "b/report.json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("trailgate::compare::duplicate_label"));
    assert!(
        run.stderr.contains("`a/report.json` and `b/report.json`"),
        "{}",
        run.stderr
    );
    let run = trailgate(
        temp.path(),
        &[
            "compare",
            "a/report.json",
            "b/report.json",
            "--label",
            "a",
            "--label",
            "b",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn each_format_goes_to_its_output_and_the_exit_code_stays_zero() {
    let dir = fixtures().join("compare-agents");
    let temp = tempfile::tempdir().unwrap();
    let html = temp.path().join("compare.html");
    let markdown = temp.path().join("compare.md");
    let run = trailgate(
        &dir,
        &[
            "compare",
            "large.json",
            "small.json",
            "tuned.json",
            "--output",
            html.to_str().unwrap(),
            "--output",
            markdown.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let alone = |format: &str| {
        trailgate(
            &dir,
            &[
                "compare",
                "large.json",
                "small.json",
                "tuned.json",
                "-f",
                format,
            ],
        )
    };
    // Every output went to a file, so the log shows the text comparison.
    assert_eq!(run.stdout, alone("text").stdout);
    let page = fs::read_to_string(&html).unwrap();
    assert_eq!(page, alone("html").stdout);
    // One self-contained page: no script, nothing fetched.
    assert!(!page.contains("<script") && !page.contains("src=") && !page.contains("href="));
    assert_eq!(
        fs::read_to_string(&markdown).unwrap(),
        alone("markdown").stdout
    );
}

#[test]
fn junit_and_workflow_commands_are_refused() {
    let dir = fixtures().join("compare-agents");
    for format in ["junit", "github", "jsonl"] {
        let run = trailgate(
            &dir,
            &["compare", "large.json", "small.json", "--format", format],
        );
        assert_eq!(run.code, 2, "{format}");
        assert!(run.stderr.contains(format), "{}", run.stderr);
    }
    let run = trailgate(
        &dir,
        &["compare", "large.json", "small.json", "-o", "x.xml"],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("`.json`, `.md`, `.html` or `.txt`"),
        "{}",
        run.stderr
    );
}
