//! The golden fixtures: every folder of `fixtures/` is a suite with traces, and its
//! `snapshots/` hold the reports (or, for `bad-*` cases, the diagnostic) trailgate prints.
//! A fixture's `args` file replaces the command line `check trailgate.yaml`; a command other
//! than `check`, or a help text (`-h`, `--help`), is snapshotted once, as `output.snap`.
//!
//! `cargo xtask snapshots` rewrites the snapshots; with `CI` set a stale one fails.

use std::fs;
use std::path::Path;

use crate::support::trailgate;

#[test]
fn golden_fixtures() {
    insta::glob!("../../../../fixtures", "*/README.md", |readme| {
        let dir = readme.parent().expect("a fixture folder");
        let case = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a UTF-8 fixture name");
        // A fixture's `args` file replaces the default `check trailgate.yaml`.
        let args: Vec<String> = match fs::read_to_string(dir.join("args")) {
            Ok(text) => text.lines().map(str::to_owned).collect(),
            Err(_) => vec!["check".to_owned(), "trailgate.yaml".to_owned()],
        };
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(dir.join("snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.remove_snapshot_suffix();
        settings.set_omit_expression(true);
        settings.bind(|| {
            if case.starts_with("bad-") {
                check_invalid(dir, &args);
            } else if args.first().map(String::as_str) == Some("diff")
                && !args.iter().any(|arg| arg == "-h" || arg == "--help")
            {
                check_reading(dir, &args, "regressed");
            } else if args.first().map(String::as_str) == Some("trend")
                && !args.iter().any(|arg| arg == "-h" || arg == "--help")
            {
                check_reading(dir, &args, "drifted");
            } else if args.first().map(String::as_str) == Some("compare")
                && !args.iter().any(|arg| arg == "-h" || arg == "--help")
            {
                check_compare(dir, &args);
            } else if args.first().map(String::as_str) == Some("check")
                && !args.iter().any(|arg| arg == "-h" || arg == "--help")
            {
                check_scored(dir, &args);
            } else {
                check_other(dir, &args);
            }
        });
    });
}

/// A valid case prints its report on stdout, nothing on stderr, and exits 0 or 1. A case
/// that checks against a baseline written from its `base/` suite (`check --baseline`) has
/// that report checked to be current, as a `diff` case's. The JSON Lines report is
/// snapshotted for the cases whose README names `--format jsonl`.
fn check_scored(dir: &Path, args: &[String]) {
    reports_are_current(dir);
    let readme = fs::read_to_string(dir.join("README.md")).unwrap_or_default();
    let jsonl = readme.contains("`--format jsonl`");
    for format in ["text", "json", "jsonl", "junit", "github", "markdown"] {
        if format == "jsonl" && !jsonl {
            continue;
        }
        let mut full: Vec<&str> = args.iter().map(String::as_str).collect();
        full.extend(["--format", format]);
        let run = trailgate(dir, &full);
        assert!(
            run.code == 0 || run.code == 1,
            "{}: exit code {}\n{}",
            dir.display(),
            run.code,
            run.stderr
        );
        assert_eq!(run.stderr, "", "{}: nothing on stderr", dir.display());
        if format == "json" {
            let parsed: serde_json::Value =
                serde_json::from_str(&run.stdout).expect("the JSON report parses");
            assert_eq!(parsed["passed"], serde_json::Value::Bool(run.code == 0));
        }
        if format == "jsonl" {
            for line in run.stdout.lines() {
                let parsed: Result<serde_json::Value, _> = serde_json::from_str(line);
                assert!(
                    parsed.is_ok(),
                    "{}: a line that does not parse: {line}",
                    dir.display()
                );
            }
        }
        insta::assert_snapshot!(format, run.show(&run.stdout));
    }
    if HTML_FIXTURES.iter().any(|name| dir.ends_with(name)) {
        let mut full: Vec<&str> = args.iter().map(String::as_str).collect();
        full.extend(["--format", "html"]);
        let run = trailgate(dir, &full);
        assert_eq!(run.stderr, "", "{}: nothing on stderr", dir.display());
        insta::assert_snapshot!("html", run.show(&html_page(&run.stdout)));
    }
}

/// The fixtures whose HTML report is snapshotted too: a passing suite, a failing one with
/// many runs, markup in every string, gates on a baseline, each verdict of a marked test, and
/// a per-agent table
/// (the browser test opens them).
pub(crate) const HTML_FIXTURES: [&str; 6] = [
    "seed-000-first-run",
    "many-runs-listing",
    "hostile-html-content",
    "baseline-gates",
    "xfail-verdicts",
    "agents-matchers",
];

/// The HTML page as its snapshot shows it: the page with its style sheet, script and the
/// script's digest left out (they are the same for every report, and reviewed as code), and
/// its data
/// pretty-printed (its keys sorted by the pretty-printer), after checking that the data as
/// embedded holds no `<`, `>` or `&`.
fn html_page(page: &str) -> String {
    let open = r#"<script type="application/json" id="data">"#;
    let (head, rest) = page.split_once(open).expect("the page embeds its data");
    let (data, tail) = rest
        .split_once("</script>")
        .expect("the data's element ends");
    assert!(
        !data.contains(['<', '>', '&']),
        "the embedded data escapes `<`, `>` and `&`"
    );
    let data: serde_json::Value = serde_json::from_str(data).expect("the data is JSON");
    let elide = |text: &str, open: &str, close: &str, name: &str| {
        let (before, inner) = text.split_once(open).expect("the element opens");
        let (_, after) = inner.split_once(close).expect("the element closes");
        format!("{before}{open}/* {name} */{close}{after}")
    };
    let head = elide(head, "<style>", "</style>", "page.css");
    let head = elide(&head, "'sha256-", "'", "the digest of page.js");
    let tail = elide(tail, "<script>", "</script>", "page.js");
    format!(
        "{head}{open}\n{}\n</script>{tail}",
        serde_json::to_string_pretty(&data).expect("JSON serializes")
    )
}

/// A `diff` or `trend` case reads reports: each output format is snapshotted, as for
/// `check`, and exits 0 or 1, 1 exactly when the JSON output's `verdict_key` (`regressed`,
/// `drifted`) is true. Where the case holds the suites the reports were written from
/// (`base/` and `head/`, `r1/` ...), the reports are checked to be what `check --format json`
/// writes there today, so a change to the JSON report cannot leave them stale.
fn check_reading(dir: &Path, args: &[String], verdict_key: &str) {
    reports_are_current(dir);
    for format in ["text", "json", "markdown", "github"] {
        let mut full: Vec<&str> = args.iter().map(String::as_str).collect();
        full.extend(["--format", format]);
        let run = trailgate(dir, &full);
        assert!(
            run.code == 0 || run.code == 1,
            "{}: exit code {}\n{}",
            dir.display(),
            run.code,
            run.stderr
        );
        assert_eq!(run.stderr, "", "{}: nothing on stderr", dir.display());
        if format == "json" {
            let parsed: serde_json::Value =
                serde_json::from_str(&run.stdout).expect("the JSON output parses");
            assert_eq!(parsed[verdict_key], serde_json::Value::Bool(run.code == 1));
        }
        insta::assert_snapshot!(format, run.show(&run.stdout));
    }
}

/// A `compare` case compares several reports: each output format is snapshotted, the HTML
/// page without its style sheet (the report page's, reviewed as code), and every one exits 0.
/// Its reports are checked to be current, as a `diff` case's.
fn check_compare(dir: &Path, args: &[String]) {
    reports_are_current(dir);
    for format in ["text", "json", "markdown", "html"] {
        let mut full: Vec<&str> = args.iter().map(String::as_str).collect();
        full.extend(["--format", format]);
        let run = trailgate(dir, &full);
        assert_eq!(run.code, 0, "{}: exit code\n{}", dir.display(), run.stderr);
        assert_eq!(run.stderr, "", "{}: nothing on stderr", dir.display());
        let shown = if format == "html" {
            let (head, rest) = run
                .stdout
                .split_once("<style>")
                .expect("the page has a style");
            let (_, tail) = rest.split_once("</style>").expect("the style ends");
            format!("{head}<style>/* page.css */</style>{tail}")
        } else {
            run.stdout.clone()
        };
        insta::assert_snapshot!(format, run.show(&shown));
    }
}

/// Each `NAME.json` is what `check --format json` writes in `NAME/`, where the case holds
/// that suite, or what `trailgate <args> --format json` writes there, where the folder has
/// an `args` file: `base.json` and `head.json` for a `diff` case, one per report for a
/// `trend` or `compare` case.
fn reports_are_current(dir: &Path) {
    let mut sides: Vec<String> = fs::read_dir(dir)
        .expect("a fixture folder reads")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| dir.join(name).is_dir() && dir.join(format!("{name}.json")).is_file())
        .collect();
    sides.sort();
    for side in &sides {
        let mut args: Vec<String> = match fs::read_to_string(dir.join(side).join("args")) {
            Ok(text) => text.lines().map(str::to_owned).collect(),
            Err(_) if dir.join(side).join("trailgate.yaml").is_file() => vec!["check".to_owned()],
            Err(_) => continue,
        };
        args.extend(["--format".to_owned(), "json".to_owned()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let written = trailgate(&dir.join(side), &args);
        let committed = fs::read_to_string(dir.join(format!("{side}.json")))
            .expect("the fixture holds the report of its suite");
        assert_eq!(
            written.stdout,
            committed,
            "{}: {side}.json is stale; write it again with the commands of the README",
            dir.display()
        );
    }
}

/// Another command (`accuracy`, `merge`, ...) prints its output on stdout and exits 0, or 1
/// for a `merge` whose gates fail; what it prints on stderr, warnings only, is shown after.
fn check_other(dir: &Path, args: &[String]) {
    let full: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = trailgate(dir, &full);
    let allowed: &[i32] = if full.first() == Some(&"merge") {
        &[0, 1]
    } else {
        &[0]
    };
    assert!(
        allowed.contains(&run.code),
        "{}: exit code {}\n{}",
        dir.display(),
        run.code,
        run.stderr
    );
    // A warning (a file that gave no call, docs/formats.md#a-file-that-says-nothing) is part of
    // what the case pins.
    let mut shown = run.show(&run.stdout);
    if !run.stderr.is_empty() {
        shown.push_str("\n--- stderr\n");
        shown.push_str(&run.stderr);
    }
    insta::assert_snapshot!("output", shown);
}

/// An invalid case exits 2, prints nothing on stdout, and explains itself on stderr.
fn check_invalid(dir: &Path, args: &[String]) {
    let full: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = trailgate(dir, &full);
    assert_eq!(run.code, 2, "{}: exit code\n{}", dir.display(), run.stderr);
    assert_eq!(run.stdout, "", "{}: nothing half-written", dir.display());
    assert!(
        run.stderr.contains("trailgate::"),
        "{}: a coded diagnostic",
        dir.display()
    );
    insta::assert_snapshot!("error", run.show(&run.stderr));
}
